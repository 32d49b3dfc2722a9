/* SPDX-License-Identifier: MIT */
/*
 * The address-space operations — munmap, mmap, mprotect, madvise, brk —
 * each under the scheme's lock and inside one VMA-tree transaction
 * (sim/vma_txn.c has the transactions and the file's longer story).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "sim/fault.h"
#include "sim/vma_txn.h"
#include "locks/sync/rcu.h"
#include "sim/host.h"
#include "sim/backend.h"

/* --- munmap ---------------------------------------------------------------- */

int sim_model_munmap(struct sim_mm *mm, unsigned long start, size_t len)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	unsigned long end, unmapped = 0;
	struct vma_txn x;
	struct vma_detached detached;
	int ret;

	if (len > mm->end - mm->base)
		return -EINVAL;
	len = txn_page_align(len);
	if (!txn_range_ok(mm, start, len))
		return -EINVAL;
	end = start + len;
	sim_mm_cost_out(mm, SIM_COST_MUNMAP);
	ops->write_begin(mm->lock, start, end, &h);
	sim_mm_hold_extra(mm);
	sim_mm_cost_in(mm, SIM_COST_MUNMAP);
	txn_begin(&x, mm);
	ret = txn_unmap(&x, start, end, &unmapped);
	if (!ret)
		ret = txn_check_count(&x);   /* punching a hole adds a VMA */
	txn_end(&x, ret);
	if (ret) {
		ops->write_end(mm->lock, &h);
		return ret;
	}
	/* The removed VMAs gathered into a detached tree, as the kernel's
	 * munmap does (its nodes: allocated here, freed below). */
	vma_tree_detached_build(&mm->tree, x.unmapped, &detached);
	atomic_fetch_sub_explicit(&mm->map_pages, unmapped, memory_order_relaxed);
	/* vms_complete_munmap_vmas(): downgrade, free the pages, then
	 * destroy the detached tree. */
	ops->write_downgrade(mm->lock, &h);
	sim_mm_zap(mm, start, end);
	sim_mm_cost_down(mm, SIM_COST_MUNMAP);
	vma_tree_detached_destroy(&mm->tree, &detached);
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
		if (!txn_range_ok(mm, addr, len))
			return -ENOMEM;
		if ((flags & MAP_FIXED_NOREPLACE) &&
		    vma_tree_txn_find_intersection(&mm->tree, addr, addr + len))
			return -EEXIST;
		*out = addr;
		return 0;
	}
	/* A free, aligned hint is honoured, as in the kernel. */
	addr &= SIM_PAGE_MASK;
	if (addr && txn_range_ok(mm, addr, len) &&
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
	if (addr && txn_range_ok(mm, addr, len) &&
	    !vma_tree_find_intersection(&mm->tree, addr, addr + len))
		*out = addr;
	else
		ret = vma_tree_rcu_gap_topdown(&mm->tree, atomic_load(&mm->brk),
					       mm->end, len, SIM_PAGE_SIZE, out);
	sim_rcu_read_unlock();
	return ret;
}

/* The arguments' checks before any lock; *len page-aligned. */
static int mmap_check(struct sim_mm *mm, unsigned long addr, size_t *len,
		      int flags)
{
	bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);

	if (!*len)
		return -EINVAL;
	if (*len > mm->end - mm->base)
		return -ENOMEM;
	*len = txn_page_align(*len);
	if (fixed && (addr & ~SIM_PAGE_MASK))
		return -EINVAL;
	if (fixed && !txn_range_ok(mm, addr, *len))
		return -ENOMEM;
	return 0;
}

int sim_model_mmap(struct sim_mm *mm, unsigned long addr, size_t len,
		      int prot, int flags, int file, unsigned long pgoff,
		      unsigned long *out)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	unsigned long vflags, start, pg, unmapped = 0;
	bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
	struct sim_vma *v;
	struct vma_txn x;
	int ret;

	if ((ret = mmap_check(mm, addr, &len, flags)))
		return ret;
	vflags = sim_prot_to_flags(prot) | ((flags & MAP_SHARED) ? VM_SHARED : 0) |
		 ((flags & MAP_NORESERVE) ? VM_NORESERVE : 0) |
		 ((flags & MAP_STACK) ? VM_NOHUGEPAGE : 0);
	sim_mm_cost_out(mm, SIM_COST_MMAP);
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
		sim_mm_hold_extra(mm);
		txn_begin(&x, mm);
		ret = mmap_place(&x, addr, len, flags, &start);
		if (ret || fixed || !guess || start == guess)
			break;
		/* Taken between the guess and the lock: look again. */
		txn_end(&x, -EAGAIN);
		ops->write_end(mm->lock, &h);
	}
	/* Once, where the mapping's place is settled (a range-locked mmap
	 * that looked again paid nothing for its first look). */
	sim_mm_cost_in(mm, SIM_COST_MMAP);
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
		sim_mm_hold_extra(mm);
		sim_populate(mm, start, start + len);
		ops->read_range_end(mm->lock, &h);
	}
	return ret;
}


