/* SPDX-License-Identifier: MIT */
/*
 * Address-space operations on the simulated mm, with the kernel's
 * semantics and errno values (mm/mmap.c, mm/vma.c, mm/mprotect.c,
 * mm/madvise.c). Each runs under the scheme's write side (madvise: the
 * read-range side) and, for VMA changes, inside one VMA-tree
 * transaction, so lock-free readers see it all or not at all.
 *
 * VMAs are immutable once in the tree: a split, a merge or a protection
 * change builds new VMAs, swaps them in, and retires the old ones (freed
 * by an RCU callback, as vm_area_free() does). Merging keeps the
 * invariant that no two
 * adjacent VMAs are compatible (same flags, same backing, contiguous
 * offsets), which is what the kernel's vma_merge achieves for anonymous
 * and file mappings that share an anon_vma / file.
 *
 * Every operation checks what can fail before changing anything, or
 * aborts its transaction: a failed call leaves the mm as it was.
 *
 * The host kernel's VMA layout never changes here: protection is made
 * real by sim_mm_protect() (userfaultfd write-protection, zaps), and
 * munmap and brk shrink zap under the downgraded lock, as the kernel
 * does after mmap_write_downgrade().
 */
#include "sim/vma.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "sim/fault.h"
#include "sim/mm.h"
#include "locks/sync/rcu.h"
#include "sim/host.h"
#include "sim/vma_txn.h"

unsigned long sim_prot_to_flags(int prot)
{
	unsigned long f = 0;

	if (prot & PROT_READ)
		f |= VM_READ;
	if (prot & PROT_WRITE)
		f |= VM_WRITE;
	if (prot & PROT_EXEC)
		f |= VM_EXEC;
	return f;
}

void sim_vma_free(void *p)
{
	struct sim_vma *v = p;

	if (v->pool)
		objpool_free(v->pool, v);
	else
		free(v);
}

static void vma_free_rcu(struct sim_rcu_head *h)
{
	sim_vma_free((char *)h - offsetof(struct sim_vma, rcu));
}

static unsigned long vma_pages(const struct sim_vma *v)
{
	return (v->vm_end - v->vm_start) >> SIM_PAGE_SHIFT;
}

/* Can a (below) and b (above, adjacent) be one VMA? */
static bool vma_compatible(const struct sim_vma *a, const struct sim_vma *b)
{
	return a->vm_end == b->vm_start && a->vm_flags == b->vm_flags &&
	       a->vm_file == b->vm_file &&
	       a->vm_pgoff + vma_pages(a) == b->vm_pgoff;
}

static bool vma_anon(const struct sim_vma *v)
{
	return atomic_load_explicit(&v->anon_vma, memory_order_relaxed);
}

/* --- one transaction on the tree, remembering new VMAs for abort ------- */

void txn_begin(struct vma_txn *x, struct sim_mm *mm)
{
	*x = (struct vma_txn){ .mm = mm };
	vma_tree_begin(&mm->tree);
}

void txn_end(struct vma_txn *x, int ret)
{
	struct lock_inst *l = x->mm->lock;

	if (ret) {
		vma_tree_abort(&x->mm->tree);
		for (struct sim_vma *v = x->added, *n; v; v = n) {
			n = v->txn_added;
			/* Never published, but a typesafe object may be met by
			 * a reader holding a stale pointer to what it was: freed
			 * detached, as vm_area_free() asserts. */
			if (x->mm->vma_typesafe && l->ops->vma_mark_detached)
				l->ops->vma_mark_detached(l, &v->vm_lock);
			sim_vma_free(v);
		}
		return;
	}
	vma_tree_publish(&x->mm->tree);
	/* Published: a reader that still finds a removed VMA through an old
	 * version must see it detached. Before _end(), which hands what this
	 * transaction retired to RCU. */
	for (struct sim_vma *v = x->removed; l->ops->vma_mark_detached && v;
	     v = v->txn_removed)
		l->ops->vma_mark_detached(l, &v->vm_lock);
	/* SLAB_TYPESAFE_BY_RCU: detached (its readers drained), a removed
	 * VMA goes back to the cache now — kmem_cache_free(), into the
	 * CPU's main sheaf under sheaves — and may be reused at once; a
	 * reader that still reaches it revalidates (lock_vma_under_rcu). */
	for (struct sim_vma *v = x->removed, *n; x->mm->vma_typesafe && v; v = n) {
		n = v->txn_removed;
		sim_vma_free(v);
	}
	vma_tree_end(&x->mm->tree);
}

