/* SPDX-License-Identifier: MIT */
/*
 * The userfaultfd fault source: the arena is registered for MISSING and
 * WP faults on one userfaultfd — or, per task (cfg.nuffds > 1), on one
 * for each task, the arena dealt out to them in 2 MiB stripes, so that
 * no one uffd's wait queues carry every task's faults — a pool of
 * handler threads reads each, and
 * each fault runs the mm's fault path on a handler, which answers it with
 * UFFDIO_COPY/ZEROPAGE/WRITEPROTECT (resolved) or a signal to the
 * faulting thread (refused). Touches are real accesses; a refused one
 * comes back through the signal's handler as -EFAULT.
 */
#include <errno.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/faults/present.h"
#include "sim/faults/uffd_source_int.h"
#include "sim/faults/uffd_touch.h"
#include "sim/faults/sources.h"
#include "sim/fault.h"
#include "sim/host.h"
#include "uffd/uffd.h"

/* What a handler passes through the fault path. */
struct uffd_fault_ctx {
	int fd;
	pid_t tid;
	struct uffd_counters *c;
	uint32_t frame;                  /* the fault's folio, or FRAME_NIL */
};

/* The page at a must be placed: the faulting page always (the present
 * map may still show a page a concurrent zap has just thrown away), the
 * others of a folio or window only where absent. */
static bool uf_wanted(struct uffd_source *u, unsigned long a, unsigned long addr)
{
	return a == addr ||
	       !(atomic_load_explicit(present_byte(&u->present, a),
				      memory_order_relaxed) & PRESENT_STATE);
}

/* Copy the wanted pages of [start, end) in runs, one UFFDIO_COPY each
 * (one for a folio); a page some other fault placed first is skipped.
 * Returns the pages placed or -errno. */
static int uf_copy_runs(struct uffd_source *u, const struct sim_vma *v,
			unsigned long addr, unsigned long start,
			unsigned long end, unsigned char state,
			struct uffd_fault_ctx *ctx)
{
	bool file = v->vm_file != SIM_FILE_NONE, ro = state == PRESENT_READ;
	unsigned long a = start;
	int placed = 0;

	while (a < end) {
		unsigned long e = a + SIM_PAGE_SIZE;
		const void *src = present_zero_page;
		size_t done;
		int ret;

		if (!uf_wanted(u, a, addr)) {
			a = e;
			continue;
		}
		while (e < end && uf_wanted(u, e, addr))
			e += SIM_PAGE_SIZE;
		if (file && !(src = present_file_pages(v, a, (e - a) >> SIM_PAGE_SHIFT)))
			return -ENOMEM;
		ret = uffd_copy(ctx->fd, a, src, e - a, ro, &done, ctx->c);
		for (unsigned long x = a; x < a + done; x += SIM_PAGE_SIZE)
			placed += present_place(&u->present, x, state, start,
						ctx->frame);
		if (ret && ret != -EEXIST)
			return ret;
		a = ret ? a + done + SIM_PAGE_SIZE : e;
	}
	return placed;
}

/*
 * Place the pages without waking the faulting thread: it is woken after
 * the lock is dropped (uf_wake). A page of a VMA that may not be written
 * is mapped write-protected, so that a later write faults (the host VMA
 * itself is always writable).
 */
static int uf_resolve(struct fault_source *s, const struct sim_vma *v,
		      unsigned long addr, unsigned long start,
		      unsigned long end, uint32_t frame, unsigned flags,
		      void *arg)
{
	struct uffd_fault_ctx *ctx = arg;
	bool ro = !(v->vm_flags & VM_WRITE);
	bool file = v->vm_file != SIM_FILE_NONE;
	int ret;

	if (flags & FAULT_FLAG_WP) {
		/* The VMA allows the write now: lift the protection. */
		ctx->c->unprotects++;
		ret = uffd_writeprotect(ctx->fd, addr, SIM_PAGE_SIZE, false, true);
		if (!ret)
			present_set(&us(s)->present, addr, PRESENT_WRITE);
		return ret;
	}
	ctx->frame = frame;
	if (file || (flags & FAULT_FLAG_WRITE) || ro)
		return uf_copy_runs(us(s), v, addr, start, end,
				    !ro && ((flags & FAULT_FLAG_WRITE) || file) ?
				    PRESENT_WRITE : PRESENT_READ,
				    ctx);
	ret = uffd_resolve_zeropage(ctx->fd, addr, SIM_PAGE_SIZE, true, ctx->c);
	return ret ? ret : !present_set(&us(s)->present, addr, PRESENT_READ);
}

