/* SPDX-License-Identifier: MIT */
#include "sim/fault.h"

#include "locks/sync/rcu.h"
#include "base/clock.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>


static _Thread_local _Atomic(const char *) fault_phase;

_Atomic(const char *) *sim_fault_phase(void)
{
	return &fault_phase;
}

/* Relaxed: a diagnostic read by the watchdog, ordering nothing. */
static void set_phase(const char *what)
{
	atomic_store_explicit(&fault_phase, what, memory_order_relaxed);
}

static bool vma_allows(const struct sim_vma *v, unsigned flags)
{
	if (flags & FAULT_FLAG_WRITE)
		return v->vm_flags & VM_WRITE;
	return v->vm_flags & (VM_READ | VM_WRITE | VM_EXEC);
}

static enum sim_fault_kind fault_kind(const struct sim_vma *v, unsigned flags)
{
	if (v->vm_file != SIM_FILE_NONE)
		return SIM_FAULT_FILE;
	return (flags & FAULT_FLAG_WRITE) ? SIM_FAULT_ANON_WRITE
					  : SIM_FAULT_ANON_READ;
}

/* What the resolve needs of the lock: a VMA's first private write fault
 * prepares its anon_vma, which needs the mm lock's read side
 * (__vmf_anon_prepare). */
static unsigned fault_needs(const struct sim_vma *v, unsigned flags)
{
	if (!(flags & FAULT_FLAG_WRITE) || (v->vm_flags & VM_SHARED) ||
	    atomic_load_explicit(&v->anon_vma, memory_order_relaxed))
		return 0;
	return LOCK_NEED_MM;
}

#define PMD_SIZE (2UL << 20)
#define PTRS_PER_PTE (PMD_SIZE >> SIM_PAGE_SHIFT)

/* alloc_anon_folio(): the --folio size, naturally aligned, if it lies
 * inside the VMA and none of its pages is present; else the page. (One
 * size enabled, as with one mTHP size set to "always": no orders between
 * it and a page to fall back through.) */
static void anon_folio(struct sim_mm *mm, const struct sim_vma *v,
		       unsigned long addr, unsigned long *start,
		       unsigned long *end)
{
	size_t sz = mm->cfg.folio_size;
	unsigned long s = addr & ~(sz - 1);

	if (sz <= SIM_PAGE_SIZE || s < v->vm_start || s + sz > v->vm_end ||
	    !mm->src->ops->absent(mm->src, s, s + sz))
		return;
	*start = s;
	*end = s + sz;
}

/* do_fault_around(): fault_around_bytes' aligned window, clamped to the
 * VMA and to the page table (it starts no lower than the VMA and runs
 * its full length from there); the source maps its absent pages — every
 * page of a simulated file is in the page cache. */
static void fault_around(struct sim_mm *mm, const struct sim_vma *v,
			 unsigned long addr, unsigned long *start,
			 unsigned long *end)
{
	unsigned long nr = mm->cfg.fault_around >> SIM_PAGE_SHIFT;
	unsigned long pte_off = (addr >> SIM_PAGE_SHIFT) & (PTRS_PER_PTE - 1);
	unsigned long vma_off = (addr - v->vm_start) >> SIM_PAGE_SHIFT;
	unsigned long vma_pages = (v->vm_end - v->vm_start) >> SIM_PAGE_SHIFT;
	unsigned long from, to, pmd = addr & ~(PMD_SIZE - 1);

	if (nr <= 1)
		return;
	from = pte_off & ~(nr - 1);
	if (pte_off - (pte_off < vma_off ? pte_off : vma_off) > from)
		from = pte_off - (pte_off < vma_off ? pte_off : vma_off);
	to = from + nr;
	if (to > PTRS_PER_PTE)
		to = PTRS_PER_PTE;
	if (to > pte_off + vma_pages - vma_off)
		to = pte_off + vma_pages - vma_off;
	*start = pmd + (from << SIM_PAGE_SHIFT);
	*end = pmd + (to << SIM_PAGE_SHIFT);
}

/* What one fault places: a folio for an anonymous write, fault-around's
 * window for a file read, else the page. */
