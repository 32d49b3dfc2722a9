/* SPDX-License-Identifier: MIT */
/*
 * The slab caches (sim/mem/slab.c, slab_sheaves.c): for slub and for sheaves
 * with each --rcu-free variant, a seeded random run of allocations,
 * frees and kfree_rcu()s with the invariants checked after every step
 * (every object of every slab in exactly one place — a freelist, a sheaf
 * — or live in the model; slab counts and the partial list right; every
 * sheaf in one place; with kfree_rcu() in the second half, after the
 * callbacks have run, every 50 steps); then threads doing the same at once (run under
 * TSan too) and the model check once they are done; then the barn and
 * rcu_free paths each shown to be taken (counters), and a double free
 * shown to be caught. The variants include SLUB with kfree_rcu's bulk
 * arrays; the maple tree's prefill/return sheaf API and SLUB's bulk
 * alloc and free are checked on their own; then where a free object's
 * link lies (inside it, SLUB; untouched, the sheaves' fast free) and that
 * forked processes share the objects.
 */
#include "tests/check_util.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/mem/slab.h"

#define NOBJS 4096

static const struct slab_stat *stat_of(void)
{
	static struct slab_stat st;

	if (!st.list_lock) {
		st.list_lock = lockstat_class_new("slab_list_lock");
		st.barn_lock = lockstat_class_new("barn_lock");
	}
	return &st;
}

/* kfree_rcu's fallback: each object's own callback. */
struct obj_head {
	struct sim_rcu_head rcu;
	struct slab_cache *s;
	uint32_t i;
};

static struct obj_head heads[NOBJS + 64];

static void obj_free_rcu(struct sim_rcu_head *h)
{
	struct obj_head *o = (struct obj_head *)h;

	slab_free(o->s, stat_of(), o->i);
}

static void free_rcu(struct slab_cache *s, uint32_t i)
{
	if (!slab_free_rcu(s, stat_of(), i)) {
		heads[i].s = s;
		heads[i].i = i;
		sim_call_rcu(&heads[i].rcu, obj_free_rcu);
	}
}

/* Everything freed by RCU is back. */
static void quiesce(struct slab_cache *s)
{
	slab_rcu_flush(s, stat_of());
	sim_rcu_barrier();
}

static void expect_ok(struct slab_cache *s, const uint8_t *live, uint64_t n,
		      int step)
{
	const char *bad = slab_check(s, live, n);

	ck_assert_msg(!bad, "%s/%s step %d: %s", slab_kind_name(s->kind),
		      slab_rcu_free_name(s->rcu_free), step, bad);
}

/* Variant _i: slub, sheaves with each --rcu-free variant, then slub
 * with kfree_rcu's bulk arrays. */
#define NVARIANTS 5
static struct slab_cache *variant_create(int i)
{
	struct slab_cache *s;

	ck_assert_int_eq(slab_cache_create(i && i < 4 ? SLAB_SHEAVES : SLAB_SLUB,
					   (enum slab_rcu_free)(i && i < 4 ? i - 1 : 0),
					   "t", NOBJS, NULL, 2, &s), 0);
	s->kfree_batch = i == 4;
	return s;
}

static void property(int variant)
{
	struct slab_cache *s;
	uint8_t *live = calloc(NOBJS + SLAB_OBJS, 1);
	uint32_t *held = calloc(NOBJS, sizeof(*held));
	unsigned seed = 11;
	uint64_t n = 0;

	s = variant_create(variant);
	for (int step = 0; step < 6000; step++) {
		unsigned op = (unsigned)rand_r(&seed) % 10;

		/* Grow to about 3000 live objects, then shrink, twice. */
		if (n && (op < 4 || (step / 1500) % 2)) {
			unsigned k = (unsigned)rand_r(&seed) % n;
			uint32_t i = held[k];

			held[k] = held[--n];
			live[i] = 0;
			/* The first half frees at once only: nothing is left in
			 * flight, and the check runs after every step. */
			if (op % 2 || step < 3000)
				slab_free(s, stat_of(), i);
			else
				free_rcu(s, i);
		} else {
			uint32_t i = slab_alloc(s, stat_of());

			if (i == SLAB_NIL) {
				quiesce(s);
				continue;
			}
			ck_assert_msg(!live[i], "object %u handed out twice", i);
			live[i] = 1;
			held[n++] = i;
		}
		if (step < 3000 || step % 50 == 0 || step > 5980) {
			if (step >= 3000)
				quiesce(s);
			expect_ok(s, live, n, step);
		}
	}
	while (n) {
		live[held[--n]] = 0;
		slab_free(s, stat_of(), held[n]);
	}
	quiesce(s);
	expect_ok(s, live, 0, -1);
	ck_assert_uint_gt(slab_counter(s, SLAB_ALLOC_SLOWPATH), 0);
	if (s->kind == SLAB_SHEAVES) {
		ck_assert_uint_gt(slab_counter(s, SLAB_FREE_RCU_SHEAF), 0);
		ck_assert_uint_gt(slab_counter(s, SLAB_BARN_PUT), 0);
	}
	if (s->kfree_batch) {
		ck_assert_uint_gt(slab_counter(s, SLAB_KFREE_RCU_BULK), 0);
		ck_assert_uint_gt(slab_counter(s, SLAB_KFREE_RCU_BULK_FREED), 0);
	}
	slab_cache_destroy(s);
	free(live);
	free(held);
}

