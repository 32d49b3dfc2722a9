/* SPDX-License-Identifier: MIT */
/* The latency histogram: every quantile within 1% of the exact one. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_util.h"
#include "sim/hist.h"
#include "sim/result.h"

#define EPS 1e-9

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Exact quantile of sorted x, with hist_quantile's rank rule. */
static uint64_t exact(const uint64_t *x, size_t n, double q)
{
	size_t want = (size_t)(q * (double)n + 0.5);

	return x[(want < 1 ? 1 : want) - 1];
}

START_TEST(test_quantiles_within_1pct)
{
	static struct lat_hist h;
	enum { N = 200000 };
	uint64_t *x = malloc(N * sizeof(*x));
	unsigned seed = 7;
	static const double q[] = { 0.01, 0.5, 0.9, 0.99, 0.999, 1.0 };

	memset(&h, 0, sizeof(h));
	for (int i = 0; i < N; i++) {
		/* Log-uniform over 1 ns .. 1 s, as latencies spread. */
		x[i] = (uint64_t)exp((double)rand_r(&seed) / RAND_MAX * log(1e9));
		hist_record(&h, x[i]);
	}
	qsort(x, N, sizeof(*x), cmp_u64);
	ck_assert_uint_eq(h.count, N);
	ck_assert_uint_eq(h.max_ns, x[N - 1]);
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		double e = (double)exact(x, N, q[i]), v = hist_quantile(&h, q[i]);

		ck_assert_msg(fabs(v - e) <= 0.01 * e + 0.5, "q %g: %g vs %g",
			      q[i], v, e);
	}
	free(x);
}
END_TEST

START_TEST(test_merge_and_edges)
{
	static struct lat_hist a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ck_assert(hist_quantile(&a, 0.5) == 0);
	for (uint64_t v = 0; v < 128; v++)            /* exact below 128 ns */
		hist_record(&a, v);
	ck_assert(hist_quantile(&a, 0.5) == 63);
	hist_record(&b, 1ull << 50);                   /* beyond the range */
	hist_merge(&a, &b);
	ck_assert_uint_eq(a.count, 129);
	ck_assert_uint_eq(a.max_ns, 1ull << 50);
	ck_assert(hist_quantile(&a, 1.0) <= (double)(1ull << 50));
	ck_assert(fabs(hist_mean(&a) - ((double)(127 * 128 / 2) +
					(double)(1ull << 50)) / 129) < 1);
}
END_TEST

/* The mean fault is every touch's time over the faults taken, split into
 * the lock's wait and hold and the rest. */
START_TEST(test_fault_split)
{
	struct lat_hist h = { 0 };
	struct res_point p = { .lat = &h };
	struct res_fault_split sp;

	ck_assert(!res_fault_split(&p, &sp));            /* nothing faulted */
	hist_record(&h, 30000);
	hist_record(&h, 10000);
	hist_record(&h, 20);                             /* no fault: a hit */
	p.c.faults[SIM_FAULT_ANON_WRITE] = 1;
	p.c.faults[SIM_FAULT_PROT] = 1;
	p.c.lock_wait_ns = 1000;
	p.c.lock_hold_ns = 3000;
	ck_assert(res_fault_split(&p, &sp));
	ck_assert_double_eq_tol(sp.mean, 40020.0 / 2, EPS);
	ck_assert_double_eq_tol(sp.lock_wait, 500, EPS);
	ck_assert_double_eq_tol(sp.lock_hold, 1500, EPS);
	ck_assert_double_eq_tol(sp.rest, 20010 - 2000, EPS);
	ck_assert_double_eq_tol(sp.lock_share, 2000 / 20010.0, EPS);
	p.c.lock_hold_ns = 1e9;                          /* never below 0 */
	ck_assert(res_fault_split(&p, &sp));
	ck_assert_double_eq_tol(sp.rest, 0, EPS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hist");
	TCase *tc = tcase_create("hist");

	/* Generous: a sanitizer build on a busy machine runs many times slower. */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_quantiles_within_1pct);
	tcase_add_test(tc, test_merge_and_edges);
	tcase_add_test(tc, test_fault_split);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
