/* SPDX-License-Identifier: MIT */
/*
 * fault_vs_mmap — the workload that separates the lock schemes.
 *
 * --tasks fault tasks each own a slice of --mem made of 64-page VMAs
 * (neighbouring VMAs get different protections, so they stay separate).
 * Each fault task walks its VMAs: write every page (a fault each), then
 * zap the VMA with madvise(MADV_DONTNEED) so the next pass faults again.
 * Meanwhile --writers background tasks loop mmap(16 pages, MAP_POPULATE)
 * -> mprotect(half of it, read-only) -> munmap on VMAs no fault task
 * uses, as an allocator that maps, fills and returns memory does; munmap
 * then really frees pages under the write side.
 * The writers' mappings are shared anonymous memory, so that they never
 * merge with a fault task's private VMA next to them (which would make
 * the writer change, and write-lock, a VMA the fault task is using).
 *
 * With the global rwsem every writer stalls every fault; with range and
 * per-VMA locks faults on other VMAs proceed.
 *
 * faults/sec = fault-task pages / elapsed; writer-ops/sec = writer
 * mmap+mprotect+munmap calls / the same elapsed.
 */
#include <errno.h>
#include <stdlib.h>

#include "workloads/workload.h"

static int fvm_background(const struct wl_opts *o)
{
	return o->writers;
}

static int fvm_setup(struct sim_mm *mm, const struct wl_opts *o, int ntasks,
		     void **shared)
{
	struct wl_region *r = malloc(sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	ret = wl_fvm_map(mm, o, ntasks, r);
	if (ret) {
		free(r);
		return ret;
	}
	*shared = r;
	return 0;
}

static int fvm_task(struct wl_task *t)
{
	return t->background ? wl_fvm_writer(t, false) :
	       wl_fvm_fault(t, t->shared);
}

static void fvm_report(const struct wl_iter *it, double *v)
{
	v[0] = it->elapsed > 0 ? (double)it->ops / it->elapsed : 0;
	v[1] = it->elapsed > 0 ? (double)it->bg_ops / it->elapsed : 0;
	v[2] = it->elapsed;
}

const struct workload fault_vs_mmap_workload = {
	.name = "fault_vs_mmap",
	.test_args = "-m 1M -i 1 --writers 1",
	.test_isolation = true,
	.desc = "T tasks fault+zap their own VMAs while --writers tasks mmap/mprotect/munmap others",
	.default_mem = 16UL << 20,
	.min_mem = WL_FVM_VMA_PAGES * SIM_PAGE_SIZE,
	.concurrent_writes = true,
	.touches_mem = true,
	.nmetrics = 3,
	.metrics = {
		{ "faults/sec", "faults/s", true, true },
		{ "writer-ops/sec", "ops/s", true, false },
		{ "elapsed", "s", false, false },
	},
	.setup = fvm_setup,
	.background = fvm_background,
	.task = fvm_task,
	.teardown = wl_region_teardown,
	.report = fvm_report,
};
