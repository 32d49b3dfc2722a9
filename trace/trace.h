/* SPDX-License-Identifier: MIT */
/*
 * trace — a recorded program's address-space activity, as a stream of
 * events: each thread's mmap, munmap, mprotect, mremap, madvise and brk
 * (arguments and result) and its user page faults, in time order.
 *
 * The file (docs/trace.md): a header (magic, version, the command that
 * was recorded), then one record per event — a kind byte and LEB128
 * varints, times as deltas from the event before, fault addresses as
 * page deltas from the thread's previous fault — and an END record that
 * holds the event count, so that a truncated file is told from a whole
 * one. Since version 2 the header and every block of up to TRACE_BLOCK
 * bytes of records carry a CRC-32, so that a damaged file is refused,
 * not replayed. Written and read as a stream: neither side holds more
 * than one block and a per-thread table.
 */
#ifndef VMSIM_TRACE_H
#define VMSIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_VERSION 3                  /* what is written; 1 and 2 are
					  * read too */
#define TRACE_BLOCK 16384                /* bytes of records per block */
#define TRACE_MAX_THREADS 4096
#define TRACE_MAX_COMMENT 4096
/* User addresses and lengths: below 2^57 (5-level paging's limit). */
#define TRACE_ADDR_LIMIT (1ULL << 57)

enum trace_kind {
	TR_THREAD = 1,                   /* a new thread: its OS tid */
	TR_FAULT,
	TR_MMAP,
	TR_MUNMAP,
	TR_MPROTECT,
	TR_MADVISE,
	TR_MREMAP,
	TR_BRK,
	TR_END,                          /* the last record: the count */
	TR_NKINDS
};

/* A fault's flags (the x86 error code's meaning, kept portable). */
#define TRACE_FAULT_WRITE   0x1
#define TRACE_FAULT_PRESENT 0x2          /* a protection fault */
#define TRACE_FAULT_EXEC    0x4
/* Since version 3: a kernel-mode fault at a user address (copy_to_user
 * into a page read(2) fills, say: no FAULT_FLAG_USER in the kernel). */
#define TRACE_FAULT_KERNEL  0x8

/*
 * One event. Which fields mean what, by kind:
 *   FAULT     addr (page-aligned), arg = TRACE_FAULT_*
 *   MMAP      addr (hint), len, arg = prot, arg2 = flags, fd, arg3 = offset
 *   MUNMAP    addr, len
 *   MPROTECT  addr, len, arg = prot
 *   MADVISE   addr, len, arg = advice
 *   MREMAP    addr (old), len (old), arg = new length, arg2 = flags,
 *             arg3 = new address (MREMAP_FIXED)
 *   BRK       addr (asked for; 0: a query)
 *   THREAD    tid
 *   END       count = events before it (THREAD records included)
 * ret: the syscall's result, an address or -errno (0 for faults).
 */
struct trace_ev {
	enum trace_kind kind;
	uint32_t thread;                 /* index, in order of appearance */
	uint64_t t_ns;                   /* since the trace's first event */
	uint64_t addr, len, arg, arg2, arg3;
	int64_t fd, ret;
	uint32_t tid;
	uint64_t count;
};

const char *trace_kind_name(enum trace_kind k);

/* --- writing ------------------------------------------------------------ */

struct trace_writer {
	FILE *f;
	unsigned char blk[TRACE_BLOCK];  /* the block being filled */
	size_t blen;
	uint64_t last_t, nevents;
	uint32_t nthreads;
	uint32_t tid[TRACE_MAX_THREADS];
	uint64_t last_page[TRACE_MAX_THREADS];
	bool failed;                     /* a write failed (errno kept) */
	int err;
};

/* Start a trace on f (opened for writing) with comment (the command
 * recorded; may be NULL). */
void trace_writer_init(struct trace_writer *w, FILE *f, const char *comment);
/* The thread index of OS thread tid (a THREAD record when new); -1 when
 * there are TRACE_MAX_THREADS already. */
int trace_writer_thread(struct trace_writer *w, uint32_t tid, uint64_t t_ns);
/* The thread index of OS thread tid, if it has one yet; -1. */
int trace_writer_find(const struct trace_writer *w, uint32_t tid);
/* Append ev (kind, thread from trace_writer_thread, fields). Times are
 * made monotonic (an event earlier than the one before is given its
 * time). */
void trace_writer_put(struct trace_writer *w, const struct trace_ev *ev);
/* The END record, then flush. 0, or -errno of the first failed write. */
int trace_writer_finish(struct trace_writer *w);

/* --- reading ------------------------------------------------------------ */

struct trace_reader {
	FILE *f;
	bool own;                        /* f is ours to close */
	unsigned version;
	unsigned char blk[TRACE_BLOCK];  /* version 2: the block being read */
	size_t blen, bpos;
	uint64_t nblocks;                /* blocks read so far */
	bool damaged;                    /* a checksum did not match */
	char comment[TRACE_MAX_COMMENT + 1];
	uint64_t t, nevents;
	uint32_t nthreads;
	uint64_t last_page[TRACE_MAX_THREADS];
	bool done;
};

/* Open path and read the header. 0, or -1 with one line in err. */
int trace_open(struct trace_reader *r, const char *path, char *err,
	       size_t errlen);
/* The same on a stream already open (not closed by trace_close). */
int trace_open_stream(struct trace_reader *r, FILE *f, char *err,
		      size_t errlen);
/* The next event: 1, 0 after END (which is checked), -1 with one line in
 * err (truncated, garbage, an impossible value). */
int trace_next(struct trace_reader *r, struct trace_ev *ev, char *err,
	       size_t errlen);
void trace_close(struct trace_reader *r);
/* Does the file open on fd begin as a vmsim trace does (read with
 * pread: fd's offset is kept)? */
bool trace_is_ours(int fd);

/* --- summary (vmsim trace info) ----------------------------------------- */

struct trace_summary {
	uint64_t events, by_kind[TR_NKINDS];
	uint32_t threads;
	uint64_t span_ns;
	uint64_t addr_lo, addr_hi;       /* of every address seen; lo > hi: none */
	uint64_t failed;                 /* syscalls that returned an error */
	uint64_t fault_write, fault_present, fault_kernel;
};

/* Read the whole trace into s. 0, or -1 with one line in err. */
int trace_summarize(struct trace_reader *r, struct trace_summary *s,
		    char *err, size_t errlen);

#endif
