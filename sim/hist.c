/* SPDX-License-Identifier: MIT */
#include "sim/hist.h"

void hist_merge(struct lat_hist *a, const struct lat_hist *b)
{
	for (int i = 0; i < HIST_BUCKETS; i++)
		a->b[i] += b->b[i];
	a->count += b->count;
	a->sum_ns += b->sum_ns;
	if (b->max_ns > a->max_ns)
		a->max_ns = b->max_ns;
}

/* The bucket's range [lo, lo + width). */
static void bucket_range(int i, double *lo, double *width)
{
	int e;

	if (i < (int)HIST_SUB) {
		*lo = i;
		*width = 1;
		return;
	}
	e = (i - (int)HIST_SUB) / (int)HIST_SUB + HIST_SUB_BITS;
	*width = (double)(1ull << (e - HIST_SUB_BITS));
	*lo = (double)(1ull << e) + (double)((i - (int)HIST_SUB) % (int)HIST_SUB) * *width;
}

double hist_quantile(const struct lat_hist *h, double q)
{
	uint64_t want, seen = 0;
	double lo, width, v;

	if (!h->count)
		return 0;
	want = (uint64_t)(q * (double)h->count + 0.5);
	if (want < 1)
		want = 1;
	for (int i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen < want)
			continue;
		bucket_range(i, &lo, &width);
		v = width > 1 ? lo + width / 2 : lo;
		return v > (double)h->max_ns ? (double)h->max_ns : v;
	}
	return (double)h->max_ns;
}

double hist_mean(const struct lat_hist *h)
{
	return h->count ? (double)h->sum_ns / (double)h->count : 0;
}
