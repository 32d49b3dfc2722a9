/* SPDX-License-Identifier: MIT */
/*
 * The list-based range lock alone (locks/sync/range_list.h): disjoint
 * ranges held at once, readers sharing, writers excluding, a sleeper
 * woken by the release (and a reader by a downgrade), and many threads
 * of random ranges with nodes retired and reused while others walk past
 * them — every overlap of a writer with another holder counted.
 */
#include "tests/check_util.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "locks/sync/range_list.h"

#define PG 4096UL

static struct sim_range_list *new_lock(struct lockstat_class **cls)
{
	struct sim_range_list *l = calloc(1, sizeof(*l));

	ck_assert_ptr_nonnull(l);
	*cls = lockstat_class_new("range_list");
	ck_assert_int_eq(sim_range_list_init(l, *cls), 0);
	return l;
}

static void free_lock(struct sim_range_list *l, struct lockstat_class *cls)
{
	sim_rcu_barrier();               /* retired nodes freed first */
	sim_range_list_destroy(l);
	lockstat_class_free(cls);
	free(l);
}

static uint64_t counter(struct sim_range_list *l, enum srl_counter c)
{
	const char *names[SRL_NCOUNTERS];
	uint64_t v[SRL_NCOUNTERS];

	sim_range_list_counters(l, names, v);
	return v[c];
}

/* Disjoint writers and overlapping readers hold at once, from one
 * thread, without waiting. */
START_TEST(test_disjoint_and_shared)
{
	struct lockstat_class *cls;
	struct sim_range_list *l = new_lock(&cls);
	uint64_t t[4];
	struct srl_node *a = sim_range_list_lock(l, 0, 4 * PG, true, &t[0]);
	struct srl_node *b = sim_range_list_lock(l, 4 * PG, 8 * PG, true, &t[1]);
	struct srl_node *c = sim_range_list_lock(l, 8 * PG, 16 * PG, false, &t[2]);
	struct srl_node *d = sim_range_list_lock(l, 10 * PG, 12 * PG, false, &t[3]);

	ck_assert(a && b && c && d);
	ck_assert_uint_eq(counter(l, SRL_WAIT), 0);
	sim_range_list_unlock(l, b, t[1]);
	sim_range_list_unlock(l, a, t[0]);
	sim_range_list_unlock(l, d, t[3]);
	sim_range_list_unlock(l, c, t[2]);
	free_lock(l, cls);
}
END_TEST

struct waiter {
	struct sim_range_list *l;
	unsigned long start, end;
	bool writer;
	_Atomic int done;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	uint64_t t;
	struct srl_node *n = sim_range_list_lock(w->l, w->start, w->end,
						 w->writer, &t);

	atomic_store(&w->done, 1);
	sim_range_list_unlock(w->l, n, t);
	return NULL;
}

/* A conflicting locker sleeps until the holder lets go: no lost wake-up,
 * and its wait counted as a contention. */
static void sleeper_woken(bool holder_writer, bool waiter_writer)
{
	struct lockstat_class *cls;
	struct sim_range_list *l = new_lock(&cls);
	struct waiter w = { l, 2 * PG, 6 * PG, waiter_writer, 0 };
	struct lockstat_totals tot[2];
	uint64_t t;
	struct srl_node *h = sim_range_list_lock(l, 0, 4 * PG, holder_writer, &t);
	pthread_t th;

	pthread_create(&th, NULL, waiter_main, &w);
	while (!counter(l, SRL_SLEEP))   /* past its spin, asleep */
		usleep(100);
	usleep(10 * 1000);
	ck_assert_int_eq(atomic_load(&w.done), 0);
	sim_range_list_unlock(l, h, t);
	pthread_join(th, NULL);
	ck_assert_int_eq(atomic_load(&w.done), 1);
	lockstat_sum(cls, LS_READ, &tot[0]);
	lockstat_sum(cls, LS_WRITE, &tot[1]);
	ck_assert_uint_eq(tot[0].contentions + tot[1].contentions, 1);
	ck_assert_uint_eq(tot[0].acquisitions + tot[1].acquisitions, 2);
	free_lock(l, cls);
}

START_TEST(test_writer_excludes_writer) { sleeper_woken(true, true); }
END_TEST
START_TEST(test_writer_excludes_reader) { sleeper_woken(true, false); }
END_TEST
START_TEST(test_reader_excludes_writer) { sleeper_woken(false, true); }
END_TEST

