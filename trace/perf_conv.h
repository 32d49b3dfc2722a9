/* SPDX-License-Identifier: MIT */
/*
 * perf_conv — turns `perf script -F pid,tid,time,event,trace,ip,sym --ns
 * --show-lost-events` output of the syscalls:sys_{enter,exit}_{mmap,
 * munmap,mprotect,mremap,madvise,brk}, exceptions:page_fault_user and
 * exceptions:page_fault_kernel (at user addresses) tracepoints into trace
 * events: a syscall's enter and exit are paired per thread into one event
 * with its result; a fault's x86 error code becomes TRACE_FAULT_* flags
 * (a kernel-mode one, TRACE_FAULT_KERNEL too). The mmap_lock:*
 * tracepoints become the host's lock figures, each acquisition put down
 * to a cause by its kernel call chain. A trace is one address space, so only
 * the first process seen is kept (the recorded command; its children are
 * counted and left out). When that process execs, its address space is
 * a new one: the trace so far is dropped (restart) and begins again.
 */
#ifndef VMSIM_PERF_CONV_H
#define VMSIM_PERF_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/perf_maps.h"
#include "trace/perf_waits.h"
#include "trace/trace.h"

/* The tracepoints vmsim record asks perf for (NULL-terminated), and
 * those it adds where the kernel has them: the host's mmap_lock; of
 * these, perf_conv_chain_event is recorded with its kernel call chain
 * (perf script then prints it, a frame a line, after the event). */
extern const char *const perf_conv_events[];
extern const char *const perf_conv_lock_events[];
extern const char perf_conv_chain_event[];

/* The host's mmap_lock as the recorded process took it (mmap_lock:*
 * tracepoints): per side, acquisitions, the time from asking to having
 * it, and the time held. */
struct perf_lockside {
	uint64_t acquired, failed;       /* failed: a trylock that failed */
	uint64_t wait_ns, wait_max, hold_ns, hold_max;
};

/* Why the host took its mmap_lock, from the acquisition's kernel call
 * chain (docs/record-replay.md has the frames that decide each). */
enum perf_cause {
	PC_FAULT_FALLBACK,               /* a user fault under the mm lock
					  * (its VMA lock failed or it
					  * retried) */
	PC_FAULT_UNMAPPED,               /* any fault's (these three) at a page
					  * the trace never maps: the image's
					  * bss, the stack, vdso, vvar */
	PC_KERNEL_FAULT,                 /* a kernel-mode fault at a user
					  * address (copy_to_user) */
	PC_ANON_TRYLOCK,                 /* __vmf_anon_prepare()'s trylock */
	PC_DOWNGRADE,                    /* mmap_write_downgrade()'s read */
	PC_MADVISE,
	PC_MMAP_CALL,                    /* mmap, munmap, mprotect, mremap, brk */
	PC_CALL_UNMAPPED,                /* munmap, mprotect or madvise (or its
					  * downgrade) of a range the trace
					  * never maps (ld.so's RELRO mprotect
					  * of the image): a replay skips it */
	PC_EXEC,                         /* execve's (the new mm's) */
	PC_EXIT,                         /* exit_mm, acct_collect */
	PC_FORK,                         /* dup_mmap */
	PC_OTHER,
	PC_NCAUSES
};

extern const char *const perf_conv_cause_names[PC_NCAUSES];
/* Can a replay make this acquisition (the trace holds its event)? */
bool perf_conv_replayable(enum perf_cause k);

/* One address space's acquisitions (the tracepoints' mm=). */
struct perf_mm {
	uint64_t mm;
	struct perf_lockside lock[2];    /* read, write */
	uint64_t cause[PC_NCAUSES][2];   /* acquisitions by cause and side */
};

#define PERF_LOCK_SLOTS 8192             /* holds tracked, by (tid, mm) */
#define PERF_MAX_OTHERS 64               /* other processes told apart */
#define PERF_COMM_LEN 16                 /* a task's comm, as the kernel's */

/* A process whose events a trace left out (a trace is one address
 * space): what record's message names, so that --follow can pick it. */
struct perf_other {
	long pid;
	uint64_t events;
	char comm[PERF_COMM_LEN];        /* what it exec'd last; "": none */
	int fork_no;                     /* the N of --follow fork:N; 0: not
					  * made in the recording */
	bool execd;                      /* comm is from its exec */
};
#define PERF_MAX_MMS 64                  /* address spaces told apart */

/* A range the trace mapped (for telling a fault at a mapped page). */
struct perf_range {
	uint64_t start, end;
};

