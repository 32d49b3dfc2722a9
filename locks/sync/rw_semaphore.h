/* SPDX-License-Identifier: MIT */
/*
 * sim_rwsem — a reader-writer semaphore that follows the Linux rwsem
 * (kernel/locking/rwsem.c, 6.x) rule for rule; see rw_semaphore.c. It is
 * the primitive behind the `rwsem` scheme and the mm lock that `pervma`
 * falls back to.
 */
#ifndef VMSIM_RW_SEMAPHORE_H
#define VMSIM_RW_SEMAPHORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "locks/sync/lockstat.h"

struct rwsem_waiter;

/* The kernel's lockevents (kernel/locking/lock_events_list.h) that say
 * which path each acquisition took. */
enum rwsem_event {
	RWSEM_EV_RLOCK_STEAL,            /* reader took it in the slow path */
	RWSEM_EV_RLOCK_FAST,             /* slow path, but nothing to wait for */
	RWSEM_EV_SLEEP_READER,           /* reader queued and slept */
	RWSEM_EV_SLEEP_WRITER,           /* writer queued and slept */
	RWSEM_EV_OPT_LOCK,               /* writer took it by optimistic spinning */
	RWSEM_EV_OPT_NOSPIN,             /* reader-owned spin timed out */
	RWSEM_EV_WLOCK_HANDOFF,          /* a waiting writer set HANDOFF */
	RWSEM_EV_RLOCK_HANDOFF,          /* a waiting reader set HANDOFF */
	RWSEM_EV_WAKE_WRITER,            /* a writer woken to re-compete */
	RWSEM_EV_WAKE_READER,            /* readers granted by a wake-up */
	RWSEM_EV_OWNER_OFF_CPU,          /* a spin ended: the owner is not running */
	RWSEM_NEVENTS
};

struct sim_rwsem {
	_Atomic long count;              /* see RWSEM_* in rw_semaphore.c */
	_Atomic unsigned long owner;     /* writer's token, or READER_OWNED|... */
	_Atomic int osq;                 /* one optimistic spinner at a time */
	_Atomic int owner_cpu;           /* the writer owner's CPU when it took it */
	pthread_mutex_t wait_lock;       /* protects the wait queue */
	struct rwsem_waiter *head, *tail;
	struct lockstat_class *stat;     /* may be NULL: no accounting */
	_Atomic uint64_t events[RWSEM_NEVENTS];
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
/* Turn a held write lock into a held read lock, waking the readers at
 * the head of the queue (downgrade_write()). Returns the read side's
 * acquisition time, for sim_up_read(). */
uint64_t sim_downgrade_write(struct sim_rwsem *s, uint64_t t_acquired);
/* Trylocks return true when the lock was taken (*t_acquired set). */
bool sim_down_read_trylock(struct sim_rwsem *s, uint64_t *t_acquired);
bool sim_down_write_trylock(struct sim_rwsem *s, uint64_t *t_acquired);
/* For assertions in tests and debug checks. */
bool sim_rwsem_is_write_locked(struct sim_rwsem *s);
bool sim_rwsem_has_handoff(struct sim_rwsem *s);
int sim_rwsem_nr_waiters(struct sim_rwsem *s);
/* The events a scheme reports (names[i], values[i]); returns how many
 * (SIM_RWSEM_NCOUNTERS). */
#define SIM_RWSEM_NCOUNTERS 6
int sim_rwsem_counters(struct sim_rwsem *s, const char **names,
		       uint64_t *values);
/* Name of an event counter ("rwsem_rlock_steal", ...). */
const char *sim_rwsem_event_name(enum rwsem_event e);

#endif
