/* SPDX-License-Identifier: MIT */
/*
 * What an mm is backed by, chosen once when it is made (sim_mm_create):
 * the model — vmsim's VMA tree, the run's lock scheme and fault source
 * over one arena (sim/mm.c, sim/vma.c, sim/maps.c) — or the host kernel
 * (sim/mm_kernel.c), which -l kernel's lock_ops.host chooses. Every call of
 * sim/vma.h that changes the address space, a maps reader's read, and
 * the mm's set-up and end are the backend's; nothing below asks which
 * it is.
 *
^ * The kernel backend (sim/mm_kernel.c), an mm whose scheme is the host
 * kernel (lock_ops.host, `-l kernel`): every address-space call a workload makes through sim/vma.h
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
#ifndef VMSIM_BACKEND_H
#define VMSIM_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/maps.h"

struct sim_mm;
struct iovec;

struct sim_mm_backend {
	const char *name;
	/* The mm's mappings all lie in [mm->base, mm->end) (its arena): a
	 * touch outside is refused there, not made. */
	bool arena;
	/* Its address space (the arena; the host's window and break) and
	 * the heap's start: 0 or -errno. */
	int (*init)(struct sim_mm *mm);
	void (*fini)(struct sim_mm *mm);
	/* After the lock is made: where its memory goes (--numa). */
	void (*place)(struct sim_mm *mm);
	/* The workload placed its heap at mm->start_brk. */
	void (*place_heap)(struct sim_mm *mm);
	/* The fault source (mm->src): 0 or -errno. */
	int (*source)(struct sim_mm *mm);
	/* Does process_madvise(MADV_DONTNEED) work on this mm's pages? */
	bool (*process_madvise_ok)(struct sim_mm *mm);
	/* sim/vma.h's calls: the same arguments, 0 or -errno. */
	int (*mmap)(struct sim_mm *mm, unsigned long addr, size_t len, int prot,
		    int flags, int file, unsigned long pgoff, unsigned long *out);
	int (*munmap)(struct sim_mm *mm, unsigned long start, size_t len);
	int (*mprotect)(struct sim_mm *mm, unsigned long start, size_t len,
			int prot);
	int (*madvise)(struct sim_mm *mm, unsigned long start, size_t len,
		       int advice);
	size_t (*madvise_batch)(struct sim_mm *mm, const struct iovec *iov,
				int n, int advice, bool one_syscall, int *err);
	int (*brk)(struct sim_mm *mm, unsigned long newbrk, unsigned long *out);
	/* sim/maps.h's: open (NULL: nothing to open), one read. */
	int (*maps_open)(struct sim_maps_reader *r);
	int (*maps_read)(struct sim_maps_reader *r, sim_maps_fn *fn, void *arg);
};

/* The model (sim/mm.c), the host kernel (sim/mm_kernel.c). */
extern const struct sim_mm_backend sim_model_backend, sim_kernel_backend;

/* The model's calls, for its table (sim/vma.c, sim/maps.c). */
int sim_model_mmap(struct sim_mm *mm, unsigned long addr, size_t len, int prot,
		   int flags, int file, unsigned long pgoff, unsigned long *out);
int sim_model_munmap(struct sim_mm *mm, unsigned long start, size_t len);
int sim_model_mprotect(struct sim_mm *mm, unsigned long start, size_t len,
		       int prot);
int sim_model_madvise(struct sim_mm *mm, unsigned long start, size_t len,
		      int advice);
size_t sim_model_madvise_batch(struct sim_mm *mm, const struct iovec *iov,
			       int n, int advice, bool one_syscall, int *err);
int sim_model_brk(struct sim_mm *mm, unsigned long newbrk, unsigned long *out);
int sim_model_maps_read(struct sim_maps_reader *r, sim_maps_fn *fn, void *arg);

#endif
