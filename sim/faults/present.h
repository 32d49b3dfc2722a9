/* SPDX-License-Identifier: MIT */
/*
 * present — what both fault sources keep per arena page, and the page
 * contents they place.
 *
 * One byte a page: bits 0-1 the state (0 not present, 1 mapped for read,
 * 2 mapped writable), bit 2 "dirty" (synthetic: a write that raced a zap
 * may have left bytes in the real page), bits 3-7 a generation every zap
 * of the page advances. The synthetic source decides faults by it (a touch that saw
 * the byte change under it retries); both sources count resident pages
 * by it.
 */
#ifndef VMSIM_PRESENT_H
#define VMSIM_PRESENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/mm.h"
#include "base/slots.h"

#define PRESENT_STATE 3                  /* the state bits of a byte: */
#define PRESENT_NONE  0                  /*   not present */
#define PRESENT_READ  1                  /*   mapped for read */
#define PRESENT_WRITE 2                  /*   mapped for write */
#define PRESENT_DIRTY 4                  /* the real page may hold bytes */
#define PRESENT_GEN   8                  /* one zap generation */

struct present_slot {
	_Atomic uint64_t resident;       /* placed minus zapped (mod 2^64) */
} __attribute__((aligned(64)));

/* One page table's worth of pages (a PMD's, 2 MiB). */
#define PRESENT_PMD_PAGES 512
#define PRESENT_PMD_BYTES ((unsigned long)PRESENT_PMD_PAGES << SIM_PAGE_SHIFT)

struct present_map {
	struct sim_mm *mm;               /* whose pages (their frames) */
	_Atomic unsigned char *b;
	/* A byte per PMD of the arena: 1 once a page of it was placed or
	 * dirtied (set after the page's byte, never cleared): a zap skips
	 * the rest, as zap_pmd_range() skips a pmd_none() entry. */
	_Atomic unsigned char *pmd;
	unsigned long base;
	size_t npages;
	struct slot_array slots;         /* struct present_slot */
};

/* Maps one byte per page of mm's arena. 0 or -errno. */
int present_init(struct present_map *p, struct sim_mm *mm);
void present_destroy(struct present_map *p);

static inline _Atomic unsigned char *present_byte(struct present_map *p,
						  unsigned long addr)
{
	return &p->b[(addr - p->base) >> SIM_PAGE_SHIFT];
}

static inline void present_pmd_used(struct present_map *p, unsigned long addr)
{
	_Atomic unsigned char *f = &p->pmd[(addr - p->base) / PRESENT_PMD_BYTES];

	if (!atomic_load_explicit(f, memory_order_relaxed))
		atomic_store_explicit(f, 1, memory_order_release);
}

/* A write that raced a zap may have left bytes in the real page at
 * addr: the next placement clears them, a zap throws the page away. */
void present_mark_dirty(struct present_map *p, unsigned long addr);
/* Mark the page at addr present in state (1 read, 2 write), keeping its
 * generation; counts it resident if it was not. Returns the old state. */
unsigned char present_set(struct present_map *p, unsigned long addr,
			  unsigned char state);
/* A fault placed the page at addr in state: mark it (present_set) and,
 * if it was not there, map it to frame + (addr - start) / page (none if
 * frame is FRAME_NIL). 1 if it was placed, 0 if it was there. */
int present_place(struct present_map *p, unsigned long addr,
		  unsigned char state, unsigned long start, uint32_t frame);
/* Pages of [start, end): state 0, next generation; their frames are
 * let go. */
void present_forget(struct present_map *p, unsigned long start,
		    unsigned long end);
/*
 * Zap [start, end): forget its pages and throw away the real ones, one
 * MADV_DONTNEED a run of pages the map had (present, or dirty), as
 * zap_pte_range() finds nothing to do where no PTE is set — a range
 * nothing touched costs no host call. again (synthetic: the touching
 * threads place pages themselves) forgets each chunk once more after its
 * real pages went, so a page placed meanwhile is not left marked present;
 * one placed where no real page was thrown away is marked dirty, and its
 * next placement clears what it may hold. 0 or the first -errno.
 */
int present_zap(struct present_map *p, unsigned long start,
		unsigned long end, bool again);
/* Pages of [start, end) mapped writable become mapped for read. */
void present_write_protect(struct present_map *p, unsigned long start,
			   unsigned long end);
uint64_t present_resident(const struct present_map *p);
/* No page of [start, end) is present (pte_range_none()). */
bool present_absent(struct present_map *p, unsigned long start,
		    unsigned long end);

/* smaps' page-table walk (smaps_pte_range) of [start, end): the pages
 * present, and of them those mapped writable, into *rss and *wr; a
 * page table nothing was ever placed in is skipped (pmd_none()). */
void present_walk(struct present_map *p, unsigned long start,
		  unsigned long end, uint64_t *rss, uint64_t *wr);

/* The most pages one fault or one copy places: a PMD's (2 MiB). */
#define FAULT_ZERO_PAGES 512
/* The contents of the n (<= FAULT_ZERO_PAGES) file pages that back addr
 * on in v, in a per-thread buffer (NULL: out of memory); zeroes. */
const void *present_file_pages(const struct sim_vma *v, unsigned long addr,
			     unsigned long n);
extern const uint64_t present_zero_page[FAULT_ZERO_PAGES * SIM_PAGE_SIZE / 8];

#endif
