/* SPDX-License-Identifier: MIT */
/* Micro-benchmarks of vmsim's own data structures (`vmsim bench`). */
#ifndef VMSIM_BENCH_H
#define VMSIM_BENCH_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "resfile/cost_profile.h"
#include "sim/result.h"
#include "sim/vma_tree.h"
#include "uffd/pool.h"

/*
 * For each size in sizes: build a VMA tree of that many VMAs, time random
 * lookups, erase+insert pairs, and (as the yardstick) binary search over a
 * plain sorted array of the same ranges with the same addresses. Prints a
 * table and the two ratios the tree must keep small. Returns 0 or -errno.
 */
int bench_tree_run(FILE *out, const size_t *sizes, int nsizes, long lookups);

/*
 * vmsim bench fault (bench/bench_fault.c): one thread writes each page of
 * len once per case — the native kernel, a bare uffd loop in each wait
 * mode of waits, vmsim's uffd path with every scheme in each, vmsim's
 * synthetic path with every scheme — interleaved for rounds rounds; prints
 * the median rates and ratios to each case's floor. 0, or -errno with the
 * failing case and the cause in err.
 */
int bench_fault_run(FILE *out, size_t len, int rounds,
		    const enum uffd_wait_mode *waits, int nwaits, size_t folio,
		    char *err, size_t errlen);

/*
 * vmsim bench slab (bench/bench_slab.c): one thread allocates and frees on
 * the slab fast paths — slub and sheaves, each in restartable sequences
 * and under the CPU's lock — interleaved for rounds rounds (at most
 * BENCH_SLAB_ROUNDS_MAX); prints ns per allocation + free. 0 or -errno.
 */
/* The calling thread on CPU 0 for a single-thread benchmark (old: its
 * affinity, to put back with bench_unpin): false if it could not be. */
bool bench_pin_cpu0(cpu_set_t *old);
void bench_unpin(bool pinned, const cpu_set_t *old);

#define BENCH_SLAB_ROUNDS_MAX 64
int bench_slab_run(FILE *out, int rounds);

/*
 * vmsim bench lock (bench/bench_lock.c): one thread takes and releases a
 * page's range on every scheme, read side and write side, uncontended,
 * the schemes interleaved for rounds rounds (at most
 * BENCH_LOCK_ROUNDS_MAX); prints ns per acquisition + release. 0 or
 * -errno.
 */
#define BENCH_LOCK_ROUNDS_MAX 64
int bench_lock_run(FILE *out, int rounds);

/* The bare uffd loop of bench fault over len bytes in wait mode w, a
 * UFFDIO_COPY of folio bytes a fault: pages per second. 0 or -errno. */
int bench_bare_uffd_rate(size_t len, enum uffd_wait_mode w, size_t folio,
		       double *rate);

/* What this host charges (bench/host_probe.c), in microseconds; 0 where it
 * could not be measured. */
struct host_probe {
	double wake_us;                  /* cross-CPU futex wake-up, one way */
	double uffd_block_us;            /* bare uffd fault, blocking handler */
	double uffd_busy_us;             /* bare uffd fault, busy handler */
	struct res_host_kernel kernel;   /* the host kernel, and its first touch */
};
void probe_host(struct host_probe *h);
/* The host kernel alone (no uffd): release, CONFIG_PER_VMA_LOCK, a VM,
 * free page reporting, DAMON, and a page's first-touch cost. */
void probe_host_kernel(struct res_host_kernel *k);

/*
 * The cost probe (bench/cost_probe.c; `vmsim calibrate --profile`): each
 * operation class of sim/costs.h, calls calls a round, one at a time at
 * one task — on the host kernel untraced and with its mmap_lock traced,
 * and on each model of models[] — the cases rotated round by round, for
 * rounds rounds; into p the medians (host and date are the caller's to
 * fill). 0, or -errno with the failing case and the cause in err.
 */
#define COST_PROBE_MAX_ROUNDS 64
struct cost_probe_model {
	const struct lock_ops *lock;
	enum vma_tree_kind tree;
};
struct cost_probe_opts {
	int rounds, calls;
	int nmodels;
	struct cost_probe_model models[COST_PROFILE_MAX_MODELS];
};
int cost_probe_run(const struct cost_probe_opts *o, struct cost_profile *p,
		   char *err, size_t len);

#endif
