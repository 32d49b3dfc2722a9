/* SPDX-License-Identifier: MIT */
/* What the two halves of sim_rwsem share (rw_semaphore.c: readers, the
 * wait queue, wake-ups; rw_semaphore_write.c: writers). Private to sync/. */
#ifndef VMSIM_RW_SEMAPHORE_INT_H
#define VMSIM_RW_SEMAPHORE_INT_H

#include <errno.h>

#include "locks/sync/futex.h"
#include "locks/sync/rw_semaphore.h"

#define RWSEM_WRITER_LOCKED    (1L << 0)
#define RWSEM_FLAG_WAITERS     (1L << 1)
#define RWSEM_FLAG_HANDOFF     (1L << 2)
#define RWSEM_READER_SHIFT     8
#define RWSEM_READER_BIAS      (1L << RWSEM_READER_SHIFT)
#define RWSEM_READER_MASK      (~(RWSEM_READER_BIAS - 1))
#define RWSEM_WRITER_MASK      RWSEM_WRITER_LOCKED
#define RWSEM_LOCK_MASK        (RWSEM_WRITER_MASK | RWSEM_READER_MASK)
#define RWSEM_READ_FAILED_MASK (RWSEM_WRITER_MASK | RWSEM_FLAG_WAITERS | \
				RWSEM_FLAG_HANDOFF)

#define RWSEM_READER_OWNED     1UL
#define RWSEM_NONSPINNABLE     2UL

#define RWSEM_WAIT_TIMEOUT_NS  4000000ull   /* 4 ms: DIV_ROUND_UP(HZ, 250) */
#define RWSEM_OWNER_SPIN_NS    50000ull     /* stand-in for owner_on_cpu() */
#define MAX_READERS_WAKEUP     256

enum waiter_type { WAITER_READER, WAITER_WRITER };
enum wake_type { WAKE_ANY, WAKE_READERS, WAKE_READ_OWNED };
enum rwsem_owner_state { OWNER_NULL = 1, OWNER_WRITER = 2, OWNER_READER = 4,
		   OWNER_NONSPINNABLE = 8 };
#define OWNER_SPINNABLE (OWNER_NULL | OWNER_WRITER | OWNER_READER)

struct rwsem_waiter {
	struct rwsem_waiter *next;       /* queue link, then wake-list link */
	enum waiter_type type;
	unsigned long token;             /* the waiting thread */
	uint64_t timeout;                /* ns: may set HANDOFF after this */
	_Atomic bool handoff_set;        /* written under wait_lock; read by
					  * its own waiter without it (a hint) */
	_Atomic int granted;             /* reader: the lock is ours */
	_Atomic int woken;               /* writer: try again */
};

/* What a wake-up must do once wait_lock is dropped (the kernel's wake_q). */
struct wake_q {
	struct rwsem_waiter *readers;    /* granted readers, still asleep */
	_Atomic int *writer;             /* a writer's woken word, or NULL */
};


unsigned long rwsem_self_token(void);
uint64_t rwsem_stat_now(struct sim_rwsem *s);
void rwsem_ev(struct sim_rwsem *s, enum rwsem_event e, uint64_t n);
void rwsem_set_owner(struct sim_rwsem *s);
void rwsem_set_reader_owned_by(struct sim_rwsem *s, unsigned long token);
void rwsem_set_nonspinnable(struct sim_rwsem *s);
void rwsem_enqueue(struct sim_rwsem *s, struct rwsem_waiter *w);
void rwsem_dequeue(struct sim_rwsem *s, struct rwsem_waiter *w);
void rwsem_mark_wake(struct sim_rwsem *s, enum wake_type type, struct wake_q *q);
void rwsem_wake_up_q(struct wake_q *q);
void rwsem_cond_wake_waiter(struct sim_rwsem *s, long count, struct wake_q *q);
void rwsem_wake(struct sim_rwsem *s, enum wake_type type);
enum rwsem_owner_state rwsem_owner_state(unsigned long o);

#endif
