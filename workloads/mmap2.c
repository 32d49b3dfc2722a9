/* SPDX-License-Identifier: MIT */
/*
 * mmap2 — will-it-scale's mmap2: mmap1 on a simulated --mem (128 MiB)
 * file: loop mmap + munmap, touching nothing; one iteration per pair.
 */
#include "workloads/workload.h"

#define MMAP2_FILE 4                     /* simulated file id */

static int mmap2_task(struct wl_task *t)
{
	return wl_map_touch_loop(t, t->o->mem, PROT_READ | PROT_WRITE,
				 MAP_SHARED, MMAP2_FILE, false, false);
}

const struct workload mmap2_workload = {
	.name = "mmap2",
	.desc = "will-it-scale mmap2: loop mmap + munmap of a --mem (128M) simulated file",
	.loop = true,
	.default_mem = 128UL << 20,
	.min_mem = SIM_PAGE_SIZE,
	.concurrent_writes = true,
	.nmetrics = 2,
	.metrics = {
		WL_RATE_METRICS("ops/s"),
	},
	.task = mmap2_task,
	.report = wl_report_rate,
};
