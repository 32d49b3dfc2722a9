/* SPDX-License-Identifier: MIT */
/*
 * slab — the slab caches VMAs and tree nodes come from (--slab), as
 * mm/slub.c has them: SLUB, and SLUB with the per-CPU sheaves of Vlastimil
 * Babka's series (merged for 6.18).
 *
 * slub: the cache's objects are cut into slabs of SLAB_OBJS. Each CPU
 * owns one slab at a time (frozen) and allocates from its freelist and
 * frees to it while the object is of that slab (the fast paths); an
 * object of another slab goes back to that slab's own freelist (under
 * the slab's lock, where SLUB uses cmpxchg_double), and a slab that
 * thereby stops being full is put on the node's partial list, under the
 * node's list_lock (lockstat class "slab_list_lock"). A CPU whose slab
 * is exhausted takes the remote frees back, or the first partial slab,
 * or a new slab; an empty slab is given back (discarded) once the node
 * keeps min_partial partial slabs. No per-CPU partial lists.
 *
 * sheaves: in front of that, each CPU has a main and a spare sheaf (an
 * array of SHEAF_CAPACITY objects): an allocation pops from main, a free
 * pushes to it; an empty main swaps with the spare or with a full sheaf
 * from the node's barn (lockstat class "barn_lock"), or is refilled from
 * the slabs in bulk; a full main goes to the barn (at most
 * MAX_FULL_SHEAVES there) or is flushed back to its slabs. kfree_rcu()
 * puts the object into the CPU's rcu_free sheaf, which is handed to
 * call_rcu whole when full; after the grace period it goes to the barn
 * as a full sheaf, or, when the barn already holds MAX_FULL_SHEAVES, is
 * flushed to the slabs ("destroyed").
 *
 * --rcu-free reproduces the variants of the thread's measurements:
 * call_rcu (Android's lazy RCU: a sheaf's grace period does not start
 * until lazy_max sheaves are waiting or the oldest has waited
 * lazy_flush_ns, checked as each is submitted — the kernel's qhimark,
 * 10,000, and 10 s; liburcu has no lazy mode, so vmsim holds them back
 * itself), hurry (call_rcu_hurry:
 * every sheaf's grace period starts at once) and barrier (lazy, but once
 * the sheaves in flight reach the barn's free slots, and those are at
 * least half of them, an rcu_barrier() is scheduled: the waiting sheaves
 * are handed to RCU at once, and no other barrier is scheduled until
 * every sheaf in flight at that moment is back, as a queued work item
 * running rcu_barrier() would do).
 *
 * kfree_rcu() without sheaves (SLUB): as kvfree_rcu() batches — each
 * CPU collects the objects in a bulk array of KFREE_BULK_MAX (a page of
 * pointers, KVFREE_BULK_MAX_ENTR); a full array goes to RCU as one
 * callback, which frees the objects with one kmem_cache_free_bulk()
 * (build_detached_freelist: one slab at a time, three misses of
 * lookahead). The kernel's monitor drains a full array after a jiffy
 * and a part-full one after KFREE_DRAIN_JIFFIES (5 s); vmsim hands a
 * part-full one over when the cache needs its objects, or at the end
 * (slab_rcu_flush). Without an array (all in flight), or with
 * kfree_batch off, the object's own callback (the kernel's fallback
 * list when no page can be had).
 *
 * Objects are indices into the cache's own memory: the metadata (slabs,
 * per-CPU state, sheaves, the barn) and the objects live in shared
 * mappings, so that forked task processes share one cache as processes
 * share the kernel's (a live object is one process's at a time). A free
 * object's link to the next free one of its slab (the free pointer) is
 * kept inside it, as get_freepointer()/set_freepointer() keep it: SLUB's
 * allocation reads the object it hands out, its frees write the object
 * they free (the bulk and detached-freelist walks, every object); the
 * sheaves' fast paths touch only the sheaf's array of indices. "Per CPU" is per CPU the caller runs on
 * (sched_getcpu(), as the pcp lists pick theirs), each under a spinlock
 * that stands for local_lock (a thread may be preempted holding it,
 * which a kernel CPU cannot). The fast paths (a pop or push on the CPU
 * freelist or the main sheaf) take no lock where restartable sequences
 * allow it (sim/mem/slab_rseq.h), as the kernel's take none. Every call
 * is safe from any thread of any process.
 */
