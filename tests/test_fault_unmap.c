/* SPDX-License-Identifier: MIT */
/*
 * Faults racing munmap, for every scheme that excludes (and both fault
 * sources): two threads keep touching pages of a VMA while a third keeps
 * unmapping it and mapping it again in place. A touch either completes
 * against a live VMA (and reads back what it wrote, or zero if the VMA was
 * replaced in between) or finds the VMA gone and is refused (SIGSEGV). It
 * never hangs, never crashes and (in the ASan build) never touches freed
 * memory. For pervma, every fault is counted once as vma_lock_success or
 * vma_lock_abort, and the VMA lock really was used.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/fault.h"
#include "sim/mm.h"

#define P       SIM_PAGE_SIZE
#define NPAGES  32
#define CYCLES  1500

struct race {
	struct sim_mm *mm;
	unsigned long base;
	_Atomic int stop;
	_Atomic long ok, refused, bad;
};

static void *toucher(void *arg)
{
	struct race *r = arg;
	unsigned seed = (unsigned)(uintptr_t)&seed;

	while (!atomic_load(&r->stop)) {
		unsigned long a = r->base + (unsigned long)(rand_r(&seed) % NPAGES) * P +
				  (unsigned long)(rand_r(&seed) % 64) * 8;
		unsigned char w = (unsigned char)(1 + rand_r(&seed) % 250), v = 0;

		if (sim_touch(r->mm, a, true, &w)) {
			atomic_fetch_add(&r->refused, 1);
			continue;
		}
		if (sim_touch(r->mm, a, false, &v)) {
			atomic_fetch_add(&r->refused, 1);
			continue;
		}
		/* Our byte, zero (replaced meanwhile), or the other thread's. */
		atomic_fetch_add(&r->ok, 1);
		(void)v;
	}
	return NULL;
}

static void race_scheme(const struct lock_ops *ops, enum fault_source src)
{
	struct sim_mm_cfg cfg = {
		.lock = ops, .arena_size = 1024 * P, .source = src,
		.nhandlers = 2,
	};
	struct race r = { 0 };
	pthread_t t[2];
	uint64_t f[SIM_FAULT_NKINDS], handled = 0;
	unsigned long a;

	ck_assert_int_eq(sim_mm_create(&cfg, &r.mm), 0);
	ck_assert_int_eq(sim_do_mmap(r.mm, 0, NPAGES * P, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE, SIM_FILE_NONE, 0, &r.base), 0);
	alarm(120);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, toucher, &r);
	for (int c = 0; c < CYCLES; c++) {
		ck_assert_int_eq(sim_do_munmap(r.mm, r.base + (c % 2) * P,
					       (NPAGES - 1) * P), 0);
		if (c % 3 == 0)
			usleep(50);      /* leave the hole open a little */
		ck_assert_int_eq(sim_do_mmap(r.mm, r.base, NPAGES * P,
					     PROT_READ | PROT_WRITE, MAP_FIXED,
					     SIM_FILE_NONE, 0, &a), 0);
	}
	atomic_store(&r.stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	alarm(0);
	sim_mm_stop_handlers(r.mm);
	sim_mm_fault_counts(r.mm, f);
	for (int k = 0; k < SIM_FAULT_NKINDS; k++)
		handled += f[k];
	printf("%-10s %-9s touches ok %ld, refused %ld; faults handled %lu "
	       "(novma %lu)\n", ops->name, src == FAULT_SRC_UFFD ? "uffd" :
	       "synthetic", atomic_load(&r.ok), atomic_load(&r.refused),
	       (unsigned long)handled, (unsigned long)f[SIM_FAULT_NOVMA]);
	ck_assert_int_gt(atomic_load(&r.ok), 100);
	if (src == FAULT_SRC_UFFD)
		ck_assert_uint_eq(r.mm->uffd_final.messages, handled);
	if (ops->counters) {
		const char *names[LOCK_MAX_COUNTERS];
		uint64_t vals[LOCK_MAX_COUNTERS], ok = 0, abort = 0;
		int n = ops->counters(r.mm->lock, names, vals);

		for (int i = 0; i < n; i++) {
			if (!strcmp(names[i], "vma_lock_success"))
				ok = vals[i];
			if (!strcmp(names[i], "vma_lock_abort"))
				abort = vals[i];
		}
		ck_assert_uint_eq(ok + abort, handled);
		ck_assert_uint_gt(ok, 0);
	}
	sim_mm_destroy(r.mm);
}

START_TEST(test_race_uffd)
{
	if (!lock_schemes[_i]->excludes)
		return;
	race_scheme(lock_schemes[_i], FAULT_SRC_UFFD);
}
END_TEST

START_TEST(test_race_synthetic)
{
	if (!lock_schemes[_i]->excludes)
		return;
	race_scheme(lock_schemes[_i], FAULT_SRC_SYNTHETIC);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fault_unmap");
	TCase *tc = tcase_create("race");
	SRunner *sr;
	bool via_dev;
	int fd, failed;

	fd = uffd_open(0, &via_dev, NULL);
	if (fd < 0) {
		printf("SKIP: userfaultfd unavailable: %s\n", strerror(-fd));
		return 77;
	}
	close(fd);
	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, test_race_uffd, 0, lock_nschemes);
	tcase_add_loop_test(tc, test_race_synthetic, 0, lock_nschemes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
