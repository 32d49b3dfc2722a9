/* SPDX-License-Identifier: MIT */
#include "bench/bench.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "locks/sync/rcu.h"
#include "sim/faults/sources.h"
#include "sim/mm.h"
#include "sim/vma_tree.h"
#include "base/clock.h"

#define BENCH_BASE (1UL << 40)
#define BENCH_REPS 3

struct bench_row {
	size_t n;
	int height;
	double lookup_ns, array_ns, update_ns;
	double nodes;                    /* nodes used an erase + insert */
	size_t node_bytes;
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

/* The two trees (maple where it was built) and the array. */
struct bench_set {
	size_t n;
	long lookups;
	int ntrees;
	enum vma_tree_kind kind[2];
	struct vma_tree t[2];
	struct sim_vma *v[2];
	unsigned long *ends, *addrs;
};

static int bench_fill(struct bench_set *b, int k)
{
	struct vma_tree *t = &b->t[k];
	int ret = b->kind[k] == VMA_TREE_MAPLE ?
		  vma_tree_init_maple(t, 1UL << 22, NULL, NULL) :
		  vma_tree_init_cap(t, 1UL << 22);

	if (ret)
		return ret;
	vma_tree_begin(t);
	for (size_t i = 0; i < b->n; i++) {
		b->v[k][i] = (struct sim_vma){ .vm_start = vstart(i),
			.vm_end = vstart(i) + SIM_PAGE_SIZE, .vm_flags = VM_READ,
			.vm_file = SIM_FILE_NONE };
		if ((ret = vma_tree_insert(t, &b->v[k][i]))) {
			vma_tree_abort(t);
			return ret;
		}
	}
	vma_tree_commit(t);
	return 0;
}

/* One round of tree k: lookups, then erase + insert pairs. */
static void bench_round(struct bench_set *b, int k, uint64_t *seed,
			struct bench_row *row)
{
	struct vma_tree *t = &b->t[k];
	volatile uintptr_t sink = 0;
	long updates = b->lookups / 20;
	unsigned long used0 = t->node_prealloc - t->node_unused;
	double t0 = mono_s(), dt;

