/* SPDX-License-Identifier: MIT */
/*
 * perf script's text, one line at a time, into trace events. A line is
 *   PID/TID SEC.NSEC: GROUP:NAME: FIELDS
 * where FIELDS are "name: 0xHEX, ..." for a syscall's entry, "0xHEX" (the
 * return value) for its exit, "address=0x.. ip=.. error_code=0x.." for a
 * page fault (ip a symbol for a kernel-mode one), and "mm=0x..
 * memcg_id=N write=B [success=B]" for the mmap_lock; then the sample's
 * ip and symbol. An acquisition's line is followed by its call chain,
 * "\tHEX SYMBOL" a frame, innermost first, and an empty line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/perf_conv.h"

const char *const perf_conv_events[] = {
	"syscalls:sys_enter_mmap", "syscalls:sys_exit_mmap",
	"syscalls:sys_enter_munmap", "syscalls:sys_exit_munmap",
	"syscalls:sys_enter_mprotect", "syscalls:sys_exit_mprotect",
	"syscalls:sys_enter_mremap", "syscalls:sys_exit_mremap",
	"syscalls:sys_enter_madvise", "syscalls:sys_exit_madvise",
	"syscalls:sys_enter_brk", "syscalls:sys_exit_brk",
	"exceptions:page_fault_user", "exceptions:page_fault_kernel",
	"sched:sched_process_exec", "task:task_newtask", NULL,
};

const char *const perf_conv_lock_events[] = {
	"mmap_lock:mmap_lock_start_locking",
	"mmap_lock:mmap_lock_acquire_returned",
	"mmap_lock:mmap_lock_released", NULL,
};

const char perf_conv_chain_event[] = "mmap_lock:mmap_lock_acquire_returned";

const char *const perf_conv_cause_names[PC_NCAUSES] = {
	[PC_FAULT_FALLBACK] = "fault_fallback",
	[PC_FAULT_UNMAPPED] = "fault_unmapped",
	[PC_KERNEL_FAULT] = "kernel_fault",
	[PC_ANON_TRYLOCK] = "anon_vma_trylock",
	[PC_DOWNGRADE] = "downgrade",
	[PC_MADVISE] = "madvise",
	[PC_MMAP_CALL] = "mmap_call",
	[PC_CALL_UNMAPPED] = "call_unmapped",
	[PC_EXEC] = "exec",
	[PC_EXIT] = "exit",
	[PC_FORK] = "fork",
	[PC_OTHER] = "other",
};

bool perf_conv_replayable(enum perf_cause k)
{
	return k != PC_FAULT_UNMAPPED && k != PC_CALL_UNMAPPED && k != PC_EXEC &&
	       k != PC_EXIT && k != PC_FORK && k != PC_OTHER;
}

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

/* The hex value of field name ("address=0x1234"), by name: 0, or -1
 * when it is not there. */
static int named_hex(const char *f, const char *name, uint64_t *v)
{
	size_t n = strlen(name);

	for (const char *p = f; (p = strstr(p, name)); p += n) {
		char *end;

		if ((p != f && p[-1] != ' ') || strncmp(p + n, "=0x", 3))
			continue;
		*v = strtoull(p + n + 3, &end, 16);
		return end == p + n + 3 ? -1 : 0;
	}
	return -1;
}

/* x86 user addresses: below the canonical hole. */
#define PERF_USER_LIMIT 0x800000000000ULL

static void put_fault(struct perf_conv *c, int th, uint64_t t,
		      const char *f, bool kernel)
{
	uint64_t addr, code;
	struct trace_ev ev = { .kind = TR_FAULT, .thread = (uint32_t)th,
			       .t_ns = t };

	if (named_hex(f, "address", &addr) || named_hex(f, "error_code", &code)) {
		c->bad_lines++;
		return;
	}
	if (kernel && addr >= PERF_USER_LIMIT) {
		c->kernel_faults_high++;     /* vmalloc and the like */
		return;
	}
	if (addr >= TRACE_ADDR_LIMIT) {
		c->bad_lines++;
		return;
	}
	ev.addr = addr & ~4095ULL;
	ev.arg = (code & X86_PF_WRITE ? TRACE_FAULT_WRITE : 0) |
		 (code & X86_PF_PROT ? TRACE_FAULT_PRESENT : 0) |
		 (code & X86_PF_INSTR ? TRACE_FAULT_EXEC : 0) |
		 (kernel ? TRACE_FAULT_KERNEL : 0);
	if (kernel)
		c->kernel_faults++;
	c->last_fault[th] = ev.addr;
	trace_writer_put(c->w, &ev);
}