static void fault_extent(struct sim_mm *mm, const struct sim_vma *v,
			 unsigned long addr, unsigned flags,
			 enum sim_fault_kind kind, unsigned long *start,
			 unsigned long *end)
{
	*start = addr;
	*end = addr + SIM_PAGE_SIZE;
	if (kind == SIM_FAULT_ANON_WRITE && !(flags & FAULT_FLAG_WP))
		anon_folio(mm, v, addr, start, end);
	else if (kind == SIM_FAULT_FILE && !(flags & FAULT_FLAG_WRITE))
		fault_around(mm, v, addr, start, end);
}

/* The folio a fault that places new memory takes (alloc_anon_folio, or
 * do_cow_fault's copy of a file page), under its lock hold; FRAME_NIL
 * where it places none (the zero page, a page-cache page) or there are
 * no frames. */
static uint32_t fault_frames(struct sim_mm *mm, const struct sim_vma *v,
			     enum sim_fault_kind kind, unsigned flags,
			     unsigned long start, unsigned long end)
{
	int order = 0;

	if (!mm->cfg.frames || (flags & FAULT_FLAG_WP) ||
	    !(kind == SIM_FAULT_ANON_WRITE ||
	      (kind == SIM_FAULT_FILE && (flags & FAULT_FLAG_WRITE) &&
	       !(v->vm_flags & VM_SHARED))))
		return FRAME_NIL;
	while ((SIM_PAGE_SIZE << order) < end - start)
		order++;
	return sim_mm_frames_alloc(mm, order);
}

/*
 * Under the fault-side lock and RCU: check and resolve. Returns 0 when
 * resolved, -EFAULT when refused, -EAGAIN when the scheme wants a retry.
 */
static int fault_locked(struct sim_mm *mm, struct sim_vma *v,
			struct lock_handle *h, unsigned long addr,
			unsigned flags, void *ctx, enum sim_fault_kind *kindp,
			unsigned *pages)
{
	const struct lock_ops *ops = mm->lock->ops;
	enum sim_fault_kind kind;
	unsigned long start, end;
	unsigned need = 0;
	uint32_t frame;
	int placed;

	if (!v)
		v = vma_tree_find(&mm->tree, addr);
	if (!v || v->vm_start > addr) {
		kind = SIM_FAULT_NOVMA;
	} else if (!vma_allows(v, flags)) {
		kind = SIM_FAULT_PROT;
	} else {
		kind = fault_kind(v, flags);
		need = fault_needs(v, flags);
	}
	/* The folio first, as do_anonymous_page() allocates (and clears)
	 * it before pte_map_lock() — except where the anon_vma must be
	 * prepared, which comes first in the kernel and may end a
	 * speculation before anything is allocated. */
	frame = FRAME_NIL;
	if (!need && kind != SIM_FAULT_NOVMA && kind != SIM_FAULT_PROT) {
		fault_extent(mm, v, addr, flags, kind, &start, &end);
		frame = fault_frames(mm, v, kind, flags, start, end);
	}
	/* Nothing that cannot be undone — the resolve, or the refusal —
	 * before the scheme says what was seen still holds (a speculative
	 * lookup may have seen a layout a writer is changing): a failed
	 * validation frees the folio, as the kernel's fault does on a
	 * failed pte_map_lock(). */
	if (ops->fault_validate && ops->fault_validate(mm->lock, h, need)) {
		sim_mm_frames_done(mm, frame);
		return -EAGAIN;
	}
	*kindp = kind;
	if (kind == SIM_FAULT_NOVMA || kind == SIM_FAULT_PROT)
		return -EFAULT;
	if (need) {
		atomic_store_explicit(&v->anon_vma, true, memory_order_relaxed);
		fault_extent(mm, v, addr, flags, kind, &start, &end);
		frame = fault_frames(mm, v, kind, flags, start, end);
	}
	placed = mm->src->ops->resolve(mm->src, v, addr, start, end, frame,
				       flags, ctx);
	sim_mm_frames_done(mm, frame);
	if (placed < 0)
		return placed;
	*pages = (unsigned)placed;
	return 0;
}

