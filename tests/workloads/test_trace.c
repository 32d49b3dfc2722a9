/* SPDX-License-Identifier: MIT */
/*
 * Tests the trace format and the replay plan: random events written and
 * read back field for field; every truncation of a trace refused (never
 * an event past the cut accepted as whole); perf script lines converted;
 * the plan's clusters, skips and dependencies on a hand-made trace.
 */
#include "tests/check_util.h"
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <zlib.h>

#include "trace/perf_conv.h"
#include "trace/trace.h"
#include "workloads/replay.h"
#include "workloads/workload.h"
#include "locks/lock_ops.h"
#include "sim/mm.h"
#include "sim/faults/sources.h"

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* n random events into buf; the events in ev. */
static size_t make_trace(char *buf, size_t cap, struct trace_ev *ev, int n)
{
	FILE *f = fmemopen(buf, cap, "wb");
	struct trace_writer *w = calloc(1, sizeof(*w));
	uint64_t s = 88172645463325252ULL, t = 0;

	trace_writer_init(w, f, "test");
	for (int i = 0; i < n; i++) {
		struct trace_ev *e = &ev[i];
		int th = trace_writer_thread(w, 100 + (uint32_t)(rnd(&s) % 5), t);

		memset(e, 0, sizeof(*e));
		e->kind = (enum trace_kind)(TR_FAULT + rnd(&s) % 7);
		e->thread = (uint32_t)th;
		e->t_ns = t += rnd(&s) % 100000;
		e->addr = (rnd(&s) % (1ULL << 47)) & ~4095ULL;
		if (e->kind == TR_FAULT) {
			e->arg = rnd(&s) % 8;
		} else {
			e->len = rnd(&s) % (1ULL << 30);
			e->arg = rnd(&s) % 64;
			e->arg2 = rnd(&s) % 0x200000;
			e->arg3 = rnd(&s) % (1ULL << 40);
			e->fd = (int64_t)(rnd(&s) % 20) - 1;
			e->ret = rnd(&s) % 3 ? (int64_t)e->addr : -22;
			if (e->kind != TR_MMAP)
				e->fd = 0;
			if (e->kind != TR_MMAP && e->kind != TR_MREMAP)
				e->arg2 = e->arg3 = 0;
			if (e->kind == TR_MUNMAP || e->kind == TR_BRK)
				e->arg = 0;
			if (e->kind == TR_BRK)
				e->len = 0;
		}
		trace_writer_put(w, e);
	}
	ck_assert_int_eq(trace_writer_finish(w), 0);
	free(w);
	fflush(f);
	cap = (size_t)ftell(f);
	fclose(f);
	return cap;
}

START_TEST(test_round_trip)
{
	enum { N = 5000 };
	static char buf[1 << 20];
	static struct trace_ev ev[N];
	size_t len = make_trace(buf, sizeof(buf), ev, N);
	FILE *f = fmemopen(buf, len, "rb");
	struct trace_reader r;
	struct trace_ev e;
	char err[256];
	int i = 0, ret;

	ck_assert_int_eq(trace_open_stream(&r, f, err, sizeof(err)), 0);
	ck_assert_str_eq(r.comment, "test");
	while ((ret = trace_next(&r, &e, err, sizeof(err))) > 0) {
		if (e.kind == TR_THREAD)
			continue;
		ck_assert_int_lt(i, N);
		ck_assert_int_eq(e.kind, ev[i].kind);
		ck_assert_uint_eq(e.thread, ev[i].thread);
		ck_assert_uint_eq(e.t_ns, ev[i].t_ns);
		ck_assert_uint_eq(e.addr, ev[i].addr);
		ck_assert_uint_eq(e.arg, ev[i].arg);
		if (e.kind != TR_FAULT) {
			ck_assert_uint_eq(e.len, ev[i].len);
			ck_assert_uint_eq(e.arg2, ev[i].arg2);
			ck_assert_uint_eq(e.arg3, ev[i].arg3);
			ck_assert_int_eq(e.fd, ev[i].fd);
			ck_assert_int_eq(e.ret, ev[i].ret);
		}
		i++;
	}
	ck_assert_msg(ret == 0, "%s", err);
	ck_assert_int_eq(i, N);
	ck_assert_uint_eq(r.nthreads, 5);
	fclose(f);
}
END_TEST

/* Read the whole trace in buf[0..len): 0 (whole), or -1 (refused). */
static int read_all(const char *buf, size_t len, uint64_t *nev)
{
	FILE *f = fmemopen((void *)buf, len ? len : 1, "rb");
	struct trace_reader *r = malloc(sizeof(*r));
	struct trace_ev e;
	char err[256];
	int ret = -1;

	*nev = 0;
	if (!trace_open_stream(r, f, err, sizeof(err)))
		while ((ret = trace_next(r, &e, err, sizeof(err))) > 0)
			++*nev;
	free(r);
	fclose(f);
	return ret;
}

START_TEST(test_truncation)
{
	static char buf[1 << 16];
	static struct trace_ev ev[200];
	size_t len = make_trace(buf, sizeof(buf), ev, 200);
	uint64_t n;

	/* The whole trace reads (else every refusal below means nothing). */
	ck_assert_int_eq(read_all(buf, len, &n), 0);
	ck_assert_uint_ge(n, 200);
	for (size_t cut = 0; cut < len; cut++) {
		FILE *f = fmemopen(buf, cut ? cut : 1, "rb");
		struct trace_reader r;
		struct trace_ev e;
		char err[256];
		int ret = -1;

		if (!trace_open_stream(&r, f, err, sizeof(err)))
			while ((ret = trace_next(&r, &e, err, sizeof(err))) > 0)
				;
		ck_assert_msg(ret == -1, "a trace cut at %zu of %zu was taken "
			      "as whole", cut, len);
		fclose(f);
	}
}
END_TEST

/* Version 2: one flipped bit anywhere — header, a block's length, its
 * records, its checksum — and the trace is refused. */
