/* SPDX-License-Identifier: MIT */
/*
 * Tests the VMA tree: find_vma semantics, overlap refusal, erase, and gap
 * search top-down and bottom-up with alignment; and the mm operations on
 * top of it: mmap placement and errors, munmap splitting.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "sim/mm.h"
#include "sim/vma_tree.h"

#define P SIM_PAGE_SIZE

static struct sim_vma *mk(unsigned long s, unsigned long e)
{
	struct sim_vma *v = calloc(1, sizeof(*v));

	v->vm_start = s;
	v->vm_end = e;
	v->vm_file = SIM_FILE_NONE;
	return v;
}

START_TEST(test_find_insert_erase)
{
	struct vma_tree t;
	struct sim_vma *a = mk(10 * P, 20 * P), *b = mk(30 * P, 40 * P);
	struct sim_vma *c = mk(15 * P, 35 * P);

	vma_tree_init(&t);
	ck_assert_int_eq(vma_tree_insert(&t, b), 0);
	ck_assert_int_eq(vma_tree_insert(&t, a), 0);
	ck_assert_int_eq(vma_tree_insert(&t, c), -EEXIST);
	ck_assert_uint_eq(vma_tree_count(&t), 2);
	ck_assert_ptr_eq(vma_tree_find(&t, 0), a);
	ck_assert_ptr_eq(vma_tree_find(&t, 19 * P), a);
	ck_assert_ptr_eq(vma_tree_find(&t, 20 * P), b);   /* in the gap */
	ck_assert_ptr_eq(vma_tree_find(&t, 40 * P), NULL);
	ck_assert_ptr_eq(vma_tree_find_intersection(&t, 20 * P, 30 * P), NULL);
	ck_assert_ptr_eq(vma_tree_find_intersection(&t, 20 * P, 31 * P), b);
	ck_assert_int_eq(vma_tree_erase(&t, c), -ENOENT);
	ck_assert_int_eq(vma_tree_erase(&t, a), 0);
	ck_assert_ptr_eq(vma_tree_find(&t, 0), b);
	ck_assert_int_eq(vma_tree_erase(&t, b), 0);
	ck_assert_uint_eq(vma_tree_count(&t), 0);
	vma_tree_destroy(&t);
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(test_gaps)
{
	struct vma_tree t;
	struct sim_vma *a = mk(10 * P, 20 * P), *b = mk(30 * P, 40 * P);
	unsigned long s;

	vma_tree_init(&t);
	vma_tree_insert(&t, a);
	vma_tree_insert(&t, b);
	/* [0,10) [20,30) [40,100) free in [0,100) */
	ck_assert_int_eq(vma_tree_gap_topdown(&t, 0, 100 * P, 5 * P, P, &s), 0);
	ck_assert_uint_eq(s, 95 * P);
	ck_assert_int_eq(vma_tree_gap_topdown(&t, 0, 45 * P, 10 * P, P, &s), 0);
	ck_assert_uint_eq(s, 20 * P);
	ck_assert_int_eq(vma_tree_gap_topdown(&t, 0, 45 * P, 11 * P, P, &s), -ENOMEM);
	ck_assert_int_eq(vma_tree_gap_bottomup(&t, 0, 100 * P, 5 * P, P, &s), 0);
	ck_assert_uint_eq(s, 0);
	ck_assert_int_eq(vma_tree_gap_bottomup(&t, 5 * P, 100 * P, 6 * P, P, &s), 0);
	ck_assert_uint_eq(s, 20 * P);
	ck_assert_int_eq(vma_tree_gap_bottomup(&t, 12 * P, 100 * P, 10 * P, P, &s), 0);
	ck_assert_uint_eq(s, 20 * P);
	/* alignment 16 pages: top-down 96 (fits below 100), bottom-up 48 */
	ck_assert_int_eq(vma_tree_gap_topdown(&t, 0, 100 * P, 4 * P, 16 * P, &s), 0);
	ck_assert_uint_eq(s, 96 * P);
	ck_assert_int_eq(vma_tree_gap_bottomup(&t, 10 * P, 100 * P, 4 * P, 16 * P, &s), 0);
	ck_assert_uint_eq(s, 48 * P);
	vma_tree_destroy(&t);
	free(a);
	free(b);
}
END_TEST

