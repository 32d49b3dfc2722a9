/* SPDX-License-Identifier: MIT */
#include "base/clock.h"

#include <pthread.h>

static double ns_per_cycle = 1;
static pthread_once_t calibrated = PTHREAD_ONCE_INIT;

/* The TSC's rate against CLOCK_MONOTONIC over 10 ms of spinning. */
static void calibrate(void)
{
	uint64_t t0, c0, t1, c1;

	if (CLOCK_CYCLES_ARE_NS)
		return;
	t0 = mono_ns();
	c0 = cycles_now();
	do
		t1 = mono_ns();
	while (t1 - t0 < 10000000);
	c1 = cycles_now();
	if (c1 > c0)
		ns_per_cycle = (double)(t1 - t0) / (double)(c1 - c0);
}

double clock_ns_per_cycle(void)
{
	pthread_once(&calibrated, calibrate);
	return ns_per_cycle;
}
