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

#define FVM_VMA_PAGES    64
#define FVM_WRITER_PAGES 16

static int fvm_background(const struct wl_opts *o)
{
	return o->writers;
}

static int fvm_setup(struct sim_mm *mm, const struct wl_opts *o, int ntasks,
		     void **shared)
{
	size_t chunk = FVM_VMA_PAGES * SIM_PAGE_SIZE;
	size_t per = o->mem / (size_t)ntasks / chunk;
	struct wl_region *r;
	int ret = 0;

	if (!per)
		return -EINVAL;          /* --mem too small for one VMA per task */
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->slice = per * chunk;
	r->len = r->slice * (size_t)ntasks;
	ret = sim_do_mmap(mm, 0, r->len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, SIM_FILE_NONE, 0, &r->start);
	/* Every other 64-page chunk gets PROT_EXEC too: one VMA per chunk. */
	for (size_t off = chunk; !ret && off < r->len; off += 2 * chunk)
		ret = sim_do_mprotect(mm, r->start + off, chunk,
				      PROT_READ | PROT_WRITE | PROT_EXEC);
	/* Each fault task's slice its own: with one uffd per task, its
	 * faults reach its own uffd and handler (the writers' pages are
	 * populated by the writers themselves, no fault message). */
	for (int i = 0; i < ntasks && !ret; i++)
		ret = sim_mm_claim(mm, r->start + r->slice * (size_t)i,
				   r->start + r->slice * (size_t)(i + 1), i);
	if (ret) {
		if (r->start)
			sim_do_munmap(mm, r->start, r->len);
		free(r);
		return ret;
	}
	*shared = r;
	return 0;
}

static int fvm_writer(struct wl_task *t)
{
	size_t len = FVM_WRITER_PAGES * SIM_PAGE_SIZE;

	while (!wl_should_stop(t)) {
		unsigned long a;
		int ret = sim_do_mmap(t->mm, 0, len, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE,
				      SIM_FILE_NONE, 0, &a);

		if (ret)
			return ret;
		ret = sim_do_mprotect(t->mm, a, len / 2, PROT_READ);
		if (!ret)
			ret = sim_do_munmap(t->mm, a, len);
		if (ret)
			return ret;
		wl_add_ops(t, 3);
	}
	return 0;
}

static int fvm_task(struct wl_task *t)
{
	const struct wl_region *r = t->shared;
	size_t chunk = FVM_VMA_PAGES * SIM_PAGE_SIZE;
	unsigned long base, end;
	unsigned char v = (unsigned char)(t->id + 1);

	if (t->background)
		return fvm_writer(t);
	base = r->start + r->slice * (size_t)t->id;
	end = base + r->slice;
	for (unsigned long c = base; c < end; c += chunk) {
		if (wl_should_stop(t))
			return -EINTR;
		for (unsigned long a = c; a < c + chunk; a += SIM_PAGE_SIZE) {
			if (wl_touch(t, a, true, &v))
				return -EFAULT;
			wl_add_ops(t, 1);
		}
		if (sim_do_madvise(t->mm, c, chunk, MADV_DONTNEED))
			return -EFAULT;
	}
	return 0;
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
	.min_mem = FVM_VMA_PAGES * SIM_PAGE_SIZE,
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
