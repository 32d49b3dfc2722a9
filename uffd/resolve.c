/* SPDX-License-Identifier: MIT */
#include "uffd/resolve.h"

#include <errno.h>
#include <sys/ioctl.h>

#include "uffd/uffd.h"

void uffd_counters_add(struct uffd_counters *a, const struct uffd_counters *b)
{
	a->messages += b->messages;
	a->reads += b->reads;
	a->copies += b->copies;
	a->zeropages += b->zeropages;
	a->wakes += b->wakes;
	a->poisons += b->poisons;
	a->retries += b->retries;
	a->errors += b->errors;
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
		      size_t len, bool dontwake, struct uffd_counters *c)
{
	struct uffdio_copy cp = {
		.dst = dst, .src = (uintptr_t)src, .len = len,
		.mode = dontwake ? UFFDIO_COPY_MODE_DONTWAKE : 0,
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

int uffd_resolve_poison(int fd, unsigned long dst, size_t len,
			struct uffd_counters *c)
{
	struct uffdio_poison p = {
		.range = { .start = dst, .len = len }, .mode = 0,
	};

	while (ioctl(fd, UFFDIO_POISON, &p) < 0) {
		int ret = resolve_failed(fd, dst, len, c);

		if (ret <= 0)
			return ret;
		p.updated = 0;
	}
	c->poisons++;
	return 0;
}