int sim_handle_fault(struct sim_mm *mm, unsigned long addr, unsigned flags,
		     void *ctx)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct fault_source *src = mm->src;
	enum sim_fault_kind kind = SIM_FAULT_NOVMA;
	unsigned lflags = flags & FAULT_FLAG_KERNEL ? LOCK_FAULT_KERNEL : 0;
	unsigned pages = 0;
	uint64_t wait = 0, hold = 0, t0, t1;
	int ret;

	addr &= SIM_PAGE_MASK;
	for (;;) {
		struct lock_handle h = { 0 };
		struct sim_vma *v;

		set_phase("waiting for the fault-side lock");
		t0 = cycles_now();
		v = ops->fault_begin(mm->lock, addr, lflags, &h);
		t1 = cycles_now();
		sim_mm_hold_extra(mm);
		wait += t1 - t0;
		set_phase("looking up the VMA and resolving (lock held)");
		/* After the scheme's lock (a reader never waits for a lock
		 * inside an RCU read-side section). Held to fault_end, so the
		 * VMA stays valid even if a writer of another range replaces
		 * tree nodes meanwhile. */
		sim_rcu_read_lock();
		ret = fault_locked(mm, v, &h, addr, flags, ctx, &kind, &pages);
		/* A refused access must still be answered, or the thread
		 * hangs: under the lock, so that no writer (an mprotect that
		 * would now allow it) comes between the decision and it. */
		if (ret == -EFAULT)
			sim_mm_src_failed(mm, SIM_SRC_REFUSE,
					  src->ops->refuse(src, addr, ctx));
		/* So must one whose resolve failed (the source counted it):
		 * on ENOENT (the host range is not this uffd's) woken, the
		 * thread faults again; anything else refused, as the
		 * kernel's VM_FAULT_SIGBUS. */
		else if (ret < 0 && ret != -EAGAIN && ret != -ENOENT)
			sim_mm_src_failed(mm, SIM_SRC_REFUSE,
					  src->ops->refuse(src, addr, ctx));
		sim_rcu_read_unlock();
		set_phase("releasing the fault-side lock");
		ops->fault_end(mm->lock, &h);
		hold += cycles_now() - t1;
		if (ret != -EAGAIN)
			break;
		lock_inst_count_retry(mm->lock);
		lflags |= LOCK_FAULT_RETRY;
	}
	sim_mm_count_fault(mm, kind, pages, wait, hold);
	set_phase("waking the faulting thread");
	if (!ret || ret == -ENOENT)
		sim_mm_src_failed(mm, SIM_SRC_WAKE, src->ops->wake(src, addr, ctx));
	set_phase(NULL);
	return ret;
}

struct populate_ctx {
	struct sim_mm *mm;
	unsigned long start, end;
	int ret;
};

static int populate_vma(struct sim_vma *v, void *arg)
{
	struct populate_ctx *p = arg;
	struct sim_mm *mm = p->mm;
	unsigned long s = v->vm_start > p->start ? v->vm_start : p->start;
	unsigned long e = v->vm_end < p->end ? v->vm_end : p->end;

	if (!(v->vm_flags & VM_ACCESS_FLAGS))
		return 0;                /* PROT_NONE: nothing to populate */
	/* populate_vma_page_range() faults writable private memory in for
	 * writing, which prepares its anon_vma. */
	if ((v->vm_flags & VM_WRITE) && !(v->vm_flags & VM_SHARED))
		atomic_store_explicit(&v->anon_vma, true, memory_order_relaxed);
	p->ret = mm->src->ops->populate(mm->src, v, s, e);
	/* Populated private memory is the kernel's faults' (GUP through
	 * do_anonymous_page): it takes frames; page-cache pages do not. */
	if (!p->ret && v->vm_file == SIM_FILE_NONE && !(v->vm_flags & VM_SHARED))
		sim_mm_populate_frames(mm, s, e);
	atomic_fetch_add_explicit(&mm->populated, (e - s) >> SIM_PAGE_SHIFT,
				  memory_order_relaxed);
	return p->ret;
}

int sim_populate(struct sim_mm *mm, unsigned long start, unsigned long end)
{
	struct populate_ctx p = { mm, start, end, 0 };

	sim_rcu_read_lock();
	vma_tree_for_each(&mm->tree, start, end, populate_vma, &p);
	sim_rcu_read_unlock();
	return p.ret;
}
