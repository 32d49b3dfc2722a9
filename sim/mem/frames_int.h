/* SPDX-License-Identifier: MIT */
/* What frames.c (the zone, its buddy lists) and frames_pcp.c (the per-CPU
 * lists) share. Not for use outside mm/. */
#ifndef VMSIM_FRAMES_INT_H
#define VMSIM_FRAMES_INT_H

#include "sim/mem/frames.h"


/* Zone lock held: take a block of order (split from a larger one), or
 * FRAME_NIL; give one back, merging with its buddies. */
uint32_t frames_zone_rmqueue(struct frames *fr, int order);
void frames_zone_free_one(struct frames *fr, uint32_t i, int order);
/* Mark the block at i allocated (state, order, tails, one reference). */
void frames_mark_alloc(struct frames *fr, uint32_t i, int order);
void frames_count(struct frames *fr, enum frames_counter c, uint64_t n);
/* Zone lock held: put the block at i on the buddy list of order. */
void frames_zone_set_free(struct frames *fr, uint32_t i, int order);
/* Taking the zone lock: a block of order allocated (FRAME_NIL: none);
 * one given back. */
uint32_t frames_zone_alloc(struct frames *fr, const struct frames_stat *st, int order);
void frames_zone_free(struct frames *fr, const struct frames_stat *st, uint32_t i,
	       int order);

/* frames_pcp.c: the per-CPU path (mode pcp, orders it keeps). */
bool frames_pcp_keeps(int order);
uint32_t frames_pcp_alloc(struct frames *fr, const struct frames_stat *st, int order);
void frames_pcp_free(struct frames *fr, const struct frames_stat *st, uint32_t i,
	      int order);
/* n order-0 blocks under one hold of this CPU's lock. */
void frames_pcp_free_list(struct frames *fr, const struct frames_stat *st,
		   const uint32_t *blocks, int n);

#endif
