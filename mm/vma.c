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
#include "mm/vma.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "mm/fault.h"
#include "mm/mm.h"
#include "sync/rcu.h"
#include "uffd/host.h"

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

struct vma_txn {
	struct sim_mm *mm;
	struct sim_vma *added;           /* VMAs created by this operation */
	struct sim_vma *removed;         /* to detach once published */
};

static void txn_begin(struct vma_txn *x, struct sim_mm *mm)
{
	*x = (struct vma_txn){ .mm = mm };
	vma_tree_begin(&mm->tree);
}

static void txn_end(struct vma_txn *x, int ret)
{
	struct lock_inst *l = x->mm->lock;

	if (ret) {
		vma_tree_abort(&x->mm->tree);
		for (struct sim_vma *v = x->added, *n; v; v = n) {
			n = v->txn_added;
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
	vma_tree_end(&x->mm->tree);
}

static struct sim_vma *vma_alloc(struct sim_mm *mm)
{
	struct sim_vma *v = objpool_alloc_reclaim(&mm->vmas);

	if (v)
		v->pool = &mm->vmas;
	return v;
}

static struct sim_vma *txn_new(struct vma_txn *x, unsigned long start,
			       unsigned long end, unsigned long flags, int file,
			       unsigned long pgoff, bool anon)
{
	struct lock_inst *l = x->mm->lock;
	struct sim_vma *v = vma_alloc(x->mm);

	if (!v)
		return NULL;
	v->txn_added = x->added;
	x->added = v;
	v->vm_start = start;
	v->vm_end = end;
	v->vm_flags = flags;
	v->vm_file = file;
	v->vm_pgoff = pgoff;
	atomic_init(&v->anon_vma, anon);
	if (l->ops->vma_init)
		l->ops->vma_init(l, &v->vm_lock);
	return v;
}

/* Take v out of the tree: write-lock it first (its readers drain), and
 * free it after commit and a grace period. */
static int txn_remove(struct vma_txn *x, struct sim_vma *v)
{
	struct lock_inst *l = x->mm->lock;
	int ret;

	if (l->ops->vma_start_write)
		l->ops->vma_start_write(l, &v->vm_lock);
	ret = vma_tree_erase(&x->mm->tree, v);
	if (ret)
		return ret;
	v->txn_removed = x->removed;
	x->removed = v;
	vma_tree_retire(&x->mm->tree, &v->rcu, vma_free_rcu);
	return 0;
}

/* A copy of v covering only [start, end) (inside v). */
static struct sim_vma *txn_piece(struct vma_txn *x, const struct sim_vma *v,
				 unsigned long start, unsigned long end,
				 unsigned long flags)
{
	return txn_new(x, start, end, flags, v->vm_file,
		       v->vm_pgoff + ((start - v->vm_start) >> SIM_PAGE_SHIFT),
		       vma_anon(v));
}

/* Split the VMA containing addr (if it straddles addr) in two. */
static int txn_split_at(struct vma_txn *x, unsigned long addr)
{
	struct sim_vma *v = vma_tree_txn_find(&x->mm->tree, addr), *lo, *hi;
	int ret;

	if (!v || v->vm_start >= addr)
		return 0;
	lo = txn_piece(x, v, v->vm_start, addr, v->vm_flags);
	hi = lo ? txn_piece(x, v, addr, v->vm_end, v->vm_flags) : NULL;
	if (!hi)
		return -ENOMEM;
	ret = txn_remove(x, v);
	if (!ret)
		ret = vma_tree_insert(&x->mm->tree, lo);
	if (!ret)
		ret = vma_tree_insert(&x->mm->tree, hi);
	return ret;
}

/* Merge every adjacent compatible pair that touches [lo, hi]. */
static int txn_merge_around(struct vma_txn *x, unsigned long lo,
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
		ret = txn_remove(x, v);
		if (!ret)
			ret = txn_remove(x, n);
		if (!ret)
			ret = vma_tree_insert(t, m);
		if (ret)
			return ret;
		v = m;
	}
	return 0;
}

/* How many VMAs [start, end) covers, and whether it has a hole. */
static size_t txn_covered(struct vma_txn *x, unsigned long start,
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
static int txn_unmap(struct vma_txn *x, unsigned long start, unsigned long end,
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
	}
	return ret;
}

/* The last check of every operation: one that adds VMAs must not leave
 * more than max_map_count (then the transaction is aborted). One that
 * adds none always may, even if the limit was lowered below the count. */
static int txn_check_count(struct vma_txn *x)
{
	size_t after = vma_tree_txn_count(&x->mm->tree);

	return after > x->mm->cfg.max_map_count &&
	       after > vma_tree_count(&x->mm->tree) ? -ENOMEM : 0;
}

static bool range_ok(struct sim_mm *mm, unsigned long start, size_t len)
{
	return len && !(start & ~SIM_PAGE_MASK) && start >= mm->base &&
	       start < mm->end && len <= mm->end - start;
}

static size_t page_align(size_t len)
{
	return (len + SIM_PAGE_SIZE - 1) & SIM_PAGE_MASK;
}

/* --- munmap ---------------------------------------------------------------- */

int sim_do_munmap(struct sim_mm *mm, unsigned long start, size_t len)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	unsigned long end, unmapped = 0;
	struct vma_txn x;
	int ret;

	if (len > mm->end - mm->base)
		return -EINVAL;
	len = page_align(len);
	if (!range_ok(mm, start, len))
		return -EINVAL;
	end = start + len;
	ops->write_begin(mm->lock, start, end, &h);
	txn_begin(&x, mm);
	ret = txn_unmap(&x, start, end, &unmapped);
	if (!ret)
		ret = txn_check_count(&x);   /* punching a hole adds a VMA */
	txn_end(&x, ret);
	if (ret) {
		ops->write_end(mm->lock, &h);
		return ret;
	}
	atomic_fetch_sub_explicit(&mm->map_pages, unmapped, memory_order_relaxed);
	/* vms_complete_munmap_vmas(): downgrade, then free the pages. */
	ops->write_downgrade(mm->lock, &h);
	sim_mm_zap(mm, start, end);
	ops->read_range_end(mm->lock, &h);
	return 0;
}

