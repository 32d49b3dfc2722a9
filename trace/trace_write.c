/* SPDX-License-Identifier: MIT */
/*
 * The trace writer: a header, then each event as a kind byte and LEB128
 * varints, in blocks of up to TRACE_BLOCK bytes, each with its CRC-32
 * (zlib's), as is the header (docs/trace.md, version 3).
 */
#include <errno.h>
#include <string.h>

#include <zlib.h>

#include "trace/trace.h"
#include "trace/trace_int.h"

static void write_out(struct trace_writer *w, const void *p, size_t n)
{
	if (!w->failed && n && fwrite(p, 1, n, w->f) != n) {
		w->failed = true;
		w->err = errno ? errno : EIO;
	}
}

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The block so far: its length, its bytes, their CRC-32. */
static void flush_block(struct trace_writer *w)
{
	unsigned char head[10], crc[4];

	if (!w->blen)
		return;
	write_out(w, head, trace_enc_varint(head, w->blen));
	write_out(w, w->blk, w->blen);
	put_le32(crc, (uint32_t)crc32(0L, w->blk, (uInt)w->blen));
	write_out(w, crc, 4);
	w->blen = 0;
}

static void put_byte(struct trace_writer *w, int b)
{
	w->blk[w->blen++] = (unsigned char)b;
	if (w->blen == TRACE_BLOCK)
		flush_block(w);
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
	size_t n = comment ? strlen(comment) : 0, h = TRACE_MAGIC_LEN;
	unsigned char head[TRACE_MAGIC_LEN + 20 + TRACE_MAX_COMMENT + 4];

	memset(w, 0, sizeof(*w));
	w->f = f;
	if (n > TRACE_MAX_COMMENT)
		n = TRACE_MAX_COMMENT;
	/* The header, then its own CRC-32. */
	memcpy(head, TRACE_MAGIC, TRACE_MAGIC_LEN);
	h += trace_enc_varint(head + h, TRACE_VERSION);
	h += trace_enc_varint(head + h, n);
	memcpy(head + h, comment ? comment : "", n);
	h += n;
	put_le32(head + h, (uint32_t)crc32(0L, head, (uInt)h));
	write_out(w, head, h + 4);
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

int trace_writer_find(const struct trace_writer *w, uint32_t tid)
{
	for (uint32_t i = 0; i < w->nthreads; i++)
		if (w->tid[i] == tid)
			return (int)i;
	return -1;
}

int trace_writer_thread(struct trace_writer *w, uint32_t tid, uint64_t t_ns)
{
	int th = trace_writer_find(w, tid);

	if (th >= 0)
		return th;
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
	flush_block(w);
	if (!w->failed && fflush(w->f)) {
		w->failed = true;
		w->err = errno ? errno : EIO;
	}
	return w->failed ? -w->err : 0;
}