static struct sim_vma *vma_alloc(struct sim_mm *mm)
{
	struct sim_vma *v = objpool_alloc_reclaim(&mm->vmas);

	if (v) {
		v->pool = &mm->vmas;
		v->vm_mm = mm->id;
	}
	return v;
}

struct sim_vma *txn_new(struct vma_txn *x, unsigned long start,
			       unsigned long end, unsigned long flags, int file,
			       unsigned long pgoff, bool anon)
{
	struct lock_inst *l = x->mm->lock;
	struct sim_vma *v = vma_alloc(x->mm);

	if (!v)
		return NULL;
	/* Every field (vma_init(): a typesafe object is not zeroed). */
	v->txn_added = x->added;
	v->txn_removed = NULL;
	x->added = v;
	v->vm_start = start;
	v->vm_end = end;
	v->vm_flags = flags;
	v->vm_file = file;
	v->vm_pgoff = pgoff;
	atomic_init(&v->anon_vma, anon);
	if (l->ops->vma_init)
		l->ops->vma_init(l, &v->vm_lock);
	else
		memset(&v->vm_lock, 0, sizeof(v->vm_lock));
	return v;
}

/* v is out of the tree: free it after commit (typesafe) or after commit
 * and a grace period. */
static void txn_removed(struct vma_txn *x, struct sim_vma *v)
{
	v->txn_removed = x->removed;
	x->removed = v;
	/* vm_area_free(): after a grace period (call_rcu, 6.4-6.14), or,
	 * typesafe, at txn_end() once detached. */
	if (!x->mm->vma_typesafe)     /* call_rcu, not kfree_rcu: no pool */
		vma_tree_retire(&x->mm->tree, NULL, &v->rcu, vma_free_rcu);
}

/* Take v out of the tree: write-lock it first (its readers drain). */
int txn_remove(struct vma_txn *x, struct sim_vma *v)
{
	struct lock_inst *l = x->mm->lock;
	int ret;

	if (l->ops->vma_start_write)
		l->ops->vma_start_write(l, &v->vm_lock);
	ret = vma_tree_erase(&x->mm->tree, v);
	if (!ret)
		txn_removed(x, v);
	return ret;
}

/* Replace olds[] by news[] (vma_tree_replace: no hole a lock-free reader
 * of the maple tree could see), the old ones write-locked first. */
int txn_replace(struct vma_txn *x, struct sim_vma *const *olds, int nold,
		struct sim_vma *const *news, int nnew)
{
	struct lock_inst *l = x->mm->lock;
	int ret;

	for (int i = 0; l->ops->vma_start_write && i < nold; i++)
		l->ops->vma_start_write(l, &olds[i]->vm_lock);
	ret = vma_tree_replace(&x->mm->tree, olds, nold, news, nnew);
	for (int i = 0; !ret && i < nold; i++)
		txn_removed(x, olds[i]);
	return ret;
}

/* A copy of v covering only [start, end) (inside v). */
struct sim_vma *txn_piece(struct vma_txn *x, const struct sim_vma *v,
				 unsigned long start, unsigned long end,
				 unsigned long flags)
{
	return txn_new(x, start, end, flags, v->vm_file,
		       v->vm_pgoff + ((start - v->vm_start) >> SIM_PAGE_SHIFT),
		       vma_anon(v));
}

