/* SPDX-License-Identifier: MIT */
#include "base/stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

double stats_amean(const double *x, size_t n)
{
	double s = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

double stats_hmean(const double *x, size_t n)
{
	double s = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (x[i] < 0 || isnan(x[i]))
			return NAN;
		if (x[i] == 0)
			return 0;
		s += 1.0 / x[i];
	}
	return (double)n / s;
}

double stats_stddev(const double *x, size_t n)
{
	double m, s = 0;

	if (n <= 1)                      /* mmtests: NaN, not 0 */
		return NAN;
	m = stats_amean(x, n);
	for (size_t i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (double)(n - 1));
}

double stats_min(const double *x, size_t n)
{
	double m = NAN;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || x[i] < m)
			m = x[i];
	return m;
}

double stats_max(const double *x, size_t n)
{
	double m = NAN;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || x[i] > m)
			m = x[i];
	return m;
}

double stats_coeffvar(const double *x, size_t n)
{
	double m = stats_amean(x, n);

	return m == 0 || isnan(m) ? NAN : 100.0 * stats_stddev(x, n) / m;
}

double stats_hstddev(const double *x, size_t n)
{
	double h = stats_hmean(x, n), s = 0;

	if (n <= 1 || isnan(h) || h == 0)
		return NAN;
	/* mmtests' calc_stddev for the harmonic mean, to the letter:
	 * sqrt(sum (1/x - 1/H)^2 * H^4 / n) — divided by n, not n - 1. */
	for (size_t i = 0; i < n; i++)
		s += (1.0 / x[i] - 1.0 / h) * (1.0 / x[i] - 1.0 / h);
	return sqrt(s * h * h * h * h / (double)n);
}

double stats_hcoeffvar(const double *x, size_t n)
{
	double h = stats_hmean(x, n);

	return h == 0 || isnan(h) ? NAN : 100.0 * stats_hstddev(x, n) / h;
}

double stats_best_mean(const double *x, size_t n, double pct, bool higher)
{
	size_t k = (size_t)((double)n * pct / 100.0);
	double *c, r;

	if (!n)
		return NAN;
	if (k < 1)
		k = 1;
	c = malloc(n * sizeof(*c));
	if (!c)
		return NAN;
	memcpy(c, x, n * sizeof(*c));
	gsl_sort(c, 1, n);
	r = higher ? stats_hmean(c + (n - k), k) : stats_amean(c, k);
	free(c);
	return r;
}

static double variance(const double *x, size_t n)
{
	double s = stats_stddev(x, n);

	return s * s;
}

/* GSL's default error handler aborts the process (e.g. on a t statistic
 * of 1e300); vmsim reads any file a user gives it, so errors become NaN
 * results instead, and extreme arguments are kept away from GSL. */
static pthread_once_t gsl_quiet_once = PTHREAD_ONCE_INIT;

static void gsl_quiet(void)
{
	gsl_set_error_handler_off();
}

/* Two-sided p of a t statistic with df degrees of freedom. */
static double t_two_sided(double t, double df)
{
	pthread_once(&gsl_quiet_once, gsl_quiet);
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (isinf(t))
		return 0;
	/* Past a million degrees of freedom t is normal to 1e-6. */
	if (df > 1e6)
		return 2.0 * gsl_cdf_ugaussian_Q(fabs(t));
	return 2.0 * gsl_cdf_tdist_Q(fabs(t), df);
}

double stats_t_below_p(const double *d, size_t n)
{
	double m, sd, t;

	if (n < 2)
		return NAN;
	m = stats_amean(d, n);
	sd = stats_stddev(d, n);
	if (!isfinite(m) || !isfinite(sd))
		return NAN;
	if (sd == 0)                     /* every difference the same */
		return m < 0 ? 0.0 : 1.0;
	t = m / (sd / sqrt((double)n));
	pthread_once(&gsl_quiet_once, gsl_quiet);
	if (isinf(t))
		return t < 0 ? 0.0 : 1.0;
	return gsl_cdf_tdist_P(t, (double)(n - 1));
}

double stats_t_cdf(double t, double df)
{
	pthread_once(&gsl_quiet_once, gsl_quiet);
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (isinf(t))
		return t < 0 ? 0.0 : 1.0;
	return gsl_cdf_tdist_P(t, df);
}

double stats_t_critical(double p, double df)
{
	pthread_once(&gsl_quiet_once, gsl_quiet);
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	return gsl_cdf_tdist_Qinv(p, df);
}

double stats_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	double va, vb, se2, t, df;

	if (na < 2 || nb < 2)
		return NAN;
	va = variance(a, na) / (double)na;
	vb = variance(b, nb) / (double)nb;
	se2 = va + vb;
	if (se2 == 0)                    /* two constant samples */
		return stats_amean(a, na) == stats_amean(b, nb) ? 1.0 : 0.0;
	t = (stats_amean(a, na) - stats_amean(b, nb)) / sqrt(se2);
	df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	return t_two_sided(t, df);
}

double stats_student_p(double ma, double sa, size_t na, double mb, double sb,
		       size_t nb)
{
	double df, sp2, se;

	if (na < 2 || nb < 2 || isnan(ma) || isnan(mb))
		return NAN;
	df = (double)(na + nb - 2);
	sp2 = ((double)(na - 1) * sa * sa + (double)(nb - 1) * sb * sb) / df;
	se = sqrt(sp2 * (1.0 / (double)na + 1.0 / (double)nb));
	if (se == 0)
		return ma == mb ? 1.0 : 0.0;
	return t_two_sided((ma - mb) / se, df);
}

