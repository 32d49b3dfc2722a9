/* SPDX-License-Identifier: MIT */
/*
 * sim_rwsem: a reader-writer semaphore with the fairness of the Linux
 * kernel's rwsem (kernel/locking/rwsem.c, v5.3 and later).
 *
 * State: one atomic word `count`
 *   bit 0      RWSEM_WRITER_LOCKED  a writer holds the lock
 *   bit 1      RWSEM_FLAG_WAITERS   the wait queue is not empty
 *   bit 2      RWSEM_FLAG_HANDOFF   the first waiter has waited too long:
 *                                   nobody may steal the lock from it
 *   bits 8..   reader count (RWSEM_READER_BIAS each)
 * and a FIFO wait queue under `wait_lock` (a pthread mutex stands in for
 * the kernel's raw spinlock: waits on it are short, and it sleeps rather
 * than burns the other CPU on a 2-CPU machine).
 *
 * Fairness rules, as in the kernel:
 *  - Readers: the fast path adds a reader bias and succeeds only if no
 *    writer holds the lock and nobody is waiting. So a waiting writer
 *    blocks new readers (no writer starvation).
 *  - Writers: the fast path is cmpxchg 0 -> WRITER_LOCKED. The slow path
 *    first spins a bounded number of times trying to steal a free lock
 *    (the kernel's optimistic spinning; it may overtake queued waiters
 *    unless HANDOFF is set), then queues.
 *  - Wake-up: when the lock becomes free with waiters queued, the
 *    releaser grants the lock directly to the head of the queue (the
 *    kernel grants readers directly and lets a woken writer retry; we
 *    grant writers directly too, which is what the kernel converges to
 *    once HANDOFF is set). If the head is a reader, every queued reader
 *    is granted at once, wherever it sits in the queue (the kernel's
 *    phase-fair reader wake-up, up to 256 readers).
 *  - HANDOFF: set when the head has waited more than 4 ms
 *    (RWSEM_WAIT_TIMEOUT); it stops writers from stealing.
 *
 * Invariants:
 *  - WRITER_LOCKED set => reader count is 0 (except for a transient bias
 *    of a reader that is about to back out through the slow path).
 *  - A waiter is dequeued exactly once, by the thread that grants it the
 *    lock, under wait_lock; it then owns the lock.
 *  - No lost wake-up: a waiter sets WAITERS (after queueing) and then
 *    tries a grant itself under wait_lock; a releaser decrements `count`
 *    and then tests WAITERS. Both are RMWs on the same word, so one of the
 *    two sees the other (see rwsem_grant_locked()).
 */
#include "locks/rw_semaphore.h"

#include <errno.h>

#include "locks/futex.h"

#define RWSEM_WRITER_LOCKED  (1L << 0)
#define RWSEM_FLAG_WAITERS   (1L << 1)
#define RWSEM_FLAG_HANDOFF   (1L << 2)
#define RWSEM_READER_BIAS    (1L << 8)
#define RWSEM_READER_MASK    (~(RWSEM_READER_BIAS - 1))
#define RWSEM_LOCK_MASK      (RWSEM_WRITER_LOCKED | RWSEM_READER_MASK)
#define RWSEM_READ_FAIL_MASK (RWSEM_WRITER_LOCKED | RWSEM_FLAG_WAITERS | \
			      RWSEM_FLAG_HANDOFF)

#define RWSEM_WAIT_TIMEOUT_NS  4000000ull   /* 4 ms, as the kernel's HZ/250 */
#define RWSEM_SPIN_TRIES       128
#define RWSEM_MAX_READER_WAKE  256

enum waiter_type { WAITER_READER, WAITER_WRITER };

struct rwsem_waiter {
	struct rwsem_waiter *next;
	enum waiter_type type;
	_Atomic int granted;             /* 0 until the lock is ours */
	uint64_t t_queued;               /* ns */
};

int sim_rwsem_init(struct sim_rwsem *s, struct lockstat_class *stat)
{
	atomic_init(&s->count, 0);
	s->head = s->tail = NULL;
	s->stat = stat;
	return -pthread_mutex_init(&s->wait_lock, NULL);
}

void sim_rwsem_destroy(struct sim_rwsem *s)
{
	pthread_mutex_destroy(&s->wait_lock);
}

static uint64_t stat_now(struct sim_rwsem *s)
{
	return s->stat ? lockstat_now() : 0;
}

static void rwsem_enqueue(struct sim_rwsem *s, struct rwsem_waiter *w)
{
	w->next = NULL;
	if (s->tail)
		s->tail->next = w;
	else
		s->head = w;
	s->tail = w;
}

/* Unlink w, whose predecessor is *pp's owner (pp points at the link). */
static void rwsem_unlink(struct sim_rwsem *s, struct rwsem_waiter **pp,
			 struct rwsem_waiter *prev)
{
	struct rwsem_waiter *w = *pp;

