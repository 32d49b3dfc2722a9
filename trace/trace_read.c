/* SPDX-License-Identifier: MIT */
/*
 * The trace reader: a stream of events, every value checked, so that a
 * truncated, foreign or corrupt file ends in one line and never in a
 * crash or a runaway allocation.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/complain.h"
#include "trace/trace.h"
#include "trace/trace_int.h"

#include <zlib.h>

static const char *const kind_names[TR_NKINDS] = {
	[TR_THREAD] = "thread", [TR_FAULT] = "fault", [TR_MMAP] = "mmap",
	[TR_MUNMAP] = "munmap", [TR_MPROTECT] = "mprotect",
	[TR_MADVISE] = "madvise", [TR_MREMAP] = "mremap", [TR_BRK] = "brk",
	[TR_END] = "end",
};

const char *trace_kind_name(enum trace_kind k)
{
	return k > 0 && k < TR_NKINDS ? kind_names[k] : "?";
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* A varint straight from the file (a block's length): 0 or -1. */
static int file_u(FILE *f, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		int c = getc_unlocked(f);

		if (c == EOF)
			return -1;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* Version 2: the next block into r->blk, its checksum checked. 0; -1 at
 * the end of the file or a cut block; -1 with r->damaged on a bad
 * length or checksum. */
static int load_block(struct trace_reader *r)
{
	unsigned char crc[4];
	uint64_t n;
	int c = getc_unlocked(r->f);

	if (c == EOF)
		return -1;
	ungetc(c, r->f);
	if (file_u(r->f, &n))
		return -1;
	if (!n || n > TRACE_BLOCK)
		return r->damaged = true, -1;
	if (fread(r->blk, 1, n, r->f) != n || fread(crc, 1, 4, r->f) != 4)
		return -1;
	if (crc32(0L, r->blk, (uInt)n) != get_le32(crc))
		return r->damaged = true, -1;
	r->blen = n;
	r->bpos = 0;
	r->nblocks++;
	return 0;
}

/* The next byte of the records, or EOF (the file ended, or with
 * r->damaged it is damaged). */
static int get_byte(struct trace_reader *r)
{
	if (r->version < 2)
		return getc_unlocked(r->f);
	if (r->bpos == r->blen && load_block(r))
		return EOF;
	return r->blk[r->bpos++];
}

/* A varint: 0, or -1 (end of file: *eof; more than 64 bits: garbage). */
static int get_u(struct trace_reader *r, uint64_t *v, bool *eof)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		int c = get_byte(r);

		if (c == EOF) {
			*eof = true;
			return -1;
		}
		if (shift == 63 && (c & 0x7e))
			return -1;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* "damaged" when a checksum said so, else "truncated". */
static int cut_or_damaged(struct trace_reader *r, char *err, size_t len)
{
	if (r->damaged)
		return msg_fail(err, len, -1, "damaged: block %llu (after event %llu) "
			    "does not match its checksum",
			    (unsigned long long)r->nblocks + 1,
			    (unsigned long long)r->nevents);
	return msg_fail(err, len, -1, "truncated in event %llu (no END record)",
		    (unsigned long long)r->nevents);
}

/* Read n varints into v[]; an address-sized value must stay below the
 * limit where addr_mask has its bit. */
static int get_fields(struct trace_reader *r, uint64_t *v, int n,
		      unsigned addr_mask, char *err, size_t len)
{
	bool eof = false;

	for (int i = 0; i < n; i++) {
		if (get_u(r, &v[i], &eof))
			return eof ? cut_or_damaged(r, err, len)
				   : msg_fail(err, len, -1, "garbage in event %llu (a "
					  "number longer than 64 bits)",
					  (unsigned long long)r->nevents);
		if ((addr_mask >> i & 1) && v[i] >= TRACE_ADDR_LIMIT)
			return msg_fail(err, len, -1, "event %llu: impossible address "
				    "or length 0x%llx",
				    (unsigned long long)r->nevents,
				    (unsigned long long)v[i]);
	}
	return 0;
}

int trace_open_stream(struct trace_reader *r, FILE *f, char *err,
		      size_t errlen)
{
	unsigned char head[TRACE_MAGIC_LEN + 20 + TRACE_MAX_COMMENT + 4];
	uint64_t ver, n;
	size_t h = TRACE_MAGIC_LEN;
	unsigned char crc[4];

	memset(r, 0, sizeof(*r));
	r->f = f;
	r->version = 1;                  /* the header is read byte by byte */
	if (fread(head, 1, TRACE_MAGIC_LEN, f) != TRACE_MAGIC_LEN ||
	    memcmp(head, TRACE_MAGIC, TRACE_MAGIC_LEN))
		return msg_fail(err, errlen, -1, "not a vmsim trace (no VMSIMTRC "
			    "header)");
	if (file_u(f, &ver))
		return msg_fail(err, errlen, -1, "truncated header");
	if (ver < 1 || ver > TRACE_VERSION)
		return msg_fail(err, errlen, -1, "trace version %llu; this vmsim reads "
			    "versions 1 to %d", (unsigned long long)ver,
			    TRACE_VERSION);
	if (file_u(f, &n) || n > TRACE_MAX_COMMENT)
		return msg_fail(err, errlen, -1, "bad header (comment length)");
	if (fread(r->comment, 1, n, f) != n)
		return msg_fail(err, errlen, -1, "truncated header");
	r->comment[n] = 0;
	if (ver >= 2) {
		/* The header's checksum covers what was just read. */
		memcpy(head, TRACE_MAGIC, TRACE_MAGIC_LEN);
		h += trace_enc_varint(head + h, ver);
		h += trace_enc_varint(head + h, n);
		memcpy(head + h, r->comment, n);
		h += n;
		if (fread(crc, 1, 4, f) != 4)
			return msg_fail(err, errlen, -1, "truncated header");
		if (crc32(0L, head, (uInt)h) != get_le32(crc))
			return msg_fail(err, errlen, -1, "damaged header (it does not "
				    "match its checksum)");
	}
	if (memchr(r->comment, 0, n))
		return msg_fail(err, errlen, -1, "bad header (a NUL in the comment)");
	r->version = (unsigned)ver;
	return 0;
}

int trace_open(struct trace_reader *r, const char *path, char *err,
	       size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), ret;
	struct stat st;
	FILE *f;

	if (fd < 0)
		return msg_fail(err, errlen, -1, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st)) {
		ret = errno;
		close(fd);
		return msg_fail(err, errlen, -1, "cannot open: %s", strerror(ret));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return msg_fail(err, errlen, -1, "%s, not a trace file",
			    S_ISDIR(st.st_mode) ? "a directory" :
			    S_ISFIFO(st.st_mode) ? "a FIFO" :
			    S_ISCHR(st.st_mode) ? "a character device" :
			    S_ISBLK(st.st_mode) ? "a block device" : "a socket");
	}
	f = fdopen(fd, "rb");
	if (!f || fcntl(fd, F_SETFL, 0)) {
		ret = errno;
		f ? fclose(f) : close(fd);
		return msg_fail(err, errlen, -1, "cannot open: %s", strerror(ret));
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	ret = trace_open_stream(r, f, err, errlen);
	r->own = true;
	if (ret)
		trace_close(r);
	return ret;
}

