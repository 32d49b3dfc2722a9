/* SPDX-License-Identifier: MIT */
#include "sim/mem/pagecache.h"

#include <errno.h>
#include <stdlib.h>

int pagecache_init(struct sim_pagecache *pc, uint32_t npages)
{
	pc->npages = npages;
	pc->cached = 0;
	pc->frame = calloc(npages ? npages : 1, sizeof(*pc->frame));
	return pc->frame ? 0 : -ENOMEM;
}

void pagecache_destroy(struct sim_mm *mm, struct sim_pagecache *pc)
{
	if (pc->frame && mm->cfg.frames)
		pagecache_truncate(mm, pc);
	free(pc->frame);
	pc->frame = NULL;
}

/* filemap_read() of a page not cached: a new page, added to the cache
 * (the page cache holds its reference). */
int pagecache_read(struct sim_mm *mm, struct sim_pagecache *pc)
{
	if (!mm->cfg.frames)
		return -EINVAL;
	for (uint32_t i = 0; i < pc->npages; i++) {
		uint32_t f;

		if (pc->frame[i])
			continue;
		f = frames_alloc(mm->cfg.frames, &mm->fstat, 0);
		if (f == FRAME_NIL)
			return -ENOSPC;
		pc->frame[i] = f + 1;
		pc->cached++;
	}
	return 0;
}

uint32_t pagecache_truncate(struct sim_mm *mm, struct sim_pagecache *pc)
{
	uint32_t vec[PAGECACHE_PAGEVEC], freed = 0;
	int n = 0;

	for (uint32_t i = 0; i < pc->npages; i++) {
		if (!pc->frame[i])
			continue;
		vec[n++] = pc->frame[i] - 1;
		pc->frame[i] = 0;
		if (n == PAGECACHE_PAGEVEC) {
			frames_put_batch(mm->cfg.frames, &mm->fstat, vec, n);
			freed += (uint32_t)n;
			n = 0;
		}
	}
	if (n)
		frames_put_batch(mm->cfg.frames, &mm->fstat, vec, n);
	freed += (uint32_t)n;
	pc->cached = 0;
	return freed;
}
