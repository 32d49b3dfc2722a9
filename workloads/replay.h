/* SPDX-License-Identifier: MIT */
/*
 * replay — a recorded trace (trace/trace.h) as a plan the replay workload
 * runs: one task per recorded thread, each with its operations in order,
 * their addresses moved into the arena, and what each must wait for.
 *
 * Layout. Every range the trace ever maps (mmap and mremap results, the
 * heap from the first break to the highest) is gathered; ranges closer
 * than RP_GAP are one cluster, laid out in the arena as recorded (so
 * relative layout and 2 MiB alignment within a cluster are kept), and
 * clusters follow one another with RP_GUARD between them (the huge gaps
 * of a real address space — heap to mmap area, for one — collapse).
 *
 * Order. Each layout operation (mmap, munmap, mprotect, mremap, madvise,
 * brk) has a rank: its place among them in the recording. It waits for
 * the operations before it that touched a page of its range (and a brk
 * for the brk before it); a fault waits for the last one that touched
 * its page. Every wait is for something earlier in the recording, so the
 * replay cannot deadlock, and threads run concurrently wherever the
 * recording shows they did not depend on one another.
 */
#ifndef VMSIM_REPLAY_H
#define VMSIM_REPLAY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"
#include <stdio.h>

#define RP_GAP   (256UL << 20)            /* kept as recorded below this */
#define RP_GUARD (2UL << 20)              /* between clusters */
#define RP_NONE  UINT32_MAX               /* no dependency */
/* A replay log's first words (--force replaces only a file that has them). */
#define RP_LOG_HEADER "# seq thread kind recorded_address value"

/* Why an event is not replayed. */
enum rp_skip {
	RP_DO,
	RP_SKIP_FAILED,                  /* the call failed when recorded */
	RP_SKIP_NEVER_MAPPED,            /* outside every range the trace maps */
	RP_SKIP_ADVICE,                  /* advice vmsim has no model of */
	RP_SKIP_SPLIT,                   /* spans two clusters */
	RP_NSKIP
};

/* A thread's progress a call waits for: past its op idx. */
struct rp_tdep {
	uint32_t thread, idx;
};

struct rp_op {
	uint64_t t_ns;                   /* recorded time */
	unsigned long off, len;          /* arena offset (and length) */
	unsigned long off2, len2;        /* mremap: the new place, length */
	unsigned long rec;               /* the recorded address */
	unsigned long pgoff;             /* mmap: file offset in pages */
	uint32_t seq;                    /* place in the recording */
	uint32_t rank;                   /* layout ops: place among them;
					  * faults: the rank they wait for */
	uint32_t dep0, ndeps;            /* calls: ranks, in plan->deps */
	uint32_t tdep0, ntdeps;          /* calls: in plan->tdeps */
	uint8_t kind;                    /* enum trace_kind */
	uint8_t skip;                    /* enum rp_skip */
	uint8_t write;                   /* fault: a write */
	uint8_t kernel;                  /* fault: a kernel-mode one */
	uint8_t fixed;                   /* mmap: MAP_FIXED was asked */
	uint8_t waited;                  /* a call of another thread waits
					  * for this one: publish progress */
	int prot, flags, file, advice;
};

struct rp_thread {
	struct rp_op *ops;
	size_t n, cap;
};

struct rp_cluster {
	unsigned long start, end;        /* recorded, 2 MiB aligned */
	unsigned long off;               /* where start goes in the arena */
};

struct rp_plan {
	char path[512];
	char comment[TRACE_MAX_COMMENT + 1];    /* the recorded command */
	int nthreads;
	struct rp_thread *th;
	uint32_t nlayout;                /* ranked layout operations */
	uint32_t *deps;                  /* ranks waited for */
	size_t ndeps, capdeps;
	struct rp_tdep *tdeps;           /* other threads' faults waited for */
	size_t ntdeps, captdeps;
	struct rp_cluster *cl;
	int ncl;
	unsigned long arena_need;        /* bytes of arena the layout needs */
	bool have_brk;
	unsigned long brk_off;           /* the first break, in the arena */
	/* What the recording holds and what of it is replayed. */
	uint64_t events, faults, calls, skipped[RP_NSKIP];
	uint64_t span_ns;                /* the last event's recorded time */
	double speed;                    /* 0: as fast as possible */
	/* Calls the simulation refused where the recording succeeded. */
	_Atomic uint64_t diverged;
	/* --replay-log: the check mode. Events run one at a time in the
	 * recorded order, and the log has a line per event replayed: after
	 * a call the VMAs of its cluster, after a fault whether it faulted.
	 * The command line owns the file (its safe-write layer: opened
	 * before the run, published after it) and gives the check mode
	 * log_emit, which writes the whole log through fn into log_out and
	 * returns 0, a positive number (written elsewhere: said later) or
	 * -errno; log_err: the last write's failure. NULL: no log. */
	int (*log_emit)(void *log_out, int (*fn)(FILE *f, void *arg), void *arg);
	void *log_out;
	int log_err;
};

/* Read path into a plan. 0, or -1 with one line in err (a bad trace). */
int rp_plan_load(const char *path, struct rp_plan **out, char *err,
		 size_t len);
void rp_plan_free(struct rp_plan *p);
/* The cluster holding the recorded address a, or NULL. */
const struct rp_cluster *rp_cluster_of(const struct rp_plan *p,
				       unsigned long a);

#endif
