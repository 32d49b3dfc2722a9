/* SPDX-License-Identifier: MIT */
/*
 * page_fault2 — will-it-scale's page_fault2: page_fault1 on a private
 * mapping of a simulated --mem (128 MiB) file. Every first touch copies
 * the file page in (UFFDIO_COPY of its contents); every 64th page is
 * read back and checked against the simulated file before it is written.
 */
#include "workloads/workload.h"

#define PF2_FILE 2                       /* simulated file id */

static int pf2_task(struct wl_task *t)
{
	return wl_map_touch_loop(t, t->o->mem, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE, PF2_FILE, true, true);
}

const struct workload page_fault2_workload = {
	.name = "page_fault2",
	.desc = "will-it-scale page_fault2: page_fault1 on a private mapping of a simulated file",
	.loop = true,
	.default_mem = 128UL << 20,
	.min_mem = SIM_PAGE_SIZE,
	.concurrent_writes = true,
	.touches_mem = true,
	.nmetrics = 2,
	.metrics = {
		WL_RATE_METRICS("faults/s"),
	},
	.task = pf2_task,
	.report = wl_report_rate,
};
