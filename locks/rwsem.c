/* SPDX-License-Identifier: MIT */
/*
 * rwsem — the global mmap_lock (mmap_sem) as Linux had it before per-VMA
 * locks: one reader-writer semaphore per mm.
 *
 * Reader path: every page fault takes it for read (mmap_read_lock), looks
 *   up the VMA and resolves the fault while holding it.
 * Writer path: mmap, munmap, mprotect and brk take it for write
 *   (mmap_write_lock), whatever range they touch; munmap and brk shrink
 *   downgrade it (mmap_write_downgrade) before zapping the pages.
 * madvise(MADV_DONTNEED) and MAP_POPULATE take it for read, as the kernel
 * does.
 *
 * Invariants: those of sim_rwsem (rw_semaphore.c) — a writer excludes
 * everyone; a waiting writer blocks new readers on the fast path, but a
 * reader may steal a lock no writer holds until a waiter sets HANDOFF.
 *
 * Source: kernel/locking/rwsem.c, include/linux/mmap_lock.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/container.h"
#include "locks/lock_ops.h"
#include "locks/sync/rw_semaphore.h"

struct rwsem_lock {
	struct lock_inst base;
	struct sim_rwsem mmap_lock;
};

#define to_rwsem(l) container_of(l, struct rwsem_lock, base)

static int rwsem_create(const struct lock_env *env, struct lock_inst **out)
{
	struct rwsem_lock *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	ret = lock_mm_init(&r->base, &rwsem_lock_ops, env, &r->mmap_lock,
			   NULL, 0);
	if (ret) {
		free(r);
		return ret;
	}
	*out = &r->base;
	return 0;
}

static void rwsem_destroy(struct lock_inst *l)
{
	lock_mm_fini(l, &to_rwsem(l)->mmap_lock, NULL);
	free(l);
}

static void *rwsem_fault_begin(struct lock_inst *l, unsigned long addr,
			       unsigned flags, struct lock_handle *h)
{
	h->t_acquired = sim_down_read(&to_rwsem(l)->mmap_lock);
	return NULL;
}

static void rwsem_read_end(struct lock_inst *l, struct lock_handle *h)
{
	sim_up_read(&to_rwsem(l)->mmap_lock, h->t_acquired);
}

static void rwsem_write_begin(struct lock_inst *l, unsigned long start,
			      unsigned long end, struct lock_handle *h)
{
	h->t_acquired = sim_down_write(&to_rwsem(l)->mmap_lock);
}

static void rwsem_write_end(struct lock_inst *l, struct lock_handle *h)
{
	sim_up_write(&to_rwsem(l)->mmap_lock, h->t_acquired);
}

static void rwsem_write_downgrade(struct lock_inst *l, struct lock_handle *h)
{
	h->t_acquired = sim_downgrade_write(&to_rwsem(l)->mmap_lock,
					    h->t_acquired);
}

static void rwsem_read_range_begin(struct lock_inst *l, unsigned long start,
				   unsigned long end, unsigned flags,
				   struct lock_handle *h)
{
	h->t_acquired = sim_down_read(&to_rwsem(l)->mmap_lock);
}

static int rwsem_counters(struct lock_inst *l, const char **names,
			  uint64_t *values)
{
	return sim_rwsem_counters(&to_rwsem(l)->mmap_lock, names, values);
}

const struct lock_ops rwsem_lock_ops = {
	.name = "rwsem",
	.desc = "global mmap_lock rwsem: faults read, mmap/munmap/mprotect/brk write (kernel fairness)",
	.excludes = true,
	.serialises_writers = true,
	.vma_typesafe = true,            /* faults hold mmap_lock */
	.create = rwsem_create,
	.destroy = rwsem_destroy,
	.fault_begin = rwsem_fault_begin,
	.fault_end = rwsem_read_end,
	.write_begin = rwsem_write_begin,
	.write_end = rwsem_write_end,
	.write_downgrade = rwsem_write_downgrade,
	.read_range_begin = rwsem_read_range_begin,
	.read_range_end = rwsem_read_end,
	.counters = rwsem_counters,
};
