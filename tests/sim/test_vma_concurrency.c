/* SPDX-License-Identifier: MIT */
/*
 * Concurrency test of the VMA tree: reader threads do lock-free RCU
 * lookups and whole-range walks while a writer keeps replacing, splitting
 * and merging VMAs in transactions. Every VMA carries a checksum of its
 * own range; retired VMAs are scribbled over before they are freed. A
 * reader must never see a torn or freed VMA (checksum), an unsorted or
 * overlapping walk, or a hole in the region the writer keeps fully
 * covered: on vmsim's tree because transactions are published at once;
 * on the maple tree, whose stores are seen one by one, because a split
 * or merge stores the new VMAs over the old ones before it clears what
 * is left of them (vma_tree_replace). Run in the ASan and TSan builds
 * too, and once on each tree.
 */
#include "tests/check_util.h"
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "locks/sync/rcu.h"
#include "sim/faults/sources.h"
#include "sim/mm.h"
#include "sim/vma_tree.h"
#include "tests/sim/test_tree.h"

#define P       SIM_PAGE_SIZE
#define BASE    (1UL << 32)
#define REGION  256                      /* pages always covered */
#define READERS 3

static unsigned long sum(unsigned long s, unsigned long e)
{
	return (s * 0x9E3779B97F4A7C15UL) ^ (e + 0x12345);
}

static struct sim_vma *mk(unsigned long s, unsigned long e)
{
	struct sim_vma *v = calloc(1, sizeof(*v));

	v->vm_start = s;
	v->vm_end = e;
	v->vm_flags = VM_READ;
	v->vm_file = SIM_FILE_NONE;
	v->vm_pgoff = sum(s, e);
	return v;
}

/* Freed after a grace period: a reader that still used it would see the
 * scribble (or ASan the free). */
static void scribble_free(struct sim_rcu_head *h)
{
	void *p = (char *)h - offsetof(struct sim_vma, rcu);

	memset(p, 0x5a, sizeof(struct sim_vma));
	free(p);
}

struct shared {
	struct vma_tree t;
	_Atomic int stop;
	_Atomic long bad, reads, walks;
};

struct walk { unsigned long at; int bad; };

static int walk_fn(struct sim_vma *v, void *arg)
{
	struct walk *w = arg;

	/* vmsim's tree: one version, so each VMA starts where the last
	 * ended. The maple tree: a VMA partly replaced (a split half done)
	 * is met where it still is, so it covers where the walk is. */
	if (v->vm_pgoff != sum(v->vm_start, v->vm_end) ||
	    (test_tree_maple() ? v->vm_start > w->at || v->vm_end <= w->at :
	     v->vm_start != w->at))
		w->bad = 1;
	w->at = v->vm_end;
	return 0;
}

static void *reader(void *arg)
{
	struct shared *s = arg;
	unsigned seed = (unsigned)(uintptr_t)&seed;

	while (!atomic_load(&s->stop)) {
		unsigned long addr = BASE + (unsigned long)(rand_r(&seed) % REGION) * P;
		struct walk w = { BASE, 0 };
		struct sim_vma *v;

		sim_rcu_read_lock();
		v = vma_tree_find(&s->t, addr);
		if (!v || v->vm_start > addr || v->vm_end <= addr ||
		    v->vm_pgoff != sum(v->vm_start, v->vm_end))
			atomic_fetch_add(&s->bad, 1);
		sim_rcu_read_unlock();
		atomic_fetch_add(&s->reads, 1);
		if (rand_r(&seed) % 16 == 0) {
			sim_rcu_read_lock();
			vma_tree_for_each(&s->t, BASE, BASE + REGION * P, walk_fn, &w);
			sim_rcu_read_unlock();
			if (w.bad || w.at != BASE + REGION * P)
				atomic_fetch_add(&s->bad, 1);
			atomic_fetch_add(&s->walks, 1);
		}
	}
	return NULL;
}

/* One transaction: split the VMA at a random page, or merge it with its
 * successor; the region stays exactly covered. */
