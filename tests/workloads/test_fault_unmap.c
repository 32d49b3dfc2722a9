/* SPDX-License-Identifier: MIT */
/*
 * The bounded stress test, for every scheme (and both fault
 * sources): two threads keep touching pages of an anonymous VMA (each its
 * own bytes) and reading a file-backed one, while a third keeps unmapping
 * them and mapping them again in place and a fourth flips part of the
 * anonymous one read-only and back. A touch either completes against a
 * live VMA or is refused (SIGSEGV); a completed read gives back what the
 * thread wrote, or zero if the VMA was replaced in between, and a file
 * page always holds the file's contents. It never hangs, never crashes
 * and (ASan) never touches freed memory; every uffd message is a fault
 * handled and answered once; pervma counts every fault once as success,
 * abort or retry.
 *
 * Then the same schemes run fault_vs_mmap through the runner and are
 * interrupted: the run stops, reports -EINTR and an incomplete result,
 * and every message read was a fault handled.
 */
#include "sim/faults/sources.h"
#include "sim/faults/uffd_source.h"
#include "tests/check_util.h"
#include "tests/uffd/uffd_util.h"
#include "tests/locks/lock_util.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/fault.h"
#include "sim/host.h"
#include "sim/mm.h"
#include "workloads/runner.h"
#include <signal.h>
#include "tests/sim/test_tree.h"

#define P       SIM_PAGE_SIZE
#define NPAGES  32
#define CYCLES  check_steps(1500)

#define FILE_ID 9

struct race {
	struct sim_mm *mm;
	unsigned long base, fbase;
	_Atomic int stop, next_id;
	_Atomic long ok, refused, bad;
};

/* Check a byte of the file mapping against the simulated file. */
static void check_file_byte(struct race *r, unsigned *seed)
{
	unsigned long off = (unsigned long)(rand_r(seed) % (NPAGES * P));
	uint64_t word = sim_file_word(FILE_ID, off & ~7UL);
	unsigned char v;

	if (sim_touch(r->mm, r->fbase + off, false, &v)) {
		atomic_fetch_add(&r->refused, 1);
		return;
	}
	if (v != (unsigned char)(word >> (8 * (off & 7))))
		atomic_fetch_add(&r->bad, 1);
	atomic_fetch_add(&r->ok, 1);
}

static void *toucher(void *arg)
{
	struct race *r = arg;
	int id = atomic_fetch_add(&r->next_id, 1);
	unsigned seed = (unsigned)id * 7919u + 1;

	while (!atomic_load(&r->stop)) {
		/* Thread id owns byte id of every 8-byte group: nobody else
		 * writes it, so a read gives our value or 0. */
		unsigned long a = r->base + (unsigned long)(rand_r(&seed) % NPAGES) * P +
				  (unsigned long)(rand_r(&seed) % 512) * 8 + (unsigned long)id;
		unsigned char w = (unsigned char)(1 + rand_r(&seed) % 250), v = 0;

		if (rand_r(&seed) % 4 == 0) {
			check_file_byte(r, &seed);
			continue;
		}
		if (sim_touch(r->mm, a, true, &w) || sim_touch(r->mm, a, false, &v)) {
			atomic_fetch_add(&r->refused, 1);
			continue;
		}
		if (v != w && v != 0)
			atomic_fetch_add(&r->bad, 1);
		atomic_fetch_add(&r->ok, 1);
	}
	return NULL;
}

static void *protector(void *arg)
{
	struct race *r = arg;

	for (int i = 0; !atomic_load(&r->stop); i++) {
		/* ENOMEM while the region has a hole is expected. */
		sim_do_mprotect(r->mm, r->base + 8 * P, 8 * P,
				i % 2 ? PROT_READ | PROT_WRITE : PROT_READ);
		usleep(100);
	}
	sim_do_mprotect(r->mm, r->base + 8 * P, 8 * P, PROT_READ | PROT_WRITE);
	return NULL;
}

