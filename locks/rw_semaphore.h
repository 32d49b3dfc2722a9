/* SPDX-License-Identifier: MIT */
/*
 * sim_rwsem — a reader-writer semaphore with the Linux rwsem's fairness
 * rules (see rw_semaphore.c for the algorithm). It is the primitive behind
 * the `rwsem` scheme and the mm lock that `pervma` falls back to.
 */
#ifndef VMSIM_RW_SEMAPHORE_H
#define VMSIM_RW_SEMAPHORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "locks/lockstat.h"

struct rwsem_waiter;

struct sim_rwsem {
	_Atomic long count;              /* see RWSEM_* in rw_semaphore.c */
	pthread_mutex_t wait_lock;       /* protects the wait queue */
	struct rwsem_waiter *head, *tail;
	struct lockstat_class *stat;     /* may be NULL: no accounting */
};

/* Returns 0 or -errno. stat may be NULL. */
int sim_rwsem_init(struct sim_rwsem *s, struct lockstat_class *stat);
void sim_rwsem_destroy(struct sim_rwsem *s);

/*
 * Lock calls return the acquisition time (ns, CLOCK_MONOTONIC) when the
 * semaphore keeps statistics, 0 otherwise; pass it back to the unlock so
 * the hold time can be accounted.
 */
uint64_t sim_down_read(struct sim_rwsem *s);
uint64_t sim_down_write(struct sim_rwsem *s);
void sim_up_read(struct sim_rwsem *s, uint64_t t_acquired);
void sim_up_write(struct sim_rwsem *s, uint64_t t_acquired);
/* Trylocks return true when the lock was taken (*t_acquired set). */
bool sim_down_read_trylock(struct sim_rwsem *s, uint64_t *t_acquired);
bool sim_down_write_trylock(struct sim_rwsem *s, uint64_t *t_acquired);
/* For assertions in tests and debug checks. */
bool sim_rwsem_is_write_locked(struct sim_rwsem *s);

#endif
