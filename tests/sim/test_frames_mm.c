/* SPDX-License-Identifier: MIT */
/*
 * Frames behind the simulated mm, under every scheme, zone and pcp, 4K
 * pages and 64K folios, both fault sources: a seeded sequence of mmaps,
 * MAP_POPULATE, page touches (faults), MADV_DONTNEED, PROT_NONE and
 * munmaps, and after
 * every step the allocator's invariants (sim/mem/frames_check.c) with the
 * references each folio must hold counted from the mm's page -> frame
 * map: every frame is free on exactly one list or belongs to a folio
 * whose references are exactly its mapped pages, and no frame is mapped
 * twice. At the end, with every mapping gone, every frame is free.
 *
 * Each case also takes its VMAs and tree nodes from one of the slab
 * choices (--slab malloc, slub, sheaves with each --rcu-free variant;
 * every scheme meets every one): every 60 steps, once the RCU callbacks
 * have run, each cache's invariants (sim/mem/slab_check.c: every object free
 * in exactly one place or live, as many live as the mm holds — the VMAs
 * exactly those in the tree), and once the mm is gone, every object free.
 */
#include "sim/faults/sources.h"
#include "tests/check_util.h"
#include "tests/uffd/uffd_util.h"
#include <stdlib.h>
#include <string.h>

#include "sim/fault.h"
#include "sim/mm.h"
#include "tests/sim/test_tree.h"

#define P SIM_PAGE_SIZE
#define NFR 4096                         /* 16 MiB of frames */
#define AREA (4UL << 20)                 /* each mapping */

static unsigned rnd(unsigned *s, unsigned n)
{
	return (unsigned)rand_r(s) % n;
}

/* References each folio must hold, from the page map; NULL (and why) if
 * a frame is mapped twice. */
static const char *expected_refs(struct sim_mm *mm, uint16_t *refs)
{
	struct frames *fr = mm->cfg.frames;
	size_t n = (mm->end - mm->base) >> SIM_PAGE_SHIFT;
	static uint8_t mapped[NFR];

	memset(refs, 0, sizeof(*refs) * NFR);
	memset(mapped, 0, sizeof(mapped));
	for (size_t i = 0; i < n; i++) {
		uint32_t f = mm->page_frame[i];

		if (!f)
			continue;
		if (mapped[f - 1]++)
			return "a frame is mapped by two pages";
		refs[frames_head(fr, f - 1)]++;
	}
	return NULL;
}

static void check(struct sim_mm *mm, uint16_t *refs, const char *what, int step)
{
	const char *bad = expected_refs(mm, refs);

	if (!bad)
		bad = frames_check(mm->cfg.frames, refs);
	ck_assert_msg(!bad, "%s/%s/%s folio %zuK step %d (%s): %s",
		      mm->lock->ops->name, frames_mode_name(mm->cfg.frames->mode),
		      mm->src->ops->name, mm->cfg.folio_size >> 10, step, what, bad);
}

/* The slab caches' invariants, once RCU has freed what it holds. */
static void check_slabs(struct sim_mm *mm, int step)
{
	const char *bad = NULL;

	if (!mm->cfg.slab_vma)
		return;
	objpool_rcu_barrier(&mm->vmas);
	objpool_rcu_barrier(&mm->tree.nodes);
	ck_assert_uint_eq(objpool_live(&mm->vmas), vma_tree_count(&mm->tree));
	bad = slab_check(mm->cfg.slab_vma, NULL, objpool_live(&mm->vmas));
	if (!bad)
		bad = slab_check(mm->cfg.slab_node, NULL,
				 objpool_live(&mm->tree.nodes));
	ck_assert_msg(!bad, "%s/%s/%s step %d: %s", mm->lock->ops->name,
		      mm->src->ops->name,
		      slab_kind_name(mm->cfg.slab_vma->kind), step, bad);
}

static void one_run(const struct lock_ops *ops, const struct fault_source_ops *src,
		    enum frames_mode mode, size_t folio, int slab)
{
	struct frames *fr;
	struct sim_mm_cfg cfg = { .tree = test_tree(),
		.lock = ops, .arena_size = 64UL << 20,
				  .source = src,
				  .folio_size = folio };
	struct sim_mm *mm;
	uint16_t *refs = calloc(NFR, sizeof(*refs));
	unsigned long maps[4] = { 0 };
	unsigned seed = 7;

