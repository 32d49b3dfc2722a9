/* SPDX-License-Identifier: MIT */
/* Micro-benchmarks of vmsim's own data structures (`vmsim bench`). */
#ifndef VMSIM_BENCH_H
#define VMSIM_BENCH_H

#include <stddef.h>
#include <stdio.h>

#include "uffd/pool.h"

/*
 * For each size in sizes: build a VMA tree of that many VMAs, time random
 * lookups, erase+insert pairs, and (as the yardstick) binary search over a
 * plain sorted array of the same ranges with the same addresses. Prints a
 * table and the two ratios the tree must keep small. Returns 0 or -errno.
 */
int sim_bench_tree(FILE *out, const size_t *sizes, int nsizes, long lookups);

/*
 * vmsim bench fault (cli/bench_fault.c): one thread writes each page of
 * len once per case — the native kernel, a bare uffd loop in each wait
 * mode of waits, vmsim's uffd path with every scheme in each, vmsim's
 * synthetic path with every scheme — interleaved for rounds rounds; prints
 * the median rates and ratios to each case's floor. 0, or -errno with the
 * failing case and the cause in err.
 */
int sim_bench_fault(FILE *out, size_t len, int rounds,
		    const enum uffd_wait_mode *waits, int nwaits, char *err,
		    size_t errlen);

#endif
