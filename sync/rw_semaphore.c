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
 * owner_on_cpu() and need_resched() have no user-space equivalent, so a
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
#include "sync/rw_semaphore.h"

#include <errno.h>

#include "sync/futex.h"

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
enum owner_state { OWNER_NULL = 1, OWNER_WRITER = 2, OWNER_READER = 4,
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

/* A thread's identity for the owner word: an address unique while the
 * thread lives, aligned so the two flag bits are free. Never dereferenced. */
static _Thread_local int rwsem_self;

static unsigned long self_token(void)
{
	return (unsigned long)&rwsem_self;
}

static uint64_t now_ns(void)
{
	return lockstat_now();
}

static uint64_t stat_now(struct sim_rwsem *s)
{
	return s->stat ? lockstat_now() : 0;
}

static void ev(struct sim_rwsem *s, enum rwsem_event e, uint64_t n)
{
	atomic_fetch_add_explicit(&s->events[e], n, memory_order_relaxed);
}

/* --- the owner word (relaxed: a hint for spinners, as in the kernel) ------ */

static void set_owner(struct sim_rwsem *s)
{
	atomic_store_explicit(&s->owner, self_token(), memory_order_relaxed);
}

static void set_reader_owned_by(struct sim_rwsem *s, unsigned long token)
{
	unsigned long keep = atomic_load_explicit(&s->owner, memory_order_relaxed) &
			     RWSEM_NONSPINNABLE;

	atomic_store_explicit(&s->owner, token | RWSEM_READER_OWNED | keep,
			      memory_order_relaxed);
}

static void set_nonspinnable(struct sim_rwsem *s)
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

static void enqueue(struct sim_rwsem *s, struct rwsem_waiter *w)
{
	w->next = NULL;
	if (s->tail)
		s->tail->next = w;
	else
		s->head = w;
	s->tail = w;
}

/* Remove w (a writer that took the lock; it may not be first). */
static void dequeue(struct sim_rwsem *s, struct rwsem_waiter *w)
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
 * queue and counted in; they are told (granted) by wake_up_q() after
 * wait_lock is dropped. A writer head is only marked woken.
 */
static void mark_wake(struct sim_rwsem *s, enum wake_type type, struct wake_q *q)
{
	struct rwsem_waiter *w = s->head, **pp = &s->head, *prev = NULL;
	long adjustment = 0, oldcount, woken = 0;

	if (w->type == WAITER_WRITER) {
		if (type == WAKE_ANY) {
			/* Until it runs, writers may steal; readers see it queued. */
			atomic_store_explicit(&w->woken, 1, memory_order_release);
			q->writer = &w->woken;
			ev(s, RWSEM_EV_WAKE_WRITER, 1);
		}
		return;
	}
	if (type != WAKE_READ_OWNED) {
		/* Grant the first reader before counting the rest, so that we
		 * can back out at once if a writer stole the lock. */
		adjustment = RWSEM_READER_BIAS;
		oldcount = atomic_fetch_add(&s->count, adjustment);
		if (oldcount & RWSEM_WRITER_MASK) {
			if (now_ns() > w->timeout) {
				if (!(oldcount & RWSEM_FLAG_HANDOFF)) {
					adjustment -= RWSEM_FLAG_HANDOFF;
					ev(s, RWSEM_EV_RLOCK_HANDOFF, 1);
				}
				atomic_store_explicit(&w->handoff_set, true,
						      memory_order_relaxed);
			}
			atomic_fetch_add(&s->count, -adjustment);
			return;
		}
		set_reader_owned_by(s, w->token);
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
	ev(s, RWSEM_EV_WAKE_READER, (uint64_t)woken);
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

/* wake_up_q(): tell the granted readers, kick the woken writer. A waiter
 * may return as soon as it sees its word set; a futex wake on its
 * address afterwards is harmless (every futex wait here loops on its
 * condition). */
static void wake_up_q(struct wake_q *q)
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
static void cond_wake_waiter(struct sim_rwsem *s, long count, struct wake_q *q)
{
	if (count & RWSEM_WRITER_MASK)
		return;
	if (count & RWSEM_READER_MASK) {
		mark_wake(s, WAKE_READERS, q);
	} else {
		clear_nonspinnable(s);
		mark_wake(s, WAKE_ANY, q);
	}
}

static void rwsem_wake(struct sim_rwsem *s, enum wake_type type)
{
	struct wake_q q = { 0 };

	pthread_mutex_lock(&s->wait_lock);
	if (s->head)
		mark_wake(s, type, &q);
	pthread_mutex_unlock(&s->wait_lock);
	wake_up_q(&q);
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
		set_reader_owned_by(s, self_token());
		ev(s, RWSEM_EV_RLOCK_STEAL, 1);
		if (rcnt == 1 && (count & RWSEM_FLAG_WAITERS))
			rwsem_wake(s, WAKE_READ_OWNED);   /* bring the others */
		return;
	}
queue:
	w.token = self_token();
	w.timeout = now_ns() + RWSEM_WAIT_TIMEOUT_NS;
	pthread_mutex_lock(&s->wait_lock);
	if (!s->head) {
		if (!(atomic_load(&s->count) & RWSEM_WRITER_MASK)) {
			pthread_mutex_unlock(&s->wait_lock);
			set_reader_owned_by(s, self_token());
			ev(s, RWSEM_EV_RLOCK_FAST, 1);
			return;
		}
		adjustment += RWSEM_FLAG_WAITERS;
	}
	enqueue(s, &w);
	/* Now waiting, no longer actively locking. */
	count = atomic_fetch_add(&s->count, adjustment) + adjustment;
	cond_wake_waiter(s, count, &q);
	pthread_mutex_unlock(&s->wait_lock);
	wake_up_q(&q);
	futex_wait_nonzero(&w.granted);
	ev(s, RWSEM_EV_SLEEP_READER, 1);
}

uint64_t sim_down_read(struct sim_rwsem *s)
{
	/* Acquire: pairs with the release in the previous writer's unlock. */
	long c = atomic_fetch_add_explicit(&s->count, RWSEM_READER_BIAS,
					   memory_order_acquire) + RWSEM_READER_BIAS;
	uint64_t t0, t1;

	if (!(c & RWSEM_READ_FAILED_MASK)) {
		set_reader_owned_by(s, self_token());
		t1 = stat_now(s);
		lockstat_acquired(s->stat, LS_READ, false, 0);
		return t1;
	}
	t0 = stat_now(s);
	down_read_slowpath(s, c);
	t1 = stat_now(s);
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
			set_reader_owned_by(s, self_token());
			*t_acquired = stat_now(s);
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

/* --- writers ---------------------------------------------------------------- */

static bool try_write_lock_unqueued(struct sim_rwsem *s)
{
	long c = atomic_load_explicit(&s->count, memory_order_relaxed);

	while (!(c & (RWSEM_LOCK_MASK | RWSEM_FLAG_HANDOFF))) {
		if (atomic_compare_exchange_weak_explicit(&s->count, &c,
				c | RWSEM_WRITER_LOCKED, memory_order_acquire,
				memory_order_relaxed)) {
			set_owner(s);
			return true;
		}
	}
	return false;
}

static enum owner_state owner_state(unsigned long o)
{
	if (o & RWSEM_NONSPINNABLE)
		return OWNER_NONSPINNABLE;
	if (o & RWSEM_READER_OWNED)
		return OWNER_READER;
	return o ? OWNER_WRITER : OWNER_NULL;
}

/* rwsem_spin_on_owner(): spin while the same writer owns the lock; the
 * deadline stands in for "the owner is on a CPU and we need not yield". */
static enum owner_state spin_on_owner(struct sim_rwsem *s, uint64_t deadline)
{
	unsigned long o = atomic_load_explicit(&s->owner, memory_order_relaxed);
	enum owner_state st = owner_state(o);

	if (st != OWNER_WRITER)
		return st;
	for (unsigned i = 0;; i++) {
		unsigned long n = atomic_load_explicit(&s->owner,
						       memory_order_relaxed);

		if (n != o)
			return owner_state(n);
		if (!(i & 0xf) && now_ns() > deadline)
			return OWNER_NONSPINNABLE;
		cpu_relax();
	}
}

/* (10 + readers/2) us, capped at 25 us (30 readers). */
static uint64_t rspin_threshold(struct sim_rwsem *s)
{
	long readers = atomic_load(&s->count) >> RWSEM_READER_SHIFT;

	if (readers > 30)
		readers = 30;
	return now_ns() + (uint64_t)(20 + readers) * 1000 / 2;
}

/* The OSQ stand-in: one spinner; another waits for it within deadline. */
static bool osq_lock(struct sim_rwsem *s, uint64_t deadline)
{
	for (unsigned i = 0;; i++) {
		int zero = 0;

		if (!atomic_load_explicit(&s->osq, memory_order_relaxed) &&
		    atomic_compare_exchange_weak_explicit(&s->osq, &zero, 1,
				memory_order_acquire, memory_order_relaxed))
			return true;
		if (!(i & 0xf) && now_ns() > deadline)
			return false;
		cpu_relax();
	}
}

static bool optimistic_spin(struct sim_rwsem *s)
{
	uint64_t deadline = now_ns() + RWSEM_OWNER_SPIN_NS, rthreshold = 0;
	enum owner_state prev = OWNER_NULL;
	bool taken = false;
	unsigned loop = 0, iter = 0;

	if (atomic_load_explicit(&s->owner, memory_order_relaxed) &
	    RWSEM_NONSPINNABLE)
		return false;            /* rwsem_can_spin_on_owner() */
	if (!osq_lock(s, deadline))
		return false;
	for (;;) {
		enum owner_state st = spin_on_owner(s, deadline);

		if (!(st & OWNER_SPINNABLE))
			break;
		taken = try_write_lock_unqueued(s);
		if (taken)
			break;
		if (st == OWNER_READER) {
			/* Time-based spinning on readers; restarts at each
			 * new reader phase. */
			if (prev != OWNER_READER) {
				if (atomic_load_explicit(&s->owner,
						memory_order_relaxed) & RWSEM_NONSPINNABLE)
					break;
				rthreshold = rspin_threshold(s);
				loop = 0;
			} else if (!(++loop & 0xf) && now_ns() > rthreshold) {
				set_nonspinnable(s);
				ev(s, RWSEM_EV_OPT_NOSPIN, 1);
				break;
			}
		}
		if (st != OWNER_WRITER && !(++iter & 0xf) && now_ns() > deadline)
			break;           /* stand-in for need_resched() */
		prev = st;
		cpu_relax();
	}
	/* Release: pairs with the acquire in osq_lock(). */
	atomic_store_explicit(&s->osq, 0, memory_order_release);
	if (taken)
		ev(s, RWSEM_EV_OPT_LOCK, 1);
	return taken;
}

/* rwsem_try_write_lock(), under wait_lock: take the lock, or set HANDOFF
 * if w has waited too long, or fail. Dequeues w on success. */
static bool try_write_lock(struct sim_rwsem *s, struct rwsem_waiter *w)
{
	struct rwsem_waiter *first = s->head;
	long c = atomic_load(&s->count), n;

	do {
		bool has_handoff = c & RWSEM_FLAG_HANDOFF;

		/* Yield only to the first waiter that set HANDOFF itself. */
		if (has_handoff && w != first &&
		    atomic_load_explicit(&first->handoff_set, memory_order_relaxed))
			return false;
		n = c;
		if (c & RWSEM_LOCK_MASK) {
			if (has_handoff || now_ns() <= w->timeout)
				return false;
			n |= RWSEM_FLAG_HANDOFF;
		} else {
			n |= RWSEM_WRITER_LOCKED;
			n &= ~RWSEM_FLAG_HANDOFF;
			if (s->head == w && !w->next)
				n &= ~RWSEM_FLAG_WAITERS;
		}
	} while (!atomic_compare_exchange_weak_explicit(&s->count, &c, n,
			memory_order_acquire, memory_order_relaxed));
	if (n & RWSEM_FLAG_HANDOFF) {
		atomic_store_explicit(&first->handoff_set, true,
				      memory_order_relaxed);
		ev(s, RWSEM_EV_WLOCK_HANDOFF, 1);
		return false;
	}
	dequeue(s, w);
	set_owner(s);
	return true;
}

static void down_write_slowpath(struct sim_rwsem *s)
{
	struct rwsem_waiter w = { .type = WAITER_WRITER };

	if (optimistic_spin(s))
		return;
	w.token = self_token();
	w.timeout = now_ns() + RWSEM_WAIT_TIMEOUT_NS;
	pthread_mutex_lock(&s->wait_lock);
	enqueue(s, &w);
	if (s->head != &w) {
		struct wake_q q = { 0 };

		cond_wake_waiter(s, atomic_load(&s->count), &q);
		if (q.readers || q.writer) {
			pthread_mutex_unlock(&s->wait_lock);
			wake_up_q(&q);
			pthread_mutex_lock(&s->wait_lock);
		}
	} else {
		atomic_fetch_or(&s->count, RWSEM_FLAG_WAITERS);
	}
	while (!try_write_lock(s, &w)) {
		pthread_mutex_unlock(&s->wait_lock);
		/* After setting HANDOFF, spin on the owner to take the lock
		 * the moment a running writer drops it. */
		if (!atomic_load_explicit(&w.handoff_set, memory_order_relaxed) ||
		    spin_on_owner(s, now_ns() + RWSEM_OWNER_SPIN_NS) != OWNER_NULL) {
			/* Acquire: pairs with the release in mark_wake(). */
			while (!atomic_exchange_explicit(&w.woken, 0,
							 memory_order_acquire))
				futex_wait(&w.woken, 0);
			ev(s, RWSEM_EV_SLEEP_WRITER, 1);
		}
		pthread_mutex_lock(&s->wait_lock);
	}
	pthread_mutex_unlock(&s->wait_lock);
}

uint64_t sim_down_write(struct sim_rwsem *s)
{
	long zero = 0;
	uint64_t t0, t1;

	if (atomic_compare_exchange_strong_explicit(&s->count, &zero,
			RWSEM_WRITER_LOCKED, memory_order_acquire,
			memory_order_relaxed)) {
		set_owner(s);
		t1 = stat_now(s);
		lockstat_acquired(s->stat, LS_WRITE, false, 0);
		return t1;
	}
	t0 = stat_now(s);
	down_write_slowpath(s);
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
	set_owner(s);
	*t_acquired = stat_now(s);
	lockstat_acquired(s->stat, LS_WRITE, false, 0);
	return true;
}

void sim_up_write(struct sim_rwsem *s, uint64_t t_acquired)
{
	long c;

	if (s->stat)
		lockstat_released(s->stat, LS_WRITE, lockstat_now() - t_acquired);
	atomic_store_explicit(&s->owner, 0, memory_order_relaxed);
	/* Release: our critical section happens-before the next owner's. */
	c = atomic_fetch_sub_explicit(&s->count, RWSEM_WRITER_LOCKED,
				      memory_order_seq_cst);
	if (c & RWSEM_FLAG_WAITERS)
		rwsem_wake(s, WAKE_ANY);
}

uint64_t sim_downgrade_write(struct sim_rwsem *s, uint64_t t_acquired)
{
	long c;
	uint64_t t1;

	if (s->stat)
		lockstat_released(s->stat, LS_WRITE, lockstat_now() - t_acquired);
	/* Release: nothing of the write section leaks into the read side. */
	c = atomic_fetch_add_explicit(&s->count,
			RWSEM_READER_BIAS - RWSEM_WRITER_LOCKED, memory_order_seq_cst);
	set_reader_owned_by(s, self_token());
	if (c & RWSEM_FLAG_WAITERS)
		rwsem_wake(s, WAKE_READ_OWNED);
	t1 = stat_now(s);
	lockstat_acquired(s->stat, LS_READ, false, 0);
	return t1;
}

/* --- set-up and inspection ---------------------------------------------------- */

int sim_rwsem_init(struct sim_rwsem *s, struct lockstat_class *stat)
{
	atomic_init(&s->count, 0);
	atomic_init(&s->owner, 0);
	atomic_init(&s->osq, 0);
	for (int i = 0; i < RWSEM_NEVENTS; i++)
		atomic_init(&s->events[i], 0);
	s->head = s->tail = NULL;
	s->stat = stat;
	return -pthread_mutex_init(&s->wait_lock, NULL);
}

void sim_rwsem_destroy(struct sim_rwsem *s)
{
	pthread_mutex_destroy(&s->wait_lock);
}

bool sim_rwsem_is_write_locked(struct sim_rwsem *s)
{
	return atomic_load(&s->count) & RWSEM_WRITER_LOCKED;
}

bool sim_rwsem_has_handoff(struct sim_rwsem *s)
{
	return atomic_load(&s->count) & RWSEM_FLAG_HANDOFF;
}

int sim_rwsem_nr_waiters(struct sim_rwsem *s)
{
	int n = 0;

	pthread_mutex_lock(&s->wait_lock);
	for (struct rwsem_waiter *w = s->head; w; w = w->next)
		n++;
	pthread_mutex_unlock(&s->wait_lock);
	return n;
}

int sim_rwsem_counters(struct sim_rwsem *s, const char **names,
		       uint64_t *values)
{
	static const enum rwsem_event shown[] = {
		RWSEM_EV_RLOCK_STEAL, RWSEM_EV_SLEEP_READER, RWSEM_EV_SLEEP_WRITER,
		RWSEM_EV_OPT_LOCK, RWSEM_EV_WLOCK_HANDOFF, RWSEM_EV_RLOCK_HANDOFF,
	};
	int n = (int)(sizeof(shown) / sizeof(shown[0]));

	for (int i = 0; i < n; i++) {
		names[i] = sim_rwsem_event_name(shown[i]);
		values[i] = atomic_load_explicit(&s->events[shown[i]],
						 memory_order_relaxed);
	}
	return n;
}

const char *sim_rwsem_event_name(enum rwsem_event e)
{
	static const char *const names[RWSEM_NEVENTS] = {
		"rwsem_rlock_steal", "rwsem_rlock_fast", "rwsem_sleep_reader",
		"rwsem_sleep_writer", "rwsem_opt_lock", "rwsem_opt_nospin",
		"rwsem_wlock_handoff", "rwsem_rlock_handoff", "rwsem_wake_writer",
		"rwsem_wake_reader",
	};

	return names[e];
}
