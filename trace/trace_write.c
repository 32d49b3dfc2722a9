/* SPDX-License-Identifier: MIT */
/*
 * The trace writer: a header, then each event as a kind byte and LEB128
 * varints (docs/trace.md).
 */
#include <errno.h>
#include <string.h>

#include "trace/trace.h"
#include "trace/trace_int.h"

static void put_byte(struct trace_writer *w, int b)
{
	if (!w->failed && putc_unlocked(b, w->f) == EOF) {
		w->failed = true;
		w->err = errno ? errno : EIO;
	}
}

static void put_u(struct trace_writer *w, uint64_t v)
{
	while (v >= 0x80) {
		put_byte(w, (int)(v & 0x7f) | 0x80);
		v >>= 7;
	}
	put_byte(w, (int)v);
}

static void put_s(struct trace_writer *w, int64_t v)
{
	put_u(w, trace_zigzag(v));
}

void trace_writer_init(struct trace_writer *w, FILE *f, const char *comment)
{
	size_t n = comment ? strlen(comment) : 0;

	memset(w, 0, sizeof(*w));
	w->f = f;
	if (n > TRACE_MAX_COMMENT)
		n = TRACE_MAX_COMMENT;
	for (int i = 0; i < TRACE_MAGIC_LEN; i++)
		put_byte(w, TRACE_MAGIC[i]);
	put_u(w, TRACE_VERSION);
	put_u(w, n);
	for (size_t i = 0; i < n; i++)
		put_byte(w, (unsigned char)comment[i]);
}

/* The record's head: kind, thread, time since the record before. */
static void put_head(struct trace_writer *w, enum trace_kind k,
		     uint32_t thread, uint64_t t_ns)
{
	if (t_ns < w->last_t)
		t_ns = w->last_t;
	put_byte(w, k);
	put_u(w, thread);
	put_u(w, t_ns - w->last_t);
	w->last_t = t_ns;
	w->nevents++;
}

int trace_writer_thread(struct trace_writer *w, uint32_t tid, uint64_t t_ns)
{
	for (uint32_t i = 0; i < w->nthreads; i++)
		if (w->tid[i] == tid)
			return (int)i;
	if (w->nthreads == TRACE_MAX_THREADS)
		return -1;
	w->tid[w->nthreads] = tid;
	put_head(w, TR_THREAD, w->nthreads, t_ns);
	put_u(w, tid);
	return (int)w->nthreads++;
}

void trace_writer_put(struct trace_writer *w, const struct trace_ev *ev)
{
	uint64_t page;

	put_head(w, ev->kind, ev->thread, ev->t_ns);
	switch (ev->kind) {
	case TR_FAULT:
		page = ev->addr >> TRACE_PAGE_SHIFT;
		put_u(w, trace_zigzag((int64_t)(page - w->last_page[ev->thread]))
			 << TRACE_FAULT_FLAG_BITS | (ev->arg & TRACE_FAULT_FLAGS));
		w->last_page[ev->thread] = page;
		return;
	case TR_MMAP:
		put_u(w, ev->addr); put_u(w, ev->len); put_u(w, ev->arg);
		put_u(w, ev->arg2); put_s(w, ev->fd); put_u(w, ev->arg3);
		break;
	case TR_MUNMAP:
		put_u(w, ev->addr); put_u(w, ev->len);
		break;
	case TR_MPROTECT: case TR_MADVISE:
		put_u(w, ev->addr); put_u(w, ev->len); put_u(w, ev->arg);
		break;
	case TR_MREMAP:
		put_u(w, ev->addr); put_u(w, ev->len); put_u(w, ev->arg);
		put_u(w, ev->arg2); put_u(w, ev->arg3);
		break;
	case TR_BRK:
		put_u(w, ev->addr);
		break;
	default:
		return;
	}
	put_s(w, ev->ret);
}

int trace_writer_finish(struct trace_writer *w)
{
	uint64_t n = w->nevents;

	put_byte(w, TR_END);
	put_u(w, n);
	if (!w->failed && fflush(w->f)) {
		w->failed = true;
		w->err = errno ? errno : EIO;
	}
	return w->failed ? -w->err : 0;
}
