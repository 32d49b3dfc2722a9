/* SPDX-License-Identifier: MIT */
#include "uffd/resolve.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uffd/uffd.h"

void uffd_counters_add(struct uffd_counters *a, const struct uffd_counters *b)
{
	a->messages += b->messages;
	a->reads += b->reads;
	a->copies += b->copies;
	a->zeropages += b->zeropages;
	a->unprotects += b->unprotects;
	a->wakes += b->wakes;
	a->refused += b->refused;
	a->retries += b->retries;
	a->errors += b->errors;
	a->read_errors += b->read_errors;
	a->other_events += b->other_events;
}

int uffd_wake(int fd, unsigned long start, size_t len)
{
	struct uffdio_range r = { .start = start, .len = len };

	return ioctl(fd, UFFDIO_WAKE, &r) < 0 ? -errno : 0;
}

/* The page is already there: our thread still sleeps, wake it. */
static int resolve_exists(int fd, unsigned long dst, size_t len,
			  struct uffd_counters *c)
{
	int ret = uffd_wake(fd, dst, len);

	if (ret)
		c->errors++;
	else
		c->wakes++;
	return ret;
}

/*
 * After a resolving ioctl failed: 1 to try again (EAGAIN: the mm changed
 * under us), or the final result — EEXIST means another handler placed
 * the page first, so our thread only needs waking.
 */
static int resolve_failed(int fd, unsigned long dst, size_t len,
			  struct uffd_counters *c)
{
	if (errno == EEXIST)
		return resolve_exists(fd, dst, len, c);
	if (errno != EAGAIN) {
		c->errors++;
		return -errno;
	}
	c->retries++;
	return 1;
}

int uffd_resolve_copy(int fd, unsigned long dst, const void *src,
		      size_t len, bool dontwake, bool wp,
		      struct uffd_counters *c)
{
	struct uffdio_copy cp = {
		.dst = dst, .src = (uintptr_t)src, .len = len,
		.mode = (dontwake ? UFFDIO_COPY_MODE_DONTWAKE : 0) |
			(wp ? UFFDIO_COPY_MODE_WP : 0),
	};

	while (ioctl(fd, UFFDIO_COPY, &cp) < 0) {
		int ret = resolve_failed(fd, dst, len, c);

		if (ret <= 0)
			return ret;
		/* A partial copy: redo the rest. */
		if (cp.copy > 0) {
			cp.dst += cp.copy;
			cp.src += cp.copy;
			cp.len -= cp.copy;
		}
		cp.copy = 0;
	}
	c->copies += len / 4096;
	return 0;
}

int uffd_copy(int fd, unsigned long dst, const void *src, size_t len,
	      bool wp, size_t *done, struct uffd_counters *c)
{
	struct uffdio_copy cp = {
		.dst = dst, .src = (uintptr_t)src, .len = len,
		.mode = UFFDIO_COPY_MODE_DONTWAKE | (wp ? UFFDIO_COPY_MODE_WP : 0),
	};
	int ret = 0;

	*done = 0;
	while (ioctl(fd, UFFDIO_COPY, &cp) < 0) {
		if (cp.copy > 0) {               /* placed up to the failure */
			*done += (size_t)cp.copy;
			cp.dst += (size_t)cp.copy;
			cp.src += (size_t)cp.copy;
			cp.len -= (size_t)cp.copy;
		}
		cp.copy = 0;
		if (errno == EAGAIN) {
			c->retries++;
			continue;
		}
		ret = -errno;
		if (ret == -EEXIST)
			c->wakes++;              /* uffd_wake() follows */
		else
			c->errors++;
		break;
	}
	if (!ret)
		*done = len;
	c->copies += *done / 4096;
	return ret;
}

int uffd_resolve_zeropage(int fd, unsigned long dst, size_t len,
			  bool dontwake, struct uffd_counters *c)
{
	struct uffdio_zeropage zp = {
		.range = { .start = dst, .len = len },
		.mode = dontwake ? UFFDIO_ZEROPAGE_MODE_DONTWAKE : 0,
	};

	while (ioctl(fd, UFFDIO_ZEROPAGE, &zp) < 0) {
		int ret = resolve_failed(fd, dst, len, c);

		if (ret <= 0)
			return ret;
		zp.zeropage = 0;
	}
	c->zeropages += len / 4096;
	return 0;
}

int uffd_writeprotect(int fd, unsigned long start, size_t len, bool wp,
		      bool dontwake)
{
	struct uffdio_writeprotect w = {
		.range = { .start = start, .len = len },
		.mode = (wp ? UFFDIO_WRITEPROTECT_MODE_WP : 0) |
			(dontwake ? UFFDIO_WRITEPROTECT_MODE_DONTWAKE : 0),
	};

	while (ioctl(fd, UFFDIO_WRITEPROTECT, &w) < 0)
		if (errno != EAGAIN)
			return -errno;
	return 0;
}

int uffd_refuse(pid_t tid, unsigned long addr, struct uffd_counters *c)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = UFFD_REFUSE_SIGNAL;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_ptr = (void *)addr;
	if (syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, UFFD_REFUSE_SIGNAL,
		    &si) < 0) {
		c->errors++;
		return -errno;
	}
	c->refused++;
	return 0;
}
