/* SPDX-License-Identifier: MIT */
/*
 * fault_source — where an mm's page faults come from and how a page gets
 * placed: the one interface the two sources (sim/faults/uffd_source.c:
 * real faults delivered by userfaultfd to a pool of handler threads;
 * sim/faults/synthetic.c: a present-map check on the touching thread)
 * implement. It names no type of either: what only one source has — its
 * options, its threads, its statistics — goes through opaque options, a
 * generic worker snapshot and name/value counters.
 *
 * The mm decides (the VMA, the access check, the lock); the source acts
 * on the real memory. Every call that changes pages is made under the
 * lock the mm operation holds. A source owns what only it needs: the
 * userfaultfd and its handler threads, the refusal signal's handler, the
 * map of which pages are present.
 */
#ifndef VMSIM_FAULT_SOURCE_H
#define VMSIM_FAULT_SOURCE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct sim_mm;
struct sim_vma;

#define FAULT_FLAG_WRITE 0x1
#define FAULT_FLAG_WP    0x2             /* a write to a write-protected page */
/* A kernel-mode access (copy_to_user into a page read(2) fills): the
 * kernel's fault without FAULT_FLAG_USER, which x86 sends straight to
 * the mm lock (do_user_addr_fault: "goto lock_mmap"). */
#define FAULT_FLAG_KERNEL 0x4

/* What one of a source's threads (a uffd handler) is doing, for the
 * watchdog's diagnostic: a snapshot. */
struct fault_worker {
	unsigned long addr;              /* the fault in hand, 0: none */
	uint64_t since_ns;               /* since when (CLOCK_MONOTONIC_COARSE) */
	const char *phase;               /* its step in the fault path, or NULL */
	int read_errno;                  /* its reads of faults fail so; 0 */
};

/* A source's name/value counters: at most this many. */
#define FAULT_SOURCE_MAX_COUNTERS 16

struct fault_source {
	const struct fault_source_ops *ops;
	struct sim_mm *mm;
};

struct fault_source_ops {
	const char *name;                /* "uffd", "synthetic" */
	/* Returns 0 and *out, or -errno. The arena is mapped; *out is the
	 * mm's own pointer, set before any fault can arrive. opts: the
	 * source's own options (NULL: its defaults). */
	int (*create)(struct sim_mm *mm, const void *opts,
		      struct fault_source **out);
	/* Stop delivering faults (handlers joined); idempotent. */
	void (*stop)(struct fault_source *s);
	void (*destroy)(struct fault_source *s);

	/* A task's access to addr (a real one in uffd mode); flags:
	 * FAULT_FLAG_WRITE, FAULT_FLAG_KERNEL (the fault it takes, if any,
	 * reaches sim_handle_fault with it). 0 or -EFAULT when the mm
	 * refused it. */
	int (*touch)(struct fault_source *s, unsigned long addr, unsigned flags,
		     unsigned char *val);
	/* The fault path, lock held. ctx is what the source passed to
	 * sim_handle_fault(). resolve places the page at addr, and the
	 * absent pages of [start, end) around it (a large folio, or
	 * fault-around's window; start == addr, end == addr + a page for
	 * one page), and returns the pages it placed or -errno (-ENOENT:
	 * none placed, but the thread may fault again, so it is woken; any
	 * other: the access is refused, as the kernel's VM_FAULT_SIGBUS —
	 * sim_handle_fault() answers both); the page at
	 * a it places gets frame + (a - start) / page (sim_mm_map_frame;
	 * frame FRAME_NIL: no frames); refuse
	 * answers a refused access; wake, called after the lock is dropped,
	 * lets the faulting thread go. refuse and wake return 0 or -errno
	 * (the mm counts a failure: the thread is then the watchdog's). */
	int (*resolve)(struct fault_source *s, const struct sim_vma *v,
		       unsigned long addr, unsigned long start,
		       unsigned long end, uint32_t frame, unsigned flags,
		       void *ctx);
	/* No page of [start, end) is present (for a folio's choice). */
	bool (*absent)(struct fault_source *s, unsigned long start,
		       unsigned long end);
	int (*refuse)(struct fault_source *s, unsigned long addr, void *ctx);
	int (*wake)(struct fault_source *s, unsigned long addr, void *ctx);

	/* MAP_POPULATE / MADV_POPULATE_WRITE of [start, end) in v. */
	int (*populate)(struct fault_source *s, const struct sim_vma *v,
			unsigned long start, unsigned long end);
	/* Throw the pages of [start, end) away (0 or -errno: the host
	 * refused, and they may still be there); forget: they are gone
	 * already (one process_madvise for many ranges), update the state. */
	int (*zap)(struct fault_source *s, unsigned long start, unsigned long end);
	void (*forget)(struct fault_source *s, unsigned long start,
		       unsigned long end);
	/* Make [start, end) obey vm_flags' access bits (write side held).
	 * 0 or -errno (the protection is then not enforced). */
	int (*protect)(struct fault_source *s, unsigned long start,
		       unsigned long end, unsigned long vm_flags);
	/* Pages placed and not zapped. */
	uint64_t (*resident)(const struct fault_source *s);
	/* smaps' walk of [start, end) (present_walk): pages present, and
	 * writable, into *rss and *wr. Optional (NULL: none counted). */
	void (*walk)(struct fault_source *s, unsigned long start,
		     unsigned long end, uint64_t *rss, uint64_t *wr);

	/* The source's own threads (uffd handlers; none for synthetic):
	 * how many, a snapshot of thread i, their CPU time so far. Optional
	 * (NULL: none). */
	int (*nworkers)(const struct fault_source *s);
	void (*worker)(const struct fault_source *s, int i,
		       struct fault_worker *out);
	uint64_t (*worker_cpu_ns)(const struct fault_source *s);
	/* Its statistics as name/value pairs (names: string constants, the
	 * keys of the result's section named after the source), exact once
	 * stopped; returns how many (at most FAULT_SOURCE_MAX_COUNTERS).
	 * Optional (NULL: none). */
	int (*counters)(const struct fault_source *s, const char **names,
			uint64_t *values);
	/* Set-up only (optional): the faults of [start, end), where no page
	 * is present yet, are task's — with one uffd per task, they reach
	 * its uffd and handler. 0 or -errno. */
	int (*claim)(struct fault_source *s, unsigned long start,
		     unsigned long end, int task);
	/* The watchdog: answer task tid's fault at addr that nobody answers
	 * (refuse it), so the task can leave it. -ENOTSUP where the task
	 * is itself in the fault path (synthetic). */
	int (*abandon)(struct fault_source *s, pid_t tid, unsigned long addr);
};

#endif
