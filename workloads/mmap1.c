/* SPDX-License-Identifier: MIT */
/*
 * mmap1 — will-it-scale's mmap1: each task loops mmap of --mem (128 MiB)
 * anonymous memory and munmap, touching nothing; one iteration per pair.
 */
#include "workloads/workload.h"

static int mmap1_task(struct wl_task *t)
{
	return wl_map_touch_loop(t, t->o->mem, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, SIM_FILE_NONE,
				 false, false);
}

const struct workload mmap1_workload = {
	.name = "mmap1",
	.desc = "will-it-scale mmap1: loop mmap + munmap of --mem (128M) anon, no touching",
	.loop = true,
	.default_mem = 128UL << 20,
	.min_mem = SIM_PAGE_SIZE,
	.concurrent_writes = true,
	.nmetrics = 2,
	.metrics = {
		WL_RATE_METRICS("ops/s"),
	},
	.task = mmap1_task,
	.report = wl_report_rate,
};
