/* SPDX-License-Identifier: MIT */
/*
 * The slab fast paths without a lock (sim/mem/slab_rseq.h), under SLUB
 * and under sheaves, against the locked paths they must exclude. Six
 * threads on (at most) two CPUs — preempted in and out of sections all
 * the time — allocate and free one object at a time (the sections), and
 * in bulk, through kfree_rcu and, under sheaves, through a prefilled
 * sheaf (the CPU's lock held); a seventh moves them between CPUs (a lock
 * holder or a section caught half-way on another CPU) and signals them
 * (the kernel restarts a section a signal interrupts). Every object
 * handed out is claimed in a shared map, which must find it unclaimed;
 * at the end every object is in exactly one place (slab_check). The
 * counters must show sections committed (and, signalled until one is,
 * restarted: test_restarts) — or, where the
 * build cannot use them (TSan, no rseq area), that the cache knows it,
 * and the same stress runs on the locked paths. Each is also run with
 * the sections switched off (--slab-fastpath lock). And no count is
 * ever lost (test_counts): the counters are results.
 */
#include "tests/check_util.h"
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>

#include "sim/mem/slab.h"
#include "sim/mem/slab_rseq.h"

#define NOBJS    32768
#define NWORKERS 6
#define STEPS    check_steps(2000000)
#define COUNTS   check_steps(1000000)

static struct slab_stat stat;
static _Atomic uint8_t owned[NOBJS + SLAB_OBJS];
static _Atomic int twice;
static _Atomic int done;            /* workers finished */

struct worker {
	pthread_t th;
	struct slab_cache *s;
	unsigned seed;
	uint32_t held[128];
	int n;
};

/* kfree_rcu's fallback: the object's own callback. */
struct obj_head {
	struct sim_rcu_head rcu;
	struct slab_cache *s;
	uint32_t i;
};

static struct obj_head heads[NOBJS + SLAB_OBJS];

static void obj_free_rcu(struct sim_rcu_head *h)
{
	struct obj_head *o = (struct obj_head *)h;

	slab_free(o->s, &stat, o->i);
}

static void claim(uint32_t i)
{
	if (atomic_exchange(&owned[i], 1))
		atomic_fetch_add(&twice, 1);
}

static void give_back(struct worker *w, unsigned op)
{
	uint32_t i = w->held[--w->n];

	atomic_store(&owned[i], 0);
	if (op == 0 && !slab_free_rcu(w->s, &stat, i)) {
		heads[i].s = w->s;
		heads[i].i = i;
		sim_call_rcu(&heads[i].rcu, obj_free_rcu);
	} else if (op != 0) {
		slab_free(w->s, &stat, i);
	}
}

/* Allocate a few through a prefilled sheaf (sheaves) or in bulk (SLUB),
 * and free them back the same way: the CPU's lock is taken. */
static void locked_batch(struct worker *w)
{
	uint32_t objs[8], k = 0;

	if (w->s->kind == SLAB_SHEAVES) {
		uint32_t sh = slab_prefill_sheaf(w->s, &stat, 8);

		if (sh == SLAB_NIL)
			return;
		while (k < 8 && (objs[k] = slab_sheaf_pop(w->s, sh)) != SLAB_NIL)
			claim(objs[k++]);
		while (k--) {
			atomic_store(&owned[objs[k]], 0);
			if (!slab_sheaf_push(w->s, sh, objs[k]))
				slab_free(w->s, &stat, objs[k]);
		}
		slab_return_sheaf(w->s, &stat, sh);
		return;
	}
	k = slab_alloc_bulk(w->s, &stat, 8, objs);
	for (uint32_t j = 0; j < k; j++)
		claim(objs[j]);
	for (uint32_t j = 0; j < k; j++)
		atomic_store(&owned[objs[j]], 0);
	slab_free_bulk(w->s, &stat, objs, k);
}

static void on_signal(int sig)
{
	(void)sig;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (int step = 0; step < STEPS; step++) {
		unsigned op = (unsigned)rand_r(&w->seed) % 32;

		if (op == 31) {
			locked_batch(w);
		} else if (w->n && (op < 15 || w->n == 128)) {
			give_back(w, op);
		} else {
			uint32_t i = slab_alloc(w->s, &stat);

			if (i != SLAB_NIL) {
				claim(i);
				w->held[w->n++] = i;
			}
		}
	}
	atomic_fetch_add(&done, 1);
	return NULL;
}

/* Signal the workers, and move them between CPUs, until they are done
 * (joined only after this has stopped: a joined thread's pthread_t may
 * not be signalled). */
