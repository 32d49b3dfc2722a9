/* SPDX-License-Identifier: MIT */
/*
 * mmap_stress — the mmap stress loop from the SLUB percpu-sheaves
 * benchmarking (Suren Baghdasaryan, 2025): --cycles cycles (20,000) of
 * mmap 50 one-page VMAs, fault each in, munmap all 50. Only the mmap and
 * munmap calls are timed. Neighbouring VMAs alternate their protection
 * (RW, RWX) so that they stay 50 VMAs rather than merging into one.
 *
 * Metrics per iteration, lower is better: mmap, munmap and total seconds
 * (the slowest task's, when several run).
 */
#include <errno.h>
#include <time.h>

#include "workloads/workload.h"
#include "base/clock.h"

#define MS_VMAS 50

static int ms_task(struct wl_task *t)
{
	unsigned long a[MS_VMAS];
	unsigned char v = 1;

	for (long c = 0; c < t->o->cycles; c++) {
		double t0 = mono_s(), t1;
		int ret = 0;

		if (wl_should_stop(t))
			return -EINTR;
		for (int i = 0; i < MS_VMAS && !ret; i++)
			ret = sim_do_mmap(t->mm, 0, SIM_PAGE_SIZE, PROT_READ |
					  PROT_WRITE | (i & 1 ? PROT_EXEC : 0),
					  MAP_PRIVATE | MAP_ANONYMOUS,
					  SIM_FILE_NONE, 0, &a[i]);
		t1 = mono_s();
		t->phase[0] += t1 - t0;
		for (int i = 0; i < MS_VMAS && !ret; i++)
			if (wl_touch(t, a[i], true, &v))
				ret = -EFAULT;
		if (ret)
			return ret;
		t0 = mono_s();
		for (int i = 0; i < MS_VMAS && !ret; i++)
			ret = sim_do_munmap(t->mm, a[i], SIM_PAGE_SIZE);
		t->phase[1] += mono_s() - t0;
		if (ret)
			return ret;
		wl_add_ops(t, 1);
	}
	return 0;
}

static void ms_report(const struct wl_iter *it, double *v)
{
	v[0] = it->phase[0];
	v[1] = it->phase[1];
	v[2] = it->phase[0] + it->phase[1];
}

const struct workload mmap_stress_workload = {
	.name = "mmap_stress",
	.test_args = "--cycles 10 -i 1",
	.test_isolation = true,
	.desc = "--cycles x (mmap 50 VMAs, fault each, munmap all); mmap and munmap timed",
	.concurrent_writes = true,
	.options = WL_OPT_CYCLES,
	.nmetrics = 3,
	.metrics = {
		{ "mmap", "s", false, false },
		{ "munmap", "s", false, false },
		{ "total", "s", false, true },
	},
	.task = ms_task,
	.report = ms_report,
};
