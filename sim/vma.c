/* SPDX-License-Identifier: MIT */
/*
 * Address-space operations on the simulated mm, with the kernel's
 * semantics and errno values. Each runs under the scheme's write side for
 * its whole duration; the VMA tree itself is not thread-safe.
 */
#include "sim/vma.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/mm.h"

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

static struct sim_vma *vma_alloc(unsigned long start, unsigned long end,
				 unsigned long flags, int file,
				 unsigned long pgoff)
{
	struct sim_vma *v = malloc(sizeof(*v));

	if (v)
		*v = (struct sim_vma){ .vm_start = start, .vm_end = end,
			.vm_flags = flags, .vm_file = file, .vm_pgoff = pgoff };
	return v;
}

/* Throw the real pages of [start, end) away, so the next touch faults. */
static void zap_range(struct sim_mm *mm, unsigned long start, unsigned long end)
{
	madvise((void *)start, end - start, MADV_DONTNEED);
	if (mm->present)
		memset((void *)&mm->present[(start - mm->base) >> SIM_PAGE_SHIFT],
		       0, (end - start) >> SIM_PAGE_SHIFT);
}

/* Split v at addr (vm_start < addr < vm_end): v keeps the low part. */
static int vma_split(struct sim_mm *mm, struct sim_vma *v, unsigned long addr)
{
	struct sim_vma *hi;
	int ret;

	if (vma_tree_count(&mm->tree) >= mm->cfg.max_map_count)
		return -ENOMEM;
	hi = vma_alloc(addr, v->vm_end, v->vm_flags, v->vm_file,
		       v->vm_pgoff + ((addr - v->vm_start) >> SIM_PAGE_SHIFT));
	if (!hi)
		return -ENOMEM;
	v->vm_end = addr;
	ret = vma_tree_insert(&mm->tree, hi);
	if (ret) {
		v->vm_end = hi->vm_end;
		free(hi);
	}
	return ret;
}

/* Remove every VMA in [start, end); the caller holds the write side. */
static int unmap_locked(struct sim_mm *mm, unsigned long start,
			unsigned long end)
{
	struct sim_vma *v = vma_tree_find_intersection(&mm->tree, start, end);
	int ret;

	if (!v)
		return 0;
	/* Splits first, so a failure leaves the address space unchanged
	 * but for a split (which is invisible to users, as in Linux). */
	if (v->vm_start < start) {
		ret = vma_split(mm, v, start);
		if (ret)
			return ret;
	}
	v = vma_tree_find_intersection(&mm->tree, start, end);
	while (v) {
		if (v->vm_end > end) {
			ret = vma_split(mm, v, end);
			if (ret)
				return ret;
		}
		atomic_fetch_sub_explicit(&mm->map_pages,
			(v->vm_end - v->vm_start) >> SIM_PAGE_SHIFT,
			memory_order_relaxed);
		vma_tree_erase(&mm->tree, v);
		free(v);
		v = vma_tree_find_intersection(&mm->tree, start, end);
	}
	zap_range(mm, start, end);
	return 0;
}

static bool range_ok(struct sim_mm *mm, unsigned long start, size_t len)
{
	return len && !(start & ~SIM_PAGE_MASK) && start >= mm->base &&
	       start < mm->end && len <= mm->end - start;
}

int sim_do_munmap(struct sim_mm *mm, unsigned long start, size_t len)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	unsigned long end;
	int ret;

	len = (len + SIM_PAGE_SIZE - 1) & SIM_PAGE_MASK;
	if (!range_ok(mm, start, len))
		return -EINVAL;
	end = start + len;
	ops->write_begin(mm->lock, start, end, &h);
	ret = unmap_locked(mm, start, end);
	ops->write_end(mm->lock, &h);
	return ret;
}

/* Choose where a new mapping goes; -ENOMEM / -EEXIST. Write side held. */
static int mmap_place(struct sim_mm *mm, unsigned long addr, size_t len,
		      int flags, unsigned long *out)
{
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (addr & ~SIM_PAGE_MASK)
			return -EINVAL;
		if (!range_ok(mm, addr, len))
			return -ENOMEM;
		if ((flags & MAP_FIXED_NOREPLACE) &&
		    vma_tree_find_intersection(&mm->tree, addr, addr + len))
			return -EEXIST;
		*out = addr;
		return 0;
	}
	/* A free, aligned hint is honoured, as in the kernel. */
	addr &= SIM_PAGE_MASK;
	if (addr && range_ok(mm, addr, len) &&
	    !vma_tree_find_intersection(&mm->tree, addr, addr + len)) {
		*out = addr;
		return 0;
	}
	return vma_tree_gap_topdown(&mm->tree, mm->base, mm->end, len,
				    SIM_PAGE_SIZE, out);
}

int sim_do_mmap(struct sim_mm *mm, unsigned long addr, size_t len, int prot,
		int flags, int file, unsigned long pgoff, unsigned long *out)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	unsigned long vflags, start;
	struct sim_vma *v;
	int ret;

	if (!len || len > mm->end - mm->base)
		return len ? -ENOMEM : -EINVAL;
	len = (len + SIM_PAGE_SIZE - 1) & SIM_PAGE_MASK;
	vflags = sim_prot_to_flags(prot) | ((flags & MAP_SHARED) ? VM_SHARED : 0);

	ops->write_begin(mm->lock, mm->base, mm->end, &h);
	ret = mmap_place(mm, addr, len, flags, &start);
	if (ret)
		goto out;
	if (vma_tree_count(&mm->tree) >= mm->cfg.max_map_count) {
		ret = -ENOMEM;
		goto out;
	}
	if (flags & MAP_FIXED) {
		ret = unmap_locked(mm, start, start + len);
		if (ret)
			goto out;
	}
	v = vma_alloc(start, start + len, vflags, file, pgoff);
	if (!v) {
		ret = -ENOMEM;
		goto out;
	}
	ret = vma_tree_insert(&mm->tree, v);
	if (ret) {
		free(v);
		goto out;
	}
	atomic_fetch_add_explicit(&mm->map_pages, len >> SIM_PAGE_SHIFT,
				  memory_order_relaxed);
	/* A new VMA starts with empty page tables. Poison markers left by
	 * refused faults in what was a hole would outlive it: zap them. */
	if (atomic_load_explicit(&mm->poisoned, memory_order_relaxed))
		zap_range(mm, start, start + len);
	*out = start;
out:
	ops->write_end(mm->lock, &h);
	return ret;
}
