/* SPDX-License-Identifier: MIT */
/*
 * hist — a log-linear latency histogram (HDR-style): values under 128 ns
 * exactly, above that 128 buckets per power of two, so that every value
 * is known to within 1/128 (< 1%) of itself. Fixed size, no allocation:
 * it lives in a task's shared slot and is merged after each iteration.
 */
#ifndef VMSIM_HIST_H
#define VMSIM_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_SUB      (1u << HIST_SUB_BITS)          /* 128 */
#define HIST_MAX_EXP  40                             /* up to ~18 min */
#define HIST_BUCKETS  ((int)(HIST_SUB + (HIST_MAX_EXP - HIST_SUB_BITS + 1) * HIST_SUB))

struct lat_hist {
	uint64_t count, sum_ns, max_ns;
	uint32_t b[HIST_BUCKETS];
};

static inline int hist_bucket(uint64_t ns)
{
	int e;

	if (ns < HIST_SUB)
		return (int)ns;
	e = 63 - __builtin_clzll(ns);                    /* floor(log2 ns) */
	if (e > HIST_MAX_EXP)
		return HIST_BUCKETS - 1;
	return (int)(HIST_SUB + (unsigned)(e - HIST_SUB_BITS) * HIST_SUB +
		     ((ns >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1)));
}

static inline void hist_record(struct lat_hist *h, uint64_t ns)
{
	h->b[hist_bucket(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

/* a += b */
void hist_merge(struct lat_hist *a, const struct lat_hist *b);
/* The value at quantile q (0 < q <= 1): the middle of its bucket, never
 * above the maximum seen; 0 for an empty histogram. */
double hist_quantile(const struct lat_hist *h, double q);
double hist_mean(const struct lat_hist *h);

#endif
