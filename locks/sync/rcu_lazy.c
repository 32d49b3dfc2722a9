/* SPDX-License-Identifier: MIT */
/*
 * Lazy RCU callbacks (CONFIG_RCU_LAZY): call_rcu() of a callback that
 * may wait puts it on the calling CPU's lazy list — one list a CPU for
 * every lazy callback, whatever queued it, as rcu_nocb_try_bypass()
 * keeps the nocb CPU's bypass list — and the list goes to a grace
 * period in one piece once lazy_max callbacks wait there (qhimark,
 * 10,000) or the oldest has waited flush_ns (jiffies_lazy_flush, 10 s),
 * checked as each is queued. rcu_barrier() flushes every list first.
 * liburcu has no lazy mode, so vmsim holds the callbacks back itself:
 * a flushed list is one liburcu callback (its first head carries it)
 * that runs the others, as the kernel splices the bypass list into the
 * callback list in one step. Per process: a forked child starts with
 * empty lists (a pthread_atfork handler: its parent's callbacks are its
 * parent's to run).
 */
#include "locks/sync/rcu.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

#include "locks/sync/clock.h"
#include "locks/sync/spinlock.h"

#define RCU_LAZY_CPUS 256                /* lists; CPU numbers past wrap */

struct lazy_list {
	struct sim_spinlock lock;
	struct sim_rcu_head *head;
	unsigned n;
	uint64_t since;                  /* when the oldest was queued */
} __attribute__((aligned(64)));

static struct lazy_list lazy[RCU_LAZY_CPUS];
static _Atomic unsigned lazy_max = 10000;
static _Atomic uint64_t lazy_flush_ns = 10ULL * 1000000000ULL;

void sim_rcu_lazy_set(unsigned max, unsigned long long flush_ns)
{
	atomic_store_explicit(&lazy_max, max ? max : 1, memory_order_relaxed);
	atomic_store_explicit(&lazy_flush_ns, flush_ns, memory_order_relaxed);
}

/* After the grace period: every callback of the list the carrier h
 * heads, the carrier's own last. */
static void lazy_run(struct sim_rcu_head *h)
{
	struct sim_rcu_head *k = h->lazy_next;

	while (k) {
		struct sim_rcu_head *next = k->lazy_next;

		k->fn(k);
		k = next;
	}
	h->lazy_fn(h);
}

/* A detached list to RCU as one callback. */
static void lazy_queue(struct sim_rcu_head *head)
{
	if (head)
		sim_call_rcu(head, lazy_run);
}

/* The list's callbacks, detached (its lock held). */
static struct sim_rcu_head *lazy_take(struct lazy_list *l)
{
	struct sim_rcu_head *h = l->head;

	l->head = NULL;
	l->n = 0;
	return h;
}

void sim_call_rcu_lazy(struct sim_rcu_head *h, void (*fn)(struct sim_rcu_head *h))
{
	int cpu = sched_getcpu();
	struct lazy_list *l = &lazy[(cpu > 0 ? cpu : 0) % RCU_LAZY_CPUS];
	struct sim_rcu_head *go = NULL;
	uint64_t now = coarse_ns();

	h->lazy_fn = fn;
	h->fn = fn;
	sim_spin_lock_raw(&l->lock);
	if (!l->head)
		l->since = now;
	h->lazy_next = l->head;
	l->head = h;
	if (++l->n >= atomic_load_explicit(&lazy_max, memory_order_relaxed) ||
	    now - l->since >= atomic_load_explicit(&lazy_flush_ns,
						    memory_order_relaxed))
		go = lazy_take(l);
	sim_spin_unlock_raw(&l->lock);
	lazy_queue(go);
}

void sim_rcu_lazy_flush(void)
{
	for (int i = 0; i < RCU_LAZY_CPUS; i++) {
		struct sim_rcu_head *go;

		if (!__atomic_load_n(&lazy[i].head, __ATOMIC_RELAXED))
			continue;
		sim_spin_lock_raw(&lazy[i].lock);
		go = lazy_take(&lazy[i]);
		sim_spin_unlock_raw(&lazy[i].lock);
		lazy_queue(go);
	}
}

void sim_rcu_barrier(void)
{
	sim_rcu_lazy_flush();
	sim_rcu_barrier_queued();
}

static void lazy_after_fork_child(void)
{
	for (int i = 0; i < RCU_LAZY_CPUS; i++) {
		atomic_store_explicit(&lazy[i].lock.locked, 0,
				      memory_order_relaxed);
		lazy[i].head = NULL;
		lazy[i].n = 0;
	}
}

/* Every fork's child starts with empty lists, whoever forks (the task
 * processes, a test framework): the parent's callbacks — objects of a
 * cache the processes may share — are the parent's to run, once. */
__attribute__((constructor)) static void lazy_init(void)
{
	pthread_atfork(NULL, NULL, lazy_after_fork_child);
}