static bool uf_absent(struct fault_source *s, unsigned long start,
		      unsigned long end)
{
	return present_absent(&us(s)->present, start, end);
}

/* A refused access must still be answered, or the thread hangs. */
static int uf_refuse(struct fault_source *s, unsigned long addr, void *arg)
{
	struct uffd_fault_ctx *ctx = arg;

	return uffd_refuse(ctx->tid, addr, ctx->c);
}

/*
 * Wake the faulting thread only now. A kernel fault holds mmap_lock (or
 * the VMA lock) across the page-table update, not across waking anybody;
 * letting UFFDIO_COPY wake the thread inside the lock would charge a
 * cross-CPU wake-up to every fault's lock hold time.
 */
static int uf_wake(struct fault_source *s, unsigned long addr, void *arg)
{
	struct uffd_fault_ctx *ctx = arg;

	return uffd_wake(ctx->fd, addr, SIM_PAGE_SIZE);
}

/* The pool's callback: one fault message through the mm's fault path. */
void uffd_source_fault(void *arg, int fd, const struct uffd_msg *msg,
		     struct uffd_counters *c)
{
	struct uffd_source *s = arg;
	struct uffd_fault_ctx ctx = { fd, (pid_t)msg->arg.pagefault.feat.ptid, c,
				      FRAME_NIL };
	unsigned flags = 0;

	if (msg->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE)
		flags |= FAULT_FLAG_WRITE;
	if (msg->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP)
		flags |= FAULT_FLAG_WP | FAULT_FLAG_WRITE;
	if (uffd_touch_kmarks_kernel(s->kmarks, ctx.tid,
			       msg->arg.pagefault.address & SIM_PAGE_MASK))
		flags |= FAULT_FLAG_KERNEL;
	sim_handle_fault(s->base.mm, msg->arg.pagefault.address, flags, &ctx);
}

/* Anonymous memory in chunks of one UFFDIO_COPY (write-protected where
 * the VMA is read-only); file pages, and any chunk a fault got into
 * first, page by page. */
static int uf_populate(struct fault_source *s, const struct sim_vma *v,
		       unsigned long start, unsigned long end)
{
	struct uffd_source *u = us(s);
	bool w = v->vm_flags & VM_WRITE, file = v->vm_file != SIM_FILE_NONE;
	struct uffd_counters c = { 0 };
	int ret = 0;

	while (start < end && !ret) {
		/* One copy never spans two uffds' pages (two host VMAs). */
		unsigned long n = (uffd_source_run_end(u, start, end) - start) >>
				  SIM_PAGE_SHIFT;
		int fd = u->chan[uffd_source_owner(u, start)].fd;
		const void *src;

		if (n > FAULT_ZERO_PAGES)
			n = FAULT_ZERO_PAGES;
		src = file ? present_file_pages(v, start, n) : present_zero_page;
		if (!src)
			return -ENOMEM;
		if (uffd_resolve_copy(fd, start, src, n << SIM_PAGE_SHIFT,
				      false, !w, &c)) {
			for (unsigned long i = 0; i < n && !ret; i++) {
				unsigned long a = start + (i << SIM_PAGE_SHIFT);

				ret = uffd_resolve_copy(fd, a,
					(const char *)src + (i << SIM_PAGE_SHIFT),
					SIM_PAGE_SIZE, false, !w, &c);
			}
		}
		for (unsigned long i = 0; i < n; i++)
			present_set(&u->present, start + (i << SIM_PAGE_SHIFT),
				    w ? PRESENT_WRITE : PRESENT_READ);
		start += n << SIM_PAGE_SHIFT;
	}
	return ret;
}

