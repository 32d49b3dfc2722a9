/* SPDX-License-Identifier: MIT */
/*
 * Tests the statistics behind `vmsim compare` (means, best-P% means,
 * Welch's t-test, Mann-Whitney U) on hand-computed values and edge cases,
 * and the result-file reader's refusals.
 */
#include "tests/check_util.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "base/stats.h"
#include "resfile/busy.h"

#ifndef DATA_DIR
#define DATA_DIR "."
#endif

#define EPS 1e-9

START_TEST(test_means)
{
	const double x[] = { 1, 2, 4 };

	ck_assert_double_eq_tol(stats_amean(x, 3), 7.0 / 3, EPS);
	ck_assert_double_eq_tol(stats_hmean(x, 3), 3.0 / 1.75, EPS);
	/* sample stddev: sum of squares 14/3 over n - 1 = 2 */
	ck_assert_double_eq_tol(stats_stddev(x, 3), sqrt(7.0 / 3), EPS);
	ck_assert_double_eq_tol(stats_coeffvar(x, 3), 100 * sqrt(7.0 / 3) / (7.0 / 3), EPS);
	ck_assert_double_eq_tol(stats_min(x, 3), 1, EPS);
	ck_assert_double_eq_tol(stats_max(x, 3), 4, EPS);
	ck_assert(isnan(stats_stddev(x, 1)));            /* mmtests: NaN */
}
END_TEST

/* HStddev and HCoeffVar as mmtests computes them, against values worked
 * by hand: x = 10, 12, 15, 20 has H = 40/3 exactly; the reciprocals
 * 0.1, 1/12, 1/15, 0.05 lie 1/40, 1/120, -1/120, -1/40 from 1/H, whose
 * squares sum to 1/720; divided by n = 4: 1/2880. So HStddev =
 * H^2 * sqrt(1/2880) = (1600/9) / sqrt(2880) = 3.3126932999996885, and
 * HCoeffVar = 100 * HStddev / H = 24.845199749997664. With n - 1 it would
 * be 3.8251... (15.5% more): the divisor is pinned. One sample: NaN. */
START_TEST(test_hstddev_mmtests)
{
	const double x[] = { 10, 12, 15, 20 }, one[] = { 7 };

	ck_assert_double_eq_tol(stats_hmean(x, 4), 40.0 / 3, 1e-12);
	ck_assert_double_eq_tol(stats_hstddev(x, 4), 1600.0 / 9 / sqrt(2880),
				1e-12);
	ck_assert_double_eq_tol(stats_hstddev(x, 4), 3.3126932999996885, 1e-12);
	ck_assert_double_eq_tol(stats_hcoeffvar(x, 4), 24.845199749997664, 1e-9);
	ck_assert(isnan(stats_hstddev(one, 1)));
	ck_assert(isnan(stats_hcoeffvar(one, 1)));
	ck_assert(isnan(stats_stddev(one, 1)));
	ck_assert(isnan(stats_coeffvar(one, 1)));
}
END_TEST

START_TEST(test_edge_cases)
{
	const double z[] = { 0, 5 }, neg[] = { -1, 2 }, zero3[] = { 0, 0, 0 };

	ck_assert(isnan(stats_amean(NULL, 0)));
	ck_assert(isnan(stats_hmean(NULL, 0)));
	ck_assert(isnan(stats_min(NULL, 0)));
	ck_assert_double_eq_tol(stats_hmean(z, 2), 0, EPS);   /* the limit */
	ck_assert(isnan(stats_hmean(neg, 2)));
	ck_assert(isnan(stats_coeffvar(zero3, 3)));           /* mean 0 */
	ck_assert(isnan(stats_best_mean(NULL, 0, 50, true)));
	ck_assert(isnan(stats_welch_p(z, 2, z, 1)));          /* n < 2 */
	ck_assert_double_eq_tol(stats_welch_p(zero3, 3, zero3, 3), 1, EPS);
	ck_assert(isnan(stats_welch_p(zero3, 3, z + 1, 1)));   /* n = 1 */
	ck_assert(isnan(stats_mannwhitney_p(NULL, 0, z, 2)));
}
END_TEST

