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
 * callback list in one step.
 *
 * The kernel's bypass list is the CPU's, whichever process queued the
 * callback; vmsim's callbacks must run in the process that queued them
 * (its own RCU readers, its own memory), so each process keeps its own
 * lists, but the count and the age that decide a flush are the CPU's,
 * in memory shared with every process forked after start-up: the
 * callback that takes a CPU's count to lazy_max flushes its own list and
 * advances the CPU's generation, and every other process's list for that
 * CPU goes to its grace period too when that process next queues a
 * lazy callback on that CPU (or, on another CPU, at every 64th of a
 * thread's, which looks at all the process's lists). A forked child starts with empty lists
 * (a pthread_atfork handler: its parent's callbacks are its parent's to
 * run, once).
 */
#include "locks/sync/rcu.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/clock.h"
#include "locks/sync/spinlock.h"

#define RCU_LAZY_CPUS 256                /* lists; CPU numbers past wrap */

/* head and gen are written under lock and read without it (a peek
 * before taking it), so both are accessed atomically. */
struct lazy_list {                       /* a process's, for one CPU */
	struct sim_spinlock lock;
	struct sim_rcu_head *head;
	unsigned n;
	unsigned gen;                    /* the CPU's, when last looked at */
} __attribute__((aligned(64)));

struct lazy_cpu {                        /* the CPU's, for all processes */
	_Atomic unsigned n;              /* lazy callbacks waiting there */
	_Atomic unsigned gen;            /* advanced at every flush */
	_Atomic uint64_t since;          /* when the oldest was queued; 0 */
} __attribute__((aligned(64)));

static struct lazy_list lazy[RCU_LAZY_CPUS];
static struct lazy_cpu lazy_private[RCU_LAZY_CPUS];
static struct lazy_cpu *cpus = lazy_private;  /* shared once mapped */
static _Atomic int cpus_used;            /* lists a CPU number reached */
static __thread unsigned lazy_calls;
static _Atomic unsigned lazy_max = 10000;
static _Atomic uint64_t lazy_flush_ns = 10ULL * 1000000000ULL;

void sim_rcu_lazy_set(unsigned max, unsigned long long flush_ns)
{
	atomic_store_explicit(&lazy_max, max ? max : 1, memory_order_relaxed);
	atomic_store_explicit(&lazy_flush_ns, flush_ns, memory_order_relaxed);
}

unsigned sim_rcu_lazy_limit(void)
{
	return atomic_load_explicit(&lazy_max, memory_order_relaxed);
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

	__atomic_store_n(&l->head, NULL, __ATOMIC_RELAXED);
	l->n = 0;
	return h;
}

/* The list's callbacks if the CPU's lazy callbacks went to a grace
 * period since the list last looked (its lock held), else NULL. */
static struct sim_rcu_head *lazy_take_stale(struct lazy_list *l, unsigned gen)
{
	struct sim_rcu_head *h = NULL;

	if (l->gen != gen && l->head)
		h = lazy_take(l);
	__atomic_store_n(&l->gen, gen, __ATOMIC_RELAXED);
	return h;
}

/* Every other list of this process whose CPU has flushed since. */
static void lazy_flush_stale(int except)
{
	int used = atomic_load_explicit(&cpus_used, memory_order_relaxed);

	for (int i = 0; i < used; i++) {
		struct lazy_list *l = &lazy[i];
		struct sim_rcu_head *go;
		unsigned gen;

		gen = atomic_load_explicit(&cpus[i].gen, memory_order_relaxed);
		if (i == except || !__atomic_load_n(&l->head, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&l->gen, __ATOMIC_RELAXED) == gen)
			continue;
		sim_spin_lock_raw(&l->lock);
		go = lazy_take_stale(l, gen);
		sim_spin_unlock_raw(&l->lock);
		lazy_queue(go);
	}
}

/* The CPU's count reached the limit or its oldest the age: its lazy
 * callbacks go to a grace period — this list now, the others' lists as
 * their processes see the new generation. */
