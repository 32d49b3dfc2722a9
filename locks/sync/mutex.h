/* SPDX-License-Identifier: MIT */
/*
 * A sleeping mutex with lock statistics, for a scheme that needs one lock
 * and no read side (a what-if, or the internal lock of a new design):
 * the kernel's struct mutex as a waiter sees it — one owner; a locker
 * that finds it taken spins a little, as mutex_optimistic_spin() does
 * while the owner runs, then sleeps (here on a futex: Drepper's
 * three-state mutex, "Futexes Are Tricky", 2011: 0 free, 1 taken, 2
 * taken with sleepers) until mutex_unlock() hands it on. Each
 * acquisition and release is counted on its lockstat class as the write
 * side (wait when contended, hold), like the other primitives here.
 *
 *	uint64_t t = sim_mutex_lock(&m);
 *	...
 *	sim_mutex_unlock(&m, t);
 *
 * What it leaves out of the kernel's: the owner-running test of the spin
 * (a user-space thread cannot see whether its owner is on a CPU; the spin
 * is bounded instead), handoff to a starving waiter, and lockdep.
 * Source: kernel/locking/mutex.c.
 */
#ifndef VMSIM_LOCKS_SYNC_MUTEX_H
#define VMSIM_LOCKS_SYNC_MUTEX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "locks/sync/lockstat.h"

struct sim_mutex {
	_Atomic int state;               /* 0 free, 1 taken, 2 and sleepers */
	struct lockstat_class *stat;     /* NULL: not counted */
};

/* A free mutex counted on cls (NULL: not counted). */
void sim_mutex_init(struct sim_mutex *m, struct lockstat_class *cls);
/* Take m; returns when it was acquired (lockstat_now() ticks), for
 * sim_mutex_unlock's hold time. */
uint64_t sim_mutex_lock(struct sim_mutex *m);
/* Take m if it is free: true and *t_acquired, or false. */
bool sim_mutex_trylock(struct sim_mutex *m, uint64_t *t_acquired);
void sim_mutex_unlock(struct sim_mutex *m, uint64_t t_acquired);
/* For SIM_WARN_ON(!sim_mutex_is_locked(m)) — lockdep_assert_held(). */
static inline bool sim_mutex_is_locked(struct sim_mutex *m)
{
	return atomic_load_explicit(&m->state, memory_order_relaxed) != 0;
}

#endif
