/* SPDX-License-Identifier: MIT */
#include "sim/fault.h"

#include "locks/rcu.h"

#include <errno.h>
#include <setjmp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#include <unistd.h>

static _Thread_local sigjmp_buf *touch_jb;
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

/* Place the page without waking the faulting thread: it is woken after
 * the lock is dropped (see sim_handle_fault()). */
static int resolve_uffd(const struct sim_vma *v, unsigned long addr,
			unsigned flags, int fd, struct uffd_counters *c)
{
	if (v->vm_file != SIM_FILE_NONE)
		return uffd_resolve_copy(fd, addr, file_page(v, addr),
					 SIM_PAGE_SIZE, true, c);
	if (flags & FAULT_FLAG_WRITE)
		return uffd_resolve_copy(fd, addr, zero_page, SIM_PAGE_SIZE,
					 true, c);
	return uffd_resolve_zeropage(fd, addr, SIM_PAGE_SIZE, true, c);
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
	 * held before (a write that raced an munmap) must not show. A page
	 * the real protection will not let us write is filled through
	 * /proc/self/mem, which writes past protections as a debugger does. */
	if (fresh) {
		const void *src = v->vm_file != SIM_FILE_NONE ?
				  file_page(v, addr) : zero_page;

		if (v->vm_flags & VM_WRITE)
			memcpy((void *)addr, src, SIM_PAGE_SIZE);
		else if (pwrite(mm->self_mem, src, SIM_PAGE_SIZE, (off_t)addr) !=
			 (ssize_t)SIM_PAGE_SIZE)
			madvise((void *)addr, SIM_PAGE_SIZE, MADV_DONTNEED);
	} else if (state == 2)
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

int sim_handle_fault(struct sim_mm *mm, unsigned long addr, unsigned flags,
		     int fd, struct uffd_counters *c)
{
	const struct lock_ops *ops = mm->lock->ops;
	struct lock_handle h = { 0 };
	struct sim_vma *v;
	int ret = 0;

	addr &= SIM_PAGE_MASK;
	set_phase("waiting for the fault-side lock");
	v = ops->fault_begin(mm->lock, addr, &h);
	set_phase("looking up the VMA and resolving (lock held)");
	/* After the scheme's lock (a reader never waits for a lock inside
	 * an RCU read-side section: writers wait for grace periods while
	 * holding theirs). Held to fault_end, so the VMA stays valid even if
	 * a writer of another range replaces tree nodes meanwhile. */
	sim_rcu_read_lock();
	if (!v)
		v = vma_tree_find(&mm->tree, addr);
	if (!v || v->vm_start > addr) {
		sim_mm_count_fault(mm, SIM_FAULT_NOVMA);
		ret = -EFAULT;
	} else if (!vma_allows(v, flags)) {
		sim_mm_count_fault(mm, SIM_FAULT_PROT);
		ret = -EFAULT;
	} else {
		sim_mm_count_fault(mm, fault_kind(v, flags));
		if (fd < 0) {
			resolve_synthetic(mm, v, addr, flags);
		} else {
			ret = resolve_uffd(v, addr, flags, fd, c);
			if (!ret)
				sim_mm_set_present(mm, addr,
					(flags & FAULT_FLAG_WRITE) ||
					v->vm_file != SIM_FILE_NONE ? 2 : 1);
		}
	}
	/* A refused access must still be answered, or the thread hangs. */
	if (ret == -EFAULT && fd >= 0) {
		/* Seen by the next mmap, which must clear the poison marker
		 * (it runs under the write side, after our fault_end). */
		atomic_store_explicit(&mm->poisoned, true, memory_order_relaxed);
		if (uffd_resolve_poison(fd, addr, SIM_PAGE_SIZE, c))
			uffd_wake(fd, addr, SIM_PAGE_SIZE);
	}
	sim_rcu_read_unlock();
	set_phase("releasing the fault-side lock");
	ops->fault_end(mm->lock, &h);
	set_phase("waking the faulting thread");
	/*
	 * Wake the faulting thread only now. A kernel fault holds mmap_lock
	 * (or the VMA lock) across the page-table update, not across waking
	 * anybody; letting UFFDIO_COPY wake the thread inside the lock would
	 * charge a cross-CPU wake-up to every fault's lock hold time.
	 */
	if (!ret && fd >= 0)
		uffd_wake(fd, addr, SIM_PAGE_SIZE);
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
			 unsigned long a, bool w, struct uffd_counters *c)
{
	if (mm->uffd < 0) {
		resolve_synthetic(mm, v, a, w ? FAULT_FLAG_WRITE : 0);
		return 0;
	}
	if (v->vm_file != SIM_FILE_NONE)
		return uffd_resolve_copy(mm->uffd, a, file_page(v, a),
					 SIM_PAGE_SIZE, false, c);
	return w ? uffd_resolve_copy(mm->uffd, a, zero_page, SIM_PAGE_SIZE, false, c)
		 : uffd_resolve_zeropage(mm->uffd, a, SIM_PAGE_SIZE, false, c);
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
	if (madvise((void *)s, n << SIM_PAGE_SHIFT, MADV_DONTNEED) ||
	    madvise((void *)s, n << SIM_PAGE_SHIFT, MADV_POPULATE_WRITE))
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
	while (s < e && !p->ret) {
		unsigned long n = (e - s) >> SIM_PAGE_SHIFT;

		if (n > POPULATE_CHUNK)
			n = POPULATE_CHUNK;
		/* Anonymous writable memory in chunks: one UFFDIO_COPY, or in
		 * synthetic mode fresh zero pages from the kernel (drop what a
		 * racing write may have left, then MADV_POPULATE_WRITE); the
		 * rest, and any chunk a fault got into first, page by page. */
		if (v->vm_file != SIM_FILE_NONE || !w ||
		    (mm->uffd >= 0 ? uffd_resolve_copy(mm->uffd, s, zero_page,
					n << SIM_PAGE_SHIFT, false, &c) :
		     populate_fresh(mm, s, n))) {
			for (unsigned long i = 0; i < n && !p->ret; i++)
				p->ret = populate_page(mm, v, s + (i << SIM_PAGE_SHIFT),
						       w, &c);
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
	unsigned flags = 0;

	if (msg->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE)
		flags |= FAULT_FLAG_WRITE;
	sim_handle_fault(arg, msg->arg.pagefault.address, flags, fd, c);
}

static void touch_signal_handler(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	/* SIGBUS: the handler poisoned the page (already counted there).
	 * SIGSEGV: the hardware refused the access (real protection). */
	if (touch_jb)
		siglongjmp(*touch_jb, sig == SIGSEGV ? 2 : 1);
	/* Not ours: die the way the default action would. */
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
	if (sigaction(SIGBUS, &sa, NULL) < 0 || sigaction(SIGSEGV, &sa, NULL) < 0)
		return -errno;
	atomic_store(&done, 1);
	return 0;
}


/* The access itself; a SIGBUS (poison) or SIGSEGV (protection) is
 * caught and turned into -EFAULT. */
static int touch_access(struct sim_mm *mm, unsigned long addr, bool write,
			unsigned char *val)
{
	sigjmp_buf jb;
	int sig;

	/* No mask save: sigsetjmp(jb, 0) costs no system call. */
	sig = sigsetjmp(jb, 0);
	if (sig) {
		sigset_t set;

		touch_jb = NULL;
		/* We left the handler by longjmp: make sure the signal is not
		 * left blocked (SA_NODEFER is not honoured by every runtime,
		 * e.g. TSan's signal wrapper). Rare path: a syscall is fine. */
		sigemptyset(&set);
		sigaddset(&set, SIGBUS);
		sigaddset(&set, SIGSEGV);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		if (sig == 2)
			sim_mm_count_fault(mm, SIM_FAULT_PROT);
		return -EFAULT;
	}
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
		return touch_access(mm, addr, write, val);
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
					     -1, NULL))
				return -EFAULT;
			continue;        /* look at the placed page again */
		}
		ret = touch_access(mm, addr, write, val);
		/* Full fence: the access (a load or a store) is done before
		 * the byte is read again (a store could otherwise pass it). */
		atomic_thread_fence(memory_order_seq_cst);
		if (atomic_load_explicit(b, memory_order_relaxed) == seen)
			return ret;
	}
}
