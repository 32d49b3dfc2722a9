/* SPDX-License-Identifier: MIT */
/*
 * runner — runs a workload over a list of task counts and collects
 * samples: for each task count a fresh simulated mm; per iteration a
 * start barrier, per-task RUSAGE_THREAD user/system time, the handlers'
 * CPU time, and the wall time from first start to last finish.
 */
#ifndef VMSIM_RUNNER_H
#define VMSIM_RUNNER_H

#include <stdbool.h>

#include "sim/results.h"
#include "workloads/workload.h"

#define RUNNER_MAX_TASKLIST 64

struct run_cfg {
	const struct workload *wl;
	struct sim_mm_cfg mm;            /* nhandlers 0: one per task */
	int tasks[RUNNER_MAX_TASKLIST];
	int ntasklist;
	struct wl_opts wo;
	bool progress;                   /* progress line on stderr */
};

/*
 * Run and fill out (points, metrics, complete). Returns 0 or -errno; on
 * error err holds one line saying what failed, and out holds what was
 * measured before it.
 */
int runner_run(const struct run_cfg *c, struct res_file *out, char *err,
	       size_t errlen);

#endif
