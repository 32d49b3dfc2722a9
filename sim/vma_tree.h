/* SPDX-License-Identifier: MIT */
/*
 * vma_tree — the ordered map of non-overlapping [vm_start, vm_end) ranges
 * that is the simulated address space: an RCU-safe B+tree with path
 * copying and transactional updates (see vma_tree.c for the design).
 *
 * Readers (any thread, no lock): vma_tree_find*() inside
 * sim_rcu_read_lock()/unlock(); what they return stays valid until the
 * unlock (longer only if the caller's lock scheme keeps writers away).
 *
 * Writers: vma_tree_begin() ... vma_tree_commit() or vma_tree_abort().
 * begin takes the tree's internal mutex (updates are serialised even when
 * the lock scheme lets writers of disjoint ranges run at once). Inside a
 * transaction the vma_tree_txn_*() calls see the transaction's own
 * changes; readers see none of them until commit publishes all of them
 * with one pointer store, so a lock-free reader never sees a half-done
 * munmap or a transient hole. abort drops them all.
 *
 * VMAs in the tree are immutable (range, flags, file): a change replaces
 * the VMA, and the old one is handed to vma_tree_retire() to be freed
 * by an RCU callback once the transaction has ended.
 */
#ifndef VMSIM_VMA_TREE_H
#define VMSIM_VMA_TREE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "locks/sync/rcu.h"
#include "sim/kmaple/kmaple.h"
#include "sim/mem/objpool.h"
#include "sim/vma.h"

struct vt_node;
struct vt_ops;

/* Which tree (--tree): the kernel's maple tree, compiled from a kernel
 * source at build time (sim/vma_tree_maple.c), or vmsim's own B-tree;
 * DEFAULT (0) is the maple tree where it was built, else vmsim's. */
enum vma_tree_kind { VMA_TREE_DEFAULT, VMA_TREE_MAPLE, VMA_TREE_VMSIM,
		     VMA_TREE_NKINDS };
/* "maple", "vmsim" (DEFAULT: the one it stands for). */
const char *vma_tree_kind_name(enum vma_tree_kind k);
enum vma_tree_kind vma_tree_kind_resolve(enum vma_tree_kind k);
/* Was the maple tree built in, and from which kernel (release, source)? */
bool vma_tree_maple_built(void);
const char *vma_tree_maple_release(void);
const char *vma_tree_maple_origin(void);

/* One change of a maple transaction, undone if it aborts. */
struct vt_undo {
	struct sim_vma *v;
	bool in;                         /* stored (else: taken out) */
};

struct vma_tree {
	_Atomic(struct vt_node *) root;  /* published: what readers see */
	/* The layout's version: bumped after each publish that changed the
	 * tree (a refined mprotect's validation, lock_env.layout_seq). */
	_Atomic unsigned long seq;
	_Atomic size_t count;            /* VMAs in the published tree */
	bool in_txn;                     /* between begin and end/abort */
	pthread_mutex_t lock;            /* serialises transactions, unless */
	bool external_lock;              /* the caller's lock does (set once,
					  * before use: the maple tree's
					  * MT_FLAGS_LOCK_EXTERN) */
	/* Writer state, under lock. */
	struct vt_node *wroot;           /* the transaction's tree */
	size_t wcount;
	int height;                      /* levels of wroot */
	unsigned gen;                    /* nodes with this gen are unpublished */
	struct objpool_pre pre;          /* the store's preallocated nodes,
					  * given back when the transaction
					  * ends (mas_destroy) */
	/* --tree-alloc spare: vmsim's earlier way instead — a worst-case
	 * reserve per store, allocated node by node and kept across
	 * transactions; munmap builds no detached tree. Set before use. */
	bool keep_spares;
	struct sim_rcu_head *pending;    /* retire when the transaction ends */
	struct objpool nodes;            /* where nodes come from */
	/* --tree maple: the kernel's tree (the rest of the writer state
	 * above is the B-tree's) and this transaction's changes for abort.
	 * Either tree: its stores (inserts and erases; the maple tree's
	 * stores), the nodes they preallocated and gave back unused (for
	 * vmsim bench tree; under the writers' lock). */
	const struct vt_ops *ops;        /* which tree: set once, when made */
	struct kmaple *mt;
	struct vma_tree *live_next;     /* the live maple trees' list */
	struct vt_undo *undo;
	size_t nundo, undo_cap;
	unsigned long node_stores, node_prealloc, node_unused;
};