static void uf_forget(struct fault_source *s, unsigned long start,
		      unsigned long end)
{
	present_forget(&us(s)->present, start, end);
}

static int uf_zap(struct fault_source *s, unsigned long start,
		  unsigned long end)
{
	return present_zap(&us(s)->present, start, end, false);
}

/* No access zaps the pages; otherwise change_protection(MM_CP_UFFD_WP):
 * present pages only, absent ones fault as MISSING and are checked
 * against the VMA then. Each run of pages through the uffd it is
 * registered on: the kernel (mwriteprotect_range) accepts any uffd's
 * range today, but the registering one is the range's owner. */
static int uf_protect(struct fault_source *s, unsigned long start,
		      unsigned long end, unsigned long vm_flags)
{
	struct uffd_source *u = us(s);
	int ret = 0;

	if (!(vm_flags & VM_ACCESS_FLAGS))
		return uf_zap(s, start, end);
	while (start < end && !ret) {
		unsigned long e = uffd_source_run_end(u, start, end);

		ret = uffd_writeprotect(u->chan[uffd_source_owner(u, start)].fd,
					start, e - start,
					!(vm_flags & VM_WRITE), false);
		start = e;
	}
	return ret;
}

static void uf_stop(struct fault_source *s)
{
	struct uffd_source *u = us(s);

	for (int k = 0; k < u->nchan; k++)
		if (u->chan[k].pool) {
			uffd_pool_stop(u->chan[k].pool, &u->chan[k].final);
			u->chan[k].pool = NULL;
		}
}

static void uf_destroy(struct fault_source *s)
{
	struct uffd_source *u = us(s);

	uf_stop(s);
	for (int k = 0; k < u->nchan; k++)
		if (u->chan[k].fd >= 0)
			close(u->chan[k].fd);
	if (u->owner)
		host_munmap(u->owner, ((s->mm->end - s->mm->base) >> SIM_PAGE_SHIFT) *
			    sizeof(*u->owner));
	present_destroy(&u->present);
	uffd_touch_kmarks_destroy(u->kmarks);
	free(u->chan);
	free(u->node_cpus);
	free(u);
}

static int uf_create(struct sim_mm *mm, const void *opts,
		     struct fault_source **out)
{
	static const struct uffd_source_opts defaults = { .batch = 16 };
	const struct uffd_source_opts *cfg = opts ? opts : &defaults;
	struct uffd_source *u = calloc(1, sizeof(*u));
	int ret;

	if (!u)
		return -ENOMEM;
	u->base = (struct fault_source){ &uffd_fault_source, mm };
	u->nchan = cfg->nuffds > 1 ? cfg->nuffds : 1;
	u->chan = calloc((size_t)u->nchan, sizeof(*u->chan));
	if (!u->chan) {
		free(u);
		return -ENOMEM;
	}
	for (int k = 0; k < u->nchan; k++)
		u->chan[k].fd = -1;
	/* Published before the handlers start: they read it (through the
	 * mm) from their first fault, with no other order to rely on. */
	*out = &u->base;
	ret = present_init(&u->present, mm);
	if (!ret)
		ret = uffd_touch_kmarks_init(&u->kmarks);
	if (!ret)
		ret = uffd_source_start(u, cfg);
	if (ret) {
		*out = NULL;
		uf_destroy(&u->base);
	}
	return ret;
}

static void uf_walk(struct fault_source *s, unsigned long start,
		     unsigned long end, uint64_t *rss, uint64_t *wr)
{
	present_walk(&us(s)->present, start, end, rss, wr);
}

static uint64_t uf_resident(const struct fault_source *s)
{
	return present_resident(&us(s)->present);
}

/* The handlers started. */
static int uf_nworkers(const struct fault_source *s)
{
	return us(s)->nhandlers;
}

/* Handler i, counted over the channels in order: a snapshot of its
 * state (nothing once the pools are stopped). */
