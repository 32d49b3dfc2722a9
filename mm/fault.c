/* SPDX-License-Identifier: MIT */
#include "mm/fault.h"

#include "sync/rcu.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "uffd/host.h"

static _Thread_local sigjmp_buf *touch_jb;
static _Thread_local unsigned long touch_page;   /* the touch's page */
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

static _Thread_local uint64_t fill_buf[SIM_PAGE_SIZE / 8]
	__attribute__((aligned(4096)));
#define POPULATE_CHUNK 16                /* pages per UFFDIO_COPY */
static const uint64_t zero_page[POPULATE_CHUNK * SIM_PAGE_SIZE / 8]
	__attribute__((aligned(4096)));

static bool vma_allows(const struct sim_vma *v, unsigned flags)
{
	if (flags & FAULT_FLAG_WRITE)
		return v->vm_flags & VM_WRITE;
	return v->vm_flags & (VM_READ | VM_WRITE | VM_EXEC);
}

/* Fill the per-thread buffer with the file page that backs addr. */
static const void *file_page(const struct sim_vma *v, unsigned long addr)
{
	unsigned long off = ((addr - v->vm_start) >> SIM_PAGE_SHIFT) + v->vm_pgoff;

	off <<= SIM_PAGE_SHIFT;
	for (size_t i = 0; i < SIM_PAGE_SIZE / 8; i++)
		fill_buf[i] = sim_file_word(v->vm_file, off + i * 8);
	return fill_buf;
}

/*
 * Place the page without waking the faulting thread: it is woken after
 * the lock is dropped (see sim_handle_fault()). A page of a VMA that may
 * not be written is mapped write-protected, so that a later write
 * faults (the host VMA itself is always writable). Returns 0 or -errno.
 */
static int resolve_uffd(const struct sim_vma *v, unsigned long addr,
			unsigned flags, const struct sim_fault_src *src)
{
	bool ro = !(v->vm_flags & VM_WRITE);

	if (flags & FAULT_FLAG_WP) {
		/* The VMA allows the write now: lift the protection. */
		src->c->unprotects++;
		return uffd_writeprotect(src->fd, addr, SIM_PAGE_SIZE, false, true);
	}
	if (v->vm_file != SIM_FILE_NONE)
		return uffd_resolve_copy(src->fd, addr, file_page(v, addr),
					 SIM_PAGE_SIZE, true, ro, src->c);
	if ((flags & FAULT_FLAG_WRITE) || ro)
		return uffd_resolve_copy(src->fd, addr, zero_page, SIM_PAGE_SIZE,
					 true, ro, src->c);
	return uffd_resolve_zeropage(src->fd, addr, SIM_PAGE_SIZE, true, src->c);
}

/* Synthetic: populate the real page here, under the lock, then mark it
 * (the page's contents are in place before anyone sees it present). */
static void resolve_synthetic(struct sim_mm *mm, const struct sim_vma *v,
			      unsigned long addr, unsigned flags)
{
	size_t pg = (addr - mm->base) >> SIM_PAGE_SHIFT;
	unsigned char state = (flags & FAULT_FLAG_WRITE) ? 2 : 1;
	bool fresh = !(atomic_load_explicit(&mm->present[pg], memory_order_relaxed) &
		       SIM_PRESENT_STATE);

	/* A new page gets its contents here, as the kernel zeroes a new
	 * anonymous page or reads a file page: whatever the real arena page
	 * held before (a write that raced an munmap) must not show. */
	if (fresh)
		memcpy((void *)addr, v->vm_file != SIM_FILE_NONE ?
		       file_page(v, addr) : (const void *)zero_page, SIM_PAGE_SIZE);
	else if (state == 2)
		*(volatile char *)addr = *(volatile char *)addr;
	else
		(void)*(volatile char *)addr;
	sim_mm_set_present(mm, addr, state);
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
			unsigned flags, const struct sim_fault_src *src)
{
	const struct lock_ops *ops = mm->lock->ops;
	unsigned need;
	int ret = 0;

	if (!v)
		v = vma_tree_find(&mm->tree, addr);
	if (!v || v->vm_start > addr) {
		sim_mm_count_fault(mm, SIM_FAULT_NOVMA);
		return -EFAULT;
	}
	if (!vma_allows(v, flags)) {
		sim_mm_count_fault(mm, SIM_FAULT_PROT);
		return -EFAULT;
	}
	need = fault_needs(v, flags);
	if (ops->fault_validate && ops->fault_validate(mm->lock, h, need))
		return -EAGAIN;
	if (need)
		atomic_store_explicit(&v->anon_vma, true, memory_order_relaxed);
	sim_mm_count_fault(mm, fault_kind(v, flags));
	if (!src) {
		resolve_synthetic(mm, v, addr, flags);
		return 0;
	}
	ret = resolve_uffd(v, addr, flags, src);
	if (!ret)
		sim_mm_set_present(mm, addr, (v->vm_flags & VM_WRITE) &&
				   ((flags & FAULT_FLAG_WRITE) ||
				    v->vm_file != SIM_FILE_NONE) ? 2 : 1);
	return ret;
}