#ifndef VMSIM_SLAB_H
#define VMSIM_SLAB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/mem/ilist.h"

#include "locks/sync/lockstat.h"
#include "locks/sync/rcu.h"
#include "locks/sync/spinlock.h"

enum slab_kind { SLAB_MALLOC, SLAB_SLUB, SLAB_SHEAVES, SLAB_NKINDS };
enum slab_rcu_free { RCU_FREE_CALL_RCU, RCU_FREE_HURRY, RCU_FREE_BARRIER,
		     RCU_FREE_NVARIANTS };
/* Their names (--slab, --rcu-free), indexed by value. */
extern const char *const slab_kind_names[SLAB_NKINDS];
extern const char *const slab_rcu_free_names[RCU_FREE_NVARIANTS];

#define SLAB_OBJS          32            /* objects a slab holds */
#define SLAB_MIN_PARTIAL   5             /* min_partial for these sizes */
#define SHEAF_CAPACITY     32            /* vm_area_struct's in the series */
#define MAX_FULL_SHEAVES   10
#define MAX_EMPTY_SHEAVES  10
/* Lazy RCU (CONFIG_RCU_LAZY): a CPU's lazy callbacks are flushed to
 * a grace period once qhimark (10,000) are waiting or the oldest has
 * waited jiffies_lazy_flush (10 s) — the defaults of lazy_max and
 * lazy_flush_ns, set before use (--rcu-lazy-max, --rcu-lazy-flush). */
#define RCU_LAZY_MAX       10000
#define RCU_LAZY_FLUSH_NS  (10ULL * 1000000000ULL)
#define KFREE_BULK_MAX     509           /* (4096 - 3 * 8) / 8 */
#define SLAB_NIL           UINT32_MAX

enum slab_counter {
	SLAB_ALLOC_FASTPATH,             /* from a sheaf or the CPU freelist */
	SLAB_ALLOC_SLOWPATH,             /* everything else */
	SLAB_FREE_FASTPATH,              /* to a sheaf or the CPU's slab */
	SLAB_FREE_SLOWPATH,              /* to another slab's freelist */
	SLAB_NEW,                        /* slabs taken from the pages */
	SLAB_DISCARD,                    /* empty slabs given back */
	SLAB_SHEAF_REFILL,               /* sheaves filled from the slabs */
	SLAB_SHEAF_FLUSH,                /* sheaves emptied to the slabs */
	SLAB_BARN_GET,                   /* full sheaves taken from the barn */
	SLAB_BARN_GET_FAIL,
	SLAB_BARN_PUT,                   /* full sheaves put into the barn */
	SLAB_BARN_PUT_FAIL,
	SLAB_FREE_RCU_SHEAF,             /* kfree_rcu into an rcu_free sheaf */
	SLAB_FREE_RCU_SHEAF_FAIL,        /* no sheaf: call_rcu of the object */
	SLAB_RCU_SHEAF_DESTROYED,        /* after the grace period, barn full */
	SLAB_RCU_BARRIER,                /* lazy sheaves flushed (barrier) */
	SLAB_RCU_INFLIGHT_MAX,           /* most sheaves waiting at once */
	SLAB_ALLOC_WAIT_RCU,             /* allocations that waited for a
					  * grace period (the cache was dry
					  * but for what RCU held): 0, as
					  * the kernel's caches grow */
	SLAB_KFREE_RCU_BULK,             /* kfree_rcu into a bulk array */
	SLAB_KFREE_RCU_BULK_FREED,       /* arrays freed after their GP */
	SLAB_SHEAF_PREFILL_FAST,         /* prefill: the CPU's spare taken */
	SLAB_SHEAF_PREFILL_SLOW,         /* prefill: from the barn, or new */
	SLAB_SHEAF_RETURN_FAST,          /* return: became the CPU's spare */
	SLAB_SHEAF_RETURN_SLOW,          /* return: to the barn, or flushed */
	SLAB_PREALLOC,                   /* objects preallocated for a store */
	SLAB_PREALLOC_UNUSED,            /* of those, given back unused */
	SLAB_RCU_CB_LOCAL,               /* a sheaf's or bulk array's RCU
					  * callback ran on the CPU that
					  * queued it */
	SLAB_RCU_CB_REMOTE,              /* on another CPU */
	SLAB_FAST_RSEQ,                  /* fast paths taken in an rseq
					  * critical section, with no lock */
	SLAB_RSEQ_ABORT,                 /* sections the kernel restarted */
	SLAB_NCOUNTERS,
	/* slab's own, not counters: a fast path taken in a section is
	 * counted once, here; slab_counter() adds these to alloc_ and
	 * free_fastpath, and sums them as fast_rseq */
	SLAB_ALLOC_FAST_RSEQ = SLAB_NCOUNTERS,
	SLAB_FREE_FAST_RSEQ,
	SLAB_NSLOTS
};

