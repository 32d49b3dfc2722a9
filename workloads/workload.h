/* SPDX-License-Identifier: MIT */
/*
 * workload.h — the plugin contract. Every workload is one small file that
 * fills one `const struct workload`, in the manner of will-it-scale's
 * tests: the runner owns tasks, the start barrier, timing and samples; the
 * plugin owns one loop.
 *
 * Per iteration the runner calls setup() once per simulated mm, task()
 * on each of the N tasks at once (after a start gate), teardown() once
 * per mm, then report() to turn what was measured into the metric
 * values. Tasks are threads (--mode threads: one mm) or threads of
 * forked processes (--mode processes: an mm, and a real host process,
 * per task); a task sees no difference.
 *
 * A task must not change the host's address space (sim/host.h): no
 * malloc of large buffers, no real mmap; anything it needs comes from
 * setup().
 */
#ifndef VMSIM_WORKLOAD_H
#define VMSIM_WORKLOAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "sim/fault.h"
#include "sim/mm.h"
#include "sim/result.h"
#include "base/clock.h"
#include "sim/hist.h"

/* Options a workload may read (from the command line). */
struct wl_opts {
	size_t mem;                      /* --mem: bytes of region */
	int iterations;                  /* --iterations */
	int writers;                     /* --writers: background writer tasks */
	int warmup, duration;            /* loop workloads: samples (seconds) */
	int interval_ms;                 /* loop workloads: sample length */
	long cycles;                     /* mmap_stress: cycles per iteration */
	bool zap_per_range;              /* madvise_batch: madvise per range */
	int readers;                     /* maps_reader: --readers */
	int maps_read;                   /* maps_reader: enum sim_maps_kind */
	bool maps_mm_lock;               /* maps_reader: --maps-lock mmap */
	void *replay;                    /* replay: its plan (workloads/replay.h) */
};

/* One task's view of an iteration. */
struct wl_task {
	struct sim_mm *mm;
	int id, ntasks;
	const struct wl_opts *o;
	void *shared;                    /* what setup() returned */
	const void *params;              /* the workload's params */
	bool background;                 /* runs until the others finish */
	const _Atomic int *stop;         /* non-zero: the foreground is done */
	const _Atomic int *interrupt;    /* non-zero: the run is stopping */
	_Atomic uint64_t ops;            /* the workload's unit of work; only
					  * this task writes it (wl_add_ops) */
	/* A second count, for a background task whose work is not the
	 * others' unit (maps_reader's readers: VMAs read); wl_add_aux. */
	_Atomic uint64_t aux;
	int bg;                          /* which background task (0..), or -1 */
	uint64_t touches;                /* pages touched (wl_touch) */
	double ns_per_cycle;             /* for lat: clock_ns_per_cycle() */
	struct lat_hist lat;             /* every touch's latency (ns) */
	struct lat_hist call_lat;        /* replay: every call's (ns) */
	uint64_t segv;                   /* touches refused: SIGSEGV */
	double phase[RES_MAX_METRICS];   /* seconds per timed phase, if any */
	/* For the runner's watchdog: when the current touch began
	 * (cycles_now() + 1, the touch's own clock reading; 0 when not
	 * touching), where, and who. */
	_Atomic uint64_t touch_since;
	_Atomic unsigned long touch_addr;
	_Atomic int tid;
} __attribute__((aligned(64)));

/* What the runner measured over one iteration. */
struct wl_iter {
	int ntasks;
	double elapsed;                  /* s, first start to last finish */
	double cpu;                      /* s, tasks' CPU (thread CPU clocks) */
	double user, sys;                /* s, cpu split as the kernel's tick
					  * sampling splits it (user + sys == cpu) */
	double handler;                  /* s, CPU of the uffd handlers */
	uint64_t ivcsw;                  /* vmsim's involuntary switches */
	double noise_wall;               /* s, the window noise is taken over */
	struct res_noise noise;          /* the machine meanwhile */
	uint64_t ops, touches, segv;     /* summed over foreground tasks */
	uint64_t host_faults;            /* the host's page faults they took
					  * (-l kernel: every fault) */
	uint64_t bg_ops;                 /* summed over background tasks */
	uint64_t bg_aux;                 /* their aux counts, summed */
	struct lat_hist bg_lat;          /* their calls' latencies (call_lat) */
	double bg_cpu;                   /* s, their CPU */
	double phase[RES_MAX_METRICS];   /* slowest task's time per phase */
	/* Loop workloads: one ops/sec value per --duration second, with
	 * the interval's real length and its enum res_flag. */
	int nrates;
	double *rates, *rate_wall;
	unsigned char *rate_flag;
	bool stopped;                    /* vmsim was stopped meanwhile */
};

