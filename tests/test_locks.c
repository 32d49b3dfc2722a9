/* SPDX-License-Identifier: MIT */
/*
 * The generic lock validator, run over every scheme in locks/schemes.def
 * (in the manner of Concurrency Kit's regressions/<prim>/validate): many
 * threads take the fault side, the range-read side and the write side on
 * random page ranges of a small space and check, per page, that a writer
 * never overlaps another holder and a reader never overlaps a writer. The
 * run is bounded: a lost wake-up shows as the alarm firing.
 *
 * Then sim_rwsem's kernel fairness rules: a waiting writer blocks new
 * readers, and contention is counted.
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "locks/lock_ops.h"
#include "locks/rw_semaphore.h"

#define NPAGES   64
#define PG       4096UL
#define BASE     0x100000000UL
#define NTHREADS 4
#define ROUNDS   20000

struct validator {
	struct lock_inst *l;
	_Atomic int readers[NPAGES];
	_Atomic int writers[NPAGES];
	_Atomic long violations;
	_Atomic long writes, reads;
};

static void hold_read(struct validator *v, int lo, int hi)
{
	for (int p = lo; p < hi; p++)
		atomic_fetch_add(&v->readers[p], 1);
	for (int p = lo; p < hi; p++)
		if (atomic_load(&v->writers[p]))
			atomic_fetch_add(&v->violations, 1);
	for (int p = lo; p < hi; p++)
		atomic_fetch_sub(&v->readers[p], 1);
	atomic_fetch_add(&v->reads, 1);
}

static void hold_write(struct validator *v, int lo, int hi)
{
	for (int p = lo; p < hi; p++)
		if (atomic_fetch_add(&v->writers[p], 1) != 0 ||
		    atomic_load(&v->readers[p]))
			atomic_fetch_add(&v->violations, 1);
	for (int i = 0; i < 50; i++)
		__asm__ __volatile__("" ::: "memory");
	for (int p = lo; p < hi; p++)
		atomic_fetch_sub(&v->writers[p], 1);
	atomic_fetch_add(&v->writes, 1);
}

static void *validator_thread(void *arg)
{
	struct validator *v = arg;
	const struct lock_ops *ops = v->l->ops;
	unsigned seed = (unsigned)(uintptr_t)pthread_self();

	for (int i = 0; i < ROUNDS; i++) {
		struct lock_handle h = { 0 };
		int lo = rand_r(&seed) % NPAGES;
		int hi = lo + 1 + rand_r(&seed) % (NPAGES - lo);
		int kind = rand_r(&seed) % 8;

		if (kind == 0) {
			ops->write_begin(v->l, BASE + lo * PG, BASE + hi * PG, &h);
			hold_write(v, lo, hi);
			ops->write_end(v->l, &h);
		} else if (kind == 1) {
			ops->read_range_begin(v->l, BASE + lo * PG, BASE + hi * PG, &h);
			hold_read(v, lo, hi);
			ops->read_range_end(v->l, &h);
		} else {
			ops->fault_begin(v->l, BASE + lo * PG, &h);
			hold_read(v, lo, lo + 1);
			ops->fault_end(v->l, &h);
		}
	}
	return NULL;
}

static void *no_vma(void *arg, unsigned long addr)
{
	return NULL;
}

static void validate(const struct lock_ops *ops)
{
	struct lock_env env = { .space_start = BASE,
				.space_end = BASE + NPAGES * PG,
				.vma_lookup = no_vma };
	struct validator *v = calloc(1, sizeof(*v));
	pthread_t t[NTHREADS];
	struct lockstat_totals tot;
	uint64_t acq = 0;

	ck_assert_int_eq(ops->create(&env, &v->l), 0);
	alarm(120);     /* a lost wake-up hangs: make it a failure */
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, validator_thread, v);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	alarm(0);
	ck_assert_int_eq(atomic_load(&v->reads) + atomic_load(&v->writes),
			 NTHREADS * ROUNDS);
	if (ops->excludes)
		ck_assert_msg(atomic_load(&v->violations) == 0,
			      "%s: %ld exclusion violations", ops->name,
			      atomic_load(&v->violations));
	/* Every scheme accounts every acquisition in some class. */
	for (int c = 0; c < v->l->nclasses; c++)
		for (int s = 0; s < LS_NSIDES; s++) {
			lockstat_sum(v->l->classes[c], s, &tot);
			acq += tot.acquisitions;
		}
	ck_assert_uint_ge(acq, (uint64_t)NTHREADS * ROUNDS);
	ops->destroy(v->l);
	free(v);
}

START_TEST(test_validate_scheme)
{
	validate(lock_schemes[_i]);
}
END_TEST

/* --- sim_rwsem fairness ------------------------------------------------ */

struct fair {
	struct sim_rwsem s;
	_Atomic int writer_done;
};

static void *fair_writer(void *arg)
{
	struct fair *f = arg;
	uint64_t t = sim_down_write(&f->s);

	atomic_store(&f->writer_done, 1);
	sim_up_write(&f->s, t);
	return NULL;
}

START_TEST(test_rwsem_writer_blocks_new_readers)
{
	struct fair f = { 0 };
	struct lockstat_class *cls = lockstat_class_new("test");
	struct lockstat_totals tot;
	pthread_t w;
	uint64_t t0, t1;

	ck_assert_int_eq(sim_rwsem_init(&f.s, cls), 0);
	t0 = sim_down_read(&f.s);
	pthread_create(&w, NULL, fair_writer, &f);
	usleep(100 * 1000);                  /* the writer is queued now */
	ck_assert_int_eq(atomic_load(&f.writer_done), 0);
	/* A new reader must not overtake the waiting writer. */
	ck_assert(!sim_down_read_trylock(&f.s, &t1));
	ck_assert(!sim_down_write_trylock(&f.s, &t1));
	sim_up_read(&f.s, t0);
	pthread_join(w, NULL);
	ck_assert_int_eq(atomic_load(&f.writer_done), 1);
	ck_assert(sim_down_read_trylock(&f.s, &t1));
	sim_up_read(&f.s, t1);
	lockstat_sum(cls, LS_WRITE, &tot);
	ck_assert_uint_eq(tot.acquisitions, 1);
	ck_assert_uint_eq(tot.contentions, 1);
	ck_assert_uint_ge(tot.wait_total, 50 * 1000 * 1000);   /* >= 50 ms */
	sim_rwsem_destroy(&f.s);
	lockstat_class_free(cls);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("locks");
	TCase *tc = tcase_create("validator");
	TCase *tf = tcase_create("rwsem");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, test_validate_scheme, 0, lock_nschemes);
	tcase_add_test(tf, test_rwsem_writer_blocks_new_readers);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tf);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
