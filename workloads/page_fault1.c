/* SPDX-License-Identifier: MIT */
/*
 * page_fault1 — will-it-scale's page_fault1: each task loops mmap of
 * --mem (128 MiB) anonymous private memory, a write to every page (each a
 * page fault, one iteration each, as will-it-scale counts), munmap.
 */
#include "workloads/workload.h"

static int pf1_task(struct wl_task *t)
{
	return wl_map_touch_loop(t, t->o->mem, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, SIM_FILE_NONE,
				 true, false);
}

const struct workload page_fault1_workload = {
	.name = "page_fault1",
	.desc = "will-it-scale page_fault1: loop mmap --mem (128M) anon, write each page, munmap",
	.loop = true,
	.default_mem = 128UL << 20,
	.min_mem = SIM_PAGE_SIZE,
	.concurrent_writes = true,
	.touches_mem = true,
	.nmetrics = 2,
	.metrics = {
		WL_RATE_METRICS("faults/s"),
	},
	.task = pf1_task,
	.report = wl_report_rate,
};