	ck_assert_ptr_nonnull(refs);
	ck_assert_int_eq(frames_create(mode, FRAMES_TWOPASS, NFR, 2, &fr), 0);
	cfg.frames = fr;
	/* slab 0: malloc; 1: slub; 2..4: sheaves, each --rcu-free. */
	ck_assert_int_eq(sim_mm_slabs_create(&cfg, slab > 2 ? SLAB_SHEAVES :
					     (enum slab_kind)slab,
					     (enum slab_rcu_free)(slab > 2 ? slab - 2 : 0),
					     2, &cfg.slab_vma, &cfg.slab_node), 0);
	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	for (int step = 0; step < check_steps(300); step++) {
		int k = (int)rnd(&seed, 4), op = (int)rnd(&seed, 10);
		unsigned long a = maps[k], off = rnd(&seed, AREA / P) * P;
		size_t len = (1 + rnd(&seed, 64)) * P;
		unsigned char v = 1;
		const char *what;

		if (off + len > AREA)
			len = AREA - off;
		if (!a) {
			what = "mmap";
			/* every other one populated (frames at once) */
			ck_assert_int_eq(sim_do_mmap(mm, 0, AREA, PROT_READ | PROT_WRITE,
						     MAP_PRIVATE | MAP_ANONYMOUS |
						     (op % 2 ? MAP_POPULATE : 0),
						     SIM_FILE_NONE, 0, &maps[k]), 0);
		} else if (op < 6) {
			what = "touch";
			for (unsigned long x = a + off; x < a + off + len; x += 4 * P)
				sim_touch(mm, x, true, &v);
		} else if (op < 8) {
			what = "madvise";
			ck_assert_int_eq(sim_do_madvise(mm, a + off, len,
							MADV_DONTNEED), 0);
		} else if (op < 9) {
			what = "mprotect";
			ck_assert_int_eq(sim_do_mprotect(mm, a, AREA, PROT_NONE), 0);
			ck_assert_int_eq(sim_do_mprotect(mm, a, AREA,
					 PROT_READ | PROT_WRITE), 0);
		} else {
			what = "munmap";
			ck_assert_int_eq(sim_do_munmap(mm, a, AREA), 0);
			maps[k] = 0;
		}
		check(mm, refs, what, step);
		if (step % 60 == 0)
			check_slabs(mm, step);
	}
	for (int k = 0; k < 4; k++)
		if (maps[k])
			ck_assert_int_eq(sim_do_munmap(mm, maps[k], AREA), 0);
	check(mm, refs, "all unmapped", -1);
	check_slabs(mm, -1);
	ck_assert_uint_eq(frames_counter(fr, FRAMES_PGALLOC),
			  frames_counter(fr, FRAMES_PGFREE));
	ck_assert_uint_gt(frames_counter(fr, FRAMES_PGALLOC), 0);
	sim_mm_stop_handlers(mm);
	sim_mm_destroy(mm);
	for (int c = 0; cfg.slab_vma && c < 2; c++) {
		struct slab_cache *sc = c ? cfg.slab_node : cfg.slab_vma;
		const char *bad = slab_check(sc, NULL, 0);

		ck_assert_msg(!bad, "%s: after the mm: %s", sc->name, bad);
		slab_cache_destroy(sc);
	}
	frames_destroy(fr);
	free(refs);
}

/* _i: scheme x (zone, pcp) x (4K, 64K), the slab choice turning with
 * _i (each scheme's four cases meet malloc, slub and sheaves). */
static void run_case(int i, const struct fault_source_ops *src)
{
	one_run(lock_schemes[i / 4], src, i % 2 ? FRAMES_PCP : FRAMES_ZONE,
		(i / 2) % 2 ? 64UL << 10 : P,
		i % 3 ? 1 + (i / 3 + i) % 4 : 0);
}

START_TEST(test_synthetic) { run_case(_i, &synthetic_fault_source); }
END_TEST
START_TEST(test_uffd) { run_case(_i, &uffd_fault_source); }
END_TEST

int main(void)
{
	Suite *s = suite_create("frames_mm");
	TCase *tc = tcase_create("frames_mm");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_synthetic, 0, 4 * lock_nschemes);
	ADD_UFFD_TESTS(tc, test_uffd, 4 * lock_nschemes);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
