/* SPDX-License-Identifier: MIT */
/*
 * vma_tree — the ordered map of non-overlapping [vm_start, vm_end) ranges
 * that is the simulated address space.
 *
 * This version keeps a sorted array of VMA pointers: O(log n) lookup,
 * O(n) insert/erase. Callers serialise every call with the mm's lock
 * scheme (lookups under its read side, updates under its write side).
 * It knows nothing of lock schemes.
 */
#ifndef VMSIM_VMA_TREE_H
#define VMSIM_VMA_TREE_H

#include <stddef.h>

#include "sim/vma.h"

struct vma_tree {
	struct sim_vma **v;              /* sorted by vm_start */
	size_t n, cap;
};

void vma_tree_init(struct vma_tree *t);
/* Frees the tree's memory, not the VMAs. */
void vma_tree_destroy(struct vma_tree *t);

/* First VMA with vm_end > addr (the kernel's find_vma), or NULL. */
struct sim_vma *vma_tree_find(const struct vma_tree *t, unsigned long addr);
/* First VMA intersecting [start, end), or NULL. */
struct sim_vma *vma_tree_find_intersection(const struct vma_tree *t,
					   unsigned long start,
					   unsigned long end);
/* Insert v; -EEXIST if it overlaps a VMA, -ENOMEM. */
int vma_tree_insert(struct vma_tree *t, struct sim_vma *v);
/* Remove v (by identity); -ENOENT if it is not in the tree. */
int vma_tree_erase(struct vma_tree *t, struct sim_vma *v);
static inline size_t vma_tree_count(const struct vma_tree *t)
{
	return t->n;
}

/*
 * Find a free gap of len bytes inside [lo, hi) whose start is a multiple
 * of align (a power of two >= page size). Top-down returns the highest
 * such start, bottom-up the lowest. Returns 0 and *out, or -ENOMEM.
 */
int vma_tree_gap_topdown(const struct vma_tree *t, unsigned long lo,
			 unsigned long hi, size_t len, size_t align,
			 unsigned long *out);
int vma_tree_gap_bottomup(const struct vma_tree *t, unsigned long lo,
			  unsigned long hi, size_t len, size_t align,
			  unsigned long *out);

#endif