static bool lazy_due(struct lazy_cpu *g, unsigned n, uint64_t now)
{
	uint64_t since = atomic_load_explicit(&g->since, memory_order_relaxed);
	unsigned gen;

	if (!since) {
		atomic_compare_exchange_strong(&g->since, &since, now);
		since = since ? since : now;
	}
	if (n < atomic_load_explicit(&lazy_max, memory_order_relaxed) &&
	    now - since < atomic_load_explicit(&lazy_flush_ns,
					       memory_order_relaxed))
		return false;
	gen = atomic_load_explicit(&g->gen, memory_order_relaxed);
	if (atomic_compare_exchange_strong(&g->gen, &gen, gen + 1)) {
		atomic_store_explicit(&g->n, 0, memory_order_relaxed);
		atomic_store_explicit(&g->since, 0, memory_order_relaxed);
	}
	return true;
}

void sim_call_rcu_lazy(struct sim_rcu_head *h, void (*fn)(struct sim_rcu_head *h))
{
	int cpu = sched_getcpu(), i = (cpu > 0 ? cpu : 0) % RCU_LAZY_CPUS;
	int used = atomic_load_explicit(&cpus_used, memory_order_relaxed);
	struct lazy_list *l = &lazy[i];
	struct lazy_cpu *g = &cpus[i];
	struct sim_rcu_head *stale, *go = NULL;
	unsigned n;

	while (used <= i &&
	       !atomic_compare_exchange_weak(&cpus_used, &used, i + 1))
		;
	h->lazy_fn = fn;
	h->fn = fn;
	sim_spin_lock_raw(&l->lock);
	stale = lazy_take_stale(l, atomic_load_explicit(&g->gen,
						       memory_order_relaxed));
	h->lazy_next = l->head;
	__atomic_store_n(&l->head, h, __ATOMIC_RELAXED);
	l->n++;
	n = atomic_fetch_add_explicit(&g->n, 1, memory_order_relaxed) + 1;
	if (lazy_due(g, n, coarse_ns())) {
		go = lazy_take(l);
		__atomic_store_n(&l->gen, atomic_load_explicit(&g->gen,
				 memory_order_relaxed), __ATOMIC_RELAXED);
	}
	sim_spin_unlock_raw(&l->lock);
	lazy_queue(stale);
	lazy_queue(go);
	if (!(++lazy_calls % 64))        /* the process's other CPUs' lists */
		lazy_flush_stale(i);
}

void sim_rcu_lazy_flush(void)
{
	for (int i = 0; i < RCU_LAZY_CPUS; i++) {
		struct lazy_cpu *g = &cpus[i];
		struct sim_rcu_head *go;
		unsigned n, left;

		if (!__atomic_load_n(&lazy[i].head, __ATOMIC_RELAXED))
			continue;
		sim_spin_lock_raw(&lazy[i].lock);
		n = lazy[i].gen == atomic_load_explicit(&g->gen,
				memory_order_relaxed) ? lazy[i].n : 0;
		go = lazy_take(&lazy[i]);
		sim_spin_unlock_raw(&lazy[i].lock);
		/* Not waiting any more: off the CPU's count (what it still
		 * counts of them, if it was not flushed meanwhile). */
		left = atomic_load_explicit(&g->n, memory_order_relaxed);
		while (n && !atomic_compare_exchange_weak(&g->n, &left,
						left > n ? left - n : 0))
			;
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
		__atomic_store_n(&lazy[i].head, NULL, __ATOMIC_RELAXED);
		lazy[i].n = 0;
	}
}

/* Every fork's child starts with empty lists, whoever forks (the task
 * processes, a test framework): the parent's callbacks — objects of a
 * cache the processes may share — are the parent's to run, once. The
 * CPUs' counts are mapped shared now, before any fork, so that every
 * process of a run counts on the same ones (the private ones if the
 * mapping cannot be had: each process then counts alone). */
__attribute__((constructor)) static void lazy_init(void)
{
	void *m = mmap(NULL, sizeof(lazy_private), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (m != MAP_FAILED)
		cpus = m;
	pthread_atfork(NULL, NULL, lazy_after_fork_child);
}