/* --- mmap ------------------------------------------------------------------ */

/* Where does the new mapping go? -EINVAL, -ENOMEM, -EEXIST. */
static int mmap_place(struct vma_txn *x, unsigned long addr, size_t len,
		      int flags, unsigned long *out)
{
	struct sim_mm *mm = x->mm;

	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (addr & ~SIM_PAGE_MASK)
			return -EINVAL;
		if (!range_ok(mm, addr, len))
			return -ENOMEM;
		if ((flags & MAP_FIXED_NOREPLACE) &&
		    vma_tree_txn_find_intersection(&mm->tree, addr, addr + len))
			return -EEXIST;
		*out = addr;
		return 0;
	}
	/* A free, aligned hint is honoured, as in the kernel. */
	addr &= SIM_PAGE_MASK;
	if (addr && range_ok(mm, addr, len) &&
	    !vma_tree_txn_find_intersection(&mm->tree, addr, addr + len)) {
		*out = addr;
		return 0;
	}
	return vma_tree_gap_topdown(&mm->tree, atomic_load(&mm->brk), mm->end,
				    len, SIM_PAGE_SIZE, out);
}

/* The same choice made without any lock in the published tree: a range-
 * locked mmap locks what this finds, then revalidates with mmap_place().
 * The scheme calls it (lock_env.mmap_guess). */
int sim_mmap_guess(void *arg, unsigned long addr, unsigned long len,
		   unsigned long *out)
{
	struct sim_mm *mm = arg;
	int ret = 0;

	addr &= SIM_PAGE_MASK;
	sim_rcu_read_lock();
	if (addr && range_ok(mm, addr, len) &&
	    !vma_tree_find_intersection(&mm->tree, addr, addr + len))
		*out = addr;
	else
		ret = vma_tree_rcu_gap_topdown(&mm->tree, atomic_load(&mm->brk),
					       mm->end, len, SIM_PAGE_SIZE, out);
	sim_rcu_read_unlock();
	return ret;
}

