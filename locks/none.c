/* SPDX-License-Identifier: MIT */
/*
 * none — no locking at all. The baseline that measures the simulator's
 * own overhead (uffd round trip, lookup, resolve) with no lock cost.
 *
 * Invariant: none. It is only valid when nothing changes the address
 * space concurrently with faults (one writer, or faults only, as in pft).
 * Acquisitions are still counted so that tables line up with the other
 * schemes; no time is measured.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/container.h"
#include "locks/lock_ops.h"

struct none_lock {
	struct lock_inst base;
	struct lockstat_class *cls;
};

#define to_none(l) container_of(l, struct none_lock, base)

static int none_create(const struct lock_env *env, struct lock_inst **out)
{
	static const char *const names[] = { "none" };
	struct none_lock *n = calloc(1, sizeof(*n));
	int ret;

	if (!n)
		return -ENOMEM;
	ret = lock_inst_init(&n->base, &none_lock_ops, env, names, &n->cls, 1);
	if (ret) {
		free(n);
		return ret;
	}
	*out = &n->base;
	return 0;
}

static void none_destroy(struct lock_inst *l)
{
	lock_inst_fini(l);
	free(l);
}

static void *none_fault_begin(struct lock_inst *l, unsigned long addr,
			      unsigned flags, struct lock_handle *h)
{
	lockstat_acquired(to_none(l)->cls, LS_READ, false, 0);
	return NULL;
}

static void none_end(struct lock_inst *l, struct lock_handle *h)
{
}

static void none_write_begin(struct lock_inst *l, unsigned long start,
			     unsigned long end, struct lock_handle *h)
{
	lockstat_acquired(to_none(l)->cls, LS_WRITE, false, 0);
}

static void none_read_range_begin(struct lock_inst *l, unsigned long start,
				  unsigned long end, unsigned flags,
				  struct lock_handle *h)
{
	lockstat_acquired(to_none(l)->cls, LS_READ, false, 0);
}

static void none_write_downgrade(struct lock_inst *l, struct lock_handle *h)
{
	lockstat_acquired(to_none(l)->cls, LS_READ, false, 0);
}

const struct lock_ops none_lock_ops = {
	.name = "none",
	.desc = "no locking: the simulator's own overhead (valid only without concurrent writers)",
	.create = none_create,
	.destroy = none_destroy,
	.fault_begin = none_fault_begin,
	.fault_end = none_end,
	.write_begin = none_write_begin,
	.write_end = none_end,
	.write_downgrade = none_write_downgrade,
	.read_range_begin = none_read_range_begin,
	.read_range_end = none_end,
};
