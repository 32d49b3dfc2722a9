/* SPDX-License-Identifier: MIT */
/*
 * Simulated protection without the host's mprotect, under every scheme
 * and both fault sources. The host VMA of the arena stays read-write and
 * untouched; the simulator makes protection real:
 *  - after mprotect(PROT_READ) a write to a present page is refused (a
 *    write-protect fault, or the present map), counted as a protection
 *    fault, the page keeps its contents and the task goes on; a write to
 *    a page not yet there is refused too, and reading it gives zeros;
 *  - after PROT_NONE a read is refused the same way;
 *  - making the range writable again lets writes through;
 *  - a touch of an unmapped page is refused and counted as "no VMA".
 * The counts are exact: the test knows every fault it causes.
 */
#include "sim/faults/sources.h"
#include "tests/check_util.h"
#include "tests/uffd/uffd_util.h"
#include <errno.h>

#include "sim/fault.h"
#include "sim/mm.h"
#include "sim/result.h"
#include "sim/host.h"
#include "tests/sim/test_tree.h"

#define P SIM_PAGE_SIZE

static struct sim_mm *mk_mm(const struct lock_ops *ops, const struct fault_source_ops *src)
{
	struct sim_mm_cfg cfg = { .tree = test_tree(),
		.lock = ops, .arena_size = 4096 * P,
				  .source = src };
	struct sim_mm *mm;

	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	return mm;
}

static void protection(const struct lock_ops *ops, const struct fault_source_ops *src)
{
	struct sim_mm *mm = mk_mm(ops, src);
	uint64_t f[SIM_FAULT_NKINDS], h0[HOST_NCALLS], h1[HOST_NCALLS];
	unsigned char v;
	unsigned long a;

	host_counts(h0);
	ck_assert_int_eq(sim_do_mmap(mm, 0, 4 * P, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE, SIM_FILE_NONE, 0, &a), 0);
	v = 41;
	ck_assert_int_eq(sim_touch(mm, a, true, &v), 0);
	v = 42;
	ck_assert_int_eq(sim_touch(mm, a + 3 * P, true, &v), 0);

	/* Read-only: pages 0-2 (page 0 present, 1-2 not). */
	ck_assert_int_eq(sim_do_mprotect(mm, a, 3 * P, PROT_READ), 0);
	v = 7;
	ck_assert_int_eq(sim_touch(mm, a, true, &v), -EFAULT);       /* prot 1 */
	ck_assert_int_eq(sim_touch(mm, a, false, &v), 0);
	ck_assert_int_eq(v, 41);                                     /* kept */
	v = 7;
	ck_assert_int_eq(sim_touch(mm, a + P, true, &v), -EFAULT);   /* prot 2 */
	ck_assert_int_eq(sim_touch(mm, a + P, false, &v), 0);
	ck_assert_int_eq(v, 0);
	v = 43;                                /* page 3 is still writable */
	ck_assert_int_eq(sim_touch(mm, a + 3 * P, true, &v), 0);

	/* No access: every touch refused. */
	ck_assert_int_eq(sim_do_mprotect(mm, a, 3 * P, PROT_NONE), 0);
	ck_assert_int_eq(sim_touch(mm, a, false, &v), -EFAULT);      /* prot 3 */
	ck_assert_int_eq(sim_touch(mm, a + 2 * P, true, &v), -EFAULT); /* 4 */

	/* Writable again: writes go through. */
	ck_assert_int_eq(sim_do_mprotect(mm, a, 3 * P, PROT_READ | PROT_WRITE), 0);
	v = 44;
	ck_assert_int_eq(sim_touch(mm, a, true, &v), 0);
	ck_assert_int_eq(sim_touch(mm, a, false, &v), 0);
	ck_assert_int_eq(v, 44);

	/* Unmapped: refused as no VMA. */
	ck_assert_int_eq(sim_do_munmap(mm, a + P, P), 0);
	ck_assert_int_eq(sim_touch(mm, a + P, false, &v), -EFAULT);  /* novma 1 */

	/* None of it changed the host's address space. */
	host_counts(h1);
	for (int i = 0; i < HOST_NCALLS; i++)
		if (host_call_changes_layout(i))
			ck_assert_msg(h1[i] == h0[i], "%s: %s called %lu times",
				      ops->name, host_call_name(i),
				      (unsigned long)(h1[i] - h0[i]));

	sim_mm_stop_handlers(mm);
	sim_mm_fault_counts(mm, f);
	ck_assert_uint_eq(f[SIM_FAULT_PROT], 4);
	ck_assert_uint_eq(f[SIM_FAULT_NOVMA], 1);
	if (src == &uffd_fault_source)
		ck_assert_uint_eq(sim_mm_source_counter(mm, "refused"), 5);
	sim_mm_destroy(mm);
}

START_TEST(test_protection_uffd)
{
	protection(lock_schemes[_i], &uffd_fault_source);
}
END_TEST

START_TEST(test_protection_synthetic)
{
	protection(lock_schemes[_i], &synthetic_fault_source);
}
END_TEST

/* A source whose host refuses every zap and write-protect after the
 * real one (a stand-in for a kernel that says EIO). */
static struct fault_source_ops failing;

static int fail_zap(struct fault_source *s, unsigned long start,
		    unsigned long end)
{
	synthetic_fault_source.zap(s, start, end);
	return -EIO;
}

static int fail_protect(struct fault_source *s, unsigned long start,
			unsigned long end, unsigned long vm_flags)
{
	synthetic_fault_source.protect(s, start, end, vm_flags);
	return -EPERM;
}

/* What the host refused is counted by the mm, with its first error, and
 * reaches the result's counters: never passed over. */
START_TEST(test_source_errors_counted)
{
	struct sim_mm *mm;
	struct res_counters c;
	unsigned long a;
	unsigned char v = 1;

	failing = synthetic_fault_source;
	failing.zap = fail_zap;
	failing.protect = fail_protect;
	mm = mk_mm(lock_schemes[_i], &synthetic_fault_source);
	mm->src->ops = &failing;         /* create set its own */
	ck_assert_int_eq(sim_do_mmap(mm, 0, 4 * P, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE, SIM_FILE_NONE, 0, &a), 0);
	ck_assert_int_eq(sim_touch(mm, a, true, &v), 0);
	ck_assert_int_eq(sim_do_mprotect(mm, a, P, PROT_READ), 0);
	ck_assert_int_eq(sim_do_munmap(mm, a, 4 * P), 0);
	ck_assert_uint_eq(mm->src_err.n[SIM_SRC_PROTECT], 1);
	ck_assert_int_eq(mm->src_err.first[SIM_SRC_PROTECT], EPERM);
	ck_assert_uint_ge(mm->src_err.n[SIM_SRC_ZAP], 1);
	ck_assert_int_eq(mm->src_err.first[SIM_SRC_ZAP], EIO);
	res_counters_collect(&c, mm);
	ck_assert_uint_eq(c.src_err[SIM_SRC_PROTECT], 1);
	ck_assert_int_eq(c.src_errno[SIM_SRC_ZAP], EIO);
	ck_assert_uint_eq(c.src_err[SIM_SRC_WAKE], 0);
	sim_mm_destroy(mm);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("protection");
	TCase *tc = tcase_create("protection");

	/* Generous: a sanitizer build on a busy machine runs many times slower. */
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_protection_synthetic, 0, lock_nschemes);
	tcase_add_loop_test(tc, test_source_errors_counted, 0, lock_nschemes);
	ADD_UFFD_TESTS(tc, test_protection_uffd, lock_nschemes);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
