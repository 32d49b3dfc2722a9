/* SPDX-License-Identifier: MIT */
#include "locks/sync/rcu.h"

#include <pthread.h>
#include <stddef.h>

#if defined(__SANITIZE_THREAD__)
#define VMSIM_RCU_EMULATED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VMSIM_RCU_EMULATED 1
#endif
#endif

const char *const sim_rcu_cbs_names[SIM_RCU_CBS_N] = {
	[SIM_RCU_CBS_PERCPU] = "percpu", [SIM_RCU_CBS_ONE] = "one",
};

#ifdef VMSIM_RCU_EMULATED

#define RCU_EMUL_BATCH 256

static pthread_rwlock_t rcu_emul = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t rcu_cbs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_rcu_head *rcu_cbs;
static struct sim_rcu_raw *rcu_raw_cbs;  /* opaque[0]: next, [1]: fn */
static int rcu_ncbs;
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

/* Run every queued callback after one grace period. */
static void rcu_emul_flush(void)
{
	struct sim_rcu_head *h;
	struct sim_rcu_raw *r;

	pthread_mutex_lock(&rcu_cbs_lock);
	h = rcu_cbs;
	r = rcu_raw_cbs;
	rcu_cbs = NULL;
	rcu_raw_cbs = NULL;
	rcu_ncbs = 0;
	pthread_mutex_unlock(&rcu_cbs_lock);
	if (!h && !r)
		return;
	sim_rcu_synchronize();
	while (h) {
		struct sim_rcu_head *next = h->next;

		h->fn(h);
		h = next;
	}
	while (r) {
		struct sim_rcu_raw *next = r->opaque[0];
		void (*fn)(struct sim_rcu_raw *) =
			(void (*)(struct sim_rcu_raw *))r->opaque[1];

		fn(r);
		r = next;
	}
}

void sim_call_rcu_raw(struct sim_rcu_raw *h, void (*fn)(struct sim_rcu_raw *h))
{
	bool full;

	h->opaque[1] = (void *)fn;
	pthread_mutex_lock(&rcu_cbs_lock);
	h->opaque[0] = rcu_raw_cbs;
	rcu_raw_cbs = h;
	full = ++rcu_ncbs >= RCU_EMUL_BATCH;
	pthread_mutex_unlock(&rcu_cbs_lock);
	if (full && !rcu_nesting)
		rcu_emul_flush();
}

void sim_call_rcu(struct sim_rcu_head *h, void (*fn)(struct sim_rcu_head *h))
{
	bool full;

	h->fn = fn;
	pthread_mutex_lock(&rcu_cbs_lock);
	h->next = rcu_cbs;
	rcu_cbs = h;
	full = ++rcu_ncbs >= RCU_EMUL_BATCH;
	pthread_mutex_unlock(&rcu_cbs_lock);
	/* The caller is never inside a read-side section (writers are not). */
	if (full && !rcu_nesting)
		rcu_emul_flush();
}

void sim_rcu_barrier_queued(void)
{
	rcu_emul_flush();
}

/* The emulation runs callbacks on the thread that fills a batch. */
void sim_rcu_set_callbacks(enum sim_rcu_cbs where) { (void)where; }
void sim_rcu_prepare(void) {}
void sim_rcu_before_fork(void) {}
void sim_rcu_after_fork_parent(void) {}
void sim_rcu_after_fork_child(void) {}

#else

#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>
#include <urcu/call-rcu.h>

_Static_assert(sizeof(struct rcu_head) <= sizeof(((struct sim_rcu_head *)0)->opaque),
	       "liburcu's rcu_head must fit in sim_rcu_head");

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

static void rcu_trampoline(struct rcu_head *rh)
{
	struct sim_rcu_head *h = (struct sim_rcu_head *)
		((char *)rh - offsetof(struct sim_rcu_head, opaque));

	h->fn(h);
}

void sim_call_rcu(struct sim_rcu_head *h, void (*fn)(struct sim_rcu_head *h))
{
	h->fn = fn;
	urcu_memb_call_rcu((struct rcu_head *)h->opaque, rcu_trampoline);
}

void sim_rcu_barrier_queued(void)
{
	urcu_memb_barrier();
}

_Static_assert(sizeof(struct rcu_head) == sizeof(struct sim_rcu_raw),
	       "liburcu's rcu_head is the two words of sim_rcu_raw");

void sim_call_rcu_raw(struct sim_rcu_raw *h, void (*fn)(struct sim_rcu_raw *h))
{
	urcu_memb_call_rcu((struct rcu_head *)h,
			   (void (*)(struct rcu_head *))fn);
}

static enum sim_rcu_cbs rcu_cbs_where = SIM_RCU_CBS_PERCPU;
static pid_t rcu_cbs_pid;                /* the process that made them */
static struct call_rcu_data *rcu_cpu_data[CPU_SETSIZE];
static pthread_mutex_t rcu_cbs_mutex = PTHREAD_MUTEX_INITIALIZER;

void sim_rcu_set_callbacks(enum sim_rcu_cbs where)
{
	rcu_cbs_where = where;
}

/* PERCPU: a callback thread bound to each CPU this process may run on,
 * made once (a CPU whose thread cannot be had uses the default thread,
 * as liburcu does for a CPU without one). ONE: the CPUs let go of theirs
 * (kept, idle, for a later PERCPU). After a fork liburcu keeps only its
 * default thread (call_rcu_after_fork_child); the child makes its own. */
static void rcu_cpu_threads(bool on)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	bool moved = false;
	cpu_set_t mine;

	if (rcu_cbs_pid != getpid()) {
		rcu_cbs_pid = getpid();
		memset(rcu_cpu_data, 0, sizeof(rcu_cpu_data));
	}
	if (sched_getaffinity(0, sizeof(mine), &mine))
		return;
	/* Every CPU the process may run on, not only the caller's (it may
	 * be a pinned thread): one that cannot be had is left out. */
	for (int cpu = 0; cpu < CPU_SETSIZE && cpu < ncpus; cpu++) {
		cpu_set_t one;

		/* liburcu binds its thread to the CPU only every 256th time
		 * round its loop; made while we run on that CPU alone, the
		 * thread inherits the binding from its first callback. */
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (on && !rcu_cpu_data[cpu] &&
		    !sched_setaffinity(0, sizeof(one), &one)) {
			moved = true;
			rcu_cpu_data[cpu] = urcu_memb_create_call_rcu_data(0, cpu);
		}
		if (rcu_cpu_data[cpu])
			(void)urcu_memb_set_cpu_call_rcu_data(cpu,
					on ? rcu_cpu_data[cpu] : NULL);
	}
	if (moved)
		(void)sched_setaffinity(0, sizeof(mine), &mine);
}

void sim_rcu_prepare(void)
{
	(void)urcu_memb_get_default_call_rcu_data();
	pthread_mutex_lock(&rcu_cbs_mutex);
	rcu_cpu_threads(rcu_cbs_where == SIM_RCU_CBS_PERCPU);
	pthread_mutex_unlock(&rcu_cbs_mutex);
}

void sim_rcu_before_fork(void)
{
	urcu_memb_call_rcu_before_fork();
}

void sim_rcu_after_fork_parent(void)
{
	urcu_memb_call_rcu_after_fork_parent();
}

void sim_rcu_after_fork_child(void)
{
	urcu_memb_call_rcu_after_fork_child();
}

#endif
