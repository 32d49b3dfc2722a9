/* SPDX-License-Identifier: MIT */
/*
 * Property test: a long run of seeded random mmap / munmap / mprotect /
 * madvise / brk calls on the simulated mm, checked after every step
 * against a trivial reference model — an array with one entry per page
 * (mapped?, flags, file, file page). In the model a VMA is simply a
 * maximal run of pages that could be one VMA (same flags and file,
 * consecutive file pages), which is what the real code's merging must
 * produce. Same VMAs, same merges, same errors, same break, same mapped
 * page count, at every step.
 *
 * VMSIM_PROPERTY_OPS (default 150000) and VMSIM_PROPERTY_SEED (default
 * 1) reproduce a run; a failure prints the seed and the step.
 *
 * Beside the operations, a reader thread races every one of them as the
 * schemes' lock-free readers do: it faults pages in (pervma's
 * lock_vma_under_rcu, spf's speculation: the fault path of the scheme)
 * and looks VMAs up under RCU alone; a lookup must find a VMA that holds
 * the address (and, where VMAs are not reused at once, a VMA whose own
 * range holds the range the tree keeps for it), whatever half of a
 * split, merge or protection change it meets — on the maple tree, whose
 * stores it sees one by one, as on vmsim's.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/faults/sources.h"
#include "tests/sim/recording_scheme.h"
#include "sim/fault.h"
#include "sim/mm.h"
#include "locks/sync/rcu.h"
#include "tests/sim/test_tree.h"

#define NP     1024                      /* pages in the arena */
#define P      SIM_PAGE_SIZE

struct mpage {
	bool mapped;
	unsigned long flags;
	int file;
	unsigned long pgoff;             /* file page of this page */
};

struct model {
	struct mpage pg[NP];
	unsigned long base, start_brk, brk;
	size_t max_map_count;
};

static unsigned long rnd_state;

static unsigned long rnd(unsigned long n)
{
	/* xorshift64*: reproducible across libcs. */
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (rnd_state * 0x2545F4914F6CDD1DULL) % n;
}

static bool pg_joins(const struct mpage *a, const struct mpage *b)
{
	return a->mapped && b->mapped && a->flags == b->flags &&
	       a->file == b->file && a->pgoff + 1 == b->pgoff;
}

static size_t model_vmas(const struct model *m)
{
	size_t n = 0;

	for (int i = 0; i < NP; i++)
		if (m->pg[i].mapped && (i == 0 || !pg_joins(&m->pg[i - 1], &m->pg[i])))
			n++;
	return n;
}

static unsigned long pidx(const struct model *m, unsigned long addr)
{
	return (addr - m->base) / P;
}

static bool in_arena(const struct model *m, unsigned long s, size_t len)
{
	return len && !(s % P) && s >= m->base && s < m->base + NP * P &&
	       len <= m->base + NP * P - s;
}

/* Commit a candidate state unless it adds VMAs beyond the limit. */
static int model_commit(struct model *m, const struct model *cand)
{
	size_t after = model_vmas(cand);

	if (after > m->max_map_count && after > model_vmas(m))
		return -ENOMEM;
	memcpy(m->pg, cand->pg, sizeof(m->pg));
	return 0;
}

static bool range_free(const struct model *m, unsigned long s, size_t len)
{
	for (unsigned long i = pidx(m, s); i < pidx(m, s + len); i++)
		if (m->pg[i].mapped)
			return false;
	return true;
}