	sim_rcu_read_lock();
	for (long i = 0; i < b->lookups; i++)
		sink += (uintptr_t)vma_tree_find(t, b->addrs[i]);
	sim_rcu_read_unlock();
	dt = (mono_s() - t0) * 1e9 / (double)b->lookups;
	row->lookup_ns = dt < row->lookup_ns ? dt : row->lookup_ns;
	t0 = mono_s();
	for (long i = 0; i < updates; i++) {
		struct sim_vma *x = &b->v[k][xs(seed) % b->n];

		vma_tree_begin(t);
		vma_tree_erase(t, x);
		vma_tree_commit(t);
		vma_tree_begin(t);
		vma_tree_insert(t, x);
		vma_tree_commit(t);
	}
	dt = (mono_s() - t0) * 1e9 / (double)updates;
	row->update_ns = dt < row->update_ns ? dt : row->update_ns;
	row->nodes = (double)(t->node_prealloc - t->node_unused - used0) /
		     (double)updates;
	(void)sink;
}

static void bench_array_round(struct bench_set *b, struct bench_row *row)
{
	volatile uintptr_t sink = 0;
	double t0 = mono_s(), dt;

	for (long i = 0; i < b->lookups; i++)
		sink += array_find(b->ends, b->n, b->addrs[i]);
	dt = (mono_s() - t0) * 1e9 / (double)b->lookups;
	for (int k = 0; k < b->ntrees; k++)
		row[k].array_ns = dt < row[k].array_ns ? dt : row[k].array_ns;
	(void)sink;
}

/* Every tree of b at one size, the rounds interleaved (tree order
 * rotated each round); rows[k] for tree k. */
static int bench_one(struct bench_set *b, struct bench_row *rows)
{
	uint64_t seed = 0x1234567 + b->n;
	int ret = -ENOMEM, made = 0;

	b->ends = malloc(b->n * sizeof(*b->ends));
	b->addrs = malloc((size_t)b->lookups * sizeof(*b->addrs));
	for (int k = 0; k < b->ntrees; k++)
		b->v[k] = malloc(b->n * sizeof(*b->v[k]));
	if (!b->ends || !b->addrs || !b->v[0] || (b->ntrees > 1 && !b->v[1]))
		goto out;
	for (; made < b->ntrees; made++)
		if ((ret = bench_fill(b, made)))
			goto out;
	for (size_t i = 0; i < b->n; i++)
		b->ends[i] = vstart(i) + SIM_PAGE_SIZE;
	for (long i = 0; i < b->lookups; i++)
		b->addrs[i] = vstart(xs(&seed) % b->n) + (xs(&seed) % (2 * SIM_PAGE_SIZE));
	for (int k = 0; k < b->ntrees; k++)
		rows[k] = (struct bench_row){ .n = b->n,
			.height = vma_tree_height(&b->t[k]),
			.lookup_ns = 1e18, .array_ns = 1e18, .update_ns = 1e18,
			.node_bytes = b->t[k].nodes.objsize };
	for (int rep = 0; rep < BENCH_REPS; rep++) {
		for (int j = 0; j < b->ntrees; j++)
			bench_round(b, (j + rep) % b->ntrees, &seed,
				    &rows[(j + rep) % b->ntrees]);
		bench_array_round(b, rows);
	}
	ret = 0;
out:
	while (made--)
		vma_tree_destroy(&b->t[made], NULL);
	for (int k = 0; k < b->ntrees; k++)
		free(b->v[k]);
	free(b->ends);
	free(b->addrs);
	return ret;
}

/* Nodes allocated from the node cache, less those given back unused;
 * of those, the ones the stores preallocated. */
static double stress_nodes(struct slab_cache *s)
{
	return (double)(slab_counter(s, SLAB_ALLOC_FASTPATH) +
			slab_counter(s, SLAB_ALLOC_SLOWPATH) -
			slab_counter(s, SLAB_PREALLOC_UNUSED));
}

static double stress_store_nodes(struct slab_cache *s)
{
	return (double)(slab_counter(s, SLAB_PREALLOC) -
			slab_counter(s, SLAB_PREALLOC_UNUSED));
}

/* The mmap stress loop's calls (-w mmap_stress: 50 one-page mmaps of
 * alternating protection, then their munmaps) on an mm of tree kind,
 * rwsem, synthetic faults, SLUB: the nodes an mmap and a munmap used
 * (munmap's detached tree included). 0, or -errno. */
static int stress_one(enum vma_tree_kind kind, int cycles, double *mm_nodes,
		      double *mu_nodes, double *mu_store, double *mm_ns,
		      double *mu_ns)
{
	struct sim_mm_cfg cfg = { .lock = lock_scheme_find("rwsem"), .tree = kind,
				  .arena_size = 64UL << 20,
				  .source = &synthetic_fault_source };
	struct slab_cache *sv, *sn;
	double n0, n1, s1, mmn = 0, mun = 0, mus = 0, t0, t1, mmt = 0, mut = 0;
	unsigned long a[50];
	struct sim_mm *mm;
	int ret = sim_mm_slabs_create(&cfg, SLAB_SLUB, RCU_FREE_CALL_RCU, 1,
				      &sv, &sn);

	if (ret)
		return ret;
	cfg.slab_vma = sv;
	cfg.slab_node = sn;
	if ((ret = sim_mm_create(&cfg, &mm))) {
		slab_cache_destroy(sv);
		slab_cache_destroy(sn);
		return ret;
	}
	for (int c = 0; !ret && c < cycles; c++) {
		n0 = stress_nodes(sn);
		t0 = mono_s();
		for (int i = 0; !ret && i < 50; i++)
			ret = sim_do_mmap(mm, 0, SIM_PAGE_SIZE, PROT_READ | PROT_WRITE |
					  (i & 1 ? PROT_EXEC : 0),
					  MAP_PRIVATE | MAP_ANONYMOUS,
					  SIM_FILE_NONE, 0, &a[i]);
		t1 = mono_s();
		n1 = stress_nodes(sn);
		s1 = stress_store_nodes(sn);
		for (int i = 0; !ret && i < 50; i++)
			ret = sim_do_munmap(mm, a[i], SIM_PAGE_SIZE);
		mut += mono_s() - t1;
		mmt += t1 - t0;
		mmn += n1 - n0;
		mun += stress_nodes(sn) - n1;
		mus += stress_store_nodes(sn) - s1;
	}
	*mm_nodes = mmn / (50.0 * cycles);
	*mu_nodes = mun / (50.0 * cycles);
	*mu_store = mus / (50.0 * cycles);
	*mm_ns = mmt * 1e9 / (50.0 * cycles);
	*mu_ns = mut * 1e9 / (50.0 * cycles);
	sim_mm_destroy(mm);
	slab_cache_destroy(sv);
	slab_cache_destroy(sn);
	return ret;
}

static int bench_tree_stress(FILE *out, const struct bench_set *b)
{
	fprintf(out, "\nthe mmap stress loop (50 one-page mmaps, then their "
		"munmaps; rwsem, synthetic, SLUB; 2000 cycles): nodes used\n");
	fprintf(out, "%6s %10s %10s %12s %15s %10s %12s\n", "tree", "an mmap",
		"a munmap", "its store", "detached tree", "mmap ns",
		"munmap ns");
	for (int k = 0; k < b->ntrees; k++) {
		double mmn, mun, mus, mmt, mut;
		int ret = stress_one(b->kind[k], 2000, &mmn, &mun, &mus, &mmt,
				     &mut);

		if (ret)
			return ret;
		fprintf(out, "%6s %10.2f %10.2f %12.2f %15.2f %10.0f %12.0f\n",
			vma_tree_kind_name(b->kind[k]), mmn, mun, mus, mun - mus,
			mmt, mut);
	}
	return 0;
}

int bench_tree_run(FILE *out, const size_t *sizes, int nsizes, long lookups)
{
	struct bench_set b = { .lookups = lookups };
	struct bench_row rows[2];
	double first[2] = { 0 }, at64k[2] = { 0 }, arr64k[2] = { 0 };

	b.kind[b.ntrees++] = VMA_TREE_VMSIM;
	if (vma_tree_maple_built())
		b.kind[b.ntrees++] = VMA_TREE_MAPLE;
	fprintf(out, "vmsim bench tree: vmsim's RCU B+tree (15 slots/node)%s "
		"against binary search over a sorted array of the same ranges;\n"
		"%ld random lookups per size, best of %d rounds (the trees "
		"interleaved); one-page VMAs with one-page gaps;\n"
		"nodes: those an erase + insert used (allocated, less those "
		"given back unused)\n\n",
		b.ntrees > 1 ? " and the kernel's maple tree" : "", lookups,
		BENCH_REPS);
	fprintf(out, "%10s %6s %7s %13s %12s %16s %6s %7s\n", "VMAs", "tree",
		"height", "lookup ns/op", "array ns/op", "erase+insert ns",
		"nodes", "bytes");
	for (int i = 0; i < nsizes; i++) {
		int ret;

		b.n = sizes[i];
		ret = bench_one(&b, rows);
		if (ret)
			return ret;
		for (int k = 0; k < b.ntrees; k++)
			fprintf(out, "%10zu %6s %7d %13.1f %12.1f %16.1f %6.2f %7.0f\n",
				rows[k].n, vma_tree_kind_name(b.kind[k]),
				rows[k].height, rows[k].lookup_ns, rows[k].array_ns,
				rows[k].update_ns, rows[k].nodes,
				rows[k].nodes * (double)rows[k].node_bytes);
		for (int k = 0; k < b.ntrees; k++) {
			if (sizes[i] == 1000)
				first[k] = rows[k].lookup_ns;
			if (sizes[i] == 65530) {
				at64k[k] = rows[k].lookup_ns;
				arr64k[k] = rows[k].array_ns;
			}
		}
	}
	fprintf(out, "\n");
	for (int k = 0; k < b.ntrees; k++) {
		const char *name = vma_tree_kind_name(b.kind[k]);

		if (first[k] > 0 && at64k[k] > 0)
			fprintf(out, "lookup ratio 65530/1000 VMAs (%s): %.2f\n",
				name, at64k[k] / first[k]);
		if (at64k[k] > 0)
			fprintf(out, "lookup ratio tree/sorted-array at 65530 VMAs "
				"(%s): %.2f\n", name, at64k[k] / arr64k[k]);
	}
	return bench_tree_stress(out, &b);
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
