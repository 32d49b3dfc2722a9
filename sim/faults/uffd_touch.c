/* SPDX-License-Identifier: MIT */
#include "sim/faults/uffd_touch.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "sim/vma.h"
#include "uffd/resolve.h"

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

int uffd_touch(struct fault_source *s, unsigned long addr, bool write,
		    unsigned char *val)
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

