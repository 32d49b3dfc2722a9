/* SPDX-License-Identifier: MIT */
/* slab's insides, shared by slab.c (SLUB), slab_sheaves.c and slab_check.c. */
#ifndef VMSIM_SLAB_INT_H
#define VMSIM_SLAB_INT_H

#include <sched.h>

#include "sim/mem/slab.h"

/* The CPU the caller runs on (as sim/mem/frames_pcp.c picks its list). */
static inline struct slab_cpu *slab_cpu_mine(struct slab_cache *s)
{
	int cpu = sched_getcpu();

	return &s->cpu[cpu >= 0 ? cpu % s->ncpus : 0];
}

/*
 * Take the calling CPU's lock (local_lock). With the rseq fast paths
 * (sim/mem/slab_rseq.h) the holder must still run on that CPU once it
 * holds the lock: every section begun there before was then finished or
 * preempted (and restarts, seeing the lock). A thread that moved in
 * between lets go and takes its new CPU's. The returned CPU's lock is
 * held; the thread may move on afterwards.
 */
static inline struct slab_cpu *slab_cpu_lock(struct slab_cache *s)
{
	for (;;) {
		struct slab_cpu *c = slab_cpu_mine(s);

		sim_spin_lock_raw(&c->lock);
		if (!s->fast_rseq || slab_cpu_mine(s) == c)
			return c;
		sim_spin_unlock_raw(&c->lock);
	}
}

/* get_freepointer() / set_freepointer(): the link in a free object. */
static inline uint32_t *slab_freeptr(const struct slab_cache *s, uint32_t i)
{
	return (uint32_t *)(s->objs + s->objsize * i + s->freeptr);
}

static inline uint32_t get_freepointer(const struct slab_cache *s, uint32_t i)
{
	return *slab_freeptr(s, i);
}

static inline void set_freepointer(struct slab_cache *s, uint32_t i,
				   uint32_t next)
{
	*slab_freeptr(s, i) = next;
}

static inline int slab_cpu_index(struct slab_cache *s)
{
	return (int)(slab_cpu_mine(s) - s->cpu);
}

static inline struct sheaf *sheaf_at(struct slab_cache *s, uint32_t i)
{
	return i == SLAB_NIL ? NULL : &s->sheaf[i];
}

/* SLUB under the CPU's lock c (held): one object, or SLAB_NIL; from the
 * CPU freelist when it has one (the fast path: the caller counts). */
uint32_t slab_slub_alloc_locked(struct slab_cache *s, const struct slab_stat *st,
			   struct slab_cpu *c);
/* SLUB: free object i under the calling CPU's lock c (held). */
void slab_slub_free(struct slab_cache *s, const struct slab_stat *st,
	       struct slab_cpu *c, uint32_t i);
/* The same for n objects at once, as kmem_cache_free_bulk() (objs is
 * reordered). */
void slab_slub_free_bulk(struct slab_cache *s, const struct slab_stat *st,
		    struct slab_cpu *c, uint32_t *objs, uint32_t n);

/* The same for a long array, as build_detached_freelist() (objs is
 * consumed). */
void slab_slub_free_detached(struct slab_cache *s, const struct slab_stat *st,
			     struct slab_cpu *c, uint32_t *objs, uint32_t n);

#endif
