/* SPDX-License-Identifier: MIT */
/*
 * sim_rwsem: the Linux kernel's rw_semaphore (kernel/locking/rwsem.c as of
 * 6.x: Waiman Long's rewrite, reader optimistic spinning removed, reader
 * lock stealing and writer hand-off), in user space.
 *
 * State: one atomic word `count`, laid out as the kernel's
 *   bit 0      RWSEM_WRITER_LOCKED  a writer holds the lock
 *   bit 1      RWSEM_FLAG_WAITERS   the wait queue is not empty
 *   bit 2      RWSEM_FLAG_HANDOFF   a waiter has waited too long: nobody
 *                                   may steal the lock from it
 *   bits 8..   reader count (RWSEM_READER_BIAS each)
 * an `owner` word (the writer's token, or READER_OWNED with the last
 * reader's token; NONSPINNABLE when a spinning writer gave up on readers)
 * and a FIFO wait queue under `wait_lock` (a pthread mutex stands in for
 * the kernel's raw spinlock).
 *
 * Readers. The fast path adds a reader bias and succeeds unless a writer
 * holds the lock, somebody waits, or HANDOFF is set. The slow path keeps
 * the bias and *steals* the lock when no writer holds it and HANDOFF is
 * clear — even with waiters queued — unless readers already own it
 * (then it queues, so a stream of readers cannot starve a writer). A
 * queued reader sleeps until a wake-up grants it the lock directly.
 *
 * Writers. The fast path is cmpxchg 0 -> WRITER_LOCKED. The slow path
 * first spins optimistically (one spinner at a time, the OSQ): on a
 * writer owner while it holds the lock, on reader owners for (10 +
 * readers/2) us capped at 25 us, retrying whenever the owner changes.
 * Then it queues and loops: try to take the lock under wait_lock
 * (rwsem_try_write_lock: any queued writer may, unless the first waiter
 * set HANDOFF), else sleep until woken. A woken writer is *not* granted
 * the lock: it re-competes, and loses to a stealing reader or spinning
 * writer — unless it has waited more than 4 ms (RWSEM_WAIT_TIMEOUT),
 * when its failed attempt sets HANDOFF, which stops all stealing; it
 * then spins on the owner rather than sleeping.
 *
 * Wake-up (rwsem_mark_wake). A releaser that sees WAITERS wakes the head
 * of the queue: a writer head is only woken (WAKE_ANY); a reader head
 * gets every queued reader (up to 256, wherever they sit) granted at
 * once, their biases added before any of them runs (the kernel's two
 * passes). A reader that waited too long while a writer stole the lock
 * sets HANDOFF too.
 *
 * Downgrade turns WRITER_LOCKED into one reader bias and wakes the
 * readers at the head (WAKE_READ_OWNED), as downgrade_write().
 *
 * What user space cannot see, and the stand-ins (docs/fidelity.md):
 * owner_on_cpu() is known in one case: a writer owner records its CPU
 * (sched_getcpu(), rseq-backed) when it takes the lock, and a spinner
 * running on that CPU stops at once, since the owner cannot be running
 * there — the case of a task and its handler pinned to one CPU. An owner
 * descheduled on another CPU cannot be seen, nor need_resched(), so a
 * writer spins on a writer owner for at most RWSEM_OWNER_SPIN_NS; the
 * OSQ is a test-and-set flag a would-be spinner waits on within the same
 * budget; jiffies are CLOCK_MONOTONIC nanoseconds.
 *
 * Invariants:
 *  - WRITER_LOCKED set => the reader count is 0, except for transient
 *    biases of readers about to back out or to be granted.
 *  - A waiter leaves the queue exactly once, under wait_lock: a reader
 *    when a wake-up grants it, a writer when its own trylock succeeds.
 *  - No lost wake-up: a releaser decrements `count` and then tests
 *    WAITERS; a new waiter sets WAITERS (or sees it set) under wait_lock
 *    and re-examines `count` before sleeping (both RMWs on one word).
 */
