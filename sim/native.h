/* SPDX-License-Identifier: MIT */
/*
 * native — an mm whose scheme is the host kernel (lock_ops.host, `-l
 * kernel`): every address-space call a workload makes through sim/vma.h
 * is made for real, and every touch is a real access (the kernel fault
 * source, sim/faults/sources.h), so that the host's own mmap_lock,
 * per-VMA locks, page allocator and page tables do what the models
 * simulate. These calls are the workload's, not vmsim's: they are not
 * counted by sim/host.h, whose counters prove that the models' runs
 * leave the host's address space alone.
 *
 * Addresses. A mapping without a fixed address goes where the kernel
 * puts it (mmap(NULL), as will-it-scale and pft do); one at a fixed
 * address (a replay's, relocated) goes into the window [mm->base,
 * mm->end): a range of the host's address space far below where the
 * kernel places mappings by itself, found free when the mm is made and
 * left unmapped, so that MAP_FIXED there replaces nothing of vmsim's. A
 * fixed address outside it is refused (-ENOMEM, as the models refuse
 * one outside their arena). The break is the process's real one,
 * relocated: the workload's break mm->start_brk is the host's break as
 * it was when the mm was made, so a workload never moves it below where
 * it found it (brk1 as will-it-scale runs it) — unless the workload
 * placed its heap (a replay's), whose brk then maps and unmaps at fixed
 * addresses in the window (sim_native_place_heap).
 *
 * Simulated files are memfds, one per file id, made at first use and
 * sized far past any offset a workload maps, so that no touch of a file
 * page raises SIGBUS.
 */
#ifndef VMSIM_NATIVE_H
#define VMSIM_NATIVE_H

#include <stdbool.h>
#include <stddef.h>

struct sim_mm;
struct iovec;

/* The window for mm (mm->cfg.arena_size bytes), the break's base, the
 * file table. 0 or -errno. */
int sim_native_init(struct sim_mm *mm);
/* Unmap what is left in the window, close the files. */
void sim_native_fini(struct sim_mm *mm);
/* The workload placed its heap at mm->start_brk (sim_mm_set_brk_base):
 * where that is in the window, its brk maps and unmaps there, at fixed
 * addresses (the process's own break cannot move into the window). */
void sim_native_place_heap(struct sim_mm *mm);

/* sim/vma.h's calls, for real: the same arguments, 0 or -errno. */
int sim_native_mmap(struct sim_mm *mm, unsigned long addr, size_t len,
		    int prot, int flags, int file, unsigned long pgoff,
		    unsigned long *out);
int sim_native_munmap(struct sim_mm *mm, unsigned long start, size_t len);
int sim_native_mprotect(struct sim_mm *mm, unsigned long start, size_t len,
			int prot);
int sim_native_madvise(struct sim_mm *mm, unsigned long start, size_t len,
		       int advice);
size_t sim_native_madvise_batch(struct sim_mm *mm, const struct iovec *iov,
				int n, int advice, bool one_syscall, int *err);
int sim_native_brk(struct sim_mm *mm, unsigned long newbrk,
		   unsigned long *out);

#endif