static int model_mmap(struct model *m, unsigned long addr, size_t len,
		      int prot, int flags, int file, unsigned long pgoff,
		      unsigned long *out)
{
	static struct model c;
	unsigned long start = 0, vflags;

	if (!len)
		return -EINVAL;
	if (len > NP * P)
		return -ENOMEM;
	len = (len + P - 1) / P * P;
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (addr % P)
			return -EINVAL;
		if (!in_arena(m, addr, len))
			return -ENOMEM;
		if ((flags & MAP_FIXED_NOREPLACE) && !range_free(m, addr, len))
			return -EEXIST;
		start = addr;
	} else {
		addr = addr / P * P;
		if (addr && in_arena(m, addr, len) && range_free(m, addr, len)) {
			start = addr;
		} else {
			/* Highest free aligned run at or above the break. */
			unsigned long lo = (m->brk + P - 1) / P * P, s;
			bool found = false;

			for (s = m->base + NP * P - len; s >= lo && s >= m->base; s -= P) {
				if (range_free(m, s, len)) {
					found = true;
					break;
				}
				if (s < P)
					break;
			}
			if (!found)
				return -ENOMEM;
			start = s;
		}
	}
	vflags = sim_prot_to_flags(prot) | ((flags & MAP_SHARED) ? VM_SHARED : 0);
	c = *m;
	for (unsigned long i = 0; i < len / P; i++) {
		struct mpage *p = &c.pg[pidx(m, start) + i];

		p->mapped = true;
		p->flags = vflags;
		p->file = file;
		p->pgoff = file == SIM_FILE_NONE ? start / P + i : pgoff + i;
	}
	if (model_commit(m, &c))
		return -ENOMEM;
	*out = start;
	return 0;
}

static int model_munmap(struct model *m, unsigned long s, size_t len)
{
	static struct model c;

	if (len > NP * P)
		return -EINVAL;
	len = (len + P - 1) / P * P;
	if (!in_arena(m, s, len))
		return -EINVAL;
	c = *m;
	for (unsigned long i = pidx(m, s); i < pidx(m, s + len); i++)
		c.pg[i].mapped = false;
	return model_commit(m, &c);
}

/* mprotect's and madvise's argument checks: -EINVAL, -ENOMEM, 0 for an
 * empty range (nothing to do), or 1 with *len rounded to pages. */
static int range_args(const struct model *m, unsigned long s, size_t *len)
{
	if (s % P)
		return -EINVAL;
	if (!*len)
		return 0;
	*len = (*len + P - 1) / P * P;
	return in_arena(m, s, *len) ? 1 : -ENOMEM;
}

static int model_mprotect(struct model *m, unsigned long s, size_t len, int prot)
{
	static struct model c;
	int ret = range_args(m, s, &len);

	if (ret <= 0)
		return ret;
	c = *m;
	for (unsigned long i = pidx(m, s); i < pidx(m, s + len); i++) {
		if (!c.pg[i].mapped)
			return -ENOMEM;
		c.pg[i].flags = (c.pg[i].flags & ~VM_ACCESS_FLAGS) | sim_prot_to_flags(prot);
	}
	return model_commit(m, &c);
}

static int model_madvise(struct model *m, unsigned long s, size_t len)
{
	int ret = range_args(m, s, &len);

	if (ret <= 0)
		return ret;
	for (unsigned long i = pidx(m, s); i < pidx(m, s + len); i++)
		if (!m->pg[i].mapped)
			return -ENOMEM;
	return 0;
}

static int model_brk(struct model *m, unsigned long nb, unsigned long *out)
{
	static struct model c;
	unsigned long lo, hi;

	*out = m->brk;
	if (!nb || nb == m->brk)
		return 0;
	if (nb < m->start_brk || nb > m->base + NP * P)
		return -ENOMEM;
	lo = ((m->brk < nb ? m->brk : nb) + P - 1) / P * P;
	hi = ((m->brk < nb ? nb : m->brk) + P - 1) / P * P;
	c = *m;
	if (lo < hi && nb > m->brk) {
		if (!range_free(m, lo, hi - lo))
			return -ENOMEM;
		for (unsigned long i = pidx(m, lo); i < pidx(m, hi); i++)
			c.pg[i] = (struct mpage){ true, VM_READ | VM_WRITE | VM_HEAP,
						  SIM_FILE_NONE, (m->base + i * P) / P };
	} else if (lo < hi) {
		for (unsigned long i = pidx(m, lo); i < pidx(m, hi); i++)
			c.pg[i].mapped = false;
	}
	if (model_commit(m, &c))
		return -ENOMEM;
	m->brk = nb;
	*out = nb;
	return 0;
}

