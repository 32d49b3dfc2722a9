/* SPDX-License-Identifier: MIT */
/*
 * objpool — fixed-size objects (VMAs, tree nodes) from one region that is
 * reserved when the simulated mm is created (MAP_NORESERVE: memory is
 * taken as objects are first used), with a free list.
 *
 * Why not malloc: glibc's allocator grows and trims its arenas with real
 * mmap, mprotect and munmap, which would put the host kernel's
 * mmap_write_lock back into the timed phase (see sim/host.h). The pool
 * asks the host for memory once, at set-up.
 *
 * Each thread allocates from and frees to its own cache of up to 32
 * objects (one per counter slot, base/slots.h), which trades 16 at a
 * time with the shared free list under its mutex — as the kernel's slab
 * allocators serve most calls from a per-CPU cache and take a shared lock
 * on the slow path. A single lock on every allocation would serialise
 * every mmap and munmap of every task, which the kernel does not.
 * Exhaustion is -ENOMEM for the operation, as a kernel allocation
 * failure would be. That is --slab malloc.
 *
 * With --slab slub or sheaves the objects come from a slab cache
 * (sim/mem/slab.h): its own memory, shared by the processes that share
 * the cache; the pool turns its indices into objects,
 * and objpool_free_rcu() is kfree_rcu(): into an rcu_free sheaf, or the
 * object's own RCU callback.
 */
#ifndef VMSIM_OBJPOOL_H
#define VMSIM_OBJPOOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim/mem/slab.h"
#include "locks/sync/rcu.h"
#include "base/slots.h"
#include "locks/sync/spinlock.h"

#define OBJPOOL_CACHE 32                 /* objects a thread's cache holds */
#define OBJPOOL_PRE_MAX 64               /* objects one preallocation holds */
#define OBJPOOL_BATCH 16                 /* traded with the shared list */

struct objpool_cache {
	struct sim_spinlock lock;        /* uncontended but for a shared slot */
	int n;
	void *obj[OBJPOOL_CACHE];
} __attribute__((aligned(64)));

struct objpool {
	char *base;                      /* the reserved region */
	size_t objsize;                  /* rounded up to align */
	size_t cap, next;                /* objects reserved, used so far */
	void *free;                      /* free list, linked through objects */
	_Atomic size_t live;             /* allocated and not freed */
	pthread_mutex_t lock;            /* the free list and next */
	struct slot_array caches;        /* struct objpool_cache */
	struct slab_cache *slab;         /* or NULL: the caches above */
	const struct slab_stat *st;
	size_t rcu_off;                  /* of the sim_rcu_head in an object */
	/* SLAB_TYPESAFE_BY_RCU: an object is not zeroed when allocated (a
	 * reader may still be reading the one it was); its owner sets every
	 * field. Set before the first allocation. */
	bool typesafe;
};

/*
 * A preallocation for one store, as the maple tree makes it
 * (mas_preallocate .. mas_destroy): fill it with what the store may need,
 * take objects from it while storing, put back one not used after all,
 * and return the rest at the end. With sheaves it holds a prefilled
 * sheaf (kmem_cache_prefill_sheaf / kmem_cache_return_sheaf: one lock
 * each way, none per object); with SLUB an array from
 * kmem_cache_alloc_bulk, given back by kmem_cache_free_bulk; with the
 * mm's own pools, objects one by one.
 */
struct objpool_pre {
	uint32_t sheaf;                  /* sheaves: the prefilled sheaf */
	int n;                           /* else: obj[0..n-1] */
	int asked, used;                 /* objects the stores asked for, took */
	void *obj[OBJPOOL_PRE_MAX];
};

/* Make it hold at least want objects (want <= OBJPOOL_PRE_MAX); -ENOMEM
 * when the pool cannot supply them (after reclaiming what RCU holds). */
int objpool_pre_fill(struct objpool *p, struct objpool_pre *pa, int want);
/* The same, the objects one by one (no prefilled sheaf, no bulk). */
int objpool_pre_fill_single(struct objpool *p, struct objpool_pre *pa,
			    int want);
/* One object (zeroed), or NULL when it is empty. */
void *objpool_pre_take(struct objpool *p, struct objpool_pre *pa);
/* An object taken and not used back into it. */
void objpool_pre_put(struct objpool *p, struct objpool_pre *pa, void *obj);
/* Every object it still holds back to the pool. */
void objpool_pre_return(struct objpool *p, struct objpool_pre *pa);
int objpool_pre_count(const struct objpool *p, const struct objpool_pre *pa);
static inline void objpool_pre_init(struct objpool_pre *pa)
{
	pa->sheaf = SLAB_NIL;
	pa->n = pa->asked = pa->used = 0;
}
/* The end of a store whose unused objects are kept for the next (a
 * reserve, not the maple tree's way): nothing is given back or counted. */
static inline void objpool_pre_keep(struct objpool_pre *pa)
{
	pa->asked = pa->used = 0;
}

/* Reserve room for cap objects of size bytes aligned to align (a power
 * of two). Returns 0 or -errno. */
int objpool_init(struct objpool *p, size_t size, size_t align, size_t cap);
/* The address space objpool_init() reserves for these objects. */
size_t objpool_reserve_bytes(size_t size, size_t align, size_t cap);
/* The same, for the objects of slab cache s (its nobjs, in its memory;
 * -EINVAL unless it was made for objects of this size and alignment);
 * the head an object is freed by RCU with lies rcu_off bytes into it. */
int objpool_init_slab(struct objpool *p, size_t size, size_t align,
		      struct slab_cache *s, const struct slab_stat *st,
		      size_t rcu_off);
/* Release the region. Every object must be free (or abandoned). */
void objpool_destroy(struct objpool *p);
/* A zeroed object (typesafe: as it was freed), or NULL when the pool
 * is exhausted. */
void *objpool_alloc(struct objpool *p);
/* The same, but when the pool has run dry, wait once for the RCU
 * callbacks that hold freed objects (as the kernel's allocator would
 * reclaim) before giving up. Not inside an RCU read-side section. */
void *objpool_alloc_reclaim(struct objpool *p);
void objpool_free(struct objpool *p, void *obj);
/* kmem_cache_alloc_bulk() / kmem_cache_free_bulk(): n objects into out,
 * all or none (after waiting once for what RCU holds: not in a read-side
 * section); the count had. */
size_t objpool_alloc_bulk(struct objpool *p, size_t n, void **out);
void objpool_free_bulk(struct objpool *p, size_t n, void **objs);
/* kfree_rcu() of the object whose head h is: fn(h) after a grace period
 * (fn then calls objpool_free()), or, with sheaves, the object goes into
 * an rcu_free sheaf and fn is not called. p NULL: fn by call_rcu. */
void objpool_free_rcu(struct objpool *p, struct sim_rcu_head *h,
		      void (*fn)(struct sim_rcu_head *h));
/* Every object freed by RCU so far is free once this returns (lazy
 * sheaves handed to RCU, then rcu_barrier). Not in a read-side section. */
void objpool_rcu_barrier(struct objpool *p);
/* Does obj lie in the pool's memory (its region, or its slab cache's)?
 * As the kernel finds an object's cache from its address. */
bool objpool_owns(const struct objpool *p, const void *obj);
/* Objects allocated and not freed. */
size_t objpool_live(struct objpool *p);

#endif
