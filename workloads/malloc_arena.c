/* SPDX-License-Identifier: MIT */
/*
 * malloc_arena — glibc's non-main arenas (malloc/arena.c), the allocator
 * whose heaps Kogan, Dice and Issa's mprotect-heavy benchmark (Metis)
 * grows. Each task owns one heap at a time, as a thread owns its arena:
 *
 *   new_heap()   mmap 2 x HEAP_MAX_SIZE (64 MiB) PROT_NONE MAP_NORESERVE,
 *                munmap the unaligned head and the tail so that the heap
 *                is HEAP_MAX_SIZE-aligned, mprotect its first part
 *                read-write (the header and M_TOP_PAD, 128 KiB);
 *   grow_heap()  when an allocation does not fit in the top chunk: the
 *                heap's size grows to what the allocation needs plus
 *                M_TOP_PAD, page-aligned, and the part past the
 *                high-water mark (mprotect_size) is mprotect'ed
 *                read-write;
 *   the pages of each allocation are written (faulted in);
 *   delete_heap() once --mem has been allocated: munmap the heap, as
 *                heap_trim() deletes an emptied heap that is not its
 *                arena's first.
 *
 * Allocations are 16 KiB (under M_MMAP_THRESHOLD, 128 KiB, so they come
 * from the heap): one grow_heap — an mprotect — every 9 allocations, 36
 * page faults. Every task's mprotect is of its own heap: a lock that
 * covers only the range changed lets the other tasks fault on; the mm's
 * rwsem makes them wait. Counted: allocations a second.
 */
#include <errno.h>

#include "workloads/workload.h"

#define MA_HEAP_MAX   (64UL << 20)       /* HEAP_MAX_SIZE, 64-bit */
#define MA_TOP_PAD    (128UL << 10)      /* M_TOP_PAD's default */
#define MA_HEADER     4096UL             /* heap_info + malloc_state, a page */
#define MA_ALLOC      (16UL << 10)

static unsigned long ma_align(unsigned long v)
{
	return (v + SIM_PAGE_SIZE - 1) & ~(SIM_PAGE_SIZE - 1);
}

/* new_heap: an aligned PROT_NONE reservation, its first part read-write.
 * 0 and *heap, or -errno. */
static int ma_new_heap(struct sim_mm *mm, unsigned long *heap,
		       unsigned long *size)
{
	unsigned long p1, p2;
	int ret = sim_do_mmap(mm, 0, 2 * MA_HEAP_MAX, PROT_NONE, MAP_PRIVATE |
			      MAP_ANONYMOUS | MAP_NORESERVE, SIM_FILE_NONE, 0,
			      &p1);

	if (ret)
		return ret;
	p2 = (p1 + MA_HEAP_MAX - 1) & ~(MA_HEAP_MAX - 1);
	if (p2 > p1)
		ret = sim_do_munmap(mm, p1, p2 - p1);
	if (!ret)
		ret = sim_do_munmap(mm, p2 + MA_HEAP_MAX, MA_HEAP_MAX - (p2 - p1));
	*size = ma_align(MA_HEADER + MA_TOP_PAD);
	if (!ret)
		ret = sim_do_mprotect(mm, p2, *size, PROT_READ | PROT_WRITE);
	*heap = p2;
	return ret;
}

/* One heap's life: allocations up to mem, each written, the heap grown
 * as they need; then deleted. */
static int ma_heap_cycle(struct wl_task *t, size_t mem)
{
	unsigned long heap, size, used = MA_HEADER;
	unsigned char v = 1;
	int ret = ma_new_heap(t->mm, &heap, &size);

	while (!ret && used + MA_ALLOC <= mem && !wl_should_stop(t)) {
		if (used + MA_ALLOC > size) {    /* grow_heap */
			unsigned long want = ma_align(used + MA_ALLOC + MA_TOP_PAD);

			if (want > MA_HEAP_MAX)
				want = MA_HEAP_MAX;
			ret = sim_do_mprotect(t->mm, heap + size, want - size,
					      PROT_READ | PROT_WRITE);
			size = want;
		}
		for (unsigned long a = ma_align(used); !ret && a < used + MA_ALLOC;
		     a += SIM_PAGE_SIZE)
			if (wl_touch(t, heap + a, true, &v))
				ret = -EFAULT;
		used += MA_ALLOC;
		wl_add_ops(t, 1);
	}
	if (!ret)
		ret = sim_do_munmap(t->mm, heap, MA_HEAP_MAX);
	return ret;
}

static int ma_task(struct wl_task *t)
{
	size_t mem = t->o->mem < MA_HEAP_MAX ? t->o->mem : MA_HEAP_MAX;
	int ret = 0;

	while (!ret && !wl_should_stop(t))
		ret = ma_heap_cycle(t, mem);
	return ret;
}

const struct workload malloc_arena_workload = {
	.name = "malloc_arena",
	.test_args = "-m 1M --duration 1 --warmup 0 --interval 50",
	.test_isolation = true,
	.desc = "glibc's non-main arena heaps: each task grows a 64M-aligned heap by mprotect to --mem (16M), faulting its 16K allocations in, then deletes it",
	.loop = true,
	.default_mem = 16UL << 20,
	.min_mem = 64UL << 10,
	.concurrent_writes = true,
	.touches_mem = true,
	.nmetrics = 2,
	.metrics = { WL_RATE_METRICS("allocs/s") },
	.task = ma_task,
	.report = wl_report_rate,
};
