/* SPDX-License-Identifier: MIT */
/*
 * The synthetic fault source: no userfaultfd. A touch checks the present
 * map and, where the page is missing (or mapped only for reading, for a
 * write), runs the fault path on the touching thread; the resolve places
 * the real page under the fault's lock. What the kernel's own fault costs
 * is left out, so the lock is a larger share of what is measured.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/faults/present.h"
#include "sim/faults/sources.h"
#include "sim/fault.h"
#include "sim/host.h"

struct syn_source {
	struct fault_source base;
	struct present_map present;
};

static struct syn_source *syn(const struct fault_source *s)
{
	return (struct syn_source *)s;
}

static int syn_create(struct sim_mm *mm, const void *opts,
		      struct fault_source **out)
{
	struct syn_source *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	s->base = (struct fault_source){ &synthetic_fault_source, mm };
	ret = present_init(&s->present, mm);
	if (ret) {
		free(s);
		return ret;
	}
	*out = &s->base;
	return 0;
}

static void syn_stop(struct fault_source *s)
{
}

static void syn_destroy(struct fault_source *s)
{
	present_destroy(&syn(s)->present);
	free(s);
}

/*
 * Place the real page here, under the lock, then mark it (its contents are
 * in place before anyone sees it present). A new anonymous page is the
 * kernel's: the arena page was zapped (MADV_DONTNEED) or never touched,
 * so touching it makes the host allocate a zeroed page (a write) or map
 * its zero page (a read) inside the fault, as the kernel does — unless a
 * write that raced the zap left bytes in it (dirty), which are cleared.
 * A file page gets the file's contents.
 */
static int syn_place(struct fault_source *s, const struct sim_vma *v,
		     unsigned long addr, unsigned flags, unsigned long start,
		     uint32_t frame)
{
	struct present_map *p = &syn(s)->present;
	_Atomic unsigned char *b = present_byte(p, addr);
	unsigned char state = (flags & FAULT_FLAG_WRITE) ? PRESENT_WRITE :
			      PRESENT_READ;
	unsigned char seen = atomic_load_explicit(b, memory_order_relaxed);
	bool fresh = !(seen & PRESENT_STATE);

	if (fresh && v->vm_file != SIM_FILE_NONE) {
		memcpy((void *)addr, present_file_pages(v, addr, 1), SIM_PAGE_SIZE);
	} else if (fresh && (seen & PRESENT_DIRTY)) {
		memcpy((void *)addr, present_zero_page, SIM_PAGE_SIZE);
		atomic_fetch_and_explicit(b, (unsigned char)~PRESENT_DIRTY,
					  memory_order_relaxed);
	} else if (state == PRESENT_WRITE && fresh) {
		*(volatile char *)addr = 0;      /* one host fault: a zeroed page */
	} else if (state == PRESENT_WRITE) {
		*(volatile char *)addr = *(volatile char *)addr;
	} else {
		(void)*(volatile char *)addr;
	}
	return present_place(p, addr, state, start, frame);
}

/* The page at addr, and the absent pages of the folio or window around
 * it; the pages placed. */
static int syn_resolve(struct fault_source *s, const struct sim_vma *v,
		       unsigned long addr, unsigned long start,
		       unsigned long end, uint32_t frame, unsigned flags,
		       void *ctx)
{
	struct present_map *p = &syn(s)->present;
	int placed = 0;

	for (unsigned long a = start; a < end; a += SIM_PAGE_SIZE)
		if (a == addr ||
		    !(atomic_load_explicit(present_byte(p, a),
					   memory_order_relaxed) & PRESENT_STATE))
			placed += syn_place(s, v, a, flags, start, frame);
	return placed;
}

static bool syn_absent(struct fault_source *s, unsigned long start,
		       unsigned long end)
{
	return present_absent(&syn(s)->present, start, end);
}

/* The touching thread is itself in the fault path: sim_touch() sees the
 * refusal in the return, and there is nobody to wake. */
static int syn_refuse(struct fault_source *s, unsigned long addr, void *ctx)
{
	return 0;
}

static int syn_wake(struct fault_source *s, unsigned long addr, void *ctx)
{
	return 0;
}

/* n fresh zero pages at a from the kernel, unless some are present
 * already (then -EEXIST and the caller goes page by page): drop what a
 * racing write may have left, then MADV_POPULATE_WRITE. */
static int populate_fresh(struct present_map *p, unsigned long a,
			  unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		if (atomic_load_explicit(present_byte(p, a + (i << SIM_PAGE_SHIFT)),
					 memory_order_relaxed) & PRESENT_STATE)
			return -EEXIST;
	int ret = host_madvise((void *)a, n << SIM_PAGE_SHIFT, MADV_DONTNEED);

	return ret ? ret : host_madvise((void *)a, n << SIM_PAGE_SHIFT,
					MADV_POPULATE_WRITE);
}