START_TEST(test_property)
{
	property(_i);
}
END_TEST

struct worker {
	struct slab_cache *s;
	unsigned seed;
	uint32_t held[256];
	int n;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (int step = 0; step < 20000; step++) {
		unsigned op = (unsigned)rand_r(&w->seed) % 4;

		if (w->n && (op < 2 || w->n == 256)) {
			uint32_t i = w->held[--w->n];

			if (op == 0)
				free_rcu(w->s, i);
			else
				slab_free(w->s, stat_of(), i);
		} else {
			uint32_t i = slab_alloc(w->s, stat_of());

			if (i != SLAB_NIL)
				w->held[w->n++] = i;
		}
	}
	return NULL;
}

START_TEST(test_threads)
{
	struct worker w[4];
	pthread_t th[4];
	struct slab_cache *s;
	uint8_t *live = calloc(NOBJS + SLAB_OBJS, 1);
	uint64_t n = 0;

	s = variant_create(_i);
	(void)stat_of();                 /* made before the threads share it */
	for (int k = 0; k < 4; k++) {
		w[k] = (struct worker){ .s = s, .seed = 100u + (unsigned)k };
		ck_assert_int_eq(pthread_create(&th[k], NULL, worker_main, &w[k]), 0);
	}
	for (int k = 0; k < 4; k++)
		pthread_join(th[k], NULL);
	quiesce(s);
	for (int k = 0; k < 4; k++)
		for (int j = 0; j < w[k].n; j++, n++) {
			ck_assert_msg(!live[w[k].held[j]], "object held twice");
			live[w[k].held[j]] = 1;
		}
	expect_ok(s, live, n, -1);
	slab_cache_destroy(s);
	free(live);
}
END_TEST

/* The checker catches an object freed twice. */
START_TEST(test_double_free_caught)
{
	struct slab_cache *s;
	uint32_t a, b;

	ck_assert_int_eq(slab_cache_create(SLAB_SHEAVES, RCU_FREE_HURRY, "t",
					   NOBJS, NULL, 1, &s), 0);
	a = slab_alloc(s, stat_of());
	b = slab_alloc(s, stat_of());
	slab_free(s, stat_of(), a);
	ck_assert_ptr_null(slab_check(s, NULL, 1));
	slab_free(s, stat_of(), a);
	ck_assert_ptr_nonnull(slab_check(s, NULL, 1));
	(void)b;
	slab_cache_destroy(s);
}
END_TEST

/* With lazy RCU, sheaves come back in a batch: past the barn's ten,
 * they are destroyed; hurry brings them back one by one. */
