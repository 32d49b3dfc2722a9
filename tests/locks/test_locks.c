/* SPDX-License-Identifier: MIT */
/*
 * The generic lock validator, run over every scheme in locks/schemes.def
 * (in the manner of Concurrency Kit's regressions/<prim>/validate): many
 * threads take the fault side, the range-read side and the write side on
 * random page ranges of a small space and check, per page, that a writer
 * never overlaps another holder and a reader never overlaps a writer. The
 * run is bounded: a lost wake-up shows as the alarm firing.
 *
 * The validator also drives the newer parts of the interface: faults
 * that ask for a retry (fault_validate) and writes that downgrade to the
 * read side. Under `none` it must find violations (that proves it can).
 *
 * Then the range lock's own rules: conflicting ranges are served FIFO, a
 * downgrade lets readers of the range in, and range-full behaves as one
 * global lock. (sim_rwsem's kernel rules — writers blocking new readers,
 * stealing, HANDOFF, downgrade — are tests/locks/test_rwsem.c.)
 */
#include "tests/check_util.h"
#include "tests/locks/lock_util.h"
#include "locks/schemes.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "locks/lock_ops.h"
#include "base/debug.h"
#include "locks/sync/rw_semaphore.h"

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
	_Atomic long writes, reads, faults, retries;
};

static void hold_read(struct validator *v, int lo, int hi)
{
	for (int p = lo; p < hi; p++)
		atomic_fetch_add(&v->readers[p], 1);
	for (int p = lo; p < hi; p++)
		if (atomic_load(&v->writers[p]))
			atomic_fetch_add(&v->violations, 1);
	/* Hold a while, as a resolve does: a writer that does not wait for
	 * committing readers (spf without its PTL pass) is caught here. */
	for (int i = 0; i < 200; i++)
		__asm__ __volatile__("" ::: "memory");
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
			bool downgrade = rand_r(&seed) % 2;

			ops->write_begin(v->l, BASE + lo * PG, BASE + hi * PG, &h);
			/* As the mm does: write-lock every VMA it changes. */
			for (int p = lo; ops->vma_start_write && p < hi; p++)
				ops->vma_start_write(v->l, &v->vma[p]);
			hold_write(v, lo, hi, rand_r(&seed) % 8 == 0);
			if (!downgrade) {
				ops->write_end(v->l, &h);
				continue;
			}
			/* munmap: the same range, now shared with readers. */
			ops->write_downgrade(v->l, &h);
			hold_read(v, lo, hi);
			ops->read_range_end(v->l, &h);
		} else if (kind == 1) {
			ops->read_range_begin(v->l, BASE + lo * PG, BASE + hi * PG,
					      rand_r(&seed) % 2 ? LOCK_RANGE_VMA : 0, &h);
			hold_read(v, lo, hi);
			ops->read_range_end(v->l, &h);
		} else {
			unsigned need = rand_r(&seed) % 4 == 0 ? LOCK_NEED_MM : 0;

			atomic_fetch_add(&v->faults, 1);
			ops->fault_begin(v->l, BASE + lo * PG, 0, &h);
			if (ops->fault_validate &&
			    ops->fault_validate(v->l, &h, need) == -EAGAIN) {
				/* As the fault path does: end, retry stronger. */
				ops->fault_end(v->l, &h);
				ops->fault_begin(v->l, BASE + lo * PG,
						 LOCK_FAULT_RETRY, &h);
				ck_assert_int_eq(ops->fault_validate(v->l, &h, need), 0);
				atomic_fetch_add(&v->retries, 1);
			}
			hold_read(v, lo, lo + 1);
			ops->fault_end(v->l, &h);
		}
	}
	return NULL;
}

/* Page p is VMA p: pervma's lock_vma_under_rcu finds it lock-free. */
static bool page_vma(void *arg, unsigned long addr, struct lock_vma *out)
{
	struct validator *v = arg;
	unsigned long p = (addr - BASE) / PG;

	if (addr < BASE || p >= NPAGES)
		return false;
	*out = (struct lock_vma){ &v->vma[p], &v->vma[p], BASE + p * PG,
				  BASE + (p + 1) * PG };
	return true;
}

/* Page p's VMA is never reused here: it covers what its page holds. */
static bool page_covers(void *arg, void *vma, unsigned long start,
			unsigned long end)
{
	struct validator *v = arg;
	unsigned long p = (unsigned long)((struct vma_lock *)vma - v->vma);

	return start >= BASE + p * PG && end <= BASE + (p + 1) * PG;
}

