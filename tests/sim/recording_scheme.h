/* SPDX-License-Identifier: MIT */
/*
 * A test-only lock scheme that records and checks, as the kernel's
 * tools/testing/vma checks vma_write_started(): it locks like rwsem, and
 * at the end of every write section (write_end, write_downgrade) it
 * compares the VMAs of the mm with a snapshot taken at write_begin.
 * Every VMA the writer removed or changed (range, offset, flags) must
 * have been passed to vma_start_write() first; a VMA that appeared must
 * have been passed to vma_init(). A breach is counted and the first one
 * described.
 */
#ifndef VMSIM_RECORDING_SCHEME_H
#define VMSIM_RECORDING_SCHEME_H

#include "locks/lock_ops.h"
#include "sim/mm.h"

extern const struct lock_ops recording_lock_ops;

/* The mm whose VMAs the recording scheme checks (set after creation). */
void recording_attach(struct lock_inst *l, struct sim_mm *mm);
/* Write sections checked, and breaches found (the first in why). */
void recording_result(struct lock_inst *l, long *sections, long *breaches,
		      char *why, size_t len);

#endif
