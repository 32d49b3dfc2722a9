/* SPDX-License-Identifier: MIT */
/*
 * perf script's text, one line at a time, into trace events. A line is
 *   PID/TID SEC.NSEC: GROUP:NAME: FIELDS
 * where FIELDS are "name: 0xHEX, ..." for a syscall's entry, "0xHEX" (the
 * return value) for its exit, and "address=0x.. ip=0x.. error_code=0x.."
 * for a user page fault.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/trace/perf_conv.h"

const char *const perf_conv_events[] = {
	"syscalls:sys_enter_mmap", "syscalls:sys_exit_mmap",
	"syscalls:sys_enter_munmap", "syscalls:sys_exit_munmap",
	"syscalls:sys_enter_mprotect", "syscalls:sys_exit_mprotect",
	"syscalls:sys_enter_mremap", "syscalls:sys_exit_mremap",
	"syscalls:sys_enter_madvise", "syscalls:sys_exit_madvise",
	"syscalls:sys_enter_brk", "syscalls:sys_exit_brk",
	"exceptions:page_fault_user", "sched:sched_process_exec", NULL,
};

const char *const perf_conv_lock_events[] = {
	"mmap_lock:mmap_lock_start_locking",
	"mmap_lock:mmap_lock_acquire_returned",
	"mmap_lock:mmap_lock_released", NULL,
};

/* x86 page-fault error code bits (arch/x86/include/asm/trap_pf.h). */
#define X86_PF_PROT  0x1
#define X86_PF_WRITE 0x2
#define X86_PF_INSTR 0x10

static const struct {
	const char *name;
	enum trace_kind kind;
	int nfields;                     /* hex fields of the entry */
} calls[] = {
	{ "mmap", TR_MMAP, 6 }, { "munmap", TR_MUNMAP, 2 },
	{ "mprotect", TR_MPROTECT, 3 }, { "mremap", TR_MREMAP, 5 },
	{ "madvise", TR_MADVISE, 3 }, { "brk", TR_BRK, 1 },
};

void perf_conv_init(struct perf_conv *c, struct trace_writer *w)
{
	memset(c, 0, sizeof(*c));
	c->w = w;
	c->pid = -1;
}

/* Up to n hex values, each after ": 0x" or "=0x", in order. */
static int hex_fields(const char *s, uint64_t *v, int n)
{
	int k = 0;

	while (k < n && (s = strstr(s, "0x"))) {
		char *end;

		v[k++] = strtoull(s + 2, &end, 16);
		s = end;
	}
	return k;
}

static void put_fault(struct perf_conv *c, int th, uint64_t t,
		      const char *f)
{
	uint64_t v[3];
	struct trace_ev ev = { .kind = TR_FAULT, .thread = (uint32_t)th,
			       .t_ns = t };

	if (hex_fields(f, v, 3) != 3 || v[0] >= TRACE_ADDR_LIMIT) {
		c->bad_lines++;
		return;
	}
	ev.addr = v[0] & ~4095ULL;
	ev.arg = (v[2] & X86_PF_WRITE ? TRACE_FAULT_WRITE : 0) |
		 (v[2] & X86_PF_PROT ? TRACE_FAULT_PRESENT : 0) |
		 (v[2] & X86_PF_INSTR ? TRACE_FAULT_EXEC : 0);
	trace_writer_put(c->w, &ev);
}

static void enter_call(struct perf_conv *c, int th, uint64_t t, int call,
		       const char *f)
{
	uint64_t v[6] = { 0 };
	struct trace_ev *ev = &c->pend[th];

	if (hex_fields(f, v, calls[call].nfields) != calls[call].nfields) {
		c->bad_lines++;
		return;
	}
	if (c->open[th])
		c->unpaired++;               /* an entry whose exit was lost */
	memset(ev, 0, sizeof(*ev));
	ev->kind = calls[call].kind;
	ev->thread = (uint32_t)th;
	ev->t_ns = t;
	ev->addr = v[0];
	ev->len = v[1];
	switch (ev->kind) {
	case TR_MMAP:
		ev->arg = v[2]; ev->arg2 = v[3];
		ev->fd = (int32_t)(uint32_t)v[4]; ev->arg3 = v[5];
		break;
	case TR_MPROTECT: case TR_MADVISE:
		ev->arg = v[2];
		break;
	case TR_MREMAP:
		ev->arg = v[2]; ev->arg2 = v[3]; ev->arg3 = v[4];
		break;
	default:
		break;
	}
	if (ev->addr >= TRACE_ADDR_LIMIT || ev->len >= TRACE_ADDR_LIMIT ||
	    ev->arg3 >= TRACE_ADDR_LIMIT ||
	    (ev->kind == TR_MREMAP && ev->arg >= TRACE_ADDR_LIMIT)) {
		c->bad_lines++;
		return;
	}
	c->open[th] = true;
}

static void exit_call(struct perf_conv *c, int th, int call, const char *f)
{
	struct trace_ev *ev = &c->pend[th];
	uint64_t v;

	if (!c->open[th] || ev->kind != calls[call].kind) {
		c->unpaired++;
		return;
	}
	c->open[th] = false;
	if (hex_fields(f, &v, 1) != 1) {
		c->bad_lines++;
		return;
	}
	ev->ret = (int64_t)v;
	if (ev->ret >= (int64_t)TRACE_ADDR_LIMIT || ev->ret < -4095) {
		c->bad_lines++;
		return;
	}
	trace_writer_put(c->w, ev);
}

