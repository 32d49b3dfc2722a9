/* SPDX-License-Identifier: MIT */
/*
 * result — what one `vmsim run` measured: the result model, plain data
 * that the runner fills and resfile/results_json.c writes as the result file
 * (docs/results.md). No JSON here: what links the simulator links no
 * json-c.
 */
#ifndef VMSIM_RESULT_H
#define VMSIM_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "locks/lock_ops.h"
#include "sim/hist.h"
#include "sim/mm.h"
#include "sim/host.h"

#define RES_MAX_METRICS 16

struct res_metric {
	const char *name;                /* e.g. "faults/sec" */
	const char *unit;                /* e.g. "faults/s" */
	bool higher_better;
	bool primary;                    /* gated by --fail-on-regression */
};

struct res_lockclass {
	char name[32];
	struct lockstat_totals side[LS_NSIDES];
};

/*
 * What one simulated mm counted (faults, uffd, lock statistics, scheme
 * events). Plain data with no pointers into the process that made it
 * (counter names point at string constants of the program, the same in a
 * forked child), so an agent process can hand it back through shared
 * memory.
 */
struct res_counters {
	uint64_t faults[SIM_FAULT_NKINDS];
	/* The fault source's own counters (names: string constants). */
	int nsrc;
	const char *src_names[FAULT_SOURCE_MAX_COUNTERS];
	uint64_t src_values[FAULT_SOURCE_MAX_COUNTERS];
	uint64_t vmas, mapped_pages, resident_pages;  /* at the end */
	uint64_t populated;              /* pages placed by MAP_POPULATE */
	uint64_t untimed_lock[2];        /* sim_mm's untimed_lock */
	uint64_t slots;                  /* per-thread counter slots */
	uint64_t fault_pages;            /* pages faults placed */
	/* Fault-source operations the host refused (enum sim_src_op), and
	 * the errno of the first of each. */
	uint64_t src_err[SIM_SRC_NOPS];
	int src_errno[SIM_SRC_NOPS];
	/* The fault path's time in the scheme's lock (ns, summed): waiting
	 * for it (fault_begin) and holding it (to fault_end). */
	double lock_wait_ns, lock_hold_ns;
	int nclasses;
	struct res_lockclass classes[LOCK_MAX_CLASSES];
	int ncounters;                   /* scheme event counters */
	const char *counter_names[LOCK_MAX_COUNTERS];
	uint64_t counters[LOCK_MAX_COUNTERS];
};

/*
 * Why a sample is not a measurement. Such a sample is kept (it is what
 * happened) but flagged in the table and the result file, and the
 * regression gate refuses a file that has one.
 */
enum res_flag {
	RES_FLAG_NONE,
	RES_FLAG_STOPPED,                /* vmsim was stopped (SIGSTOP/SIGTSTP) */
	RES_FLAG_STARVED,                /* wall far above, CPU far below, the rest */
	RES_FLAG_OVERSLEPT,              /* a sampling interval ran far long */
};
const char *res_flag_reason(enum res_flag f);

/*
 * The machine while a sample was taken, measured over its iteration (a
 * loop workload's seconds share their iteration's): what could have
 * disturbed it. NaN where it could not be read.
 */
struct res_noise {
	double steal;                    /* share of all CPUs' time the
					  * hypervisor gave away (0 to 1) */
	double others;                   /* CPUs other processes kept busy */
	double own;                      /* CPUs vmsim's own kept busy */
	double ivcsw;                    /* vmsim's involuntary context
					  * switches per second */
};


/* The mean fault, split: its time in the lock's wait and hold, and the
 * rest (delivery, the round trip, the wake-up). A touch's time is a
 * fault's when it faulted and a few ns when not, so the mean fault is
 * every touch's time over the faults taken. */
struct res_fault_split {
	double mean, lock_wait, lock_hold, rest;        /* ns a fault */
	double lock_share;                              /* (wait + hold) / mean */
};

/* Everything measured at one task count. */
struct res_point {
	int tasks;
	int nsamples;                    /* samples per metric */
	/* Completion workloads: passes of the workload a sample is the mean
	 * of (sized to --min-sample, or --passes), and the untimed warm-up
	 * passes run first; runs: every pass the mm's counters (lock
	 * statistics, fault kinds, scheme events) cover, warm-up included. */
	int passes, warmup, runs;
	double pass_s;                   /* s: every pass's tasks' time, first
					  * start to last finish, warm-up too
					  * (what the counters cover) */
	double warm_lat_ns;              /* the warm-up's touches' time in all
					  * (ns): not in lat, but in the fault
					  * split, whose counters cover it */
	/* The harness's own efficiency at this task count (pft under the
	 * none scheme with the run's fault source and options, against
	 * linear scaling of 1 task), where the run measured it. */
	bool has_ceiling;
	double ceiling_eff;
	int cap;
	double *samples[RES_MAX_METRICS];
	/* Per sample: its wall time and its tasks' CPU time (s; NaN where
	 * not measured), and its enum res_flag. */
	double *wall, *cpu;
	unsigned char *flag;
	struct res_noise *noise;         /* per sample */
	uint64_t touches;                /* pages the workload touched */
	/* The host's page faults the tasks took over the same passes (each
	 * task thread's getrusage minflt + majflt): under -l kernel every
	 * fault of the workload; under a model the harness's own (a uffd
	 * fault's, the arena's first touches). */
	uint64_t host_faults;
	struct lat_hist *lat;            /* their latencies; NULL: none */
	struct lat_hist *call_lat;       /* replay's calls' latencies, or NULL */
	uint64_t segv;                   /* simulated SIGSEGVs */
	struct res_counters c;
	/* The host kernel during the timed phases: vmsim's own real memory
	 * calls (layout-changing ones must be 0), and /proc/vmstat deltas. */
	uint64_t host_calls[HOST_NCALLS];
	/* The simulated zone's counters (--frames), summed over iterations. */
	bool has_frames;
	uint64_t frames[FRAMES_NCOUNTERS];
	/* The slab caches' counters (--slab slub|sheaves): [0] VMAs, [1]
	 * tree nodes; summed over iterations (rcu_inflight_max: the most). */
	bool has_slab;
	uint64_t slab[SIM_NSLABS][SLAB_NCOUNTERS];
	struct host_vmstat vmstat;
};