/* munmap's detached tree, on the caller's stack. */
struct vma_detached {
	void *chain;                     /* vmsim's tree: its nodes */
	struct kmaple *maple;            /* the maple tree's, in buf */
	struct kmaple_buf buf;
};

/* Returns 0 or -errno. The default reserves room for 262,144 nodes
 * (about 4 million VMAs); _cap says how many. */
int vma_tree_init(struct vma_tree *t);
int vma_tree_init_cap(struct vma_tree *t, size_t max_nodes);
/* The same, with nodes from slab cache s (NULL: the pool of max_nodes). */
int vma_tree_init_slab(struct vma_tree *t, size_t max_nodes,
		       struct slab_cache *s, const struct slab_stat *st);
/* The same with the kernel's maple tree (-ENOSYS where it was not
 * built). */
int vma_tree_init_maple(struct vma_tree *t, size_t max_nodes,
			struct slab_cache *s, const struct slab_stat *st);
/* What a slab cache of kind's nodes is made with (its size; no reader
 * of a freed node: the free pointer in its middle, as for
 * maple_node_cache). */
void vma_tree_slab_args(enum vma_tree_kind kind, struct slab_args *a);
/* The address space vma_tree_init_cap() reserves for max_nodes. */
size_t vma_tree_reserve_bytes(enum vma_tree_kind kind, size_t max_nodes);
/* Waits for queued RCU callbacks, then frees every node, and every VMA
 * through free_vma (may be NULL). No reader or writer may be active. */
void vma_tree_destroy(struct vma_tree *t, void (*free_vma)(void *));

/* --- readers (inside sim_rcu_read_lock) ------------------------------- */

/* First VMA with vm_end > addr (the kernel's find_vma), or NULL. */
struct sim_vma *vma_tree_find(struct vma_tree *t, unsigned long addr);
/* The VMA whose slot holds addr (vm_start <= addr < vm_end), or NULL,
 * and its range as the leaf records it: the VMA itself is not read (a
 * reader that has not yet taken its reference must not read a VMA that
 * may be freed and reused: SLAB_TYPESAFE_BY_RCU). mas_walk(). */
struct sim_vma *vma_tree_find_range(struct vma_tree *t, unsigned long addr,
				    unsigned long *start, unsigned long *end);
/* First VMA intersecting [start, end), or NULL. */
struct sim_vma *vma_tree_find_intersection(struct vma_tree *t,
					   unsigned long start,
					   unsigned long end);
/* Call fn on every VMA intersecting [start, end) of one version of the
 * tree (the root is loaded once, so the walk is consistent even while a
 * writer commits), in address order, until fn returns non-zero (which is
 * returned). */
int vma_tree_for_each(struct vma_tree *t, unsigned long start,
		      unsigned long end,
		      int (*fn)(struct sim_vma *v, void *arg), void *arg);
/* The layout's version (acquire: pairs with the release bump in
 * vma_tree_publish(), after the root's store: a reader that loads a
 * version and then walks sees that version's tree or a later one).
 * Even, but odd while a maple transaction stores (its operation is not
 * one store): a speculation that read an odd version must validate. */
static inline unsigned long vma_tree_seq(struct vma_tree *t)
{
	return atomic_load_explicit(&t->seq, memory_order_acquire);
}
static inline size_t vma_tree_count(struct vma_tree *t)
{
	return atomic_load_explicit(&t->count, memory_order_relaxed);
}

/* --- writers ------------------------------------------------------------ */

void vma_tree_begin(struct vma_tree *t);
/* Publish and end the transaction: vma_tree_publish() then _end(). */
void vma_tree_commit(struct vma_tree *t);
/* Publish the transaction's version; the caller may still act on what it
 * retired (it is freed no earlier than vma_tree_end()). */
