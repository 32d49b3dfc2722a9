/* SPDX-License-Identifier: MIT */
/* Summary statistics of a sample (no allocation). NaN for empty input. */
#ifndef VMSIM_STATS_H
#define VMSIM_STATS_H

#include <stdbool.h>
#include <stddef.h>

double stats_amean(const double *x, size_t n);
/* Harmonic mean; 0 if any value is 0 (the limit), NaN if any is < 0. */
double stats_hmean(const double *x, size_t n);
/* Sample standard deviation (n - 1); NaN for n <= 1, as mmtests. */
double stats_stddev(const double *x, size_t n);
double stats_min(const double *x, size_t n);
double stats_max(const double *x, size_t n);
/* The median (x is not changed); NaN for n == 0. */
double stats_median(const double *x, size_t n);
/* 100 * stddev / arithmetic mean; NaN when the mean is 0. */
double stats_coeffvar(const double *x, size_t n);
/*
 * The spread that goes with the harmonic mean H (mmtests' HStddev): the
 * population standard deviation of the reciprocals, mapped back at H by
 * the delta method, sqrt(sum (1/x - 1/H)^2 * H^4 / n) — mmtests'
 * calc_stddev formula, divided by n. Close to stddev(x) for a tight
 * sample; NaN for n <= 1 or any value <= 0. HCoeffVar is 100 * it / H.
 */
double stats_hstddev(const double *x, size_t n);
double stats_hcoeffvar(const double *x, size_t n);
/*
 * Mean of the best pct% of the samples, max(1, int(n * pct / 100)) of
 * them: the highest ones, harmonic mean, for higher-is-better; the
 * lowest ones, arithmetic mean, otherwise (mmtests' BHmean/BAmean).
 */
double stats_best_mean(const double *x, size_t n, double pct, bool higher);
/* One-sample t-test of n differences against 0, one-sided towards
 * "below": P(T(n-1) <= mean / (sd / sqrt(n))). NaN for n < 2; 0 or 1
 * when every difference is the same. */
double stats_t_below_p(const double *d, size_t n);
/* P(T(df) <= t): the one-sided p of a t statistic towards "below".
 * NaN for df <= 0 or t NaN. */
double stats_t_cdf(double t, double df);
/* The t that T(df) exceeds with probability p (0 < p < 1): the
 * critical value of a one-sided test at level p. NaN outside. */
double stats_t_critical(double p, double df);
/* Two-sided p-value of Welch's t-test (Welch-Satterthwaite degrees of
 * freedom). NaN when either sample has fewer than 2 values. */
double stats_welch_p(const double *a, size_t na, const double *b, size_t nb);
/* Two-sided p-value of Student's t-test on the given means and sample
 * standard deviations with a pooled variance and n_a + n_b - 2 degrees of
 * freedom (the rule mmtests used on the Hmean, 2018 to November 2024).
 * NaN when either n < 2. */
double stats_student_p(double ma, double sa, size_t na, double mb, double sb,
		       size_t nb);
/* Two-sided p-value of the Mann-Whitney U test: exact when there are no
 * ties and na * nb <= 400, else the normal approximation with tie and
 * continuity correction. NaN for empty samples. */
double stats_mannwhitney_p(const double *a, size_t na, const double *b,
			   size_t nb);

/* What the samples of one metric at one task count look like: which lie
 * far out (modified z-score over 3.5: |x - median| > 3.5 * 1.4826 * MAD,
 * Iglewicz and Hoaglin), and whether they fall in two groups (split at
 * the widest gap: at least two samples each side, the gap over twice the
 * wider group's range and over 5% of the median). The first 64. */
struct stats_shape {
	int noutliers;
	bool outlier[64];
	bool bimodal;
};
void stats_shape(const double *x, int n, struct stats_shape *out);

#endif
