/* SPDX-License-Identifier: MIT */
/*
 * rcu — the RCU that vmsim uses: liburcu's memb flavour (read side is a
 * per-thread counter, grace periods use membarrier(2)), with automatic
 * thread registration: a thread is registered on its first read-side
 * critical section and unregistered when it exits (pthread key
 * destructor), so neither the uffd pool nor the workloads need to know.
 *
 * Memory is reclaimed by callback (liburcu's call_rcu: worker threads
 * that wait for grace periods, one per CPU or one in all), as the kernel
 * frees maple nodes (and, before 6.15, VMAs) after a grace period: a
 * writer never waits for one.
 *
 * Under ThreadSanitizer, liburcu's ordering (inline asm, membarrier) is
 * invisible and every deferred free would be reported as a race, so the
 * TSan build maps the same calls onto a pthread rwlock: a reader holds it
 * shared, a grace period takes it exclusive once, and callbacks are
 * batched and run after one. That has RCU's guarantee in a form TSan
 * understands; the normal build never uses it.
 *
 * Pointers published to readers use C11 release stores and acquire (or
 * dependent) loads, not liburcu's macros, for the same reason.
 */
#ifndef VMSIM_LOCKS_RCU_H
#define VMSIM_LOCKS_RCU_H

#include <stdbool.h>

/* Embedded in every object freed by callback. */
struct sim_rcu_head {
	unsigned long opaque[2];         /* liburcu's struct rcu_head */
	void (*fn)(struct sim_rcu_head *h);
	struct sim_rcu_head *next;       /* the owner's list link, until queued */
	void *owner;                     /* the owner's, until queued */
	struct sim_rcu_head *lazy_next;  /* on a lazy list (rcu_lazy.c) */
	void (*lazy_fn)(struct sim_rcu_head *h);
};

/* A bare callback head, two words as the kernel's struct rcu_head
 * (callback_head: next, func) is, for objects with no room for the
 * above: the kernel's maple tree lays its nodes out around a 16-byte
 * head (sim/kmaple). fn(h) after a grace period, on the same callback
 * threads as sim_call_rcu's. */
struct sim_rcu_raw {
	void *opaque[2];
};
void sim_call_rcu_raw(struct sim_rcu_raw *h, void (*fn)(struct sim_rcu_raw *h));

void sim_rcu_read_lock(void);
void sim_rcu_read_unlock(void);
/* Wait until every read-side critical section that began before the call
 * has ended. Must not be called inside one. */
void sim_rcu_synchronize(void);
/* Call fn(h) after a grace period, from the callback thread. Never waits. */
void sim_call_rcu(struct sim_rcu_head *h, void (*fn)(struct sim_rcu_head *h));
/* Wait until every callback queued before the call has run, lazy ones
 * too (rcu_lazy.c: the lazy lists are flushed first, as rcu_barrier()
 * flushes the bypass lists). */
void sim_rcu_barrier(void);
/* The same for the callbacks already handed to RCU (rcu.c). */
void sim_rcu_barrier_queued(void);
/*
 * Lazy callbacks (locks/sync/rcu_lazy.c): fn(h) after a grace period
 * that may start late — the calling CPU's lazy list, shared by every
 * lazy callback of the process, goes to RCU once max wait on it or the
 * oldest has waited flush_ns (sim_rcu_lazy_set; 10,000 and 10 s, the
 * kernel's qhimark and jiffies_lazy_flush). Never waits.
 */
void sim_call_rcu_lazy(struct sim_rcu_head *h, void (*fn)(struct sim_rcu_head *h));
void sim_rcu_lazy_set(unsigned max, unsigned long long flush_ns);
unsigned sim_rcu_lazy_limit(void);      /* the max set */
/* Every lazy list to RCU now (asynchronous: nothing waits). */
void sim_rcu_lazy_flush(void);
/*
 * Where callbacks run. SIM_RCU_CBS_PERCPU (the default): on a callback
 * thread per CPU the process may run on, bound to it, each taking the
 * callbacks queued on its CPU — as the kernel invokes a CPU's callbacks
 * on that CPU (liburcu's per-CPU call_rcu data). SIM_RCU_CBS_ONE: all on
 * liburcu's one default call_rcu thread. Set before sim_rcu_prepare();
 * a forked child inherits it and prepares its own threads.
 */
enum sim_rcu_cbs { SIM_RCU_CBS_PERCPU, SIM_RCU_CBS_ONE, SIM_RCU_CBS_N };
/* Their names (--rcu-cbs), indexed by value. */
extern const char *const sim_rcu_cbs_names[SIM_RCU_CBS_N];
void sim_rcu_set_callbacks(enum sim_rcu_cbs where);
/* Start the callback threads now (outside any timed phase). */
void sim_rcu_prepare(void);
/* Around fork(): the callback thread does not survive it. */
void sim_rcu_before_fork(void);
void sim_rcu_after_fork_parent(void);
void sim_rcu_after_fork_child(void);

#endif
