/* SPDX-License-Identifier: MIT */
/*
 * Kernel-mode faults (FAULT_FLAG_KERNEL: the kernel's copy into user
 * memory, as a replayed read(2) makes) are locked as x86 locks them:
 * pervma takes the mm lock's read side without trying the VMA lock
 * (do_user_addr_fault's "goto lock_mmap"), spf does not speculate, rwsem
 * and the range schemes take what they take for any fault. Under both
 * sources — under uffd the touching thread marks its access and the
 * handler finds the mark by the message's thread id, so that a user
 * fault of another thread at the same time is not taken for one.
 */
#include "sim/faults/sources.h"
#include "tests/check_util.h"
#include "tests/uffd/uffd_util.h"
#include "tests/locks/lock_util.h"
#include "locks/schemes.h"
#include <errno.h>
#include <pthread.h>

#include "sim/fault.h"
#include "sim/mm.h"
#include "tests/sim/test_tree.h"

#define P SIM_PAGE_SIZE
#define NPG 64

static struct sim_mm *mk_mm(const struct lock_ops *ops,
			    const struct fault_source_ops *src)
{
	struct sim_mm_cfg cfg = { .tree = test_tree(),
		.lock = ops, .arena_size = 4096 * P,
				  .source = src };
	struct sim_mm *mm;

	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	return mm;
}

/* Read acquisitions of the scheme's first class (the mm-wide lock). */
static uint64_t mm_reads(struct sim_mm *mm)
{
	struct lockstat_totals t;

	lockstat_sum(mm->lock->classes[0], LS_READ, &t);
	return t.acquisitions;
}

struct toucher {
	struct sim_mm *mm;
	unsigned long base;
	unsigned flags;
	pthread_barrier_t *go;
	int errors;
};

static void *touch_all(void *p)
{
	struct toucher *a = p;
	unsigned char v = 3;

	pthread_barrier_wait(a->go);
	for (int i = 0; i < NPG; i++)
		a->errors += sim_touch_flags(a->mm, a->base + (unsigned long)i * P,
					     a->flags, &v) != 0;
	return NULL;
}

/* One thread touches NPG pages kernel-mode, another NPG user-mode, at
 * the same time; then one page each way alone. */
static void kernel_faults(const struct lock_ops *ops,
			  const struct fault_source_ops *src)
{
	struct sim_mm *mm = mk_mm(ops, src);
	pthread_barrier_t go;
	struct toucher k = { mm, 0, FAULT_FLAG_KERNEL | FAULT_FLAG_WRITE, &go, 0 };
	struct toucher u = { mm, 0, FAULT_FLAG_WRITE, &go, 0 };
	pthread_t tk, tu;
	unsigned long a;
	uint64_t r0, kern, ok, ok0;
	const char *kname = NULL, *okname = NULL;
	unsigned char v;

	ck_assert_int_eq(sim_do_mmap(mm, 0, 2 * NPG * P + 2 * P,
				     PROT_READ | PROT_WRITE, MAP_PRIVATE,
				     SIM_FILE_NONE, 0, &a), 0);
	/* The first write prepares the anon_vma (the VMA's first fault). */
	v = 1;
	ck_assert_int_eq(sim_touch(mm, a + 2 * NPG * P, true, &v), 0);
	r0 = mm_reads(mm);
	if (!strcmp(ops->name, "pervma"))
		kname = "vma_lock_kernel", okname = "vma_lock_success";
	else if (!strcmp(ops->name, "spf"))
		kname = "spf_kernel", okname = "spf_success";
	ok0 = okname ? scheme_counter(mm->lock, okname) : 0;
	k.base = a;
	u.base = a + NPG * P;
	pthread_barrier_init(&go, NULL, 2);
	ck_assert_int_eq(pthread_create(&tk, NULL, touch_all, &k), 0);
	ck_assert_int_eq(pthread_create(&tu, NULL, touch_all, &u), 0);
	pthread_join(tk, NULL);
	pthread_join(tu, NULL);
	pthread_barrier_destroy(&go);
	ck_assert_int_eq(k.errors + u.errors, 0);
	/* A kernel-mode read of a page not there yet. */
	ck_assert_int_eq(sim_touch_flags(mm, a + 2 * NPG * P + P,
					 FAULT_FLAG_KERNEL, &v), 0);
	ck_assert_int_eq(v, 0);
	kern = kname ? scheme_counter(mm->lock, kname) : 0;
	ok = okname ? scheme_counter(mm->lock, okname) - ok0 : 0;
	if (kname) {
		/* Each kernel-mode fault took the mm lock, never the
		 * VMA lock or a speculation; each user one did not. */
		ck_assert_msg(kern == NPG + 1, "%s %s %llu, want %d", ops->name,
			      kname, (unsigned long long)kern, NPG + 1);
		ck_assert_msg(ok == NPG, "%s %s %llu, want %d", ops->name,
			      okname, (unsigned long long)ok, NPG);
		ck_assert_uint_eq(mm_reads(mm) - r0, NPG + 1);
	} else {
		/* Every fault through the scheme's one fault side. */
		ck_assert_uint_eq(mm_reads(mm) - r0, 2 * NPG + 1);
	}
	if (src == &uffd_fault_source) {
		ck_assert_uint_eq(sim_mm_source_counter(mm, "kernel_marked"),
				  NPG + 1);
		ck_assert_uint_eq(sim_mm_source_counter(mm, "kernel_found"),
				  NPG + 1);
		ck_assert_uint_eq(sim_mm_source_counter(mm, "kernel_unmarked"), 0);
	}
	/* A kernel-mode touch of a present page faults nowhere. */
	ck_assert_int_eq(sim_touch_flags(mm, a, FAULT_FLAG_KERNEL, &v), 0);
	ck_assert_int_eq(v, 3);
	if (kname)
		ck_assert_uint_eq(scheme_counter(mm->lock, kname), NPG + 1);
	sim_mm_destroy(mm);
}

START_TEST(test_kernel_synthetic)
{
	const struct lock_ops *ops[] = { &pervma_lock_ops, &spf_lock_ops,
					 &rwsem_lock_ops, &range_lock_ops };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		kernel_faults(ops[i], &synthetic_fault_source);
}
END_TEST

START_TEST(test_kernel_uffd)
{
	const struct lock_ops *ops[] = { &pervma_lock_ops, &spf_lock_ops,
					 &rwsem_lock_ops };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		kernel_faults(ops[i], &uffd_fault_source);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kernel_fault");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_kernel_synthetic);
	if (uffd_available())
		tcase_add_test(tc, test_kernel_uffd);
	else
		printf("SKIP: userfaultfd unavailable: test_kernel_uffd not run\n");
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
