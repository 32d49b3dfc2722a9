/* SPDX-License-Identifier: MIT */
/*
 * The maps reader (sim/maps.h) against a writer that splits and merges
 * VMAs under it — the property of the kernel's selftest
 * tools/testing/selftests/proc/proc-maps-race.c, under every scheme that
 * provides exclusion, for maps, smaps and PROCMAP_QUERY, with Linux
 * 6.17's per-VMA walk and with the mmap_read_lock before it.
 *
 * The layout: NVMAS contiguous VMAs. Most are stable (two pages, r-x and
 * --x by turns: none merges with a neighbour); every CHANGE_EVERY-th is a
 * changing one, four pages rw-, whose second page a writer keeps
 * mprotect()ing read-only (a split into three) and back (a merge). Every
 * walk of the list must show
 *   - every stable VMA exactly once (it existed throughout the walk);
 *   - nothing that never existed: a changing VMA whole, or one of its
 *     three pieces, with the protection it had;
 *   - no gap (the layout has none at any moment) and ends that only
 *     grow: a VMA found again by address after a merge may overlap the
 *     piece shown before it, as the kernel's may across two reads.
 */
#include "tests/check_util.h"
#include "locks/schemes.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/faults/sources.h"
#include "sim/maps.h"
#include "sim/mm.h"
#include "tests/locks/lock_util.h"
#include "tests/sim/test_tree.h"

#define P            SIM_PAGE_SIZE
#define NVMAS        300
#define CHANGE_EVERY 7

struct layout {
	struct sim_mm *mm;
	unsigned long base, end;
	unsigned long start[NVMAS];      /* each VMA's start */
	_Atomic int stop;
	_Atomic long toggles;
};

static bool changing(int i)
{
	return i % CHANGE_EVERY == CHANGE_EVERY / 2;
}

static unsigned long pages(int i)
{
	return changing(i) ? 4 : 2;
}

static int stable_prot(int i)
{
	return PROT_EXEC | (i & 1 ? PROT_READ : 0);
}

static void layout_make(struct layout *l, struct sim_mm *mm)
{
	unsigned long len = 0, a;

	for (int i = 0; i < NVMAS; i++)
		len += pages(i) * P;
	ck_assert_int_eq(sim_do_mmap(mm, 0, len, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, SIM_FILE_NONE,
				     0, &l->base), 0);
	a = l->base;
	for (int i = 0; i < NVMAS; i++) {
		l->start[i] = a;
		if (!changing(i))
			ck_assert_int_eq(sim_do_mprotect(mm, a, pages(i) * P,
							 stable_prot(i)), 0);
		a += pages(i) * P;
	}
	l->end = a;
	l->mm = mm;
}

static void *writer(void *arg)
{
	struct layout *l = arg;

	while (!atomic_load(&l->stop))
		for (int i = 0; i < NVMAS && !atomic_load(&l->stop); i++) {
			if (!changing(i))
				continue;
			sim_do_mprotect(l->mm, l->start[i] + P, P, PROT_READ);
			sim_do_mprotect(l->mm, l->start[i] + P, P,
					PROT_READ | PROT_WRITE);
			atomic_fetch_add(&l->toggles, 1);
		}
	return NULL;
}

/* The VMA at index i as it may be shown: whole, or one of its pieces. */
static bool existed(const struct layout *l, int i, const struct sim_maps_vma *v)
{
	unsigned long s = l->start[i], rw = VM_READ | VM_WRITE;

	if (!changing(i))
		return v->start == s && v->end == s + 2 * P &&
		       v->flags == (VM_EXEC | (i & 1 ? VM_READ : 0));
	return (v->start == s && v->end == s + 4 * P && v->flags == rw) ||
	       (v->start == s && v->end == s + P && v->flags == rw) ||
	       (v->start == s + P && v->end == s + 2 * P && v->flags == VM_READ) ||
	       (v->start == s + 2 * P && v->end == s + 4 * P && v->flags == rw);
}

struct walk {
	const struct layout *l;
	unsigned long prev_end;
	int seen[NVMAS];
	long shown, bad;
	char why[160];
};

