/* SPDX-License-Identifier: MIT */
#include "sim/faults/present.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
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
	if (!old)
		atomic_fetch_add_explicit(&mine(p)->resident, 1,
					  memory_order_relaxed);
	return old;
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

void present_forget(struct present_map *p, unsigned long start,
		    unsigned long end)
{
	uint64_t gone = 0;

	for (unsigned long a = start; a < end; a += SIM_PAGE_SIZE) {
		_Atomic unsigned char *b = present_byte(p, a);
		unsigned char old = atomic_load_explicit(b, memory_order_relaxed);

		/* Release/acquire: a touch that reads the new byte after its
		 * access knows the access may have raced the zap. */
		while (!atomic_compare_exchange_weak_explicit(b, &old,
				(unsigned char)((old & ~PRESENT_STATE) + PRESENT_GEN),
				memory_order_acq_rel, memory_order_relaxed))
			;
		if (old & PRESENT_STATE)
			gone++;
	}
	atomic_fetch_sub_explicit(&mine(p)->resident, gone,
				  memory_order_relaxed);
	sim_mm_unmap_frames(p->mm, start, end);
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