/* The options a workload declares it reads (beyond --mem, which min_mem
 * declares, and --writers, which background does); the CLI refuses the
 * others and records only these in a result's options. */
#define WL_OPT_CYCLES 0x1                /* --cycles */
#define WL_OPT_ZAP    0x2                /* --zap */
#define WL_OPT_TRACE  0x4                /* --trace, --speed, --replay-log */
#define WL_OPT_MAPS   0x8                /* --readers, --maps-read, --maps-lock */

struct workload {
	const char *name;
	const char *desc;                /* one line, for `vmsim list` */
	int nmetrics;
	struct res_metric metrics[RES_MAX_METRICS];
	/* Loop workloads run their task until told to stop and are sampled
	 * once a second (will-it-scale); the others run to completion and
	 * are timed per --iteration. */
	bool loop;
	size_t default_mem;              /* --mem when not given */
	/* --mem a task needs at least (0: the workload has no use for
	 * --mem, and refuses it). */
	size_t min_mem;
	/* Tasks map and unmap concurrently: not for a scheme without
	 * exclusion (none) when several tasks share an mm. */
	bool concurrent_writes;
	bool touches_mem;                /* populates --mem (per task if loop) */
	bool needs_frames;               /* refuses --frames none */
	/* Returns 0 or -errno; *shared is handed to every task. Optional. */
	int (*setup)(struct sim_mm *mm, const struct wl_opts *o, int ntasks,
		     void **shared);
	/* Background tasks per iteration (NULL: none). They run task()
	 * with t->background set until *t->stop, and are not timed. */
	int (*background)(const struct wl_opts *o);
	/* Returns 0 or -errno. */
	int (*task)(struct wl_task *t);
	void (*teardown)(struct sim_mm *mm, const struct wl_opts *o,
			 void *shared);      /* optional */
	/* values[i] for metrics[i]. */
	void (*report)(const struct wl_iter *it, double *values);
	unsigned options;                /* WL_OPT_* */
	/*
	 * Optional: settle o for this machine before the run (given: the
	 * WL_OPT_* the user gave). 0, with perhaps a notice in msg to show;
	 * or -EINVAL with the reason in msg (one line).
	 */
	int (*prepare)(struct wl_opts *o, unsigned given, char *msg, size_t len);
	/* What one task function needs to know of the workload it runs as
	 * (wis.c: the will-it-scale test), given to it as t->params. */
	const void *params;
	/* For the test suites (tests/suites/smoke.sh, tests/suites/host_isolation.sh,
	 * through `vmsim list --tsv`): the options of a tiny run of it
	 * (@TRACES@: tests/data/traces), and whether host isolation checks
	 * it (its tasks change the address space in the timed phase). */
	const char *test_args;
	bool test_isolation;
	/* Why it cannot run on the host kernel (-l kernel), one clause;
	 * NULL: it can. */
	const char *no_host;
};

/* Touch one byte through the simulated mm, counting touches and SIGSEGVs
 * (flags: FAULT_FLAG_WRITE, FAULT_FLAG_KERNEL for the kernel's access to
 * user memory, as a replayed read(2) makes). */
static inline int wl_touch_flags(struct wl_task *t, unsigned long addr,
				 unsigned flags, unsigned char *val)
{
	uint64_t c0;
	int ret;

	/* Relaxed: read only by the watchdog, as a diagnostic. */
	atomic_store_explicit(&t->touch_addr, addr, memory_order_relaxed);
	c0 = cycles_now();
	atomic_store_explicit(&t->touch_since, c0 + 1, memory_order_relaxed);
	ret = sim_touch_flags(t->mm, addr, flags, val);
	/* The touch's latency: the fault's, when it faulted (a uffd round
	 * trip, or the synthetic fault path), a few ns when it did not. */
	hist_record(&t->lat, cycles_to_ns(cycles_now() - c0, t->ns_per_cycle));
	atomic_store_explicit(&t->touch_since, 0, memory_order_relaxed);
	t->touches++;
	if (ret)
		t->segv++;
	return ret;
}