struct mw_item {
	double v;
	int from_a;
};

static int mw_cmp(const void *x, const void *y)
{
	const struct mw_item *a = x, *b = y;

	return a->v < b->v ? -1 : a->v > b->v;
}

/* Exact two-sided p of U <= u for sizes m, n (no ties): counts of rank
 * sums by dynamic programming over c(i, j, s). */
static double mw_exact(size_t m, size_t n, double u)
{
	size_t max = m * n, i, j, s;
	double *prev, *cur, total = 0, below = 0, p;
	/* f[j][s]: ways for i of the first values to be a's, with U = s */
	double *f = calloc((n + 1) * (max + 1), sizeof(double));
	double *g = calloc((n + 1) * (max + 1), sizeof(double));

	if (!f || !g) {
		free(f);
		free(g);
		return NAN;
	}
	/* Number of sequences of m a's and n b's where U (count of (a, b)
	 * pairs with b before a) equals s: classic recurrence
	 * N(m, n, s) = N(m - 1, n, s - n) + N(m, n - 1, s). */
	for (j = 0; j <= n; j++)
		f[j * (max + 1)] = 1;                  /* m = 0: U = 0 */
	prev = f;
	cur = g;
	for (i = 1; i <= m; i++) {
		for (j = 0; j <= n; j++)
			for (s = 0; s <= max; s++) {
				double v = 0;

				if (s >= j)
					v += prev[j * (max + 1) + s - j];
				if (j > 0)
					v += cur[(j - 1) * (max + 1) + s];
				cur[j * (max + 1) + s] = v;
			}
		double *t = prev;

		prev = cur;
		cur = t;
	}
	for (s = 0; s <= max; s++) {
		double c = prev[n * (max + 1) + s];

		total += c;
		if ((double)s <= u + 1e-9)
			below += c;
	}
	free(f);
	free(g);
	p = 2.0 * below / total;
	return p > 1.0 ? 1.0 : p;
}

double stats_mannwhitney_p(const double *a, size_t na, const double *b,
			   size_t nb)
{
	size_t n = na + nb, i, j;
	struct mw_item *it;
	double ra = 0, ua, ub, u, mu, sigma2, ties = 0, z;
	bool tied = false;

	if (!na || !nb)
		return NAN;
	it = malloc(n * sizeof(*it));
	if (!it)
		return NAN;
	for (i = 0; i < na; i++)
		it[i] = (struct mw_item){ a[i], 1 };
	for (i = 0; i < nb; i++)
		it[na + i] = (struct mw_item){ b[i], 0 };
	qsort(it, n, sizeof(*it), mw_cmp);
	for (i = 0; i < n; i = j) {
		double rank, t;

		for (j = i + 1; j < n && it[j].v == it[i].v; j++)
			;
		rank = ((double)(i + 1) + (double)j) / 2.0;    /* mid-rank */
		t = (double)(j - i);
		if (t > 1) {
			tied = true;
			ties += t * t * t - t;
		}
		for (size_t k = i; k < j; k++)
			if (it[k].from_a)
				ra += rank;
	}
	free(it);
	ua = ra - (double)na * (double)(na + 1) / 2.0;
	ub = (double)na * (double)nb - ua;
	u = ua < ub ? ua : ub;
	if (!tied && na * nb <= 400)
		return mw_exact(na, nb, u);
	mu = (double)na * (double)nb / 2.0;
	sigma2 = (double)na * (double)nb / 12.0 *
		 ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	if (sigma2 <= 0)
		return 1.0;
	z = (fabs(u - mu) - 0.5) / sqrt(sigma2);
	if (!(z > 0))
		return isnan(z) ? NAN : 1.0;
	pthread_once(&gsl_quiet_once, gsl_quiet);
	return 2.0 * gsl_cdf_ugaussian_Q(z);
}

double stats_median(const double *x, size_t n)
{
	double *c, m;

	if (!n || !(c = malloc(n * sizeof(*c))))
		return NAN;
	memcpy(c, x, n * sizeof(*c));
	gsl_sort(c, 1, n);
	m = gsl_stats_median_from_sorted_data(c, 1, n);
	free(c);
	return m;
}

static int cmp_shape_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void stats_shape(const double *x, int n, struct stats_shape *out)
{
	double s[64], d[64], med, mad, gap = 0;
	int cut = 0;

	memset(out, 0, sizeof(*out));
	if (n > 64)
		n = 64;
	if (n < 3)
		return;
	memcpy(s, x, sizeof(double) * (size_t)n);
	qsort(s, (size_t)n, sizeof(double), cmp_shape_double);
	med = stats_median(s, (size_t)n);
	for (int i = 0; i < n; i++)
		d[i] = fabs(s[i] - med);
	mad = stats_median(d, (size_t)n);
	for (int i = 0; i < n && mad > 0; i++)
		if (fabs(x[i] - med) > 3.5 * 1.4826 * mad) {
			out->outlier[i] = true;
			out->noutliers++;
		}
	/* Two groups: the widest gap between neighbours, sorted. */
	for (int i = 1; i < n; i++)
		if (s[i] - s[i - 1] > gap) {
			gap = s[i] - s[i - 1];
			cut = i;
		}
	if (cut >= 2 && n - cut >= 2) {
		double lo = s[cut - 1] - s[0], hi = s[n - 1] - s[cut];

		out->bimodal = gap > 2 * (lo > hi ? lo : hi) &&
			       gap > 0.05 * fabs(med);
	}
}