#include "locks/sync/rw_semaphore.h"

#include <errno.h>
#include <sched.h>

#include "locks/sync/futex.h"
#include "locks/sync/rw_semaphore_int.h"

/* A thread's identity for the owner word: an address unique while the
 * thread lives, aligned so the two flag bits are free. Never dereferenced. */
static _Thread_local int rwsem_self;

unsigned long rwsem_self_token(void)
{
	return (unsigned long)&rwsem_self;
}

uint64_t rwsem_stat_now(struct sim_rwsem *s)
{
	return s->stat ? lockstat_now() : 0;
}

void rwsem_ev(struct sim_rwsem *s, enum rwsem_event e, uint64_t n)
{
	atomic_fetch_add_explicit(&s->events[e], n, memory_order_relaxed);
}

/* --- the owner word (relaxed: a hint for spinners, as in the kernel) ------ */

/* The writer also says where it runs: a spinner on that CPU knows the
 * owner is not running (owner_on_cpu() false). */
void rwsem_set_owner(struct sim_rwsem *s)
{
	atomic_store_explicit(&s->owner_cpu, sched_getcpu(), memory_order_relaxed);
	atomic_store_explicit(&s->owner, rwsem_self_token(), memory_order_relaxed);
}

void rwsem_set_reader_owned_by(struct sim_rwsem *s, unsigned long token)
{
	unsigned long keep = atomic_load_explicit(&s->owner, memory_order_relaxed) &
			     RWSEM_NONSPINNABLE;

	atomic_store_explicit(&s->owner, token | RWSEM_READER_OWNED | keep,
			      memory_order_relaxed);
}

void rwsem_set_nonspinnable(struct sim_rwsem *s)
{
	unsigned long o = atomic_load_explicit(&s->owner, memory_order_relaxed);

	do {
		if (!(o & RWSEM_READER_OWNED) || (o & RWSEM_NONSPINNABLE))
			return;
	} while (!atomic_compare_exchange_weak_explicit(&s->owner, &o,
			o | RWSEM_NONSPINNABLE, memory_order_relaxed,
			memory_order_relaxed));
}

static void clear_nonspinnable(struct sim_rwsem *s)
{
	if (atomic_load_explicit(&s->owner, memory_order_relaxed) &
	    RWSEM_NONSPINNABLE)
		atomic_fetch_and_explicit(&s->owner, ~RWSEM_NONSPINNABLE,
					  memory_order_relaxed);
}

/* --- the wait queue (under wait_lock) --------------------------------------- */

void rwsem_enqueue(struct sim_rwsem *s, struct rwsem_waiter *w)
{
	w->next = NULL;
	if (s->tail)
		s->tail->next = w;
	else
		s->head = w;
	s->tail = w;
}

/* Remove w (a writer that took the lock; it may not be first). */
void rwsem_dequeue(struct sim_rwsem *s, struct rwsem_waiter *w)
{
	struct rwsem_waiter **pp = &s->head, *prev = NULL;

	while (*pp != w) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	*pp = w->next;
	if (s->tail == w)
		s->tail = prev;
}

/*
 * rwsem_mark_wake(): see the file comment. Readers are taken off the
 * queue and counted in; they are told (granted) by rwsem_wake_up_q() after
 * wait_lock is dropped. A writer head is only marked woken.
 */