struct slab_page {                       /* struct slab */
	struct sim_spinlock lock;        /* freelist, inuse, frozen */
	uint32_t freelist;               /* first free object, or SLAB_NIL */
	uint32_t inuse;                  /* objects not on freelist */
	struct ilist_link link;          /* partial list; free pages (next) */
	uint8_t frozen;                  /* some CPU's slab */
	uint8_t on_partial, active;      /* active: carved from the pages */
};

struct sheaf {
	struct sim_rcu_head rcu;
	const struct slab_stat *st;      /* of the process that queued it */
	struct slab_cache *s;
	uint32_t next, size;
	int cpu;                         /* where it was queued to RCU */
	uint32_t objs[SHEAF_CAPACITY];
} __attribute__((aligned(64)));      /* no line shared by two sheaves */

/* kvfree_rcu_bulk_data: one CPU's page of objects kfree_rcu'd. */
struct krc_bulk {
	struct sim_rcu_head rcu;
	const struct slab_stat *st;      /* of the process that queued it */
	struct slab_cache *s;
	uint32_t next, n;
	int cpu;                         /* where it was queued to RCU */
	uint32_t objs[KFREE_BULK_MAX];
} __attribute__((aligned(64)));

struct slab_cpu {                        /* kmem_cache_cpu + percpu sheaves */
	struct sim_spinlock lock;        /* local_lock */
	/* freelist and tid: the pair SLUB's fast paths commit with one
	 * this_cpu_cmpxchg128 (slab_rseq.h; slab and main ride along
	 * unchanged in its 16 bytes) */
	uint32_t freelist, tid;
	uint32_t slab, main;             /* main: a sheaf, or SLAB_NIL */
	uint32_t spare, rcu_free;        /* sheaves, or SLAB_NIL */
	uint32_t krc;                    /* kfree_rcu bulk array, or SLAB_NIL */
	_Atomic uint64_t counters[SLAB_NSLOTS];
} __attribute__((aligned(64)));