struct cmp_ctx {
	const struct model *m;
	int i;                           /* next model page to compare */
	char why[200];
};

/* Compare one real VMA against the model's next run of pages. */
static int cmp_vma(struct sim_vma *v, void *arg)
{
	struct cmp_ctx *c = arg;
	const struct model *m = c->m;
	int i = c->i;

	while (i < NP && !m->pg[i].mapped)
		i++;
	if (i == NP || v->vm_start != m->base + (unsigned long)i * P) {
		snprintf(c->why, sizeof(c->why), "VMA [%#lx,%#lx) where the model "
			 "has its next run at page %d", v->vm_start - m->base,
			 v->vm_end - m->base, i);
		return 1;
	}
	if (v->vm_flags != m->pg[i].flags || v->vm_file != m->pg[i].file ||
	    v->vm_pgoff != m->pg[i].pgoff) {
		snprintf(c->why, sizeof(c->why), "VMA at page %d: flags %#lx file %d "
			 "pgoff %lu, model %#lx %d %lu", i, v->vm_flags, v->vm_file,
			 v->vm_pgoff, m->pg[i].flags, m->pg[i].file, m->pg[i].pgoff);
		return 1;
	}
	do
		i++;
	while (i < NP && pg_joins(&m->pg[i - 1], &m->pg[i]));
	if (v->vm_end != m->base + (unsigned long)i * P) {
		snprintf(c->why, sizeof(c->why), "VMA at %#lx ends at page %lu, "
			 "model run ends at page %d", v->vm_start - m->base,
			 (v->vm_end - m->base) / P, i);
		return 1;
	}
	c->i = i;
	return 0;
}

static int check_same(struct sim_mm *mm, const struct model *m, char *why,
		      size_t len)
{
	struct cmp_ctx c = { .m = m };
	size_t pages = 0;
	int ret;

	sim_rcu_read_lock();
	ret = vma_tree_for_each(&mm->tree, mm->base, mm->end, cmp_vma, &c);
	sim_rcu_read_unlock();
	if (ret) {
		snprintf(why, len, "%s", c.why);
		return 1;
	}
	for (int i = c.i; i < NP; i++)
		if (m->pg[i].mapped) {
			snprintf(why, len, "model has page %d mapped past the last VMA", i);
			return 1;
		}
	for (int i = 0; i < NP; i++)
		pages += m->pg[i].mapped;
	if (vma_tree_count(&mm->tree) != model_vmas(m) ||
	    atomic_load(&mm->map_pages) != pages || mm->brk != m->brk) {
		snprintf(why, len, "counts: vmas %zu/%zu pages %lu/%zu brk %#lx/%#lx",
			 vma_tree_count(&mm->tree), model_vmas(m),
			 (unsigned long)atomic_load(&mm->map_pages), pages,
			 mm->brk - m->base, m->brk - m->base);
		return 1;
	}
	return 0;
}

static unsigned long rnd_addr(const struct model *m)
{
	/* Mostly in the arena, sometimes just outside or unaligned. */
	unsigned long a = m->base + rnd(NP + 8) * P;

	if (rnd(50) == 0)
		a += rnd(P);
	if (rnd(100) == 0)
		a = m->base - P * (1 + rnd(4));
	return a;
}

static size_t rnd_len(void)
{
	size_t l = (1 + rnd(rnd(8) ? 8 : 64)) * P;

	if (rnd(40) == 0)
		l -= 1 + rnd(P - 1);             /* not a page multiple */
	if (rnd(200) == 0)
		l = 0;
	return l;
}

