/* SPDX-License-Identifier: MIT */
/*
 * vmsim bench lock: what one uncontended acquisition and release of each
 * scheme's lock costs — the read side (read_range_begin/end of a page:
 * mmap_read_lock, or a range read) and the write side (write_begin/end
 * of a page) — on one thread pinned to a CPU. The schemes are
 * interleaved round by round, each round a fresh instance; the median
 * of the rounds is printed, and its ratio to rwsem's. What it measures
 * is the lock's own work (the range lock's tree spinlock and treap, the
 * list lock's walk, CAS and node), not contention: that needs tasks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "base/stats.h"
#include "locks/lock_ops.h"
#include "base/clock.h"
#include "locks/sync/rcu.h"

#define PAIRS   (1u << 19)       /* acquisitions and releases a round */
#define SPACE   (1UL << 32)
#define PG      4096UL

/* One round of scheme ops: ns per acquisition + release, each side. */
static int round_ns(const struct lock_ops *ops, double *rd, double *wr)
{
	struct lock_env env = { .space_start = SPACE, .space_end = 2 * SPACE };
	struct lock_inst *l;
	struct lock_handle h = { 0 };
	uint64_t t0;
	int ret = ops->create(&env, &l);

	if (ret)
		return ret;
	for (int side = 0; side < 2; side++) {
		t0 = mono_ns();
		for (uint32_t i = 0; i < PAIRS; i++) {
			unsigned long a = SPACE + (i % 1024) * PG;

			if (side) {
				ops->write_begin(l, a, a + PG, &h);
				ops->write_end(l, &h);
			} else {
				ops->read_range_begin(l, a, a + PG, 0, &h);
				ops->read_range_end(l, &h);
			}
		}
		*(side ? wr : rd) = (double)(mono_ns() - t0) / PAIRS;
	}
	ops->destroy(l);
	return 0;
}

int bench_lock_run(FILE *out, int rounds)
{
	double (*ns)[2][BENCH_LOCK_ROUNDS_MAX] = calloc((size_t)lock_nschemes,
							sizeof(*ns));
	double med[2], base[2] = { 0, 0 };
	cpu_set_t old;
	bool pinned;
	int ret = 0;

	if (!ns)
		return -ENOMEM;
	if (rounds < 1 || rounds > BENCH_LOCK_ROUNDS_MAX) {
		free(ns);
		return -EINVAL;
	}
	pinned = bench_pin_cpu0(&old);
	for (int r = 0; r < rounds && !ret; r++)
		for (int k = 0; k < lock_nschemes && !ret; k++) {
			/* Rotated: no scheme always first in a round. */
			int s = (k + r) % lock_nschemes;

			ret = round_ns(lock_schemes[s], &ns[s][0][r], &ns[s][1][r]);
		}
	bench_unpin(pinned, &old);
	sim_rcu_barrier();               /* the list lock's retired nodes */
	if (ret) {
		free(ns);
		return ret;
	}
	fprintf(out, "ns per uncontended acquisition + release of a page's "
		"range, one thread%s,\nmedian of %d round%s (min..max); ratio "
		"to rwsem\n%-12s %-28s %-28s\n", pinned ? " on CPU 0" :
		" (not pinned)", rounds, rounds == 1 ? "" : "s", "scheme",
		"read side", "write side");
	for (int s = 0; s < lock_nschemes; s++)
		if (lock_schemes[s] == &rwsem_lock_ops)
			for (int d = 0; d < 2; d++)
				base[d] = stats_median(ns[s][d], (size_t)rounds);
	for (int s = 0; s < lock_nschemes; s++) {
		fprintf(out, "%-12s", lock_schemes[s]->name);
		for (int d = 0; d < 2; d++) {
			med[d] = stats_median(ns[s][d], (size_t)rounds);
			fprintf(out, " %7.1f (%6.1f..%6.1f) %5.2fx", med[d],
				stats_min(ns[s][d], (size_t)rounds),
				stats_max(ns[s][d], (size_t)rounds),
				base[d] > 0 ? med[d] / base[d] : 0);
		}
		fputc('\n', out);
	}
	free(ns);
	return 0;
}