struct slab_cache {
	enum slab_kind kind;
	enum slab_rcu_free rcu_free;
	char name[24];
	uint32_t nobjs, nslabs, nsheaves, nkrc;
	/* SLUB's kfree_rcu() batches into bulk arrays (--kfree-rcu batch);
	 * set before use. */
	bool kfree_batch;
	/* An object freed by its own callback (SLUB's tree nodes by
	 * call_rcu(mt_free_rcu); any object for which no rcu_free sheaf or
	 * bulk array could be had) waits lazily (sim_call_rcu_lazy); off:
	 * call_rcu_hurry. Set before use. */
	bool cb_lazy;
	/* The fast paths in restartable sequences, no lock (--slab-fastpath
	 * rseq; sim/mem/slab_rseq.h): set by slab_cache_create where they
	 * can run, cleared before use for the locked ones. */
	bool fast_rseq;
	/* Counts made in sections (slab_rseq.h's slab_stat_inc): set by
	 * slab_cache_create where sections can run, whatever the fast
	 * paths. */
	bool count_rseq;
	int ncpus;
	size_t bytes;                    /* of the mapping */
	struct sim_spinlock list_lock;   /* kmem_cache_node's */
	struct ilist partial;            /* the node's partial slabs */
	uint32_t nr_partial;             /* their count */
	struct sim_spinlock page_lock;   /* the pages new slabs come from */
	uint32_t free_pages, next_page;
	struct sim_spinlock barn_lock;
	uint32_t barn_full, barn_empty;  /* stacks of sheaves */
	_Atomic uint32_t nr_full, nr_empty;
	struct sim_spinlock sheaf_lock;  /* unused sheaves */
	uint32_t free_sheaves;
	uint32_t next_sheaf;             /* sheaves carved so far (sheaf_lock) */
	_Atomic int64_t inflight;        /* rcu_free sheaves not yet back */
	_Atomic uint64_t inflight_max;
	_Atomic int64_t barrier_left;    /* sheaves the pending barrier awaits */
	struct slab_cpu *cpu;            /* ncpus, in the mapping */
	struct slab_page *slab;          /* nslabs */
	char *objs;                      /* nobjs objects of objsize */
	size_t objsize, freeptr;         /* freeptr: the link's offset */
	size_t objs_bytes;               /* of the objects' mapping */
	struct sheaf *sheaf;             /* nsheaves */
	struct sim_spinlock krc_lock;    /* unused bulk arrays */
	uint32_t free_krc;
	struct krc_bulk *krc;            /* nkrc */
};

/* The lock classes of the calling process (its own statistics). */
struct slab_stat {
	struct lockstat_class *list_lock, *barn_lock;
};

/*
 * kmem_cache_args: the objects' size and alignment (a power of two), and
 * where in a free object its free pointer lies — freeptr_offset when
 * use_freeptr_offset (a SLAB_TYPESAFE_BY_RCU cache names a field that no
 * reader of a freed object needs, as vm_area_struct's vm_freeptr), else
 * the middle of the object, as calculate_sizes() places it.
 */
struct slab_args {
	size_t size, align;
	size_t freeptr_offset;
	bool use_freeptr_offset;
};

/* Map and set up a cache of at least nobjs objects (rounded up to whole
 * slabs) for ncpus CPUs; kind SLAB_SLUB or SLAB_SHEAVES; a NULL: 64-byte
 * objects. 0 or -errno. */
int slab_cache_create(enum slab_kind kind, enum slab_rcu_free rf,
		      const char *name, uint32_t nobjs,
		      const struct slab_args *a, int ncpus,
		      struct slab_cache **out);
/* Object i's memory (SLAB_NIL: NULL), and an object's index. */
static inline void *slab_object(const struct slab_cache *s, uint32_t i)
{
	return i == SLAB_NIL ? NULL : s->objs + s->objsize * i;
}

static inline uint32_t slab_index(const struct slab_cache *s, const void *o)
{
	return (uint32_t)(((const char *)o - s->objs) / s->objsize);
}
void slab_cache_destroy(struct slab_cache *s);

/* Whether a cache for ncpus CPUs can take its fast paths in restartable
 * sequences (sim/mem/slab_rseq.h): x86-64, not TSan, an rseq area
 * registered by glibc, and no CPU number at or past ncpus. */
bool slab_fast_rseq_usable(int ncpus);
/* Whether this build has them at all (x86-64, not TSan). */
bool slab_fast_rseq_built(void);

/* An object's index, or SLAB_NIL when the cache is exhausted. */
uint32_t slab_alloc(struct slab_cache *s, const struct slab_stat *st);
/* kmem_cache_free(): the object is free at once. */
void slab_free(struct slab_cache *s, const struct slab_stat *st, uint32_t i);
/* kfree_rcu(): true if the object went into an rcu_free sheaf (sheaves)
 * or a bulk array (slub, kfree_batch); false (no sheaf or array to be
 * had, or kfree_batch off) and the caller queues the object's own RCU
 * callback, which calls slab_free(). */
bool slab_free_rcu(struct slab_cache *s, const struct slab_stat *st,
		   uint32_t i);
