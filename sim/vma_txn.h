/* SPDX-License-Identifier: MIT */
/* The VMA-tree transactions the address-space operations are built of
 * (sim/vma_txn.c), for sim/vma.c. Private to sim/. */
#ifndef VMSIM_VMA_TXN_H
#define VMSIM_VMA_TXN_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/mm.h"
#include "sim/vma.h"

/* One operation's transaction on the tree: the VMAs it created (freed
 * if it aborts) and those it removed (detached once published). */
struct vma_txn {
	struct sim_mm *mm;
	struct sim_vma *added;           /* VMAs created by this operation */
	struct sim_vma *removed;         /* to detach once published */
	size_t unmapped;                 /* VMAs txn_unmap() took out */
};

void txn_begin(struct vma_txn *x, struct sim_mm *mm);
void txn_end(struct vma_txn *x, int ret);
struct sim_vma *txn_new(struct vma_txn *x, unsigned long start,
			       unsigned long end, unsigned long flags, int file,
			       unsigned long pgoff, bool anon);
int txn_remove(struct vma_txn *x, struct sim_vma *v);
int txn_replace(struct vma_txn *x, struct sim_vma *const *olds, int nold,
		struct sim_vma *const *news, int nnew);
struct sim_vma *txn_piece(struct vma_txn *x, const struct sim_vma *v,
				 unsigned long start, unsigned long end,
				 unsigned long flags);
int txn_split_at(struct vma_txn *x, unsigned long addr);
int txn_merge_around(struct vma_txn *x, unsigned long lo,
			    unsigned long hi);
size_t txn_covered(struct vma_txn *x, unsigned long start,
			  unsigned long end, bool *hole);
int txn_unmap(struct vma_txn *x, unsigned long start, unsigned long end,
		     unsigned long *unmapped);
int txn_check_count(struct vma_txn *x);
bool txn_range_ok(struct sim_mm *mm, unsigned long start, size_t len);
size_t txn_page_align(size_t len);

#endif
