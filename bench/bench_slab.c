/* SPDX-License-Identifier: MIT */
/*
 * vmsim bench slab: what one fast-path allocation and free cost, SLUB
 * against sheaves, with the fast paths in restartable sequences (no
 * lock) and under the CPU's lock (--slab-fastpath rseq | lock). One
 * thread pinned to a CPU allocates 16 objects and frees them, over and
 * over: every operation stays on the CPU freelist or the main sheaf.
 * The four configurations are interleaved round by round; the median of
 * the rounds is printed, and each one's ratio to SLUB under the lock.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "bench/bench.h"
#include "base/stats.h"
#include "sim/mem/slab.h"
#include "base/clock.h"

#define PAIRS   (4u << 20)       /* allocations and frees a round */
#define BATCH   16

/* One round: *ns per allocation + free. 0 or -errno (no cache). */
static int round_ns(enum slab_kind kind, bool rseq, bool *used, double *ns)
{
	/* struct maple_node's size: SLUB's fast paths read and write an
	 * object's free pointer, the sheaves' touch only the sheaf. */
	static const struct slab_args args = { .size = 256, .align = 256 };
	static struct slab_stat st;
	struct slab_cache *s;
	uint32_t objs[BATCH];
	uint64_t t0;
	int ret;

	if (!st.list_lock) {
		st.list_lock = lockstat_class_new("slab_list_lock");
		st.barn_lock = lockstat_class_new("barn_lock");
	}
	ret = slab_cache_create(kind, RCU_FREE_HURRY, "bench", 4096, &args,
				(int)sysconf(_SC_NPROCESSORS_ONLN), &s);
	if (ret)
		return ret;
	if (!rseq)
		s->fast_rseq = false;
	*used = s->fast_rseq;
	for (int w = 0; w < 2; w++) {        /* the CPU's slab and sheaves */
		for (int k = 0; k < BATCH; k++)
			objs[k] = slab_alloc(s, &st);
		for (int k = BATCH; k-- > 0;)
			slab_free(s, &st, objs[k]);
	}
	t0 = mono_ns();
	for (uint32_t n = 0; n < PAIRS; n += BATCH) {
		for (int k = 0; k < BATCH; k++)
			objs[k] = slab_alloc(s, &st);
		for (int k = BATCH; k-- > 0;)
			slab_free(s, &st, objs[k]);
	}
	t0 = mono_ns() - t0;
	slab_cache_destroy(s);
	*ns = (double)t0 / PAIRS;
	return 0;
}

int bench_slab_run(FILE *out, int rounds)
{
	static const char *const names[4] = {
		"slub lock", "slub rseq", "sheaves lock", "sheaves rseq",
	};
	double ns[4][BENCH_SLAB_ROUNDS_MAX], med[4];
	bool used[4] = { false };
	cpu_set_t old;
	bool pinned;
	int ret = 0;

	if (rounds < 1 || rounds > BENCH_SLAB_ROUNDS_MAX)
		return -EINVAL;
	pinned = bench_pin_cpu0(&old);
	for (int r = 0; r < rounds && !ret; r++)
		for (int c = 0; c < 4 && !ret; c++)
			ret = round_ns(c < 2 ? SLAB_SLUB : SLAB_SHEAVES, c & 1,
				       &used[c], &ns[c][r]);
	bench_unpin(pinned, &old);
	if (ret)
		return ret;
	fprintf(out, "ns per allocation + free, one thread%s, median of %d "
		"round%s (min..max); ratio to slub lock\n",
		pinned ? " on CPU 0" : " (not pinned)", rounds,
		rounds == 1 ? "" : "s");
	for (int c = 0; c < 4; c++)
		med[c] = stats_median(ns[c], (size_t)rounds);
	for (int c = 0; c < 4; c++)
		fprintf(out, "%-13s %6.2f (%6.2f..%6.2f)  %.2fx%s\n", names[c],
			med[c], stats_min(ns[c], (size_t)rounds),
			stats_max(ns[c], (size_t)rounds), med[c] / med[0],
			(c & 1) && !used[c] ? "  (rseq not usable here: locked)" : "");
	return 0;
}
