/* SPDX-License-Identifier: MIT */
/*
 * perf_waits — who waited for the host's mmap_lock in a recording, and
 * behind whom: each thread's waits (read, write) against its run time
 * (its first to its last event), and the longest waits with the thread
 * that held the lock then and what each was doing (the cause and the
 * kernel frame that decided it, from the acquisition's call chain).
 *
 * The holder of a wait is the one that held the lock for writing when
 * the waiter asked, or, for a writer that found readers, the reader
 * that had held it longest; where none held it then (the waiter queued
 * behind another waiter), the last to release it before the waiter got
 * it.
 */
#ifndef VMSIM_PERF_WAITS_H
#define VMSIM_PERF_WAITS_H

#include <stdbool.h>
#include <stdint.h>

#define PERF_WAIT_THREADS 4096           /* threads told apart */
#define PERF_WAIT_MMS 64                 /* address spaces */
#define PERF_WAIT_HOLDERS 16             /* holders of one mm at once */
#define PERF_WAIT_TOP 5                  /* longest waits kept */
#define PERF_WAIT_SITES 256              /* kernel frames told apart */
#define PERF_WAIT_SITE_LEN 48

/* A thread holding (or asking for) an mm's lock, and why. */
struct perf_holder {
	uint32_t tid;
	uint8_t write;
	uint8_t cause;                   /* enum perf_cause */
	uint16_t site;                   /* sites[] index; 0: none */
	uint64_t since;                  /* when it got it (ns, raw) */
};

struct perf_wait_thread {
	uint32_t tid;                    /* 0: free */
	uint64_t wait_ns[2], waits[2];   /* read, write */
	uint64_t t_first, t_last;        /* its events (ns, raw) */
	/* Asking now: for mm, since ask_t, behind blocker. */
	uint64_t ask_mm, ask_t;
	bool asking, have_blocker;
	struct perf_holder blocker;
};

struct perf_wait_top {
	uint64_t wait_ns, t;             /* t: when it asked (ns, raw) */
	struct perf_holder waiter, holder;
	bool have_holder;
};

struct perf_wait_mm {
	uint64_t mm;
	struct perf_holder h[PERF_WAIT_HOLDERS];
	int n;
	struct perf_holder last;         /* the last to release it */
	uint64_t last_t;
	bool have_last;
};

struct perf_waits {
	struct perf_wait_thread th[PERF_WAIT_THREADS];
	int nth;
	uint64_t threads_over;           /* threads beyond th[] */
	struct perf_wait_mm mm[PERF_WAIT_MMS];
	int nmm;
	struct perf_wait_top top[PERF_WAIT_TOP];
	int ntop;
	char sites[PERF_WAIT_SITES][PERF_WAIT_SITE_LEN];
	int nsites;                      /* sites[0] is "" */
};

/* The site id of a kernel frame's symbol (its offset cut): 0 for "". */
uint16_t perf_waits_site(struct perf_waits *w, const char *sym);
/* Thread tid of the traced process had an event at t. */
void perf_waits_seen(struct perf_waits *w, uint32_t tid, uint64_t t);
/* tid asks for mm's lock (write or read) at t. */
void perf_waits_ask(struct perf_waits *w, uint64_t mm, uint32_t tid,
		    bool write, uint64_t t);
/* tid's ask ended at t: got it (waited wait_ns; a read while it held
 * the write side is a downgrade), or a trylock failed (!got). counted:
 * the wait is the traced address space's (not fork's of the child's). */
void perf_waits_got(struct perf_waits *w, uint64_t mm,
		    const struct perf_holder *who, bool got, uint64_t wait_ns,
		    uint64_t t, bool counted);
void perf_waits_release(struct perf_waits *w, uint64_t mm, uint32_t tid,
			uint64_t t);
/* The program exec'd: what came before is another program's. */
void perf_waits_reset(struct perf_waits *w);
/* Thread tid's, or NULL. */
const struct perf_wait_thread *perf_waits_thread(const struct perf_waits *w,
						 uint32_t tid);

#endif
