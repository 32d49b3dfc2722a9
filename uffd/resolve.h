/* SPDX-License-Identifier: MIT */
/*
 * resolve — answering a userfaultfd page fault: COPY (optionally mapping
 * the page write-protected), ZEROPAGE, WRITEPROTECT (lifting it), WAKE,
 * or a refusal. Each bumps the caller's per-handler counters. Return 0
 * or -errno.
 *
 * A fault must always be answered: if another handler resolved the same
 * page first, COPY/ZEROPAGE fail with EEXIST and do not wake our thread,
 * so the helpers answer that with WAKE (and count it as a wake). A
 * refused fault is answered by a signal to the faulting thread (its id
 * comes with UFFD_FEATURE_THREAD_ID): the kernel would send SIGSEGV;
 * vmsim's touch turns the signal into a counted simulated SIGSEGV and
 * leaves the page as it was (contents and all).
 */
#ifndef VMSIM_RESOLVE_H
#define VMSIM_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

/* Per-handler counters; cache-line aligned, owned by one handler thread. */
struct uffd_counters {
	uint64_t messages;       /* uffd_msg read */
	uint64_t reads;          /* read() calls that returned messages */
	uint64_t copies;         /* pages placed by UFFDIO_COPY */
	uint64_t zeropages;      /* pages placed by UFFDIO_ZEROPAGE */
	uint64_t unprotects;     /* WP faults resolved by UFFDIO_WRITEPROTECT */
	uint64_t wakes;          /* EEXIST answered by UFFDIO_WAKE */
	uint64_t refused;        /* faults answered with a signal (SIGSEGV) */
	uint64_t retries;        /* EAGAIN retried */
	uint64_t errors;         /* resolve failures other than the above */
	uint64_t read_errors;    /* reads of the uffd that failed (not EINTR,
				  * EAGAIN): its faults wait for a retry */
	uint64_t other_events;   /* non-pagefault messages */
} __attribute__((aligned(64)));

void uffd_counters_add(struct uffd_counters *a, const struct uffd_counters *b);

/* The signal a refused fault is answered with (see sim_touch()): SIGBUS,
 * what a poisoned page (UFFDIO_POISON) would give — but sent to the one
 * thread, leaving no marker in the page tables, and able to answer a WP
 * fault too. Sanitizer runtimes deliver it at once (it is a synchronous
 * signal to them), which an ordinary signal sent to a thread blocked in a
 * page fault would not be. */
#define UFFD_REFUSE_SIGNAL SIGBUS

/* With dontwake, the faulting thread is not woken: the caller wakes it
 * with uffd_wake() (e.g. after dropping a lock). An EEXIST race is still
 * answered with a wake at once. With wp the page is mapped
 * write-protected (a write to it is a WP fault). */
int uffd_resolve_copy(int fd, unsigned long dst, const void *src,
		      size_t len, bool dontwake, bool wp,
		      struct uffd_counters *c);
/* UFFDIO_COPY of [dst, dst + len) that never wakes (the caller does),
 * EAGAIN retried: 0 when every page was placed, -EEXIST when one was
 * there already (*done: the bytes placed before it; the rest are not),
 * or -errno. */
int uffd_copy(int fd, unsigned long dst, const void *src, size_t len,
	      bool wp, size_t *done, struct uffd_counters *c);
int uffd_resolve_zeropage(int fd, unsigned long dst, size_t len,
			  bool dontwake, struct uffd_counters *c);
/* Write-protect [start, start+len) (wp) or lift it (a WP fault's answer
 * when the page may be written after all). */
int uffd_writeprotect(int fd, unsigned long start, size_t len, bool wp,
		      bool dontwake);
/* Refuse the fault of thread tid (of this process) at page addr: queue
 * UFFD_REFUSE_SIGNAL to it with si_code SI_QUEUE and the page address as
 * its value. One access can fault twice (missing, then write-protected
 * after another thread's read mapped the page) and be refused twice: the
 * receiver ignores a refusal whose access is already over. */
int uffd_refuse(pid_t tid, unsigned long addr, struct uffd_counters *c);
int uffd_wake(int fd, unsigned long start, size_t len);

#endif