START_TEST(test_bit_flips)
{
	static char buf[1 << 16], bad[1 << 16];
	static struct trace_ev ev[300];
	size_t len = make_trace(buf, sizeof(buf), ev, 300);
	uint64_t n, accepted = 0;

	ck_assert_int_eq(read_all(buf, len, &n), 0);
	for (size_t i = 0; i < len; i++)
		for (int b = 0; b < 8; b++) {
			memcpy(bad, buf, len);
			bad[i] ^= (char)(1 << b);
			if (!read_all(bad, len, &n))
				accepted++;
		}
	ck_assert_msg(!accepted, "%llu of %zu one-bit flips read as whole",
		      (unsigned long long)accepted, len * 8);
}
END_TEST

/* The traced program exec'd: the trace starts again at each exec after
 * it has begun, and its comment names the newest program — also when a
 * second exec comes before anything else (the user is told of it). */
struct exec_log {
	struct trace_writer *w;
	FILE *f;
	int restarts;
	char exe[64];
};

static int note_restart(void *arg, const char *exe)
{
	struct exec_log *l = arg;

	l->restarts++;
	snprintf(l->exe, sizeof(l->exe), "%s", exe);
	rewind(l->f);                     /* as the recorder does */
	trace_writer_init(l->w, l->f, exe);
	return 0;
}

START_TEST(test_perf_exec)
{
	static char buf[1 << 12];
	FILE *f = fmemopen(buf, sizeof(buf), "wb");
	struct trace_writer *w = calloc(1, sizeof(*w));
	struct perf_conv *c = calloc(1, sizeof(*c));
	struct exec_log l = { w, f, 0, "" };
	static const char *fault =
		"  10/10 5.000000100:  exceptions:page_fault_user: "
		"address=0x1000 ip=0x4000 error_code=0x6";

	trace_writer_init(w, f, NULL);
	perf_conv_init(c, w);
	c->restart = note_restart;
	c->restart_arg = &l;
	/* The recorder's own exec of the program: nothing yet, no restart. */
	perf_conv_line(c, "  10/10 5.000000000: sched:sched_process_exec: "
		       "filename=/bin/sh pid=10 old_pid=10");
	ck_assert_int_eq(l.restarts, 0);
	perf_conv_line(c, fault);
	perf_conv_line(c, "  10/10 5.000000200: sched:sched_process_exec: "
		       "filename=/bin/a b pid=10 old_pid=10");
	ck_assert_int_eq(l.restarts, 1);
	ck_assert_str_eq(l.exe, "/bin/a b");      /* a path with a space */
	ck_assert_uint_eq(c->dropped, 2);          /* THREAD and FAULT */
	perf_conv_line(c, "  10/10 5.000000300: sched:sched_process_exec: "
		       "filename=/bin/c pid=10 old_pid=10");
	ck_assert_int_eq(l.restarts, 2);
	ck_assert_str_eq(l.exe, "/bin/c");
	ck_assert_str_eq(c->exe, l.exe);
	fclose(f);
	free(w);
	perf_conv_fini(c);
	free(c);
}
END_TEST

/* Process 10 execs, maps 8 pages, unmaps the third, makes the fifth
 * and sixth read-only, fails a munmap, and moves its break. */
static void zygote_maps(struct perf_conv *c)
{
	perf_conv_line(c, "  10/10 5.000000000: sched:sched_process_exec: "
		       "filename=/bin/zygote pid=10 old_pid=10");
	perf_conv_line(c, "  10/10 5.000000100:     syscalls:sys_enter_mmap: "
		       "addr: 0x00000000, len: 0x00008000, prot: 0x00000003, "
		       "flags: 0x00000022, fd: 0xffffffff, off: 0x00000000");
	perf_conv_line(c, "  10/10 5.000000200:      syscalls:sys_exit_mmap: "
		       "0x7f0000000000");
	perf_conv_line(c, "  10/10 5.000000300:  syscalls:sys_enter_munmap: "
		       "addr: 0x7f0000002000, len: 0x00001000");
	perf_conv_line(c, "  10/10 5.000000400:   syscalls:sys_exit_munmap: 0x0");
	perf_conv_line(c, "  10/10 5.000000500: syscalls:sys_enter_mprotect: "
		       "start: 0x7f0000004000, len: 0x00002000, prot: 0x00000001");
	perf_conv_line(c, "  10/10 5.000000600: syscalls:sys_exit_mprotect: 0x0");
	perf_conv_line(c, "  10/10 5.000000610:  syscalls:sys_enter_munmap: "
		       "addr: 0x7f0000006000, len: 0x00001000");
	perf_conv_line(c, "  10/10 5.000000620:   syscalls:sys_exit_munmap: "
		       "0xffffffffffffffea");
	perf_conv_line(c, "  10/10 5.000000630:      syscalls:sys_enter_brk: "
		       "brk: 0x00000000");
	perf_conv_line(c, "  10/10 5.000000640:       syscalls:sys_exit_brk: "
		       "0x555555559000");
	perf_conv_line(c, "  10/10 5.000000650:      syscalls:sys_enter_brk: "
		       "brk: 0x55555557a000");
	perf_conv_line(c, "  10/10 5.000000660:       syscalls:sys_exit_brk: "
		       "0x55555557a000");
}

/* --follow fork:N: the N-th process made (threads not counted) is the
 * traced one, and its trace begins with its parent's mappings at the
 * fork — as the parent's calls left them: an mmap, a munmap of part of
 * it, an mprotect of another part, a failed munmap that changed nothing,
 * its heap — so that its fault in an inherited page is a mapped one. */