START_TEST(test_best_mean)
{
	const double x[] = { 4, 1, 2 };

	/* max(1, int(3 * 50 / 100)) = 1: the single best */
	ck_assert_double_eq_tol(stats_best_mean(x, 3, 50, true), 4, EPS);
	ck_assert_double_eq_tol(stats_best_mean(x, 3, 50, false), 1, EPS);
	/* int(3 * 95 / 100) = 2 */
	ck_assert_double_eq_tol(stats_best_mean(x, 3, 95, true), 2.0 / (0.5 + 0.25), EPS);
	ck_assert_double_eq_tol(stats_best_mean(x, 3, 95, false), 1.5, EPS);
}
END_TEST

START_TEST(test_welch)
{
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 3, 4, 5, 6, 7, 8 };

	/* t = -2.5 / sqrt(2.5/5 + 3.5/6) = -2.40192; df = 8.9894;
	 * p = 0.039803 (independently: incomplete beta in compare_check.py) */
	ck_assert_double_eq_tol(stats_welch_p(a, 5, b, 6), 0.039803, 5e-6);
	ck_assert_double_eq_tol(stats_welch_p(a, 5, a, 5), 1, EPS);
	/* symmetric */
	ck_assert_double_eq_tol(stats_welch_p(a, 5, b, 6), stats_welch_p(b, 6, a, 5), EPS);
}
END_TEST

/* The gate's test by round: a one-sample t on the rounds' log ratios. */
START_TEST(test_t_below)
{
	const double d[] = { -0.02, -0.05, -0.03, -0.06 }, same[] = { -0.1, -0.1, -0.1 };
	double up[4];

	/* mean -0.04, sd sqrt(0.001/3), t = -4.38178 with 3 df:
	 * P(T <= t) = 1/2 + (x/(1+t^2/3) + atan x)/pi, x = t/sqrt 3 = 0.0110030 */
	ck_assert_double_eq_tol(stats_t_below_p(d, 4), 0.0110030, 5e-7);
	for (int i = 0; i < 4; i++)
		up[i] = -d[i];
	ck_assert_double_eq_tol(stats_t_below_p(up, 4), 1 - 0.0110030, 5e-7);
	ck_assert_double_eq_tol(stats_t_below_p(same, 3), 0, EPS);
	ck_assert(isnan(stats_t_below_p(d, 1)));
}
END_TEST

START_TEST(test_mannwhitney)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 }, c[] = { 1.5, 4.5, 2.5 };

	/* Exact: U = 0 is 1 of C(6,3) = 20 orderings; two-sided 0.1. */
	ck_assert_double_eq_tol(stats_mannwhitney_p(a, 3, b, 3), 0.1, EPS);
	/* a vs c: U_a = 3 (1.5 < 2, 1.5 < 3, 2.5 < 3), U = min(3, 6) = 3;
	 * the counts of U = 0..9 for 3 and 3 are 1 1 2 3 3 3 3 2 1 1, so
	 * P(U <= 3) = 7/20 and the two-sided p is 0.7. */
	ck_assert_double_eq_tol(stats_mannwhitney_p(a, 3, c, 3), 0.7, EPS);
	ck_assert_double_eq_tol(stats_mannwhitney_p(a, 3, b, 3),
				stats_mannwhitney_p(b, 3, a, 3), EPS);
}
END_TEST

static void expect_refused(const char *name)
{
	struct cmp_file f;
	char path[512], err[256];

	snprintf(path, sizeof(path), "%s/%s", DATA_DIR, name);
	ck_assert_int_eq(cmp_load(path, &f, err, sizeof(err)), -EINVAL);
	ck_assert(err[0]);
}

/*
 * The three significance rules on the same pair of samples (the example
 * of issue 10), against values computed independently (Python's
 * statistics module and an incomplete beta): only mmtests' old t-test
 * marks the 2% difference.
 */