int sim_do_mmap(struct sim_mm *mm, unsigned long addr, size_t len, int prot,
		int flags, int file, unsigned long pgoff, unsigned long *out)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	unsigned long vflags, start, pg, unmapped = 0;
	bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
	struct sim_vma *v;
	struct vma_txn x;
	int ret;

	if (!len)
		return -EINVAL;
	if (len > mm->end - mm->base)
		return -ENOMEM;
	len = page_align(len);
	vflags = sim_prot_to_flags(prot) | ((flags & MAP_SHARED) ? VM_SHARED : 0);

	if (fixed && (addr & ~SIM_PAGE_MASK))
		return -EINVAL;
	if (fixed && !range_ok(mm, addr, len))
		return -ENOMEM;
	for (;;) {
		unsigned long guess = 0;

		/* The scheme chooses what to lock for a mapping not yet
		 * placed (lock_ops.h: write_begin_unplaced). */
		if (fixed)
			ops->write_begin(mm->lock, addr, addr + len, &h);
		else if (ops->write_begin_unplaced)
			ops->write_begin_unplaced(mm->lock, addr, len, &h, &guess);
		else
			ops->write_begin(mm->lock, mm->base, mm->end, &h);
		txn_begin(&x, mm);
		ret = mmap_place(&x, addr, len, flags, &start);
		if (ret || fixed || !guess || start == guess)
			break;
		/* Taken between the guess and the lock: look again. */
		txn_end(&x, -EAGAIN);
		ops->write_end(mm->lock, &h);
	}
	if (ret)
		goto out;
	/* Anonymous VMAs' offset is their page number, as in the kernel,
	 * so that adjacent anonymous VMAs are always offset-contiguous. */
	pg = file == SIM_FILE_NONE ? start >> SIM_PAGE_SHIFT : pgoff;
	if (flags & MAP_FIXED)
		ret = txn_unmap(&x, start, start + len, &unmapped);
	v = ret ? NULL : txn_new(&x, start, start + len, vflags, file, pg, false);
	if (!ret && !v)
		ret = -ENOMEM;
	if (!ret)
		ret = vma_tree_insert(&mm->tree, v);
	if (!ret)
		ret = txn_merge_around(&x, start, start + len);
	if (!ret)
		ret = txn_check_count(&x);
	if (!ret) {
		atomic_fetch_add_explicit(&mm->map_pages,
			(len >> SIM_PAGE_SHIFT) - unmapped, memory_order_relaxed);
		*out = start;
	}
out:
	txn_end(&x, ret);
	/* A new VMA starts with empty page tables: what MAP_FIXED replaced
	 * must not show through (mmap_region() unmaps under the write lock). */
	if (!ret && (flags & MAP_FIXED) && unmapped)
		sim_mm_zap(mm, start, start + len);
	ops->write_end(mm->lock, &h);
	/* MAP_POPULATE: like mm_populate(), after the write side is dropped,
	 * under mmap_read_lock (the scheme's mm-wide read side); what a
	 * racing munmap took is skipped. */
	if (!ret && (flags & MAP_POPULATE)) {
		ops->read_range_begin(mm->lock, start, start + len, 0, &h);
		sim_populate(mm, start, start + len);
		ops->read_range_end(mm->lock, &h);
	}
	return ret;
}

/* --- mprotect -------------------------------------------------------------- */

int sim_do_mprotect(struct sim_mm *mm, unsigned long start, size_t len,
		    int prot)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	unsigned long nf = sim_prot_to_flags(prot), end;
	unsigned long lo = ~0UL, hi = 0;     /* what changed */
	struct vma_txn x;
	struct sim_vma *v;
	bool hole;
	int ret = 0;

	if (start & ~SIM_PAGE_MASK)
		return -EINVAL;
	if (!len)
		return 0;
	len = page_align(len);
	if (!range_ok(mm, start, len))
		return -ENOMEM;
	end = start + len;
	ops->write_begin(mm->lock, start, end, &h);
	txn_begin(&x, mm);
	txn_covered(&x, start, end, &hole);
	if (hole)
		ret = -ENOMEM;
	if (!ret)
		ret = txn_split_at(&x, start);
	if (!ret)
		ret = txn_split_at(&x, end);
	for (v = ret ? NULL : vma_tree_txn_find(&mm->tree, start);
	     v && v->vm_start < end && !ret;
	     v = vma_tree_txn_find(&mm->tree, v->vm_end)) {
		unsigned long f = (v->vm_flags & ~VM_ACCESS_FLAGS) | nf;
		struct sim_vma *n;

		if (f == v->vm_flags)
			continue;        /* mprotect_fixup(): nothing to do */
		if (v->vm_start < lo)
			lo = v->vm_start;
		if (v->vm_end > hi)
			hi = v->vm_end;
		n = txn_piece(&x, v, v->vm_start, v->vm_end, f);
		ret = n ? txn_remove(&x, v) : -ENOMEM;
		if (!ret)
			ret = vma_tree_insert(&mm->tree, n);
		v = n;
	}
	if (!ret)
		ret = txn_merge_around(&x, start, end);
	if (!ret)
		ret = txn_check_count(&x);
	txn_end(&x, ret);
	/* change_protection(): the pages of what changed obey it now. */
	if (!ret && lo < hi)
		sim_mm_protect(mm, lo, hi, nf);
	ops->write_end(mm->lock, &h);
	return ret;
}