/* --- what a refined mprotect locks covers what it changes ------------------ */

/* A VMA as the layout had it: the object and its range and flags (the
 * object alone could be freed and reused within one operation). */
struct vma_seen {
	const struct sim_vma *v;
	unsigned long start, end, flags;
};

struct layout {
	struct vma_seen vma[NP + 1];
	int n;
};

static int layout_add(struct sim_vma *v, void *arg)
{
	struct layout *l = arg;

	l->vma[l->n++] = (struct vma_seen){ v, v->vm_start, v->vm_end,
					    v->vm_flags };
	return l->n > NP;
}

static void layout_take(struct sim_mm *mm, struct layout *l)
{
	l->n = 0;
	sim_rcu_read_lock();
	vma_tree_for_each(&mm->tree, mm->base, mm->end, layout_add, l);
	sim_rcu_read_unlock();
}

static bool layout_has(const struct layout *l, const struct vma_seen *x)
{
	for (int i = 0; i < l->n; i++)
		if (!memcmp(&l->vma[i], x, sizeof(*x)))
			return true;
	return false;
}

/* Mprotects whose change reached past the span sim_mprotect_span gave
 * before it (what --mprotect-range refined locks), and the first. */
static long span_breaches;
static char span_why[160];

/* Every VMA the mprotect removed or added lies in [lo, hi). */
static void span_check(const struct layout *a, const struct layout *b,
		       unsigned long lo, unsigned long hi, unsigned long base)
{
	for (int k = 0; k < 2; k++) {
		const struct layout *x = k ? b : a, *y = k ? a : b;

		for (int i = 0; i < x->n; i++) {
			const struct vma_seen *v = &x->vma[i];

			if (layout_has(y, v) || (v->start >= lo && v->end <= hi))
				continue;
			if (!span_breaches++)
				snprintf(span_why, sizeof(span_why), "VMA [%#lx, %#lx) "
					 "%s outside the span [%#lx, %#lx)",
					 v->start - base, v->end - base,
					 k ? "added" : "removed", lo - base, hi - base);
		}
	}
}

/* mprotect, with what a refined mprotect would lock checked against
 * what it changed. */
static int mprotect_checked(struct sim_mm *mm, unsigned long a, size_t len,
			    int prot)
{
	static struct layout before, after;
	unsigned long lo = 0, hi = 0, end = a + ((len + P - 1) & ~(P - 1));
	bool inside = len && !(a & (P - 1)) && a >= mm->base && end > a &&
		      end <= mm->end;
	int r;

	if (inside) {
		layout_take(mm, &before);
		sim_mprotect_span(mm, a, end, &lo, &hi);
	}
	r = sim_do_mprotect(mm, a, len, prot);
	if (inside) {
		layout_take(mm, &after);
		span_check(&before, &after, lo, hi, mm->base);
	}
	return r;
}

/* Operation op (0-5) on vmsim and on the model; vmsim's result, the
 * model's in *r2, their outputs in *o1 and *o2. */
static int one_op(struct sim_mm *mm, struct model *m, int op, unsigned long a,
		  size_t len, unsigned long *o1, unsigned long *o2, int *r2)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE,
				     PROT_READ | PROT_EXEC };
	int r1 = 0;

	switch (op) {
	case 0:
	case 1: {
		int prot = prots[rnd(4)];
		int fl = (int)rnd(4);
		int flags = MAP_PRIVATE | (fl == 1 ? MAP_FIXED :
			    fl == 2 ? MAP_FIXED_NOREPLACE : 0);
		int file = rnd(3) ? SIM_FILE_NONE : (int)rnd(3);
		unsigned long pgoff = rnd(3) ? (a - m->base) / P : rnd(NP);

		if (fl == 3)
			flags |= MAP_SHARED;
		if (fl == 0 && rnd(2))
			a = 0;
		r1 = sim_do_mmap(mm, a, len, prot, flags, file, pgoff, o1);
		*r2 = model_mmap(m, a, len, prot, flags, file, pgoff, o2);
		break;
	}
	case 2:
		r1 = sim_do_munmap(mm, a, len);
		*r2 = model_munmap(m, a, len);
		break;
	case 3: {
		int prot = prots[rnd(4)];

		r1 = mprotect_checked(mm, a, len, prot);
		*r2 = model_mprotect(m, a, len, prot);
		break;
	}
	case 4:
		r1 = sim_do_madvise(mm, a, len, MADV_DONTNEED);
		*r2 = model_madvise(m, a, len);
		break;
	case 5: {
		unsigned long nb = m->start_brk + rnd(40 * P);

		if (rnd(20) == 0)
			nb = 0;
		r1 = sim_do_brk(mm, nb, o1);
		*r2 = model_brk(m, nb, o2);
		break;
	}
	}
	return r1;
}

