/* SPDX-License-Identifier: MIT */
/*
 * sim_rwsem (locks/sync/rw_semaphore.c) against the kernel's rules: a waiting
 * writer blocks the reader fast path, a reader steals from a woken
 * writer, HANDOFF stops stealing, downgrade lets queued readers in and not
 * the writer, and grants survive churn.
 */
#include "tests/check_util.h"
#include "locks/lock_ops.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "locks/sync/mutex.h"
#include "locks/sync/rw_semaphore.h"

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
	while (sim_rwsem_nr_waiters(&f.s) < 1)   /* the writer is queued */
		usleep(100);
	usleep(10 * 1000);                   /* a wait to account */
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
	ck_assert_uint_ge(tot.wait_total, 10 * 1000 * 1000);   /* >= 10 ms */
	sim_rwsem_destroy(&f.s);
	lockstat_class_free(cls);
}
END_TEST

/* A thread that takes the lock (write or read), records when, holds it
 * until told (or not at all: brief), and releases. */
struct taker {
	struct sim_rwsem *s;
	bool write;
	_Atomic int held;                /* 1 while held */
	_Atomic uint64_t when;           /* ns, when it got the lock; 0: not yet */
	_Atomic int release;
	pthread_t th;
};

static void *taker_main(void *arg)
{
	struct taker *k = arg;
	uint64_t t = k->write ? sim_down_write(k->s) : sim_down_read(k->s);

	atomic_store(&k->when, lockstat_now());
	atomic_store(&k->held, 1);
	while (!atomic_load(&k->release))
		usleep(100);
	atomic_store(&k->held, 0);
	if (k->write)
		sim_up_write(k->s, t);
	else
		sim_up_read(k->s, t);
	return NULL;
}

static void taker_start(struct taker *k, struct sim_rwsem *s, bool write,
			bool brief)
{
	*k = (struct taker){ .s = s, .write = write };
	atomic_store(&k->release, brief);
	pthread_create(&k->th, NULL, taker_main, k);
}

static void taker_finish(struct taker *k)
{
	atomic_store(&k->release, 1);
	pthread_join(k->th, NULL);
}

static void wait_waiters(struct sim_rwsem *s, int n)
{
	while (sim_rwsem_nr_waiters(s) < n)
		usleep(100);
}

static uint64_t rwsem_event(struct sim_rwsem *s, const char *name)
{
	const char *names[LOCK_MAX_COUNTERS];
	uint64_t vals[LOCK_MAX_COUNTERS];
	int n = sim_rwsem_counters(s, names, vals);

	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return vals[i];
	return 0;
}

/*
 * A writer woken by up_write() is not handed the lock: it must compete
 * again, and a reader that comes first steals it (rwsem_down_read_slowpath
 * "reader optimistic lock stealing"). The woken writer needs a few
 * microseconds to run; the reader is already running, so it wins — in
 * at least one of 200 rounds (it stops at the first; 20 were once all
 * lost with another test running beside it), whatever the scheduler
 * does. A rwsem that
 * grants the head writer directly always has the writer in first.
 */
START_TEST(test_rwsem_reader_steals_from_woken_writer)
{
	struct sim_rwsem s;
	int steals = 0;

	ck_assert_int_eq(sim_rwsem_init(&s, NULL), 0);
	for (int round = 0; round < 200 && !steals; round++) {
		uint64_t tw = sim_down_write(&s), tr, t_read;
		struct taker w;

		taker_start(&w, &s, true, true);
		wait_waiters(&s, 1);
		sim_up_write(&s, tw);             /* wakes w; does not grant */
		tr = sim_down_read(&s);
		t_read = lockstat_now();
		sim_up_read(&s, tr);
		taker_finish(&w);
		/* Did the reader get in before the woken writer? */
		if (atomic_load(&w.when) > t_read)
			steals++;
	}
	ck_assert_msg(steals > 0, "a reader never overtook a woken writer");
	ck_assert_uint_ge(rwsem_event(&s, "rwsem_rlock_steal"), 1);
	sim_rwsem_destroy(&s);
}
END_TEST

/*
 * A writer that has waited more than 4 ms and still loses sets HANDOFF:
 * from then on no reader may steal, and the writer gets the lock before
 * a reader that arrives after it (rwsem_try_write_lock, RWSEM_WAIT_TIMEOUT).
 */
