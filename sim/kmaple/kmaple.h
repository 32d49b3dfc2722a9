/* SPDX-License-Identifier: MIT */
/*
 * kmaple — the kernel's own maple tree (lib/maple_tree.c of the kernel
 * source the build was given, compiled by kmaple_lib.c), behind an API
 * with no kernel type in it, so that the simulator's files never include
 * a kernel header.
 *
 * What sits under the tree is vmsim's: its nodes come from the allocator
 * the tree was made with (struct kmaple_alloc below and its ctx: the
 * mm's node pool, i.e. --slab), its RCU is vmsim's
 * (locks/sync/rcu.h: call_rcu, the read side), its WARN_ON/BUG_ON are
 * sim_warn(). Its lock is the tree's own spinlock (a pthread mutex, as
 * the kernel's user-space test harness has it) unless it was made with
 * KMAPLE_EXTERN_LOCK (MT_FLAGS_LOCK_EXTERN: the caller's lock serialises
 * writers, as the mmap_lock does for mm->mm_mt).
 *
 * Compiled from a kernel source when the build found one
 * (kmaple_lib.c, VMSIM_HAVE_MAPLE); else kmaple_none.c, where
 * kmaple_built() is false and no tree can be made.
 */
#ifndef VMSIM_KMAPLE_H
#define VMSIM_KMAPLE_H

#include <stdbool.h>
#include <stddef.h>

struct kmaple;

enum {
	KMAPLE_RCU         = 1 << 0,     /* MT_FLAGS_USE_RCU */
	KMAPLE_GAPS        = 1 << 1,     /* MT_FLAGS_ALLOC_RANGE */
	KMAPLE_EXTERN_LOCK = 1 << 2,     /* MT_FLAGS_LOCK_EXTERN */
};

/* Was the kernel's tree compiled in? */
bool kmaple_built(void);
/* sizeof(struct maple_node): 256 on 64-bit; its alignment the same. */
size_t kmaple_node_size(void);
/* The kernel release the tree was compiled from ("6.12.118"), and the
 * source it came from (the linux-source tarball, or the tree on disk). */
const char *kmaple_release(void);
const char *kmaple_origin(void);
/* Where a node's rcu_head lies in it (offsetof(struct maple_node, rcu)). */
size_t kmaple_node_rcu_offset(void);

/*
 * The allocator a tree's nodes come from, given when the tree is made:
 * every call gets the ctx given with it. The kernel's tree calls its
 * node cache with no tree in the call (kmem_cache_alloc(maple_node_cache)),
 * so the shim names the tree whose entry point is running; a node is
 * freed outside one only by the walk an RCU callback runs
 * (free_found).
 */
struct kmaple_alloc {
	/* A node (zeroed), or NULL. */
	void *(*alloc)(void *ctx);
	/* n nodes into p; the count had (all or none, as
	 * kmem_cache_alloc_bulk). */
	size_t (*alloc_bulk)(void *ctx, size_t n, void **p);
	void (*free)(void *ctx, void *node);
	void (*free_bulk)(void *ctx, size_t n, void **p);
	/* kfree_rcu of a node the tree replaced (its rcu_head, at
	 * kmaple_node_rcu_offset(), and what follows are free to use: the
	 * node is dead). */
	void (*free_rcu)(void *ctx, void *node);
	/* The frees no call names the tree of: the kernel's walk over a
	 * subtree a store in RCU mode cut out (mt_free_walk), which an RCU
	 * callback runs. The allocator finds the node's pool from its
	 * address, as the kernel's kmem_cache_free finds the slab: one
	 * table for every tree of the process (the kernel's one
	 * maple_node_cache). */
	void (*free_found)(void *node);
	void (*free_bulk_found)(size_t n, void **p);
};

/* A tree (malloc'ed, at set-up), or NULL; its nodes from a (kept by the
 * tree: it outlives it) with ctx. */
struct kmaple *kmaple_new(unsigned flags, const struct kmaple_alloc *a,
			  void *ctx);
/* The same in the caller's buf (the detached tree munmap builds on its
 * stack, mt_on_stack): no allocation. */
#define KMAPLE_TREE_BYTES 128
struct kmaple_buf {
	_Alignas(16) unsigned char b[KMAPLE_TREE_BYTES];
};
struct kmaple *kmaple_init_in(struct kmaple_buf *buf, unsigned flags,
			      const struct kmaple_alloc *a, void *ctx);
/* Every node freed (__mt_destroy), then the tree. No reader may be
 * active; the nodes go back through the allocator at once. */
void kmaple_delete(struct kmaple *t);
/* Empty the tree (__mt_destroy); it may be used again. */
void kmaple_clear(struct kmaple *t);

/* The tree's own lock (mtree_lock); with KMAPLE_EXTERN_LOCK no-ops. */
void kmaple_lock(struct kmaple *t);
void kmaple_unlock(struct kmaple *t);

/* Readers: inside sim_rcu_read_lock(), or holding the writers' lock.
 * Each returns the entry and its range [*first, *last], or NULL. */
/* The entry whose range holds addr (mas_walk). */
void *kmaple_walk(struct kmaple *t, unsigned long addr,
		  unsigned long *first, unsigned long *last);
/* The first entry at or above from, up to max (mas_find). */
void *kmaple_find(struct kmaple *t, unsigned long from, unsigned long max,
		  unsigned long *first, unsigned long *last);
/* The last entry at or below from, down to min (mas_find_rev). */
void *kmaple_find_rev(struct kmaple *t, unsigned long from,
		      unsigned long min, unsigned long *first,
		      unsigned long *last);

/* Writers (the writers' lock held). Store entry (NULL: erase) over
 * [first, last]: mas_preallocate, then mas_store_prealloc — every node
 * the store may need is allocated before the tree changes, the unused
 * ones given back after (mas_destroy). 0 or -ENOMEM (nothing changed). */
int kmaple_store(struct kmaple *t, unsigned long first, unsigned long last,
		 void *entry);
/* The same, allocating as it goes (mas_store_gfp): the detached tree. */
int kmaple_store_gfp(struct kmaple *t, unsigned long first,
		     unsigned long last, void *entry);
/* The lowest / highest free range of size inside [min, max]
 * (mas_empty_area / mas_empty_area_rev, KMAPLE_GAPS): 0 and its first
 * index, or -EBUSY. */
int kmaple_empty_area(struct kmaple *t, unsigned long min, unsigned long max,
		      unsigned long size, unsigned long *first);
int kmaple_empty_area_rev(struct kmaple *t, unsigned long min,
			  unsigned long max, unsigned long size,
			  unsigned long *first);
/* For a reader without the lock (inside sim_rcu_read_lock): the highest
 * start below hi, a multiple of align, of a free range of len inside
 * [lo, hi), found by walking the ranges down from hi, each with a
 * fresh mas_walk (which walks again where it meets a node a writer
 * replaced): a guess the caller revalidates. 0 and *out, or -ENOMEM. */
int kmaple_rcu_gap_rev(struct kmaple *t, unsigned long lo, unsigned long hi,
		       unsigned long len, unsigned long align,
		       unsigned long *out);
/* mt_height(). */
int kmaple_height(struct kmaple *t);

#endif
