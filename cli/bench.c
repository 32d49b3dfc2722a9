/* SPDX-License-Identifier: MIT */
#include "cli/bench.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "locks/sync/rcu.h"
#include "sim/vma_tree.h"
#include "locks/sync/clock.h"

#define BENCH_BASE (1UL << 40)
#define BENCH_REPS 3

struct bench_row {
	size_t n;
	int height;
	double lookup_ns, array_ns, update_ns;
};

static uint64_t xs(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* VMA i is one page at BASE + 2i pages: a one-page gap between each. */
static unsigned long vstart(size_t i)
{
	return BENCH_BASE + 2 * i * SIM_PAGE_SIZE;
}

/* Binary search for the first range with end > addr (find_vma). */
static size_t array_find(const unsigned long *ends, size_t n, unsigned long addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ends[mid] > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static int bench_one(size_t n, long lookups, struct bench_row *row)
{
	struct sim_vma *v = malloc(n * sizeof(*v));
	unsigned long *ends = malloc(n * sizeof(*ends));
	unsigned long *addrs = malloc((size_t)lookups * sizeof(*addrs));
	struct vma_tree t;
	uint64_t seed = 0x1234567 + n;
	volatile uintptr_t sink = 0;
	int ret = -ENOMEM;

	if (!v || !ends || !addrs || vma_tree_init(&t))
		goto out;
	vma_tree_begin(&t);
	for (size_t i = 0; i < n; i++) {
		v[i] = (struct sim_vma){ .vm_start = vstart(i),
			.vm_end = vstart(i) + SIM_PAGE_SIZE, .vm_flags = VM_READ,
			.vm_file = SIM_FILE_NONE };
		ends[i] = v[i].vm_end;
		if (vma_tree_insert(&t, &v[i])) {
			vma_tree_abort(&t);
			goto out_tree;
		}
	}
	vma_tree_commit(&t);
	for (long i = 0; i < lookups; i++)
		addrs[i] = vstart(xs(&seed) % n) + (xs(&seed) % (2 * SIM_PAGE_SIZE));

	row->n = n;
	row->height = vma_tree_height(&t);
	row->lookup_ns = row->array_ns = row->update_ns = 1e18;
	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0 = mono_s(), dt;

		sim_rcu_read_lock();
		for (long i = 0; i < lookups; i++)
			sink += (uintptr_t)vma_tree_find(&t, addrs[i]);
		sim_rcu_read_unlock();
		dt = (mono_s() - t0) * 1e9 / (double)lookups;
		if (dt < row->lookup_ns)
			row->lookup_ns = dt;

		t0 = mono_s();
		for (long i = 0; i < lookups; i++)
			sink += array_find(ends, n, addrs[i]);
		dt = (mono_s() - t0) * 1e9 / (double)lookups;
		if (dt < row->array_ns)
			row->array_ns = dt;

		t0 = mono_s();
		for (long i = 0; i < lookups / 20; i++) {
			struct sim_vma *x = &v[xs(&seed) % n];

			vma_tree_begin(&t);
			vma_tree_erase(&t, x);
			vma_tree_commit(&t);
			vma_tree_begin(&t);
			vma_tree_insert(&t, x);
			vma_tree_commit(&t);
		}
		dt = (mono_s() - t0) * 1e9 / (double)(lookups / 20);
		if (dt < row->update_ns)
			row->update_ns = dt;
	}
	(void)sink;
	ret = 0;
out_tree:
	vma_tree_destroy(&t, NULL);
out:
	free(v);
	free(ends);
	free(addrs);
	return ret;
}

int bench_tree_run(FILE *out, const size_t *sizes, int nsizes, long lookups)
{
	struct bench_row *rows = calloc((size_t)nsizes, sizeof(*rows));
	int i1000 = -1, i65530 = -1;

	if (!rows)
		return -ENOMEM;
	fprintf(out, "vmsim bench tree: RCU B+tree (15 slots/node) vs binary search "
		"over a sorted array of the same ranges;\n"
		"%ld random lookups per size, best of %d; one-page VMAs with "
		"one-page gaps\n\n", lookups, BENCH_REPS);
	fprintf(out, "%10s %7s %14s %14s %18s\n", "VMAs", "height", "lookup ns/op",
		"array ns/op", "erase+insert ns");
	for (int i = 0; i < nsizes; i++) {
		int ret = bench_one(sizes[i], lookups, &rows[i]);

		if (ret) {
			free(rows);
			return ret;
		}
		fprintf(out, "%10zu %7d %14.1f %14.1f %18.1f\n", rows[i].n,
			rows[i].height, rows[i].lookup_ns, rows[i].array_ns,
			rows[i].update_ns);
		if (sizes[i] == 1000)
			i1000 = i;
		if (sizes[i] == 65530)
			i65530 = i;
	}
	fprintf(out, "\n");
	if (i1000 >= 0 && i65530 >= 0)
		fprintf(out, "lookup ratio 65530/1000 VMAs: %.2f\n",
			rows[i65530].lookup_ns / rows[i1000].lookup_ns);
	if (i65530 >= 0)
		fprintf(out, "lookup ratio tree/sorted-array at 65530 VMAs: %.2f\n",
			rows[i65530].lookup_ns / rows[i65530].array_ns);
	free(rows);
	return 0;
}

bool bench_pin_cpu0(cpu_set_t *old)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return !sched_getaffinity(0, sizeof(*old), old) &&
	       !sched_setaffinity(0, sizeof(set), &set);
}

void bench_unpin(bool pinned, const cpu_set_t *old)
{
	if (pinned)
		sched_setaffinity(0, sizeof(*old), old);
}