START_TEST(test_rwsem_handoff_stops_stealing)
{
	struct sim_rwsem s;
	bool done = false;

	ck_assert_int_eq(sim_rwsem_init(&s, NULL), 0);
	/* The steal is a race the woken writer sometimes wins (more often
	 * on an idle machine): up to 200 tries, each about 6 ms. */
	for (int round = 0; round < 200 && !done; round++) {
		uint64_t tw = sim_down_write(&s), tr, t;
		struct taker w, r2;

		taker_start(&w, &s, true, true);
		wait_waiters(&s, 1);
		usleep(6000);                     /* w has waited > 4 ms */
		sim_up_write(&s, tw);
		tr = sim_down_read(&s);           /* steal (usually) */
		if (atomic_load(&w.when)) {       /* w was in first: again */
			sim_up_read(&s, tr);
			taker_finish(&w);
			continue;
		}
		/* w retries, fails (we hold it) and sets HANDOFF. */
		while (!sim_rwsem_has_handoff(&s))
			usleep(100);
		/* Now even a trylock fails, and a new reader queues. */
		ck_assert(!sim_down_read_trylock(&s, &t));
		taker_start(&r2, &s, false, true);
		wait_waiters(&s, 2);
		ck_assert_uint_eq(atomic_load(&r2.when), 0);
		sim_up_read(&s, tr);              /* w gets it, then r2 */
		taker_finish(&w);
		taker_finish(&r2);
		ck_assert_uint_lt(atomic_load(&w.when), atomic_load(&r2.when));
		done = true;
	}
	ck_assert_msg(done, "the woken writer always got the lock first");
	ck_assert_uint_ge(rwsem_event(&s, "rwsem_wlock_handoff"), 1);
	sim_rwsem_destroy(&s);
}
END_TEST

/*
 * downgrade_write(): the writer keeps a read lock; the readers queued
 * behind it get in at once; a queued writer waits for all of them.
 */
START_TEST(test_rwsem_downgrade)
{
	struct sim_rwsem s;
	struct taker r1, r2, w3;
	uint64_t t;

	ck_assert_int_eq(sim_rwsem_init(&s, NULL), 0);
	t = sim_down_write(&s);
	taker_start(&r1, &s, false, false);
	taker_start(&r2, &s, false, false);
	wait_waiters(&s, 2);
	taker_start(&w3, &s, true, false);
	wait_waiters(&s, 3);
	t = sim_downgrade_write(&s, t);
	ck_assert(!sim_rwsem_is_write_locked(&s));
	while (!atomic_load(&r1.held) || !atomic_load(&r2.held))
		usleep(100);
	ck_assert_int_eq(atomic_load(&w3.held), 0);
	ck_assert_int_eq(sim_rwsem_nr_waiters(&s), 1);
	taker_finish(&r1);
	taker_finish(&r2);
	usleep(1000);
	ck_assert_int_eq(atomic_load(&w3.held), 0);   /* we still read */
	sim_up_read(&s, t);
	while (!atomic_load(&w3.held))
		usleep(100);
	taker_finish(&w3);
	sim_rwsem_destroy(&s);
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

/* owner_on_cpu(), as far as it is known: a writer that waits for a
 * writer owner which took the lock on the waiter's own CPU does not spin
 * (that owner cannot be running); on another CPU it may. */
struct offcpu {
	struct sim_rwsem s;
	int cpu;
};

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ck_assert_int_eq(pthread_setaffinity_np(pthread_self(), sizeof(set), &set), 0);
}

static void *offcpu_writer(void *arg)
{
	struct offcpu *o = arg;

	pin_to(o->cpu);
	sim_up_write(&o->s, sim_down_write(&o->s));
	return NULL;
}

static uint64_t offcpu_events(int waiter_cpu)
{
	struct offcpu o = { .cpu = waiter_cpu };
	pthread_t t;
	uint64_t n;

	ck_assert_int_eq(sim_rwsem_init(&o.s, NULL), 0);
	pin_to(0);
	uint64_t h = sim_down_write(&o.s);

	pthread_create(&t, NULL, offcpu_writer, &o);
	usleep(20 * 1000);              /* the owner sleeps holding it */
	sim_up_write(&o.s, h);
	pthread_join(t, NULL);
	n = atomic_load(&o.s.events[RWSEM_EV_OWNER_OFF_CPU]);
	ck_assert_uint_eq(atomic_load(&o.s.events[RWSEM_EV_OPT_LOCK]), 0);
	sim_rwsem_destroy(&o.s);
	return n;
}