START_TEST(test_perf_follow_fork)
{
	static char buf[1 << 14];
	FILE *f = fmemopen(buf, sizeof(buf), "wb");
	struct trace_writer *w = calloc(1, sizeof(*w));
	struct perf_conv *c = calloc(1, sizeof(*c));
	struct trace_reader r;
	struct trace_ev e;
	char err[256];
	size_t len;

	trace_writer_init(w, f, NULL);
	perf_conv_init(c, w);
	c->follow_fork = 2;
	c->track_maps = true;
	zygote_maps(c);
	/* A thread, then the first process, then the second: followed. */
	perf_conv_line(c, "  10/10 5.000000700: task:task_newtask: pid=11 "
		       "comm=zygote clone_flags=3d0f00 oom_score_adj=0");
	perf_conv_line(c, "  10/10 5.000000800: task:task_newtask: pid=20 "
		       "comm=zygote clone_flags=1200011 oom_score_adj=0");
	perf_conv_line(c, "  10/10 5.000000900: task:task_newtask: pid=30 "
		       "comm=zygote clone_flags=1200011 oom_score_adj=0");
	/* The parent changes its maps after the fork: not the child's. */
	perf_conv_line(c, "  10/10 5.000001000:  syscalls:sys_enter_munmap: "
		       "addr: 0x7f0000000000, len: 0x00001000");
	perf_conv_line(c, "  10/10 5.000001100:   syscalls:sys_exit_munmap: 0x0");
	perf_conv_line(c, "  30/30 5.000002000:  exceptions:page_fault_user: "
		       "address=0x7f0000000010 ip=0x4000 error_code=0x6");
	perf_conv_line(c, "  20/20 5.000002100:  exceptions:page_fault_user: "
		       "address=0x7f0000000010 ip=0x4000 error_code=0x6");
	ck_assert_int_eq(trace_writer_finish(w), 0);
	len = (size_t)ftell(f);
	fclose(f);
	ck_assert_int_eq(c->pid, 30);
	ck_assert_int_eq(c->forks, 2);
	ck_assert_int_eq(c->followed_parent, 10);
	ck_assert_int_eq(c->nothers, 2);           /* 10 and 20 */
	for (int i = 0; i < c->nothers; i++)
		if (c->others[i].pid == 20) {
			ck_assert_int_eq(c->others[i].fork_no, 1);
			ck_assert_str_eq(c->others[i].comm, "zygote");
			ck_assert(!c->others[i].execd);
		}
	f = fmemopen(buf, len, "rb");
	ck_assert_int_eq(trace_open_stream(&r, f, err, sizeof(err)), 0);
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.kind, TR_THREAD);
	ck_assert_uint_eq(e.tid, 30);
	static const struct { uint64_t start, len, prot; } want[] = {
		{ 0x7f0000000000ULL, 0x2000, 3 }, { 0x7f0000003000ULL, 0x1000, 3 },
		{ 0x7f0000004000ULL, 0x2000, 1 }, { 0x7f0000006000ULL, 0x2000, 3 },
		{ 0x555555559000ULL, 0x21000, 3 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
		ck_assert_int_eq(e.kind, TR_MMAP);
		ck_assert_uint_eq(e.addr, want[i].start);
		ck_assert_uint_eq(e.len, want[i].len);
		ck_assert_uint_eq(e.arg, want[i].prot);
		ck_assert_int_eq(e.ret, (int64_t)want[i].start);
	}
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.kind, TR_FAULT);
	ck_assert_uint_eq(e.addr, 0x7f0000000000ULL);
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 0);
	fclose(f);
	free(w);
	perf_conv_fini(c);
	free(c);
}
END_TEST

/* A version 1 trace (no checksums), made by hand: still read. */
START_TEST(test_version1)
{
	static const char v1[] = "VMSIMTRC\x01\x02hi"
				 "\x01\x00\x00\x64"      /* THREAD 0, tid 100 */
				 "\x02\x00\x05\x81\x02"  /* FAULT page 16, write */
				 "\x09\x02";               /* END, 2 events */
	FILE *f = fmemopen((void *)v1, sizeof(v1) - 1, "rb");
	struct trace_reader *r = malloc(sizeof(*r));
	struct trace_ev e;
	char err[256];

	ck_assert_int_eq(trace_open_stream(r, f, err, sizeof(err)), 0);
	ck_assert_uint_eq(r->version, 1);
	ck_assert_str_eq(r->comment, "hi");
	ck_assert_int_eq(trace_next(r, &e, err, sizeof(err)), 1);
	ck_assert_uint_eq(e.tid, 100);
	ck_assert_int_eq(trace_next(r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.kind, TR_FAULT);
	ck_assert_uint_eq(e.addr, 0x10000);
	ck_assert_uint_eq(e.arg, TRACE_FAULT_WRITE);
	ck_assert_uint_eq(e.t_ns, 5);
	ck_assert_msg(trace_next(r, &e, err, sizeof(err)) == 0, "%s", err);
	free(r);
	fclose(f);
}
END_TEST

START_TEST(test_perf_lines)
{
	static char buf[1 << 14];
	FILE *f = fmemopen(buf, sizeof(buf), "wb");
	struct trace_writer *w = calloc(1, sizeof(*w));
	struct perf_conv *c = calloc(1, sizeof(*c));
	struct trace_reader r;
	struct trace_ev e;
	char err[256];
	size_t len;

	trace_writer_init(w, f, NULL);
	perf_conv_init(c, w);
	perf_conv_line(c, "  10/10 5.000000100:     syscalls:sys_enter_mmap: "
		       "addr: 0x00000000, len: 0x00002000, prot: 0x00000003, "
		       "flags: 0x00000022, fd: 0xffffffff, off: 0x00000000");
	perf_conv_line(c, "  10/11 5.000000150:  exceptions:page_fault_user: "
		       "address=0x7f0000001234 ip=0x4000 error_code=0x7");
	perf_conv_line(c, "  10/10 5.000000200:      syscalls:sys_exit_mmap: "
		       "0x7f0000000000");
	perf_conv_line(c, "  10/10 5.000000300:  syscalls:sys_enter_munmap: "
		       "addr: 0x7f0000000000, len: 0x00002000");
	perf_conv_line(c, "  10/10 5.000000400:   syscalls:sys_exit_munmap: "
		       "0xffffffffffffffea");
	perf_conv_line(c, "  99/99 5.000000500:  exceptions:page_fault_user: "
		       "address=0x1000 ip=0x4000 error_code=0x6");
	perf_conv_line(c, "  10/10 5.000000600: PERF_RECORD_LOST lost 33");
	ck_assert_int_eq(trace_writer_finish(w), 0);
	len = (size_t)ftell(f);
	fclose(f);
	ck_assert_uint_eq(c->other_pid, 1);
	ck_assert_uint_eq(c->lost, 33);
	f = fmemopen(buf, len, "rb");
	ck_assert_int_eq(trace_open_stream(&r, f, err, sizeof(err)), 0);
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.kind, TR_THREAD);
	ck_assert_uint_eq(e.tid, 10);
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.kind, TR_THREAD);           /* 11, at its fault */
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.kind, TR_FAULT);
	ck_assert_uint_eq(e.addr, 0x7f0000001000ULL);
	ck_assert_uint_eq(e.arg, TRACE_FAULT_WRITE | TRACE_FAULT_PRESENT);
	ck_assert_uint_eq(e.t_ns, 50);
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	/* Written at its exit, after the fault: its entry's time is raised
	 * to the fault's, as times never go back. */
	ck_assert_int_eq(e.kind, TR_MMAP);
	ck_assert_uint_eq(e.t_ns, 50);
	ck_assert_uint_eq(e.len, 0x2000);
	ck_assert_int_eq(e.fd, -1);
	ck_assert_int_eq(e.ret, 0x7f0000000000LL);
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.kind, TR_MUNMAP);
	ck_assert_int_eq(e.ret, -22);
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 0);
	fclose(f);
	free(w);
	perf_conv_fini(c);
	free(c);
}
END_TEST

