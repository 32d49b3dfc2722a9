/* SPDX-License-Identifier: MIT */
/*
 * frames — simulated physical memory: the page allocator a fault takes
 * its folio from and a zap gives it back to (mm/page_alloc.c, as of the
 * Linux 5.17 series the free_pcppages_bulk thread measures).
 *
 * One zone of nframes page frames with a `struct page`-like array (state,
 * order, reference count), buddy free lists per order (0..10) with
 * merging, under the zone lock (a spinlock, lockstat class "zone_lock").
 * With --frames pcp, per-CPU lists (one per order up to
 * PAGE_ALLOC_COSTLY_ORDER and one for the THP order, each CPU's under
 * its own spinlock, class "pcp_lock") sit in front: an allocation takes
 * from its CPU's list, refilled from the zone `batch` at a time
 * (rmqueue_bulk); a free goes to it, and past `high` pages a bulk free
 * gives back nr_pcp_free() pages to the zone (free_pcppages_bulk) — in
 * two passes (pick the pages, then take the zone lock and free them) or
 * in one (pick and free under the zone lock), the designs the thread
 * compares. batch and high are the kernel's zone_batchsize() and
 * zone_highsize() of this zone.
 *
 * The whole structure lives in one shared mapping, so that forked task
 * processes share one zone, as processes do in the kernel. A folio's
 * reference count is 1 (its fault) + its mapped pages; the last put frees
 * it. Every call is safe from any thread of any process.
 */
#ifndef VMSIM_FRAMES_H
#define VMSIM_FRAMES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "locks/sync/lockstat.h"
#include "sim/mem/ilist.h"
#include "locks/sync/spinlock.h"

enum frames_mode { FRAMES_NONE, FRAMES_ZONE, FRAMES_PCP, FRAMES_NMODES };
enum frames_bulk { FRAMES_TWOPASS, FRAMES_ONEPASS, FRAMES_NBULK };
/* Their names (--frames, --bulk-free), indexed by value. */
extern const char *const frames_mode_names[FRAMES_NMODES];
extern const char *const frames_bulk_names[FRAMES_NBULK];

#define FRAMES_NR_ORDERS     11          /* MAX_ORDER (5.17): 0..10 */
#define FRAMES_COSTLY_ORDER  3           /* PAGE_ALLOC_COSTLY_ORDER */
#define FRAMES_THP_ORDER     9           /* HPAGE_PMD_ORDER (x86-64) */
#define FRAMES_NR_PCP_LISTS  (FRAMES_COSTLY_ORDER + 2)
#define FRAMES_MAX_CPUS      1024
#define FRAME_NIL            UINT32_MAX

enum frame_state {
	FRAME_TAIL,                      /* inside a block; see its head */
	FRAME_FREE,                      /* head of a block on a buddy list */
	FRAME_PCP,                       /* head of a block on a pcp list */
	FRAME_ALLOC,                     /* head of an allocated folio */
};

struct frame {
	_Atomic uint8_t state;           /* enum frame_state */
	uint8_t order;                   /* of the block it heads */
	_Atomic uint16_t ref;            /* FRAME_ALLOC: 1 + pages mapped */
	struct ilist_link link;          /* its list's (sim/mem/ilist.h) */
};

/* A buddy free list or a per-CPU page list: frames by index. */
#define frames_list ilist

enum frames_counter {
	FRAMES_PGALLOC,                  /* pages allocated */
	FRAMES_PGFREE,                   /* pages freed */
	FRAMES_PCP_REFILL,               /* rmqueue_bulk calls */
	FRAMES_PCP_DRAIN,                /* free_pcppages_bulk calls */
	FRAMES_ALLOC_FAIL,               /* allocations nothing could meet */
	FRAMES_NCOUNTERS
};

struct frames_pcp {
	struct sim_spinlock lock;
	struct frames_list lists[FRAMES_NR_PCP_LISTS];
	int count;                       /* pages on the lists */
	int free_factor;                 /* nr_pcp_free()'s doubling */
} __attribute__((aligned(64)));

struct frames {
	enum frames_mode mode;
	enum frames_bulk bulk;
	uint32_t nframes;
	int batch, high, npcp;
	struct sim_spinlock zone_lock;
	struct frames_list free_area[FRAMES_NR_ORDERS];
	uint64_t nr_free[FRAMES_NR_ORDERS];          /* blocks */
	_Atomic uint64_t counters[FRAMES_NCOUNTERS];
	size_t bytes;                    /* of the mapping */
	struct frames_pcp *pcp;          /* npcp of them, in the mapping */
	struct frame *f;                 /* nframes, in the mapping */
};

/* The lock classes of the calling process (its own statistics). */
struct frames_stat {
	struct lockstat_class *zone, *pcp;
};

/* Map and set up nframes frames, all free; 0 or -errno. */
int frames_create(enum frames_mode mode, enum frames_bulk bulk,
		  uint32_t nframes, int ncpus, struct frames **out);
void frames_destroy(struct frames *fr);
/* batch and high as the kernel computes them for a zone of n pages. */
int frames_batchsize(uint32_t n);
int frames_highsize(uint32_t n, int ncpus, int batch);

/* A block of 2^order frames with one reference (the caller's); the
 * first frame's index, or FRAME_NIL when none is free. */
uint32_t frames_alloc(struct frames *fr, const struct frames_stat *st,
		      int order);
/* Take or drop a reference of the folio that frame i belongs to; the
 * last put frees it. */
void frames_get(struct frames *fr, uint32_t i);
void frames_put(struct frames *fr, const struct frames_stat *st, uint32_t i);
/* Drop one reference of each of n order-0 folios (a pagevec: truncation,
 * release_pages()): those that go are freed under one hold of this CPU's
 * list lock (free_unref_page_list). */
void frames_put_batch(struct frames *fr, const struct frames_stat *st,
		      const uint32_t *frames, int n);
/* The head of the allocated folio frame i lies in. */
uint32_t frames_head(const struct frames *fr, uint32_t i);

/* Counters (exact once nothing runs). */
uint64_t frames_counter(const struct frames *fr, enum frames_counter c);
const char *frames_counter_name(enum frames_counter c);
const char *frames_mode_name(enum frames_mode m);

/*
 * The invariants, for tests (nothing may run): every frame is in
 * exactly one block; every block is on exactly one list or allocated;
 * list links and counts agree; no two free buddies of one order are left
 * unmerged; pcp counts match their lists. Returns NULL or what is wrong.
 * refs[i], if not NULL, is the references folio i should hold (1 + its
 * mapped pages, or its mapped pages once its fault is over): checked.
 */
const char *frames_check(struct frames *fr, const uint16_t *refs);

#endif