/* --- madvise --------------------------------------------------------------- */

/* What madvise_walk() does to each VMA's part of the range. */
enum madv_step { MADV_STEP_ZAP, MADV_STEP_FORGET, MADV_STEP_POPULATE,
		 MADV_STEP_CHECK };

/* Walk the VMAs over [start, end): zap (or only forget) their pages, or
 * populate them. -ENOMEM if part of the range is not mapped (the mapped
 * parts are still done, as in Linux); -EFAULT populating a VMA that may
 * not be written. */
static int madvise_walk(struct sim_mm *mm, unsigned long start,
			unsigned long end, enum madv_step what)
{
	unsigned long at = start;
	int ret = 0;

	sim_rcu_read_lock();
	for (struct sim_vma *v = vma_tree_find(&mm->tree, start);
	     v && v->vm_start < end; v = vma_tree_find(&mm->tree, v->vm_end)) {
		unsigned long s = v->vm_start > start ? v->vm_start : start;
		unsigned long e = v->vm_end < end ? v->vm_end : end;

		if (s > at)
			ret = -ENOMEM;
		if (what == MADV_STEP_ZAP)
			sim_mm_zap(mm, s, e);
		else if (what == MADV_STEP_FORGET)
			sim_mm_forget(mm, s, e);
		else if (what == MADV_STEP_POPULATE && !(v->vm_flags & VM_WRITE))
			ret = ret ? ret : -EFAULT;
		at = e;
	}
	sim_rcu_read_unlock();
	if (at < end)
		ret = -ENOMEM;
	if (what == MADV_STEP_POPULATE && !ret)
		ret = sim_populate(mm, start, end);
	return ret;
}

static int madvise_check(struct sim_mm *mm, unsigned long start, size_t len,
			 int advice)
{
	if ((advice != MADV_DONTNEED && advice != MADV_POPULATE_WRITE) ||
	    (start & ~SIM_PAGE_MASK))
		return -EINVAL;
	if (len && !range_ok(mm, start, page_align(len)))
		return -ENOMEM;
	return 0;
}

int sim_do_madvise(struct sim_mm *mm, unsigned long start, size_t len,
		   int advice)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	int ret = madvise_check(mm, start, len, advice);

	if (ret || !len)
		return ret;
	len = page_align(len);
	/* MADV_DONTNEED may be served by a per-VMA lock (Linux 6.16);
	 * MADV_POPULATE_WRITE faults pages in under mmap_read_lock. */
	ops->read_range_begin(mm->lock, start, start + len,
			      advice == MADV_DONTNEED ? LOCK_RANGE_VMA : 0, &h);
	ret = madvise_walk(mm, start, start + len, advice == MADV_DONTNEED ?
			   MADV_STEP_ZAP : MADV_STEP_POPULATE);
	ops->read_range_end(mm->lock, &h);
	return ret;
}