/*
 * The maple tree's allocation API. kmem_cache_prefill_sheaf(): a sheaf
 * with at least size objects (size <= SHEAF_CAPACITY), the caller's
 * until kmem_cache_return_sheaf() — the CPU's spare if it has one (under
 * the CPU's lock, once), else a sheaf from the barn, else an empty one;
 * refilled from the slabs if short. Objects are then taken from and put
 * back into it with no lock (slab_sheaf_pop/push). Returning it makes
 * it the CPU's spare if there is none; else it is refilled and goes to
 * the barn, or, the barn full, its objects go back to the slabs. SLAB_NIL
 * when no sheaf can be had. Sheaves only.
 */
uint32_t slab_prefill_sheaf(struct slab_cache *s, const struct slab_stat *st,
			    uint32_t size);
/* kmem_cache_refill_sheaf(): sheaf i to at least size objects; false if
 * the slabs ran out. */
bool slab_refill_sheaf(struct slab_cache *s, const struct slab_stat *st,
		       uint32_t i, uint32_t size);
uint32_t slab_sheaf_pop(struct slab_cache *s, uint32_t i);
bool slab_sheaf_push(struct slab_cache *s, uint32_t i, uint32_t obj);
uint32_t slab_sheaf_size(const struct slab_cache *s, uint32_t i);
void slab_return_sheaf(struct slab_cache *s, const struct slab_stat *st,
		       uint32_t i);
/* kmem_cache_alloc_bulk() / kmem_cache_free_bulk(): SLUB, n objects under
 * one hold of the CPU's lock (its freelist, refilled as needed); with
 * sheaves, one object at a time through the main sheaf (the tree uses
 * this only past a sheaf's capacity). alloc returns how many it got. */
uint32_t slab_alloc_bulk(struct slab_cache *s, const struct slab_stat *st,
			 uint32_t n, uint32_t *out);
void slab_free_bulk(struct slab_cache *s, const struct slab_stat *st,
		    uint32_t *objs, uint32_t n);
/* Count n preallocated objects (SLAB_PREALLOC) or unused ones given back
 * (SLAB_PREALLOC_UNUSED), on the calling CPU. */
void slab_count(struct slab_cache *s, enum slab_counter k, uint64_t n);

/* Hand the sheaves lazy RCU holds back to RCU now (before waiting for
 * callbacks with sim_rcu_barrier(): at the end, or when out of objects). */
void slab_rcu_flush(struct slab_cache *s, const struct slab_stat *st);
/* An allocation is about to wait for RCU to reclaim (alloc_wait_rcu). */
void slab_count_alloc_wait(struct slab_cache *s);
/* The sheaves a cache has room for (slab_cache_create: at the lazy
 * limit set then, sim_rcu_lazy_set): every CPU's three, the barn's, and
 * on every CPU twice what lazy RCU may hold back (lazy_max callbacks,
 * each an rcu_free sheaf at most: a list filling while the last one
 * flushed waits for its grace period). The objects a cache needs beyond
 * the live ones so that none of its allocations waits for RCU (the
 * kernel's cache would grow by new_slab): those sheaves full. */
size_t slab_rcu_sheaves(uint32_t lazy_max, int ncpus);
size_t slab_rcu_headroom(uint32_t lazy_max, int ncpus);

uint64_t slab_counter(const struct slab_cache *s, enum slab_counter c);
const char *slab_counter_name(enum slab_counter c);
const char *slab_kind_name(enum slab_kind k);
const char *slab_rcu_free_name(enum slab_rcu_free r);

/*
 * The invariants, for tests (nothing may run; no sheaf in flight): every
 * object of every active slab is in exactly one place — its slab's
 * freelist, a CPU freelist, a sheaf — or live (live[i] != 0; NULL: not
 * checked per object, but free + nlive must cover the active slabs);
 * slab counts, frozen slabs and the partial list agree; every sheaf is
 * in one place and the barn's counts are right. NULL or what is wrong.
 */
const char *slab_check(struct slab_cache *s, const uint8_t *live,
		       uint64_t nlive);

#endif