static void race_scheme(const struct lock_ops *ops, const struct fault_source_ops *src)
{
	static const struct uffd_source_opts two = { .nhandlers = 2 };
	struct sim_mm_cfg cfg = { .tree = test_tree(),
		.lock = ops, .arena_size = 1024 * P, .source = src,
		.source_opts = src == &uffd_fault_source ? &two : NULL,
	};
	struct race r = { 0 };
	pthread_t t[3];
	uint64_t f[SIM_FAULT_NKINDS], handled = 0;
	unsigned long a;

	ck_assert_int_eq(sim_mm_create(&cfg, &r.mm), 0);
	ck_assert_int_eq(sim_do_mmap(r.mm, 0, NPAGES * P, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE, SIM_FILE_NONE, 0, &r.base), 0);
	ck_assert_int_eq(sim_do_mmap(r.mm, 0, NPAGES * P, PROT_READ, MAP_PRIVATE,
				     FILE_ID, 0, &r.fbase), 0);
	alarm(120);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, toucher, &r);
	pthread_create(&t[2], NULL, protector, &r);
	for (int c = 0; c < CYCLES; c++) {
		ck_assert_int_eq(sim_do_munmap(r.mm, r.base + (c % 2) * P,
					       (NPAGES - 1) * P), 0);
		if (c % 3 == 0)
			usleep(50);      /* leave the hole open a little */
		ck_assert_int_eq(sim_do_mmap(r.mm, r.base, NPAGES * P,
					     PROT_READ | PROT_WRITE, MAP_FIXED,
					     SIM_FILE_NONE, 0, &a), 0);
		if (c % 10 == 0)
			ck_assert_int_eq(sim_do_mmap(r.mm, r.fbase, NPAGES * P,
						     PROT_READ, MAP_FIXED, FILE_ID,
						     0, &a), 0);
	}
	atomic_store(&r.stop, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	alarm(0);
	sim_mm_stop_handlers(r.mm);
	sim_mm_fault_counts(r.mm, f);
	for (int k = 0; k < SIM_FAULT_NKINDS; k++)
		handled += f[k];
	printf("%-10s %-9s touches ok %ld, refused %ld; faults handled %lu "
	       "(novma %lu)\n", ops->name, src == &uffd_fault_source ? "uffd" :
	       "synthetic", atomic_load(&r.ok), atomic_load(&r.refused),
	       (unsigned long)handled, (unsigned long)f[SIM_FAULT_NOVMA]);
	/* touches succeeded: 100 in 1500 cycles, the same share in fewer */
	ck_assert_int_gt(atomic_load(&r.ok), CYCLES / 15);
	/* Without exclusion (none) a fault may place a page a racing munmap
	 * then misses, and a read may see it: the bytes are not checked,
	 * everything else is (every fault answered once, nothing hangs). */
	if (ops->excludes)
		ck_assert_msg(atomic_load(&r.bad) == 0, "%ld wrong bytes read",
			      atomic_load(&r.bad));
	/* Every message is one fault handled, answered exactly once (no
	 * access is refused by the host: protection is the simulator's). */
	if (src == &uffd_fault_source) {
#define U(name) sim_mm_source_counter(r.mm, name)
		ck_assert_uint_eq(U("messages"), U("copy") + U("zeropage") +
				  U("unprotect") + U("wake") + U("refused"));
		ck_assert_uint_eq(U("errors"), 0);
		ck_assert_uint_eq(U("messages"), handled);
		ck_assert_uint_eq(U("refused"), f[SIM_FAULT_PROT] + f[SIM_FAULT_NOVMA]);
#undef U
	}
	/* pervma and spf: every fault handled is one attempt, counted once
	 * as a success or a failure; some succeeded. */
	if (ops->fault_validate) {
		uint64_t ok, retried;

		ck_assert_uint_eq(scheme_attempts(r.mm->lock, &ok, &retried), handled);
		ck_assert_uint_gt(ok, 0);
	}
	sim_mm_destroy(r.mm);
}

START_TEST(test_race_uffd)
{
	race_scheme(lock_schemes[_i], &uffd_fault_source);
}
END_TEST

START_TEST(test_race_synthetic)
{
	race_scheme(lock_schemes[_i], &synthetic_fault_source);
}
END_TEST

/* A zap throws away only the real pages the simulated page table has:
 * munmap of a 64 MiB VMA with three pages in one run and one far away
 * touched makes two host madvise calls, of nothing touched none; the
 * pages come back zeroed. */
