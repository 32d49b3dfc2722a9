/* SPDX-License-Identifier: MIT */
#include "sim/mem/frames_int.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/host.h"

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

uint32_t frames_alloc(struct frames *fr, const struct frames_stat *st,
		      int order)
{
	uint32_t i;

	if (fr->mode == FRAMES_PCP && frames_pcp_keeps(order))
		i = frames_pcp_alloc(fr, st, order);
	else
		i = frames_zone_alloc(fr, st, order);
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

	/* Acq_rel: the last put sees every use of the folio before it. */
	if (atomic_fetch_sub_explicit(&fr->f[h].ref, 1, memory_order_acq_rel) != 1)
		return;
	frames_count(fr, FRAMES_PGFREE, 1u << order);
	if (fr->mode == FRAMES_PCP && frames_pcp_keeps(order)) {
		frames_pcp_free(fr, st, h, order);
		return;
	}
	frames_zone_free(fr, st, h, order);
}

void frames_put_batch(struct frames *fr, const struct frames_stat *st,
		      const uint32_t *frames, int n)
{
	uint32_t gone[64];
	int k = 0;

	for (int i = 0; i < n; i++) {
		uint32_t h = frames_head(fr, frames[i]);

		if (atomic_fetch_sub_explicit(&fr->f[h].ref, 1,
					      memory_order_acq_rel) != 1)
			continue;
		frames_count(fr, FRAMES_PGFREE, 1u << fr->f[h].order);
		if (fr->mode == FRAMES_PCP && !fr->f[h].order && k < 64)
			gone[k++] = h;
		else if (fr->mode == FRAMES_PCP && frames_pcp_keeps(fr->f[h].order))
			frames_pcp_free(fr, st, h, fr->f[h].order);
		else
			frames_zone_free(fr, st, h, fr->f[h].order);
	}
	if (k)
		frames_pcp_free_list(fr, st, gone, k);
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
		fr->f[k] = (struct frame){ .link = { FRAME_NIL, FRAME_NIL } };
	/* memblock_free_all(): the largest aligned blocks that fit. */
	while (i < nframes) {
		int o = FRAMES_NR_ORDERS - 1;

		while (o && ((i & ((1u << o) - 1)) || i + (1u << o) > nframes))
			o--;
		frames_zone_set_free(fr, i, o);
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

const char *const frames_mode_names[FRAMES_NMODES] = {
	[FRAMES_NONE] = "none", [FRAMES_ZONE] = "zone", [FRAMES_PCP] = "pcp",
};
const char *const frames_bulk_names[FRAMES_NBULK] = {
	[FRAMES_TWOPASS] = "twopass", [FRAMES_ONEPASS] = "onepass",
};

const char *frames_mode_name(enum frames_mode m)
{
	return frames_mode_names[m];
}