	*pp = w->next;
	if (s->tail == w)
		s->tail = prev;
}

static void rwsem_grant(struct rwsem_waiter *w)
{
	/* Pairs with the acquire load in futex_wait_nonzero(): the waiter
	 * sees the lock word we updated before it runs its critical section.
	 * After this store w may be gone (it lives on the waiter's stack);
	 * a futex wake on a dead address is harmless. */
	atomic_store_explicit(&w->granted, 1, memory_order_release);
	futex_wake(&w->granted, 1);
}

/*
 * Grant every queued reader (the head is a reader and already holds one
 * bias). All their biases are added before the first of them is woken:
 * a woken reader may run and release at once, and the lock must not look
 * free to a stealing writer while later readers are still being granted
 * (the kernel's rwsem_mark_wake() adds its adjustment first, too).
 */
static void rwsem_grant_readers(struct sim_rwsem *s)
{
	struct rwsem_waiter **pp = &s->head, *prev = NULL, *w;
	long n = 0;

	for (w = s->head; w && n < RWSEM_MAX_READER_WAKE; w = w->next)
		if (w->type == WAITER_READER)
			n++;
	if (n > 1)
		atomic_fetch_add(&s->count, (n - 1) * RWSEM_READER_BIAS);
	while ((w = *pp) && n > 0) {
		if (w->type != WAITER_READER) {
			prev = w;
			pp = &w->next;
			continue;
		}
		rwsem_unlink(s, pp, prev);
		rwsem_grant(w);
		n--;
	}
}

/*
 * Hand the lock to the head of the queue while it can be had. Called with
 * wait_lock held, by releasers that saw WAITERS and by new waiters right
 * after queueing (so that a release that happened before WAITERS was set
 * is not lost: the RMW that set WAITERS is ordered after it, and the load
 * below then sees the lock free).
 */
static void rwsem_grant_locked(struct sim_rwsem *s)
{
	for (;;) {
		struct rwsem_waiter *w = s->head;
		long c = atomic_load(&s->count);

		if (!w) {
			atomic_fetch_and(&s->count,
				~(RWSEM_FLAG_WAITERS | RWSEM_FLAG_HANDOFF));
			return;
		}
		if (w->type == WAITER_WRITER) {
			if (c & RWSEM_LOCK_MASK)
				break;
			if (!atomic_compare_exchange_weak(&s->count, &c,
					(c | RWSEM_WRITER_LOCKED) & ~RWSEM_FLAG_HANDOFF))
				continue;
			rwsem_unlink(s, &s->head, NULL);
			rwsem_grant(w);
		} else {
			if (c & RWSEM_WRITER_LOCKED)
				break;
			if (!atomic_compare_exchange_weak(&s->count, &c,
					(c + RWSEM_READER_BIAS) & ~RWSEM_FLAG_HANDOFF))
				continue;
			rwsem_grant_readers(s);
		}
	}
	/* The head must wait. Let it claim hand-off after the timeout. */
	if (lockstat_now() - s->head->t_queued > RWSEM_WAIT_TIMEOUT_NS)
		atomic_fetch_or(&s->count, RWSEM_FLAG_HANDOFF);
}

static void rwsem_wake(struct sim_rwsem *s)
{
	pthread_mutex_lock(&s->wait_lock);
	rwsem_grant_locked(s);
	pthread_mutex_unlock(&s->wait_lock);
}

/* Queue w and sleep until granted. */
static void rwsem_queue_and_wait(struct sim_rwsem *s, struct rwsem_waiter *w)
{
	atomic_init(&w->granted, 0);
	w->t_queued = lockstat_now();
	rwsem_enqueue(s, w);
	atomic_fetch_or(&s->count, RWSEM_FLAG_WAITERS);
	rwsem_grant_locked(s);
	pthread_mutex_unlock(&s->wait_lock);
	futex_wait_nonzero(&w->granted);
}

/* Drop one reader bias; wake the queue if that freed the lock. */
static void rwsem_read_release(struct sim_rwsem *s)
{
	/* Release: the critical section happens-before the next owner. */
	long c = atomic_fetch_sub_explicit(&s->count, RWSEM_READER_BIAS,
					   memory_order_seq_cst);

	c -= RWSEM_READER_BIAS;
	if (!(c & RWSEM_LOCK_MASK) && (c & RWSEM_FLAG_WAITERS))
		rwsem_wake(s);
}