static void *mover_main(void *arg)
{
	struct worker *w = arg;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);

	for (unsigned round = 0; atomic_load(&done) < NWORKERS; round++) {
		struct worker *v = &w[round % NWORKERS];
		cpu_set_t set;

		pthread_kill(v->th, SIGUSR1);
		if (round % 64) {
			sched_yield();
			continue;
		}
		CPU_ZERO(&set);
		if (round / 64 % 3 == 2)
			for (int c = 0; c < ncpu && c < CPU_SETSIZE; c++)
				CPU_SET(c, &set);
		else
			CPU_SET((int)(round / 64 / NWORKERS) % (ncpu > 0 ? ncpu : 1),
				&set);
		pthread_setaffinity_np(v->th, sizeof(set), &set);
	}
	return NULL;
}

/* Run NWORKERS threads of fn over w, moved and signalled by a mover
 * until every one is done. */
static void run_moved(struct worker *w, void *(*fn)(void *))
{
	pthread_t mover;

	atomic_store(&done, 0);
	for (int k = 0; k < NWORKERS; k++)
		ck_assert_int_eq(pthread_create(&w[k].th, NULL, fn, &w[k]), 0);
	ck_assert_int_eq(pthread_create(&mover, NULL, mover_main, w), 0);
	pthread_join(mover, NULL);
	for (int k = 0; k < NWORKERS; k++)
		pthread_join(w[k].th, NULL);
}

/* What every test with signals starts with: SIGUSR1 caught (the kernel restarts a
 * section it interrupts, and the call goes on), the lock classes, and a
 * cache of kind over this machine's CPUs. */
static struct slab_cache *signalled_cache(enum slab_kind kind)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct slab_cache *s;

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	stat.list_lock = lockstat_class_new("slab_list_lock");
	stat.barn_lock = lockstat_class_new("barn_lock");
	ck_assert_int_eq(slab_cache_create(kind, RCU_FREE_HURRY, "t", NOBJS, NULL,
				   (int)sysconf(_SC_NPROCESSORS_ONLN), &s), 0);
	return s;
}

static void stress(enum slab_kind kind, bool rseq)
{
	struct worker w[NWORKERS];
	uint8_t *live = calloc(NOBJS + SLAB_OBJS, 1);
	struct slab_cache *s = signalled_cache(kind);
	uint64_t n = 0;
	const char *bad;

	ck_assert_ptr_nonnull(live);
	s->kfree_batch = kind == SLAB_SLUB;
	/* Where the build and the machine allow the sections, the cache
	 * uses them: a cache silently on the locked paths would make the
	 * rest of this test pass without testing them. */
	if (SLAB_RSEQ_CAN && slab_rseq_registered() &&
	    sysconf(_SC_NPROCESSORS_CONF) <= sysconf(_SC_NPROCESSORS_ONLN))
		ck_assert_msg(s->fast_rseq, "rseq usable but not used");
	else
		ck_assert(!s->fast_rseq);
	if (!rseq)
		s->fast_rseq = false;
	rseq = s->fast_rseq;
	memset(owned, 0, sizeof(owned));
	atomic_store(&twice, 0);
	for (int k = 0; k < NWORKERS; k++)
		w[k] = (struct worker){ .s = s, .seed = 7u + (unsigned)k };
	run_moved(w, worker_main);
	slab_rcu_flush(s, &stat);
	sim_rcu_barrier();
	ck_assert_msg(!atomic_load(&twice), "%s: %d objects handed out while "
		      "held", slab_kind_name(kind), atomic_load(&twice));
	for (int k = 0; k < NWORKERS; k++)
		for (int j = 0; j < w[k].n; j++, n++)
			live[w[k].held[j]] = 1;
	bad = slab_check(s, live, n);
	ck_assert_msg(!bad, "%s (%s): %s", slab_kind_name(kind),
		      rseq ? "rseq" : "locked", bad);
	printf("%s %s: fast_rseq %llu, rseq_abort %llu, fast %llu+%llu, "
	       "slow %llu+%llu\n", slab_kind_name(kind), rseq ? "rseq" : "lock",
	       (unsigned long long)slab_counter(s, SLAB_FAST_RSEQ),
	       (unsigned long long)slab_counter(s, SLAB_RSEQ_ABORT),
	       (unsigned long long)slab_counter(s, SLAB_ALLOC_FASTPATH),
	       (unsigned long long)slab_counter(s, SLAB_FREE_FASTPATH),
	       (unsigned long long)slab_counter(s, SLAB_ALLOC_SLOWPATH),
	       (unsigned long long)slab_counter(s, SLAB_FREE_SLOWPATH));
	/* Sections committed. How many depends on how often a preempted
	 * lock holder sends a section to the locked path (1.9 M to 7.7 M
	 * of the 12 M steps seen on 2 CPUs): no threshold here. That the
	 * kernel restarts sections is test_restarts'; that no count is
	 * lost, test_counts'. */
	if (rseq) {
		ck_assert_uint_gt(slab_counter(s, SLAB_FAST_RSEQ), 0);
	} else {
		ck_assert_uint_eq(slab_counter(s, SLAB_FAST_RSEQ), 0);
	}
	slab_cache_destroy(s);
	free(live);
}

