/* SPDX-License-Identifier: MIT */
/*
 * pagecache — a simulated file's page cache, of frames (--frames): what
 * mmtests' trunc benchmark fills by reading sparse files and then
 * truncates, so that truncation is the page allocator's free path
 * (truncate_inode_pages_range(): pagevecs of 15 pages, release_pages(),
 * free_unref_page_list()). One file is used by one task at a time.
 */
#ifndef VMSIM_PAGECACHE_H
#define VMSIM_PAGECACHE_H

#include <stdint.h>

#include "sim/mm.h"

#define PAGECACHE_PAGEVEC 15             /* PAGEVEC_SIZE (5.17) */

struct sim_pagecache {
	uint32_t npages;
	uint32_t cached;                 /* pages in the cache */
	uint32_t *frame;                 /* per page: frame + 1, 0: none */
};

/* A file of npages pages, none cached. 0 or -ENOMEM. */
int pagecache_init(struct sim_pagecache *pc, uint32_t npages);
/* Truncates what is cached, then frees the file. */
void pagecache_destroy(struct sim_mm *mm, struct sim_pagecache *pc);
/* Read every page: each one not cached gets a frame. 0, -ENOSPC when
 * the zone has none left, -EINVAL without frames. */
int pagecache_read(struct sim_mm *mm, struct sim_pagecache *pc);
/* Truncate to 0: every cached page's frame goes back, a pagevec at a
 * time. The pages freed. */
uint32_t pagecache_truncate(struct sim_mm *mm, struct sim_pagecache *pc);

#endif