/* --- mprotect -------------------------------------------------------------- */

/* What a refined mprotect locks (locks/mprotect_range.c): the VMAs it
 * covers, and at either end the VMA it splits or merges with — the one
 * holding start - 1 (start inside it: split; start its end: a merge
 * candidate), the one holding end, likewise (txn_split_at and
 * txn_merge_around change no other). The leaf's ranges only: the VMAs
 * themselves are not read (no reference is held on them). */
unsigned long sim_mprotect_span(void *arg, unsigned long start,
				unsigned long end, unsigned long *lo,
				unsigned long *hi)
{
	struct sim_mm *mm = arg;
	unsigned long seq = vma_tree_seq(&mm->tree), s, e;

	/* Odd: a maple transaction is storing; what is read now may be half
	 * of it, so the version returned is one that has already passed —
	 * the caller validates under its lock. */
	if (seq & 1)
		seq--;
	*lo = start;
	*hi = end;
	sim_rcu_read_lock();
	if (start > mm->base &&
	    vma_tree_find_range(&mm->tree, start - 1, &s, &e))
		*lo = s;
	if (end < mm->end && vma_tree_find_range(&mm->tree, end, &s, &e))
		*hi = e;
	sim_rcu_read_unlock();
	return seq;
}

unsigned long sim_layout_seq(void *arg)
{
	return vma_tree_seq(&((struct sim_mm *)arg)->tree);
}

int sim_model_mprotect(struct sim_mm *mm, unsigned long start, size_t len,
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
	len = txn_page_align(len);
	if (!txn_range_ok(mm, start, len))
		return -ENOMEM;
	end = start + len;
	sim_mm_cost_out(mm, SIM_COST_MPROTECT);
	/* The scheme chooses what an mprotect locks (lock_ops.h:
	 * write_begin_mprotect; --mprotect-range). */
	if (ops->write_begin_mprotect)
		ops->write_begin_mprotect(mm->lock, start, end, &h);
	else
		ops->write_begin(mm->lock, start, end, &h);
	sim_mm_hold_extra(mm);
	sim_mm_cost_in(mm, SIM_COST_MPROTECT);
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
		ret = n ? txn_replace(&x, &v, 1, &n, 1) : -ENOMEM;
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
		/* Done: the next VMA is not read (under pervma's VMA lock it
		 * is not ours, and a typesafe one may be a new VMA by now). */
		if (at >= end)
			break;
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
	if (len && !txn_range_ok(mm, start, txn_page_align(len)))
		return -ENOMEM;
	return 0;
}

int sim_model_madvise(struct sim_mm *mm, unsigned long start, size_t len,
		      int advice)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	int ret;

	ret = madvise_check(mm, start, len, advice);
	if (ret || !len)
		return ret;
	len = txn_page_align(len);
	sim_mm_cost_out(mm, SIM_COST_MADVISE);
	/* MADV_DONTNEED may be served by a per-VMA lock (Linux 6.16);
	 * MADV_POPULATE_WRITE faults pages in under mmap_read_lock. */
	ops->read_range_begin(mm->lock, start, start + len,
			      advice == MADV_DONTNEED ? LOCK_RANGE_VMA : 0, &h);
	sim_mm_hold_extra(mm);
	sim_mm_cost_in(mm, SIM_COST_MADVISE);
	ret = madvise_walk(mm, start, start + len, advice == MADV_DONTNEED ?
			   MADV_STEP_ZAP : MADV_STEP_POPULATE);
	ops->read_range_end(mm->lock, &h);
	return ret;
}

