/* SPDX-License-Identifier: MIT */
/*
 * lockstat — /proc/lock_stat-style accounting shared by every lock scheme.
 *
 * A lock class (e.g. "mmap_lock", "vma_lock", "range_lock") has two sides,
 * read and write. For each side we count acquisitions and contentions
 * (acquisitions that could not take the fast path), and keep wait time
 * (from the moment the fast path failed to the moment the lock was held)
 * and hold time, as totals, maxima and log2 histograms in nanoseconds.
 *
 * Counters are split into cache-line-aligned per-thread slots
 * (sync/slots.h, one a task and one a handler) so that the accounting
 * itself does not add a shared cache line to every acquisition (that would
 * measure the statistics, not the lock). Two threads sharing a slot stay
 * correct because every update is an atomic RMW (relaxed: the counters
 * order nothing).
 */
#ifndef VMSIM_LOCKSTAT_H
#define VMSIM_LOCKSTAT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "base/slots.h"
#include "base/clock.h"

#define LOCKSTAT_HIST  48            /* bucket b: [2^(b-1), 2^b) ns; b=0: 0 ns */
/* A hold of a spinning lock longer than this could not happen in the
 * kernel, whose spinlock holders run with preemption off: in vmsim it
 * means the holder was preempted (or the vCPU stalled), and every waiter
 * spun or yielded behind it. */
#define LOCKSTAT_LONG_HOLD_NS 100000

enum lockstat_side { LS_READ = 0, LS_WRITE = 1, LS_NSIDES };

struct lockstat_slot {
	_Atomic uint64_t acquisitions;
	_Atomic uint64_t contentions;
	_Atomic uint64_t wait_total;         /* ns */
	_Atomic uint64_t wait_max;           /* ns */
	_Atomic uint64_t hold_total;         /* ns */
	_Atomic uint64_t hold_max;           /* ns */
	_Atomic uint64_t wait_hist[LOCKSTAT_HIST];
	_Atomic uint64_t hold_hist[LOCKSTAT_HIST];
	_Atomic uint64_t long_holds;         /* spinning classes: holds over
					      * LOCKSTAT_LONG_HOLD_NS */
	_Atomic uint64_t long_hold_ns;       /* their time held, in all */
} __attribute__((aligned(64)));

struct lockstat_class {
	const char *name;
	bool spins;                      /* a kernel spinlock's model */
	struct slot_array slots;         /* struct lockstat_slot[LS_NSIDES] */
};

/* Summed view of one side of one class. */
struct lockstat_totals {
	uint64_t acquisitions, contentions;
	uint64_t wait_total, wait_max, hold_total, hold_max;   /* ns */
	uint64_t wait_hist[LOCKSTAT_HIST], hold_hist[LOCKSTAT_HIST];
	uint64_t long_holds, long_hold_ns;
	bool spins;
};

/* Allocates a zeroed class; returns NULL on ENOMEM. */
struct lockstat_class *lockstat_class_new(const char *name);
void lockstat_class_free(struct lockstat_class *c);
/* Mark c as a spinning lock's (its long holds are counted). */
static inline void lockstat_class_spins(struct lockstat_class *c)
{
	if (c)
		c->spins = true;
}

/* The lock statistics' clock: ticks of cycles_now() (the TSC: a few ns
 * to read, where clock_gettime() through the vDSO costs several times
 * that on every acquisition and release); kept in ns. */
static inline uint64_t lockstat_now(void)
{
	return cycles_now();
}

/* Record an acquisition; wait (lockstat_now() ticks) is meaningful only
 * when contended. */
void lockstat_acquired(struct lockstat_class *c, enum lockstat_side s,
		       bool contended, uint64_t wait);
/* Record a release after hold lockstat_now() ticks held. */
void lockstat_released(struct lockstat_class *c, enum lockstat_side s,
		       uint64_t hold);
/* Sum every slot of one side into *out. */
void lockstat_sum(const struct lockstat_class *c, enum lockstat_side s,
		  struct lockstat_totals *out);
/* Add b into a (for summing several mms in processes mode). */
void lockstat_totals_add(struct lockstat_totals *a,
			 const struct lockstat_totals *b);
/* Histogram bucket for a value in ns. */
int lockstat_bucket(uint64_t ns);

#endif