/* The traced process exec'd (fields "filename=F pid=P old_pid=P"): a new
 * address space, so the trace starts again, if it has begun — or if it
 * began again before, so that its comment names the newest program, the
 * one the user is told of, even when nothing came between two execs. */
static void on_exec(struct perf_conv *c, const char *f)
{
	const char *fn = strstr(f, "filename="), *end;
	size_t n;

	if (!fn)
		return;
	fn += 9;
	/* The path may hold spaces: it ends where the pid field begins. */
	end = strstr(fn, " pid=");
	n = end ? (size_t)(end - fn) : strlen(fn);
	snprintf(c->exe, sizeof(c->exe), "%.*s", (int)(n < sizeof(c->exe) - 1 ?
		 n : sizeof(c->exe) - 1), fn);
	if ((!c->w->nevents && !c->dropped) || !c->restart)
		return;
	c->dropped += c->w->nevents;
	c->err = c->restart(c->restart_arg, c->exe);
	memset(c->lock, 0, sizeof(c->lock));
	memset(c->held, 0, sizeof(c->held));
	memset(c->open, 0, sizeof(c->open));
	c->started = false;
}

/* A hold of side from t0 ends at t. */
static void close_hold(struct perf_lockside *side, uint64_t t0, uint64_t t)
{
	uint64_t d = t > t0 ? t - t0 : 0;

	side->hold_ns += d;
	if (d > side->hold_max)
		side->hold_max = d;
}

/* One mmap_lock event of thread tid at t: "start_locking" (asks),
 * "acquire_returned" (got it, or a trylock failed), "released". */
static void on_lock(struct perf_conv *c, uint32_t tid, uint64_t t,
		    const char *name, const char *f)
{
	uint32_t h = (tid * 2654435761u) % PERF_LOCK_SLOTS;
	bool write = strstr(f, "write=true") != NULL;
	struct perf_lockside *side = &c->lock[write];

	for (int n = 0; c->held[h].tid && c->held[h].tid != tid &&
	     n < PERF_LOCK_SLOTS; n++)
		h = (h + 1) % PERF_LOCK_SLOTS;
	if (c->held[h].tid && c->held[h].tid != tid)
		return;                      /* more threads than slots */
	c->held[h].tid = tid;
	if (!strcmp(name, "mmap_lock_start_locking")) {
		c->held[h].state = 1;
		c->held[h].t = t;
	} else if (!strcmp(name, "mmap_lock_acquire_returned")) {
		uint64_t w = c->held[h].state == 1 && t > c->held[h].t ?
			     t - c->held[h].t : 0;

		if (strstr(f, "success=false")) {
			side->failed++;
			c->held[h].state = 0;
			return;
		}
		/* mmap_write_downgrade() reports a read acquisition while the
		 * write side is held: the write hold ends there. */
		if (c->held[h].state == 2)
			close_hold(&c->lock[c->held[h].write], c->held[h].t, t);
		c->held[h].write = write;
		side->acquired++;
		side->wait_ns += w;
		if (w > side->wait_max)
			side->wait_max = w;
		c->held[h].state = 2;
		c->held[h].t = t;
	} else if (c->held[h].state == 2) {   /* released */
		close_hold(side, c->held[h].t, t);
		c->held[h].state = 0;
	}
}

/* "sys_enter_mmap" -> the call's index and whether it is the entry. */
static int which_call(const char *name, bool *enter)
{
	const char *n;

	if (!strncmp(name, "sys_enter_", 10))
		*enter = true, n = name + 10;
	else if (!strncmp(name, "sys_exit_", 9))
		*enter = false, n = name + 9;
	else
		return -1;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(n, calls[i].name))
			return (int)i;
	return -1;
}

void perf_conv_line(struct perf_conv *c, const char *line)
{
	long pid, tid;
	unsigned long long sec, nsec;
	char group[32], name[48];
	int pos = 0, th, call;
	uint64_t t;
	bool enter;

	if (sscanf(line, " %ld/%ld %llu.%llu: %31[^:]:%47[^:]:%n", &pid, &tid,
		   &sec, &nsec, group, name, &pos) < 6 || !pos) {
		const char *l = strstr(line, "PERF_RECORD_LOST lost ");

		if (l)
			c->lost += strtoull(l + 22, NULL, 10);
		else
			c->bad_lines++;
		return;
	}
	if (c->pid < 0)
		c->pid = pid;
	if (pid != c->pid) {
		c->other_pid++;
		return;
	}
	if (!strcmp(group, "sched") && !strcmp(name, "sched_process_exec")) {
		on_exec(c, line + pos);
		return;
	}
	t = sec * 1000000000ULL + nsec;
	if (!strcmp(group, "mmap_lock")) {
		on_lock(c, (uint32_t)tid, t, name, line + pos);
		return;
	}
	if (!c->started)
		c->t0 = t, c->started = true;
	t = t > c->t0 ? t - c->t0 : 0;
	if ((th = trace_writer_thread(c->w, (uint32_t)tid, t)) < 0) {
		c->too_many_threads++;
		return;
	}
	if (!strcmp(group, "exceptions") && !strcmp(name, "page_fault_user"))
		put_fault(c, th, t, line + pos);
	else if (!strcmp(group, "syscalls") &&
		 (call = which_call(name, &enter)) >= 0)
		enter ? enter_call(c, th, t, call, line + pos)
		      : exit_call(c, th, call, line + pos);
	else
		c->bad_lines++;
}
