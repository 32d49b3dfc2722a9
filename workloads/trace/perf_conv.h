/* SPDX-License-Identifier: MIT */
/*
 * perf_conv — turns `perf script -F pid,tid,time,event,trace --ns
 * --show-lost-events` output of the syscalls:sys_{enter,exit}_{mmap,
 * munmap,mprotect,mremap,madvise,brk} and exceptions:page_fault_user
 * tracepoints into trace events: a syscall's enter and exit are paired
 * per thread into one event with its result; a fault's x86 error code
 * becomes TRACE_FAULT_* flags. A trace is one address space, so only
 * the first process seen is kept (the recorded command; its children are
 * counted and left out). When that process execs, its address space is
 * a new one: the trace so far is dropped (restart) and begins again.
 */
#ifndef VMSIM_PERF_CONV_H
#define VMSIM_PERF_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "workloads/trace/trace.h"

/* The tracepoints vmsim record asks perf for (NULL-terminated), and
 * those it adds where the kernel has them: the host's mmap_lock. */
extern const char *const perf_conv_events[];
extern const char *const perf_conv_lock_events[];

/* The host's mmap_lock as the recorded process took it (mmap_lock:*
 * tracepoints): per side, acquisitions, the time from asking to having
 * it, and the time held. */
struct perf_lockside {
	uint64_t acquired, failed;       /* failed: a trylock that failed */
	uint64_t wait_ns, wait_max, hold_ns, hold_max;
};

#define PERF_LOCK_SLOTS 8192             /* threads tracked, by tid hash */

struct perf_conv {
	struct trace_writer *w;
	long pid;                        /* the traced process; -1: not yet */
	uint64_t t0;                     /* the first event's time (ns) */
	bool started;
	/* A syscall entered and not yet exited, per thread index. */
	struct trace_ev pend[TRACE_MAX_THREADS];
	bool open[TRACE_MAX_THREADS];
	uint64_t other_pid;              /* events of other processes */
	uint64_t unpaired;               /* an exit without its entry, etc. */
	uint64_t lost;                   /* events perf lost */
	uint64_t bad_lines;              /* lines that were none of ours */
	uint64_t too_many_threads;
	/* The process exec'd: start the trace again (0, or -errno), with
	 * the new program's name. */
	int (*restart)(void *arg, const char *exe);
	void *restart_arg;
	uint64_t dropped;                /* events before the last exec */
	char exe[1024];                  /* what it exec'd last ("": none) */
	int err;                         /* a failed restart */
	bool cut;                        /* conversion stopped by a signal, */
	int cut_by;                      /* this one */
	struct perf_lockside lock[2];    /* read, write */
	struct {
		uint32_t tid;            /* 0: free */
		uint8_t state, write;    /* 0 none, 1 asking, 2 holding */
		uint64_t t;              /* when it asked, or got it */
	} held[PERF_LOCK_SLOTS];
};

void perf_conv_init(struct perf_conv *c, struct trace_writer *w);
/* One line of perf script's output (without its newline). */
void perf_conv_line(struct perf_conv *c, const char *line);

#endif
