/* SPDX-License-Identifier: MIT */
/* slab's insides, shared by slab.c (SLUB), slab_sheaves.c and slab_check.c. */
#ifndef VMSIM_SLAB_INT_H
#define VMSIM_SLAB_INT_H

#include <sched.h>

#include "mm/slab.h"

/* The CPU the caller runs on (as mm/frames_pcp.c picks its list). */
static inline struct slab_cpu *slab_cpu_mine(struct slab_cache *s)
{
	int cpu = sched_getcpu();

	return &s->cpu[cpu >= 0 ? cpu % s->ncpus : 0];
}

static inline void slab_stat_inc(struct slab_cpu *c, enum slab_counter k,
				 uint64_t n)
{
	atomic_fetch_add_explicit(&c->counters[k], n, memory_order_relaxed);
}

static inline struct sheaf *sheaf_at(struct slab_cache *s, uint32_t i)
{
	return i == SLAB_NIL ? NULL : &s->sheaf[i];
}

/* SLUB under the CPU's lock c (held): one object, or SLAB_NIL. */
uint32_t slub_alloc_locked(struct slab_cache *s, const struct slab_stat *st,
			   struct slab_cpu *c);
/* SLUB: free object i under the calling CPU's lock c (held). */
void slub_free(struct slab_cache *s, const struct slab_stat *st,
	       struct slab_cpu *c, uint32_t i);

#endif