START_TEST(test_significance_rules)
{
	const double a[] = { 100, 102, 98, 101, 99 };
	const double b[] = { 102, 104, 100, 103, 101 };
	struct cmp_opts welch = { .test = CMP_WELCH };
	struct cmp_opts ttest = { .test = CMP_MMTESTS_TTEST };
	struct cmp_opts ci = { .test = CMP_MMTESTS_CI };
	double p;

	ck_assert_double_eq_tol(stats_hmean(a, 5), 99.97999719931981, 1e-9);
	ck_assert_double_eq_tol(stats_hstddev(a, 5), 1.4142276945290184, 1e-9);
	ck_assert_double_eq_tol(stats_hstddev(b, 5), 1.4142271461329983, 1e-9);
	ck_assert_double_eq_tol(stats_hcoeffvar(a, 5), 1.414510636272192, 1e-9);
	/* Welch: t = -2, df = 8 -> p = 0.0805; not at alpha 0.05. */
	ck_assert_int_eq(cmp_significant(&welch, a, 5, b, 5, true, &p), 0);
	ck_assert_double_eq_tol(p, 0.08051623795726018, 1e-7);
	ck_assert_double_eq_tol(cmp_alpha(&welch), 0.05, EPS);
	/* mmtests 2018-2024: t on the Hmeans -2.00039, df 8 -> p 0.08047,
	 * significant at its alpha of 0.10. */
	ck_assert_int_eq(cmp_significant(&ttest, a, 5, b, 5, true, &p), 1);
	ck_assert_double_eq_tol(p, 0.08046731605632088, 1e-7);
	ck_assert_double_eq_tol(cmp_alpha(&ttest), 0.10, EPS);
	/* ... and not at 0.05 if asked. */
	ttest.alpha = 0.05;
	ck_assert_int_eq(cmp_significant(&ttest, a, 5, b, 5, true, &p), 0);
	/* mmtests since Nov 2024: |2.0004| > 1.96 * 3.1623 = 6.198? No. */
	ck_assert_int_eq(cmp_significant(&ci, a, 5, b, 5, true, &p), 0);
	ck_assert(isnan(p));
	ck_assert(isnan(cmp_alpha(&ci)));
	/* ... but a difference of 7 is. */
	{
		const double c[] = { 107, 109, 105, 108, 106 };

		ck_assert_int_eq(cmp_significant(&ci, a, 5, c, 5, true, &p), 1);
	}
	/* Too few samples: cannot tell, under every rule. */
	ck_assert_int_eq(cmp_significant(&welch, a, 1, b, 5, true, &p), -1);
	ck_assert_int_eq(cmp_significant(&ci, a, 5, b, 1, true, &p), -1);
}
END_TEST

START_TEST(test_reader)
{
	struct cmp_file f;
	char path[512], err[256];

	snprintf(path, sizeof(path), "%s/base.json", DATA_DIR);
	ck_assert_int_eq(cmp_load(path, &f, err, sizeof(err)), 0);
	ck_assert_str_eq(f.workload, "pft");
	ck_assert_int_eq(f.nmetrics, 2);
	cmp_file_free(&f);
	expect_refused("notjson.json");
	expect_refused("notvmsim.json");
	expect_refused("badsamples.json");
	expect_refused("does-not-exist.json");
}
END_TEST

/* The machine's rule (issue 64): others that take turns with vmsim's
 * tasks disturb a point; others on a machine with CPUs to spare do not;
 * the hypervisor's steal and the harness's ceiling at N do; a figure
 * not measured (NaN) says nothing. */