/* Split the VMA containing addr (if it straddles addr) in two. */
int txn_split_at(struct vma_txn *x, unsigned long addr)
{
	struct sim_vma *v = vma_tree_txn_find(&x->mm->tree, addr), *lo, *hi;

	if (!v || v->vm_start >= addr)
		return 0;
	lo = txn_piece(x, v, v->vm_start, addr, v->vm_flags);
	hi = lo ? txn_piece(x, v, addr, v->vm_end, v->vm_flags) : NULL;
	if (!hi)
		return -ENOMEM;
	return txn_replace(x, &v, 1, (struct sim_vma *[]){ lo, hi }, 2);
}

/* Merge every adjacent compatible pair that touches [lo, hi]. */
int txn_merge_around(struct vma_txn *x, unsigned long lo,
			    unsigned long hi)
{
	struct vma_tree *t = &x->mm->tree;
	struct sim_vma *v = vma_tree_txn_prev(t, lo);

	if (!v)
		v = vma_tree_txn_find(t, lo);
	while (v && v->vm_start <= hi) {
		struct sim_vma *n = vma_tree_txn_find(t, v->vm_end), *m;
		int ret;

		if (!n || !vma_compatible(v, n)) {
			v = n;
			continue;
		}
		/* One anon_vma serves the merged VMA (the kernel merges when
		 * either has none or they share one). */
		m = txn_new(x, v->vm_start, n->vm_end, v->vm_flags, v->vm_file,
			    v->vm_pgoff, vma_anon(v) || vma_anon(n));
		if (!m)
			return -ENOMEM;
		ret = txn_replace(x, (struct sim_vma *[]){ v, n }, 2, &m, 1);
		if (ret)
			return ret;
		v = m;
	}
	return 0;
}

/* How many VMAs [start, end) covers, and whether it has a hole. */
size_t txn_covered(struct vma_txn *x, unsigned long start,
			  unsigned long end, bool *hole)
{
	struct vma_tree *t = &x->mm->tree;
	unsigned long at = start;
	size_t n = 0;

	*hole = false;
	for (struct sim_vma *v = vma_tree_txn_find(t, start);
	     v && v->vm_start < end; v = vma_tree_txn_find(t, v->vm_end)) {
		if (v->vm_start > at)
			*hole = true;
		at = v->vm_end;
		n++;
	}
	if (at < end)
		*hole = true;
	return n;
}

/* Remove [start, end) from the tree, splitting VMAs that straddle its
 * ends. *unmapped counts the pages removed. */
int txn_unmap(struct vma_txn *x, unsigned long start, unsigned long end,
		     unsigned long *unmapped)
{
	struct sim_mm *mm = x->mm;
	struct sim_vma *v;
	int ret = txn_split_at(x, start);

	if (!ret)
		ret = txn_split_at(x, end);
	while (!ret && (v = vma_tree_txn_find_intersection(&mm->tree, start, end))) {
		*unmapped += vma_pages(v);
		ret = txn_remove(x, v);
		x->unmapped += !ret;
	}
	return ret;
}

/* The last check of every operation: one that adds VMAs must not leave
 * more than max_map_count (then the transaction is aborted). One that
 * adds none always may, even if the limit was lowered below the count. */
int txn_check_count(struct vma_txn *x)
{
	size_t after = vma_tree_txn_count(&x->mm->tree);

	return after > x->mm->cfg.max_map_count &&
	       after > vma_tree_count(&x->mm->tree) ? -ENOMEM : 0;
}

bool txn_range_ok(struct sim_mm *mm, unsigned long start, size_t len)
{
	return len && !(start & ~SIM_PAGE_MASK) && start >= mm->base &&
	       start < mm->end && len <= mm->end - start;
}

size_t txn_page_align(size_t len)
{
	return (len + SIM_PAGE_SIZE - 1) & SIM_PAGE_MASK;
}
