/* SPDX-License-Identifier: MIT */
#include "locks/rcu.h"

#include <pthread.h>

#if defined(__SANITIZE_THREAD__)
#define VMSIM_RCU_EMULATED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VMSIM_RCU_EMULATED 1
#endif
#endif

#ifdef VMSIM_RCU_EMULATED

static pthread_rwlock_t rcu_emul = PTHREAD_RWLOCK_INITIALIZER;
static _Thread_local int rcu_nesting;

void sim_rcu_read_lock(void)
{
	if (rcu_nesting++ == 0)
		pthread_rwlock_rdlock(&rcu_emul);
}

void sim_rcu_read_unlock(void)
{
	if (--rcu_nesting == 0)
		pthread_rwlock_unlock(&rcu_emul);
}

void sim_rcu_synchronize(void)
{
	pthread_rwlock_wrlock(&rcu_emul);
	pthread_rwlock_unlock(&rcu_emul);
}

#else

#include <urcu/urcu-memb.h>

static pthread_key_t rcu_key;
static pthread_once_t rcu_once = PTHREAD_ONCE_INIT;
static _Thread_local bool rcu_registered;

static void rcu_thread_exit(void *unused)
{
	(void)unused;
	urcu_memb_unregister_thread();
}

static void rcu_make_key(void)
{
	pthread_key_create(&rcu_key, rcu_thread_exit);
}

static void rcu_register(void)
{
	pthread_once(&rcu_once, rcu_make_key);
	urcu_memb_register_thread();
	/* Non-NULL value: the destructor runs when this thread exits. */
	pthread_setspecific(rcu_key, &rcu_registered);
	rcu_registered = true;
}

void sim_rcu_read_lock(void)
{
	if (__builtin_expect(!rcu_registered, 0))
		rcu_register();
	urcu_memb_read_lock();
}

void sim_rcu_read_unlock(void)
{
	urcu_memb_read_unlock();
}

void sim_rcu_synchronize(void)
{
	urcu_memb_synchronize_rcu();
}

#endif