/* A trace of hand-made events, written to path. */
static void write_events(const char *path, const struct trace_ev *ev, int n)
{
	FILE *f = fopen(path, "wb");
	struct trace_writer *w = calloc(1, sizeof(*w));

	trace_writer_init(w, f, "plan");
	for (int i = 0; i < n; i++) {
		struct trace_ev e = ev[i];

		e.thread = (uint32_t)trace_writer_thread(w, ev[i].thread, e.t_ns);
		trace_writer_put(w, &e);
	}
	ck_assert_int_eq(trace_writer_finish(w), 0);
	fclose(f);
	free(w);
}

/* A trace that maps nothing (its faults fall in the image and the
 * stack): the plan is built — no cluster, no sorting of nothing — and
 * says nothing can be replayed. Under the sanitizers too. */
START_TEST(test_plan_maps_nothing)
{
	const struct trace_ev ev[] = {
		{ .kind = TR_FAULT, .thread = 1, .t_ns = 1, .addr = 0x7ffd00000000UL,
		  .arg = TRACE_FAULT_WRITE },
		{ .kind = TR_FAULT, .thread = 1, .t_ns = 2, .addr = 0x555500001000UL },
	};
	char path[] = "/tmp/vmsim-test-trace-XXXXXX", err[256];
	struct rp_plan *p;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_events(path, ev, 2);
	ck_assert_msg(!rp_plan_load(path, &p, err, sizeof(err)), "%s", err);
	unlink(path);
	ck_assert_int_eq(p->ncl, 0);
	ck_assert_uint_eq(p->events, 2);
	ck_assert_uint_eq(p->skipped[RP_SKIP_NEVER_MAPPED], 2);
	ck_assert_uint_eq(p->skipped[RP_DO], 0);
	rp_plan_free(p);
}
END_TEST

/* A replay on the kernel column of a trace without brk leaves the host's
 * break alone: it is vmsim's own heap there, which malloc may have
 * grown since set-up (issue 64: moving it back at teardown cut a
 * renderer's replay's heap from under free()). */
extern void __tsan_init(void) __attribute__((weak));

START_TEST(test_replay_host_break)
{
	const struct trace_ev ev[] = {
		{ .kind = TR_MMAP, .thread = 0, .t_ns = 1, .addr = 0x7f0000000000UL,
		  .len = 0x2000, .arg = 3, .arg2 = 0x22, .fd = -1,
		  .ret = 0x7f0000000000L },
		{ .kind = TR_FAULT, .thread = 0, .t_ns = 2, .addr = 0x7f0000001000UL,
		  .arg = TRACE_FAULT_WRITE },
	};
	char path[] = "/tmp/vmsim-test-trace-XXXXXX", err[256];
	struct wl_opts o = { .iterations = 1 };
	struct sim_mm_cfg cfg = { .lock = &kernel_lock_ops,
				  .source = &kernel_fault_source };
	struct sim_mm *mm;
	struct rp_plan *p;
	void *shared = NULL;
	char *b;
	int fd = mkstemp(path);

	/* TSan's shadow owns the address range the kernel column's window
	 * takes (16 TiB up): the kernel column does not run under it. */
	if (__tsan_init) {
		close(fd);
		unlink(path);
		return;
	}
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_events(path, ev, 2);
	ck_assert_msg(!rp_plan_load(path, &p, err, sizeof(err)), "%s", err);
	unlink(path);
	ck_assert(!p->have_brk);
	cfg.arena_size = (p->arena_need + 4095) & ~4095UL;
	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	o.replay = p;
	ck_assert_int_eq(replay_workload.setup(mm, &o, p->nthreads, &shared), 0);
	/* The break as the kernel has it (glibc's sbrk(0) answers from a
	 * cache of its own). */
	b = (char *)syscall(SYS_brk, 0);
	ck_assert_ptr_eq((char *)syscall(SYS_brk, b + (1 << 20)), b + (1 << 20));
	replay_workload.teardown(mm, &o, shared);
	ck_assert_ptr_eq((char *)syscall(SYS_brk, 0), b + (1 << 20));
	syscall(SYS_brk, b);
	sim_mm_destroy(mm);
	rp_plan_free(p);
}
END_TEST

