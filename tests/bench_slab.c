/* SPDX-License-Identifier: MIT */
/*
 * bench_slab: what one fast-path allocation and free cost, SLUB against
 * sheaves, with the fast paths in restartable sequences (no lock) and
 * under the CPU's lock (--slab-fastpath rseq | lock). One thread pinned
 * to a CPU allocates 16 objects and frees them, over and over: every
 * operation stays on the CPU freelist or the main sheaf. The four
 * configurations are interleaved round by round; the median of the
 * rounds is printed, and each configuration's ratio to SLUB under the
 * lock. Not a test (ctest does not run it): `build/tests/bench_slab
 * [ROUNDS]`.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sim/mem/slab.h"

#define PAIRS   (4u << 20)       /* allocations and frees a round */
#define BATCH   16

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ns per allocation + free, or a negative number if the cache failed. */
static double round_ns(enum slab_kind kind, bool rseq, bool *used)
{
	static struct slab_stat st;
	struct slab_cache *s;
	uint32_t objs[BATCH];
	uint64_t t0;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);

	if (!st.list_lock) {
		st.list_lock = lockstat_class_new("slab_list_lock");
		st.barn_lock = lockstat_class_new("barn_lock");
	}
	if (slab_cache_create(kind, RCU_FREE_HURRY, "bench", 4096, ncpu, &s))
		return -1;
	if (!rseq)
		s->fast_rseq = false;
	*used = s->fast_rseq;
	for (int w = 0; w < 2; w++) {        /* the CPU's slab and sheaves */
		for (int k = 0; k < BATCH; k++)
			objs[k] = slab_alloc(s, &st);
		for (int k = BATCH; k-- > 0;)
			slab_free(s, &st, objs[k]);
	}
	t0 = now_ns();
	for (uint32_t n = 0; n < PAIRS; n += BATCH) {
		for (int k = 0; k < BATCH; k++)
			objs[k] = slab_alloc(s, &st);
		for (int k = BATCH; k-- > 0;)
			slab_free(s, &st, objs[k]);
	}
	t0 = now_ns() - t0;
	slab_cache_destroy(s);
	return (double)t0 / PAIRS;
}

int main(int argc, char **argv)
{
	static const char *const names[4] = {
		"slub lock", "slub rseq", "sheaves lock", "sheaves rseq",
	};
	int rounds = argc > 1 ? atoi(argv[1]) : 7;
	double ns[4][64], med[4];
	bool used[4] = { false };
	cpu_set_t set;

	if (rounds < 1 || rounds > 64) {
		fprintf(stderr, "bench_slab: bad rounds '%s': want 1 to 64\n",
			argv[1]);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("bench_slab: sched_setaffinity (running unpinned)");
	for (int r = 0; r < rounds; r++)
		for (int c = 0; c < 4; c++) {
			ns[c][r] = round_ns(c < 2 ? SLAB_SLUB : SLAB_SHEAVES,
					    c & 1, &used[c]);
			if (ns[c][r] < 0) {
				fprintf(stderr, "bench_slab: cannot create a cache\n");
				return 1;
			}
		}
	for (int c = 0; c < 4; c++) {
		qsort(ns[c], (size_t)rounds, sizeof(double), cmp_double);
		med[c] = ns[c][rounds / 2];
	}
	printf("ns per allocation + free, median of %d rounds (min..max); "
	       "ratio to slub lock\n", rounds);
	for (int c = 0; c < 4; c++)
		printf("%-13s %6.2f (%6.2f..%6.2f)  %.2fx%s\n", names[c], med[c],
		       ns[c][0], ns[c][rounds - 1], med[c] / med[0],
		       (c & 1) && !used[c] ? "  (rseq not usable: locked)" : "");
	return 0;
}
