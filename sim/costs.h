/* SPDX-License-Identifier: MIT */
/*
 * costs — what a model operation pays so that it costs what the host
 * kernel's does (--costs; the profile behind it: resfile/cost_profile.h,
 * measured by `vmsim calibrate --profile`).
 *
 * A model's mmap does the address-space bookkeeping and nothing else: no
 * system call entry and exit, no page-table work, no accounting. Left so,
 * its lock is held for most of every operation (85% of an mmap+munmap
 * pair here, against the kernel's 31%), and it contends as no kernel's
 * lock does. With costs on, each operation class pays the difference
 * between the kernel's time and the model's, measured at one task, in
 * three places:
 *
 *   out   before the lock: a real system call where the kernel's own time
 *         outside its lock holds at least one (its entry and exit: a
 *         getppid(), which touches no memory map), then busy work for the
 *         rest;
 *   in    right after the lock's begin, inside the section the operation
 *         opens (the write side; madvise's read side): busy work, as the
 *         kernel's page-table and accounting work under mmap_lock;
 *   down  after a munmap's (a shrinking brk's) downgrade, under the read
 *         side the kernel keeps while it frees the range's page tables.
 *
 * Busy work is a spin on the cycle counter: no sleep, no memory call, the
 * CPU kept as the kernel's work keeps it. A model already as slow as the
 * kernel somewhere pays nothing there (resfile/cost_profile.c says which).
 */
#ifndef VMSIM_COSTS_H
#define VMSIM_COSTS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/clock.h"

/* The operation classes a profile measures, in its order. */
enum sim_cost_op {
	SIM_COST_MMAP,
	SIM_COST_MUNMAP,
	SIM_COST_MPROTECT,
	SIM_COST_MADVISE,
	SIM_COST_BRK,
	SIM_COST_NOPS
};

/* "mmap", "munmap", "mprotect", "madvise", "brk". */
extern const char *const sim_cost_op_names[SIM_COST_NOPS];

/* What one operation of a class pays, in ns. */
struct sim_op_cost {
	uint64_t out_ns, in_ns, down_ns;
};

struct sim_costs {
	bool on;
	/* The real system call's own cost (a getppid() here), paid as part
	 * of out_ns where out_ns holds one: then only out_ns - syscall_ns is
	 * spun. */
	uint64_t syscall_ns;
	struct sim_op_cost op[SIM_COST_NOPS];
};

/* The same in cycle-counter ticks, as an mm pays them (sim_costs_ticks). */
struct sim_op_ticks {
	uint64_t out, in, down;          /* out: the spin after the call */
	bool syscall;                    /* make the real call first */
};

/* c (ns) into ticks of cycles_now(), for an mm to pay. */
void sim_costs_ticks(const struct sim_costs *c,
		     struct sim_op_ticks t[SIM_COST_NOPS]);

/* Busy work for ticks cycles_now() ticks (0: none): the CPU spins, no
 * sleep, no system call (--costs, and --hold-extra's busy work). */
static inline void sim_cost_spin(uint64_t ticks)
{
	uint64_t t0;

	if (!ticks)
		return;
	t0 = cycles_now();
	while (cycles_now() - t0 < ticks)
		;
}
/* One real system call that touches no memory map (its entry and exit). */
void sim_cost_syscall(void);

#endif
