/* SPDX-License-Identifier: MIT */
#include "mm/frames_int.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>

#include "uffd/host.h"

/* --- lists ----------------------------------------------------------------- */

void flist_push_head(struct frames *fr, struct frames_list *l, uint32_t i)
{
	fr->f[i].prev = FRAME_NIL;
	fr->f[i].next = l->head;
	if (l->head != FRAME_NIL)
		fr->f[l->head].prev = i;
	else
		l->tail = i;
	l->head = i;
}

void flist_remove(struct frames *fr, struct frames_list *l, uint32_t i)
{
	struct frame *f = &fr->f[i];

	if (f->prev != FRAME_NIL)
		fr->f[f->prev].next = f->next;
	else
		l->head = f->next;
	if (f->next != FRAME_NIL)
		fr->f[f->next].prev = f->prev;
	else
		l->tail = f->prev;
	f->next = f->prev = FRAME_NIL;
}

void frames_count(struct frames *fr, enum frames_counter c, uint64_t n)
{
	atomic_fetch_add_explicit(&fr->counters[c], n, memory_order_relaxed);
}

/* --- the buddy allocator (zone lock held) ---------------------------------- */

static void set_free(struct frames *fr, uint32_t i, int order)
{
	fr->f[i].order = (uint8_t)order;
	atomic_store_explicit(&fr->f[i].state, FRAME_FREE, memory_order_relaxed);
	flist_push_head(fr, &fr->free_area[order], i);
	fr->nr_free[order]++;
}

/* __rmqueue_smallest() and expand(): the smallest free block of at
 * least order, its upper halves given back down to order. */
uint32_t zone_rmqueue(struct frames *fr, int order)
{
	for (int o = order; o < FRAMES_NR_ORDERS; o++) {
		uint32_t i = fr->free_area[o].head;

		if (i == FRAME_NIL)
			continue;
		flist_remove(fr, &fr->free_area[o], i);
		fr->nr_free[o]--;
		while (o > order) {
			o--;
			set_free(fr, i + (1u << o), o);
		}
		fr->f[i].order = (uint8_t)order;
		return i;
	}
	return FRAME_NIL;
}

/* __free_one_page(): merge with the buddy while it is free and of the
 * same order. */
