/* SPDX-License-Identifier: MIT */
/*
 * page_fault3 — will-it-scale's page_fault3: page_fault1 on a shared
 * mapping of a simulated --mem (128 MiB) file.
 *
 * How shared pages are modelled: the VMA is VM_SHARED and file-backed;
 * its first touch is a file fault that places the file page (a page-cache
 * hit: the contents come from the simulated file, checked on a sample),
 * under the same locks as any fault. vmsim keeps no page cache, so a
 * write is not seen by other mappings of the file; what is measured is
 * the fault path and its locking, which is what page_fault3 stresses.
 */
#include "workloads/workload.h"

#define PF3_FILE 3                       /* simulated file id */

static int pf3_task(struct wl_task *t)
{
	return wl_map_touch_loop(t, t->o->mem, PROT_READ | PROT_WRITE,
				 MAP_SHARED, PF3_FILE, true, true);
}

const struct workload page_fault3_workload = {
	.name = "page_fault3",
	.desc = "will-it-scale page_fault3: page_fault1 on a shared mapping of a simulated file",
	.loop = true,
	.default_mem = 128UL << 20,
	.min_mem = SIM_PAGE_SIZE,
	.concurrent_writes = true,
	.touches_mem = true,
	.nmetrics = 2,
	.metrics = {
		WL_RATE_METRICS("faults/s"),
	},
	.task = pf3_task,
	.report = wl_report_rate,
};
