/* SPDX-License-Identifier: MIT */
/*
 * group — one lock scheme at one task count: its simulated mm(s), the
 * agents that own them, the tasks' persistent threads, and the memory
 * the runner shares with all of them. Internal to workloads/.
 *
 * An agent owns one simulated mm and the threads of the tasks that use
 * it; it does the untimed work (set-up, teardown, collecting counters)
 * and, with a watchdog thread, looks after its tasks' faults.
 *   --mode threads:   one agent, a thread of vmsim, for all the tasks.
 *   --mode processes: one agent per task, each a forked process with its
 *                     own host mm, its own simulated mm, uffd and
 *                     handlers (will-it-scale's processes mode).
 * Either way the runner talks to agents only through the group's shared
 * memory (MAP_SHARED, futexes that work across processes), so both
 * modes are one code path. A forked agent that dies is noticed within
 * 20 ms of any wait and reported; nothing waits for it forever.
 *
 * Task threads live as long as the group: an iteration creates no
 * thread and maps no memory, so the host's address space stays as set-up
 * left it (sim/host.h).
 */
#ifndef VMSIM_GROUP_H
#define VMSIM_GROUP_H

#include "workloads/runner.h"

struct group;

/* Create the agents (and their mms and task threads) for n tasks of
 * the run's target k (its scheme and components: run_target_*()). interrupt is the run's interrupt word (shared memory).
 * Returns 0, or -errno with err set. */
int group_create(const struct run_cfg *c, int k, int n,
		 _Atomic int *interrupt, struct group **out, char *err,
		 size_t errlen);
/* Every agent sets up, every task waits at the gate; then the gate opens
 * (the timed phase begins). Returns 0, or -errno with err set (nothing
 * ran). */
int group_start(struct group *g, char *err, size_t errlen);
/* The foreground tasks' ops so far (for sampling). */
uint64_t group_ops(struct group *g);
/* -ECHILD (err set, the run interrupted) if an agent process has died;
 * else 0. */
int group_check(struct group *g, char *err, size_t errlen);
/* Wait until every foreground task has finished (or the run is
 * interrupted, or an agent died: -ECHILD). */
int group_wait_foreground(struct group *g, char *err, size_t errlen);
/* Stop the background tasks, wait for every agent to finish the
 * iteration, and fill it (and p's host calls). Returns 0, the first
 * task's error, or -ECHILD. */
int group_finish(struct group *g, struct wl_iter *it, struct res_point *p,
		 char *err, size_t errlen);
/* Stop the agents; add their counters to p (if not NULL). */
void group_destroy(struct group *g, struct res_point *p);
/* The CPU time (s, in /proc/stat's ticks) used so far by this process and
 * the group's task processes: what vmsim itself spent, all of it. */
double group_cpu(const struct group *g);
/* Allocations the group's simulated zone could not meet (0: no zone). */
uint64_t group_frames_failed(const struct group *g);

#endif
