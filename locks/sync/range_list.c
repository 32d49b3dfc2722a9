/* SPDX-License-Identifier: MIT */
/* The list-based range lock of locks/sync/range_list.h. */
#include "locks/sync/range_list.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "base/debug.h"
#include "locks/sync/futex.h"

/* A node's word. */
#define SRL_WAITERS    1                 /* someone sleeps on it: wake */
#define SRL_RELEASED   2                 /* marked: its range is free */
#define SRL_DOWNGRADED 4                 /* now a reader: look again */

/* Polls of a conflicting node before sleeping on it: a few microseconds,
 * the length of a fault's hold. */
#define SRL_SPINS 256

static struct srl_node *srl_ptr(uintptr_t v)
{
	return (struct srl_node *)(v & ~(uintptr_t)1);
}

static bool srl_marked(uintptr_t v)
{
	return v & 1;
}

static void srl_count(struct sim_range_list *l, enum srl_counter c)
{
	_Atomic uint64_t *s = slot_mine(&l->slots);

	atomic_fetch_add_explicit(&s[c], 1, memory_order_relaxed);
}

static void srl_put(struct srl_node *n)
{
	if (atomic_fetch_sub_explicit(&n->refs, 1, memory_order_acq_rel) == 1)
		free(n);
}

static void srl_free_rcu(struct sim_rcu_head *h)
{
	srl_put((struct srl_node *)((char *)h - offsetof(struct srl_node, rcu)));
}

/* Where is cur against n: -1 cur goes first (entirely before, or both
 * readers and cur starts no later), 1 n goes first, 0 they conflict. */
static int srl_order(const struct srl_node *cur, const struct srl_node *n)
{
	bool readers = atomic_load_explicit(&cur->reader, memory_order_acquire) &&
		       atomic_load_explicit(&n->reader, memory_order_relaxed);

	if (cur->end <= n->start || (readers && cur->start <= n->start))
		return -1;
	if (n->end <= cur->start || readers)
		return 1;
	return 0;
}

/* Does held node x still keep n out? */
static bool srl_blocks(const struct srl_node *x, const struct srl_node *n)
{
	return !(atomic_load_explicit(&x->word, memory_order_acquire) &
		 SRL_RELEASED) &&
	       !(atomic_load_explicit(&x->reader, memory_order_acquire) &&
		 atomic_load_explicit(&n->reader, memory_order_relaxed)) &&
	       x->start < n->end && n->start < x->end;
}

/*
 * Wait until x no longer blocks n, from inside the read-side section.
 * false: it ended within the spin, the section unbroken (the walk may go
 * on); true: we slept, outside the section (x held by our reference),
 * and are back in a new one: the walk must start again.
 */
static bool srl_wait(struct sim_range_list *l, struct srl_node *x,
		     const struct srl_node *n)
{
	srl_count(l, SRL_WAIT);
	for (int i = 0; i < SRL_SPINS; i++) {
		if (!srl_blocks(x, n))
			return false;
		cpu_relax();
	}
	srl_count(l, SRL_SLEEP);
	atomic_fetch_add_explicit(&x->refs, 1, memory_order_relaxed);
	sim_rcu_read_unlock();
	while (srl_blocks(x, n)) {
		int v = atomic_fetch_or_explicit(&x->word, SRL_WAITERS,
						 memory_order_acq_rel) | SRL_WAITERS;

		if (srl_blocks(x, n))
			futex_wait(&x->word, v);
	}
	srl_put(x);
	sim_rcu_read_lock();
	return true;
}

/* The state change of held n that its sleepers wait for. */
static void srl_announce(struct srl_node *n, int bit)
{
	if (atomic_fetch_or_explicit(&n->word, bit, memory_order_acq_rel) &
	    SRL_WAITERS)
		futex_wake(&n->word, INT_MAX);
}

/* Unlink marked cur (its next value nv) from *prev: the winner retires
 * it. Returns what *prev points at now. */