bool trace_is_ours(int fd)
{
	char magic[TRACE_MAGIC_LEN];

	return pread(fd, magic, sizeof(magic), 0) == sizeof(magic) &&
	       !memcmp(magic, TRACE_MAGIC, sizeof(magic));
}

void trace_close(struct trace_reader *r)
{
	if (r->own && r->f)
		fclose(r->f);
	r->f = NULL;
}

static int read_end(struct trace_reader *r, char *err, size_t len)
{
	uint64_t n;

	if (get_fields(r, &n, 1, 0, err, len))
		return -1;
	if (n != r->nevents)
		return msg_fail(err, len, -1, "END says %llu events, the trace has %llu",
			    (unsigned long long)n,
			    (unsigned long long)r->nevents);
	if ((r->version >= 2 && r->bpos != r->blen) ||
	    getc_unlocked(r->f) != EOF)
		return msg_fail(err, len, -1, "data after the END record");
	r->done = true;
	return 0;
}

/* The fields after the head, by kind (docs/trace.md). */
static int read_body(struct trace_reader *r, struct trace_ev *ev, char *err,
		     size_t len)
{
	uint64_t v[6], page;
	unsigned bits;

	switch (ev->kind) {
	case TR_THREAD:
		if (get_fields(r, v, 1, 0, err, len))
			return -1;
		if (v[0] > UINT32_MAX)
			return msg_fail(err, len, -1, "event %llu: bad tid",
				    (unsigned long long)r->nevents);
		ev->tid = (uint32_t)v[0];
		return 0;
	case TR_FAULT:
		if (get_fields(r, v, 1, 0, err, len))
			return -1;
		bits = trace_fault_flag_bits(r->version);
		page = r->last_page[ev->thread] +
		       (uint64_t)trace_unzigzag(v[0] >> bits);
		if (page >= TRACE_ADDR_LIMIT >> TRACE_PAGE_SHIFT)
			return msg_fail(err, len, -1, "event %llu: fault at an "
				    "impossible address",
				    (unsigned long long)r->nevents);
		r->last_page[ev->thread] = page;
		ev->addr = page << TRACE_PAGE_SHIFT;
		ev->arg = v[0] & ((1u << bits) - 1);
		return 0;
	case TR_MMAP:       /* addr len prot flags fd off, ret */
		if (get_fields(r, v, 6, 0x23, err, len))
			return -1;
		ev->addr = v[0]; ev->len = v[1]; ev->arg = v[2]; ev->arg2 = v[3];
		ev->fd = trace_unzigzag(v[4]); ev->arg3 = v[5];
		break;
	case TR_MUNMAP:     /* addr len, ret */
		if (get_fields(r, v, 2, 0x3, err, len))
			return -1;
		ev->addr = v[0]; ev->len = v[1];
		break;
	case TR_MPROTECT: case TR_MADVISE:   /* addr len arg, ret */
		if (get_fields(r, v, 3, 0x3, err, len))
			return -1;
		ev->addr = v[0]; ev->len = v[1]; ev->arg = v[2];
		break;
	case TR_MREMAP:     /* addr len newlen flags newaddr, ret */
		if (get_fields(r, v, 5, 0x17, err, len))
			return -1;
		ev->addr = v[0]; ev->len = v[1]; ev->arg = v[2]; ev->arg2 = v[3];
		ev->arg3 = v[4];
		break;
	case TR_BRK:        /* addr, ret */
		if (get_fields(r, v, 1, 0x1, err, len))
			return -1;
		ev->addr = v[0];
		break;
	default:
		return -1;
	}
	/* Every call ends with its result. */
	if (get_fields(r, v, 1, 0, err, len))
		return -1;
	ev->ret = trace_unzigzag(v[0]);
	if (ev->ret >= (int64_t)TRACE_ADDR_LIMIT || ev->ret < -4095)
		return msg_fail(err, len, -1, "event %llu: impossible result %lld",
			    (unsigned long long)r->nevents, (long long)ev->ret);
	return 0;
}

