/* SPDX-License-Identifier: MIT */
/* The zone: frame lists, the buddy allocator, the zone lock's paths. */
#include "sim/mem/frames_int.h"

void frames_count(struct frames *fr, enum frames_counter c, uint64_t n)
{
	atomic_fetch_add_explicit(&fr->counters[c], n, memory_order_relaxed);
}

/* --- the buddy allocator (zone lock held) ---------------------------------- */

void frames_zone_set_free(struct frames *fr, uint32_t i, int order)
{
	fr->f[i].order = (uint8_t)order;
	atomic_store_explicit(&fr->f[i].state, FRAME_FREE, memory_order_relaxed);
	ilist_push_head(&fr->free_area[order], ILIST_OF(fr->f, link), i);
	fr->nr_free[order]++;
}

/* __rmqueue_smallest() and expand(): the smallest free block of at
 * least order, its upper halves given back down to order. */
uint32_t frames_zone_rmqueue(struct frames *fr, int order)
{
	for (int o = order; o < FRAMES_NR_ORDERS; o++) {
		uint32_t i = fr->free_area[o].head;

		if (i == FRAME_NIL)
			continue;
		ilist_remove(&fr->free_area[o], ILIST_OF(fr->f, link), i);
		fr->nr_free[o]--;
		while (o > order) {
			o--;
			frames_zone_set_free(fr, i + (1u << o), o);
		}
		fr->f[i].order = (uint8_t)order;
		return i;
	}
	return FRAME_NIL;
}

/* __free_one_page(): merge with the buddy while it is free and of the
 * same order. */
void frames_zone_free_one(struct frames *fr, uint32_t i, int order)
{
	while (order < FRAMES_NR_ORDERS - 1) {
		uint32_t b = i ^ (1u << order);

		if (b >= fr->nframes ||
		    atomic_load_explicit(&fr->f[b].state, memory_order_relaxed) !=
			    FRAME_FREE || fr->f[b].order != order)
			break;
		ilist_remove(&fr->free_area[order], ILIST_OF(fr->f, link), b);
		fr->nr_free[order]--;
		atomic_store_explicit(&fr->f[b].state, FRAME_TAIL,
				      memory_order_relaxed);
		atomic_store_explicit(&fr->f[i].state, FRAME_TAIL,
				      memory_order_relaxed);
		i &= ~(1u << order);
		order++;
	}
	frames_zone_set_free(fr, i, order);
}

void frames_mark_alloc(struct frames *fr, uint32_t i, int order)
{
	for (uint32_t k = 1; k < (1u << order); k++)
		atomic_store_explicit(&fr->f[i + k].state, FRAME_TAIL,
				      memory_order_relaxed);
	fr->f[i].order = (uint8_t)order;
	atomic_store_explicit(&fr->f[i].ref, 1, memory_order_relaxed);
	/* Release: a reader of the state sees the order and the ref. */
	atomic_store_explicit(&fr->f[i].state, FRAME_ALLOC, memory_order_release);
}

uint32_t frames_zone_alloc(struct frames *fr, const struct frames_stat *st,
			   int order)
{
	uint64_t t = sim_spin_lock(&fr->zone_lock, st->zone);
	uint32_t i = frames_zone_rmqueue(fr, order);

	if (i != FRAME_NIL)
		frames_mark_alloc(fr, i, order);
	sim_spin_unlock(&fr->zone_lock, st->zone, t);
	return i;
}

void frames_zone_free(struct frames *fr, const struct frames_stat *st, uint32_t i,
	       int order)
{
	uint64_t t = sim_spin_lock(&fr->zone_lock, st->zone);

	atomic_store_explicit(&fr->f[i].state, FRAME_TAIL, memory_order_relaxed);
	frames_zone_free_one(fr, i, order);
	sim_spin_unlock(&fr->zone_lock, st->zone, t);
}