void rwsem_mark_wake(struct sim_rwsem *s, enum wake_type type, struct wake_q *q)
{
	struct rwsem_waiter *w = s->head, **pp = &s->head, *prev = NULL;
	long adjustment = 0, oldcount, woken = 0;

	if (w->type == WAITER_WRITER) {
		if (type == WAKE_ANY) {
			/* Until it runs, writers may steal; readers see it queued. */
			atomic_store_explicit(&w->woken, 1, memory_order_release);
			q->writer = &w->woken;
			rwsem_ev(s, RWSEM_EV_WAKE_WRITER, 1);
		}
		return;
	}
	if (type != WAKE_READ_OWNED) {
		/* Grant the first reader before counting the rest, so that we
		 * can back out at once if a writer stole the lock. */
		adjustment = RWSEM_READER_BIAS;
		oldcount = atomic_fetch_add(&s->count, adjustment);
		if (oldcount & RWSEM_WRITER_MASK) {
			if (mono_ns() > w->timeout) {
				if (!(oldcount & RWSEM_FLAG_HANDOFF)) {
					adjustment -= RWSEM_FLAG_HANDOFF;
					rwsem_ev(s, RWSEM_EV_RLOCK_HANDOFF, 1);
				}
				atomic_store_explicit(&w->handoff_set, true,
						      memory_order_relaxed);
			}
			atomic_fetch_add(&s->count, -adjustment);
			return;
		}
		rwsem_set_reader_owned_by(s, w->token);
	}
	while ((w = *pp) && woken < MAX_READERS_WAKEUP) {
		if (w->type == WAITER_WRITER) {
			prev = w;
			pp = &w->next;
			continue;
		}
		*pp = w->next;
		if (s->tail == w)
			s->tail = prev;
		w->next = q->readers;
		q->readers = w;
		woken++;
	}
	adjustment = woken * RWSEM_READER_BIAS - adjustment;
	rwsem_ev(s, RWSEM_EV_WAKE_READER, (uint64_t)woken);
	oldcount = atomic_load(&s->count);
	if (!s->head) {
		adjustment -= RWSEM_FLAG_WAITERS;
		if (oldcount & RWSEM_FLAG_HANDOFF)
			adjustment -= RWSEM_FLAG_HANDOFF;
	} else if (woken && (oldcount & RWSEM_FLAG_HANDOFF)) {
		/* A reader phase has begun: no need to force writers out. */
		adjustment -= RWSEM_FLAG_HANDOFF;
	}
	if (adjustment)
		atomic_fetch_add(&s->count, adjustment);
}

/* rwsem_wake_up_q(): tell the granted readers, kick the woken writer. A waiter
 * may return as soon as it sees its word set; a futex wake on its
 * address afterwards is harmless (every futex wait here loops on its
 * condition). */
void rwsem_wake_up_q(struct wake_q *q)
{
	struct rwsem_waiter *w = q->readers, *next;

	while (w) {
		next = w->next;          /* before the grant: w may go away */
		/* Release: pairs with the acquire load in the reader's wait;
		 * the count we added is visible before it runs. */
		atomic_store_explicit(&w->granted, 1, memory_order_release);
		futex_wake(&w->granted, 1);
		w = next;
	}
	if (q->writer)
		futex_wake(q->writer, 1);
}

/* rwsem_cond_wake_waiter(): wake what the lock state allows. */
void rwsem_cond_wake_waiter(struct sim_rwsem *s, long count, struct wake_q *q)
{
	if (count & RWSEM_WRITER_MASK)
		return;
	if (count & RWSEM_READER_MASK) {
		rwsem_mark_wake(s, WAKE_READERS, q);
	} else {
		clear_nonspinnable(s);
		rwsem_mark_wake(s, WAKE_ANY, q);
	}
}

void rwsem_wake(struct sim_rwsem *s, enum wake_type type)
{
	struct wake_q q = { 0 };

	pthread_mutex_lock(&s->wait_lock);
	if (s->head)
		rwsem_mark_wake(s, type, &q);
	pthread_mutex_unlock(&s->wait_lock);
	rwsem_wake_up_q(&q);
}

/* --- readers ---------------------------------------------------------------- */