START_TEST(test_barn_overflow)
{
	struct slab_cache *s;
	uint32_t *held = calloc(NOBJS, sizeof(*held));
	int n = 0;

	ck_assert_int_eq(slab_cache_create(SLAB_SHEAVES, RCU_FREE_CALL_RCU, "t",
					   NOBJS, NULL, 1, &s), 0);
	while (n < 40 * SHEAF_CAPACITY)
		held[n++] = slab_alloc(s, stat_of());
	while (n)
		free_rcu(s, held[--n]);
	ck_assert_uint_eq(slab_counter(s, SLAB_BARN_PUT), 0);   /* held back */
	quiesce(s);
	ck_assert_uint_eq(slab_counter(s, SLAB_BARN_PUT), MAX_FULL_SHEAVES);
	ck_assert_uint_eq(slab_counter(s, SLAB_RCU_SHEAF_DESTROYED),
			  40 - MAX_FULL_SHEAVES);
	ck_assert_uint_eq(slab_counter(s, SLAB_RCU_INFLIGHT_MAX), 40);
	ck_assert_ptr_null(slab_check(s, NULL, 0));
	slab_cache_destroy(s);
	free(held);
}
END_TEST

/* The maple tree's API: a prefilled sheaf (the CPU's spare taken whole,
 * given back as the spare), objects popped and pushed with no lock; bulk
 * alloc and free under SLUB. Every object in one place throughout. */
START_TEST(test_prefill_and_bulk)
{
	uint8_t *live = calloc(NOBJS + SLAB_OBJS, 1);
	struct slab_cache *s;
	uint32_t objs[40], sh, k;

	ck_assert_int_eq(slab_cache_create(SLAB_SHEAVES, RCU_FREE_HURRY, "t",
					   NOBJS, NULL, 1, &s), 0);
	objs[0] = slab_alloc(s, stat_of());      /* main and spare exist */
	slab_free(s, stat_of(), objs[0]);
	sh = slab_prefill_sheaf(s, stat_of(), 5);
	ck_assert_uint_ne(sh, SLAB_NIL);
	ck_assert_uint_ge(slab_sheaf_size(s, sh), 5);
	for (k = 0; k < 3; k++)
		live[objs[k] = slab_sheaf_pop(s, sh)] = 1;
	live[objs[2]] = 0;
	ck_assert(slab_sheaf_push(s, sh, objs[2]));
	slab_return_sheaf(s, stat_of(), sh);
	ck_assert_uint_eq(slab_counter(s, SLAB_SHEAF_PREFILL_FAST) +
			  slab_counter(s, SLAB_SHEAF_PREFILL_SLOW), 1);
	ck_assert_uint_eq(slab_counter(s, SLAB_SHEAF_RETURN_FAST), 1);
	ck_assert_ptr_null(slab_check(s, live, 2));
	slab_free(s, stat_of(), objs[0]);
	slab_free(s, stat_of(), objs[1]);
	ck_assert_ptr_null(slab_check(s, NULL, 0));
	slab_cache_destroy(s);

	memset(live, 0, NOBJS + SLAB_OBJS);
	ck_assert_int_eq(slab_cache_create(SLAB_SLUB, RCU_FREE_CALL_RCU, "t",
					   NOBJS, NULL, 1, &s), 0);
	ck_assert_uint_eq(slab_prefill_sheaf(s, stat_of(), 5), SLAB_NIL);
	ck_assert_uint_eq(slab_alloc_bulk(s, stat_of(), 40, objs), 40);
	for (k = 0; k < 40; k++) {
		ck_assert(!live[objs[k]]);
		live[objs[k]] = 1;
	}
	ck_assert_ptr_null(slab_check(s, live, 40));
	slab_free_bulk(s, stat_of(), objs, 40);
	ck_assert_ptr_null(slab_check(s, NULL, 0));
	ck_assert_uint_gt(slab_counter(s, SLAB_FREE_FASTPATH), 0);
	slab_cache_destroy(s);
	free(live);
}
END_TEST

/* Fill an object with a byte; whether all of it but [skip, skip + 4)
 * still holds that byte. */
static bool holds(struct slab_cache *s, uint32_t i, unsigned char b,
		  size_t skip)
{
	const unsigned char *o = slab_object(s, i);

	for (size_t k = 0; k < s->objsize; k++)
		if ((k < skip || k >= skip + 4) && o[k] != b)
			return false;
	return true;
}

/* SLUB keeps a free object's link inside it (set_freepointer): at the
 * middle, or at freeptr_offset when given; an allocation hands out the
 * object whose link it read, and nothing of a live object is written.
 * The sheaves' fast free leaves the object untouched. _i: 0 the locked
 * fast paths, 1 the rseq ones where they run. */