/* --- what the trace has mapped (a fallback at a page it maps is one a
 * replay can make) ----------------------------------------------------- */

static void add_range(struct perf_conv *c, uint64_t start, uint64_t len)
{
	if (!len)
		return;
	if (c->nranges == c->cap_ranges) {
		size_t cap = c->cap_ranges ? c->cap_ranges * 2 : 256;
		struct perf_range *r = realloc(c->ranges, cap * sizeof(*r));

		if (!r)
			return;              /* counted as unmapped: said */
		c->ranges = r;
		c->cap_ranges = cap;
	}
	c->ranges[c->nranges++] = (struct perf_range){ start, start + len };
	c->ranges_sorted = false;
}

static int range_cmp(const void *a, const void *b)
{
	const struct perf_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorted and merged once a lookup needs it. */
static bool mapped(struct perf_conv *c, uint64_t addr)
{
	size_t lo = 0, hi;

	if (addr >= c->brk_lo && addr < c->brk_hi)
		return true;
	if (!c->ranges_sorted && c->nranges) {
		size_t n = 0;

		qsort(c->ranges, c->nranges, sizeof(*c->ranges), range_cmp);
		for (size_t i = 1; i < c->nranges; i++) {
			if (c->ranges[i].start <= c->ranges[n].end) {
				if (c->ranges[i].end > c->ranges[n].end)
					c->ranges[n].end = c->ranges[i].end;
			} else {
				c->ranges[++n] = c->ranges[i];
			}
		}
		c->nranges = n + 1;
	}
	c->ranges_sorted = true;
	hi = c->nranges;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (c->ranges[m].end <= addr)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < c->nranges && c->ranges[lo].start <= addr;
}

/* A call that succeeded: what it mapped. */
static void note_mapped(struct perf_conv *c, const struct trace_ev *ev)
{
	uint64_t r = (uint64_t)ev->ret;

	if (ev->kind == TR_MMAP)
		add_range(c, r, (ev->len + 4095) & ~4095ULL);
	else if (ev->kind == TR_MREMAP)
		add_range(c, r, (ev->arg + 4095) & ~4095ULL);
	else if (ev->kind == TR_BRK && r) {
		if (!c->brk_lo || r < c->brk_lo)
			c->brk_lo = r;
		if (r > c->brk_hi)
			c->brk_hi = r;
	}
}

/* -p: the mappings made before the recording, as private anonymous
 * fixed mmaps by the first thread seen, at its first event's time (a
 * file's pages replayed as anonymous: docs/fidelity.md). */
static void put_premaps(struct perf_conv *c, int th, uint64_t t)
{
	c->pre_done = true;
	for (size_t i = 0; i < c->npre; i++) {
		const struct perf_premap *m = &c->pre[i];
		struct trace_ev ev = {
			.kind = TR_MMAP, .thread = (uint32_t)th, .t_ns = t,
			.addr = m->start, .len = m->len, .arg = m->prot,
			.arg2 = 0x32,        /* MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED */
			.fd = -1, .ret = (int64_t)m->start,
		};

		if (m->start >= TRACE_ADDR_LIMIT || m->len >= TRACE_ADDR_LIMIT)
			continue;
		note_mapped(c, &ev);
		trace_writer_put(c->w, &ev);
	}
}

/* A call's entry into ev: false (counted) when its fields are not. */
static bool parse_enter(struct perf_conv *c, struct trace_ev *ev, int th,
			uint64_t t, int call, const char *f)
{
	uint64_t v[6] = { 0 };

	if (hex_fields(f, v, calls[call].nfields) != calls[call].nfields) {
		c->bad_lines++;
		return false;
	}
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
		return false;
	}
	return true;
}

static void enter_call(struct perf_conv *c, int th, uint64_t t, int call,
		       const char *f)
{
	struct trace_ev ev;

	if (!parse_enter(c, &ev, th, t, call, f))
		return;
	if (c->open[th])
		c->unpaired++;               /* an entry whose exit was lost */
	c->pend[th] = ev;
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
	if (ev->ret >= 0)
		note_mapped(c, ev);
	trace_writer_put(c->w, ev);
}

