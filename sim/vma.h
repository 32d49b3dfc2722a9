/* SPDX-License-Identifier: MIT */
/*
 * The simulated VMA and the address-space operations on it, with the
 * kernel's names and errno values (mm/mmap.c, mm/vma.c).
 */
#ifndef VMSIM_VMA_H
#define VMSIM_VMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_PAGE_SHIFT 12
#define SIM_PAGE_SIZE  (1UL << SIM_PAGE_SHIFT)
#define SIM_PAGE_MASK  (~(SIM_PAGE_SIZE - 1))

/* vm_flags */
#define VM_READ     0x1UL
#define VM_WRITE    0x2UL
#define VM_EXEC     0x4UL
#define VM_SHARED   0x8UL
#define VM_HEAP     0x100UL          /* the brk heap */
/* Flags that only keep VMAs apart (a merge needs equal flags), as the
 * kernel's do: MAP_NORESERVE's VM_NORESERVE (glibc's thread arenas) and
 * the VM_NOHUGEPAGE MAP_STACK sets since Linux 6.7 (thread stacks). */
#define VM_NORESERVE  0x200UL
#define VM_NOHUGEPAGE 0x400UL
#define VM_ACCESS_FLAGS (VM_READ | VM_WRITE | VM_EXEC)

/* mmap flags understood by sim_do_mmap (values of <sys/mman.h>) */
#include <sys/mman.h>
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define SIM_FILE_NONE (-1)

#include <stdatomic.h>

#include "locks/lock_ops.h"
#include "locks/sync/rcu.h"

struct objpool;

struct sim_vma {
	unsigned long vm_start;          /* inclusive, page aligned */
	unsigned long vm_end;            /* exclusive, page aligned */
	unsigned long vm_flags;          /* VM_* */
	int vm_file;                     /* simulated file id, or SIM_FILE_NONE */
	unsigned long vm_pgoff;          /* file offset of vm_start, in pages */
	/* anon_vma prepared: set by the VMA's first anonymous write fault
	 * (or populate), under the fault-side lock; kept by splits, merges
	 * and zaps, as the kernel keeps vma->anon_vma. */
	_Atomic bool anon_vma;
	struct vma_lock vm_lock;         /* the scheme's per-VMA state (opaque) */
	/* Writer-private: links of the transaction that added/removed it,
	 * and its retirement. No reader needs txn_added: a free typesafe
	 * VMA's slab free pointer lies there (vm_freeptr's place). */
	struct sim_vma *txn_added, *txn_removed;
	struct sim_rcu_head rcu;
	struct objpool *pool;            /* NULL: malloc'ed (tests) */
	/* The mm's id (sim_mm.id), as vma->vm_mm: with a slab cache the
	 * task processes share, a typesafe VMA object may be reused by
	 * another process's mm, whose pool may lie at the same address. */
	uint64_t vm_mm;
};

struct sim_mm;
struct iovec;

/*
 * Map len bytes (rounded up to pages). addr is a hint, or the exact place
 * with MAP_FIXED (replacing what is there) or MAP_FIXED_NOREPLACE (EEXIST
 * if anything is there). prot: PROT_*; flags: MAP_PRIVATE/MAP_SHARED plus
 * the above; file: a simulated file id or SIM_FILE_NONE; pgoff in pages.
 * The new VMA merges with compatible neighbours (same flags and backing,
 * contiguous file offsets). Returns 0 with *out = start, or -EINVAL
 * (zero length, unaligned fixed address), -ENOMEM (no gap, outside the
 * arena, or more than max_map_count VMAs), -EEXIST (NOREPLACE).
 * No operation changes anything when it fails.
 */
int sim_do_mmap(struct sim_mm *mm, unsigned long addr, size_t len, int prot,
		int flags, int file, unsigned long pgoff, unsigned long *out);

/* Unmap [start, start+len): split at both ends, remove the covered VMAs,
 * zap the real pages. Returns 0, -EINVAL (unaligned, zero length, out of
 * the arena) or -ENOMEM (the splits would exceed max_map_count).
 * Unmapping a hole is not an error (as in Linux). */
int sim_do_munmap(struct sim_mm *mm, unsigned long start, size_t len);

/* Change the protection of [start, start+len): split, apply, merge, and
 * make the pages obey it without touching the host's VMA layout
 * (sim_mm_protect). Returns 0, -EINVAL (unaligned) or -ENOMEM (a hole in
 * the range, or too many VMAs). len 0 is a no-op. */
int sim_do_mprotect(struct sim_mm *mm, unsigned long start, size_t len,
		    int prot);

/* madvise over [start, start+len) under the read-range side:
 * MADV_DONTNEED zaps the real pages; MADV_POPULATE_WRITE places them
 * (as MAP_POPULATE does). Returns 0, -EINVAL (unaligned, other advice),
 * -ENOMEM if part of the range is unmapped (the mapped parts are still
 * done, as in Linux), -EFAULT populating a VMA that may not be written. */
int sim_do_madvise(struct sim_mm *mm, unsigned long start, size_t len,
		   int advice);

/* process_madvise semantics over n ranges: one lock acquisition for the
 * batch, ranges in order, stop at the first failure. Returns the bytes
 * advised (*err = 0), or the bytes done before the failure (*err = the
 * failure). With one_syscall (MADV_DONTNEED only) the real pages of all
 * the ranges are zapped by one process_madvise(2) on ourselves (Linux
 * 6.13+, see sim_mm.process_madvise_ok; -EOPNOTSUPP otherwise) instead
 * of one madvise(2) per range. */
size_t sim_do_madvise_batch(struct sim_mm *mm, const struct iovec *iov,
			    int n, int advice, bool one_syscall, int *err);

/* brk(newbrk): grow or shrink the heap VMA in place. Returns 0 and *out =
 * the new break, or -ENOMEM with *out = the old break (below start_brk,
 * or growing into another VMA). newbrk 0 just reports the break. */
int sim_do_brk(struct sim_mm *mm, unsigned long newbrk, unsigned long *out);

/* Convert prot (PROT_*) to vm_flags access bits. */
unsigned long sim_prot_to_flags(int prot);

/* Free a VMA now (to its pool, or free() when it has none). */
void sim_vma_free(void *v);

/* Where an mmap of len bytes with this hint would go, found in the
 * published tree without any lock (lock_env.mmap_guess; arg is the mm). */
int sim_mmap_guess(void *arg, unsigned long hint, unsigned long len,
		   unsigned long *out);
/* The span of the VMAs an mprotect of [start, end) may change, and the
 * layout's version it was read from, found without any lock
 * (lock_env.mprotect_span, lock_env.layout_seq). */
unsigned long sim_mprotect_span(void *arg, unsigned long start,
				unsigned long end, unsigned long *lo,
				unsigned long *hi);
unsigned long sim_layout_seq(void *arg);

#endif
