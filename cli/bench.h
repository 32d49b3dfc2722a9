/* SPDX-License-Identifier: MIT */
/* Micro-benchmarks of vmsim's own data structures (`vmsim bench`). */
#ifndef VMSIM_BENCH_H
#define VMSIM_BENCH_H

#include <stddef.h>
#include <stdio.h>

/*
 * For each size in sizes: build a VMA tree of that many VMAs, time random
 * lookups, erase+insert pairs, and (as the yardstick) binary search over a
 * plain sorted array of the same ranges with the same addresses. Prints a
 * table and the two ratios the tree must keep small. Returns 0 or -errno.
 */
int sim_bench_tree(FILE *out, const size_t *sizes, int nsizes, long lookups);

#endif
