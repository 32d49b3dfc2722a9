/* SPDX-License-Identifier: MIT */
/*
 * pool — a pool of handler threads reading one userfaultfd.
 *
 * Wait modes:
 *   block  blocking read(); stop by a signal that interrupts it
 *   poll   poll() on the uffd and an eventfd that stop writes to
 *   busy   non-blocking read() in a loop (lowest latency, burns a CPU)
 *   uring  an io_uring read per batch, each handler its own ring
 *          (submit and wait in one io_uring_enter)
 * Each read takes up to `batch` messages; each page-fault message is
 * passed to the callback, which must answer it (resolve or poison).
 */
#ifndef VMSIM_POOL_H
#define VMSIM_POOL_H

#include <linux/userfaultfd.h>
#include <stdatomic.h>
#include <stdint.h>

#include "uffd/resolve.h"

enum uffd_wait_mode { UFFD_WAIT_BLOCK, UFFD_WAIT_POLL, UFFD_WAIT_BUSY,
		      UFFD_WAIT_URING, UFFD_WAIT_NMODES };
/* Their names (--wait), indexed by value. */
extern const char *const uffd_wait_mode_names[UFFD_WAIT_NMODES];

/* Answer one page fault. Must resolve or poison msg's page. */
typedef void (*uffd_fault_fn)(void *arg, int fd, const struct uffd_msg *msg,
			      struct uffd_counters *c);

/* A thread's "what am I doing now" string, readable from other threads. */
typedef _Atomic(const char *) uffd_phase_t;

/* What one handler is doing, for the watchdog's diagnostics. */
struct uffd_handler_state {
	_Atomic unsigned long addr;      /* fault being handled, 0 if none */
	_Atomic uint64_t since_ns;       /* CLOCK_MONOTONIC_COARSE when it began */
	_Atomic(uffd_phase_t *) phase;   /* the handler's current step */
	_Atomic int read_errno;          /* its last read failed so; 0: ok */
};

struct uffd_pool_cfg {
	int fd;
	int nhandlers;                   /* >= 1 */
	enum uffd_wait_mode wait;
	int batch;                       /* messages per read, 1..64 */
	uffd_fault_fn fn;
	void *arg;
	const int *cpus;                 /* pin handler i to cpus[i % ncpus] */
	int ncpus;                       /* 0: no pinning */
	/* Optional: the calling thread's "what am I doing" variable, which
	 * fn keeps up to date; read by uffd_pool_state() users. */
	uffd_phase_t *(*phase_of_thread)(void);
	/* Test hook: the handler of fault number stall_at (counted from 1
	 * over the pool) stalls forever, for the watchdog's tests. 0: no. */
	long stall_at;
	/* Handler i counts in slot slot_base + i (base/slots.h). */
	int slot_base;
};

struct uffd_pool;

/* Start the handlers. Returns 0 and *out, or -errno (nothing left running). */
int uffd_pool_start(const struct uffd_pool_cfg *cfg, struct uffd_pool **out);
/* Stop, join and free. Safe on NULL. If sum is not NULL, it gets the sum
 * of all handlers' counters (read after the join, so it is exact). */
void uffd_pool_stop(struct uffd_pool *p, struct uffd_counters *sum);
/* Handlers in the pool, and the state of handler i. */
int uffd_pool_size(struct uffd_pool *p);
const struct uffd_handler_state *uffd_pool_state(struct uffd_pool *p, int i);
/* Total CPU time (ns) the handler threads have used so far. */
uint64_t uffd_pool_cpu_ns(struct uffd_pool *p);
/* Parse/print a wait mode name; parse returns -EINVAL if unknown. */
int uffd_wait_mode_parse(const char *s, enum uffd_wait_mode *out);
const char *uffd_wait_mode_name(enum uffd_wait_mode m);

#endif