/* One section, tried again while the kernel restarts it. */
static uint32_t section(uint32_t (*f)(struct slab_cache *, uint32_t, int *),
			struct slab_cache *s, uint32_t arg, int *cpu)
{
	uint32_t r;

	while ((r = f(s, arg, cpu)) == SLAB_RSEQ_ABORTED)
		;
	return r;
}

/* What each section does, on one pinned CPU: it commits on that CPU's
 * freelist or main sheaf; it gives up (SLAB_NIL), touching nothing,
 * while that CPU's lock is held, when there is nothing to pop or no
 * room, for an object of another slab (SLUB), and on a CPU past the
 * cache's. */
START_TEST(test_sections)
{
	enum slab_kind kind = _i ? SLAB_SHEAVES : SLAB_SLUB;
	uint32_t (*pop)(struct slab_cache *, uint32_t, int *) =
		_i ? slab_rseq_sheaf_pop : slab_rseq_freelist_pop;
	uint32_t (*push)(struct slab_cache *, uint32_t, int *) =
		_i ? slab_rseq_sheaf_push : slab_rseq_freelist_push;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), me = ncpu - 1, cpu;
	struct slab_cache *s;
	struct slab_cpu *c;
	cpu_set_t set;
	uint32_t a, b, r, far[SLAB_OBJS];

	CPU_ZERO(&set);
	CPU_SET(me, &set);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(set), &set), 0);
	stat.list_lock = lockstat_class_new("slab_list_lock");
	stat.barn_lock = lockstat_class_new("barn_lock");
	ck_assert_int_eq(slab_cache_create(kind, RCU_FREE_HURRY, "t", NOBJS, NULL,
					   ncpu, &s), 0);
	if (!s->fast_rseq) {
		printf("sections: not usable in this build or on this machine\n");
		ck_assert(!SLAB_RSEQ_CAN || !slab_rseq_registered() ||
			  sysconf(_SC_NPROCESSORS_CONF) > ncpu);
		slab_cache_destroy(s);
		return;
	}
	c = &s->cpu[me];
	a = slab_alloc(s, &stat);            /* the CPU's slab, or main */
	b = slab_alloc(s, &stat);
	ck_assert_uint_ne(a, SLAB_NIL);
	slab_free(s, &stat, b);
	ck_assert_uint_eq(section(push, s, a, &cpu), 0);
	ck_assert_int_eq(cpu, me);
	ck_assert_uint_eq(section(pop, s, 0, &cpu), a);
	sim_spin_lock_raw(&c->lock);         /* a holder on this CPU */
	ck_assert_uint_eq(section(pop, s, 0, &cpu), SLAB_NIL);
	ck_assert_uint_eq(section(push, s, a, &cpu), SLAB_NIL);
	sim_spin_unlock_raw(&c->lock);
	ck_assert_uint_eq(section(push, s, a, &cpu), 0);
	ck_assert_uint_eq(section(pop, s, 0, &cpu), a);
	ck_assert_uint_eq(section(pop, s, 0, &cpu), b);
	/* Nothing left to pop: SLUB's freelist is its slab's other objects,
	 * so empty it; a sheaf, likewise. */
	while ((r = section(pop, s, 0, &cpu)) != SLAB_NIL)
		;
	ck_assert_uint_eq(section(pop, s, 0, &cpu), SLAB_NIL);
	if (kind == SLAB_SHEAVES) {          /* a full main: no room */
		for (int k = 0; k < SHEAF_CAPACITY; k++)
			ck_assert_uint_eq(section(push, s, a, &cpu), 0);
		ck_assert_uint_eq(section(push, s, a, &cpu), SLAB_NIL);
		s->sheaf[c->main].size = 0;   /* the pushed copies forgotten */
	} else {                             /* an object of another slab */
		for (int k = 0; k < SLAB_OBJS; k++)
			far[k] = slab_alloc(s, &stat);
		ck_assert_uint_ne(far[0] / SLAB_OBJS, a / SLAB_OBJS);
		ck_assert_uint_ne(c->slab, a / SLAB_OBJS);
		ck_assert_uint_eq(section(push, s, a, &cpu), SLAB_NIL);
	}
	if (me > 0) {                        /* a CPU past the cache's */
		int n = s->ncpus;

		s->ncpus = me;
		ck_assert_uint_eq(section(push, s, a, &cpu), SLAB_NIL);
		ck_assert_uint_eq(section(pop, s, 0, &cpu), SLAB_NIL);
		s->ncpus = n;
	}
	slab_cache_destroy(s);
}
END_TEST