size_t sim_do_madvise_batch(struct sim_mm *mm, const struct iovec *iov,
			    int n, int advice, bool one_syscall, int *err)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	unsigned long lo = ~0UL, hi = 0;
	size_t done = 0;
	int i;

	*err = 0;
	if (one_syscall && (advice != MADV_DONTNEED || !mm->process_madvise_ok)) {
		*err = -EOPNOTSUPP;
		return 0;
	}
	for (i = 0; i < n; i++) {
		unsigned long s = (unsigned long)iov[i].iov_base;
		unsigned long e = s + page_align(iov[i].iov_len);

		if (iov[i].iov_len && s < lo)
			lo = s;
		if (iov[i].iov_len && e > hi)
			hi = e;
	}
	if (lo >= hi)
		return 0;
	/* One acquisition for the whole batch, as process_madvise does;
	 * the range side covers the span of all the ranges. */
	ops->read_range_begin(mm->lock, lo, hi,
			      advice == MADV_DONTNEED ? LOCK_RANGE_VMA : 0, &h);
	for (i = 0; i < n; i++) {
		unsigned long s = (unsigned long)iov[i].iov_base;
		size_t len = iov[i].iov_len;
		enum madv_step what = advice == MADV_POPULATE_WRITE ?
			MADV_STEP_POPULATE : one_syscall ? MADV_STEP_CHECK :
			MADV_STEP_ZAP;

		*err = madvise_check(mm, s, len, advice);
		if (!*err && len)
			*err = madvise_walk(mm, s, s + page_align(len), what);
		if (*err)
			break;
		done += len;
	}
	/* The ranges that passed, zapped by the kernel in one call (which
	 * batches the TLB flushes since SeongJae Park's 2025 series), then
	 * forgotten by the mm. */
	if (one_syscall && i) {
		host_process_madvise(mm->pidfd, iov, (size_t)i, MADV_DONTNEED);
		for (int k = 0; k < i; k++)
			madvise_walk(mm, (unsigned long)iov[k].iov_base,
				     (unsigned long)iov[k].iov_base +
				     page_align(iov[k].iov_len), MADV_STEP_FORGET);
	}
	ops->read_range_end(mm->lock, &h);
	return done;
}

/* --- brk ------------------------------------------------------------------- */

/* Grow the heap over [lo, hi) or shrink it off [lo, hi), in the txn. */
static int brk_change(struct vma_txn *x, unsigned long lo, unsigned long hi,
		      bool grow)
{
	struct sim_mm *mm = x->mm;
	unsigned long unmapped = 0;
	struct sim_vma *v;
	int ret;

	if (!grow) {
		ret = txn_unmap(x, lo, hi, &unmapped);
		if (!ret)
			ret = txn_check_count(x);
		if (!ret)
			atomic_fetch_sub_explicit(&mm->map_pages, unmapped,
						  memory_order_relaxed);
		return ret;
	}
	if (vma_tree_txn_find_intersection(&mm->tree, lo, hi))
		return -ENOMEM;          /* would grow into another mapping */
	v = txn_new(x, lo, hi, VM_READ | VM_WRITE | VM_HEAP, SIM_FILE_NONE,
		    lo >> SIM_PAGE_SHIFT, false);
	ret = v ? vma_tree_insert(&mm->tree, v) : -ENOMEM;
	if (!ret)
		ret = txn_merge_around(x, lo, hi);
	if (!ret)
		ret = txn_check_count(x);
	if (!ret)
		atomic_fetch_add_explicit(&mm->map_pages, (hi - lo) >> SIM_PAGE_SHIFT,
					  memory_order_relaxed);
	return ret;
}

int sim_do_brk(struct sim_mm *mm, unsigned long newbrk, unsigned long *out)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	unsigned long oldbrk, lo, hi;
	struct vma_txn x;
	int ret = 0;

	for (;;) {
		oldbrk = atomic_load(&mm->brk);
		*out = oldbrk;
		if (!newbrk || newbrk == oldbrk)
			return 0;
		if (newbrk < mm->start_brk || newbrk > mm->end)
			return -ENOMEM;
		lo = page_align(oldbrk < newbrk ? oldbrk : newbrk);
		hi = page_align(oldbrk < newbrk ? newbrk : oldbrk);
		/* The heap's changing part (at least the page the break is
		 * in); a scheme without ranges takes its whole write side. */
		ops->write_begin(mm->lock, lo, lo < hi ? hi : lo + SIM_PAGE_SIZE, &h);
		txn_begin(&x, mm);
		if (atomic_load(&mm->brk) == oldbrk)
			break;
		/* Another brk moved the break meanwhile: start again. */
		txn_end(&x, -EAGAIN);
		ops->write_end(mm->lock, &h);
	}
	if (lo < hi)
		ret = brk_change(&x, lo, hi, newbrk > oldbrk);
	if (!ret)
		atomic_store(&mm->brk, newbrk);   /* under the tree's mutex */
	txn_end(&x, ret);
	if (!ret)
		*out = newbrk;
	if (!ret && newbrk < oldbrk && lo < hi) {
		/* Shrinking: do_vmi_align_munmap(..., unlock = true). */
		ops->write_downgrade(mm->lock, &h);
		sim_mm_zap(mm, lo, hi);
		ops->read_range_end(mm->lock, &h);
		return 0;
	}
	ops->write_end(mm->lock, &h);
	return ret;
}
