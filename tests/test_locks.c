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
#include "tests/check_util.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	struct vma_lock vma[NPAGES];     /* one simulated VMA per page */
	_Atomic int readers[NPAGES];
	_Atomic int writers[NPAGES];
	_Atomic long violations;
	_Atomic long writes, reads, faults;
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

static void hold_write(struct validator *v, int lo, int hi, bool nap)
{
	for (int p = lo; p < hi; p++)
		if (atomic_fetch_add(&v->writers[p], 1) != 0 ||
		    atomic_load(&v->readers[p]))
			atomic_fetch_add(&v->violations, 1);
	/* Sometimes sleep while holding, as a writer waiting for VMA readers
	 * does: waiters pile up and the wake-up paths get exercised. */
	if (nap)
		usleep(1);
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
			/* As the mm does: write-lock every VMA it changes. */
			for (int p = lo; ops->vma_start_write && p < hi; p++)
				ops->vma_start_write(v->l, &v->vma[p]);
			hold_write(v, lo, hi, rand_r(&seed) % 8 == 0);
			ops->write_end(v->l, &h);
		} else if (kind == 1) {
			ops->read_range_begin(v->l, BASE + lo * PG, BASE + hi * PG, &h);
			hold_read(v, lo, hi);
			ops->read_range_end(v->l, &h);
		} else {
			atomic_fetch_add(&v->faults, 1);
			ops->fault_begin(v->l, BASE + lo * PG, &h);
			hold_read(v, lo, lo + 1);
			ops->fault_end(v->l, &h);
		}
	}
	return NULL;
}

/* Page p is VMA p: pervma's lock_vma_under_rcu finds it lock-free. */
static void *page_vma(void *arg, unsigned long addr, struct vma_lock **lock)
{
	struct validator *v = arg;
	unsigned long p = (addr - BASE) / PG;

	if (addr < BASE || p >= NPAGES)
		return NULL;
	*lock = &v->vma[p];
	return &v->vma[p];              /* the VMA's identity */
}

static void validate(const struct lock_ops *ops)
{
	struct validator *v = calloc(1, sizeof(*v));
	struct lock_env env = { .space_start = BASE,
				.space_end = BASE + NPAGES * PG,
				.vma_lookup = page_vma, .arg = v };
	pthread_t t[NTHREADS];
	struct lockstat_totals tot;
	struct lock_handle h = { 0 };
	uint64_t acq = 0;
	const char *names[LOCK_MAX_COUNTERS];
	uint64_t vals[LOCK_MAX_COUNTERS];

	ck_assert_int_eq(ops->create(&env, &v->l), 0);
	/* The VMAs are created in a write cycle, as the mm creates them. */
	ops->write_begin(v->l, BASE, BASE + NPAGES * PG, &h);
	for (int p = 0; ops->vma_init && p < NPAGES; p++)
		ops->vma_init(v->l, &v->vma[p]);
	ops->write_end(v->l, &h);
	alarm(120);     /* a lost wake-up hangs: make it a failure */
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, validator_thread, v);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	alarm(0);
	ck_assert_int_eq(atomic_load(&v->reads) + atomic_load(&v->writes),
			 NTHREADS * ROUNDS);
	printf("validate %-10s %ld reads, %ld writes (%ld faults), %ld violations\n",
	       ops->name, atomic_load(&v->reads), atomic_load(&v->writes),
	       atomic_load(&v->faults), atomic_load(&v->violations));
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
	/* pervma: most faults took the VMA lock; every fault is counted once
	 * as a success or a fallback (abort). */
	if (ops->counters) {
		int n = ops->counters(v->l, names, vals);
		uint64_t ok = 0, abort = 0;

		for (int i = 0; i < n; i++) {
			if (!strcmp(names[i], "vma_lock_success"))
				ok = vals[i];
			if (!strcmp(names[i], "vma_lock_abort"))
				abort = vals[i];
		}
		ck_assert_uint_eq(ok + abort, (uint64_t)atomic_load(&v->faults));
		ck_assert_uint_gt(ok, abort);
	}
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

/*
 * sim_rwsem under churn: short readers, writers that sometimes sleep while
 * holding. Catches a granter that lets the lock look free while it is
 * still granting queued readers (a stealing writer then overlaps them).
 */
struct churn {
	struct sim_rwsem s;
	_Atomic int readers, writers;
	_Atomic long viol;
};

static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	unsigned seed = (unsigned)(uintptr_t)pthread_self();

	for (int i = 0; i < 20000; i++) {
		int k = rand_r(&seed) % 8;
		uint64_t t;

		if (k == 0) {
			t = sim_down_write(&c->s);
			if (atomic_fetch_add(&c->writers, 1) || atomic_load(&c->readers))
				atomic_fetch_add(&c->viol, 1);
			if (rand_r(&seed) % 4 == 0)
				usleep(1);
			atomic_fetch_sub(&c->writers, 1);
			sim_up_write(&c->s, t);
		} else if (k < 3) {
			t = sim_down_read(&c->s);
			atomic_fetch_add(&c->readers, 1);
			if (atomic_load(&c->writers))
				atomic_fetch_add(&c->viol, 1);
			atomic_fetch_sub(&c->readers, 1);
			sim_up_read(&c->s, t);
		}
	}
	return NULL;
}

