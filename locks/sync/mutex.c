/* SPDX-License-Identifier: MIT */
/* The sleeping mutex of locks/sync/mutex.h. */
#include "locks/sync/mutex.h"

#include "locks/sync/futex.h"

/* Spins before sleeping: about a microsecond of PAUSEs, the order of a
 * short critical section (the kernel spins as long as the owner runs). */
#define MUTEX_SPINS 128

void sim_mutex_init(struct sim_mutex *m, struct lockstat_class *cls)
{
	atomic_init(&m->state, 0);
	m->stat = cls;
}

static bool mutex_try(struct sim_mutex *m)
{
	int free_ = 0;

	return atomic_compare_exchange_strong_explicit(&m->state, &free_, 1,
			memory_order_acquire, memory_order_relaxed);
}

static void mutex_lock_slowpath(struct sim_mutex *m)
{
	int c;

	for (int i = 0; i < MUTEX_SPINS; i++) {
		if (atomic_load_explicit(&m->state, memory_order_relaxed) == 0 &&
		    mutex_try(m))
			return;
		cpu_relax();
	}
	/* Mark it contended, and sleep while it stays taken: whoever takes
	 * it from here takes it as 2, so that its unlock wakes the next. */
	c = atomic_exchange_explicit(&m->state, 2, memory_order_acquire);
	while (c != 0) {
		futex_wait(&m->state, 2);
		c = atomic_exchange_explicit(&m->state, 2, memory_order_acquire);
	}
}

uint64_t sim_mutex_lock(struct sim_mutex *m)
{
	uint64_t t0, t1;

	if (mutex_try(m)) {
		t1 = m->stat ? lockstat_now() : 0;
		if (m->stat)
			lockstat_acquired(m->stat, LS_WRITE, false, 0);
		return t1;
	}
	t0 = m->stat ? lockstat_now() : 0;
	mutex_lock_slowpath(m);
	t1 = m->stat ? lockstat_now() : 0;
	if (m->stat)
		lockstat_acquired(m->stat, LS_WRITE, true, t1 - t0);
	return t1;
}

bool sim_mutex_trylock(struct sim_mutex *m, uint64_t *t_acquired)
{
	if (!mutex_try(m))
		return false;
	*t_acquired = m->stat ? lockstat_now() : 0;
	if (m->stat)
		lockstat_acquired(m->stat, LS_WRITE, false, 0);
	return true;
}

void sim_mutex_unlock(struct sim_mutex *m, uint64_t t_acquired)
{
	if (m->stat)
		lockstat_released(m->stat, LS_WRITE, lockstat_now() - t_acquired);
	/* Release: our critical section happens-before the next owner's. */
	if (atomic_exchange_explicit(&m->state, 0, memory_order_release) == 2)
		futex_wake(&m->state, 1);
}
