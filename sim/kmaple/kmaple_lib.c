/* SPDX-License-Identifier: MIT */
/*
 * The kernel's maple tree, compiled here from the kernel source the build
 * was given (lib/maple_tree.c, the headers of its user-space test harness
 * in tools/), with vmsim underneath: this file is vmsim's; the file it
 * includes is the kernel's (GPL-2.0+), so a binary built with it is
 * GPL-2.0 (README, LICENSE).
 *
 * The shim, as the kernel's own tools/testing/shared/linux.c is for its
 * tests, but onto vmsim: kmem_cache_* are the allocator the tree
 * was made with (struct kmaple_alloc: sim/vma_tree_maple.c gives the
 * mm's node pool, --slab), call_rcu is vmsim's (include/linux/rcupdate.h),
 * WARN_ON/BUG_ON are sim_warn(). The kernel's calls name no tree (its
 * maple_node_cache is one global cache, each CPU's part found by the CPU
 * it runs on), so each entry point that may allocate or free names its
 * tree for the calls it makes (kmaple_cur, this thread's, as the kernel
 * finds this CPU's sheaf). The one free outside an entry point, by the
 * walk over a subtree a store cut out (mt_free_walk, an RCU callback),
 * goes to the allocator's free_found, which finds the node's pool from
 * its address.
 */
/* Before any header: without it maple_tree.h takes its 32-bit layout
 * (63 slots of 8 bytes, 512-byte nodes) with no word said. */
#define CONFIG_64BIT 1

/* The kernel's files keep the kernel's warnings (those its headers and
 * lib/maple_tree.c raise under vmsim's flags, named here); everything
 * after them is vmsim's and is built with vmsim's warnings, as errors. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wimplicit-function-declaration"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"

#include "shared.h"
#include "linux/init.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#undef BUG_ON
#undef BUG
#define BUG_ON(cond) do {						\
	if (__builtin_expect(!!(cond), 0)) {				\
		sim_warn(__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)
#define BUG() BUG_ON(1)

#include "lib/maple_tree.c"

#pragma GCC diagnostic pop

#include "sim/kmaple/kmaple.h"

#ifndef KMAPLE_RELEASE
#define KMAPLE_RELEASE "unknown"
#endif
#ifndef KMAPLE_ORIGIN
#define KMAPLE_ORIGIN "unknown"
#endif

/* The tools headers' externs the tree's inlines refer to. */
int preempt_count;
int kmalloc_verbose;
int test_verbose;

struct kmem_cache {
	unsigned size;
};

static struct kmem_cache node_cache;

/* Whose the nodes are: the allocator and its ctx. */
struct kmaple_user {
	const struct kmaple_alloc *alloc;
	void *ctx;
};

struct kmaple {
	struct maple_tree mt;
	struct kmaple_user user;
	/* MT_FLAGS_LOCK_EXTERN, kept apart: the lock is chosen before it is
	 * taken, and ma_flags also holds the tree's height, which a store
	 * under the lock rewrites (mas_set_height) — reading it unlocked was
	 * a data race (TSan, test_vma_concurrency's writers under range). */
	bool extern_lock;
};

int lockdep_is_held(const void *lock)
{
	(void)lock;
	return 1;
}

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, unsigned int flags,
				     void (*ctor)(void *))
{
	(void)name; (void)align; (void)flags; (void)ctor;
	node_cache.size = size;
	return &node_cache;
}

/* Whose nodes this thread's entry point (KMAPLE_IN below) allocates
 * and frees, or NULL: an RCU callback's walk. */
static __thread const struct kmaple_user *kmaple_cur;
/* The allocator of the frees no call names the tree of (free_found):
 * every tree's (the first made says it). */
static const struct kmaple_alloc *kmaple_found;

/* Allocating names its tree always: no node is allocated outside an
 * entry point (if one were, in a release that does, it fails: said,
 * and -ENOMEM for the store, never a node from the wrong pool). */
static const struct kmaple_user *kmaple_allocator(const char *call)
{
	if (!kmaple_cur)
		sim_warn(__FILE__, __LINE__, call);
	return kmaple_cur;
}

void *kmem_cache_alloc_lru(struct kmem_cache *c, struct list_lru *lru,
			   int gfp)
{
	const struct kmaple_user *t =
		kmaple_allocator("kmem_cache_alloc outside a store");

	(void)c; (void)lru; (void)gfp;
	return t ? t->alloc->alloc(t->ctx) : NULL;
}

