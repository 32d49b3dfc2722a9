/* SPDX-License-Identifier: MIT */
/*
 * brk1 — will-it-scale's brk1: each task loops brk(+page), brk(-page) on
 * the heap VMA, which grows and shrinks in place; two iterations a loop.
 * In threads mode the tasks share one heap, as they do in will-it-scale.
 */
#include "workloads/workload.h"

static int brk1_task(struct wl_task *t)
{
	unsigned long base, cur;
	int ret = sim_do_brk(t->mm, 0, &base);

	while (!ret && !wl_should_stop(t)) {
		ret = sim_do_brk(t->mm, base + SIM_PAGE_SIZE, &cur);
		if (!ret)
			ret = sim_do_brk(t->mm, base, &cur);
		wl_add_ops(t, 2);
	}
	return ret;
}

const struct workload brk1_workload = {
	.name = "brk1",
	.desc = "will-it-scale brk1: loop brk(+page), brk(-page) on the heap VMA",
	.loop = true,
	.concurrent_writes = true,
	.nmetrics = 2,
	.metrics = {
		WL_RATE_METRICS("ops/s"),
	},
	.task = brk1_task,
	.report = wl_report_rate,
};
