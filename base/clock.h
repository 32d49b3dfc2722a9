/* SPDX-License-Identifier: MIT */
/* The clocks every layer reads, in one place. */
#ifndef VMSIM_CLOCK_H
#define VMSIM_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

/* Nanoseconds on clock id (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID…). */
static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts_ns(&ts);
}

/* CLOCK_MONOTONIC: what every interval is timed with. */
static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* The same in seconds. */
static inline double mono_s(void)
{
	return (double)mono_ns() / 1e9;
}

/* CLOCK_MONOTONIC_COARSE: a tick's resolution, a fraction of the cost
 * (watchdog timestamps). */
static inline uint64_t coarse_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC_COARSE);
}

/*
 * A cycle counter for timing every touch: the TSC where there is one
 * (invariant on the machines vmsim targets: constant_tsc, nonstop_tsc),
 * else CLOCK_MONOTONIC. cycles_to_ns() converts with a factor measured
 * once against CLOCK_MONOTONIC (util/clock.c).
 */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t cycles_now(void)
{
	return __rdtsc();
}
#define CLOCK_CYCLES_ARE_NS 0
#else
static inline uint64_t cycles_now(void)
{
	return mono_ns();
}
#define CLOCK_CYCLES_ARE_NS 1
#endif

/* Nanoseconds per cycles_now() unit (measured on first use, ~10 ms). */
double clock_ns_per_cycle(void);

static inline uint64_t cycles_to_ns(uint64_t cycles, double ns_per_cycle)
{
	return (uint64_t)((double)cycles * ns_per_cycle);
}

#endif
