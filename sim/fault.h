/* SPDX-License-Identifier: MIT */
/*
 * fault — the simulated page-fault path.
 *
 * sim_handle_fault() is what the kernel's handle_mm_fault() path is to a
 * real fault: take the scheme's fault-side lock, find the VMA, check the
 * access, ask the scheme whether the resolve may go ahead (it may want a
 * retry under a stronger lock, as a fault under a VMA lock retries under
 * mmap_lock), resolve, release. The lock is held across the resolve (the
 * UFFDIO_COPY/ZEROPAGE/WRITEPROTECT ioctl, or the page population in
 * synthetic mode), as the kernel holds mmap_lock or the VMA lock across
 * the page-table update; that is what makes faults and munmap contend.
 * A refused access is answered, still under the lock, with a signal to
 * the faulting thread (uffd) or -EFAULT (synthetic).
 *
 * Workloads touch memory only through sim_touch(), which the fault
 * source implements (sim/fault_source.h).
 */
#ifndef VMSIM_FAULT_H
#define VMSIM_FAULT_H

#include <errno.h>
#include <stdbool.h>

#include "sim/backend.h"
#include "sim/fault_source.h"
#include "sim/mm.h"

/*
 * Handle a fault at addr; ctx is the source's, passed back to its
 * resolve/refuse/wake. Returns 0 when resolved, -EFAULT when the access
 * was refused (answered through the source's refuse).
 */
int sim_handle_fault(struct sim_mm *mm, unsigned long addr, unsigned flags,
		     void *ctx);

/*
 * MAP_POPULATE: place every page of the VMAs in [start, end) now, as
 * mm_populate() does after mmap (the caller holds the read-range side).
 * Writable pages get real memory, read-only ones the zero page (or file
 * contents). Returns 0 or -errno.
 */
int sim_populate(struct sim_mm *mm, unsigned long start, unsigned long end);

/* The calling thread's current step in the fault path, a string
 * constant or NULL (for the watchdog's diagnostic: a uffd handler's pool
 * reads it through this pointer). */
_Atomic(const char *) *sim_fault_phase(void);

/*
 * Touch the byte at addr: write val if write (FAULT_FLAG_WRITE), else
 * read it into *val; FAULT_FLAG_KERNEL: as the kernel's copy to or from
 * user memory does. Returns 0, or -EFAULT when the simulated mm refused
 * the access (the caller counts a simulated SIGSEGV).
 */
static inline int sim_touch_flags(struct sim_mm *mm, unsigned long addr,
				  unsigned flags, unsigned char *val)
{
	/* The host's mappings lie where it put them (sim/backend.h). */
	if (mm->be->arena && (addr < mm->base || addr >= mm->end))
		return -EFAULT;
	return mm->src->ops->touch(mm->src, addr, flags, val);
}

static inline int sim_touch(struct sim_mm *mm, unsigned long addr, bool write,
			    unsigned char *val)
{
	return sim_touch_flags(mm, addr, write ? FAULT_FLAG_WRITE : 0, val);
}

/* Contents of simulated file `file` at byte offset off (8-byte pattern). */
static inline uint64_t sim_file_word(int file, unsigned long off)
{
	uint64_t x = ((uint64_t)(unsigned)file << 40) ^ (off >> 3);

	x *= 0x9E3779B97F4A7C15ull;
	return x ^ (x >> 29);
}

#endif