static struct sim_mm *mk_mm(void)
{
	struct sim_mm_cfg cfg = {
		.lock = &rwsem_lock_ops, .arena_size = 1024 * P,
		.source = FAULT_SRC_SYNTHETIC,
	};
	struct sim_mm *mm;

	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	return mm;
}

START_TEST(test_mmap_munmap)
{
	struct sim_mm *mm = mk_mm();
	unsigned long a, b, c;
	struct sim_vma *v;

	ck_assert_int_eq(sim_do_mmap(mm, 0, 10 * P, PROT_READ, MAP_PRIVATE,
				     SIM_FILE_NONE, 0, &a), 0);
	ck_assert_uint_eq(a, mm->end - 10 * P);          /* top-down */
	ck_assert_int_eq(sim_do_mmap(mm, 0, 1, PROT_READ, MAP_PRIVATE,
				     SIM_FILE_NONE, 0, &b), 0);
	ck_assert_uint_eq(b, a - P);                      /* rounded to a page */
	ck_assert_int_eq(sim_do_mmap(mm, a, P, PROT_READ, MAP_FIXED_NOREPLACE,
				     SIM_FILE_NONE, 0, &c), -EEXIST);
	ck_assert_int_eq(sim_do_mmap(mm, a + 1, P, PROT_READ, MAP_FIXED,
				     SIM_FILE_NONE, 0, &c), -EINVAL);
	ck_assert_int_eq(sim_do_mmap(mm, 0, 0, PROT_READ, MAP_PRIVATE,
				     SIM_FILE_NONE, 0, &c), -EINVAL);
	ck_assert_int_eq(sim_do_mmap(mm, 0, 2048 * P, PROT_READ, MAP_PRIVATE,
				     SIM_FILE_NONE, 0, &c), -ENOMEM);
	/* Punch a hole in the middle: one VMA becomes two. */
	ck_assert_int_eq(sim_do_munmap(mm, a + 3 * P, 2 * P), 0);
	ck_assert_uint_eq(vma_tree_count(&mm->tree), 3);
	v = vma_tree_find(&mm->tree, a);
	ck_assert_uint_eq(v->vm_start, a);
	ck_assert_uint_eq(v->vm_end, a + 3 * P);
	v = vma_tree_find(&mm->tree, a + 3 * P);
	ck_assert_uint_eq(v->vm_start, a + 5 * P);
	ck_assert_uint_eq(v->vm_end, a + 10 * P);
	ck_assert_int_eq(sim_do_munmap(mm, a + 1, P), -EINVAL);
	/* Unmapping across everything removes everything. */
	ck_assert_int_eq(sim_do_munmap(mm, mm->base, mm->end - mm->base), 0);
	ck_assert_uint_eq(vma_tree_count(&mm->tree), 0);
	ck_assert_uint_eq(atomic_load(&mm->map_pages), 0);
	sim_mm_destroy(mm);
}
END_TEST

START_TEST(test_max_map_count)
{
	struct sim_mm_cfg cfg = {
		.lock = &rwsem_lock_ops, .arena_size = 1024 * P,
		.source = FAULT_SRC_SYNTHETIC, .max_map_count = 4,
	};
	struct sim_mm *mm;
	unsigned long a;

	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(sim_do_mmap(mm, mm->base + (unsigned long)i * 2 * P,
					     P, PROT_READ, MAP_PRIVATE,
					     SIM_FILE_NONE, 0, &a), 0);
	ck_assert_int_eq(sim_do_mmap(mm, 0, P, PROT_READ, MAP_PRIVATE,
				     SIM_FILE_NONE, 0, &a), -ENOMEM);
	sim_mm_destroy(mm);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vma_tree");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_find_insert_erase);
	tcase_add_test(tc, test_gaps);
	tcase_add_test(tc, test_mmap_munmap);
	tcase_add_test(tc, test_max_map_count);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