static void rwsem_down_read_slow(struct sim_rwsem *s)
{
	struct rwsem_waiter w = { .type = WAITER_READER };

	/* Back out the fast path's bias first: it may be what keeps a
	 * queued writer from being granted. */
	rwsem_read_release(s);
	pthread_mutex_lock(&s->wait_lock);
	if (!s->head) {
		long c = atomic_fetch_add(&s->count, RWSEM_READER_BIAS);

		if (!(c & RWSEM_WRITER_LOCKED)) {
			pthread_mutex_unlock(&s->wait_lock);
			return;
		}
		/* A writer holds it; its release will see our WAITERS. */
		atomic_fetch_sub(&s->count, RWSEM_READER_BIAS);
	}
	w.type = WAITER_READER;
	rwsem_queue_and_wait(s, &w);
}

uint64_t sim_down_read(struct sim_rwsem *s)
{
	/* Acquire: pairs with the release in the previous writer's unlock. */
	long c = atomic_fetch_add_explicit(&s->count, RWSEM_READER_BIAS,
					   memory_order_acquire);
	uint64_t t0, t1;

	if (!(c & RWSEM_READ_FAIL_MASK)) {
		t1 = stat_now(s);
		lockstat_acquired(s->stat, LS_READ, false, 0);
		return t1;
	}
	t0 = stat_now(s);
	rwsem_down_read_slow(s);
	t1 = stat_now(s);
	lockstat_acquired(s->stat, LS_READ, true, t1 - t0);
	return t1;
}

bool sim_down_read_trylock(struct sim_rwsem *s, uint64_t *t_acquired)
{
	long c = atomic_load_explicit(&s->count, memory_order_relaxed);

	while (!(c & RWSEM_READ_FAIL_MASK)) {
		if (atomic_compare_exchange_weak_explicit(&s->count, &c,
				c + RWSEM_READER_BIAS, memory_order_acquire,
				memory_order_relaxed)) {
			*t_acquired = stat_now(s);
			lockstat_acquired(s->stat, LS_READ, false, 0);
			return true;
		}
	}
	return false;
}

void sim_up_read(struct sim_rwsem *s, uint64_t t_acquired)
{
	if (s->stat)
		lockstat_released(s->stat, LS_READ, lockstat_now() - t_acquired);
	rwsem_read_release(s);
}

/* Writer steal: take a free lock unless hand-off is pending. */
static bool rwsem_try_steal(struct sim_rwsem *s)
{
	long c = atomic_load_explicit(&s->count, memory_order_relaxed);

	if (c & (RWSEM_LOCK_MASK | RWSEM_FLAG_HANDOFF))
		return false;
	return atomic_compare_exchange_strong_explicit(&s->count, &c,
			c | RWSEM_WRITER_LOCKED, memory_order_acquire,
			memory_order_relaxed);
}

uint64_t sim_down_write(struct sim_rwsem *s)
{
	long zero = 0;
	uint64_t t0, t1;

	if (atomic_compare_exchange_strong_explicit(&s->count, &zero,
			RWSEM_WRITER_LOCKED, memory_order_acquire,
			memory_order_relaxed)) {
		t1 = stat_now(s);
		lockstat_acquired(s->stat, LS_WRITE, false, 0);
		return t1;
	}
	t0 = stat_now(s);
	for (int i = 0; i < RWSEM_SPIN_TRIES; i++) {
		if (rwsem_try_steal(s))
			goto acquired;
		cpu_relax();
	}
	pthread_mutex_lock(&s->wait_lock);
	if (!s->head && rwsem_try_steal(s)) {
		pthread_mutex_unlock(&s->wait_lock);
		goto acquired;
	}
	struct rwsem_waiter w = { .type = WAITER_WRITER };
	rwsem_queue_and_wait(s, &w);
acquired:
	t1 = stat_now(s);
	lockstat_acquired(s->stat, LS_WRITE, true, t1 - t0);
	return t1;
}

bool sim_down_write_trylock(struct sim_rwsem *s, uint64_t *t_acquired)
{
	long zero = 0;

	if (!atomic_compare_exchange_strong_explicit(&s->count, &zero,
			RWSEM_WRITER_LOCKED, memory_order_acquire,
			memory_order_relaxed))
		return false;
	*t_acquired = stat_now(s);
	lockstat_acquired(s->stat, LS_WRITE, false, 0);
	return true;
}

void sim_up_write(struct sim_rwsem *s, uint64_t t_acquired)
{
	long c;

	if (s->stat)
		lockstat_released(s->stat, LS_WRITE, lockstat_now() - t_acquired);
	/* Release: our critical section happens-before the next owner's. */
	c = atomic_fetch_and_explicit(&s->count, ~RWSEM_WRITER_LOCKED,
				      memory_order_seq_cst);
	if (c & RWSEM_FLAG_WAITERS)
		rwsem_wake(s);
}

bool sim_rwsem_is_write_locked(struct sim_rwsem *s)
{
	return atomic_load(&s->count) & RWSEM_WRITER_LOCKED;
}
