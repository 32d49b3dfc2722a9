/* SPDX-License-Identifier: MIT */
/*
 * runner — runs a workload over a list of task counts and collects
 * samples: for each task count fresh simulated mms; per iteration a start
 * gate, per-task RUSAGE_THREAD user/system time, the handlers' CPU time,
 * and the wall time from first start to last finish.
 *
 * Several lock schemes can be run in one invocation: their iterations are
 * interleaved (scheme order rotating every iteration), so that each
 * comparison is measured side by side on a machine whose speed drifts.
 *
 * Modes, as will-it-scale's two binaries: threads (all tasks share one
 * simulated mm) and processes (each task has its own mm: tree, lock,
 * arena, uffd and handlers).
 */
#ifndef VMSIM_RUNNER_H
#define VMSIM_RUNNER_H

#include <stdbool.h>

#include "sim/faults/uffd_source.h"
#include "sim/result.h"
#include "workloads/workload.h"

#define RUNNER_MAX_TASKLIST 64
#define RUNNER_MAX_SCHEMES  8

/* One thing a run compares (workloads/targets.c): a scheme, with the
 * slab, the rcu-free variant and the mprotect range it runs under. */
struct run_target {
	const struct lock_ops *lock;
	enum slab_kind slab;
	enum slab_rcu_free rcu_free;
	enum lock_mprotect_range mprotect;   /* range schemes' */
	enum vma_tree_kind tree;             /* the VMA tree (--tree) */
	/* --costs: what its operations pay (sim/costs.h; .on false: none,
	 * and always for the host kernel's target). */
	struct sim_costs costs;
};
/* Which of the five differs between a run's targets. */
enum run_vary { RUN_VARY_SCHEME, RUN_VARY_SLAB, RUN_VARY_RCU_FREE,
		RUN_VARY_MPROTECT, RUN_VARY_TREE };
#define RUN_VARY_N (RUN_VARY_TREE + 1)

struct run_cfg {
	const struct workload *wl;
	struct sim_mm_cfg mm;            /* .lock unused */
	struct uffd_source_opts uffd;    /* the uffd source's (per agent:
					  * uffds, handlers, CPUs set there);
					  * nhandlers 0: default */
	/* What the run compares: ntargets (1 or more) that differ in vary
	 * alone (one target: RUN_VARY_SCHEME, its label the scheme's). Set
	 * through runner_targets_set; nvaried: how many values the command
	 * line gave each (0: none), for the checks that refuse two at once. */
	struct run_target targets[RUNNER_MAX_SCHEMES];
	int ntargets;
	enum run_vary vary;
	int nvaried[RUN_VARY_N];
	int tasks[RUNNER_MAX_TASKLIST];
	int ntasklist;
	bool processes;                  /* one mm per task */
	bool pin;                        /* pin tasks (task i on CPU i % n) */
	/* Where a task's uffd handler runs, relative to its task (pinned):
	 * any CPU, the task's own (no cross-CPU wake-up), or the next one. */
	enum handler_cpu { HANDLER_CPU_ANY, HANDLER_CPU_SAME,
			   HANDLER_CPU_OTHER, HANDLER_CPU_N } handler_cpu;
	/* Threads mode: one uffd for the mm, or one per task (the arena
	 * dealt out in stripes); auto: per task with more than one task (a
	 * shared uffd's faults wake whichever handler is free, often on
	 * another CPU: on a 2-vCPU VM 2 tasks ran at 0.53x of 1). */
	enum uffd_split { UFFD_SPLIT_AUTO, UFFD_SPLIT_SHARED,
			  UFFD_SPLIT_PER_TASK, UFFD_SPLIT_N } uffd_split;
	/* Simulated physical memory: none, a zone, or a zone behind per-CPU
	 * lists; its size (bytes) and how the lists are given back. */
	enum frames_mode frames;
	enum frames_bulk bulk_free;
	bool bulk_given;
	size_t phys;
	/* Where VMAs and tree nodes come from and how rcu_free sheaves meet
	 * RCU are each target's (targets[k].slab, .rcu_free). */
	bool rcu_free_given, kfree_rcu_given, rcu_lazy_given;
	bool slab_fastpath_given;        /* --slab-fastpath */
	bool mprotect_given;             /* --mprotect-range */
	struct wl_opts wo;
	/* replay: the trace, --speed (0: asap) and --replay-log. */
	const char *trace, *replay_log;
	struct res_host_lock host_lock;  /* the trace's side file, if any */
	double speed;
	bool speed_given;                /* --speed: paces --replay-log too */
	/* Completion workloads: a sample is the mean of passes back to
	 * back, as many as make it last min_sample_ms (sized from the
	 * warm-up, the same count for every target of a task count), or
	 * exactly passes when non-zero; wo.warmup untimed passes of every
	 * target come first. */
	int min_sample_ms;
	int passes;
	bool progress;                   /* progress line on stderr */
	double fault_timeout;            /* s; a touch taking longer aborts */
};
/* The names of --handler-cpu's and --uffd's values, indexed by value. */
extern const char *const runner_handler_cpu_names[HANDLER_CPU_N];
extern const char *const runner_uffd_split_names[UFFD_SPLIT_N];