static inline int wl_touch(struct wl_task *t, unsigned long addr, bool write,
			   unsigned char *val)
{
	return wl_touch_flags(t, addr, write ? FAULT_FLAG_WRITE : 0, val);
}

static inline void wl_add_ops(struct wl_task *t, uint64_t n)
{
	atomic_store_explicit(&t->ops, atomic_load_explicit(&t->ops,
			      memory_order_relaxed) + n, memory_order_relaxed);
}

static inline void wl_add_aux(struct wl_task *t, uint64_t n)
{
	atomic_store_explicit(&t->aux, atomic_load_explicit(&t->aux,
			      memory_order_relaxed) + n, memory_order_relaxed);
}

/* Should a task stop? Background and loop tasks when the runner says so
 * (acquire: pairs with its release store); every task on an interrupt,
 * which task loops check once per unit of work. */
static inline bool wl_should_stop(const struct wl_task *t)
{
	return atomic_load_explicit(t->stop, memory_order_acquire) ||
	       atomic_load_explicit(t->interrupt, memory_order_relaxed);
}

/* A region of --mem split among the tasks (pft, fault_vs_mmap): what
 * their setup() shares; wl_region_teardown() unmaps and frees it. */
struct wl_region {
	unsigned long start;
	size_t slice;                    /* bytes per task */
	size_t len;                      /* slice * tasks */
};
void wl_region_teardown(struct sim_mm *mm, const struct wl_opts *o,
			void *shared);

/*
 * Loop until told to stop: map len bytes (prot, flags, file), touch one
 * byte per page if touch (a fault each, counted as one op; with verify,
 * a sample of file pages is checked against the simulated file first),
 * unmap; without touch each map+unmap pair is one op. The will-it-scale
 * page_fault and mmap tests are this loop with different arguments.
 * Returns 0 or -errno.
 */
int wl_map_touch_loop(struct wl_task *t, size_t len, int prot, int flags,
		      int file, bool touch, bool verify);
/*
 * The program fault_vs_mmap runs (and maps_reader beside its readers):
 * wl_fvm_map() maps a region of --mem in VMAs of WL_FVM_VMA_PAGES pages
 * (every other one PROT_EXEC too, so none merges), a slice a fault task,
 * claimed by it (0 and *r, or -errno with nothing left mapped);
 * wl_fvm_fault() is a fault task's pass: write every page of its slice,
 * a VMA at a time, zapping each (MADV_DONTNEED) so that the next pass
 * faults again; wl_fvm_writer() is a writer's loop until told to stop:
 * mmap WL_FVM_WRITER_PAGES of shared anonymous memory (MAP_POPULATE),
 * mprotect half of it read-only, munmap it — an op a call, and with
 * timed each call's latency into t->call_lat. 0 or -errno.
 */
#define WL_FVM_VMA_PAGES    64
#define WL_FVM_WRITER_PAGES 16
int wl_fvm_map(struct sim_mm *mm, const struct wl_opts *o, int ntasks,
	       struct wl_region *r);
int wl_fvm_fault(struct wl_task *t, const struct wl_region *r);
int wl_fvm_writer(struct wl_task *t, bool timed);

/* The two metrics of a loop workload, counted in unit. */
#define WL_RATE_METRICS(unit)					\
	{ "ops/sec", unit, true, true },			\
	{ "ops/sec/task", unit, true, false }

/* ops/sec and ops/sec per task, for loop workloads. */
void wl_report_rate(const struct wl_iter *it, double *v);

#define WORKLOAD(id) extern const struct workload id##_workload;
#include "workloads/workloads.def"
#undef WORKLOAD

extern const struct workload *const wl_workloads[];
extern const int wl_nworkloads;
const struct workload *wl_find(const char *name);

#endif
