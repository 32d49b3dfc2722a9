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
	/* Per thread: its ops done, and whether someone sleeps on that. */
	_Atomic int *progress, *waiting;
	/* Check mode (--replay-log): whose turn it is (an event's seq),
	 * and per event what the log says (-1: not replayed). */
	_Atomic int turn;
	int32_t *val;
	int64_t *ran_ns;                 /* when it ran, since its task began */
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

#define RP_PAGE 4096UL

static inline unsigned long rp_page_up(unsigned long v)
{
	return (v + RP_PAGE - 1) & ~(RP_PAGE - 1);
}

/* Arena offset of the recorded [a, a+len): 0, or -1 if it is not inside
 * one cluster (*why: never mapped, or split). */
int rp_arena_off(const struct rp_plan *p, unsigned long a, unsigned long len,
		 unsigned long *off, uint8_t *why);
/* op waits for the call of rank (once). 0 or -ENOMEM. */
int rp_add_rank(struct rp_plan *p, struct rp_op *op, uint32_t rank);

/* The model of the recorded address space (workloads/replay_model.c). */
struct rp_iv {
	unsigned long s, e;
	uint32_t rank;                   /* the last call on it, or RP_NONE */
	bool mapped;
	int prot, flags, file;
	unsigned long pgoff;             /* of s, in pages */
	struct rp_tdep *fd;              /* per thread: its last fault here */
	uint32_t nfd;
};

struct rp_model {
	struct rp_iv *v;
	size_t n, cap;
	uint32_t last_brk;
	unsigned long brk;               /* the recorded break */
};

/* The first interval with e > a. */
size_t rp_iv_find(const struct rp_model *m, unsigned long a);
/* [s, e) becomes one interval like val, without faults. 0 or -ENOMEM. */
int rp_model_mark(struct rp_model *m, unsigned long s, unsigned long e,
		  const struct rp_iv *val);
/* A call that keeps the mapping (mprotect: prot >= 0; madvise: -1). */
int rp_model_retouch(struct rp_model *m, unsigned long s, unsigned long e,
		     uint32_t rank, int prot);
/* thread's op idx faulted in interval i. */
int rp_model_fault(struct rp_model *m, size_t i, uint32_t thread,
		   uint32_t idx);
/* What a call on [s, e) by thread self waits for, into op and p (the
 * faults it waits for are marked waited); *first: the first mapped
 * interval met (may be NULL). 0 or -ENOMEM. */
int rp_model_deps(struct rp_plan *p, struct rp_op *op,
		  const struct rp_model *m, unsigned long s, unsigned long e,
		  uint32_t self, const struct rp_iv **first);
void rp_model_free(struct rp_model *m);

/* Pass 2: every event into an operation of its thread. 0 or -1 (err). */
int rp_pass_ops(struct rp_plan *p, char *err, size_t len);
/* Grow *v (of *cap elements of size) to hold need. 0 or -ENOMEM. */
int rp_grow(void **v, size_t *cap, size_t need, size_t size);

#endif