START_TEST(test_plan)
{
	const unsigned long A = 0x7f0000000000UL, H = 0x555500000000UL;
	const struct trace_ev ev[] = {
		{ .kind = TR_BRK, .thread = 1, .t_ns = 1, .ret = (int64_t)H },
		{ .kind = TR_MMAP, .thread = 1, .t_ns = 2, .len = 0x10000,
		  .arg = PROT_READ | PROT_WRITE, .arg2 = MAP_PRIVATE | MAP_ANONYMOUS,
		  .fd = -1, .ret = (int64_t)A },
		{ .kind = TR_FAULT, .thread = 2, .t_ns = 3, .addr = A + 0x3000,
		  .arg = TRACE_FAULT_WRITE },
		{ .kind = TR_FAULT, .thread = 2, .t_ns = 4, .addr = 0x7ffd00000000UL },
		{ .kind = TR_BRK, .thread = 2, .t_ns = 5, .addr = H + 0x21000,
		  .ret = (int64_t)(H + 0x21000) },
		{ .kind = TR_MPROTECT, .thread = 1, .t_ns = 6, .addr = A,
		  .len = 0x1000, .arg = PROT_READ },
		{ .kind = TR_MPROTECT, .thread = 1, .t_ns = 7, .addr = 0x1000,
		  .len = 0x1000, .arg = PROT_READ },
		{ .kind = TR_MUNMAP, .thread = 1, .t_ns = 8, .addr = A,
		  .len = 0x10000, .ret = -22 },
		{ .kind = TR_MADVISE, .thread = 2, .t_ns = 9, .addr = A,
		  .len = 0x10000, .arg = MADV_HUGEPAGE },
		{ .kind = TR_FAULT, .thread = 1, .t_ns = 10, .addr = H + 0x5000 },
		{ .kind = TR_MUNMAP, .thread = 1, .t_ns = 11, .addr = A,
		  .len = 0x10000 },
	};
	char path[] = "/tmp/vmsim-test-trace-XXXXXX", err[256];
	struct rp_plan *p;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_events(path, ev, sizeof(ev) / sizeof(ev[0]));
	ck_assert_msg(!rp_plan_load(path, &p, err, sizeof(err)), "%s", err);
	unlink(path);
	ck_assert_int_eq(p->nthreads, 2);
	ck_assert_int_eq(p->ncl, 2);               /* heap; mmap area */
	ck_assert_uint_eq(p->events, 11);
	ck_assert_uint_eq(p->skipped[RP_SKIP_FAILED], 1);       /* munmap */
	ck_assert_uint_eq(p->skipped[RP_SKIP_NEVER_MAPPED], 2); /* stack,
								 * RELRO */
	ck_assert_uint_eq(p->skipped[RP_SKIP_ADVICE], 1);
	ck_assert_uint_eq(p->nlayout, 5);    /* brk, mmap, brk, mprotect,
					      * munmap */
	/* The fault at A+0x3000 waits for the mmap (rank 1); its arena
	 * offset keeps A's place in its cluster. */
	ck_assert_uint_eq(p->th[1].ops[0].rank, 1);
	ck_assert_uint_eq(p->th[1].ops[0].off - p->th[0].ops[1].off, 0x3000);
	/* The second brk waits for the first (rank 0); the heap fault after
	 * it for it (rank 2). */
	ck_assert_uint_eq(p->th[1].ops[2].ndeps, 1);
	ck_assert_uint_eq(p->deps[p->th[1].ops[2].dep0], 0);
	ck_assert_uint_eq(p->th[0].ops[5].rank, 2);
	ck_assert_uint_lt(p->arena_need, 16UL << 20);
	/* The munmap waits for the calls before it on its range — the
	 * mprotect of its first page (rank 3), the mmap of the rest (rank
	 * 1) — and for the other thread's fault there (its op 0), which is
	 * marked so that thread publishes its progress after it, and only
	 * there. */
	ck_assert_uint_eq(p->th[0].ops[6].ndeps, 2);
	ck_assert_uint_eq(p->deps[p->th[0].ops[6].dep0], 3);
	ck_assert_uint_eq(p->deps[p->th[0].ops[6].dep0 + 1], 1);
	ck_assert_uint_eq(p->th[0].ops[6].ntdeps, 1);
	ck_assert_uint_eq(p->tdeps[p->th[0].ops[6].tdep0].thread, 1);
	ck_assert_uint_eq(p->tdeps[p->th[0].ops[6].tdep0].idx, 0);
	ck_assert(p->th[1].ops[0].waited);
	ck_assert(!p->th[1].ops[1].waited && !p->th[0].ops[5].waited);
	rp_plan_free(p);
}
END_TEST

/* The host's mmap_lock from its tracepoints: a munmap that downgrades
 * (mmap_write_downgrade reports a read acquisition while the write side
 * is held) ends its write hold there; the read hold runs to the release. */
START_TEST(test_perf_lock_downgrade)
{
	static char buf[1 << 12];
	FILE *f = fmemopen(buf, sizeof(buf), "wb");
	struct trace_writer *w = calloc(1, sizeof(*w));
	struct perf_conv *c = calloc(1, sizeof(*c));
	const char *mm = "mm=0xffff888100000000 memcg_id=0";
	const struct perf_mm *m;
	char l[256];

	trace_writer_init(w, f, NULL);
	perf_conv_init(c, w);
	snprintf(l, sizeof(l), "  10/10 5.000001000: mmap_lock:mmap_lock_start_locking: %s write=true", mm);
	perf_conv_line(c, l);
	snprintf(l, sizeof(l), "  10/10 5.000001100: mmap_lock:mmap_lock_acquire_returned: %s write=true success=true", mm);
	perf_conv_line(c, l);
	snprintf(l, sizeof(l), "  10/10 5.000001600: mmap_lock:mmap_lock_acquire_returned: %s write=false success=true", mm);
	perf_conv_line(c, l);
	snprintf(l, sizeof(l), "  10/10 5.000004600: mmap_lock:mmap_lock_released: %s write=false", mm);
	perf_conv_line(c, l);
	perf_conv_flush(c);
	m = perf_conv_traced(c);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->lock[1].acquired, 1);
	ck_assert_uint_eq(m->lock[1].wait_ns, 100);
	ck_assert_uint_eq(m->lock[1].hold_ns, 500);   /* to the downgrade */
	ck_assert_uint_eq(m->lock[0].acquired, 1);
	ck_assert_uint_eq(m->lock[0].hold_ns, 3000);  /* to the release */
	ck_assert_uint_eq(m->cause[PC_DOWNGRADE][0], 1);
	ck_assert_uint_eq(m->cause[PC_OTHER][1], 1);  /* no chain given */
	ck_assert_uint_eq(c->bad_lines, 0);
	perf_conv_fini(c);
	fclose(f);
	free(c);
	free(w);
}
END_TEST