int trace_next(struct trace_reader *r, struct trace_ev *ev, char *err,
	       size_t errlen)
{
	uint64_t head[2];
	int k;

	if (r->done)
		return 0;
	memset(ev, 0, sizeof(*ev));
	k = get_byte(r);
	if (k == EOF && r->damaged)
		return cut_or_damaged(r, err, errlen);
	if (k == EOF)
		return msg_fail(err, errlen, -1, "truncated after %llu events (no END "
			    "record)", (unsigned long long)r->nevents);
	if (k == TR_END)
		return read_end(r, err, errlen) ? -1 : 0;
	if (k < TR_THREAD || k >= TR_END)
		return msg_fail(err, errlen, -1, "garbage at event %llu (record kind "
			    "%d)", (unsigned long long)r->nevents, k);
	ev->kind = (enum trace_kind)k;
	if (get_fields(r, head, 2, 0, err, errlen))
		return -1;
	if (k == TR_THREAD ? head[0] != r->nthreads ||
			     r->nthreads == TRACE_MAX_THREADS
			   : head[0] >= r->nthreads)
		return msg_fail(err, errlen, -1, "event %llu: thread %llu was never "
			    "declared", (unsigned long long)r->nevents,
			    (unsigned long long)head[0]);
	if (head[1] > UINT64_MAX - r->t)
		return msg_fail(err, errlen, -1, "event %llu: time runs over",
			    (unsigned long long)r->nevents);
	ev->thread = (uint32_t)head[0];
	r->t += head[1];
	ev->t_ns = r->t;
	if (read_body(r, ev, err, errlen))
		return -1;
	if (k == TR_THREAD)
		r->nthreads++;
	r->nevents++;
	return 1;
}

int trace_summarize(struct trace_reader *r, struct trace_summary *s,
		    char *err, size_t errlen)
{
	struct trace_ev ev;
	int ret;

	memset(s, 0, sizeof(*s));
	s->addr_lo = UINT64_MAX;
	while ((ret = trace_next(r, &ev, err, errlen)) > 0) {
		uint64_t a = ev.kind == TR_MMAP ? (uint64_t)ev.ret : ev.addr;

		s->events++;
		s->by_kind[ev.kind]++;
		s->span_ns = ev.t_ns;
		if (ev.kind == TR_THREAD)
			continue;
		if (ev.kind == TR_FAULT) {
			s->fault_write += !!(ev.arg & TRACE_FAULT_WRITE);
			s->fault_present += !!(ev.arg & TRACE_FAULT_PRESENT);
			s->fault_kernel += !!(ev.arg & TRACE_FAULT_KERNEL);
		}
		if (ev.ret < 0) {
			s->failed++;
			continue;
		}
		if (ev.kind == TR_BRK)
			a = (uint64_t)ev.ret;
		if (a && a < s->addr_lo)
			s->addr_lo = a;
		if (a + (ev.kind == TR_FAULT ? 4096 : ev.len) > s->addr_hi)
			s->addr_hi = a + (ev.kind == TR_FAULT ? 4096 : ev.len);
	}
	s->threads = r->nthreads;
	return ret;
}
