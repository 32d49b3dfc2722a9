/* SPDX-License-Identifier: MIT */
/*
 * The simulated VMA and the address-space operations on it, with the
 * kernel's names and errno values (mm/mmap.c, mm/vma.c).
 */
#ifndef VMSIM_VMA_H
#define VMSIM_VMA_H

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
#define VM_ACCESS_FLAGS (VM_READ | VM_WRITE | VM_EXEC)

/* mmap flags understood by sim_do_mmap (values of <sys/mman.h>) */
#include <sys/mman.h>
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define SIM_FILE_NONE (-1)

struct sim_vma {
	unsigned long vm_start;          /* inclusive, page aligned */
	unsigned long vm_end;            /* exclusive, page aligned */
	unsigned long vm_flags;          /* VM_* */
	int vm_file;                     /* simulated file id, or SIM_FILE_NONE */
	unsigned long vm_pgoff;          /* file offset of vm_start, in pages */
};

struct sim_mm;

/*
 * Map len bytes (rounded up to pages). addr is a hint, or the exact place
 * with MAP_FIXED (replacing what is there) or MAP_FIXED_NOREPLACE (EEXIST
 * if anything is there). prot: PROT_*; flags: MAP_PRIVATE/MAP_SHARED plus
 * the above; file: a simulated file id or SIM_FILE_NONE; pgoff in pages.
 * Returns 0 with *out = start, or -EINVAL, -ENOMEM, -EEXIST.
 */
int sim_do_mmap(struct sim_mm *mm, unsigned long addr, size_t len, int prot,
		int flags, int file, unsigned long pgoff, unsigned long *out);

/* Unmap [start, start+len): split at both ends, remove the covered VMAs,
 * zap the real pages. Returns 0 or -EINVAL (unaligned, zero length, out
 * of the address space). Unmapping a hole is not an error (as in Linux). */
int sim_do_munmap(struct sim_mm *mm, unsigned long start, size_t len);

/* Convert prot (PROT_*) to vm_flags access bits. */
unsigned long sim_prot_to_flags(int prot);

#endif