START_TEST(test_freeptr_in_object)
{
	struct slab_args mid = { .size = 100, .align = 4 };
	struct slab_args at8 = { .size = 96, .align = 32,
				 .use_freeptr_offset = true,
				 .freeptr_offset = 8 };
	int ncpu = _i ? (int)sysconf(_SC_NPROCESSORS_CONF) : 1;
	struct slab_cache *s;
	cpu_set_t one;
	uint32_t a, b;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	for (int k = 0; k < 2; k++) {
		size_t fp = k ? 8 : 48;         /* 100 / 2 aligned down to 8 */

		ck_assert_int_eq(slab_cache_create(SLAB_SLUB, RCU_FREE_HURRY, "t",
						   NOBJS, k ? &at8 : &mid,
						   ncpu, &s), 0);
		ck_assert_uint_eq(s->objsize, k ? 96 : 100);
		ck_assert_uint_eq(s->freeptr, fp);
		a = slab_alloc(s, stat_of());
		b = slab_alloc(s, stat_of());
		ck_assert_uint_eq(a / SLAB_OBJS, b / SLAB_OBJS);
		memset(slab_object(s, a), 0xaa, s->objsize);
		memset(slab_object(s, b), 0xbb, s->objsize);
		slab_free(s, stat_of(), b);
		slab_free(s, stat_of(), a);
		/* a is the freelist's head now; its link names b. */
		ck_assert_uint_eq(*(uint32_t *)((char *)slab_object(s, a) + fp), b);
		ck_assert(holds(s, a, 0xaa, fp));
		ck_assert(holds(s, b, 0xbb, fp));
		ck_assert_uint_eq(slab_alloc(s, stat_of()), a);
		ck_assert_uint_eq(slab_alloc(s, stat_of()), b);
		ck_assert_ptr_null(slab_check(s, NULL, 2));
		slab_cache_destroy(s);
	}
	ck_assert_int_eq(slab_cache_create(SLAB_SHEAVES, RCU_FREE_HURRY, "t",
					   NOBJS, &mid, ncpu, &s), 0);
	a = slab_alloc(s, stat_of());
	slab_free(s, stat_of(), slab_alloc(s, stat_of()));   /* main exists */
	memset(slab_object(s, a), 0xcc, s->objsize);
	slab_free(s, stat_of(), a);
	ck_assert_uint_gt(slab_counter(s, SLAB_FREE_FASTPATH), 0);
	ck_assert(holds(s, a, 0xcc, s->objsize));            /* every byte */
	slab_cache_destroy(s);
}
END_TEST

/* The objects are shared memory: what a forked process writes into the
 * object it allocated, the parent reads — as processes share the
 * kernel's slab pages; and arguments that cannot hold a link refused. */
START_TEST(test_objects_shared)
{
	struct slab_args bad[] = {
		{ .size = 0, .align = 8 },
		{ .size = 64, .align = 24 },
		{ .size = 64, .align = 8, .use_freeptr_offset = true,
		  .freeptr_offset = 62 },
		{ .size = 64, .align = 8, .use_freeptr_offset = true,
		  .freeptr_offset = 2 },
	};
	struct slab_cache *s;
	int status;
	pid_t pid;

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		ck_assert_int_eq(slab_cache_create(SLAB_SLUB, RCU_FREE_HURRY, "t",
						   NOBJS, &bad[k], 1, &s),
				 -EINVAL);
	ck_assert_int_eq(slab_cache_create(SLAB_SLUB, RCU_FREE_HURRY, "t",
					   NOBJS, NULL, 1, &s), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		uint32_t i = slab_alloc(s, stat_of());

		strcpy(slab_object(s, i), "from the child");
		_exit(i == SLAB_NIL ? 1 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && !WEXITSTATUS(status));
	ck_assert_str_eq(slab_object(s, 0), "from the child");
	ck_assert_uint_ne(slab_alloc(s, stat_of()), 0);      /* it is live */
	slab_cache_destroy(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("slab");
	TCase *tc = tcase_create("slab");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_property, 0, NVARIANTS);
	tcase_add_loop_test(tc, test_threads, 0, NVARIANTS);
	tcase_add_test(tc, test_double_free_caught);
	tcase_add_test(tc, test_barn_overflow);
	tcase_add_test(tc, test_prefill_and_bulk);
	tcase_add_loop_test(tc, test_freeptr_in_object, 0, 2);
	tcase_add_test(tc, test_objects_shared);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
