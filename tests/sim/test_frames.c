/* SPDX-License-Identifier: MIT */
/*
 * The page allocator (sim/mem/frames.c): batch and high as the kernel computes
 * them; then, for zone and pcp and both bulk-free designs, a seeded random
 * run of allocations of every order and frees of random folios, with the
 * invariants checked after every step (every frame in exactly one block,
 * every block on one list or allocated with the references the model
 * gives it, no free buddies left unmerged, pcp counts right); then
 * threads allocating and freeing at once (run under TSan too), and every
 * frame back in the zone at the end of a drain.
 */
#include "tests/check_util.h"
#include <pthread.h>
#include <stdlib.h>

#include "sim/mem/frames.h"

#define NFRAMES 8192

static const struct frames_stat *stat_of(void)
{
	static struct frames_stat st;

	if (!st.zone) {
		st.zone = lockstat_class_new("zone_lock");
		st.pcp = lockstat_class_new("pcp_lock");
	}
	return &st;
}

START_TEST(test_sizes)
{
	/* zone_batchsize(): 1 GiB -> 63; 64 MiB -> 3; a zone of 16 MiB
	 * would get 0 from the kernel's formula, which vmsim raises to 1. */
	ck_assert_int_eq(frames_batchsize(262144), 63);
	ck_assert_int_eq(frames_batchsize(16384), 3);
	ck_assert_int_eq(frames_batchsize(4096), 1);
	/* 1 GiB, 2 CPUs: min_free_kbytes 4096 -> min 1024 pages, low
	 * 1024 + 262 = 1286, 643 a CPU. */
	ck_assert_int_eq(frames_highsize(262144, 2, 63), 643);
	/* 16 MiB: min_free_kbytes 512 -> min 128, low 160, 80 a CPU. */
	ck_assert_int_eq(frames_highsize(4096, 2, 3), 80);
}
END_TEST

static const int orders[] = { 0, 0, 0, 0, 1, 2, 3, 4, 9, 10 };

/* One seeded run: random allocations and frees, checked every step. */
static void property(enum frames_mode mode, enum frames_bulk bulk)
{
	struct frames *fr;
	uint32_t held[512];
	uint16_t *refs = calloc(NFRAMES, sizeof(*refs));
	int n = 0;
	unsigned seed = 12345;

	ck_assert_ptr_nonnull(refs);
	ck_assert_int_eq(frames_create(mode, bulk, NFRAMES, 2, &fr), 0);
	for (int step = 0; step < 4000; step++) {
		const char *bad;

		if (n < 512 && (n == 0 || rand_r(&seed) % 3)) {
			int o = orders[rand_r(&seed) % 10];
			uint32_t i = frames_alloc(fr, stat_of(), o);

			if (i != FRAME_NIL) {
				held[n++] = i;
				refs[i] = 1;
				/* a mapped page or two: more references */
				if (rand_r(&seed) % 2) {
					frames_get(fr, i + (1u << o) - 1);
					refs[i]++;
				}
			}
		} else {
			int k = (int)(rand_r(&seed) % (unsigned)n);
			uint32_t i = held[k];

			while (refs[i]) {
				frames_put(fr, stat_of(), i);
				refs[i]--;
			}
			held[k] = held[--n];
		}
		bad = frames_check(fr, refs);
		ck_assert_msg(!bad, "%s/%s step %d: %s", frames_mode_name(mode),
			      bulk ? "onepass" : "twopass", step, bad);
	}
	ck_assert_uint_gt(frames_counter(fr, FRAMES_PGFREE), 0);
	if (mode == FRAMES_PCP)
		ck_assert_uint_gt(frames_counter(fr, FRAMES_PCP_DRAIN), 0);
	frames_destroy(fr);
	free(refs);
}

START_TEST(test_property_zone) { property(FRAMES_ZONE, FRAMES_TWOPASS); }
END_TEST
START_TEST(test_property_pcp_twopass) { property(FRAMES_PCP, FRAMES_TWOPASS); }
END_TEST
START_TEST(test_property_pcp_onepass) { property(FRAMES_PCP, FRAMES_ONEPASS); }
END_TEST

struct worker {
	struct frames *fr;
	unsigned seed;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint32_t held[64];
	int n = 0;

	for (int i = 0; i < check_steps(20000); i++) {
		if (n < 64 && rand_r(&w->seed) % 2) {
			uint32_t f = frames_alloc(w->fr, stat_of(),
						  orders[rand_r(&w->seed) % 8]);

			if (f != FRAME_NIL)
				held[n++] = f;
		} else if (n) {
			frames_put(w->fr, stat_of(), held[--n]);
		}
	}
	while (n)
		frames_put(w->fr, stat_of(), held[--n]);
	return NULL;
}

START_TEST(test_threads)
{
	struct frames *fr;
	struct worker w[4];
	pthread_t th[4];
	const char *bad;
	uint64_t in_zone = 0;

	ck_assert_int_eq(frames_create(FRAMES_PCP, (enum frames_bulk)_i,
				       NFRAMES, 2, &fr), 0);
	stat_of();
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ fr, (unsigned)i + 1 };
		ck_assert_int_eq(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	bad = frames_check(fr, NULL);
	ck_assert_msg(!bad, "%s", bad);
	ck_assert_uint_eq(frames_counter(fr, FRAMES_PGALLOC),
			  frames_counter(fr, FRAMES_PGFREE));
	for (int o = 0; o < FRAMES_NR_ORDERS; o++)
		in_zone += fr->nr_free[o] << o;
	for (int c = 0; c < fr->npcp; c++)
		in_zone += (uint64_t)fr->pcp[c].count;
	ck_assert_uint_eq(in_zone, NFRAMES);
	frames_destroy(fr);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("frames");
	TCase *tc = tcase_create("frames");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_property_zone);
	tcase_add_test(tc, test_property_pcp_twopass);
	tcase_add_test(tc, test_property_pcp_onepass);
	tcase_add_loop_test(tc, test_threads, 0, 2);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