START_TEST(test_rwsem_owner_off_cpu)
{
	cpu_set_t all;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	if (!CPU_ISSET(0, &all))
		return;                  /* CPU 0 not ours: nothing to pin */
	ck_assert_uint_ge(offcpu_events(0), 1);
	if (CPU_ISSET(1, &all))
		ck_assert_uint_eq(offcpu_events(1), 0);
	sched_setaffinity(0, sizeof(all), &all);
}
END_TEST

/* --- the mutex (locks/sync/mutex.h) ------------------------------------- */

#define MUTEX_THREADS 4
#define MUTEX_ROUNDS 20000

struct mutex_run {
	struct sim_mutex m;
	long count;                      /* plain: the mutex guards it */
	_Atomic int inside, overlaps;
};

static void *mutex_worker(void *arg)
{
	struct mutex_run *r = arg;

	for (int i = 0; i < MUTEX_ROUNDS; i++) {
		uint64_t t = sim_mutex_lock(&r->m);

		if (atomic_fetch_add(&r->inside, 1))
			atomic_fetch_add(&r->overlaps, 1);
		r->count++;
		atomic_fetch_sub(&r->inside, 1);
		sim_mutex_unlock(&r->m, t);
	}
	return NULL;
}

/* One holder at a time, every acquisition counted, none lost. */
START_TEST(test_mutex_excludes)
{
	struct mutex_run r = { 0 };
	struct lockstat_class *cls = lockstat_class_new("mutex");
	struct lockstat_totals tot;
	pthread_t t[MUTEX_THREADS];

	sim_mutex_init(&r.m, cls);
	for (int i = 0; i < MUTEX_THREADS; i++)
		pthread_create(&t[i], NULL, mutex_worker, &r);
	for (int i = 0; i < MUTEX_THREADS; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(atomic_load(&r.overlaps), 0);
	ck_assert_int_eq(r.count, (long)MUTEX_THREADS * MUTEX_ROUNDS);
	ck_assert(!sim_mutex_is_locked(&r.m));
	lockstat_sum(cls, LS_WRITE, &tot);
	ck_assert_uint_eq(tot.acquisitions, (uint64_t)MUTEX_THREADS * MUTEX_ROUNDS);
	lockstat_class_free(cls);
}
END_TEST

static void *mutex_waiter(void *arg)
{
	struct mutex_run *r = arg;
	uint64_t t = sim_mutex_lock(&r->m);

	r->count = 1;
	sim_mutex_unlock(&r->m, t);
	return NULL;
}

/* A locker that sleeps is woken by the unlock, and its wait is counted. */
START_TEST(test_mutex_sleeper_woken)
{
	struct mutex_run r = { 0 };
	struct lockstat_class *cls = lockstat_class_new("mutex");
	struct lockstat_totals tot;
	pthread_t w;
	uint64_t t, t2;

	sim_mutex_init(&r.m, cls);
	t = sim_mutex_lock(&r.m);
	pthread_create(&w, NULL, mutex_waiter, &r);
	while (atomic_load(&r.m.state) != 2)     /* past its spin, asleep */
		usleep(100);
	usleep(10 * 1000);                       /* a wait to account */
	ck_assert(!sim_mutex_trylock(&r.m, &t2));
	sim_mutex_unlock(&r.m, t);
	pthread_join(w, NULL);
	ck_assert_int_eq(r.count, 1);
	ck_assert(sim_mutex_trylock(&r.m, &t2));
	sim_mutex_unlock(&r.m, t2);
	lockstat_sum(cls, LS_WRITE, &tot);
	ck_assert_uint_eq(tot.acquisitions, 3);
	ck_assert_uint_eq(tot.contentions, 1);
	ck_assert_uint_ge(tot.wait_total, 10 * 1000 * 1000);   /* >= 10 ms */
	lockstat_class_free(cls);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rwsem");
	TCase *tf = tcase_create("fairness");

	tcase_set_timeout(tf, 120);
	tcase_add_test(tf, test_rwsem_writer_blocks_new_readers);
	tcase_add_test(tf, test_rwsem_reader_steals_from_woken_writer);
	tcase_add_test(tf, test_rwsem_handoff_stops_stealing);
	tcase_add_test(tf, test_rwsem_downgrade);
	tcase_add_test(tf, test_rwsem_grant_churn);
	tcase_add_test(tf, test_rwsem_owner_off_cpu);
	tcase_add_test(tf, test_mutex_excludes);
	tcase_add_test(tf, test_mutex_sleeper_woken);
	suite_add_tcase(s, tf);
	return check_run(s, CK_VERBOSE);
}
