/* SPDX-License-Identifier: MIT */
/*
 * workload.h — the plugin contract. Every workload is one small file that
 * fills one `const struct workload`, in the manner of will-it-scale's
 * tests: the runner owns tasks, the start barrier, timing and samples; the
 * plugin owns one loop.
 *
 * Per iteration the runner calls setup() once (single-threaded), task()
 * on each of the N tasks at once (after a start barrier), teardown() once,
 * then report() to turn what was measured into the metric values.
 */
#ifndef VMSIM_WORKLOAD_H
#define VMSIM_WORKLOAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/fault.h"
#include "sim/mm.h"
#include "sim/results.h"

/* Options a workload may read (from the command line). */
struct wl_opts {
	size_t mem;                      /* --mem: bytes of region */
	int iterations;                  /* --iterations */
	int writers;                     /* --writers: background writer tasks */
};

/* One task's view of an iteration. */
struct wl_task {
	struct sim_mm *mm;
	int id, ntasks;
	const struct wl_opts *o;
	void *shared;                    /* what setup() returned */
	bool background;                 /* runs until the others finish */
	const _Atomic bool *stop;        /* set when the foreground is done */
	uint64_t ops;                    /* the workload's unit of work */
	uint64_t touches;                /* pages touched (wl_touch) */
	uint64_t segv;                   /* touches refused: SIGSEGV */
} __attribute__((aligned(64)));

/* What the runner measured over one iteration. */
struct wl_iter {
	int ntasks;
	double elapsed;                  /* s, first start to last finish */
	double user, sys;                /* s, summed over tasks */
	double handler;                  /* s, CPU of the uffd handlers */
	uint64_t ops, touches, segv;     /* summed over foreground tasks */
	uint64_t bg_ops;                 /* summed over background tasks */
};

struct workload {
	const char *name;
	const char *desc;                /* one line, for `vmsim list` */
	int nmetrics;
	struct res_metric metrics[RES_MAX_METRICS];
	/* Returns 0 or -errno; *shared is handed to every task. */
	int (*setup)(struct sim_mm *mm, const struct wl_opts *o, int ntasks,
		     void **shared);
	/* Background tasks per iteration (NULL: none). They run task()
	 * with t->background set until *t->stop, and are not timed. */
	int (*background)(const struct wl_opts *o);
	/* Returns 0 or -errno. */
	int (*task)(struct wl_task *t);
	void (*teardown)(struct sim_mm *mm, const struct wl_opts *o,
			 void *shared);
	/* values[i] for metrics[i]. */
	void (*report)(const struct wl_iter *it, double *values);
};

/* Touch one byte through the simulated mm, counting touches and SIGSEGVs. */
static inline int wl_touch(struct wl_task *t, unsigned long addr, bool write,
			   unsigned char *val)
{
	int ret = sim_touch(t->mm, addr, write, val);

	t->touches++;
	if (ret)
		t->segv++;
	return ret;
}

/* Should a background task stop? (acquire: pairs with the runner's
 * release store once every foreground task has finished.) */
static inline bool wl_should_stop(const struct wl_task *t)
{
	return atomic_load_explicit(t->stop, memory_order_acquire);
}

#define WORKLOAD(id) extern const struct workload id##_workload;
#include "workloads/workloads.def"
#undef WORKLOAD

extern const struct workload *const workloads[];
extern const int nworkloads;
const struct workload *workload_find(const char *name);

#endif