int kmem_cache_alloc_bulk(struct kmem_cache *c, gfp_t gfp, size_t n,
			  void **p)
{
	const struct kmaple_user *t =
		kmaple_allocator("kmem_cache_alloc_bulk outside a store");

	(void)c; (void)gfp;
	return t ? (int)t->alloc->alloc_bulk(t->ctx, n, p) : 0;
}

void kmem_cache_free(struct kmem_cache *c, void *p)
{
	const struct kmaple_user *t = kmaple_cur;

	(void)c;
	if (t)
		t->alloc->free(t->ctx, p);
	else
		__atomic_load_n(&kmaple_found, __ATOMIC_ACQUIRE)->free_found(p);
}

void kmem_cache_free_bulk(struct kmem_cache *c, size_t n, void **p)
{
	const struct kmaple_user *t = kmaple_cur;

	(void)c;
	if (!n)
		return;
	if (t)
		t->alloc->free_bulk(t->ctx, n, p);
	else
		__atomic_load_n(&kmaple_found,
				__ATOMIC_ACQUIRE)->free_bulk_found(n, p);
}

void kmaple_free_rcu(void *node)
{
	const struct kmaple_user *t =
		kmaple_allocator("kfree_rcu outside a store");

	if (t)
		t->alloc->free_rcu(t->ctx, node);
}

bool kmaple_built(void)
{
	return true;
}

size_t kmaple_node_size(void)
{
	return sizeof(struct maple_node);
}

const char *kmaple_release(void)
{
	return KMAPLE_RELEASE;
}

const char *kmaple_origin(void)
{
	return KMAPLE_ORIGIN;
}

size_t kmaple_node_rcu_offset(void)
{
	return offsetof(struct maple_node, rcu);
}

_Static_assert(sizeof(struct kmaple) <= KMAPLE_TREE_BYTES,
	       "struct kmaple does not fit a kmaple_buf");
_Static_assert(sizeof(struct rcu_head) == 16,
	       "the maple node's rcu_head is not the kernel's two words");
_Static_assert(sizeof(struct maple_node) == 256,
	       "the maple node is not the kernel's 64-bit 256 bytes");

/* Names t for the kernel's allocator calls of one entry point (the
 * one before it again at its end: an entry point is never called from
 * inside another, but a nested one would be told apart). */
#define KMAPLE_IN(t)							\
	const struct kmaple_user *kmaple_saved = kmaple_cur;		\
	kmaple_cur = &(t)->user
#define KMAPLE_OUT() kmaple_cur = kmaple_saved

static pthread_once_t kmaple_once = PTHREAD_ONCE_INIT;

struct kmaple *kmaple_init_in(struct kmaple_buf *buf, unsigned flags,
			      const struct kmaple_alloc *a, void *ctx)
{
	struct kmaple *t = (struct kmaple *)buf->b;
	unsigned mf = 0;

	memset(t, 0, sizeof(*t));
	pthread_once(&kmaple_once, maple_tree_init);
	if (flags & KMAPLE_RCU)
		mf |= MT_FLAGS_USE_RCU;
	if (flags & KMAPLE_GAPS)
		mf |= MT_FLAGS_ALLOC_RANGE;
	if (flags & KMAPLE_EXTERN_LOCK)
		mf |= MT_FLAGS_LOCK_EXTERN;
	mt_init_flags(&t->mt, mf);
	t->user.alloc = a;
	t->user.ctx = ctx;
	/* Set before any tree can free from a callback; every tree gives
	 * the same table. */
	if (__atomic_exchange_n(&kmaple_found, a, __ATOMIC_ACQ_REL) &&
	    __atomic_load_n(&kmaple_found, __ATOMIC_RELAXED) != a)
		sim_warn(__FILE__, __LINE__, "two allocators for callback frees");
	t->extern_lock = flags & KMAPLE_EXTERN_LOCK;
	return t;
}

struct kmaple *kmaple_new(unsigned flags, const struct kmaple_alloc *a,
			  void *ctx)
{
	struct kmaple_buf *buf = aligned_alloc(16, sizeof(*buf));

	return buf ? kmaple_init_in(buf, flags, a, ctx) : NULL;
}

void kmaple_clear(struct kmaple *t)
{
	KMAPLE_IN(t);
	if (!t->extern_lock)
		mtree_lock(&t->mt);
	__mt_destroy(&t->mt);
	if (!t->extern_lock)
		mtree_unlock(&t->mt);
	KMAPLE_OUT();
}

