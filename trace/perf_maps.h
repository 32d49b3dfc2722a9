/* SPDX-License-Identifier: MIT */
/*
 * perf_maps — what each recorded process other than the traced one has
 * mapped, kept from its calls as perf recorded them (from its exec, or
 * from its parent's at its fork), so that a process that forks without
 * exec can be traced: its trace begins with the mappings it inherited.
 * The mappings a process had before the recording (the program's image,
 * its stack) are unknown here, as for the traced one.
 */
#ifndef VMSIM_PERF_MAPS_H
#define VMSIM_PERF_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

/* A mapping a trace begins with (as a private anonymous fixed mmap). */
struct perf_premap {
	uint64_t start, len;
	uint32_t prot;                   /* PROT_* */
};

struct perf_vma {
	uint64_t start, end;             /* [start, end), page-aligned */
	uint32_t prot;
};

struct perf_proc {
	long pid;
	struct perf_vma *v;              /* sorted, disjoint */
	size_t n, cap;
	uint64_t brk_lo, brk_hi;         /* the heap, [lo, hi); 0: none seen */
};

/* A call entered and not yet exited, by thread. */
struct perf_maps_pend {
	uint32_t tid;                    /* 0: free */
	struct trace_ev ev;
};

#define PERF_MAPS_PEND 4096              /* threads told apart at once */

struct perf_maps {
	struct perf_proc *p;
	size_t n, cap;
	struct perf_maps_pend *pend;     /* PERF_MAPS_PEND, open addressing */
	uint64_t lost;                   /* what did not fit in memory */
};

void perf_maps_fini(struct perf_maps *m);
/* Process child was made by parent (a fork, not a thread): it starts
 * with a copy of parent's mappings. */
void perf_maps_fork(struct perf_maps *m, long parent, long child);
/* Process pid exec'd: a new, empty address space. */
void perf_maps_exec(struct perf_maps *m, long pid);
/* Thread tid's call entry (ev as parsed: kind, addr, len, args), kept
 * until its exit; its exit with the result, applied to process pid. */
void perf_maps_enter(struct perf_maps *m, uint32_t tid,
		     const struct trace_ev *ev);
void perf_maps_exit(struct perf_maps *m, long pid, uint32_t tid,
		    enum trace_kind kind, int64_t ret);
/* Process pid's mappings, the heap among them, as premaps (malloc'd
 * into *out, *n of them; the heap's bounds in brk[0..1]). 0, or -1 when
 * out of memory. A process never seen has none. */
int perf_maps_get(const struct perf_maps *m, long pid,
		  struct perf_premap **out, size_t *n, uint64_t brk[2]);

#endif
