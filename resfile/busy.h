/* SPDX-License-Identifier: MIT */
/*
 * Was the machine quiet enough for a point of a result to be measured?
 * One rule, read by what writes results (run) and by what reads them
 * (compare, report, the gate): it links no simulator.
 */
#ifndef VMSIM_RESFILE_BUSY_H
#define VMSIM_RESFILE_BUSY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Did the machine let a point be measured? The one rule for run, compare,
 * report and the gate, from what was recorded of each sample: the CPUs
 * others kept busy and vmsim's own, the share stolen, and the harness's
 * ceiling at the point's task count (NaN: not measured). A point is
 * disturbed where, over its samples on average,
 *  - others kept more than RES_BUSY_OTHERS CPUs busy while, with what
 *    vmsim asked for (a CPU a task, or what its threads were seen to use
 *    if more), the machine had less than that spare (they took turns on
 *    CPUs: a sample timed the scheduler; on a machine with CPUs to
 *    spare, others' work costs no turns and counts for nothing), or
 *  - the hypervisor took more than RES_BUSY_STEAL of the CPUs, or
 *  - the harness itself, at that task count, ran below RES_BUSY_CEILING
 *    of linear (pft under none: what vmsim can measure at that count).
 * The limits are those of docs/gate.md, measured by A/A runs idle and
 * with the other vCPU kept busy. Returns true with why set to the
 * reason ("others kept 0.81 CPUs of 2 busy"); why may be NULL.
 */
#define RES_BUSY_OTHERS 0.25
#define RES_BUSY_STEAL 0.05
#define RES_BUSY_CEILING 0.5
struct res_busy {
	const double *others, *own, *steal; /* a sample each; NaN: unknown */
	size_t n;
	double ceiling;                  /* the harness's efficiency; or NaN */
	int tasks, ncpus;
};
bool res_busy_judge(const struct res_busy *b, char *why, size_t len);

#endif