int sim_handle_fault(struct sim_mm *mm, unsigned long addr, unsigned flags,
		     const struct sim_fault_src *src)
{
	const struct lock_ops *ops = mm->lock->ops;
	unsigned lflags = 0;
	int ret;

	addr &= SIM_PAGE_MASK;
	for (;;) {
		struct lock_handle h = { 0 };
		struct sim_vma *v;

		set_phase("waiting for the fault-side lock");
		v = ops->fault_begin(mm->lock, addr, lflags, &h);
		set_phase("looking up the VMA and resolving (lock held)");
		/* After the scheme's lock (a reader never waits for a lock
		 * inside an RCU read-side section). Held to fault_end, so the
		 * VMA stays valid even if a writer of another range replaces
		 * tree nodes meanwhile. */
		sim_rcu_read_lock();
		ret = fault_locked(mm, v, &h, addr, flags, src);
		/* A refused access must still be answered, or the thread
		 * hangs: under the lock, so that no writer (an mprotect that
		 * would now allow it) comes between the decision and it. */
		if (ret == -EFAULT && src)
			uffd_refuse(src->tid, addr, src->c);
		sim_rcu_read_unlock();
		set_phase("releasing the fault-side lock");
		ops->fault_end(mm->lock, &h);
		if (ret != -EAGAIN)
			break;
		lflags = LOCK_FAULT_RETRY;
	}
	set_phase("waking the faulting thread");
	/*
	 * Wake the faulting thread only now. A kernel fault holds mmap_lock
	 * (or the VMA lock) across the page-table update, not across waking
	 * anybody; letting UFFDIO_COPY wake the thread inside the lock would
	 * charge a cross-CPU wake-up to every fault's lock hold time.
	 */
	if (!ret && src)
		uffd_wake(src->fd, addr, SIM_PAGE_SIZE);
	set_phase(NULL);
	return ret;
}

struct populate_ctx {
	struct sim_mm *mm;
	unsigned long start, end;
	int ret;
};

/* Populate one page the slow way (file contents, or a race with a fault). */
static int populate_page(struct sim_mm *mm, const struct sim_vma *v,
			 unsigned long a, struct uffd_counters *c)
{
	bool w = v->vm_flags & VM_WRITE;

	if (mm->uffd < 0) {
		resolve_synthetic(mm, v, a, w ? FAULT_FLAG_WRITE : 0);
		return 0;
	}
	if (v->vm_file != SIM_FILE_NONE)
		return uffd_resolve_copy(mm->uffd, a, file_page(v, a),
					 SIM_PAGE_SIZE, false, !w, c);
	return uffd_resolve_copy(mm->uffd, a, zero_page, SIM_PAGE_SIZE, false,
				 !w, c);
}

/* Synthetic: n fresh zero pages at s, unless some are already present
 * (then -EEXIST and the caller goes page by page). */
static int populate_fresh(struct sim_mm *mm, unsigned long s, unsigned long n)
{
	size_t pg = (s - mm->base) >> SIM_PAGE_SHIFT;

	for (unsigned long i = 0; i < n; i++)
		if (atomic_load_explicit(&mm->present[pg + i], memory_order_relaxed) &
		    SIM_PRESENT_STATE)
			return -EEXIST;
	if (host_madvise((void *)s, n << SIM_PAGE_SHIFT, MADV_DONTNEED) ||
	    host_madvise((void *)s, n << SIM_PAGE_SHIFT, MADV_POPULATE_WRITE))
		return -errno;
	return 0;
}