static uintptr_t srl_unlink(struct sim_range_list *l, _Atomic uintptr_t *prev,
			    uintptr_t cur, uintptr_t nv)
{
	uintptr_t want = cur;

	if (atomic_compare_exchange_strong_explicit(prev, &want, nv & ~(uintptr_t)1,
			memory_order_acq_rel, memory_order_acquire)) {
		sim_call_rcu(&srl_ptr(cur)->rcu, srl_free_rcu);
		return nv & ~(uintptr_t)1;
	}
	srl_count(l, SRL_CAS_FAIL);
	return want;
}

/* A writer's check after linking: no node before it overlaps it. */
static bool srl_writer_alone(struct sim_range_list *l, struct srl_node *n)
{
	uintptr_t cur = atomic_load_explicit(&l->head, memory_order_acquire);

	while (srl_ptr(cur) && srl_ptr(cur) != n) {
		struct srl_node *c = srl_ptr(cur);
		uintptr_t nv = atomic_load_explicit(&c->next, memory_order_acquire);

		if (!srl_marked(nv) && c->end > n->start)
			return false;
		cur = nv;
	}
	return true;
}

/* A reader's check after linking: wait out every overlapping writer
 * linked after it. false: we slept; look again (n is ours and linked). */
static bool srl_reader_clear(struct sim_range_list *l, struct srl_node *n)
{
	uintptr_t cur = atomic_load_explicit(&n->next, memory_order_acquire);

	while (srl_ptr(cur) && srl_ptr(cur)->start < n->end) {
		struct srl_node *c = srl_ptr(cur);

		if (srl_blocks(c, n)) {
			n->waited = true;
			if (srl_wait(l, c, n))
				return false;
		}
		cur = atomic_load_explicit(&c->next, memory_order_acquire);
	}
	return true;
}

enum srl_walked { SRL_HELD, SRL_AGAIN, SRL_LET_GO };

/* One walk from the head, in a read-side section: n linked in and
 * validated (SRL_HELD); not linked, to walk again (SRL_AGAIN); or linked
 * but a writer found an overlap before it (SRL_LET_GO: n must be
 * released, and a new node walk). */
static enum srl_walked srl_walk(struct sim_range_list *l, struct srl_node *n)
{
	_Atomic uintptr_t *prev = &l->head;
	uintptr_t cur = atomic_load_explicit(prev, memory_order_acquire);

	for (;;) {
		struct srl_node *c = srl_ptr(cur);
		uintptr_t nv, want;
		int o;

		if (srl_marked(cur))     /* prev's node let go: from the top */
			return SRL_AGAIN;
		nv = c ? atomic_load_explicit(&c->next, memory_order_acquire) : 0;
		if (c && srl_marked(nv)) {
			cur = srl_unlink(l, prev, cur, nv);
			continue;
		}
		o = c ? srl_order(c, n) : 1;
		if (o < 0) {
			prev = &c->next;
			cur = nv;
			continue;
		}
		if (o == 0) {
			n->waited = true;
			if (srl_wait(l, c, n))
				return SRL_AGAIN;
			cur = atomic_load_explicit(prev, memory_order_acquire);
			continue;
		}
		atomic_store_explicit(&n->next, cur, memory_order_relaxed);
		want = cur;
		if (atomic_compare_exchange_strong_explicit(prev, &want,
				(uintptr_t)n, memory_order_acq_rel,
				memory_order_acquire))
			break;
		srl_count(l, SRL_CAS_FAIL);
		cur = want;
	}
	if (!atomic_load_explicit(&n->reader, memory_order_relaxed))
		return srl_writer_alone(l, n) ? SRL_HELD : SRL_LET_GO;
	while (!srl_reader_clear(l, n))
		;
	return SRL_HELD;
}

static struct srl_node *srl_new(unsigned long start, unsigned long end,
				bool writer)
{
	struct srl_node *n = malloc(sizeof(*n));

	if (!n)
		return NULL;
	n->start = start;
	n->end = end;
	n->waited = false;
	atomic_init(&n->reader, !writer);
	atomic_init(&n->next, 0);
	atomic_init(&n->word, 0);
	atomic_init(&n->refs, 1);
	return n;
}

/* Mark n released and wake its sleepers, in a read-side section: once
 * marked, a walker may unlink and retire it. */
