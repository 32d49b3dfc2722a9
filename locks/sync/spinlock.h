/* SPDX-License-Identifier: MIT */
/*
 * A spinlock, for the kernel's spinlocks that vmsim simulates (spf's
 * page-table locks, the range lock's tree lock, the page allocator's zone
 * and per-CPU locks) and for its own per-thread caches. Test-and-test-
 * and-set; a waiter yields after a while, since a vCPU holding the lock
 * may have been preempted (a kernel spinlock holder cannot be). The
 * _raw calls keep no statistics; the others count acquisitions on the
 * write side of a lockstat class.
 */
#ifndef VMSIM_SPINLOCK_H
#define VMSIM_SPINLOCK_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "locks/sync/futex.h"
#include "locks/sync/lockstat.h"

struct sim_spinlock {
	_Atomic int locked;
} __attribute__((aligned(64)));

/* Take the lock; true if it had to wait. */
static inline bool sim_spin_lock_raw(struct sim_spinlock *l)
{
	for (int tries = 0;; tries++) {
		int zero = 0;

		/* Acquire: pairs with the release in sim_spin_unlock_raw(). */
		if (!atomic_load_explicit(&l->locked, memory_order_relaxed) &&
		    atomic_compare_exchange_weak_explicit(&l->locked, &zero, 1,
				memory_order_acquire, memory_order_relaxed))
			return tries > 0;
		if (tries > 64)
			sched_yield();
		else
			cpu_relax();
	}
}

/* Held by someone (for SIM_WARN_ON: the kernel's lockdep_assert_held). */
static inline bool sim_spin_is_locked(struct sim_spinlock *l)
{
	return atomic_load_explicit(&l->locked, memory_order_relaxed) != 0;
}

static inline void sim_spin_unlock_raw(struct sim_spinlock *l)
{
	atomic_store_explicit(&l->locked, 0, memory_order_release);
}

/* Take the lock, counted in cls; returns the acquisition time (for
 * sim_spin_unlock). */
static inline uint64_t sim_spin_lock(struct sim_spinlock *l,
				     struct lockstat_class *cls)
{
	uint64_t t0 = lockstat_now(), t;
	bool contended = sim_spin_lock_raw(l);

	t = lockstat_now();
	lockstat_acquired(cls, LS_WRITE, contended, t - t0);
	return t;
}

static inline void sim_spin_unlock(struct sim_spinlock *l,
				   struct lockstat_class *cls,
				   uint64_t t_acquired)
{
	lockstat_released(cls, LS_WRITE, lockstat_now() - t_acquired);
	sim_spin_unlock_raw(l);
}

#endif