/* One mmap_lock line of thread tid at usec ("start_locking", "released",
 * or "acquire_returned" with its chain: frames innermost first). */
static void lock_line(struct perf_conv *c, int tid, int usec, const char *what,
		      bool write, const char *const *frames)
{
	char l[256];

	snprintf(l, sizeof(l), "  10/%d 5.%09d: mmap_lock:mmap_lock_%s: "
		 "mm=0xffff888100000000 memcg_id=1 write=%s%s", tid, usec * 1000,
		 what, write ? "true" : "false", frames ? " success=true" : "");
	perf_conv_line(c, l);
	for (; frames && *frames; frames++) {
		snprintf(l, sizeof(l), "\t%s", *frames);
		perf_conv_line(c, l);
	}
	if (frames)
		perf_conv_line(c, "");
}

/* Who waited, behind whom (issue 64): tid 11's munmap waits 1 ms for the
 * write side while tid 10's mmap holds it; tid 12's fault, asking after
 * the lock is free but queued behind 11, is put behind the last to
 * release it before it got the lock. Each thread's waits against its
 * run (its first to its last event). */
START_TEST(test_perf_waits)
{
	static const char *const ch_mmap[] = {
		"ffffffff81300000 down_write_killable",
		"ffffffff81311111 vm_mmap_pgoff+0x9c", NULL };
	static const char *const ch_munmap[] = {
		"ffffffff81322222 __vm_munmap", NULL };
	static const char *const ch_fault[] = {
		"ffffffff815f7e73 lock_mm_and_find_vma",
		"ffffffff82261868 exc_page_fault",
		"ffffffff81000c82 asm_exc_page_fault", NULL };
	static char buf[1 << 12];
	FILE *f = fmemopen(buf, sizeof(buf), "wb");
	struct trace_writer *w = calloc(1, sizeof(*w));
	struct perf_conv *c = calloc(1, sizeof(*c));
	const struct perf_wait_thread *t;
	const struct perf_waits *pw = &c->waits;

	trace_writer_init(w, f, NULL);
	perf_conv_init(c, w);
	lock_line(c, 10, 1000, "start_locking", true, NULL);
	lock_line(c, 10, 1000, "acquire_returned", true, ch_mmap);
	lock_line(c, 11, 1100, "start_locking", true, NULL);
	lock_line(c, 10, 2100, "released", true, NULL);
	lock_line(c, 12, 2100, "start_locking", false, NULL);
	lock_line(c, 11, 2100, "acquire_returned", true, ch_munmap);
	lock_line(c, 11, 2400, "released", true, NULL);
	lock_line(c, 12, 2400, "acquire_returned", false, ch_fault);
	lock_line(c, 12, 2500, "released", false, NULL);
	lock_line(c, 10, 11000, "start_locking", false, NULL);
	perf_conv_flush(c);
	ck_assert_int_eq(pw->ntop, 2);
	ck_assert_uint_eq(pw->top[0].wait_ns, 1000000);
	ck_assert_uint_eq(pw->top[0].waiter.tid, 11);
	ck_assert_uint_eq(pw->top[0].waiter.write, 1);
	ck_assert_int_eq(pw->top[0].waiter.cause, PC_MMAP_CALL);
	ck_assert_str_eq(pw->sites[pw->top[0].waiter.site], "__vm_munmap");
	ck_assert(pw->top[0].have_holder);
	ck_assert_uint_eq(pw->top[0].holder.tid, 10);
	ck_assert_uint_eq(pw->top[0].holder.write, 1);
	ck_assert_str_eq(pw->sites[pw->top[0].holder.site], "vm_mmap_pgoff");
	ck_assert_uint_eq(pw->top[1].wait_ns, 300000);
	ck_assert_uint_eq(pw->top[1].waiter.tid, 12);
	ck_assert(pw->top[1].have_holder);
	ck_assert_uint_eq(pw->top[1].holder.tid, 11);
	t = perf_waits_thread(pw, 11);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->wait_ns[1], 1000000);
	ck_assert_uint_eq(t->wait_ns[0], 0);
	t = perf_waits_thread(pw, 10);
	ck_assert_uint_eq(t->t_last - t->t_first, 10000000);   /* 10 ms */
	ck_assert_uint_eq(t->wait_ns[0] + t->wait_ns[1], 0);
	perf_conv_fini(c);
	fclose(f);
	free(c);
	free(w);
}
END_TEST

/* One acquisition of mm by tid 10 at usec, with the given chain (frames
 * innermost first, "" ends). */
static void lock_with_chain(struct perf_conv *c, const char *mm, int usec,
			    bool write, const char *const *frames)
{
	char l[256];

	snprintf(l, sizeof(l), "  10/10 5.%09d: mmap_lock:mmap_lock_acquire_returned: "
		 "mm=%s memcg_id=1 write=%s success=true", usec * 1000, mm,
		 write ? "true" : "false");
	perf_conv_line(c, l);
	for (; *frames; frames++) {
		snprintf(l, sizeof(l), "\t%s", *frames);
		perf_conv_line(c, l);
	}
	perf_conv_line(c, "");
}