/*
 * Run and fill outs[0..ntargets-1] (points, metrics, complete). Returns 0
 * or -errno: -EINTR after runner_interrupt(), -ETIMEDOUT when the
 * watchdog found a fault unanswered for fault_timeout (it prints what it
 * found, poisons the page so the task gets out, and stops the run). On
 * error err holds one line saying what failed, and outs hold what was
 * measured before it, with complete = false.
 */
int runner_run(const struct run_cfg *c, struct res_file *outs, char *err,
	       size_t errlen);


/* Target position k of round i: a Williams design (a Latin square each
 * of whose targets follows every other equally often over its rounds:
 * n rounds for even n, 2n for odd), so no target is always first or
 * always after the same one. */
int runner_round_order(int n, int i, int k);

/* What a run compares — its targets: its schemes, or one scheme's
 * component variants; and target k's scheme, slab, rcu-free and label
 * (the scheme's name, or the variant's). */
int runner_ntargets(const struct run_cfg *c);
/* v[0..n-1]'s member what as the run's: one value (n 1) for every
 * target, or n targets, each target 0 with its own value of what. */
void runner_targets_set(struct run_cfg *c, enum run_vary what,
		     const struct run_target *v, int n);
/* Do the run's targets differ in what? */
bool runner_varies(const struct run_cfg *c, enum run_vary what);
const struct lock_ops *runner_target_lock(const struct run_cfg *c, int k);
enum slab_kind runner_target_slab(const struct run_cfg *c, int k);
/* The target's VMA tree, resolved ("maple" or "vmsim", never default). */
enum vma_tree_kind runner_target_tree(const struct run_cfg *c, int k);
enum slab_rcu_free runner_target_rcu_free(const struct run_cfg *c, int k);
enum lock_mprotect_range runner_target_mprotect(const struct run_cfg *c, int k);
const char *runner_target_label(const struct run_cfg *c, int k);
/* Whether the run's slab caches take their fast paths in restartable
 * sequences (not --slab-fastpath lock, and usable here). */
bool runner_slab_fast_rseq(const struct run_cfg *c);
/* What a run varying w compares, in the plural ("schemes", "slabs"...). */
const char *runner_vary_name(enum run_vary w);

/* The largest task count of the run (at least 1). */
int runner_max_tasks(const struct run_cfg *c);
/* The uffds one mm of an ntasks point reads, and each one's handlers. */
int runner_uffds(const struct run_cfg *c, int ntasks);
int runner_handlers_per_uffd(const struct run_cfg *c, int ntasks);

/* Stop the run as soon as possible (async-signal-safe). */
void runner_interrupt(int sig);
/* The signal passed to runner_interrupt(), or 0. */
int runner_interrupted(void);
/* Forget an interrupt (for tests that run the runner again). */
void runner_clear_interrupt(void);

#endif