/* A downgrade lets a waiting reader in, and a waiting writer still
 * waits for the release. */
START_TEST(test_downgrade)
{
	struct lockstat_class *cls;
	struct sim_range_list *l = new_lock(&cls);
	struct waiter r = { l, 0, PG, false, 0 }, w = { l, PG, 2 * PG, true, 0 };
	uint64_t t;
	struct srl_node *h = sim_range_list_lock(l, 0, 4 * PG, true, &t);
	pthread_t tr, tw;

	pthread_create(&tr, NULL, waiter_main, &r);
	pthread_create(&tw, NULL, waiter_main, &w);
	while (counter(l, SRL_SLEEP) < 2)
		usleep(100);
	t = sim_range_list_downgrade(l, h, t);
	pthread_join(tr, NULL);
	ck_assert_int_eq(atomic_load(&r.done), 1);
	usleep(10 * 1000);
	ck_assert_int_eq(atomic_load(&w.done), 0);
	sim_range_list_unlock(l, h, t);
	pthread_join(tw, NULL);
	ck_assert_int_eq(atomic_load(&w.done), 1);
	free_lock(l, cls);
}
END_TEST

/* Random ranges from several threads: a writer never overlaps another
 * holder; nodes are unlinked, retired and their memory reused while the
 * others walk the list. */
#define STRESS_THREADS 8
#define STRESS_ROUNDS 20000
#define STRESS_PAGES 8

struct stress {
	struct sim_range_list *l;
	_Atomic int readers[STRESS_PAGES], writers[STRESS_PAGES];
	_Atomic long violations;
};

static void *stress_main(void *arg)
{
	struct stress *s = arg;
	unsigned seed = (unsigned)(uintptr_t)pthread_self();

	for (int i = 0; i < STRESS_ROUNDS; i++) {
		int lo = rand_r(&seed) % STRESS_PAGES;
		int hi = lo + 1 + rand_r(&seed) % (STRESS_PAGES - lo < 4 ?
						   STRESS_PAGES - lo : 4);
		bool writer = rand_r(&seed) % 4 == 0;
		uint64_t t;
		struct srl_node *n = sim_range_list_lock(s->l, lo * PG, hi * PG,
							 writer, &t);

		for (int p = lo; p < hi; p++) {
			if (writer && (atomic_fetch_add(&s->writers[p], 1) ||
				       atomic_load(&s->readers[p])))
				atomic_fetch_add(&s->violations, 1);
			if (!writer && (atomic_fetch_add(&s->readers[p], 1),
					atomic_load(&s->writers[p])))
				atomic_fetch_add(&s->violations, 1);
		}
		for (int p = lo; p < hi; p++)
			atomic_fetch_sub(writer ? &s->writers[p] : &s->readers[p], 1);
		if (writer && rand_r(&seed) % 2) {
			t = sim_range_list_downgrade(s->l, n, t);
			for (int p = lo; p < hi; p++)
				if (atomic_load(&s->writers[p]))
					atomic_fetch_add(&s->violations, 1);
		}
		sim_range_list_unlock(s->l, n, t);
	}
	return NULL;
}

START_TEST(test_stress)
{
	struct lockstat_class *cls;
	struct stress s = { .l = new_lock(&cls) };
	pthread_t t[STRESS_THREADS];

	/* The stress must have met a conflict (the wait path ran); on a
	 * busy machine its threads may run one after another and meet
	 * none: then it runs again, up to 10 times. */
	for (int round = 0; round < 10 && !counter(s.l, SRL_WAIT); round++) {
		for (int i = 0; i < STRESS_THREADS; i++)
			pthread_create(&t[i], NULL, stress_main, &s);
		for (int i = 0; i < STRESS_THREADS; i++)
			pthread_join(t[i], NULL);
	}
	ck_assert_int_eq(atomic_load(&s.violations), 0);
	ck_assert_uint_gt(counter(s.l, SRL_WAIT), 0);
	free_lock(s.l, cls);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("range_list");
	TCase *tc = tcase_create("range_list");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_disjoint_and_shared);
	tcase_add_test(tc, test_writer_excludes_writer);
	tcase_add_test(tc, test_writer_excludes_reader);
	tcase_add_test(tc, test_reader_excludes_writer);
	tcase_add_test(tc, test_downgrade);
	tcase_add_test(tc, test_stress);
	suite_add_tcase(s, tc);
	return check_run(s, CK_VERBOSE);
}