static void srl_release(struct srl_node *n)
{
	uintptr_t was;

	sim_rcu_read_lock();
	was = atomic_fetch_or_explicit(&n->next, 1, memory_order_release);
	SIM_WARN_ON(srl_marked(was));    /* released twice */
	srl_announce(n, SRL_RELEASED);
	sim_rcu_read_unlock();
}

int sim_range_list_init(struct sim_range_list *l, struct lockstat_class *cls)
{
	atomic_init(&l->head, 0);
	l->stat = cls;
	return slot_array_init(&l->slots, sizeof(uint64_t) * SRL_NCOUNTERS);
}

void sim_range_list_destroy(struct sim_range_list *l)
{
	uintptr_t cur = atomic_load_explicit(&l->head, memory_order_acquire);

	/* What is still linked was released (nothing may hold it now) and
	 * never unlinked: no walker can reach it any more. */
	while (srl_ptr(cur)) {
		struct srl_node *c = srl_ptr(cur);

		cur = atomic_load_explicit(&c->next, memory_order_acquire);
		SIM_WARN_ON(!srl_marked(cur));
		srl_put(c);
	}
	atomic_store_explicit(&l->head, 0, memory_order_relaxed);
	slot_array_destroy(&l->slots);
}

struct srl_node *sim_range_list_lock(struct sim_range_list *l,
				     unsigned long start, unsigned long end,
				     bool writer, uint64_t *t_acquired)
{
	struct srl_node *n = srl_new(start, end, writer);
	uint64_t t0 = lockstat_now();
	enum srl_walked w;

	if (!n)
		return NULL;
	sim_rcu_read_lock();
	while ((w = srl_walk(l, n)) != SRL_HELD) {
		if (w == SRL_AGAIN) {
			srl_count(l, SRL_RESTART);
			continue;
		}
		srl_count(l, SRL_VALIDATE_FAIL);
		sim_rcu_read_unlock();
		srl_release(n);
		if (!(n = srl_new(start, end, writer)))
			return NULL;
		n->waited = true;                /* it gave way once */
		sim_rcu_read_lock();
	}
	sim_rcu_read_unlock();
	*t_acquired = lockstat_now();
	if (l->stat)
		lockstat_acquired(l->stat, writer ? LS_WRITE : LS_READ,
				  n->waited, *t_acquired - t0);
	return n;
}

void sim_range_list_unlock(struct sim_range_list *l, struct srl_node *n,
			   uint64_t t_acquired)
{
	if (l->stat)
		lockstat_released(l->stat, atomic_load_explicit(&n->reader,
				  memory_order_relaxed) ? LS_READ : LS_WRITE,
				  lockstat_now() - t_acquired);
	srl_release(n);
}

uint64_t sim_range_list_downgrade(struct sim_range_list *l, struct srl_node *n,
				  uint64_t t_acquired)
{
	uint64_t t = lockstat_now();

	SIM_WARN_ON(atomic_load_explicit(&n->reader, memory_order_relaxed));
	if (l->stat) {
		lockstat_released(l->stat, LS_WRITE, t - t_acquired);
		lockstat_acquired(l->stat, LS_READ, false, 0);
	}
	atomic_store_explicit(&n->reader, true, memory_order_release);
	srl_announce(n, SRL_DOWNGRADED);
	return t;
}

int sim_range_list_counters(const struct sim_range_list *l, const char **names,
			    uint64_t *values)
{
	static const char *const n[SRL_NCOUNTERS] = {
		[SRL_CAS_FAIL] = "rlist_cas_fail", [SRL_RESTART] = "rlist_restart",
		[SRL_WAIT] = "rlist_wait", [SRL_SLEEP] = "rlist_sleep",
		[SRL_VALIDATE_FAIL] = "rlist_validate_fail",
	};

	for (int i = 0; i < SRL_NCOUNTERS; i++) {
		names[i] = n[i];
		values[i] = slot_array_sum(&l->slots, sizeof(uint64_t) * (size_t)i);
	}
	return SRL_NCOUNTERS;
}