/* After an exec: only the table of the address space the exec took its
 * locks on (the traced one from now on) is kept. */
static void drop_old_mms(struct perf_conv *c)
{
	int n = 0;

	for (int i = 0; i < c->nmms; i++)
		if (c->have_traced_mm && c->mms[i].mm == c->traced_mm)
			c->mms[n++] = c->mms[i];
	c->nmms = n;
	c->mm_overflow = 0;
	memset(c->held, 0, sizeof(c->held));
}

/* The traced process exec'd (fields "filename=F pid=P old_pid=P"): a new
 * address space, so the trace starts again, if it has begun — or if it
 * began again before, so that its comment names the newest program, the
 * one the user is told of, even when nothing came between two execs. */
static void on_exec(struct perf_conv *c, const char *f)
{
	const char *fn = strstr(f, "filename="), *end;
	size_t n;

	/* The new address space's lock figures stay (its first
	 * acquisitions, execve's, came before this event); the others' go,
	 * as the events before it do: the old program's and its children's. */
	c->in_exec = false;
	drop_old_mms(c);
	c->npre = 0;                     /* what it had is gone */
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
	perf_waits_reset(&c->waits);
	c->err = c->restart(c->restart_arg, c->exe);
	memset(c->open, 0, sizeof(c->open));
	memset(c->last_fault, 0, sizeof(c->last_fault));
	c->nranges = 0;
	c->brk_lo = c->brk_hi = 0;
	c->kernel_faults = 0;
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

/* The table of address space mm; NULL past PERF_MAX_MMS. */
static struct perf_mm *mm_of(struct perf_conv *c, uint64_t mm)
{
	for (int i = 0; i < c->nmms; i++)
		if (c->mms[i].mm == mm)
			return &c->mms[i];
	if (c->nmms == PERF_MAX_MMS)
		return NULL;
	c->mms[c->nmms].mm = mm;
	return &c->mms[c->nmms++];
}

/* The hold slot of thread tid on mm (fork holds two: its own mm's and,
 * nested, the child's); NULL when every slot is taken. */
static struct perf_conv_held *held_of(struct perf_conv *c, uint32_t tid,
				      uint64_t mm)
{
	uint32_t h = (uint32_t)((tid * 2654435761u) ^ (mm >> 6) * 40503u) %
		     PERF_LOCK_SLOTS;

	for (int n = 0; n < PERF_LOCK_SLOTS; n++, h = (h + 1) % PERF_LOCK_SLOTS) {
		if (!c->held[h].tid) {
			c->held[h].tid = tid;
			c->held[h].mm = mm;
			return &c->held[h];
		}
		if (c->held[h].tid == tid && c->held[h].mm == mm)
			return &c->held[h];
	}
	return NULL;
}

/* Whether a frame's symbol is one of names (a compiler's suffix, as in
 * "do_execveat_common.isra.0", ignored). */
static bool frame_is(const char *sym, const char *const *names)
{
	size_t n = strcspn(sym, ". \t+");

	for (; *names; names++)
		if (strlen(*names) == n && !strncmp(sym, *names, n))
			return true;
	return false;
}

static const char *const fr_exec[] = {
	"bprm_execve", "do_execveat_common", "load_elf_binary",
	"begin_new_exec", "setup_arg_pages", "__x64_sys_execve",
	"__x64_sys_execveat", "kernel_execve", NULL,
};
static const char *const fr_exit[] = {
	"do_exit", "exit_mm", "acct_collect", "do_group_exit", "exit_mmap",
	"mmput", NULL,
};
static const char *const fr_fork[] = {
	"dup_mmap", "dup_mm", "copy_process", NULL,
};
static const char *const fr_anon[] = {
	"__vmf_anon_prepare", "vmf_anon_prepare", NULL,
};
static const char *const fr_fault[] = {
	"lock_mm_and_find_vma", "do_user_addr_fault", "exc_page_fault", NULL,
};
static const char *const fr_madvise[] = {
	"do_madvise", "madvise_lock", "madvise_do_behavior", "vector_madvise",
	"__x64_sys_madvise", "__x64_sys_process_madvise", NULL,
};
static const char *const fr_mmap[] = {
	"vm_mmap_pgoff", "ksys_mmap_pgoff", "do_mmap", "__vm_munmap",
	"__x64_sys_munmap", "do_vmi_munmap", "vms_complete_munmap_vmas",
	"do_mprotect_pkey", "__x64_sys_mprotect", "__do_sys_brk",
	"__x64_sys_brk", "__do_sys_mremap", "__x64_sys_mremap", "do_mremap",
	NULL,
};

/* One frame of the open chain, innermost first: the innermost frame
 * that names a cause decides it, except that exec, exit and fork,
 * wherever they are, decide over everything (a kernel-mode fault in
 * execve's elf_load is exec's). A fault's frames (exc_page_fault) are
 * followed by asm_exc_page_fault and then, for a kernel-mode fault, the
 * kernel frame it interrupted; a user fault's chain (kernel frames only)
 * ends there. */
static void chain_frame(struct perf_conv *c, const char *f)
{
	char *end;
	uint64_t ip = strtoull(f, &end, 16);
	const char *sym = end + strspn(end, " ");

	if (end == f)
		return;
	if (c->chain.fault == -1) {
		c->chain.fault = ip >= 0xffff800000000000ULL ? 2 : 1;
		/* A kernel-mode fault's site: the kernel code it hit in. */
		if (c->chain.fault == 2)
			c->chain.site = perf_waits_site(&c->waits, sym);
		return;
	}
	if (frame_is(sym, fr_exec))
		c->chain.outer = PC_EXEC;
	else if (frame_is(sym, fr_exit) && c->chain.outer < 0)
		c->chain.outer = PC_EXIT;
	else if (frame_is(sym, fr_fork) && c->chain.outer < 0)
		c->chain.outer = PC_FORK;
	else
		goto inner;
	if (!c->chain.outer_site)
		c->chain.outer_site = perf_waits_site(&c->waits, sym);
inner:
	if (c->chain.inner >= 0)
		return;
	if (!strncmp(sym, "asm_exc_page_fault", 18) && c->chain.fault >= 0) {
		/* A fault: user or kernel-mode, the next frame tells. */
		c->chain.fault = -1;
		c->chain.inner = PC_FAULT_FALLBACK;
	} else if (frame_is(sym, fr_anon)) {
		c->chain.inner = PC_ANON_TRYLOCK;
	} else if (frame_is(sym, fr_fault)) {
		c->chain.fault = 0;          /* asm_exc_page_fault to come */
	} else if (frame_is(sym, fr_madvise)) {
		c->chain.inner = PC_MADVISE;
	} else if (frame_is(sym, fr_mmap)) {
		c->chain.inner = PC_MMAP_CALL;
	}
	if (c->chain.inner >= 0 && c->chain.inner != PC_FAULT_FALLBACK)
		c->chain.site = perf_waits_site(&c->waits, sym);
}

/* Is the fault thread tid is in (its latest, user or kernel-mode) at a
 * page the trace maps? */
static bool fault_mapped(struct perf_conv *c, uint32_t tid)
{
	int th = trace_writer_find(c->w, tid);

	return th >= 0 && c->last_fault[th] && mapped(c, c->last_fault[th]);
}

/* Is thread tid inside a munmap, mprotect or madvise of a range the
 * trace never mapped? */
static bool call_unmapped(struct perf_conv *c, uint32_t tid)
{
	int th = trace_writer_find(c->w, tid);
	const struct trace_ev *e;

	if (th < 0 || !c->open[th])
		return false;
	e = &c->pend[th];
	return (e->kind == TR_MUNMAP || e->kind == TR_MPROTECT ||
		e->kind == TR_MADVISE) && !mapped(c, e->addr);
}

/* The cause of the chain just read. A fault's (a fallback, a kernel-mode
 * fault, the anon_vma trylock inside one) at a page the trace never maps
 * — the image's bss, the stack, vdso, vvar — is fault_unmapped: a replay
 * does not make that fault. */
static enum perf_cause chain_cause(struct perf_conv *c, bool downgrade)
{
	enum perf_cause k;

	if (c->chain.outer >= 0)
		return (enum perf_cause)c->chain.outer;
	if (c->chain.inner < 0 && !downgrade)
		return PC_OTHER;
	k = downgrade ? PC_DOWNGRADE : (enum perf_cause)c->chain.inner;
	if ((k == PC_DOWNGRADE || k == PC_MMAP_CALL || k == PC_MADVISE) &&
	    call_unmapped(c, c->chain.tid))
		return PC_CALL_UNMAPPED;
	if (k == PC_DOWNGRADE)
		return k;
	if (k == PC_FAULT_FALLBACK && c->chain.fault == 2)
		k = PC_KERNEL_FAULT;
	if ((k == PC_FAULT_FALLBACK || k == PC_KERNEL_FAULT ||
	     k == PC_ANON_TRYLOCK) && !fault_mapped(c, c->chain.tid))
		k = PC_FAULT_UNMAPPED;
	return k;
}

/* An acquisition ("acquire_returned", its chain read): counted on its
 * address space, by cause. A read acquisition while the write side is
 * held is mmap_write_downgrade()'s: the write hold ends there. */
static void chain_close(struct perf_conv *c)
{
	struct perf_conv_held *h, spare = { 0 };
	struct perf_mm *m;
	struct perf_lockside *side;
	enum perf_cause k;
	uint64_t w;
	bool down;

	if (!c->chain.open)
		return;
	c->chain.open = false;
	if (!(m = mm_of(c, c->chain.mm))) {
		c->mm_overflow++;
		return;
	}
	/* No slot left (more holds than PERF_LOCK_SLOTS): counted, without
	 * its wait and hold. */
	if (!(h = held_of(c, c->chain.tid, c->chain.mm)))
		h = &spare;
	side = &m->lock[c->chain.write];
	down = !c->chain.write && h->state == 2 && h->write;
	k = chain_cause(c, down);
	/* An exec's first acquisition is of a new address space, perhaps at
	 * the address of one freed before (a shell's, an earlier exec's):
	 * its table starts again. */
	if (k == PC_EXEC && !c->in_exec) {
		struct perf_mm fresh = { .mm = m->mm };

		*m = fresh;
		c->in_exec = true;
	}
	if (k != PC_FORK) {
		c->traced_mm = c->chain.mm;
		c->have_traced_mm = true;
	}
	w = h->state == 1 && c->chain.t > h->t ? c->chain.t - h->t : 0;
	struct perf_holder who = {
		.tid = c->chain.tid, .write = c->chain.write, .cause = (uint8_t)k,
		.site = c->chain.outer >= 0 ? c->chain.outer_site : c->chain.site,
	};

	perf_waits_got(&c->waits, c->chain.mm, &who, c->chain.success, w,
		       c->chain.t, k != PC_FORK);
	if (!c->chain.success) {
		side->failed++;
		h->state = 0;
		return;
	}
	if (h->state == 2)
		close_hold(&m->lock[h->write], h->t, c->chain.t);
	h->write = c->chain.write;
	side->acquired++;
	m->cause[k][c->chain.write]++;
	side->wait_ns += w;
	if (w > side->wait_max)
		side->wait_max = w;
	h->state = 2;
	h->t = c->chain.t;
}

/* One mmap_lock event of thread tid at t: "start_locking" (asks),
 * "acquire_returned" (got it, or a trylock failed: its chain follows),
 * "released". */
static void on_lock(struct perf_conv *c, uint32_t tid, uint64_t t,
		    const char *name, const char *f)
{
	bool write = strstr(f, "write=true") != NULL;
	struct perf_conv_held *h;
	struct perf_mm *m;
	uint64_t mm;

	if (named_hex(f, "mm", &mm)) {
		c->bad_lines++;
		return;
	}
	if (!strcmp(name, "mmap_lock_acquire_returned")) {
		c->chain.open = true;
		c->chain.tid = tid;
		c->chain.t = t;
		c->chain.mm = mm;
		c->chain.write = write;
		c->chain.success = !strstr(f, "success=false");
		c->chain.fault = 0;
		c->chain.inner = c->chain.outer = -1;
		c->chain.site = c->chain.outer_site = 0;
		return;
	}
	if (!(h = held_of(c, tid, mm)))
		return;                      /* more holds than slots */
	if (!strcmp(name, "mmap_lock_start_locking")) {
		h->state = 1;
		h->t = t;
		perf_waits_ask(&c->waits, mm, tid, write, t);
	} else if (h->state == 2 && (m = mm_of(c, mm))) {   /* released */
		close_hold(&m->lock[write], h->t, t);
		h->state = 0;
		perf_waits_release(&c->waits, mm, tid, t);
	}
}

void perf_conv_flush(struct perf_conv *c)
{
	chain_close(c);
}

void perf_conv_fini(struct perf_conv *c)
{
	perf_conv_flush(c);
	perf_maps_fini(&c->maps);
	free(c->pre_own);
	c->pre_own = NULL;
	free(c->ranges);
	c->ranges = NULL;
	c->nranges = c->cap_ranges = 0;
}

const struct perf_mm *perf_conv_traced(const struct perf_conv *c)
{
	for (int i = 0; c->have_traced_mm && i < c->nmms; i++)
		if (c->mms[i].mm == c->traced_mm)
			return &c->mms[i];
	return NULL;
}

uint64_t perf_conv_other_mms(const struct perf_conv *c)
{
	uint64_t n = c->mm_overflow;

	for (int i = 0; i < c->nmms; i++)
		if (!c->have_traced_mm || c->mms[i].mm != c->traced_mm)
			n += c->mms[i].lock[0].acquired + c->mms[i].lock[1].acquired;
	return n;
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

/* The basename of an exec event's filename= (up to " pid="), cut as a
 * comm is. */
static void exec_comm(const char *f, char *out)
{
	const char *fn = strstr(f, "filename="), *end, *base;
	size_t n;

	out[0] = 0;
	if (!fn)
		return;
	fn += 9;
	end = strstr(fn, " pid=");
	if (!end)
		end = fn + strlen(fn);
	base = fn;
	for (const char *p = fn; p < end; p++)
		if (*p == '/')
			base = p + 1;
	n = (size_t)(end - base);
	if (n > PERF_COMM_LEN - 1)
		n = PERF_COMM_LEN - 1;
	memcpy(out, base, n);
	out[n] = 0;
}

static int which_call(const char *name, bool *enter);

static struct perf_other *other_of(struct perf_conv *c, long pid)
{
	for (int i = 0; i < c->nothers; i++)
		if (c->others[i].pid == pid)
			return &c->others[i];
	if (c->nothers == PERF_MAX_OTHERS)
		return NULL;
	c->others[c->nothers] = (struct perf_other){ .pid = pid };
	return &c->others[c->nothers++];
}

/* An event of a process the trace leaves out: counted by process. */
static void note_other(struct perf_conv *c, long pid, const char *comm)
{
	struct perf_other *o = other_of(c, pid);

	c->other_pid++;
	if (!o) {
		c->others_full = true;   /* counted in other_pid, unnamed */
		return;
	}
	o->events++;
	if (comm && comm[0]) {
		snprintf(o->comm, sizeof(o->comm), "%s", comm);
		o->execd = true;
	}
}

/* The traced process was made in the recording by parent: its trace
 * begins with what parent had mapped then (as -p's with its maps). */
static void take_parents_maps(struct perf_conv *c, long parent)
{
	uint64_t brk[2];

	c->followed_parent = parent;
	free(c->pre_own);
	c->pre_own = NULL;
	if (perf_maps_get(&c->maps, parent, &c->pre_own, &c->npre, brk)) {
		c->maps.lost++;
		c->npre = 0;
	}
	c->pre = c->pre_own;
	c->pre_done = false;
	c->brk_lo = brk[0];
	c->brk_hi = brk[1];
}

#ifndef CLONE_THREAD
#define CLONE_THREAD 0x00010000
#endif

/* "pid=C comm=X clone_flags=HEX oom_score_adj=N", in the maker's
 * context: a new process (not a thread) is counted, copies its maker's
 * mappings, and is the traced one if --follow names it. */
static void on_newtask(struct perf_conv *c, long pid, const char *f)
{
	const char *fl = strstr(f, " clone_flags="), *cm = strstr(f, "comm=");
	struct perf_other *o;
	long child;
	char *end;

	if (strncmp(f + strspn(f, " "), "pid=", 4) || !fl) {
		c->bad_lines++;
		return;
	}
	child = strtol(f + strspn(f, " ") + 4, &end, 10);
	if (child <= 0 || strtoull(fl + 13, NULL, 16) & CLONE_THREAD)
		return;
	c->forks++;
	if (c->track_maps)
		perf_maps_fork(&c->maps, pid, child);
	if (c->follow_fork == c->forks && c->pid < 0)
		c->pid = child;
	if (child == c->pid) {
		if (c->track_maps)
			take_parents_maps(c, pid);
		return;
	}
	if ((o = other_of(c, child))) {
		o->fork_no = c->forks;
		if (cm && !o->comm[0]) {
			size_t n = (size_t)(fl - cm - 5);

			snprintf(o->comm, sizeof(o->comm), "%.*s",
				 (int)(n < PERF_COMM_LEN - 1 ? n : PERF_COMM_LEN - 1),
				 cm + 5);
		}
	} else {
		c->others_full = true;
	}
}

/* An untraced process's call: what it maps, for a child it may fork. */
static void other_call(struct perf_conv *c, long pid, uint32_t tid,
		       const char *name, const char *f)
{
	struct trace_ev ev;
	bool enter;
	int call = which_call(name, &enter);
	uint64_t v;

	if (call < 0)
		return;
	if (enter) {
		if (parse_enter(c, &ev, 0, 0, call, f))
			perf_maps_enter(&c->maps, tid, &ev);
	} else if (hex_fields(f, &v, 1) == 1) {
		perf_maps_exit(&c->maps, pid, tid, calls[call].kind, (int64_t)v);
	}
}

void perf_conv_line(struct perf_conv *c, const char *line)
{
	char comm[PERF_COMM_LEN] = "";
	bool is_exec;
	long pid, tid;
	unsigned long long sec, nsec;
	char group[32], name[48];
	int pos = 0, th, call;
	uint64_t t;
	bool enter;

	if (line[0] == '\t') {              /* a frame of a call chain */
		if (c->chain.open)
			chain_frame(c, line + 1);
		return;
	}
	chain_close(c);                      /* its chain, if any, is whole */
	if (!line[strspn(line, " \t")])
		return;                      /* the empty line after a chain */
	if (sscanf(line, " %ld/%ld %llu.%llu: %31[^:]:%47[^:]:%n", &pid, &tid,
		   &sec, &nsec, group, name, &pos) < 6 || !pos) {
		const char *l = strstr(line, "PERF_RECORD_LOST lost ");

		if (l)
			c->lost += strtoull(l + 22, NULL, 10);
		else
			c->bad_lines++;
		return;
	}
	is_exec = !strcmp(group, "sched") && !strcmp(name, "sched_process_exec");
	if (is_exec)
		exec_comm(line + pos, comm);
	if (!strcmp(group, "task") && !strcmp(name, "task_newtask")) {
		on_newtask(c, pid, line + pos);
		return;
	}
	/* --follow COMM: the first process to exec it is the one traced. */
	if (is_exec && c->follow_comm[0] && !strcmp(comm, c->follow_comm)) {
		c->follow_matches++;
		if (c->pid < 0)
			c->pid = pid;
	}
	if (c->pid < 0 && !c->follow_comm[0] && !c->follow_fork)
		c->pid = pid;
	if (pid != c->pid) {
		note_other(c, pid, is_exec ? comm : NULL);
		if (c->track_maps && is_exec)
			perf_maps_exec(&c->maps, pid);
		else if (c->track_maps && !strcmp(group, "syscalls"))
			other_call(c, pid, (uint32_t)tid, name, line + pos);
		return;
	}
	if (is_exec) {
		on_exec(c, line + pos);
		return;
	}
	t = sec * 1000000000ULL + nsec;
	perf_waits_seen(&c->waits, (uint32_t)tid, t);
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
	if (c->npre && !c->pre_done)
		put_premaps(c, th, t);
	if (!strcmp(group, "exceptions") && !strcmp(name, "page_fault_user"))
		put_fault(c, th, t, line + pos, false);
	else if (!strcmp(group, "exceptions") && !strcmp(name, "page_fault_kernel"))
		put_fault(c, th, t, line + pos, true);
	else if (!strcmp(group, "syscalls") &&
		 (call = which_call(name, &enter)) >= 0)
		enter ? enter_call(c, th, t, call, line + pos)
		      : exit_call(c, th, call, line + pos);
	else
		c->bad_lines++;
}