static void zap_only_present(const struct fault_source_ops *src)
{
	struct sim_mm_cfg cfg = { .tree = test_tree(),
		.lock = lock_schemes[0], .arena_size = 64UL << 20, .source = src,
	};
	const unsigned long len = 32UL << 20, far = 5000 * P;
	uint64_t h0[HOST_NCALLS], h1[HOST_NCALLS];
	unsigned char w = 7, v = 1;
	struct sim_mm *mm;
	unsigned long a, b;

	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	ck_assert_int_eq(sim_do_mmap(mm, 0, len, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE, SIM_FILE_NONE, 0, &a), 0);
	for (int i = 5; i < 8; i++)
		ck_assert_int_eq(sim_touch(mm, a + i * P + 9, true, &w), 0);
	ck_assert_int_eq(sim_touch(mm, a + far, true, &w), 0);
	host_counts(h0);
	ck_assert_int_eq(sim_do_munmap(mm, a, len), 0);
	host_counts(h1);
	ck_assert_uint_eq(h1[HOST_MADVISE] - h0[HOST_MADVISE], 2);
	ck_assert_uint_eq(sim_mm_resident(mm), 0);
	ck_assert_int_eq(sim_do_mmap(mm, a, len, PROT_READ | PROT_WRITE,
				     MAP_FIXED, SIM_FILE_NONE, 0, &b), 0);
	ck_assert_int_eq(sim_touch(mm, a + 6 * P + 9, false, &v), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(sim_touch(mm, a + far, false, &v), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(sim_do_munmap(mm, a, len), 0);
	host_counts(h0);
	ck_assert_int_eq(sim_do_mmap(mm, a, len, PROT_READ | PROT_WRITE,
				     MAP_FIXED, SIM_FILE_NONE, 0, &b), 0);
	ck_assert_int_eq(sim_do_munmap(mm, a, len), 0);
	host_counts(h1);
	ck_assert_uint_eq(h1[HOST_MADVISE] - h0[HOST_MADVISE], 0);
	sim_mm_destroy(mm);
}

START_TEST(test_zap_synthetic)
{
	zap_only_present(&synthetic_fault_source);
}
END_TEST

START_TEST(test_zap_uffd)
{
	zap_only_present(&uffd_fault_source);
}
END_TEST

static void *interrupter(void *arg)
{
	usleep(300 * 1000);
	runner_interrupt(SIGINT);
	return NULL;
}

START_TEST(test_interrupt)
{
	const struct lock_ops *ops = lock_schemes[_i];
	struct run_cfg c = {
		.wl = &fault_vs_mmap_workload,
		.mm = { .arena_size = 1UL << 30, .source = &uffd_fault_source },
		.uffd = { .wait = UFFD_WAIT_BLOCK, .batch = 16 },
		.targets = { { .lock = ops } }, .ntargets = 1,
		.tasks = { 2 }, .ntasklist = 1,
		.wo = { .mem = 4UL << 20, .iterations = 1000, .writers = 1 },
		.fault_timeout = 10,
	};
	struct res_file r = { 0 };
	struct res_point *p;
	uint64_t handled = 0;
	pthread_t t;
	char err[256];
	int ret;

	runner_clear_interrupt();
	alarm(60);
	pthread_create(&t, NULL, interrupter, NULL);
	ret = runner_run(&c, &r, err, sizeof(err));
	pthread_join(t, NULL);
	alarm(0);
	ck_assert_int_eq(ret, -EINTR);
	ck_assert(!r.complete);
	ck_assert_int_eq(r.npoints, 1);
	p = &r.points[0];
	for (int k = 0; k < SIM_FAULT_NKINDS; k++)
		handled += p->c.faults[k];
	ck_assert_uint_eq(res_source_counter(&p->c, "messages"), handled);
	ck_assert_uint_eq(res_source_counter(&p->c, "errors"), 0);
	res_file_free(&r);
	runner_clear_interrupt();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fault_unmap");
	TCase *tc = tcase_create("race");

	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, test_race_synthetic, 0, lock_nschemes);
	ADD_UFFD_TESTS(tc, test_race_uffd, lock_nschemes);
	ADD_UFFD_TESTS(tc, test_interrupt, lock_nschemes);
	tcase_add_test(tc, test_zap_synthetic);
	ADD_UFFD_TESTS(tc, test_zap_uffd, 1);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