static void mutate(struct shared *s, unsigned *seed)
{
	unsigned long addr = BASE + (unsigned long)(rand_r(seed) % REGION) * P;
	struct vma_tree *t = &s->t;
	struct sim_vma *v, *n;

	vma_tree_begin(t);
	v = vma_tree_txn_find(t, addr);
	if (v->vm_end - v->vm_start > P && rand_r(seed) % 2) {
		unsigned long mid = v->vm_start + P *
			(1 + (unsigned long)rand_r(seed) % ((v->vm_end - v->vm_start) / P - 1));

		vma_tree_retire(t, NULL, &v->rcu, scribble_free);
		vma_tree_replace(t, &v, 1, (struct sim_vma *[]){
			mk(v->vm_start, mid), mk(mid, v->vm_end) }, 2);
	} else if ((n = vma_tree_txn_find(t, v->vm_end)) && n->vm_start == v->vm_end) {
		vma_tree_retire(t, NULL, &v->rcu, scribble_free);
		vma_tree_retire(t, NULL, &n->rcu, scribble_free);
		vma_tree_replace(t, (struct sim_vma *[]){ v, n }, 2,
				 (struct sim_vma *[]){ mk(v->vm_start, n->vm_end) }, 1);
	}
	vma_tree_commit(t);
}

START_TEST(test_readers_vs_writer)
{
	struct shared *s = calloc(1, sizeof(*s));
	pthread_t r[READERS];
	unsigned seed = 7;

	ck_assert_int_eq(test_tree_init(&s->t), 0);
	vma_tree_begin(&s->t);
	for (int i = 0; i < REGION; i += 8)
		vma_tree_insert(&s->t, mk(BASE + (unsigned long)i * P,
					  BASE + (unsigned long)(i + 8) * P));
	vma_tree_commit(&s->t);
	for (int i = 0; i < READERS; i++)
		pthread_create(&r[i], NULL, reader, s);
	for (long i = 0; i < check_steps(60000); i++)
		mutate(s, &seed);
	atomic_store(&s->stop, 1);
	for (int i = 0; i < READERS; i++)
		pthread_join(r[i], NULL);
	ck_assert_int_eq(atomic_load(&s->bad), 0);
	ck_assert_int_gt(atomic_load(&s->reads), check_steps(1000));
	ck_assert_int_gt(atomic_load(&s->walks), check_steps(10));
	vma_tree_destroy(&s->t, free);
	free(s);
}
END_TEST

/* Writers of disjoint ranges at once (range, range-list): each mmap
 * guesses its place without a lock (a gap search racing the other
 * writer's stores: on the maple tree, stores seen one by one), locks
 * it, revalidates; each munmap's detached tree beside the other's. */
struct wr { struct sim_mm *mm; int bad; };

static void *map_unmap(void *arg)
{
	struct wr *w = arg;

	for (int i = 0; i < check_steps(20000) && !w->bad; i++) {
		unsigned long a;
		size_t len = (size_t)(1 + i % 7) * 16 * P;

		if (sim_do_mmap(w->mm, 0, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, SIM_FILE_NONE, 0,
				&a) || sim_do_munmap(w->mm, a, len))
			w->bad = 1;
	}
	return NULL;
}

START_TEST(test_writers_race)
{
	static const char *const names[] = { "range", "range-list", "rwsem",
					     "pervma" };

	for (int k = 0; k < 4; k++) {
		struct sim_mm_cfg cfg = { .tree = test_tree(),
			.lock = lock_scheme_find(names[k]),
			.arena_size = 256UL << 20,
			.source = &synthetic_fault_source };
		struct wr w[2] = { 0 };
		pthread_t th[2];
		struct sim_mm *mm;

		ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
		for (int i = 0; i < 2; i++) {
			w[i].mm = mm;
			pthread_create(&th[i], NULL, map_unmap, &w[i]);
		}
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		ck_assert_msg(!w[0].bad && !w[1].bad, "%s: an mmap or munmap "
			      "failed", names[k]);
		ck_assert_uint_eq(vma_tree_count(&mm->tree), 0);
		sim_mm_destroy(mm);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vma_concurrency");
	TCase *tc = tcase_create("rcu");

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_readers_vs_writer);
	tcase_add_test(tc, test_writers_race);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