void vma_tree_publish(struct vma_tree *t);
/* End a published transaction: reclaim what is due, drop the mutex. */
void vma_tree_end(struct vma_tree *t);
void vma_tree_abort(struct vma_tree *t);

struct sim_vma *vma_tree_txn_find(struct vma_tree *t, unsigned long addr);
struct sim_vma *vma_tree_txn_find_intersection(struct vma_tree *t,
					       unsigned long start,
					       unsigned long end);
/* Last VMA with vm_start < addr, or NULL. */
struct sim_vma *vma_tree_txn_prev(struct vma_tree *t, unsigned long addr);
static inline size_t vma_tree_txn_count(const struct vma_tree *t)
{
	return t->wcount;
}
/* Insert v; -EEXIST if it overlaps a VMA, -ENOMEM. */
int vma_tree_insert(struct vma_tree *t, struct sim_vma *v);
/* Remove v (by identity); -ENOENT if it is not in the tree, -ENOMEM. */
int vma_tree_erase(struct vma_tree *t, struct sim_vma *v);
/* Replace the nold VMAs olds[] (in the tree) by the nnew VMAs news[]
 * (over where olds were, and room nothing else holds): a split, a merge,
 * a protection change. On the maple tree, whose stores a reader sees one
 * by one, the new VMAs are stored over the old ones and only what is
 * left of an old one is cleared after: a reader finds an old or a new
 * VMA at every address olds covered, never a hole. -ENOENT, -EEXIST,
 * -ENOMEM (then the transaction must abort). */
int vma_tree_replace(struct vma_tree *t, struct sim_vma *const *olds, int nold,
		     struct sim_vma *const *news, int nnew);
/*
 * The detached tree munmap gathers the VMAs it removes into (mt_detach,
 * vms_gather_munmap_vmas) and destroys once they are freed (__mt_destroy,
 * not in RCU mode: its nodes are freed at once): its nodes for nvmas
 * VMAs, a leaf per VT_SLOTS and their parents, from the tree's node
 * cache, chained; NULL if none could be had (no effect on the munmap).
 */
void vma_tree_detached_build(struct vma_tree *t, size_t nvmas,
			     struct vma_detached *d);
void vma_tree_detached_destroy(struct vma_tree *t, struct vma_detached *d);
/* Free h's object from pool (NULL: not from a pool) after the
 * transaction ends and a grace period passes — kfree_rcu(): fn(h) then,
 * or into an rcu_free sheaf (dropped on abort: the caller still owns
 * h's object then). */
void vma_tree_retire(struct vma_tree *t, struct objpool *pool,
		     struct sim_rcu_head *h,
		     void (*fn)(struct sim_rcu_head *h));

/*
 * Find a free gap of len bytes inside [lo, hi) whose start is a multiple
 * of align (a power of two >= page size), in the transaction's tree.
 * Top-down returns the highest such start, bottom-up the lowest.
 * O(log n): subtrees whose largest gap is too small are skipped.
 * Returns 0 and *out, or -ENOMEM.
 */
int vma_tree_gap_topdown(struct vma_tree *t, unsigned long lo,
			 unsigned long hi, size_t len, size_t align,
			 unsigned long *out);
int vma_tree_gap_bottomup(struct vma_tree *t, unsigned long lo,
			  unsigned long hi, size_t len, size_t align,
			  unsigned long *out);
/* The same top-down search in the published tree, for a reader (inside
 * sim_rcu_read_lock): a guess that the caller must revalidate. */
int vma_tree_rcu_gap_topdown(struct vma_tree *t, unsigned long lo,
			     unsigned long hi, size_t len, size_t align,
			     unsigned long *out);

/* Height of the published tree (for tests and benchmarks). */
int vma_tree_height(struct vma_tree *t);

/* Writers are serialised by a lock of the caller's (the scheme's write
 * side): the tree takes no mutex of its own. Set before any writer. */
void vma_tree_set_external_lock(struct vma_tree *t, bool on);

#endif