/* The recording scheme's verdict on the run: 0, or 1 if it saw no write
 * section or a VMA changed without vma_start_write. */
static int recording_verdict(struct sim_mm *mm)
{
	long sections, breaches;
	char why[256];

	recording_result(mm->lock, &sections, &breaches, why, sizeof(why));
	printf("recording: %ld write sections, %ld VMAs changed without "
	       "vma_start_write%s%s\n", sections, breaches,
	       breaches ? ": first: " : "", why);
	return !sections || breaches;
}

struct racer {
	struct sim_mm *mm;
	_Atomic int stop;
	_Atomic long reads, bad;
};

static void *racer(void *arg)
{
	struct racer *r = arg;
	struct sim_mm *mm = r->mm;
	unsigned seed = 12345;

	while (!atomic_load(&r->stop)) {
		unsigned long a = mm->base + (rand_r(&seed) % NP) * P + 8, s, e;
		unsigned char v;
		struct sim_vma *vma;

		if (atomic_load(&r->reads) % 8 == 0)   /* 0 or -EFAULT */
			(void)sim_touch(mm, a, false, &v);
		sim_rcu_read_lock();
		vma = vma_tree_find_range(&mm->tree, a, &s, &e);
		if (vma && (s > a || e <= a || (s | e) & ~SIM_PAGE_MASK ||
			    (!mm->vma_typesafe &&
			     (vma->vm_start > s || vma->vm_end < e))))
			atomic_fetch_add(&r->bad, 1);
		sim_rcu_read_unlock();
		/* A pause now and then: it races, without halving the run. */
		if (atomic_fetch_add(&r->reads, 1) % 16 == 15)
			nanosleep(&(struct timespec){ 0, 50000 }, NULL);
	}
	return NULL;
}

/* nops random operations on vmsim under ops (mprotect locked as mp
 * says, where the scheme has the choice) and on the model. */
