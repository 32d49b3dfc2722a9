/* SPDX-License-Identifier: MIT */
/*
 * pft — mmtests' page fault test (pft-threads): one anonymous region of
 * --mem bytes split evenly among the tasks; each task writes one byte to
 * every page of its slice, so every write is a first-touch fault.
 *
 * faults/sec = pages / elapsed;  faults/cpu = pages / (user + system),
 * where system includes the uffd handlers' CPU (they do the work the
 * kernel would do in the faulting thread's system time). CPU time comes
 * from the threads' CPU clocks, exact however short the run; only its
 * split into user and system is the kernel's tick sampling.
 */
#include <errno.h>
#include <stdlib.h>

#include "workloads/workload.h"

static int pft_setup(struct sim_mm *mm, const struct wl_opts *o, int ntasks,
		     void **shared)
{
	size_t pages = o->mem >> SIM_PAGE_SHIFT;
	struct wl_region *r;
	int ret;

	if (pages < (size_t)ntasks)
		return -EINVAL;
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->slice = (pages / (size_t)ntasks) << SIM_PAGE_SHIFT;
	r->len = r->slice * (size_t)ntasks;
	ret = sim_do_mmap(mm, 0, r->len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, SIM_FILE_NONE, 0,
			  &r->start);
	/* Each slice its task's: with one uffd per task, its faults go to
	 * that task's uffd and handler. */
	for (int i = 0; i < ntasks && !ret; i++) {
		ret = sim_mm_claim(mm, r->start + r->slice * (size_t)i,
				   r->start + r->slice * (size_t)(i + 1), i);
		if (ret)
			sim_do_munmap(mm, r->start, r->len);
	}
	if (ret) {
		free(r);
		return ret;
	}
	*shared = r;
	return 0;
}

static int pft_task(struct wl_task *t)
{
	const struct wl_region *r = t->shared;
	unsigned long a = r->start + r->slice * (size_t)t->id;
	unsigned long end = a + r->slice;
	unsigned char v = (unsigned char)(t->id + 1);

	for (; a < end; a += SIM_PAGE_SIZE) {
		if (wl_should_stop(t))
			return -EINTR;
		if (wl_touch(t, a, true, &v))
			return -EFAULT;
		wl_add_ops(t, 1);
	}
	return 0;
}

static void pft_report(const struct wl_iter *it, double *v)
{
	double cpu = it->cpu + it->handler;

	v[0] = it->elapsed > 0 ? (double)it->ops / it->elapsed : 0;
	v[1] = cpu > 0 ? (double)it->ops / cpu : 0;
	v[2] = it->elapsed;
	v[3] = it->sys + it->handler;
	v[4] = it->user;
}

const struct workload pft_workload = {
	.name = "pft",
	.test_args = "-m 1M -i 1",
	.desc = "mmtests pft: T tasks write one byte per page of an even slice of --mem",
	.default_mem = 64UL << 20,
	.min_mem = SIM_PAGE_SIZE,
	.touches_mem = true,
	.nmetrics = 5,
	.metrics = {
		{ "faults/sec", "faults/s", true, true },
		{ "faults/cpu", "faults/cpu-s", true, false },
		{ "elapsed", "s", false, false },
		{ "system", "s", false, false },
		{ "user", "s", false, false },
	},
	.setup = pft_setup,
	.task = pft_task,
	.teardown = wl_region_teardown,
	.report = pft_report,
};