struct perf_conv {
	struct trace_writer *w;
	long pid;                        /* the traced process; -1: not yet */
	/* --follow COMM: the traced process is the first that execs a
	 * program of that name (its first PERF_COMM_LEN - 1 bytes, as a
	 * comm); until one does, every event is another process's. "":
	 * the first process seen (the recorded command). */
	char follow_comm[PERF_COMM_LEN];
	int follow_matches;              /* processes that exec'd it */
	/* --follow fork:N: the traced process is the N-th that the
	 * recorded processes make (task:task_newtask without CLONE_THREAD:
	 * a fork, vfork or clone of a new process); 0: not by that. */
	int follow_fork;
	int forks;                       /* processes made so far */
	long followed_parent;            /* the traced one's, if it was made
					  * in the recording; else 0 */
	/* What the untraced processes map (set track_maps before the first
	 * line: --follow fork:N or PID), for the traced one's start: a
	 * process that forks without exec begins with its parent's. */
	bool track_maps;
	struct perf_maps maps;
	struct perf_premap *pre_own;     /* pre, when taken from maps */
	struct perf_other others[PERF_MAX_OTHERS];
	int nothers;                     /* others[] in use */
	bool others_full;                /* more processes than others[] */
	uint64_t t0;                     /* the first event's time (ns) */
	bool started;
	/* -p: the mappings the process had when the recording began (its
	 * /proc/PID/maps), put in the trace as mmaps at its start so that
	 * what it touches there is replayable; set by the caller. */
	const struct perf_premap *pre;
	size_t npre;
	bool pre_done;
	/* A syscall entered and not yet exited, per thread index. */
	struct trace_ev pend[TRACE_MAX_THREADS];
	bool open[TRACE_MAX_THREADS];
	uint64_t other_pid;              /* events of other processes */
	uint64_t unpaired;               /* an exit without its entry, etc. */
	uint64_t lost;                   /* events perf lost */
	uint64_t bad_lines;              /* lines that were none of ours */
	uint64_t too_many_threads;
	uint64_t kernel_faults;          /* at user addresses, kept */
	uint64_t kernel_faults_high;     /* at kernel addresses, left out */
	/* The process exec'd: start the trace again (0, or -errno), with
	 * the new program's name. */
	int (*restart)(void *arg, const char *exe);
	void *restart_arg;
	uint64_t dropped;                /* events before the last exec */
	char exe[1024];                  /* what it exec'd last ("": none) */
	int err;                         /* a failed restart */
	bool cut;                        /* conversion stopped by a signal, */
	int cut_by;                      /* this one */
	/* The mmap_lock, per address space: the traced one is that of the
	 * process's latest acquisition outside fork (an exec's new mm takes
	 * its first locks before the exec event: counted, through a shell
	 * or not); fork's nested lock of the child's mm, another's. */
	struct perf_mm mms[PERF_MAX_MMS];
	int nmms;
	uint64_t mm_overflow;            /* acquisitions of mms beyond those */
	uint64_t traced_mm;
	bool have_traced_mm;
	bool in_exec;                    /* an exec's acquisitions began */
	struct perf_conv_held {
		uint32_t tid;            /* 0: free */
		uint64_t mm;
		uint8_t state, write;    /* 0 none, 1 asking, 2 holding */
		uint64_t t;              /* when it asked, or got it */
	} held[PERF_LOCK_SLOTS];
	/* An acquisition whose call chain is being read (its frames follow
	 * its line; the next line that is not one ends it). */
	struct {
		bool open;
		uint32_t tid;
		uint64_t t, mm;
		bool write, success;
		int fault;               /* 0 none, 1 user, 2 kernel, -1 next
					  * frame decides */
		int inner;               /* innermost cause found, or -1 */
		int outer;               /* exec, exit or fork, or -1 */
		uint16_t site;           /* the frame that decided inner */
		uint16_t outer_site;     /* the one that decided outer */
	} chain;
	/* Who waited for the traced process's mmap_lock, behind whom. */
	struct perf_waits waits;
	uint64_t last_fault[TRACE_MAX_THREADS];   /* by thread index */
	struct perf_range *ranges;       /* what the trace has mapped */
	size_t nranges, cap_ranges;
	bool ranges_sorted;
	uint64_t brk_lo, brk_hi;         /* the heap, [lo, hi) */
};

void perf_conv_init(struct perf_conv *c, struct trace_writer *w);
/* One line of perf script's output (without its newline). */
void perf_conv_line(struct perf_conv *c, const char *line);
/* The end of the output: an acquisition whose chain was being read is
 * counted. Then the figures below are final. */
void perf_conv_flush(struct perf_conv *c);
/* Frees what init and the lines took (c's figures stay readable). */
void perf_conv_fini(struct perf_conv *c);
/* The traced address space's mmap_lock, or NULL when it took none; the
 * acquisitions of other address spaces, in all. */
const struct perf_mm *perf_conv_traced(const struct perf_conv *c);
uint64_t perf_conv_other_mms(const struct perf_conv *c);

#endif