static int syn_populate(struct fault_source *s, const struct sim_vma *v,
			unsigned long start, unsigned long end)
{
	struct present_map *p = &syn(s)->present;
	unsigned flags = (v->vm_flags & VM_WRITE) ? FAULT_FLAG_WRITE : 0;

	while (start < end) {
		unsigned long n = (end - start) >> SIM_PAGE_SHIFT;

		if (n > FAULT_ZERO_PAGES)
			n = FAULT_ZERO_PAGES;
		if (v->vm_file != SIM_FILE_NONE || populate_fresh(p, start, n)) {
			for (unsigned long i = 0; i < n; i++)
				syn_place(s, v, start + (i << SIM_PAGE_SHIFT),
					  flags, start, FRAME_NIL);
		}
		for (unsigned long i = 0; i < n; i++)
			present_set(p, start + (i << SIM_PAGE_SHIFT),
				    flags ? PRESENT_WRITE : PRESENT_READ);
		start += n << SIM_PAGE_SHIFT;
	}
	return 0;
}

/*
 * Forget the pages (state 0, next generation), throw the real pages away
 * where there were any, and forget them again — so that a fault that
 * placed a page between the first two steps does not leave it marked
 * present on a zapped page (present_zap()). A touch that overlapped any
 * of it sees the page's byte change and retries (syn_touch()).
 */
static int syn_zap(struct fault_source *s, unsigned long start,
		   unsigned long end)
{
	return present_zap(&syn(s)->present, start, end, true);
}

static void syn_forget(struct fault_source *s, unsigned long start,
		       unsigned long end)
{
	present_forget(&syn(s)->present, start, end);
}

/* Read-only: pages mapped writable become mapped for read, so the next
 * write faults (and is refused); writable: the next write faults. */
static int syn_protect(struct fault_source *s, unsigned long start,
		       unsigned long end, unsigned long vm_flags)
{
	if (!(vm_flags & VM_ACCESS_FLAGS))
		return syn_zap(s, start, end);
	if (!(vm_flags & VM_WRITE))
		present_write_protect(&syn(s)->present, start, end);
	return 0;
}

/*
 * A page the present map does not have (or has only for reading, for a
 * write) is a fault, handled here on the faulting thread. The check and
 * the access are two steps, and a zap of this page between them would
 * let the access see a page the mm no longer has: the access counts only
 * if the page's byte (state and zap generation) is unchanged after it,
 * so each touch is ordered wholly before or after each zap of its page,
 * as a real access is ordered with the TLB flush.
 */
static int syn_touch(struct fault_source *s, unsigned long addr,
		     unsigned flags, unsigned char *val)
{
	_Atomic unsigned char *b = present_byte(&syn(s)->present, addr);
	bool write = flags & FAULT_FLAG_WRITE;
	unsigned need = write ? PRESENT_WRITE : PRESENT_READ;

	for (;;) {
		/* Acquire: pairs with the CASes of present_set and forget. */
		unsigned char seen = atomic_load_explicit(b, memory_order_acquire);

		if ((seen & PRESENT_STATE) < need) {
			if (sim_handle_fault(s->mm, addr, flags &
					     (FAULT_FLAG_WRITE | FAULT_FLAG_KERNEL),
					     NULL))
				return -EFAULT;
			continue;        /* look at the placed page again */
		}
		if (write)
			*(volatile unsigned char *)addr = *val;
		else
			*val = *(volatile unsigned char *)addr;
		/* Full fence: the access (a load or a store) is done before
		 * the byte is read again (a store could otherwise pass it). */
		atomic_thread_fence(memory_order_seq_cst);
		if (atomic_load_explicit(b, memory_order_relaxed) == seen)
			return 0;
		/* A zap came between: a write may have landed in the page
		 * after it was thrown away; the next fault clears it. */
		if (write)
			present_mark_dirty(&syn(s)->present, addr);
	}
}

static void syn_walk(struct fault_source *s, unsigned long start,
		     unsigned long end, uint64_t *rss, uint64_t *wr)
{
	present_walk(&syn(s)->present, start, end, rss, wr);
}

static uint64_t syn_resident(const struct fault_source *s)
{
	return present_resident(&syn(s)->present);
}

static int syn_abandon(struct fault_source *s, pid_t tid, unsigned long addr)
{
	return -ENOTSUP;
}

const struct fault_source_ops synthetic_fault_source = {
	.name = "synthetic",
	.create = syn_create,
	.stop = syn_stop,
	.destroy = syn_destroy,
	.touch = syn_touch,
	.resolve = syn_resolve,
	.absent = syn_absent,
	.refuse = syn_refuse,
	.wake = syn_wake,
	.populate = syn_populate,
	.zap = syn_zap,
	.forget = syn_forget,
	.protect = syn_protect,
	.resident = syn_resident,
	.walk = syn_walk,
	.abandon = syn_abandon,
};