static void uf_worker(const struct fault_source *s, int i,
		      struct fault_worker *out)
{
	memset(out, 0, sizeof(*out));
	for (int k = 0; k < us(s)->nchan; k++) {
		struct uffd_pool *p = us(s)->chan[k].pool;
		int n = p ? uffd_pool_size(p) : 0;
		const struct uffd_handler_state *st;
		uffd_phase_t *ph;

		if (!p)
			return;
		if (i >= n) {
			i -= n;
			continue;
		}
		st = uffd_pool_state(p, i);
		out->addr = atomic_load_explicit(&st->addr, memory_order_relaxed);
		out->since_ns = atomic_load_explicit(&st->since_ns,
						     memory_order_relaxed);
		out->read_errno = atomic_load_explicit(&st->read_errno,
						       memory_order_relaxed);
		/* Acquire: pairs with the handler's release store of the
		 * pointer (uffd/pool.c). */
		ph = atomic_load_explicit(&st->phase, memory_order_acquire);
		out->phase = ph ? atomic_load_explicit(ph, memory_order_relaxed)
				: NULL;
		return;
	}
}

static uint64_t uf_worker_cpu_ns(const struct fault_source *s)
{
	uint64_t ns = 0;

	for (int k = 0; k < us(s)->nchan; k++)
		if (us(s)->chan[k].pool)
			ns += uffd_pool_cpu_ns(us(s)->chan[k].pool);
	return ns;
}

/* The result's "uffd" section: the uffds and handlers, then what the
 * handlers counted (exact once stopped). */
static int uf_counters(const struct fault_source *s, const char **names,
		       uint64_t *v)
{
	struct uffd_counters c = { 0 };
	int n = 0;

	for (int k = 0; k < us(s)->nchan; k++)
		uffd_counters_add(&c, &us(s)->chan[k].final);
#define UF_COUNTER(name, value) (names[n] = (name), v[n++] = (value))
	UF_COUNTER("uffds", (uint64_t)us(s)->nchan);
	UF_COUNTER("handlers", (uint64_t)us(s)->nhandlers);
	UF_COUNTER("messages", c.messages);
	UF_COUNTER("reads", c.reads);
	UF_COUNTER("copy", c.copies);
	UF_COUNTER("zeropage", c.zeropages);
	UF_COUNTER("unprotect", c.unprotects);
	UF_COUNTER("wake", c.wakes);
	UF_COUNTER("refused", c.refused);
	UF_COUNTER("retries", c.retries);
	UF_COUNTER("errors", c.errors);
	UF_COUNTER("read_errors", c.read_errors);
	UF_COUNTER("other_events", c.other_events);
	if (us(s)->kmarks) {
		UF_COUNTER("kernel_marked", atomic_load(&us(s)->kmarks->marked));
		UF_COUNTER("kernel_found", atomic_load(&us(s)->kmarks->found));
		UF_COUNTER("kernel_unmarked", atomic_load(&us(s)->kmarks->full));
	}
#undef UF_COUNTER
	return n;
}

static int uf_abandon(struct fault_source *s, pid_t tid, unsigned long addr)
{
	struct uffd_counters dummy = { 0 };

	return uffd_refuse(tid, addr, &dummy);
}

const struct fault_source_ops uffd_fault_source = {
	.name = "uffd",
	.create = uf_create,
	.stop = uf_stop,
	.destroy = uf_destroy,
	.touch = uffd_touch,
	.resolve = uf_resolve,
	.absent = uf_absent,
	.refuse = uf_refuse,
	.wake = uf_wake,
	.populate = uf_populate,
	.zap = uf_zap,
	.forget = uf_forget,
	.protect = uf_protect,
	.resident = uf_resident,
	.walk = uf_walk,
	.nworkers = uf_nworkers,
	.worker = uf_worker,
	.worker_cpu_ns = uf_worker_cpu_ns,
	.counters = uf_counters,
	.claim = uffd_source_claim,
	.abandon = uf_abandon,
};
