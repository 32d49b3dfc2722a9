/* SPDX-License-Identifier: MIT */
#include "mm/fault.h"

#include "sync/rcu.h"
#include "util/clock.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>


static _Thread_local uffd_phase_t fault_phase;

uffd_phase_t *sim_fault_phase(void)
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

/*
 * Under the fault-side lock and RCU: check and resolve. Returns 0 when
 * resolved, -EFAULT when refused, -EAGAIN when the scheme wants a retry.
 */
static int fault_locked(struct sim_mm *mm, struct sim_vma *v,
			struct lock_handle *h, unsigned long addr,
			unsigned flags, void *ctx)
{
	const struct lock_ops *ops = mm->lock->ops;
	enum sim_fault_kind kind;
	unsigned need = 0;

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
	/* Nothing that cannot be undone — the resolve, or the refusal —
	 * before the scheme says what was seen still holds (a speculative
	 * lookup may have seen a layout a writer is changing). */
	if (ops->fault_validate && ops->fault_validate(mm->lock, h, need))
		return -EAGAIN;
	sim_mm_count_fault(mm, kind);
	if (kind == SIM_FAULT_NOVMA || kind == SIM_FAULT_PROT)
		return -EFAULT;
	if (need)
		atomic_store_explicit(&v->anon_vma, true, memory_order_relaxed);
	return mm->src->ops->resolve(mm->src, v, addr, flags, ctx);
}

int sim_handle_fault(struct sim_mm *mm, unsigned long addr, unsigned flags,
		     void *ctx)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct fault_source *src = mm->src;
	unsigned lflags = 0;
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
		wait += t1 - t0;
		set_phase("looking up the VMA and resolving (lock held)");
		/* After the scheme's lock (a reader never waits for a lock
		 * inside an RCU read-side section). Held to fault_end, so the
		 * VMA stays valid even if a writer of another range replaces
		 * tree nodes meanwhile. */
		sim_rcu_read_lock();
		ret = fault_locked(mm, v, &h, addr, flags, ctx);
		/* A refused access must still be answered, or the thread
		 * hangs: under the lock, so that no writer (an mprotect that
		 * would now allow it) comes between the decision and it. */
		if (ret == -EFAULT)
			src->ops->refuse(src, addr, ctx);
		sim_rcu_read_unlock();
		set_phase("releasing the fault-side lock");
		ops->fault_end(mm->lock, &h);
		hold += cycles_now() - t1;
		if (ret != -EAGAIN)
			break;
		lock_inst_count_retry(mm->lock);
		lflags = LOCK_FAULT_RETRY;
	}
	sim_mm_count_lock_time(mm, wait, hold);
	set_phase("waking the faulting thread");
	if (!ret)
		src->ops->wake(src, addr, ctx);
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
