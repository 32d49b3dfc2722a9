/* SPDX-License-Identifier: MIT */
/*
 * The kernel fault source: the host kernel's own page faults, for an mm
 * whose scheme is the host kernel (lock_ops.host; sim/backend.h). A touch
 * is a real access to a real mapping; the host's fault handler places
 * the page (under its per-VMA lock or mmap_lock), and an access it
 * refuses is a real SIGSEGV, which this source's handler turns into
 * -EFAULT for the touching thread (siglongjmp out of the access), as the
 * uffd source does with its refusal signal. A kernel-mode touch
 * (FAULT_FLAG_KERNEL, a write) is read(2) of /dev/zero into the byte:
 * the kernel's copy_to_user, which takes its fault without
 * FAULT_FLAG_USER, as the recorded program's read(2) did.
 *
 * The model's fault path is never called: the source resolves nothing,
 * places nothing and keeps no present map.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/faults/sources.h"
#include "sim/mm.h"

struct kernel_source {
	struct fault_source base;
	int zero_fd;                     /* /dev/zero, for kernel-mode writes */
};

static _Thread_local sigjmp_buf *native_jb;

static void segv_handler(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (native_jb)
		siglongjmp(*native_jb, 1);
	/* Not a touch's: vmsim's own bug; die of it. */
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The handler is the process's; installed once, by the first source. */
static int init_signal(void)
{
	static _Atomic int done;
	struct sigaction sa;

	if (atomic_load(&done))
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = segv_handler;
	/* NODEFER: we leave by siglongjmp from a jmp_buf saved without the
	 * signal mask. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) < 0)
		return -errno;
	atomic_store(&done, 1);
	return 0;
}

static int kernel_create(struct sim_mm *mm, const void *opts,
			 struct fault_source **out)
{
	struct kernel_source *s;
	int ret = init_signal();

	(void)opts;
	if (ret)
		return ret;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->base = (struct fault_source){ &kernel_fault_source, mm };
	s->zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (s->zero_fd < 0) {
		ret = -errno;
		free(s);
		return ret;
	}
	*out = &s->base;
	return 0;
}

static void kernel_stop(struct fault_source *s)
{
	(void)s;
}

static void kernel_destroy(struct fault_source *s)
{
	close(((struct kernel_source *)s)->zero_fd);
	free(s);
}

static int kernel_touch(struct fault_source *s, unsigned long addr,
			unsigned flags, unsigned char *val)
{
	sigjmp_buf jb;

	if ((flags & (FAULT_FLAG_KERNEL | FAULT_FLAG_WRITE)) ==
	    (FAULT_FLAG_KERNEL | FAULT_FLAG_WRITE))
		return read(((struct kernel_source *)s)->zero_fd, (void *)addr,
			    1) == 1 ? 0 : -EFAULT;
	if (sigsetjmp(jb, 0)) {
		sigset_t set;

		native_jb = NULL;
		/* SA_NODEFER is not honoured by every runtime (TSan's
		 * wrapper): make sure SIGSEGV is not left blocked. */
		sigemptyset(&set);
		sigaddset(&set, SIGSEGV);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		return -EFAULT;
	}
	native_jb = &jb;
	if (flags & FAULT_FLAG_WRITE)
		*(volatile unsigned char *)addr = *val;
	else
		*val = *(volatile unsigned char *)addr;
	native_jb = NULL;
	return 0;
}

static uint64_t kernel_resident(const struct fault_source *s)
{
	(void)s;
	return 0;                        /* the host's: not tracked */
}

/* A touch cannot be left stuck: the host answers every fault. */
static int kernel_abandon(struct fault_source *s, pid_t tid, unsigned long addr)
{
	(void)s;
	(void)tid;
	(void)addr;
	return -ENOTSUP;
}

const struct fault_source_ops kernel_fault_source = {
	.name = "kernel",
	.create = kernel_create,
	.stop = kernel_stop,
	.destroy = kernel_destroy,
	.touch = kernel_touch,
	.resident = kernel_resident,
	.abandon = kernel_abandon,
};
