/* SPDX-License-Identifier: MIT */
/*
 * The mm's side of simulated physical memory: which frame backs each
 * arena page. A fault allocates its folio (alloc_anon_folio) under its
 * lock hold, maps one frame a page it places, and drops its own
 * reference; a zap drops the reference of each page it unmaps (the
 * folio is freed with the last, as folios_put() does after a TLB flush).
 */
#include <errno.h>
#include <sys/mman.h>

#include "sim/mm.h"
#include "sim/host.h"

static size_t npages(const struct sim_mm *mm)
{
	return (mm->end - mm->base) >> SIM_PAGE_SHIFT;
}

int sim_mm_frames_init(struct sim_mm *mm)
{
	void *m;

	if (!mm->cfg.frames)
		return 0;
	mm->fstat.zone = lockstat_class_new("zone_lock");
	mm->fstat.pcp = lockstat_class_new("pcp_lock");
	lockstat_class_spins(mm->fstat.zone);
	lockstat_class_spins(mm->fstat.pcp);
	if (!mm->fstat.zone || !mm->fstat.pcp)
		return -ENOMEM;
	m = host_mmap(NULL, npages(mm) * sizeof(*mm->page_frame),
		      PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	mm->page_frame = m;
	return 0;
}

void sim_mm_frames_fini(struct sim_mm *mm)
{
	if (mm->page_frame) {
		/* Whatever is still mapped goes back (the arena is going). */
		sim_mm_unmap_frames(mm, mm->base, mm->end);
		host_munmap((void *)mm->page_frame,
			    npages(mm) * sizeof(*mm->page_frame));
	}
	lockstat_class_free(mm->fstat.zone);
	lockstat_class_free(mm->fstat.pcp);
}

uint32_t sim_mm_frames_alloc(struct sim_mm *mm, int order)
{
	if (!mm->cfg.frames)
		return FRAME_NIL;
	return frames_alloc(mm->cfg.frames, &mm->fstat, order);
}

void sim_mm_frames_done(struct sim_mm *mm, uint32_t frame)
{
	if (frame != FRAME_NIL)
		frames_put(mm->cfg.frames, &mm->fstat, frame);
}

static _Atomic uint32_t *slot(struct sim_mm *mm, unsigned long addr)
{
	return &mm->page_frame[(addr - mm->base) >> SIM_PAGE_SHIFT];
}

/* After the page was placed: its frame's reference first, then the
 * slot; a frame a racing zap left there is let go. */
void sim_mm_map_frame(struct sim_mm *mm, unsigned long addr, uint32_t frame)
{
	uint32_t old;

	if (frame == FRAME_NIL || !mm->page_frame)
		return;
	frames_get(mm->cfg.frames, frame);
	old = atomic_exchange_explicit(slot(mm, addr), frame + 1,
				       memory_order_acq_rel);
	if (old)
		frames_put(mm->cfg.frames, &mm->fstat, old - 1);
}

void sim_mm_populate_frames(struct sim_mm *mm, unsigned long start,
			    unsigned long end)
{
	if (!mm->page_frame)
		return;
	for (unsigned long a = start; a < end; a += SIM_PAGE_SIZE) {
		uint32_t f;

		if (atomic_load_explicit(slot(mm, a), memory_order_relaxed))
			continue;
		f = sim_mm_frames_alloc(mm, 0);
		if (f == FRAME_NIL)
			return;          /* counted: the run ends */
		sim_mm_map_frame(mm, a, f);
		sim_mm_frames_done(mm, f);
	}
}

/* Every slot of the range, present or not: a placement that raced an
 * earlier zap of its page is let go here at the latest. */
void sim_mm_unmap_frames(struct sim_mm *mm, unsigned long start,
			 unsigned long end)
{
	if (!mm->page_frame)
		return;
	for (unsigned long a = start; a < end; a += SIM_PAGE_SIZE) {
		_Atomic uint32_t *s = slot(mm, a);
		uint32_t old;

		if (!atomic_load_explicit(s, memory_order_relaxed))
			continue;
		old = atomic_exchange_explicit(s, 0, memory_order_acq_rel);
		if (old)
			frames_put(mm->cfg.frames, &mm->fstat, old - 1);
	}
}
