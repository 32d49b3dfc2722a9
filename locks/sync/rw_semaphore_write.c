/* SPDX-License-Identifier: MIT */
/*
 * sim_rwsem's writer side: optimistic spinning, the write slow path,
 * up_write and downgrade (the reader side, the wait queue and the
 * wake-ups are in rw_semaphore.c; the shared state in rw_semaphore_int.h).
 */
#include <errno.h>
#include <sched.h>

#include "locks/sync/rw_semaphore_int.h"

/* --- writers ---------------------------------------------------------------- */

static bool try_write_lock_unqueued(struct sim_rwsem *s)
{
	long c = atomic_load_explicit(&s->count, memory_order_relaxed);

	while (!(c & (RWSEM_LOCK_MASK | RWSEM_FLAG_HANDOFF))) {
		if (atomic_compare_exchange_weak_explicit(&s->count, &c,
				c | RWSEM_WRITER_LOCKED, memory_order_acquire,
				memory_order_relaxed)) {
			rwsem_set_owner(s);
			return true;
		}
	}
	return false;
}

enum rwsem_owner_state rwsem_owner_state(unsigned long o)
{
	if (o & RWSEM_NONSPINNABLE)
		return OWNER_NONSPINNABLE;
	if (o & RWSEM_READER_OWNED)
		return OWNER_READER;
	return o ? OWNER_WRITER : OWNER_NULL;
}

/* owner_on_cpu(), as far as it is known: false when the writer owner
 * took the lock on the CPU this spinner runs on (it cannot be running). */
static bool owner_off_cpu(struct sim_rwsem *s)
{
	int me = sched_getcpu();

	if (me < 0 ||
	    atomic_load_explicit(&s->owner_cpu, memory_order_relaxed) != me)
		return false;
	rwsem_ev(s, RWSEM_EV_OWNER_OFF_CPU, 1);
	return true;
}

/* rwsem_spin_on_owner(): spin while the same writer owns the lock and is
 * not known to be off its CPU; the deadline stands in for the rest of
 * "the owner is on a CPU and we need not yield". */
static enum rwsem_owner_state spin_on_owner(struct sim_rwsem *s, uint64_t deadline)
{
	unsigned long o = atomic_load_explicit(&s->owner, memory_order_relaxed);
	enum rwsem_owner_state st = rwsem_owner_state(o);

	if (st != OWNER_WRITER)
		return st;
	for (unsigned i = 0;; i++) {
		unsigned long n = atomic_load_explicit(&s->owner,
						       memory_order_relaxed);

		if (n != o)
			return rwsem_owner_state(n);
		if (!(i & 0xf) && (mono_ns() > deadline || owner_off_cpu(s)))
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
	return mono_ns() + (uint64_t)(20 + readers) * 1000 / 2;
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
		if (!(i & 0xf) && mono_ns() > deadline)
			return false;
		cpu_relax();
	}
}

static bool optimistic_spin(struct sim_rwsem *s)
{
	uint64_t deadline = mono_ns() + RWSEM_OWNER_SPIN_NS, rthreshold = 0;
	enum rwsem_owner_state prev = OWNER_NULL;
	bool taken = false;
	unsigned loop = 0, iter = 0;
	unsigned long o = atomic_load_explicit(&s->owner, memory_order_relaxed);

	/* rwsem_can_spin_on_owner(): not when marked, nor on a writer
	 * owner that is not running (a reader owner is not checked). */
	if ((o & RWSEM_NONSPINNABLE) ||
	    (rwsem_owner_state(o) == OWNER_WRITER && owner_off_cpu(s)))
		return false;
	if (!osq_lock(s, deadline))
		return false;
	for (;;) {
		enum rwsem_owner_state st = spin_on_owner(s, deadline);

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
			} else if (!(++loop & 0xf) && mono_ns() > rthreshold) {
				rwsem_set_nonspinnable(s);
				rwsem_ev(s, RWSEM_EV_OPT_NOSPIN, 1);
				break;
			}
		}
		if (st != OWNER_WRITER && !(++iter & 0xf) && mono_ns() > deadline)
			break;           /* stand-in for need_resched() */
		prev = st;
		cpu_relax();
	}
	/* Release: pairs with the acquire in osq_lock(). */
	atomic_store_explicit(&s->osq, 0, memory_order_release);
	if (taken)
		rwsem_ev(s, RWSEM_EV_OPT_LOCK, 1);
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
			if (has_handoff || mono_ns() <= w->timeout)
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
		rwsem_ev(s, RWSEM_EV_WLOCK_HANDOFF, 1);
		return false;
	}
	rwsem_dequeue(s, w);
	rwsem_set_owner(s);
	return true;
}

static void down_write_slowpath(struct sim_rwsem *s)
{
	struct rwsem_waiter w = { .type = WAITER_WRITER };

	if (optimistic_spin(s))
		return;
	w.token = rwsem_self_token();
	w.timeout = mono_ns() + RWSEM_WAIT_TIMEOUT_NS;
	pthread_mutex_lock(&s->wait_lock);
	rwsem_enqueue(s, &w);
	if (s->head != &w) {
		struct wake_q q = { 0 };

		rwsem_cond_wake_waiter(s, atomic_load(&s->count), &q);
		if (q.readers || q.writer) {
			pthread_mutex_unlock(&s->wait_lock);
			rwsem_wake_up_q(&q);
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
		    spin_on_owner(s, mono_ns() + RWSEM_OWNER_SPIN_NS) != OWNER_NULL) {
			/* Acquire: pairs with the release in rwsem_mark_wake(). */
			while (!atomic_exchange_explicit(&w.woken, 0,
							 memory_order_acquire))
				futex_wait(&w.woken, 0);
			rwsem_ev(s, RWSEM_EV_SLEEP_WRITER, 1);
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
		rwsem_set_owner(s);
		t1 = rwsem_stat_now(s);
		lockstat_acquired(s->stat, LS_WRITE, false, 0);
		return t1;
	}
	t0 = rwsem_stat_now(s);
	down_write_slowpath(s);
	t1 = rwsem_stat_now(s);
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
	rwsem_set_owner(s);
	*t_acquired = rwsem_stat_now(s);
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
	rwsem_set_reader_owned_by(s, rwsem_self_token());
	if (c & RWSEM_FLAG_WAITERS)
		rwsem_wake(s, WAKE_READ_OWNED);
	t1 = rwsem_stat_now(s);
	lockstat_acquired(s->stat, LS_READ, false, 0);
	return t1;
}

/* --- set-up and inspection ---------------------------------------------------- */

int sim_rwsem_init(struct sim_rwsem *s, struct lockstat_class *stat)
{
	atomic_init(&s->count, 0);
	atomic_init(&s->owner, 0);
	atomic_init(&s->osq, 0);
	atomic_init(&s->owner_cpu, -1);
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
		"rwsem_wake_reader", "rwsem_owner_off_cpu",
	};

	return names[e];
}
