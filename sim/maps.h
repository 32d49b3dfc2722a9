/* SPDX-License-Identifier: MIT */
/*
 * maps — a reader of the simulated mm's VMA list, as /proc/PID/maps,
 * /proc/PID/smaps and the PROCMAP_QUERY ioctl read a process's
 * (fs/proc/task_mmu.c). One read is one read(2) of the seq_file: the
 * records of as many VMAs as fit in its page-sized buffer, from the
 * position (the end of the last VMA shown) on, under the lock the
 * scheme's kernel would hold — the read side of the chunk's range
 * (mmap_read_lock for the mm-wide schemes), or, where the scheme has
 * per-VMA locks and Linux 6.17's walk is asked for, one VMA's read lock
 * at a time (lock_ops.vma_read_next). smaps walks each VMA's page table
 * while it holds the lock; one query is one PROCMAP_QUERY (6.11) of the
 * VMA covering, or next after, the position.
 *
 * Under -l kernel (the host runs the workload) the reader really reads
 * /proc/self/maps or smaps with read(2), or asks PROCMAP_QUERY, and
 * counts the VMAs it was given.
 */
#ifndef VMSIM_MAPS_H
#define VMSIM_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim_mm;

enum sim_maps_kind { SIM_MAPS_MAPS, SIM_MAPS_SMAPS, SIM_MAPS_QUERY,
		     SIM_MAPS_NKINDS };
/* "maps", "smaps", "query" (--maps-read), indexed by kind. */
extern const char *const sim_maps_kind_names[SIM_MAPS_NKINDS];

/* The seq_file's buffer: a page. */
#define SIM_MAPS_BUF 4096

/* One VMA as a read showed it. */
struct sim_maps_vma {
	unsigned long start, end, flags;  /* flags: VM_READ|VM_WRITE|VM_EXEC|VM_SHARED */
};
typedef void sim_maps_fn(const struct sim_maps_vma *v, void *arg);

struct sim_maps_reader {
	struct sim_mm *mm;
	enum sim_maps_kind kind;
	/* Before 6.17: the mm lock's read side a chunk (a query) at a time
	 * even where the scheme has per-VMA locks (--maps-lock mmap). */
	bool mm_lock;
	unsigned long pos;               /* where the next read starts */
	int fd;                          /* -l kernel: the open file, else -1 */
	bool wrapped;                    /* the last read reached the end of
					  * the list: the next starts over */
	size_t part;                     /* -l kernel: bytes of a line carried over */
	char line[128];                  /* ... its start (enough for the range) */
	char buf[SIM_MAPS_BUF];
};

/* Open a reader of mm (set-up: under -l kernel it opens /proc/self/maps
 * or smaps). 0 or -errno. */
int sim_maps_open(struct sim_maps_reader *r, struct sim_mm *mm,
		  enum sim_maps_kind kind, bool mm_lock);
void sim_maps_close(struct sim_maps_reader *r);
/*
 * One read: fn (may be NULL) on each VMA it showed, in address order.
 * Returns how many VMAs it showed (a host read may show none: it may
 * hold the rest of a record), and sets r->wrapped when it reached the
 * end of the list (the next read starts again at the bottom); -errno if
 * the host refused a read.
 */
int sim_maps_read(struct sim_maps_reader *r, sim_maps_fn *fn, void *arg);

#endif
