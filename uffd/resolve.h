/* SPDX-License-Identifier: MIT */
/*
 * resolve — answering a userfaultfd page fault: COPY, ZEROPAGE, POISON,
 * WAKE. Each bumps the caller's per-handler counters. Return 0 or -errno.
 *
 * A fault must always be answered: if another handler resolved the same
 * page first, COPY/ZEROPAGE fail with EEXIST and do not wake our thread,
 * so the helpers answer that with WAKE (and count it as a wake).
 */
#ifndef VMSIM_RESOLVE_H
#define VMSIM_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Per-handler counters; cache-line aligned, owned by one handler thread. */
struct uffd_counters {
	uint64_t messages;       /* uffd_msg read */
	uint64_t reads;          /* read() calls that returned messages */
	uint64_t copies;         /* pages placed by UFFDIO_COPY */
	uint64_t zeropages;      /* pages placed by UFFDIO_ZEROPAGE */
	uint64_t wakes;          /* EEXIST answered by UFFDIO_WAKE */
	uint64_t poisons;        /* faults answered with UFFDIO_POISON */
	uint64_t retries;        /* EAGAIN retried */
	uint64_t errors;         /* resolve failures other than the above */
	uint64_t other_events;   /* non-pagefault messages */
} __attribute__((aligned(64)));

void uffd_counters_add(struct uffd_counters *a, const struct uffd_counters *b);

/* With dontwake, the faulting thread is not woken: the caller wakes it
 * with uffd_wake() (e.g. after dropping a lock). An EEXIST race is still
 * answered with a wake at once. */
int uffd_resolve_copy(int fd, unsigned long dst, const void *src,
		      size_t len, bool dontwake, struct uffd_counters *c);
int uffd_resolve_zeropage(int fd, unsigned long dst, size_t len,
			  bool dontwake, struct uffd_counters *c);
int uffd_resolve_poison(int fd, unsigned long dst, size_t len,
			struct uffd_counters *c);
int uffd_wake(int fd, unsigned long start, size_t len);

#endif