static void validate(const struct lock_ops *ops)
{
	struct validator *v = calloc(1, sizeof(*v));
	struct lock_env env = { .space_start = BASE,
				.space_end = BASE + NPAGES * PG,
				.vma_lookup = page_vma,
				.vma_covers = page_covers, .arg = v };
	pthread_t t[NTHREADS];
	struct lockstat_totals tot;
	struct lock_handle h = { 0 };
	uint64_t acq = 0;

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
	/* A downgraded write is a write and a read. */
	ck_assert_int_ge(atomic_load(&v->reads) + atomic_load(&v->writes),
			 NTHREADS * ROUNDS);
	printf("validate %-10s %ld reads, %ld writes (%ld faults, %ld retried), "
	       "%ld violations\n", ops->name, atomic_load(&v->reads),
	       atomic_load(&v->writes), atomic_load(&v->faults),
	       atomic_load(&v->retries), atomic_load(&v->violations));
	if (ops->excludes)
		ck_assert_msg(atomic_load(&v->violations) == 0,
			      "%s: %ld exclusion violations", ops->name,
			      atomic_load(&v->violations));
	else                             /* the validator can fail */
		ck_assert_msg(atomic_load(&v->violations) > 0,
			      "%s: no violations found without exclusion",
			      ops->name);
	/* Every scheme accounts every acquisition in some class. */
	for (int c = 0; c < v->l->nclasses; c++)
		for (int s = 0; s < LS_NSIDES; s++) {
			lockstat_sum(v->l->classes[c], s, &tot);
			acq += tot.acquisitions;
		}
	ck_assert_uint_ge(acq, (uint64_t)NTHREADS * ROUNDS);
	/* pervma and spf: every fault is counted once as a success or a
	 * failure, the retried ones as many as the validator retried, and
	 * most succeeded. */
	if (ops->fault_validate) {
		uint64_t ok, retried;
		uint64_t n = scheme_attempts(v->l, &ok, &retried);

		ck_assert_uint_eq(n, (uint64_t)atomic_load(&v->faults));
		ck_assert_uint_eq(retried, (uint64_t)atomic_load(&v->retries));
		ck_assert_uint_gt(ok, n - ok);
	}
	ops->destroy(v->l);
	free(v);
}

START_TEST(test_validate_scheme)
{
	validate(lock_schemes[_i]);
}
END_TEST

/* --- range lock: FIFO among conflicting requests -------------------------- */

/* The range lock's count of acquisitions that queued behind a conflict:
 * reaching n means the n-th conflicting request is in the queue. */
static void wait_queued(struct lock_inst *l, uint64_t n)
{
	while (scheme_counter(l, "range_queued") < n)
		sched_yield();
}

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
		r->l->ops->read_range_begin(r->l, r->start, r->end, 0, &r->h);
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
	wait_queued(l, 1);
	pthread_create(&tc, NULL, req_thread, &c);     /* behind b, not a */
	wait_queued(l, 2);
	pthread_create(&td, NULL, req_thread, &d);     /* conflicts with nobody */
	while (!atomic_load(&d.held))
		sched_yield();
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

/* A downgraded range lets the overlapping reader queued behind it in,
 * not the overlapping writer. */
START_TEST(test_range_downgrade)
{
	struct lock_env env = { .space_start = BASE, .space_end = BASE + 64 * PG };
	struct lock_inst *l;
	struct lock_handle h = { 0 };
	struct req r = { .start = BASE + 5 * PG, .end = BASE + 6 * PG };
	struct req w = { .start = BASE + 5 * PG, .end = BASE + 6 * PG, .writer = true };
	pthread_t tr, tw;

	ck_assert_int_eq(range_lock_ops.create(&env, &l), 0);
	r.l = w.l = l;
	l->ops->write_begin(l, BASE, BASE + 10 * PG, &h);
	pthread_create(&tr, NULL, req_thread, &r);
	wait_queued(l, 1);                           /* r, then w, queued */
	pthread_create(&tw, NULL, req_thread, &w);
	wait_queued(l, 2);
	ck_assert_int_eq(atomic_load(&r.held), 0);
	l->ops->write_downgrade(l, &h);
	while (!atomic_load(&r.held))
		usleep(1000);
	usleep(20000);
	ck_assert_int_eq(atomic_load(&w.held), 0);
	atomic_store(&r.release, 1);
	pthread_join(tr, NULL);
	ck_assert_int_eq(atomic_load(&w.held), 0);   /* we still read */
	l->ops->read_range_end(l, &h);
	while (!atomic_load(&w.held))
		usleep(1000);
	atomic_store(&w.release, 1);
	pthread_join(tw, NULL);
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
	wait_queued(l, 1);                           /* d conflicts with a */
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

/* An invariant broken on purpose is said (SIM_WARN_ON, in debug and
 * sanitizer builds): pervma's detach of a VMA without the mm's write
 * lock, as the kernel's vma_assert_write_locked() would catch. And the
 * same detach under the write lock is silent. */
START_TEST(test_invariant_fires)
{
	struct lock_env env = { .space_start = BASE, .space_end = BASE + 64 * PG };
	struct lock_inst *l;
	struct lock_handle h;
	struct vma_lock a, b;
	unsigned long before;

	if (!SIM_DEBUG_CHECKS) {
		printf("test_invariant_fires: checks compiled out of this build "
		       "(the sanitizer suites run it)\n");
		return;
	}
	unsetenv("VMSIM_WARN_FATAL");    /* this one is meant to fire */
	ck_assert_int_eq(pervma_lock_ops.create(&env, &l), 0);
	pervma_lock_ops.write_begin(l, BASE, BASE + PG, &h);
	pervma_lock_ops.vma_init(l, &a);
	pervma_lock_ops.vma_init(l, &b);
	before = atomic_load(&sim_warnings);
	pervma_lock_ops.vma_mark_detached(l, &a);
	ck_assert_uint_eq(atomic_load(&sim_warnings), before);
	pervma_lock_ops.write_end(l, &h);
	pervma_lock_ops.vma_mark_detached(l, &b);      /* not write-locked */
	ck_assert_uint_gt(atomic_load(&sim_warnings), before);
	pervma_lock_ops.destroy(l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("locks");
	TCase *tc = tcase_create("validator");
	TCase *tf = tcase_create("fairness");

	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, test_validate_scheme, 0, lock_nschemes);
	tcase_add_test(tf, test_range_downgrade);
	tcase_add_test(tf, test_range_fifo);
	tcase_add_test(tf, test_range_full_is_global);
	tcase_add_test(tf, test_invariant_fires);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tf);
	return check_run(s, CK_VERBOSE);
}
