/* SPDX-License-Identifier: MIT */
#include "sim/faults/present.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/fault.h"
#include "sim/host.h"

const uint64_t present_zero_page[FAULT_ZERO_PAGES * SIM_PAGE_SIZE / 8]
	__attribute__((aligned(4096)));
/* A thread's buffer for file contents (fault-around maps up to 2 MiB in
 * one copy): made on first use, freed when the thread ends. */
static pthread_key_t fill_key;
static pthread_once_t fill_once = PTHREAD_ONCE_INIT;

static void fill_key_make(void)
{
	pthread_key_create(&fill_key, free);
}

static struct present_slot *mine(struct present_map *p)
{
	return slot_mine(&p->slots);
}

int present_init(struct present_map *p, struct sim_mm *mm)
{
	unsigned long base = mm->base;
	size_t bytes = mm->end - mm->base;
	void *m = host_mmap(NULL, bytes >> SIM_PAGE_SHIFT, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (m == MAP_FAILED)
		return -errno;
	if (slot_array_init(&p->slots, sizeof(struct present_slot))) {
		host_munmap(m, bytes >> SIM_PAGE_SHIFT);
		return -ENOMEM;
	}
	p->pmd = calloc((bytes >> SIM_PAGE_SHIFT) / PRESENT_PMD_PAGES + 1, 1);
	if (!p->pmd) {
		slot_array_destroy(&p->slots);
		host_munmap(m, bytes >> SIM_PAGE_SHIFT);
		return -ENOMEM;
	}
	p->b = m;
	p->mm = mm;
	p->base = base;
	p->npages = bytes >> SIM_PAGE_SHIFT;
	return 0;
}

void present_destroy(struct present_map *p)
{
	if (p->b)
		host_munmap((void *)p->b, p->npages);
	p->b = NULL;
	free((void *)p->pmd);
	p->pmd = NULL;
	slot_array_destroy(&p->slots);
}

unsigned char present_set(struct present_map *p, unsigned long addr,
			  unsigned char state)
{
	_Atomic unsigned char *b = present_byte(p, addr);
	unsigned char old = atomic_load_explicit(b, memory_order_relaxed);

	/* Keep the generation, set the state. Release: pairs with the
	 * acquire load of a synthetic touch; the page's contents are in
	 * place before a touch sees it present. */
	while (!atomic_compare_exchange_weak_explicit(b, &old,
			(unsigned char)((old & ~PRESENT_STATE) | state),
			memory_order_acq_rel, memory_order_relaxed))
		;
	old &= PRESENT_STATE;
	if (!old) {
		atomic_fetch_add_explicit(&mine(p)->resident, 1,
					  memory_order_relaxed);
		present_pmd_used(p, addr);
	}
	return old;
}

void present_mark_dirty(struct present_map *p, unsigned long addr)
{
	atomic_fetch_or_explicit(present_byte(p, addr), PRESENT_DIRTY,
				 memory_order_relaxed);
	present_pmd_used(p, addr);
}

int present_place(struct present_map *p, unsigned long addr,
		  unsigned char state, unsigned long start, uint32_t frame)
{
	if (present_set(p, addr, state))
		return 0;
	if (frame != FRAME_NIL)
		sim_mm_map_frame(p->mm, addr,
				 frame + (uint32_t)((addr - start) >> SIM_PAGE_SHIFT));
	return 1;
}

/* Eight bytes of the map whose pages are all absent and clean (none
 * has a real page), read in one load: a zap skips them, as
 * zap_pmd_range() skips an empty page table. */
#define ALL_BYTES(x) ((uint64_t)(x) * 0x0101010101010101ull)

static bool word_empty(struct present_map *p, unsigned long a)
{
	size_t i = (a - p->base) >> SIM_PAGE_SHIFT;
	_Atomic uint64_t *w = (_Atomic uint64_t *)(void *)&p->b[i];

	return !(i & 7) &&
	       !(atomic_load_explicit(w, memory_order_relaxed) &
		 ALL_BYTES(PRESENT_STATE | PRESENT_DIRTY));
}

/* Forget each page of [start, end); was[i] (if given) gets page i's
 * byte before; a page that was present also gets the bits of mark.
 * Returns the pages that may have had a real page (present or dirty). An
 * absent page keeps its byte: no touch can be inside an access begun on
 * it (that touch saw it present, before the zap that made it absent),
 * so there is no generation to advance. */
static size_t forget(struct present_map *p, unsigned long start,
		     unsigned long end, unsigned char *was, unsigned char mark)
{
	uint64_t gone = 0;
	size_t i = 0, real = 0;

	for (unsigned long a = start; a < end; a += SIM_PAGE_SIZE, i++) {
		_Atomic unsigned char *b = present_byte(p, a);
		unsigned char old, new;

		if (end - a >= 8 * SIM_PAGE_SIZE && word_empty(p, a)) {
			if (was)
				memset(&was[i], 0, 8);
			a += 7 * SIM_PAGE_SIZE;
			i += 7;
			continue;
		}
		old = atomic_load_explicit(b, memory_order_relaxed);
		if (was)
			was[i] = old;
		real += !!(old & (PRESENT_STATE | PRESENT_DIRTY));
		if (!(old & PRESENT_STATE))
			continue;

		/* Release/acquire: a touch that reads the new byte after its
		 * access knows the access may have raced the zap. */
		do
			new = (unsigned char)(((old & ~PRESENT_STATE) + PRESENT_GEN) |
					      ((old & PRESENT_STATE) ? mark : 0));
		while (!atomic_compare_exchange_weak_explicit(b, &old, new,
				memory_order_acq_rel, memory_order_relaxed));
		if (old & PRESENT_STATE)
			gone++;
	}
	if (gone)
		atomic_fetch_sub_explicit(&mine(p)->resident, gone,
					  memory_order_relaxed);
	sim_mm_unmap_frames(p->mm, start, end);
	return real;
}

void present_forget(struct present_map *p, unsigned long start,
		    unsigned long end)
{
	forget(p, start, end, NULL, 0);
}

/* The real pages of the chunk at start whose bytes in was say a real
 * page may be there, one madvise a run; 0 or the first -errno. */
static int zap_runs(unsigned long start, const unsigned char *was, size_t n)
{
	int ret = 0;

	for (size_t i = 0; i < n;) {
		size_t j;

		if (!(was[i] & (PRESENT_STATE | PRESENT_DIRTY))) {
			i++;
			continue;
		}
		for (j = i + 1; j < n && (was[j] & (PRESENT_STATE | PRESENT_DIRTY)); j++)
			;
		int r = host_madvise((void *)(start + (i << SIM_PAGE_SHIFT)),
				     (j - i) << SIM_PAGE_SHIFT, MADV_DONTNEED);
		if (r && !ret)
			ret = r;
		i = j;
	}
	return ret;
}

int present_zap(struct present_map *p, unsigned long start,
		unsigned long end, bool again)
{
	unsigned char was[PRESENT_PMD_PAGES];
	int ret = 0;

	while (start < end) {
		/* To the end of start's page table, or of the range. */
		size_t pmd = (start - p->base) / PRESENT_PMD_BYTES;
		unsigned long e = p->base + (pmd + 1) * PRESENT_PMD_BYTES;

		if (e > end)
			e = end;
		/* pmd_none(): nothing was ever placed here. */
		if (atomic_load_explicit(&p->pmd[pmd], memory_order_acquire) &&
		    forget(p, start, e, was, 0)) {
			int r = zap_runs(start, was, (e - start) >> SIM_PAGE_SHIFT);

			if (r && !ret)
				ret = r;
			if (again)
				forget(p, start, e, NULL, PRESENT_DIRTY);
		}
		start = e;
	}
	return ret;
}

void present_write_protect(struct present_map *p, unsigned long start,
			   unsigned long end)
{
	for (unsigned long a = start; a < end; a += SIM_PAGE_SIZE) {
		_Atomic unsigned char *b = present_byte(p, a);
		unsigned char old = atomic_load_explicit(b, memory_order_relaxed);

		while ((old & PRESENT_STATE) == 2 &&
		       !atomic_compare_exchange_weak_explicit(b, &old,
				(unsigned char)((old & ~PRESENT_STATE) | 1),
				memory_order_acq_rel, memory_order_relaxed))
			;
	}
}

uint64_t present_resident(const struct present_map *p)
{
	/* Two's complement: a slot that only zapped holds a negative count. */
	int64_t r = (int64_t)slot_array_sum(&p->slots,
					    offsetof(struct present_slot, resident));

	return r > 0 ? (uint64_t)r : 0;
}

bool present_absent(struct present_map *p, unsigned long start,
		    unsigned long end)
{
	for (unsigned long a = start; a < end; a += SIM_PAGE_SIZE)
		if (atomic_load_explicit(present_byte(p, a),
					 memory_order_relaxed) & PRESENT_STATE)
			return false;
	return true;
}

void present_walk(struct present_map *p, unsigned long start,
		  unsigned long end, uint64_t *rss, uint64_t *wr)
{
	*rss = *wr = 0;
	while (start < end) {
		size_t pmd = (start - p->base) / PRESENT_PMD_BYTES;
		unsigned long e = p->base + (pmd + 1) * PRESENT_PMD_BYTES;

		if (e > end)
			e = end;
		if (atomic_load_explicit(&p->pmd[pmd], memory_order_acquire))
			for (unsigned long a = start; a < e; a += SIM_PAGE_SIZE) {
				unsigned char b = atomic_load_explicit(
					present_byte(p, a), memory_order_relaxed);

				*rss += (b & PRESENT_STATE) != PRESENT_NONE;
				*wr += (b & PRESENT_STATE) == PRESENT_WRITE;
			}
		start = e;
	}
}

const void *present_file_pages(const struct sim_vma *v, unsigned long addr,
			     unsigned long n)
{
	unsigned long off = ((addr - v->vm_start) >> SIM_PAGE_SHIFT) + v->vm_pgoff;
	uint64_t *buf;

	pthread_once(&fill_once, fill_key_make);
	buf = pthread_getspecific(fill_key);
	if (!buf) {
		buf = aligned_alloc(4096, FAULT_ZERO_PAGES * SIM_PAGE_SIZE);
		if (!buf || pthread_setspecific(fill_key, buf)) {
			free(buf);
			return NULL;
		}
	}
	off <<= SIM_PAGE_SHIFT;
	for (size_t i = 0; i < (n << SIM_PAGE_SHIFT) / 8; i++)
		buf[i] = sim_file_word(v->vm_file, off + i * 8);
	return buf;
}