/* Kernel-mode faults (exceptions:page_fault_kernel, fields by name, ip a
 * symbol) at user addresses become faults with TRACE_FAULT_KERNEL; at
 * kernel addresses they are left out. Each acquisition is put down to
 * its cause by its call chain, on its own address space: fork's nested
 * lock of the child's mm is another's, and the traced mm is the one the
 * process took last outside fork. */
static const char *const ch_kfault[] = {
	"ffffffff815f7e73 lock_mm_and_find_vma",
	"ffffffff82261868 exc_page_fault",
	"ffffffff81000c82 asm_exc_page_fault",
	"ffffffff81612345 _copy_to_iter", NULL };
static const char *const ch_ufault[] = {
	"ffffffff815f7e73 lock_mm_and_find_vma",
	"ffffffff82261868 exc_page_fault",
	"ffffffff81000c82 asm_exc_page_fault", NULL };
static const char *const ch_exec_fault[] = {
	"ffffffff815f7e73 lock_mm_and_find_vma",
	"ffffffff82261868 exc_page_fault",
	"ffffffff81000c82 asm_exc_page_fault",
	"ffffffff8177821a elf_load",
	"ffffffff817788aa load_elf_binary",
	"ffffffff816e35ad bprm_execve", NULL };
static const char *const ch_anon[] = {
	"ffffffff815f6fa0 __mmap_lock_do_trace_acquire_returned",
	"ffffffff81600000 __vmf_anon_prepare",
	"ffffffff81600100 do_anonymous_page",
	"ffffffff82261868 exc_page_fault",
	"ffffffff81000c82 asm_exc_page_fault", NULL };
static const char *const ch_mmap_call[] = {
	"ffffffff815f6fa0 __mmap_lock_do_trace_acquire_returned",
	"ffffffff815d3b82 vm_mmap_pgoff",
	"ffffffff815d3c00 ksys_mmap_pgoff", NULL };
static const char *const ch_mprotect[] = {
	"ffffffff815f6fa0 __mmap_lock_do_trace_acquire_returned",
	"ffffffff815d4000 do_mprotect_pkey", NULL };
static const char *const ch_fork[] = {
	"ffffffff815f6fa0 __mmap_lock_do_trace_acquire_returned",
	"ffffffff81100000 dup_mmap",
	"ffffffff81100100 copy_process", NULL };
static const char *const ch_madv[] = {
	"ffffffff815f6fa0 madvise_do_behavior",
	"ffffffff815f6fb0 do_madvise.part.0", NULL };
/* The trace test_perf_kernel_causes made: THREAD, MMAP, the kernel-mode
 * fault at a user address (flagged), the two user faults, the mprotect. */
static void check_kernel_trace(char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "rb");
	struct trace_reader r;
	struct trace_ev e;
	char err[256];

	ck_assert_int_eq(trace_open_stream(&r, f, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.version, 3);
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.kind, TR_MMAP);
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.kind, TR_FAULT);
	ck_assert_uint_eq(e.addr, 0x7f0000001000);
	ck_assert_uint_eq(e.arg, TRACE_FAULT_KERNEL | TRACE_FAULT_WRITE);
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	ck_assert_uint_eq(e.arg, TRACE_FAULT_EXEC);    /* 0x14: instr, user */
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	ck_assert_uint_eq(e.addr, 0x7f0000000000);
	ck_assert_uint_eq(e.arg, TRACE_FAULT_WRITE);
	ck_assert_int_eq(trace_next(&r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.kind, TR_MPROTECT);
	ck_assert_msg(trace_next(&r, &e, err, sizeof(err)) == 0, "%s", err);
	fclose(f);
}