/* One thread allocating and freeing one object at a time (sections,
 * nothing else), signalled from another thread until the kernel has
 * restarted one of its sections: the restart is taken, counted, and the
 * cache is whole after it. Bounded by RESTART_WAIT_S, far beyond the
 * few signals it takes (a signal lands in a section a good part of the
 * time): the bound only keeps a broken build from hanging. */
#define RESTART_WAIT_S 120

struct restarter {
	struct slab_cache *s;
	_Atomic bool stop;
	uint32_t held[64];
	int n;
};

static void *restarter_main(void *arg)
{
	struct restarter *r = arg;

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		uint32_t i = slab_alloc(r->s, &stat);

		if (i != SLAB_NIL && r->n < 64)
			r->held[r->n++] = i;
		else if (i != SLAB_NIL)
			slab_free(r->s, &stat, i);
		if (r->n == 64)
			while (r->n)
				slab_free(r->s, &stat, r->held[--r->n]);
	}
	return NULL;
}

START_TEST(test_restarts)
{
	enum slab_kind kind = _i ? SLAB_SHEAVES : SLAB_SLUB;
	struct restarter r = { .s = signalled_cache(kind), .n = 0 };
	uint8_t *live = calloc(NOBJS + SLAB_OBJS, 1);
	struct timespec t0, now;
	const char *bad;
	pthread_t th;
	long sent = 0;

	ck_assert_ptr_nonnull(live);
	if (!r.s->fast_rseq) {
		printf("restarts: sections not usable in this build or here\n");
		slab_cache_destroy(r.s);
		free(live);
		return;
	}
	atomic_init(&r.stop, false);
	ck_assert_int_eq(pthread_create(&th, NULL, restarter_main, &r), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		pthread_kill(th, SIGUSR1);
		sent++;
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!slab_counter(r.s, SLAB_RSEQ_ABORT) &&
		 now.tv_sec - t0.tv_sec < RESTART_WAIT_S);
	atomic_store(&r.stop, true);
	pthread_join(th, NULL);
	printf("%s: %llu restarts after %ld signals\n", slab_kind_name(kind),
	       (unsigned long long)slab_counter(r.s, SLAB_RSEQ_ABORT), sent);
	ck_assert_msg(slab_counter(r.s, SLAB_RSEQ_ABORT) > 0,
		      "%s: no section restarted after %ld signals in %d s",
		      slab_kind_name(kind), sent, RESTART_WAIT_S);
	for (int j = 0; j < r.n; j++)
		live[r.held[j]] = 1;
	bad = slab_check(r.s, live, (uint64_t)r.n);
	ck_assert_msg(!bad, "%s: %s", slab_kind_name(kind), bad);
	slab_cache_destroy(r.s);
	free(live);
}
END_TEST

/* Counting: each worker adds 1 to one counter COUNTS times. */
static void *counter_main(void *arg)
{
	struct worker *w = arg;

	for (int k = 0; k < COUNTS; k++)
		slab_count(w->s, SLAB_PREALLOC, 1);
	atomic_fetch_add(&done, 1);
	return NULL;
}

/* No count is lost — counted in sections (_i 0, where they can run) or
 * with atomic adds (_i 1) — while the workers are preempted, moved and
 * signalled on shared CPUs: a plain load and store would lose some. */
START_TEST(test_counts)
{
	struct slab_cache *s = signalled_cache(SLAB_SLUB);
	struct worker w[NWORKERS];

	if (_i)
		s->count_rseq = false;
	printf("counts: %s\n", s->count_rseq ? "in sections" : "atomic adds");
	for (int k = 0; k < NWORKERS; k++)
		w[k] = (struct worker){ .s = s };
	run_moved(w, counter_main);
	ck_assert_uint_eq(slab_counter(s, SLAB_PREALLOC),
			  (uint64_t)NWORKERS * COUNTS);
	slab_cache_destroy(s);
}
END_TEST

START_TEST(test_stress)
{
	stress(_i & 1 ? SLAB_SHEAVES : SLAB_SLUB, _i < 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("slab_rseq");
	TCase *tc = tcase_create("slab_rseq");

	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, test_sections, 0, 2);
	tcase_add_loop_test(tc, test_restarts, 0, 2);
	tcase_add_loop_test(tc, test_counts, 0, 2);
	tcase_add_loop_test(tc, test_stress, 0, 4);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
