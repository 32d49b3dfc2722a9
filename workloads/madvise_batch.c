/* SPDX-License-Identifier: MIT */
/*
 * madvise_batch — the process_madvise batching loop from SeongJae Park's
 * "madvise: batch TLB flushes for MADV_DONTNEED" (2025): populate --mem
 * (256 MiB), then MADV_DONTNEED all of it in 4 KiB ranges, one
 * process_madvise call per batch of vlen ranges, for vlen 1, 2, 4, ...
 * 1024; each batch size is timed over the whole region.
 *
 * The simulated lock is taken once per call. The real zap is one
 * process_madvise(2) per batch (Linux 6.13+ allows it on oneself), or
 * with --zap madvise one madvise(2) per range. In threads mode each task
 * does its own slice of --mem; the slowest task's time is reported.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <time.h>

#include <stdio.h>

#include "workloads/workload.h"
#include "base/clock.h"

#define MB_SIZES 11                      /* vlen 1 .. 1024 */

struct mb_region {
	unsigned long start;
	size_t slice;                    /* bytes per task */
	size_t len;                      /* slice * tasks */
	struct iovec *iov;               /* one 4 KiB range per page */
};

static int mb_setup(struct sim_mm *mm, const struct wl_opts *o, int n,
		    void **shared)
{
	struct mb_region *r = malloc(sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	r->slice = (o->mem / (size_t)n) & SIM_PAGE_MASK;
	r->len = r->slice * (size_t)n;
	r->iov = malloc((r->len >> SIM_PAGE_SHIFT) * sizeof(*r->iov));
	ret = !r->iov ? -ENOMEM : r->slice ? sim_do_mmap(mm, 0, r->len,
				     PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, SIM_FILE_NONE,
				     0, &r->start) : -EINVAL;
	if (ret) {
		free(r->iov);
		free(r);
		return ret;
	}
	/* The ranges, set up here: a task allocates nothing. */
	for (size_t i = 0; i < r->len >> SIM_PAGE_SHIFT; i++)
		r->iov[i] = (struct iovec){ (void *)(r->start + (i << SIM_PAGE_SHIFT)),
					    SIM_PAGE_SIZE };
	*shared = r;
	return 0;
}

static int mb_task(struct wl_task *t)
{
	const struct mb_region *r = t->shared;
	unsigned long base = r->start + r->slice * (size_t)t->id;
	size_t npages = r->slice >> SIM_PAGE_SHIFT;
	struct iovec *iov = r->iov + npages * (size_t)t->id;
	int ret = 0;

	for (int b = 0; b < MB_SIZES && !ret; b++) {
		size_t vlen = (size_t)1 << b;
		double t0;

		/* Populate (untimed): every page present again. */
		ret = sim_do_madvise(t->mm, base, r->slice, MADV_POPULATE_WRITE);
		t0 = mono_s();
		for (size_t i = 0; i < npages && !ret; i += vlen) {
			if (wl_should_stop(t)) {
				ret = -EINTR;
				break;
			}
			size_t k = npages - i < vlen ? npages - i : vlen;

			sim_do_madvise_batch(t->mm, &iov[i], (int)k, MADV_DONTNEED,
					     !t->o->zap_per_range, &ret);
		}
		t->phase[b] = mono_s() - t0;
		wl_add_ops(t, npages);
	}
	return ret;
}

static void mb_teardown(struct sim_mm *mm, const struct wl_opts *o, void *s)
{
	struct mb_region *r = s;

	sim_do_munmap(mm, r->start, r->len);
	free(r->iov);
	free(r);
}

static void mb_report(const struct wl_iter *it, double *v)
{
	for (int b = 0; b < MB_SIZES; b++)
		v[b] = it->phase[b];
}

/* --zap process_madvise needs process_madvise(MADV_DONTNEED) on oneself
 * (Linux 6.13+): refused if asked for, else one madvise per range. */
static int mb_prepare(struct wl_opts *o, unsigned given, char *msg, size_t len)
{
	if (o->zap_per_range || sim_process_madvise_self_ok())
		return 0;
	if (given & WL_OPT_ZAP) {
		snprintf(msg, len, "--zap process_madvise needs "
			 "process_madvise(MADV_DONTNEED) on oneself (Linux "
			 "6.13+); use --zap madvise");
		return -EINVAL;
	}
	snprintf(msg, len, "this kernel cannot process_madvise itself: "
		 "zapping with one madvise per range");
	o->zap_per_range = true;
	return 0;
}

const struct workload madvise_batch_workload = {
	.name = "madvise_batch",
	.test_args = "-m 1M -i 1",
	.desc = "populate --mem (256M), MADV_DONTNEED it in 4K ranges, vlen 1..1024 per call",
	.default_mem = 256UL << 20,
	.min_mem = SIM_PAGE_SIZE,
	.touches_mem = true,
	.options = WL_OPT_ZAP,
	.prepare = mb_prepare,
	.nmetrics = MB_SIZES,
	.metrics = {
		{ "vlen-1", "s", false, false },
		{ "vlen-2", "s", false, false },
		{ "vlen-4", "s", false, false },
		{ "vlen-8", "s", false, false },
		{ "vlen-16", "s", false, false },
		{ "vlen-32", "s", false, false },
		{ "vlen-64", "s", false, false },
		{ "vlen-128", "s", false, false },
		{ "vlen-256", "s", false, false },
		{ "vlen-512", "s", false, false },
		{ "vlen-1024", "s", false, true },
	},
	.setup = mb_setup,
	.task = mb_task,
	.teardown = mb_teardown,
	.report = mb_report,
};
