/* SPDX-License-Identifier: MIT */
#include "sim/faults/uffd_touch.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/faults/uffd_source_int.h"
#include "sim/vma.h"
#include "uffd/resolve.h"

/* --- kernel-mode marks ---------------------------------------------------- */

int uffd_touch_kmarks_init(struct uffd_kmark_table **t)
{
	void *p = mmap(NULL, sizeof(**t), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	*t = p;
	return 0;
}

void uffd_touch_kmarks_destroy(struct uffd_kmark_table *t)
{
	if (t)
		munmap(t, sizeof(*t));
}

/* A free mark, claimed for tid; NULL when all are held (the touch then
 * goes as a user one, counted in full). */
static struct uffd_kmark *kmark_claim(struct uffd_kmark_table *t, pid_t tid,
				      unsigned long page)
{
	for (int i = 0; i < UFFD_KMARKS; i++) {
		int32_t v = atomic_load_explicit(&t->m[i].tid,
						 memory_order_relaxed);
		int hi;

		if (v || !atomic_compare_exchange_strong(&t->m[i].tid, &v, tid))
			continue;
		atomic_store_explicit(&t->m[i].page, page, memory_order_relaxed);
		hi = atomic_load(&t->hiwater);
		while (hi <= i && !atomic_compare_exchange_weak(&t->hiwater,
								&hi, i + 1))
			;
		/* Seq-cst, after the mark: a handler that sees active sees
		 * the mark (the access, and so its fault, comes later). */
		atomic_fetch_add(&t->active, 1);
		atomic_fetch_add_explicit(&t->marked, 1, memory_order_relaxed);
		return &t->m[i];
	}
	atomic_fetch_add_explicit(&t->full, 1, memory_order_relaxed);
	return NULL;
}

static void kmark_release(struct uffd_kmark_table *t, struct uffd_kmark *m)
{
	if (!m)
		return;
	atomic_fetch_sub(&t->active, 1);
	atomic_store_explicit(&m->page, 0, memory_order_relaxed);
	atomic_store_explicit(&m->tid, 0, memory_order_release);
}

bool uffd_touch_kmarks_kernel(struct uffd_kmark_table *t, pid_t tid,
			unsigned long page)
{
	int hi;

	if (!t || !atomic_load(&t->active))
		return false;
	hi = atomic_load(&t->hiwater);
	for (int i = 0; i < hi; i++) {
		if (atomic_load_explicit(&t->m[i].tid, memory_order_acquire) != tid)
			continue;
		if (atomic_load_explicit(&t->m[i].page, memory_order_relaxed) != page)
			return false;
		atomic_fetch_add_explicit(&t->found, 1, memory_order_relaxed);
		return true;
	}
	return false;
}

/* --- the touching thread: a real access, a refusal by signal ------------- */

static _Thread_local sigjmp_buf *touch_jb;
static _Thread_local unsigned long touch_page;   /* the touch's page */

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

/* The refusal signal's handler is the process's; installed once, by the
 * first uffd source. */
int uffd_touch_init_signals(void)
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

int uffd_touch(struct fault_source *s, unsigned long addr, unsigned flags,
	       unsigned char *val)
{
	struct uffd_kmark_table *t = us(s)->kmarks;
	/* volatile: read after a siglongjmp back into this frame. */
	struct uffd_kmark *volatile mark = NULL;
	bool write = flags & FAULT_FLAG_WRITE;
	sigjmp_buf jb;

	if (flags & FAULT_FLAG_KERNEL)
		mark = kmark_claim(t, gettid(), addr & SIM_PAGE_MASK);
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
		kmark_release(t, mark);
		return -EFAULT;
	}
	touch_page = addr & SIM_PAGE_MASK;
	touch_jb = &jb;
	if (write)
		*(volatile unsigned char *)addr = *val;
	else
		*val = *(volatile unsigned char *)addr;
	touch_jb = NULL;
	kmark_release(t, mark);
	return 0;
}