START_TEST(test_busy_rule)
{
	const double idle[3] = { 0.02, 0.08, 0.0 }, busy[3] = { 0.9, 1.0, 0.95 },
		     half[3] = { 0.5, 0.48, 0.52 }, own1[3] = { 1.0, 1.0, 1.0 },
		     own2[3] = { 0.9, 1.0, 1.1 }, none[3] = { 0, 0, 0 },
		     steal[3] = { 0.1, 0.12, 0.08 }, nan3[3] = { NAN, NAN, NAN };
	struct res_busy b = { .others = idle, .own = own1, .steal = none, .n = 3,
			      .ceiling = NAN, .tasks = 1, .ncpus = 2 };
	char why[128];

	ck_assert(!res_busy_judge(&b, why, sizeof(why)));
	ck_assert_str_eq(why, "");
	b.others = busy;
	ck_assert(res_busy_judge(&b, why, sizeof(why)));
	ck_assert_msg(strstr(why, "0.95 CPUs of 2"), "%s", why);
	/* Many CPUs: the same others cost no turns. */
	b.ncpus = 256;
	b.tasks = 16;
	ck_assert(!res_busy_judge(&b, NULL, 0));
	/* 2 tasks on 2 CPUs that used less than 2 (waiting on handlers):
	 * still a CPU a task asked for. */
	b.ncpus = 2;
	b.tasks = 2;
	b.others = half;
	b.own = own2;
	ck_assert(res_busy_judge(&b, why, sizeof(why)));
	b.others = nan3;
	ck_assert(!res_busy_judge(&b, why, sizeof(why)));
	b.others = idle;
	b.steal = steal;
	ck_assert(res_busy_judge(&b, why, sizeof(why)));
	ck_assert_msg(strstr(why, "hypervisor took 10%"), "%s", why);
	b.steal = none;
	b.ceiling = 0.3;
	ck_assert(res_busy_judge(&b, why, sizeof(why)));
	ck_assert_msg(strstr(why, "0.30x of linear at 2 tasks"), "%s", why);
	b.tasks = 1;                     /* the ceiling is of N > 1 */
	ck_assert(!res_busy_judge(&b, why, sizeof(why)));
	b.ceiling = 0.7;
	b.tasks = 2;
	ck_assert(!res_busy_judge(&b, why, sizeof(why)));
}
END_TEST

/* A replay's ratio to the host's mmap_lock: the words chosen by the
 * ratio (issue 64: "spf reads: 26.87x (... near or below the host's)"). */
START_TEST(test_lock_meaning)
{
	char b[320];

	cmp_host_lock_meaning(b, sizeof(b), "spf", false, 26.87);
	ck_assert_msg(strstr(b, "which predicts near or below the host's: this "
			      "is not"), "%s", b);
	cmp_host_lock_meaning(b, sizeof(b), "spf", false, 0.9);
	ck_assert_msg(strstr(b, "as the design predicts"), "%s", b);
	cmp_host_lock_meaning(b, sizeof(b), "pervma", false, 1.26);
	ck_assert_msg(strstr(b, "near 1x, as the design predicts"), "%s", b);
	cmp_host_lock_meaning(b, sizeof(b), "pervma", false, 9.5);
	ck_assert_msg(strstr(b, "this is not"), "%s", b);
	cmp_host_lock_meaning(b, sizeof(b), "rwsem", false, 10.4);
	ck_assert_msg(strstr(b, "far above the host's, as the design predicts"),
		      "%s", b);
	cmp_host_lock_meaning(b, sizeof(b), "range-list", false, 1.0);
	ck_assert_msg(strstr(b, "range lock") && strstr(b, "this is not"), "%s", b);
	cmp_host_lock_meaning(b, sizeof(b), "rwsem", true, 3.0);
	ck_assert_msg(strstr(b, "write side") && strstr(b, "this is not"), "%s", b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("stats");

	/* Generous: a sanitizer build on a busy machine runs many times slower. */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_means);
	tcase_add_test(tc, test_edge_cases);
	tcase_add_test(tc, test_hstddev_mmtests);
	tcase_add_test(tc, test_best_mean);
	tcase_add_test(tc, test_welch);
	tcase_add_test(tc, test_mannwhitney);
	tcase_add_test(tc, test_t_below);
	tcase_add_test(tc, test_significance_rules);
	tcase_add_test(tc, test_reader);
	tcase_add_test(tc, test_busy_rule);
	tcase_add_test(tc, test_lock_meaning);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