static int populate_vma(struct sim_vma *v, void *arg)
{
	struct populate_ctx *p = arg;
	struct sim_mm *mm = p->mm;
	unsigned long s = v->vm_start > p->start ? v->vm_start : p->start;
	unsigned long e = v->vm_end < p->end ? v->vm_end : p->end;
	bool w = v->vm_flags & VM_WRITE;
	struct uffd_counters c = { 0 };

	if (!(v->vm_flags & VM_ACCESS_FLAGS))
		return 0;                /* PROT_NONE: nothing to populate */
	/* populate_vma_page_range() faults writable private memory in for
	 * writing, which prepares its anon_vma. */
	if (w && !(v->vm_flags & VM_SHARED))
		atomic_store_explicit(&v->anon_vma, true, memory_order_relaxed);
	while (s < e && !p->ret) {
		unsigned long n = (e - s) >> SIM_PAGE_SHIFT;

		if (n > POPULATE_CHUNK)
			n = POPULATE_CHUNK;
		/* Anonymous memory in chunks: one UFFDIO_COPY (write-protected
		 * where the VMA is read-only), or in synthetic mode fresh zero
		 * pages from the kernel (drop what a racing write may have
		 * left, then MADV_POPULATE_WRITE); file pages, and any chunk a
		 * fault got into first, page by page. */
		if (v->vm_file != SIM_FILE_NONE ||
		    (mm->uffd >= 0 ? uffd_resolve_copy(mm->uffd, s, zero_page,
					n << SIM_PAGE_SHIFT, false, !w, &c) :
		     populate_fresh(mm, s, n))) {
			for (unsigned long i = 0; i < n && !p->ret; i++)
				p->ret = populate_page(mm, v, s + (i << SIM_PAGE_SHIFT),
						       &c);
		}
		for (unsigned long i = 0; i < n; i++)
			sim_mm_set_present(mm, s + (i << SIM_PAGE_SHIFT), w ? 2 : 1);
		atomic_fetch_add_explicit(&mm->populated, n, memory_order_relaxed);
		s += n << SIM_PAGE_SHIFT;
	}
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

void sim_uffd_fault(void *arg, int fd, const struct uffd_msg *msg,
		    struct uffd_counters *c)
{
	struct sim_fault_src src = { fd, (pid_t)msg->arg.pagefault.feat.ptid, c };
	unsigned flags = 0;

	if (msg->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE)
		flags |= FAULT_FLAG_WRITE;
	if (msg->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP)
		flags |= FAULT_FLAG_WP | FAULT_FLAG_WRITE;
	sim_handle_fault(arg, msg->arg.pagefault.address, flags, &src);
}

static void touch_signal_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code == SI_QUEUE) {
		/* A refusal (from a handler or the watchdog) of the access to
		 * the page it names: leave that touch. A refusal of an access
		 * that is already over (the same access faulted twice) is
		 * dropped. */
		if (touch_jb && ((unsigned long)si->si_value.sival_ptr &
				 SIM_PAGE_MASK) == touch_page)
			siglongjmp(*touch_jb, 1);
		return;
	}
	/* A real bus error; die of it. */
	signal(sig, SIG_DFL);
	raise(sig);
}

int sim_fault_init_signals(void)
{
	static _Atomic int done;
	struct sigaction sa;

	if (atomic_load(&done))
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = touch_signal_handler;
	/* NODEFER: we leave the handler by siglongjmp from a jmp_buf saved
	 * without the signal mask, so the signal must not stay blocked. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(UFFD_REFUSE_SIGNAL, &sa, NULL) < 0)
		return -errno;
	atomic_store(&done, 1);
	return 0;
}

/* The access itself; a refusal (signal) is turned into -EFAULT. */
static int touch_access(unsigned long addr, bool write, unsigned char *val)
{
	sigjmp_buf jb;

	/* No mask save: sigsetjmp(jb, 0) costs no system call. */
	if (sigsetjmp(jb, 0)) {
		sigset_t set;

		touch_jb = NULL;
		/* We left the handler by longjmp: make sure the signal is not
		 * left blocked (SA_NODEFER is not honoured by every runtime,
		 * e.g. TSan's signal wrapper). Rare path: a syscall is fine. */
		sigemptyset(&set);
		sigaddset(&set, UFFD_REFUSE_SIGNAL);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		return -EFAULT;
	}
	touch_page = addr & SIM_PAGE_MASK;
	touch_jb = &jb;
	if (write)
		*(volatile unsigned char *)addr = *val;
	else
		*val = *(volatile unsigned char *)addr;
	touch_jb = NULL;
	return 0;
}

int sim_touch(struct sim_mm *mm, unsigned long addr, bool write,
	      unsigned char *val)
{
	if (addr < mm->base || addr >= mm->end)
		return -EFAULT;
	if (mm->uffd >= 0)
		return touch_access(addr, write, val);
	/*
	 * Synthetic: a page the present map does not have (or has only for
	 * reading, for a write) is a fault, handled here on the faulting
	 * thread. The check and the access are two steps, and a zap of this
	 * page between them would let the access see a page the mm no longer
	 * has: the access counts only if the page's byte (state and zap
	 * generation) is unchanged after it, so each touch is ordered wholly
	 * before or after each zap of its page, as a real access is ordered
	 * with the TLB flush. Zaps of other pages do not disturb it.
	 */
	_Atomic unsigned char *b = &mm->present[(addr - mm->base) >> SIM_PAGE_SHIFT];
	unsigned need = write ? 2 : 1;

	for (;;) {
		/* Acquire: pairs with the CASes of set_present and forget. */
		unsigned char seen = atomic_load_explicit(b, memory_order_acquire);
		int ret;

		if ((seen & SIM_PRESENT_STATE) < need) {
			if (sim_handle_fault(mm, addr, write ? FAULT_FLAG_WRITE : 0,
					     NULL))
				return -EFAULT;
			continue;        /* look at the placed page again */
		}
		ret = touch_access(addr, write, val);
		/* Full fence: the access (a load or a store) is done before
		 * the byte is read again (a store could otherwise pass it). */
		atomic_thread_fence(memory_order_seq_cst);
		if (atomic_load_explicit(b, memory_order_relaxed) == seen)
			return ret;
	}
}
