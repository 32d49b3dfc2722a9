/* SPDX-License-Identifier: MIT */
/*
 * range-list — range's ranges (locks/range.c: a fault read-locks its
 * page, munmap and mprotect write-lock their range, mmap the gap it
 * expects, madvise reads its range) on the list-based range lock of
 * Kogan, Dice and Issa (EuroSys 2020, locks/sync/range_list.h) instead
 * of the interval tree under a spinlock: `-l range,range-list` compares
 * the two locks' implementations and nothing else.
 *
 * State: one sim_range_list; a held range is the node in the handle.
 * Invariant: as range's — two held nodes overlap only if both read.
 * Removed VMAs are freed after a grace period (vma_typesafe false), as
 * under range: a fault holding its page's range may hold a VMA that a
 * writer of another range replaced.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/container.h"
#include "locks/lock_ops.h"
#include "locks/sync/range_list.h"

/* This file's scheme (defined at its end; locks/schemes.def names it). */
extern const struct lock_ops range_list_lock_ops;

struct rlist_lock {
	struct lock_inst base;
	struct sim_range_list list;
	struct lock_mprotect mprotect;   /* what mprotect locks */
};

#define to_rlist(l) container_of(l, struct rlist_lock, base)

/* The node holding the handle's range, kept in its priv. */
_Static_assert(sizeof(struct srl_node *) <= sizeof(((struct lock_handle *)0)->priv),
	       "a held node must fit in a lock handle");

static struct srl_node *rlist_held(const struct lock_handle *h)
{
	struct srl_node *n;

	memcpy(&n, h->priv, sizeof(n));
	return n;
}

static void rlist_lock_range(struct lock_inst *l, unsigned long start,
			     unsigned long end, bool writer,
			     struct lock_handle *h)
{
	struct srl_node *n = sim_range_list_lock(&to_rlist(l)->list, start, end,
						 writer, &h->t_acquired);

	if (!n) {                        /* 80 bytes: nothing can go on */
		fprintf(stderr, "vmsim: range-list: out of memory for a node\n");
		abort();
	}
	memcpy(h->priv, &n, sizeof(n));
}

static int rlist_create(const struct lock_env *env, struct lock_inst **out)
{
	static const char *const names[] = { "range_list_lock" };
	struct lockstat_class *cls;
	struct rlist_lock *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	ret = lock_mprotect_init(&r->mprotect);
	if (!ret && (ret = lock_inst_init(&r->base, &range_list_lock_ops, env,
					  names, &cls, 1)))
		lock_mprotect_fini(&r->mprotect);
	if (!ret && (ret = sim_range_list_init(&r->list, cls))) {
		lock_inst_fini(&r->base);
		lock_mprotect_fini(&r->mprotect);
	}
	if (ret) {
		free(r);
		return ret;
	}
	*out = &r->base;
	return 0;
}

static void rlist_destroy(struct lock_inst *l)
{
	sim_range_list_destroy(&to_rlist(l)->list);
	lock_mprotect_fini(&to_rlist(l)->mprotect);
	lock_inst_fini(l);
	free(l);
}

static void *rlist_fault_begin(struct lock_inst *l, unsigned long addr,
			       unsigned flags, struct lock_handle *h)
{
	rlist_lock_range(l, addr, addr + 4096, false, h);
	return NULL;
}

static void rlist_end(struct lock_inst *l, struct lock_handle *h)
{
	sim_range_list_unlock(&to_rlist(l)->list, rlist_held(h), h->t_acquired);
}

static void rlist_write_begin(struct lock_inst *l, unsigned long start,
			      unsigned long end, struct lock_handle *h)
{
	rlist_lock_range(l, start, end, true, h);
}

/* As range: what --mprotect-range says (locks/mprotect_range.c). */
static void rlist_write_begin_mprotect(struct lock_inst *l, unsigned long start,
				       unsigned long end, struct lock_handle *h)
{
	lock_mprotect_begin(l, &to_rlist(l)->mprotect, start, end, h,
			    rlist_write_begin, rlist_end);
}

/* As range: lock where the mapping is expected (the mm revalidates),
 * everything where there is no room. */
static void rlist_write_begin_unplaced(struct lock_inst *l, unsigned long hint,
				       unsigned long len, struct lock_handle *h,
				       unsigned long *guess)
{
	unsigned long start, end;

	lock_unplaced_range(&l->env, hint, len, guess, &start, &end);
	rlist_lock_range(l, start, end, true, h);
}

static void rlist_read_range_begin(struct lock_inst *l, unsigned long start,
				   unsigned long end, unsigned flags,
				   struct lock_handle *h)
{
	rlist_lock_range(l, start, end, false, h);
}

static void rlist_write_downgrade(struct lock_inst *l, struct lock_handle *h)
{
	h->t_acquired = sim_range_list_downgrade(&to_rlist(l)->list,
						 rlist_held(h), h->t_acquired);
}

static int rlist_counters(struct lock_inst *l, const char **names,
			  uint64_t *values)
{
	struct rlist_lock *r = to_rlist(l);
	int n = sim_range_list_counters(&r->list, names, values);

	return n + lock_mprotect_counters(l, &r->mprotect, names + n, values + n);
}

const struct lock_ops range_list_lock_ops = {
	.name = "range-list",
	.desc = "range's ranges on the list-based range lock (Kogan, Dice, Issa 2020): CAS, no internal lock",
	.excludes = true,
	.create = rlist_create,
	.destroy = rlist_destroy,
	.fault_begin = rlist_fault_begin,
	.fault_end = rlist_end,
	.write_begin = rlist_write_begin,
	.write_begin_unplaced = rlist_write_begin_unplaced,
	.write_begin_mprotect = rlist_write_begin_mprotect,
	.write_end = rlist_end,
	.write_downgrade = rlist_write_downgrade,
	.read_range_begin = rlist_read_range_begin,
	.read_range_end = rlist_end,
	.counters = rlist_counters,
};