START_TEST(test_rwsem_grant_churn)
{
	struct churn *c = calloc(1, sizeof(*c));
	pthread_t t[4];

	ck_assert_int_eq(sim_rwsem_init(&c->s, NULL), 0);
	alarm(120);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, churn_thread, c);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	alarm(0);
	long viol = atomic_load(&c->viol);

	ck_assert_msg(viol == 0, "%ld reader/writer overlaps", viol);
	sim_rwsem_destroy(&c->s);
	free(c);
}
END_TEST

/* --- range lock: FIFO among conflicting requests -------------------------- */

struct req {
	struct lock_inst *l;
	unsigned long start, end;
	bool writer;
	_Atomic int held, release;
	struct lock_handle h;
};

static void *req_thread(void *arg)
{
	struct req *r = arg;

	if (r->writer)
		r->l->ops->write_begin(r->l, r->start, r->end, &r->h);
	else
		r->l->ops->read_range_begin(r->l, r->start, r->end, &r->h);
	atomic_store(&r->held, 1);
	while (!atomic_load(&r->release))
		usleep(1000);
	if (r->writer)
		r->l->ops->write_end(r->l, &r->h);
	else
		r->l->ops->read_range_end(r->l, &r->h);
	return NULL;
}

START_TEST(test_range_fifo)
{
	struct lock_env env = { .space_start = BASE, .space_end = BASE + 64 * PG };
	struct lock_inst *l;
	struct req a = { .start = BASE, .end = BASE + 10 * PG, .writer = true };
	struct req b = { .start = BASE + 5 * PG, .end = BASE + 15 * PG, .writer = true };
	struct req c = { .start = BASE + 12 * PG, .end = BASE + 13 * PG };
	struct req d = { .start = BASE + 40 * PG, .end = BASE + 41 * PG, .writer = true };
	pthread_t ta, tb, tc, td;

	ck_assert_int_eq(range_lock_ops.create(&env, &l), 0);
	a.l = b.l = c.l = d.l = l;
	pthread_create(&ta, NULL, req_thread, &a);
	while (!atomic_load(&a.held))
		usleep(1000);
	pthread_create(&tb, NULL, req_thread, &b);     /* waits for a */
	usleep(50000);
	pthread_create(&tc, NULL, req_thread, &c);     /* behind b, not a */
	pthread_create(&td, NULL, req_thread, &d);     /* conflicts with nobody */
	usleep(50000);
	ck_assert_int_eq(atomic_load(&b.held), 0);
	ck_assert_int_eq(atomic_load(&c.held), 0);     /* FIFO: no overtaking b */
	ck_assert_int_eq(atomic_load(&d.held), 1);     /* disjoint: runs at once */
	atomic_store(&a.release, 1);
	while (!atomic_load(&b.held))
		usleep(1000);
	usleep(50000);
	ck_assert_int_eq(atomic_load(&c.held), 0);
	atomic_store(&b.release, 1);
	while (!atomic_load(&c.held))
		usleep(1000);
	atomic_store(&c.release, 1);
	atomic_store(&d.release, 1);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	pthread_join(tc, NULL);
	pthread_join(td, NULL);
	range_lock_ops.destroy(l);
}
END_TEST

/* range-full: even disjoint writers exclude each other. */
START_TEST(test_range_full_is_global)
{
	struct lock_env env = { .space_start = BASE, .space_end = BASE + 64 * PG };
	struct lock_inst *l;
	struct req a = { .start = BASE, .end = BASE + PG, .writer = true };
	struct req d = { .start = BASE + 40 * PG, .end = BASE + 41 * PG, .writer = true };
	pthread_t ta, td;

	ck_assert_int_eq(range_full_lock_ops.create(&env, &l), 0);
	a.l = d.l = l;
	pthread_create(&ta, NULL, req_thread, &a);
	while (!atomic_load(&a.held))
		usleep(1000);
	pthread_create(&td, NULL, req_thread, &d);
	usleep(50000);
	ck_assert_int_eq(atomic_load(&d.held), 0);
	atomic_store(&a.release, 1);
	while (!atomic_load(&d.held))
		usleep(1000);
	atomic_store(&d.release, 1);
	pthread_join(ta, NULL);
	pthread_join(td, NULL);
	range_full_lock_ops.destroy(l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("locks");
	TCase *tc = tcase_create("validator");
	TCase *tf = tcase_create("fairness");

	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, test_validate_scheme, 0, lock_nschemes);
	tcase_add_test(tf, test_rwsem_writer_blocks_new_readers);
	tcase_add_test(tf, test_rwsem_grant_churn);
	tcase_add_test(tf, test_range_fifo);
	tcase_add_test(tf, test_range_full_is_global);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tf);
	return check_run(s, CK_VERBOSE);
}