START_TEST(test_perf_kernel_causes)
{
	static char buf[1 << 14];
	FILE *f = fmemopen(buf, sizeof(buf), "wb");
	struct trace_writer *w = calloc(1, sizeof(*w));
	struct perf_conv *c = calloc(1, sizeof(*c));
	const char *mm = "0xffff888100000000", *child = "0xffff888200000000";
	const struct perf_mm *m;
	size_t len;

	trace_writer_init(w, f, NULL);
	perf_conv_init(c, w);
	/* An exec's first acquisitions (its own kernel-mode faults too) are
	 * of the new address space, before its sched_process_exec: a table
	 * that address had before (a freed mm's) starts again. */
	lock_with_chain(c, mm, 0, true, ch_mmap_call);
	lock_with_chain(c, mm, 0, false, ch_exec_fault);
	perf_conv_line(c, "  10/10 5.000000050: sched:sched_process_exec: "
		       "filename=/bin/prog pid=10 old_pid=10");
	perf_conv_line(c, "  10/10 5.000000100:     syscalls:sys_enter_mmap: "
		       "addr: 0x00000000, len: 0x00002000, prot: 0x00000003, "
		       "flags: 0x00000022, fd: 0xffffffff, off: 0x00000000 "
		       "ffffffff8225bc41 do_syscall_64");
	perf_conv_line(c, "  10/10 5.000000200:      syscalls:sys_exit_mmap: "
		       "0x7f0000000000 ffffffff8225bc41 do_syscall_64");
	perf_conv_line(c, "  10/10 5.000000300: exceptions:page_fault_kernel: "
		       "address=0x7f0000001234 ip=_copy_to_iter error_code=0x2 "
		       "ffffffff82261a61 exc_page_fault");
	lock_with_chain(c, mm, 1, false, ch_kfault);
	perf_conv_line(c, "  10/10 5.000000400: exceptions:page_fault_kernel: "
		       "address=0xffffc90000001000 ip=vmalloc_thing error_code=0x0 "
		       "ffffffff82261a61 exc_page_fault");
	/* A user fault outside what the trace maps (the vdso), then one in
	 * its mapping: both fell back to the mm lock. */
	perf_conv_line(c, "  10/10 5.000000500:  exceptions:page_fault_user: "
		       "address=0x7ffd00000080 ip=0x7ffd00000080 error_code=0x14 "
		       "ffffffff82261980 exc_page_fault");
	lock_with_chain(c, mm, 2, false, ch_ufault);
	perf_conv_line(c, "  10/10 5.000000600:  exceptions:page_fault_user: "
		       "address=0x7f0000000010 ip=0x4000 error_code=0x6 "
		       "ffffffff82261980 exc_page_fault");
	lock_with_chain(c, mm, 3, false, ch_ufault);
	lock_with_chain(c, mm, 4, false, ch_anon);
	lock_with_chain(c, mm, 5, false, ch_madv);
	lock_with_chain(c, mm, 7, true, ch_mmap_call);   /* held: no release */
	/* ld.so's RELRO mprotect of the image: a range the trace never
	 * maps, a call a replay skips. */
	perf_conv_line(c, "  10/10 5.000007500: syscalls:sys_enter_mprotect: "
		       "start: 0x55550000, len: 0x00001000, prot: 0x00000001");
	lock_with_chain(c, mm, 8, true, ch_mprotect);
	perf_conv_line(c, "  10/10 5.000008500: syscalls:sys_exit_mprotect: 0x0");
	lock_with_chain(c, mm, 8, true, ch_fork);
	lock_with_chain(c, child, 9, true, ch_fork);   /* nested: the child's */
	perf_conv_fini(c);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	len = (size_t)ftell(f);
	fclose(f);
	ck_assert_uint_eq(c->bad_lines, 0);
	ck_assert_uint_eq(c->kernel_faults, 1);
	ck_assert_uint_eq(c->kernel_faults_high, 1);
	m = perf_conv_traced(c);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(perf_conv_cause_names[PC_KERNEL_FAULT], "kernel_fault");
	ck_assert_uint_eq(m->cause[PC_KERNEL_FAULT][0], 1);
	ck_assert_uint_eq(m->cause[PC_FAULT_UNMAPPED][0], 1);
	ck_assert_uint_eq(m->cause[PC_FAULT_FALLBACK][0], 1);
	ck_assert_uint_eq(m->cause[PC_ANON_TRYLOCK][0], 1);
	ck_assert_uint_eq(m->cause[PC_MMAP_CALL][1], 1);
	ck_assert_uint_eq(m->cause[PC_EXEC][0], 1);
	ck_assert_uint_eq(m->cause[PC_MADVISE][0], 1);
	ck_assert_uint_eq(m->cause[PC_FORK][1], 1);
	ck_assert_uint_eq(m->lock[0].acquired, 6);
	ck_assert_uint_eq(m->cause[PC_CALL_UNMAPPED][1], 1);
	ck_assert_uint_eq(m->lock[1].acquired, 3);
	ck_assert_uint_eq(perf_conv_other_mms(c), 1);
	ck_assert(perf_conv_replayable(PC_KERNEL_FAULT));
	ck_assert(!perf_conv_replayable(PC_EXEC));
	ck_assert(!perf_conv_replayable(PC_FAULT_UNMAPPED));
	check_kernel_trace(buf, len);
	free(c);
	free(w);
}
END_TEST

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A newer trace than this vmsim reads is refused in one line; a
 * version 2 one (3 flag bits) is read with its flags where they were. */
START_TEST(test_version_bounds)
{
	static const char v4[] = "VMSIMTRC\x04\x00";
	static const char v2[] = "VMSIMTRC\x02\x00";
	unsigned char head[64], whole[128];
	FILE *f = fmemopen((void *)v4, sizeof(v4) - 1, "rb");
	struct trace_reader *r = malloc(sizeof(*r));
	struct trace_ev e;
	char err[256];
	size_t h = sizeof(v2) - 1, n = 0;
	/* Records: THREAD 0 tid 7; FAULT page 16 write+exec, old layout. */
	static const unsigned char rec[] = { 1, 0, 0, 7, 2, 0, 5, 0x85, 0x02,
					     9, 2 };

	ck_assert_int_eq(trace_open_stream(r, f, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "trace version 4; this vmsim reads versions 1 to 3"),
		      "%s", err);
	fclose(f);
	memcpy(head, v2, h);
	memcpy(whole, head, h);
	n = h;
	put_le32(whole + n, (uint32_t)crc32(0L, head, (uInt)h));
	n += 4;
	whole[n++] = sizeof(rec);
	memcpy(whole + n, rec, sizeof(rec));
	n += sizeof(rec);
	put_le32(whole + n, (uint32_t)crc32(0L, rec, sizeof(rec)));
	n += 4;
	f = fmemopen(whole, n, "rb");
	ck_assert_msg(trace_open_stream(r, f, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(r->version, 2);
	ck_assert_int_eq(trace_next(r, &e, err, sizeof(err)), 1);
	ck_assert_msg(trace_next(r, &e, err, sizeof(err)) == 1, "%s", err);
	ck_assert_uint_eq(e.addr, 0x10000);
	ck_assert_uint_eq(e.arg, TRACE_FAULT_WRITE | TRACE_FAULT_EXEC);
	ck_assert_msg(trace_next(r, &e, err, sizeof(err)) == 0, "%s", err);
	fclose(f);
	free(r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("core");

	/* Generous: a sanitizer build on a busy machine runs many times slower. */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_bit_flips);
	tcase_add_test(tc, test_version1);
	tcase_add_test(tc, test_perf_lines);
	tcase_add_test(tc, test_perf_exec);
	tcase_add_test(tc, test_perf_follow_fork);
	tcase_add_test(tc, test_perf_lock_downgrade);
	tcase_add_test(tc, test_perf_waits);
	tcase_add_test(tc, test_perf_kernel_causes);
	tcase_add_test(tc, test_version_bounds);
	tcase_add_test(tc, test_plan);
	tcase_add_test(tc, test_plan_maps_nothing);
	tcase_add_test(tc, test_replay_host_break);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
