/* SPDX-License-Identifier: MIT */
/* What the two halves of the VMA tree share (vma_tree.c: nodes and
 * lookups; vma_tree_edit.c: insert, erase, transactions, gap search).
 * Private to mm/. */
#ifndef VMSIM_VMA_TREE_INT_H
#define VMSIM_VMA_TREE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/vma_tree.h"
#include "locks/sync/rcu.h"

#define VT_SLOTS 15                      /* + 1 spare = 16: 2 cache lines */
#define VT_MIN   (VT_SLOTS / 4)
#define VT_DEFAULT_NODES (1UL << 18)     /* node pool of vma_tree_init() */

struct vt_node {
	/* What a lookup reads comes first, each array two cache lines. One
	 * extra slot so that an overfull node can be split after. */
	unsigned long end[VT_SLOTS + 1];
	void *slot[VT_SLOTS + 1];
	unsigned char leaf;
	unsigned char n;
	unsigned gen;                    /* == tree->gen: unpublished */
	unsigned long start[VT_SLOTS + 1];
	unsigned long gap[VT_SLOTS + 1];
	struct sim_rcu_head rcu;         /* retirement */
	struct objpool *pool;            /* where it goes back to */
} __attribute__((aligned(64)));

void vt_set_child(struct vt_node *p, int i, struct vt_node *c);
void vt_set_vma(struct vt_node *leaf, int i, struct sim_vma *v);
void vt_slot_open(struct vt_node *n, int i);
void vt_slot_close(struct vt_node *n, int i);
void vt_slot_append(struct vt_node *dst, const struct vt_node *src,
		   int from, int k);
int vt_slot_by_start(const struct vt_node *n, unsigned long addr);
bool vt_node_fresh(const struct vma_tree *t, const struct vt_node *n);
struct vt_node *vt_alloc(struct vma_tree *t, bool leaf);
void vt_unalloc(struct vma_tree *t, struct vt_node *n);
void vt_pending_add(struct vma_tree *t, struct objpool *pool,
		    struct sim_rcu_head *h,
			   void (*fn)(struct sim_rcu_head *));
void vt_drop(struct vma_tree *t, struct vt_node *n);
/* Everything the transaction retired to RCU, now that it has ended
 * (kfree_rcu into its pool, or its own callback); either tree's end. */
static inline void vt_pending_flush(struct vma_tree *t)
{
	struct sim_rcu_head *h = t->pending;

	t->pending = NULL;
	while (h) {
		struct sim_rcu_head *next = h->next;

		objpool_free_rcu(h->owner, h, h->fn);
		h = next;
	}
}
int vt_reserve_insert(struct vma_tree *t, unsigned long addr);
int vt_reserve_erase(struct vma_tree *t, unsigned long addr);
struct vt_node *vt_cow(struct vma_tree *t, struct vt_node *n);

/*
 * A tree's implementation of sim/vma_tree.h's calls: chosen once, when
 * the tree is made (vma_tree_init_slab: vmsim's B-tree; vt_maple_init:
 * the kernel's maple tree), and every vma_tree_* call is t->ops's.
 */
struct vt_ops {
	const char *name;
	void (*destroy)(struct vma_tree *t, void (*free_vma)(void *));
	void (*set_external_lock)(struct vma_tree *t, bool on);
	/* readers */
	struct sim_vma *(*find)(struct vma_tree *t, unsigned long addr);
	struct sim_vma *(*find_range)(struct vma_tree *t, unsigned long addr,
				      unsigned long *start, unsigned long *end);
	struct sim_vma *(*find_intersection)(struct vma_tree *t,
					     unsigned long start,
					     unsigned long end);
	int (*for_each)(struct vma_tree *t, unsigned long start,
			unsigned long end,
			int (*fn)(struct sim_vma *v, void *arg), void *arg);
	int (*height)(struct vma_tree *t);
	int (*rcu_gap_topdown)(struct vma_tree *t, unsigned long lo,
			       unsigned long hi, size_t len, size_t align,
			       unsigned long *out);
	/* writers */
	void (*begin)(struct vma_tree *t);
	void (*publish)(struct vma_tree *t);
	void (*end)(struct vma_tree *t);
	void (*abort)(struct vma_tree *t);
	struct sim_vma *(*txn_find)(struct vma_tree *t, unsigned long addr);
	struct sim_vma *(*txn_find_intersection)(struct vma_tree *t,
						 unsigned long start,
						 unsigned long end);
	struct sim_vma *(*txn_prev)(struct vma_tree *t, unsigned long addr);
	int (*insert)(struct vma_tree *t, struct sim_vma *v);
	int (*erase)(struct vma_tree *t, struct sim_vma *v);
	int (*replace)(struct vma_tree *t, struct sim_vma *const *olds,
		       int nold, struct sim_vma *const *news, int nnew);
	void (*detached_build)(struct vma_tree *t, size_t nvmas,
			       struct vma_detached *d);
	void (*detached_destroy)(struct vma_tree *t, struct vma_detached *d);
	int (*gap_topdown)(struct vma_tree *t, unsigned long lo,
			   unsigned long hi, size_t len, size_t align,
			   unsigned long *out);
	int (*gap_bottomup)(struct vma_tree *t, unsigned long lo,
			    unsigned long hi, size_t len, size_t align,
			    unsigned long *out);
};

/* vmsim's B-tree (vma_tree.c, vma_tree_edit.c), the kernel's maple tree
 * (vma_tree_maple.c). */
extern const struct vt_ops vt_btree_ops, vt_maple_ops;

/* The B-tree's lookups (vma_tree.c), for its table (vma_tree_edit.c). */
struct sim_vma *vt_b_find(struct vma_tree *t, unsigned long addr);
struct sim_vma *vt_b_find_range(struct vma_tree *t, unsigned long addr,
				unsigned long *start, unsigned long *end);
struct sim_vma *vt_b_find_intersection(struct vma_tree *t,
				       unsigned long start, unsigned long end);
struct sim_vma *vt_b_txn_find(struct vma_tree *t, unsigned long addr);
struct sim_vma *vt_b_txn_find_intersection(struct vma_tree *t,
					   unsigned long start,
					   unsigned long end);
struct sim_vma *vt_b_txn_prev(struct vma_tree *t, unsigned long addr);
int vt_b_for_each(struct vma_tree *t, unsigned long start, unsigned long end,
		  int (*fn)(struct sim_vma *v, void *arg), void *arg);
int vt_b_height(struct vma_tree *t);

/* The maple tree's making (sim/vma_tree_maple.c): its node size, and a
 * tree whose ops are vt_maple_ops (-ENOSYS where it was not built). */
size_t vt_maple_node_size(void);
int vt_maple_init(struct vma_tree *t, size_t max_nodes, struct slab_cache *s,
		  const struct slab_stat *st);

#endif
