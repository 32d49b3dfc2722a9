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
#include <stddef.h>
#include <stdint.h>

#include "sim/mm.h"
#include "locks/sync/slots.h"

#define PRESENT_STATE 3                  /* the state bits of a byte */
#define PRESENT_DIRTY 4                  /* the real page may hold bytes */
#define PRESENT_GEN   8                  /* one zap generation */

struct present_slot {
	_Atomic uint64_t resident;       /* placed minus zapped (mod 2^64) */
} __attribute__((aligned(64)));

struct present_map {
	struct sim_mm *mm;               /* whose pages (their frames) */
	_Atomic unsigned char *b;
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
/* Pages of [start, end) mapped writable become mapped for read. */
void present_write_protect(struct present_map *p, unsigned long start,
			   unsigned long end);
uint64_t present_resident(const struct present_map *p);
/* No page of [start, end) is present (pte_range_none()). */
bool present_absent(struct present_map *p, unsigned long start,
		    unsigned long end);

/* The most pages one fault or one copy places: a PMD's (2 MiB). */
#define FAULT_ZERO_PAGES 512
/* The contents of the n (<= FAULT_ZERO_PAGES) file pages that back addr
 * on in v, in a per-thread buffer (NULL: out of memory); zeroes. */
const void *present_file_pages(const struct sim_vma *v, unsigned long addr,
			     unsigned long n);
extern const uint64_t present_zero_page[FAULT_ZERO_PAGES * SIM_PAGE_SIZE / 8];

#endif