size_t sim_model_madvise_batch(struct sim_mm *mm, const struct iovec *iov,
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
		unsigned long e = s + txn_page_align(iov[i].iov_len);

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
	sim_mm_hold_extra(mm);
	for (i = 0; i < n; i++) {
		unsigned long s = (unsigned long)iov[i].iov_base;
		size_t len = iov[i].iov_len;
		enum madv_step what = advice == MADV_POPULATE_WRITE ?
			MADV_STEP_POPULATE : one_syscall ? MADV_STEP_CHECK :
			MADV_STEP_ZAP;

		*err = madvise_check(mm, s, len, advice);
		if (!*err && len)
			*err = madvise_walk(mm, s, s + txn_page_align(len), what);
		if (*err)
			break;
		done += len;
	}
	/* The ranges that passed, zapped by the kernel in one call (which
	 * batches the TLB flushes since SeongJae Park's 2025 series), then
	 * forgotten by the mm. */
	if (one_syscall && i) {
		long r = host_process_madvise(mm->pidfd, iov, (size_t)i,
					      MADV_DONTNEED);

		sim_mm_src_failed(mm, SIM_SRC_ZAP, r < 0 ? (int)r : 0);
		for (int k = 0; k < i; k++)
			madvise_walk(mm, (unsigned long)iov[k].iov_base,
				     (unsigned long)iov[k].iov_base +
				     txn_page_align(iov[k].iov_len), MADV_STEP_FORGET);
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

int sim_model_brk(struct sim_mm *mm, unsigned long newbrk, unsigned long *out)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	unsigned long oldbrk, lo, hi;
	struct vma_txn x;
	int ret = 0;

	sim_mm_cost_out(mm, SIM_COST_BRK);
	for (;;) {
		oldbrk = atomic_load(&mm->brk);
		*out = oldbrk;
		if (!newbrk || newbrk == oldbrk) {
			/* brk(2) takes the write side before it looks at
			 * anything, a query (brk(0)) too. */
			lo = txn_page_align(oldbrk);
			ops->write_begin(mm->lock, lo, lo + SIM_PAGE_SIZE, &h);
			*out = atomic_load(&mm->brk);
			ops->write_end(mm->lock, &h);
			return 0;
		}
		if (newbrk < mm->start_brk || newbrk > mm->end)
			return -ENOMEM;
		lo = txn_page_align(oldbrk < newbrk ? oldbrk : newbrk);
		hi = txn_page_align(oldbrk < newbrk ? newbrk : oldbrk);
		/* The heap's changing part (at least the page the break is
		 * in); a scheme without ranges takes its whole write side. */
		ops->write_begin(mm->lock, lo, lo < hi ? hi : lo + SIM_PAGE_SIZE, &h);
		sim_mm_hold_extra(mm);
		txn_begin(&x, mm);
		if (atomic_load(&mm->brk) == oldbrk)
			break;
		/* Another brk moved the break meanwhile: start again. */
		txn_end(&x, -EAGAIN);
		ops->write_end(mm->lock, &h);
	}
	sim_mm_cost_in(mm, SIM_COST_BRK);
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
		sim_mm_cost_down(mm, SIM_COST_BRK);
		ops->read_range_end(mm->lock, &h);
		return 0;
	}
	ops->write_end(mm->lock, &h);
	return ret;
}

/* --- the calls, each the mm's backend's (sim/backend.h) -------------------- */

int sim_do_mmap(struct sim_mm *mm, unsigned long addr, size_t len, int prot,
		int flags, int file, unsigned long pgoff, unsigned long *out)
{
	return mm->be->mmap(mm, addr, len, prot, flags, file, pgoff, out);
}

int sim_do_munmap(struct sim_mm *mm, unsigned long start, size_t len)
{
	return mm->be->munmap(mm, start, len);
}

int sim_do_mprotect(struct sim_mm *mm, unsigned long start, size_t len,
		    int prot)
{
	return mm->be->mprotect(mm, start, len, prot);
}

int sim_do_madvise(struct sim_mm *mm, unsigned long start, size_t len,
		   int advice)
{
	return mm->be->madvise(mm, start, len, advice);
}

size_t sim_do_madvise_batch(struct sim_mm *mm, const struct iovec *iov,
			    int n, int advice, bool one_syscall, int *err)
{
	return mm->be->madvise_batch(mm, iov, n, advice, one_syscall, err);
}

int sim_do_brk(struct sim_mm *mm, unsigned long newbrk, unsigned long *out)
{
	return mm->be->brk(mm, newbrk, out);
}
