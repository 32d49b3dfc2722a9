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
 * Workloads touch memory only through sim_touch(), which does a real
 * access in uffd mode and a present check plus sim_handle_fault() in
 * synthetic mode.
 */
#ifndef VMSIM_FAULT_H
#define VMSIM_FAULT_H

#include <linux/userfaultfd.h>
#include <stdbool.h>

#include "mm/mm.h"
#include "uffd/pool.h"
#include "uffd/resolve.h"

#define FAULT_FLAG_WRITE 0x1
#define FAULT_FLAG_WP    0x2             /* a write to a write-protected page */

/* Where a uffd fault came from: its descriptor, the faulting thread, the
 * handler's counters. NULL for a synthetic fault. */
struct sim_fault_src {
	int fd;
	pid_t tid;
	struct uffd_counters *c;
};

/*
 * Handle a fault at addr. Returns 0 when resolved, -EFAULT when the
 * access was refused (the thread was signalled; synthetic: the caller
 * reports it).
 */
int sim_handle_fault(struct sim_mm *mm, unsigned long addr, unsigned flags,
		     const struct sim_fault_src *src);

/*
 * MAP_POPULATE: place every page of the VMAs in [start, end) now, as
 * mm_populate() does after mmap (the caller holds the read-range side).
 * Writable pages get real memory, read-only ones the zero page (or file
 * contents). Returns 0 or -errno.
 */
int sim_populate(struct sim_mm *mm, unsigned long start, unsigned long end);

/* The calling thread's current step in the fault path (for the uffd
 * pool's watchdog state). */
uffd_phase_t *sim_fault_phase(void);

/* The uffd pool's callback: arg is the sim_mm. */
void sim_uffd_fault(void *arg, int fd, const struct uffd_msg *msg,
		    struct uffd_counters *c);

/*
 * Touch the byte at addr: write val if write, else read it into *val.
 * Returns 0, or -EFAULT when the simulated mm refused the access (the
 * caller counts a simulated SIGSEGV).
 */
int sim_touch(struct sim_mm *mm, unsigned long addr, bool write,
	      unsigned char *val);

/* Install the handler that turns a refused access in sim_touch() (the
 * refusal signal) into -EFAULT. Idempotent; returns 0 or -errno. */
int sim_fault_init_signals(void);

/* Contents of simulated file `file` at byte offset off (8-byte pattern). */
static inline uint64_t sim_file_word(int file, unsigned long off)
{
	uint64_t x = ((uint64_t)(unsigned)file << 40) ^ (off >> 3);

	x *= 0x9E3779B97F4A7C15ull;
	return x ^ (x >> 29);
}

#endif
