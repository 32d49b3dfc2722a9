/* SPDX-License-Identifier: MIT */
/* What the replay plan's files share (workloads/replay_*.c). */
#ifndef VMSIM_REPLAY_INT_H
#define VMSIM_REPLAY_INT_H

#include <stddef.h>

#include "workloads/replay.h"
#include "workloads/workload.h"

/* One iteration's replay, shared by its tasks. */
struct rp_shared {
	struct rp_plan *p;
	unsigned long base;
	/* Per rank: 0 not done, 1 done, 2 not done and waited for. */
	_Atomic int *done;
	_Atomic int abort;               /* a task gave up: nobody waits */
	/* Check mode (--replay-log): whose turn it is (an event's seq),
	 * and per event what the log says (-1: not replayed). */
	_Atomic int turn;
	int32_t *val;
};

/* Check mode (workloads/replay_check.c): wait for seq's turn (0, or
 * -EINTR when the run or a task gave up); hand the turn on; the mm's
 * faults so far; whether a touch after c0 faulted (1) or not (0); the
 * VMAs of the cluster at arena offset off; the log, written. */
int rp_check_turn(struct rp_shared *s, struct wl_task *t, uint32_t seq);
void rp_check_next(struct rp_shared *s);
uint64_t rp_fault_total(struct sim_mm *mm);
int32_t rp_faulted(struct sim_mm *mm, uint64_t c0);
int32_t rp_cluster_vmas(struct sim_mm *mm, const struct rp_plan *p,
			unsigned long off);
void rp_check_write_log(const struct rp_shared *s);

/* Pass 2: every event into an operation of its thread. 0 or -1 (err). */
int rp_pass_ops(struct rp_plan *p, char *err, size_t len);
/* Grow *v (of *cap elements of size) to hold need. 0 or -ENOMEM. */
int rp_grow(void **v, size_t *cap, size_t need, size_t size);

#endif