void zone_free_one(struct frames *fr, uint32_t i, int order)
{
	while (order < FRAMES_NR_ORDERS - 1) {
		uint32_t b = i ^ (1u << order);

		if (b >= fr->nframes ||
		    atomic_load_explicit(&fr->f[b].state, memory_order_relaxed) !=
			    FRAME_FREE || fr->f[b].order != order)
			break;
		flist_remove(fr, &fr->free_area[order], b);
		fr->nr_free[order]--;
		atomic_store_explicit(&fr->f[b].state, FRAME_TAIL,
				      memory_order_relaxed);
		atomic_store_explicit(&fr->f[i].state, FRAME_TAIL,
				      memory_order_relaxed);
		i &= ~(1u << order);
		order++;
	}
	set_free(fr, i, order);
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

/* --- sizing (mm/page_alloc.c) ------------------------------------------------ */

/* zone_batchsize(): a 1/1024th of the zone, at most 1 MiB, a quarter of
 * it rounded to 2^n - 1. */
int frames_batchsize(uint32_t n)
{
	int batch = (int)(n >> 10 < 256 ? n >> 10 : 256) / 4, p = 1;

	if (batch < 1)
		batch = 1;
	while (p * 2 <= batch + batch / 2)
		p *= 2;
	return p - 1 > 0 ? p - 1 : 1;
}

/* zone_highsize() with percpu_pagelist_high_fraction 0: the zone's low
 * watermark (min_free_kbytes = sqrt(16 * KiB), clamped to 128..262144;
 * low = min + max(min / 4, zone * 10 / 10000)) split over the node's
 * CPUs, and at least four batches. */
int frames_highsize(uint32_t n, int ncpus, int batch)
{
	double kbytes = (double)n * 4;
	double min_kb = floor(sqrt(kbytes * 16));
	long min_pages, low;

	if (min_kb < 128)
		min_kb = 128;
	if (min_kb > 262144)
		min_kb = 262144;
	min_pages = (long)min_kb / 4;
	low = min_pages + (min_pages / 4 > (long)n * 10 / 10000 ?
			   min_pages / 4 : (long)n * 10 / 10000);
	low /= ncpus > 0 ? ncpus : 1;
	return (int)(low > (long)batch * 4 ? low : (long)batch * 4);
}

/* --- the allocator ---------------------------------------------------------- */

static uint32_t zone_alloc(struct frames *fr, const struct frames_stat *st,
			   int order)
{
	uint64_t t = sim_spin_lock(&fr->zone_lock, st->zone);
	uint32_t i = zone_rmqueue(fr, order);

	if (i != FRAME_NIL)
		frames_mark_alloc(fr, i, order);
	sim_spin_unlock(&fr->zone_lock, st->zone, t);
	return i;
}

uint32_t frames_alloc(struct frames *fr, const struct frames_stat *st,
		      int order)
{
	uint32_t i;

	if (fr->mode == FRAMES_PCP && pcp_keeps(order))
		i = pcp_alloc(fr, st, order);
	else
		i = zone_alloc(fr, st, order);
	if (i == FRAME_NIL)
		frames_count(fr, FRAMES_ALLOC_FAIL, 1);
	else
		frames_count(fr, FRAMES_PGALLOC, 1u << order);
	return i;
}

uint32_t frames_head(const struct frames *fr, uint32_t i)
{
	for (int o = 0; o < FRAMES_NR_ORDERS; o++) {
		uint32_t h = i & ~((1u << o) - 1);

		/* Acquire: pairs with frames_mark_alloc()'s release. */
		if (atomic_load_explicit(&fr->f[h].state, memory_order_acquire) ==
			    FRAME_ALLOC && fr->f[h].order >= o &&
		    i < h + (1u << fr->f[h].order))
			return h;
	}
	return FRAME_NIL;
}

void frames_get(struct frames *fr, uint32_t i)
{
	atomic_fetch_add_explicit(&fr->f[frames_head(fr, i)].ref, 1,
				  memory_order_relaxed);
}

void frames_put(struct frames *fr, const struct frames_stat *st, uint32_t i)
{
	uint32_t h = frames_head(fr, i);
	int order = fr->f[h].order;
	uint64_t t;

	/* Acq_rel: the last put sees every use of the folio before it. */
	if (atomic_fetch_sub_explicit(&fr->f[h].ref, 1, memory_order_acq_rel) != 1)
		return;
	frames_count(fr, FRAMES_PGFREE, 1u << order);
	if (fr->mode == FRAMES_PCP && pcp_keeps(order)) {
		pcp_free(fr, st, h, order);
		return;
	}
	t = sim_spin_lock(&fr->zone_lock, st->zone);
	atomic_store_explicit(&fr->f[h].state, FRAME_TAIL, memory_order_relaxed);
	zone_free_one(fr, h, order);
	sim_spin_unlock(&fr->zone_lock, st->zone, t);
}

/* --- set-up ----------------------------------------------------------------- */

int frames_create(enum frames_mode mode, enum frames_bulk bulk,
		  uint32_t nframes, int ncpus, struct frames **out)
{
	int npcp = ncpus > 0 && ncpus <= FRAMES_MAX_CPUS ? ncpus : 1;
	size_t bytes = sizeof(struct frames) + sizeof(struct frames_pcp) * npcp +
		       sizeof(struct frame) * (size_t)nframes;
	struct frames *fr;
	uint32_t i = 0;

	if (!nframes || nframes == FRAME_NIL)
		return -EINVAL;
	/* Shared: forked task processes use one zone. */
	fr = host_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fr == MAP_FAILED)
		return -errno;
	memset(fr, 0, sizeof(*fr));
	*fr = (struct frames){ .mode = mode, .bulk = bulk, .nframes = nframes,
			       .npcp = npcp, .bytes = bytes };
	fr->pcp = (struct frames_pcp *)(fr + 1);
	fr->f = (struct frame *)(fr->pcp + npcp);
	fr->batch = frames_batchsize(nframes);
	fr->high = frames_highsize(nframes, npcp, fr->batch);
	for (int o = 0; o < FRAMES_NR_ORDERS; o++)
		fr->free_area[o] = (struct frames_list){ FRAME_NIL, FRAME_NIL };
	for (int c = 0; c < npcp; c++)
		for (int l = 0; l < FRAMES_NR_PCP_LISTS; l++)
			fr->pcp[c].lists[l] = (struct frames_list){ FRAME_NIL,
								    FRAME_NIL };
	for (uint32_t k = 0; k < nframes; k++)
		fr->f[k] = (struct frame){ .next = FRAME_NIL, .prev = FRAME_NIL };
	/* memblock_free_all(): the largest aligned blocks that fit. */
	while (i < nframes) {
		int o = FRAMES_NR_ORDERS - 1;

		while (o && ((i & ((1u << o) - 1)) || i + (1u << o) > nframes))
			o--;
		set_free(fr, i, o);
		i += 1u << o;
	}
	*out = fr;
	return 0;
}

void frames_destroy(struct frames *fr)
{
	if (fr)
		host_munmap(fr, fr->bytes);
}

uint64_t frames_counter(const struct frames *fr, enum frames_counter c)
{
	return atomic_load_explicit(&fr->counters[c], memory_order_relaxed);
}

const char *frames_counter_name(enum frames_counter c)
{
	static const char *const n[FRAMES_NCOUNTERS] = {
		"pgalloc", "pgfree", "pcp_refill", "pcp_drain", "alloc_fail",
	};

	return n[c];
}

const char *frames_mode_name(enum frames_mode m)
{
	static const char *const n[] = { "none", "zone", "pcp" };

	return n[m];
}