/* The fault source's counter called name, or 0. */
uint64_t res_source_counter(const struct res_counters *c, const char *name);
/* Faults taken, of every kind (refused ones too). */
uint64_t res_faults(const struct res_counters *c);
/* false where nothing faulted or no latency was recorded. */
bool res_fault_split(const struct res_point *p, struct res_fault_split *out);

/*
 * The host kernel's own mmap_lock as vmsim record saw the program take it
 * (TRACE.mmap_lock.json beside a trace): one recording, i.e. one run of
 * the program, against which a replay's iterations are set.
 */
#define RES_HOST_CAUSES 16
struct res_host_lock {
	bool have;
	uint64_t acquired[LS_NSIDES], failed[LS_NSIDES];
	uint64_t wait_ns[LS_NSIDES], hold_ns[LS_NSIDES];
	uint64_t span_ns;                /* the recording's (its last event) */
	/* Since the lock file's version 2: the acquisitions a replay can
	 * make (the trace holds their events), and by cause (indexed as
	 * trace/perf_conv.h's enum perf_cause). */
	bool have_causes;
	uint64_t replayable[LS_NSIDES];
	uint64_t cause[RES_HOST_CAUSES][LS_NSIDES];
	/* Since issue 64: the thread that waited the most of its run (its
	 * first to its last event) on the host's mmap_lock. */
	bool have_threads;
	uint32_t worst_tid;
	double worst_share;
	uint64_t worst_run_ns;
};

/* The host kernel the run ran on (vmsim check; a result's meta): what
 * a kernel column (-l kernel) is, and what may spread identical runs. */
struct res_host_kernel {
	bool have;
	char release[65];
	int per_vma_lock;                /* CONFIG_PER_VMA_LOCK: 1, 0, -1
					  * not known */
	const char *per_vma_from;        /* where that was read (a constant) */
	bool vm;                         /* a guest (the CPU's hypervisor flag) */
	int page_reporting_order;        /* free page reporting's, -1: off */
	bool damon;                      /* a kdamond thread is running */
	double first_touch_us;           /* a fresh anonymous page's write */
	double retouch_us;               /* the same after MADV_DONTNEED */
};

struct res_file {
	const char *scheme;
	const char *label;               /* what it is compared as, if not
					  * its scheme (a component variant) */
	const char *workload;
	const char *fault_source;        /* "uffd" | "synthetic" */
	bool complete;
	char stopped[256];               /* why an incomplete run stopped */
	int nmetrics;
	struct res_metric metrics[RES_MAX_METRICS];
	int npoints;
	struct res_point *points;
	/* What the host charged, measured before the run (µs; 0: not
	 * measured): cross-CPU wake-up, bare uffd fault block / busy. */
	double host_wake_us, host_uffd_block_us, host_uffd_busy_us;
	struct res_host_kernel host_kernel;
	struct res_host_lock host_lock;  /* replay with a recorded side file */
};

/* Room for n samples per metric (so a run never grows them mid-way);
 * returns 0 or -ENOMEM. */
int res_point_reserve(struct res_point *p, int n);
/* Append a sample of metric m to p; returns 0 or -ENOMEM. */
int res_point_add(struct res_point *p, int m, double v);
/* The wall time, CPU time and flag of the sample being added (call
 * before nsamples is incremented, after res_point_add). */
void res_point_note(struct res_point *p, double wall, double cpu,
		    enum res_flag flag, const struct res_noise *noise);
/* Samples of p that are flagged. */
int res_point_nflagged(const struct res_point *p);
/* The mm's counters and lock statistics. */
void res_counters_collect(struct res_counters *c, struct sim_mm *mm);
/* A point's address-space-wide lock (the class that stands for the
 * kernel's mmap_lock: "mmap_lock", or the range schemes' "range_lock")
 * an iteration, against the host kernel's own in the recording. */
struct res_host_cmp {
	const char *cls;
	double acquired[LS_NSIDES], contended[LS_NSIDES];
	double ratio[LS_NSIDES];         /* acquired / the host's; NaN: it took none */
	double ratio_rep[LS_NSIDES];     /* acquired / the host's replayable
					  * part; NaN: none, or not known */
};
/* false where there is nothing to set side by side (no recording's
 * lock file, no such class, no sample). */
bool res_host_compare(const struct res_point *p, const struct res_host_lock *h,
		      struct res_host_cmp *out);
/* a += b */
void res_counters_add(struct res_counters *a, const struct res_counters *b);
void res_point_free(struct res_point *p);
void res_file_free(struct res_file *r);
/* The mm components' lock classes, after the scheme's: the page
 * allocator's (zone, pcp) and the slab caches' (list_lock, barn_lock). */
void res_frames_classes(struct res_counters *c, const struct sim_mm *mm);
void res_slab_classes(struct res_counters *c, const struct sim_mm *mm);

#endif