static void down_read_slowpath(struct sim_rwsem *s, long count)
{
	long adjustment = -RWSEM_READER_BIAS, rcnt = count >> RWSEM_READER_SHIFT;
	struct rwsem_waiter w = { .type = WAITER_READER };
	struct wake_q q = { 0 };

	/* Readers own it: queue rather than steal, or a stream of readers
	 * would starve the sleeping waiter. */
	if ((atomic_load_explicit(&s->owner, memory_order_relaxed) &
	     RWSEM_READER_OWNED) && rcnt > 1 && !(count & RWSEM_WRITER_LOCKED))
		goto queue;
	/* Reader lock stealing: our bias is already in the count. */
	if (!(count & (RWSEM_WRITER_LOCKED | RWSEM_FLAG_HANDOFF))) {
		rwsem_set_reader_owned_by(s, rwsem_self_token());
		rwsem_ev(s, RWSEM_EV_RLOCK_STEAL, 1);
		if (rcnt == 1 && (count & RWSEM_FLAG_WAITERS))
			rwsem_wake(s, WAKE_READ_OWNED);   /* bring the others */
		return;
	}
queue:
	w.token = rwsem_self_token();
	w.timeout = mono_ns() + RWSEM_WAIT_TIMEOUT_NS;
	pthread_mutex_lock(&s->wait_lock);
	if (!s->head) {
		if (!(atomic_load(&s->count) & RWSEM_WRITER_MASK)) {
			pthread_mutex_unlock(&s->wait_lock);
			rwsem_set_reader_owned_by(s, rwsem_self_token());
			rwsem_ev(s, RWSEM_EV_RLOCK_FAST, 1);
			return;
		}
		adjustment += RWSEM_FLAG_WAITERS;
	}
	rwsem_enqueue(s, &w);
	/* Now waiting, no longer actively locking. */
	count = atomic_fetch_add(&s->count, adjustment) + adjustment;
	rwsem_cond_wake_waiter(s, count, &q);
	pthread_mutex_unlock(&s->wait_lock);
	rwsem_wake_up_q(&q);
	futex_wait_nonzero(&w.granted);
	rwsem_ev(s, RWSEM_EV_SLEEP_READER, 1);
}

uint64_t sim_down_read(struct sim_rwsem *s)
{
	/* Acquire: pairs with the release in the previous writer's unlock. */
	long c = atomic_fetch_add_explicit(&s->count, RWSEM_READER_BIAS,
					   memory_order_acquire) + RWSEM_READER_BIAS;
	uint64_t t0, t1;

	if (!(c & RWSEM_READ_FAILED_MASK)) {
		rwsem_set_reader_owned_by(s, rwsem_self_token());
		t1 = rwsem_stat_now(s);
		lockstat_acquired(s->stat, LS_READ, false, 0);
		return t1;
	}
	t0 = rwsem_stat_now(s);
	down_read_slowpath(s, c);
	t1 = rwsem_stat_now(s);
	lockstat_acquired(s->stat, LS_READ, true, t1 - t0);
	return t1;
}

bool sim_down_read_trylock(struct sim_rwsem *s, uint64_t *t_acquired)
{
	long c = atomic_load_explicit(&s->count, memory_order_relaxed);

	while (!(c & RWSEM_READ_FAILED_MASK)) {
		if (atomic_compare_exchange_weak_explicit(&s->count, &c,
				c + RWSEM_READER_BIAS, memory_order_acquire,
				memory_order_relaxed)) {
			rwsem_set_reader_owned_by(s, rwsem_self_token());
			*t_acquired = rwsem_stat_now(s);
			lockstat_acquired(s->stat, LS_READ, false, 0);
			return true;
		}
	}
	return false;
}

void sim_up_read(struct sim_rwsem *s, uint64_t t_acquired)
{
	long c;

	if (s->stat)
		lockstat_released(s->stat, LS_READ, lockstat_now() - t_acquired);
	/* Release: the critical section happens-before the next owner's. */
	c = atomic_fetch_sub_explicit(&s->count, RWSEM_READER_BIAS,
				      memory_order_seq_cst) - RWSEM_READER_BIAS;
	if ((c & (RWSEM_LOCK_MASK | RWSEM_FLAG_WAITERS)) == RWSEM_FLAG_WAITERS) {
		clear_nonspinnable(s);
		rwsem_wake(s, WAKE_ANY);
	}
}
