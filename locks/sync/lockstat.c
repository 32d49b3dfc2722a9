/* SPDX-License-Identifier: MIT */
#include "locks/sync/lockstat.h"

#include <stdlib.h>
#include <string.h>

struct lockstat_class *lockstat_class_new(const char *name)
{
	struct lockstat_class *c;

	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (slot_array_init(&c->slots, sizeof(struct lockstat_slot) * LS_NSIDES)) {
		free(c);
		return NULL;
	}
	c->name = name;
	/* The ticks' rate, measured now (once a process) rather than in a
	 * timed phase. */
	clock_ns_per_cycle();
	return c;
}

void lockstat_class_free(struct lockstat_class *c)
{
	if (!c)
		return;
	slot_array_destroy(&c->slots);
	free(c);
}

int lockstat_bucket(uint64_t ns)
{
	int b = ns ? 64 - __builtin_clzll(ns) : 0;

	return b < LOCKSTAT_HIST ? b : LOCKSTAT_HIST - 1;
}

static void lockstat_max(_Atomic uint64_t *m, uint64_t v)
{
	uint64_t cur = atomic_load_explicit(m, memory_order_relaxed);

	while (v > cur &&
	       !atomic_compare_exchange_weak_explicit(m, &cur, v,
			memory_order_relaxed, memory_order_relaxed))
		;
}

void lockstat_acquired(struct lockstat_class *c, enum lockstat_side s,
		       bool contended, uint64_t wait)
{
	struct lockstat_slot *sl;
	uint64_t wait_ns;

	if (!c)
		return;
	sl = (struct lockstat_slot *)slot_mine(&c->slots) + s;
	atomic_fetch_add_explicit(&sl->acquisitions, 1, memory_order_relaxed);
	if (!contended)
		return;
	wait_ns = cycles_to_ns(wait, clock_ns_per_cycle());
	atomic_fetch_add_explicit(&sl->contentions, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&sl->wait_total, wait_ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&sl->wait_hist[lockstat_bucket(wait_ns)], 1,
				  memory_order_relaxed);
	lockstat_max(&sl->wait_max, wait_ns);
}

void lockstat_released(struct lockstat_class *c, enum lockstat_side s,
		       uint64_t hold)
{
	struct lockstat_slot *sl;
	uint64_t hold_ns;

	if (!c)
		return;
	hold_ns = cycles_to_ns(hold, clock_ns_per_cycle());
	sl = (struct lockstat_slot *)slot_mine(&c->slots) + s;
	atomic_fetch_add_explicit(&sl->hold_total, hold_ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&sl->hold_hist[lockstat_bucket(hold_ns)], 1,
				  memory_order_relaxed);
	lockstat_max(&sl->hold_max, hold_ns);
	if (c->spins && hold_ns > LOCKSTAT_LONG_HOLD_NS) {
		atomic_fetch_add_explicit(&sl->long_holds, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&sl->long_hold_ns, hold_ns,
					  memory_order_relaxed);
	}
}

static uint64_t ld(const _Atomic uint64_t *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}

void lockstat_sum(const struct lockstat_class *c, enum lockstat_side s,
		  struct lockstat_totals *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < c->slots.n; i++) {
		const struct lockstat_slot *sl =
			(const struct lockstat_slot *)slot_at(&c->slots, i) + s;
		struct lockstat_totals t = {
			.acquisitions = ld(&sl->acquisitions),
			.contentions = ld(&sl->contentions),
			.wait_total = ld(&sl->wait_total),
			.wait_max = ld(&sl->wait_max),
			.hold_total = ld(&sl->hold_total),
			.hold_max = ld(&sl->hold_max),
			.long_holds = ld(&sl->long_holds),
			.long_hold_ns = ld(&sl->long_hold_ns),
			.spins = c->spins,
		};

		for (int b = 0; b < LOCKSTAT_HIST; b++) {
			t.wait_hist[b] = ld(&sl->wait_hist[b]);
			t.hold_hist[b] = ld(&sl->hold_hist[b]);
		}
		lockstat_totals_add(out, &t);
	}
}

void lockstat_totals_add(struct lockstat_totals *a,
			 const struct lockstat_totals *b)
{
	a->acquisitions += b->acquisitions;
	a->contentions += b->contentions;
	a->wait_total += b->wait_total;
	a->hold_total += b->hold_total;
	a->long_holds += b->long_holds;
	a->long_hold_ns += b->long_hold_ns;
	a->spins |= b->spins;
	if (b->wait_max > a->wait_max)
		a->wait_max = b->wait_max;
	if (b->hold_max > a->hold_max)
		a->hold_max = b->hold_max;
	for (int i = 0; i < LOCKSTAT_HIST; i++) {
		a->wait_hist[i] += b->wait_hist[i];
		a->hold_hist[i] += b->hold_hist[i];
	}
}
