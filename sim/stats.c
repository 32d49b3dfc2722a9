/* SPDX-License-Identifier: MIT */
#include "sim/stats.h"

#include <math.h>

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
		if (!(x[i] > 0))
			return NAN;
		s += 1.0 / x[i];
	}
	return (double)n / s;
}

double stats_stddev(const double *x, size_t n)
{
	double m, s = 0;

	if (!n)
		return NAN;
	if (n == 1)
		return 0;
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