static int run(const struct lock_ops *ops, enum lock_mprotect_range mp,
	       long nops, unsigned long seed)
{
	static struct model m;
	struct sim_mm_cfg cfg = { .tree = test_tree(),
		.lock = ops, .arena_size = NP * P,
		.source = &synthetic_fault_source, .mprotect_range = mp,
	};
	long counts[6] = { 0 }, errs = 0;
	struct racer rc = { 0 };
	pthread_t rt;
	struct sim_mm *mm;
	char why[256];

	rnd_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	if (sim_mm_create(&cfg, &mm)) {
		fprintf(stderr, "cannot create mm\n");
		return 1;
	}
	memset(&m, 0, sizeof(m));
	if (ops == &recording_lock_ops)
		recording_attach(mm->lock, mm);
	m.base = mm->base;
	m.start_brk = m.brk = mm->brk;
	rc.mm = mm;
	if (pthread_create(&rt, NULL, racer, &rc)) {
		fprintf(stderr, "cannot start the reader\n");
		sim_mm_destroy(mm);
		return 1;
	}
	for (long step = 0; step < nops; step++) {
		/* Alternate a tight and a loose VMA limit to exercise ENOMEM. */
		size_t limit = (step / 50000) % 2 ? 24 : 100000;
		int op = (int)rnd(6), r1 = 0, r2 = 0;
		unsigned long a = rnd_addr(&m), o1 = 0, o2 = 0;
		size_t len = rnd_len();

		m.max_map_count = mm->cfg.max_map_count = limit;
		counts[op]++;
		r1 = one_op(mm, &m, op, a, len, &o1, &o2, &r2);
		if (r1)
			errs++;
		if (r1 != r2 || o1 != o2 || check_same(mm, &m, why, sizeof(why))) {
			if (r1 != r2 || o1 != o2)
				snprintf(why, sizeof(why), "op %d returned %d (out %#lx), "
					 "model %d (out %#lx)", op, r1, o1 - m.base,
					 r2, o2 - m.base);
			printf("FAIL: seed %lu step %ld: %s\n", seed, step, why);
			atomic_store(&rc.stop, 1);
			pthread_join(rt, NULL);
			sim_mm_destroy(mm);
			return 1;
		}
	}
	while (!atomic_load(&rc.reads))          /* it has raced at least once */
		sched_yield();
	atomic_store(&rc.stop, 1);
	pthread_join(rt, NULL);
	if (atomic_load(&rc.bad)) {
		printf("FAIL: seed %lu: a lock-free lookup found a VMA that does "
		       "not hold its address %ld times\n", seed,
		       atomic_load(&rc.bad));
		sim_mm_destroy(mm);
		return 1;
	}
	printf("property %-10s %ld ops (mmap %ld, munmap %ld, mprotect %ld, "
	       "madvise %ld, brk %ld; %ld errors), seed %lu%s%s, %s tree, "
	       "%ld racing reads: model and vmsim agree\n", ops->name, nops,
	       counts[0] + counts[1], counts[2],
	       counts[3], counts[4], counts[5], errs, seed,
	       ops->write_begin_mprotect ? ", mprotect range " : "",
	       ops->write_begin_mprotect ? lock_mprotect_range_names[mp] : "",
	       vma_tree_kind_name(mm->cfg.tree), atomic_load(&rc.reads));
	errs = ops == &recording_lock_ops ? recording_verdict(mm) : 0;
	sim_mm_destroy(mm);
	return errs ? 1 : 0;
}

/* Every scheme against the model (the ranged mmap's guess and revalidate
 * included), and the recording scheme's check of vma_start_write. */
int main(void)
{
	const char *e = getenv("VMSIM_PROPERTY_OPS");
	const char *se = getenv("VMSIM_PROPERTY_SEED");
	long nops = e ? atol(e) : 150000;
	unsigned long seed = se ? strtoul(se, NULL, 0) : 1;
	int fails = 0;

	for (int i = 0; i < lock_nschemes; i++)
		fails += run(lock_schemes[i], LOCK_MPROTECT_EXACT, nops, seed) != 0;
	/* The other mprotect ranges of the schemes that choose one. */
	for (int i = 0; i < lock_nschemes; i++)
		for (int mp = LOCK_MPROTECT_FULL; lock_schemes[i]->write_begin_mprotect &&
		     mp < LOCK_MPROTECT_N; mp++)
			fails += run(lock_schemes[i], (enum lock_mprotect_range)mp,
				     nops / 4, seed + 1) != 0;
	fails += run(&recording_lock_ops, LOCK_MPROTECT_EXACT, nops, seed) != 0;
	/* Every mprotect above stayed inside the refined span found before
	 * it (the VMA holding start - 1 and the one holding end: split or
	 * merged, and no other). */
	printf("refined spans: %ld mprotects changed a VMA outside the span%s%s\n",
	       span_breaches, span_breaches ? ": first: " : "", span_why);
	fails += span_breaches != 0;
	return fails ? 1 : 0;
}