void kmaple_delete(struct kmaple *t)
{
	if (!t)
		return;
	/* Out of RCU mode at the end, as exit_mmap() takes mm_mt out with
	 * mt_clear_in_rcu() before __mt_destroy(): no reader is left, so
	 * the nodes go back now, not after a grace period. */
	t->mt.ma_flags &= ~MT_FLAGS_USE_RCU;
	kmaple_clear(t);
	free(t);
}

void kmaple_lock(struct kmaple *t)
{
	if (!t->extern_lock)
		mtree_lock(&t->mt);
}

void kmaple_unlock(struct kmaple *t)
{
	if (!t->extern_lock)
		mtree_unlock(&t->mt);
}

static void *kmaple_out(struct ma_state *mas, void *e, unsigned long *first,
			unsigned long *last)
{
	if (e) {
		*first = mas->index;
		*last = mas->last;
	}
	return e;
}

void *kmaple_walk(struct kmaple *t, unsigned long addr,
		  unsigned long *first, unsigned long *last)
{
	MA_STATE(mas, &t->mt, addr, addr);
	void *e;

	do {
		e = mas_walk(&mas);
	} while (mas_is_start(&mas));    /* a dead node met: walked again */
	return kmaple_out(&mas, e, first, last);
}

void *kmaple_find(struct kmaple *t, unsigned long from, unsigned long max,
		  unsigned long *first, unsigned long *last)
{
	MA_STATE(mas, &t->mt, from, from);

	if (from > max)
		return NULL;
	return kmaple_out(&mas, mas_find(&mas, max), first, last);
}

void *kmaple_find_rev(struct kmaple *t, unsigned long from, unsigned long min,
		      unsigned long *first, unsigned long *last)
{
	MA_STATE(mas, &t->mt, from, from);

	if (from < min)
		return NULL;
	return kmaple_out(&mas, mas_find_rev(&mas, min), first, last);
}

int kmaple_store(struct kmaple *t, unsigned long first, unsigned long last,
		 void *entry)
{
	MA_STATE(mas, &t->mt, first, last);
	int ret;

	KMAPLE_IN(t);
	ret = mas_preallocate(&mas, entry, GFP_KERNEL);
	if (!ret)
		mas_store_prealloc(&mas, entry);   /* mas_destroy()s the rest */
	KMAPLE_OUT();
	return ret;
}

int kmaple_store_gfp(struct kmaple *t, unsigned long first,
		     unsigned long last, void *entry)
{
	MA_STATE(mas, &t->mt, first, last);
	int ret;

	KMAPLE_IN(t);
	ret = mas_store_gfp(&mas, entry, GFP_KERNEL);
	KMAPLE_OUT();
	return ret;
}

int kmaple_empty_area(struct kmaple *t, unsigned long min, unsigned long max,
		      unsigned long size, unsigned long *first)
{
	MA_STATE(mas, &t->mt, 0, 0);
	int ret = mas_empty_area(&mas, min, max, size);

	if (!ret)
		*first = mas.index;
	return ret;
}

int kmaple_empty_area_rev(struct kmaple *t, unsigned long min,
			  unsigned long max, unsigned long size,
			  unsigned long *first)
{
	MA_STATE(mas, &t->mt, 0, 0);
	int ret = mas_empty_area_rev(&mas, min, max, size);

	if (!ret)
		*first = mas.index;      /* mas.last + 1 - size */
	return ret;
}

int kmaple_rcu_gap_rev(struct kmaple *t, unsigned long lo, unsigned long hi,
		       unsigned long len, unsigned long align,
		       unsigned long *out)
{
	unsigned long top = hi, at = hi - 1;     /* top: exclusive */

	if (hi <= lo || hi - lo < len)
		return -ENOMEM;
	/* Down from hi one range at a time, each a fresh mas_walk() — the
	 * walk lock_vma_under_rcu() makes, safe beside a writer in RCU mode
	 * (a reverse iteration kept across steps is not, here). */
	for (;;) {
		MA_STATE(mas, &t->mt, at, at);
		unsigned long bottom, start;
		void *e;

		do {
			e = mas_walk(&mas);
		} while (mas_is_start(&mas));
		if (mas.index > at || mas.last < at)
			return -ENOMEM;  /* a range it could not tell */
		bottom = mas.index < lo ? lo : mas.index;
		if (!e && top - bottom >= len) {
			start = (top - len) & ~(align - 1);
			if (start >= bottom) {
				*out = start;
				return 0;
			}
		}
		if (mas.index <= lo)
			return -ENOMEM;
		top = mas.index;
		at = mas.index - 1;
	}
}

int kmaple_height(struct kmaple *t)
{
	return (int)mt_height(&t->mt);
}
