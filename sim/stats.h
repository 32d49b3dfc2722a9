/* SPDX-License-Identifier: MIT */
/* Summary statistics of a sample (no allocation). NaN for empty input. */
#ifndef VMSIM_STATS_H
#define VMSIM_STATS_H

#include <stddef.h>

double stats_amean(const double *x, size_t n);
/* Harmonic mean; NaN if any value is <= 0. */
double stats_hmean(const double *x, size_t n);
/* Sample standard deviation (n - 1); 0 for n == 1. */
double stats_stddev(const double *x, size_t n);
double stats_min(const double *x, size_t n);
double stats_max(const double *x, size_t n);

#endif