static int index_of(const struct layout *l, unsigned long addr)
{
	int lo = 0, hi = NVMAS - 1;

	while (lo < hi) {                /* the last start <= addr */
		int mid = (lo + hi + 1) / 2;

		if (l->start[mid] <= addr)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static void bad(struct walk *w, const struct sim_maps_vma *v, const char *what)
{
	if (!w->bad++)
		snprintf(w->why, sizeof(w->why), "%s: [%#lx, %#lx) flags %#lx "
			 "after an end of %#lx", what, v->start, v->end, v->flags,
			 w->prev_end);
}

static void on_vma(const struct sim_maps_vma *v, void *arg)
{
	struct walk *w = arg;
	const struct layout *l = w->l;
	int i;

	w->shown++;
	if (v->end <= l->base || v->start >= l->end)
		return bad(w, v, "a VMA outside the layout");
	i = index_of(l, v->start);
	if (!existed(l, i, v)) {
		char what[96];

		snprintf(what, sizeof(what), "a VMA that never existed (VMA %d "
			 "of the layout is at %#lx)", i, l->start[i]);
		return bad(w, v, what);
	}
	if (w->prev_end && v->end <= w->prev_end)
		bad(w, v, "an end that does not grow");
	if (w->prev_end && v->start > w->prev_end)
		bad(w, v, "a gap");
	if (!w->prev_end && v->start != l->base)
		bad(w, v, "a walk that does not start at the bottom");
	w->prev_end = v->end;
	if (!changing(i))
		w->seen[i]++;
}

static void check_walk(struct walk *w)
{
	for (int i = 0; i < NVMAS && !w->bad; i++)
		if (!changing(i) && w->seen[i] != 1) {
			snprintf(w->why, sizeof(w->why), "stable VMA %d at %#lx "
				 "shown %d times", i, w->l->start[i], w->seen[i]);
			w->bad++;
		}
	if (!w->bad && w->prev_end != w->l->end) {
		snprintf(w->why, sizeof(w->why), "the walk ended at %#lx, not "
			 "%#lx", w->prev_end, w->l->end);
		w->bad++;
	}
}

/* Walks of the list a case (fewer in the sanitizer builds). */
static int walks(void)
{
	return (int)check_steps(150);
}

static void race(const struct lock_ops *ops, enum sim_maps_kind kind,
		 bool mm_lock)
{
	/* The range schemes' mprotect locks what it may change (refined):
	 * with its own range alone (exact, the default) a merge changes
	 * the neighbours outside it, and a reader holding a neighbour's
	 * range sees the maple tree between the merge's stores — a VMA of
	 * the left two pieces that no call made (docs/fidelity.md). */
	struct sim_mm_cfg cfg = { .tree = test_tree(), .lock = ops,
		.arena_size = 16384 * P, .source = &synthetic_fault_source,
		.mprotect_range = LOCK_MPROTECT_REFINED };
	struct sim_mm *mm;
	struct sim_maps_reader *r = malloc(sizeof(*r));
	static struct layout l;
	pthread_t t;
	long total = 0;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	memset(&l, 0, sizeof(l));
	layout_make(&l, mm);
	ck_assert_int_eq(sim_maps_open(r, mm, kind, mm_lock), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, writer, &l), 0);
	/* The walks, and more until the writer has changed the layout
	 * under them (a slow build may start it late). */
	for (int n = 0; n < walks() ||
	     (!atomic_load(&l.toggles) && n < 100 * walks()); n++) {
		struct walk w = { .l = &l };

		do
			ck_assert_int_ge(sim_maps_read(r, on_vma, &w), 0);
		while (!r->wrapped);
		check_walk(&w);
		ck_assert_msg(!w.bad, "%s, %s%s, walk %d: %s", ops->name,
			      sim_maps_kind_names[kind],
			      mm_lock ? " under mmap_read_lock" : "", n, w.why);
		total += w.shown;
	}
	atomic_store(&l.stop, 1);
	pthread_join(t, NULL);
	ck_assert_int_gt(atomic_load(&l.toggles), 0);
	ck_assert_int_ge(total, (long)walks() * NVMAS * 6 / 7);
	/* Which lock the reads took: pervma's per-VMA walk where asked for,
	 * and never under the old behaviour or for smaps. */
	if (ops == &pervma_lock_ops) {
		uint64_t per_vma = scheme_counter_sum(mm->lock,
			(const char *const[]){ "maps_vma_lock",
				"maps_fallback_locked", "maps_fallback_moved", NULL });

		if (mm_lock || kind == SIM_MAPS_SMAPS)
			ck_assert_uint_eq(per_vma, 0);
		else
			ck_assert_uint_ge(per_vma, (uint64_t)total);
	}
	sim_maps_close(r);
	free(r);
	sim_mm_destroy(mm);
}

static void race_all(enum sim_maps_kind kind)
{
	for (int i = 0; i < lock_nschemes; i++) {
		const struct lock_ops *ops = lock_schemes[i];

		/* none has no exclusion: a writer and a reader at once is
		 * what the CLI refuses it. */
		if (!ops->excludes)
			continue;
		race(ops, kind, false);
		if (ops->vma_read_next)
			race(ops, kind, true);
	}
}

START_TEST(maps_race) { race_all(SIM_MAPS_MAPS); }
END_TEST

START_TEST(smaps_race) { race_all(SIM_MAPS_SMAPS); }
END_TEST

START_TEST(query_race) { race_all(SIM_MAPS_QUERY); }
END_TEST

/* Without a writer: one read shows a page's worth of lines, and a walk
 * shows the layout as it is. */
START_TEST(maps_chunks)
{
	struct sim_mm_cfg cfg = { .tree = test_tree(), .lock = &rwsem_lock_ops,
		.arena_size = 16384 * P, .source = &synthetic_fault_source };
	struct sim_maps_reader *r = malloc(sizeof(*r));
	static struct layout l;
	struct sim_mm *mm;
	struct walk w = { .l = &l };
	int n, reads = 0;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	memset(&l, 0, sizeof(l));
	layout_make(&l, mm);
	ck_assert_int_eq(sim_maps_open(r, mm, SIM_MAPS_MAPS, false), 0);
	n = sim_maps_read(r, on_vma, &w);
	/* An anonymous line of 12-digit addresses is 49 bytes: 83 fit. */
	ck_assert_int_ge(n, 60);
	ck_assert_int_le(n, 90);
	ck_assert_ptr_nonnull(memchr(r->buf, '\n', SIM_MAPS_BUF));
	for (reads = 1; !r->wrapped; reads++)
		ck_assert_int_ge(sim_maps_read(r, on_vma, &w), 0);
	check_walk(&w);
	ck_assert_msg(!w.bad, "%s", w.why);
	ck_assert_int_ge(reads, NVMAS / 90);
	sim_maps_close(r);
	free(r);
	sim_mm_destroy(mm);
}
END_TEST

static Suite *maps_suite(void)
{
	Suite *s = suite_create("maps");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, maps_chunks);
	tcase_add_test(tc, maps_race);
	tcase_add_test(tc, smaps_race);
	tcase_add_test(tc, query_race);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(maps_suite(), CK_NORMAL);
}
