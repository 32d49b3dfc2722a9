/* SPDX-License-Identifier: MIT */
/*
 * range, range-full — a range reader/writer lock over the address space,
 * as in Jan Kara's range lock (2013) and Davidlohr Bueso's "mm: towards
 * parallel address space operations" (2018) that converted mmap_sem to it.
 *
 * Structure: every request, granted or waiting, is a node in an interval
 * tree (a treap keyed by start, each node augmented with the largest end
 * in its subtree) protected by a spinlock. Nothing else is shared.
 *
 * Acquire [start, end) for read or write:
 *   lock the tree; blocking_ranges = the number of nodes already in the
 *   tree that overlap and conflict (readers conflict only with writers);
 *   insert the node; unlock; sleep (futex) until blocking_ranges is 0.
 * Release:
 *   lock the tree; remove the node; for every node still in the tree that
 *   overlaps and conflicts, decrement its blocking_ranges, and if this
 *   pays back its last one, put it on a wake list; unlock; then grant and
 *   wake each node on the list. The kernel's range_*_unlock() does the
 *   same with a wake_q (wake_up_q() after spin_unlock_irqrestore()): no
 *   wake-up — a futex syscall here, an IPI to an idle CPU — is made
 *   while the tree lock is held.
 *
 * Invariants:
 *  - A node only ever counts conflicting nodes inserted before it, so the
 *    order among conflicting requests is FIFO and nobody starves.
 *  - When a node is released, every overlapping conflicting node still in
 *    the tree was inserted after it (the earlier ones had to be released
 *    for it to be granted), so each decrement pays back exactly one count.
 *  - A node with blocking_ranges == 0 holds its range; two such nodes
 *    never overlap unless both are readers.
 *
 * Downgrade (range_downgrade_write() in Bueso's series): under the tree
 * lock the node becomes a reader, and every reader queued after it that
 * overlaps gets one blocking range paid back (writers still wait).
 *
 * Scheme use (the sim layer decides ranges; see sim/vma.c):
 *   range:      a fault read-locks the faulting page; munmap and mprotect
 *               write-lock their range (munmap downgrades it to zap;
 *               mprotect's range as --mprotect-range says: the call's,
 *               the whole space, or refined, locks/mprotect_range.c);
 *               mmap finds a gap, write-locks it and revalidates; brk
 *               write-locks the heap's changing part; madvise and
 *               MAP_POPULATE read-lock their range. This is finer than
 *               Bueso's RFC, which converted every mmap_sem user to the
 *               full range: an idealised upper bound on what range
 *               locking can give.
 *   range-full: every operation locks the whole address space — the
 *               "full range" conversion Bueso measured as the worst case.
 *
 * The tree's spinlock spins briefly and then yields: on a 2-CPU machine a
 * pure spin on a preempted holder wastes a whole time slice.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>

#include "locks/sync/futex.h"
#include "base/container.h"
#include "locks/lock_ops.h"
#include "locks/sync/spinlock.h"

/* This file's scheme (defined at its end; locks/schemes.def names it). */
extern const struct lock_ops range_lock_ops;
extern const struct lock_ops range_full_lock_ops;

struct rl_node {
	struct rl_node *left, *right;
	unsigned long start, last;       /* [start, last] inclusive */
	unsigned long max_last;          /* largest last in this subtree */
	unsigned long seq;               /* arrival order: (start, seq) is the key */
	unsigned prio;                   /* treap heap priority */
	int writer;
	_Atomic int blocking;            /* conflicting ranges queued before us */
	struct rl_node *wake_next;       /* on a releaser's wake list */
};

_Static_assert(sizeof(struct rl_node) <= sizeof(((struct lock_handle *)0)->priv),
	       "a range node must fit in a lock handle");

struct range_lock {
	struct lock_inst base;
	struct sim_spinlock spin;        /* the tree lock */
	struct rl_node *root;
	unsigned long seq;
	unsigned seed;
	bool full;                       /* range-full */
	struct lockstat_class *cls;
	struct lockstat_class *tree_cls; /* the tree lock's (a spinlock) */
	struct lock_mprotect mprotect;   /* range: what mprotect locks */
	/* Acquisitions that queued behind a conflicting range (counted at
	 * arrival, under the tree lock; a test waits for it). */
	_Atomic uint64_t queued;
};

#define to_rl(l) container_of(l, struct range_lock, base)

/* --- the tree spinlock ---------------------------------------------------- */

/* Counted as a class of its own (range_tree_lock), as the kernel's
 * lock_stat would count it: its contention is the range lock's internal
 * serialisation, and a hold past LOCKSTAT_LONG_HOLD_NS a preempted
 * holder that the kernel's (preemption-off) holder could never be. */
static uint64_t rl_spin_lock(struct range_lock *r)
{
	return sim_spin_lock(&r->spin, r->tree_cls);
}

static void rl_spin_unlock(struct range_lock *r, uint64_t t)
{
	sim_spin_unlock(&r->spin, r->tree_cls, t);
}

/* --- the interval treap ---------------------------------------------------- */

static unsigned long sub_max(const struct rl_node *n)
{
	return n ? n->max_last : 0;
}

static void rl_fix(struct rl_node *n)
{
	unsigned long m = n->last;

	if (sub_max(n->left) > m)
		m = sub_max(n->left);
	if (sub_max(n->right) > m)
		m = sub_max(n->right);
	n->max_last = m;
}

static struct rl_node *rot_right(struct rl_node *n)
{
	struct rl_node *l = n->left;

	n->left = l->right;
	l->right = n;
	rl_fix(n);
	rl_fix(l);
	return l;
}

static struct rl_node *rot_left(struct rl_node *n)
{
	struct rl_node *r = n->right;

	n->right = r->left;
	r->left = n;
	rl_fix(n);
	rl_fix(r);
	return r;
}

/* Nodes are ordered by (start, seq): unique keys, so removal can find a
 * node again whatever rotations moved equal starts around. */
static bool rl_before(const struct rl_node *a, const struct rl_node *b)
{
	return a->start < b->start || (a->start == b->start && a->seq < b->seq);
}

static struct rl_node *rl_insert(struct rl_node *t, struct rl_node *n)
{
	if (!t)
		return n;
	if (rl_before(n, t)) {
		t->left = rl_insert(t->left, n);
		if (t->left->prio < t->prio)
			t = rot_right(t);
	} else {
		t->right = rl_insert(t->right, n);
		if (t->right->prio < t->prio)
			t = rot_left(t);
	}
	rl_fix(t);
	return t;
}

static struct rl_node *rl_remove(struct rl_node *t, struct rl_node *n)
{
	if (t == n) {
		if (!t->left)
			return t->right;
		if (!t->right)
			return t->left;
		if (t->left->prio < t->right->prio) {
			t = rot_right(t);
			t->right = rl_remove(t->right, n);
		} else {
			t = rot_left(t);
			t->left = rl_remove(t->left, n);
		}
	} else if (rl_before(n, t)) {
		t->left = rl_remove(t->left, n);
	} else {
		t->right = rl_remove(t->right, n);
	}
	rl_fix(t);
	return t;
}

static bool rl_conflict(const struct rl_node *a, const struct rl_node *b)
{
	return a->writer || b->writer;
}

/* Count (wake NULL) or pay back (onto *wake) conflicting overlaps;
 * only_readers: pay back only reader nodes queued after q (downgrade).
 * Every change of a blocking count is made under the tree lock, but the
 * last one of a node: that is its grant, made by rl_wake_up() after the
 * lock is dropped. Until then the node is still blocked, and no one else
 * owes it a count (every node it counted is gone from the tree). */
static int rl_visit(struct rl_node *t, const struct rl_node *q,
		    struct rl_node **wake, bool only_readers)
{
	int n = 0;

	if (!t || t->max_last < q->start)
		return 0;
	n += rl_visit(t->left, q, wake, only_readers);
	if (t->start <= q->last) {
		if (t != q && t->last >= q->start && rl_conflict(t, q) &&
		    (!only_readers || (!t->writer && t->seq > q->seq))) {
			n++;
			if (wake && atomic_load_explicit(&t->blocking,
					memory_order_relaxed) == 1) {
				t->wake_next = *wake;
				*wake = t;
			} else if (wake) {
				/* Release: with the grant's, a release
				 * sequence: every waker's critical section
				 * happens-before the woken one's. */
				atomic_fetch_sub_explicit(&t->blocking, 1,
							  memory_order_release);
			}
		}
		n += rl_visit(t->right, q, wake, only_readers);
	}
	return n;
}

/* Grant and wake what a release paid back in full, the tree lock
 * dropped. A granted node may be released and its handle reused at
 * once, so its next is read first; a futex wake on its word afterwards
 * is harmless (its wait loops on the word). */
static void rl_wake_up(struct rl_node *t)
{
	while (t) {
		struct rl_node *next = t->wake_next;

		/* Release: pairs with the acquire load in rl_lock(). */
		atomic_store_explicit(&t->blocking, 0, memory_order_release);
		futex_wake(&t->blocking, 1);
		t = next;
	}
}

/* --- lock and unlock ------------------------------------------------------- */

static void rl_lock(struct range_lock *r, unsigned long start,
		    unsigned long end, bool writer, struct lock_handle *h)
{
	struct rl_node *n = (struct rl_node *)h->priv;
	uint64_t t0 = lockstat_now(), t;
	int b, queued;

	if (r->full) {
		start = r->base.env.space_start;
		end = r->base.env.space_end;
	}
	*n = (struct rl_node){ .start = start, .last = end - 1,
			       .max_last = end - 1, .writer = writer };
	t = rl_spin_lock(r);
	r->seed = r->seed * 1103515245u + 12345u;
	n->prio = r->seed;
	n->seq = r->seq++;
	queued = rl_visit(r->root, n, NULL, false);
	atomic_init(&n->blocking, queued);
	r->root = rl_insert(r->root, n);
	if (queued)
		atomic_fetch_add_explicit(&r->queued, 1, memory_order_relaxed);
	rl_spin_unlock(r, t);
	/* Acquire: pairs with the grant in rl_wake_up(). */
	while ((b = atomic_load_explicit(&n->blocking, memory_order_acquire)))
		futex_wait(&n->blocking, b);
	h->t_acquired = lockstat_now();
	lockstat_acquired(r->cls, writer ? LS_WRITE : LS_READ, queued > 0,
			  h->t_acquired - t0);
}

static void rl_unlock(struct range_lock *r, struct lock_handle *h)
{
	struct rl_node *n = (struct rl_node *)h->priv;

	lockstat_released(r->cls, n->writer ? LS_WRITE : LS_READ,
			  lockstat_now() - h->t_acquired);
	uint64_t t = rl_spin_lock(r);
	struct rl_node *wake = NULL;

	r->root = rl_remove(r->root, n);
	rl_visit(r->root, n, &wake, false);
	rl_spin_unlock(r, t);
	rl_wake_up(wake);
}

/* A granted writer becomes a reader: the readers queued behind it that
 * counted it as a conflict get that count back. Every conflicting node
 * still in the tree was queued after it (it was granted). */
static void rl_downgrade(struct range_lock *r, struct lock_handle *h)
{
	struct rl_node *n = (struct rl_node *)h->priv;
	uint64_t t = lockstat_now();

	lockstat_released(r->cls, LS_WRITE, t - h->t_acquired);
	uint64_t ts = rl_spin_lock(r);
	struct rl_node *wake = NULL;

	rl_visit(r->root, n, &wake, true);
	n->writer = 0;
	rl_spin_unlock(r, ts);
	rl_wake_up(wake);
	h->t_acquired = t;
	lockstat_acquired(r->cls, LS_READ, false, 0);
}

/* --- the scheme ------------------------------------------------------------ */

static int rl_create_common(const struct lock_env *env, struct lock_inst **out,
			    const struct lock_ops *ops, bool full)
{
	static const char *const names[] = { "range_lock", "range_tree_lock" };
	struct lockstat_class *cls[2];
	struct range_lock *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	r->full = full;
	r->seed = 2463534242u;
	ret = lock_mprotect_init(&r->mprotect);
	if (ret) {
		free(r);
		return ret;
	}
	ret = lock_inst_init(&r->base, ops, env, names, cls, 2);
	if (ret) {
		lock_mprotect_fini(&r->mprotect);
		free(r);
		return ret;
	}
	r->cls = cls[0];
	r->tree_cls = cls[1];
	lockstat_class_spins(r->tree_cls);
	*out = &r->base;
	return 0;
}

static int range_create(const struct lock_env *env, struct lock_inst **out)
{
	return rl_create_common(env, out, &range_lock_ops, false);
}

static int range_full_create(const struct lock_env *env, struct lock_inst **out)
{
	return rl_create_common(env, out, &range_full_lock_ops, true);
}

static void rl_destroy(struct lock_inst *l)
{
	lock_mprotect_fini(&to_rl(l)->mprotect);
	lock_inst_fini(l);
	free(l);
}

static void *rl_fault_begin(struct lock_inst *l, unsigned long addr,
			    unsigned flags, struct lock_handle *h)
{
	rl_lock(to_rl(l), addr, addr + 4096, false, h);
	return NULL;
}

static void rl_end(struct lock_inst *l, struct lock_handle *h)
{
	rl_unlock(to_rl(l), h);
}

static void rl_write_begin(struct lock_inst *l, unsigned long start,
			   unsigned long end, struct lock_handle *h)
{
	rl_lock(to_rl(l), start, end, true, h);
}

/* range: what --mprotect-range says (locks/mprotect_range.c). */
static void rl_write_begin_mprotect(struct lock_inst *l, unsigned long start,
				    unsigned long end, struct lock_handle *h)
{
	lock_mprotect_begin(l, &to_rl(l)->mprotect, start, end, h,
			    rl_write_begin, rl_end);
}

/* Lock where the mapping is expected; the mm revalidates under it. If
 * there is no room, lock everything and let the mm find out. */
static void rl_write_begin_unplaced(struct lock_inst *l, unsigned long hint,
				    unsigned long len, struct lock_handle *h,
				    unsigned long *guess)
{
	unsigned long start, end;

	lock_unplaced_range(&l->env, hint, len, guess, &start, &end);
	rl_lock(to_rl(l), start, end, true, h);
}

static void rl_read_range_begin(struct lock_inst *l, unsigned long start,
				unsigned long end, unsigned flags,
				struct lock_handle *h)
{
	rl_lock(to_rl(l), start, end, false, h);
}

static void rl_write_downgrade(struct lock_inst *l, struct lock_handle *h)
{
	rl_downgrade(to_rl(l), h);
}

/* range and range-full differ only in which ranges they lock. */
static int rl_counters(struct lock_inst *l, const char **names,
		       uint64_t *values)
{
	struct range_lock *r = to_rl(l);

	names[0] = "range_queued";
	values[0] = atomic_load_explicit(&r->queued, memory_order_relaxed);
	return 1 + (r->full ? 0 : lock_mprotect_counters(l, &r->mprotect,
							 names + 1, values + 1));
}

#define RANGE_LOCK_OPS						\
	.excludes = true,					\
	.destroy = rl_destroy,					\
	.fault_begin = rl_fault_begin,				\
	.fault_end = rl_end,					\
	.write_begin = rl_write_begin,				\
	.write_end = rl_end,					\
	.write_downgrade = rl_write_downgrade,			\
	.read_range_begin = rl_read_range_begin,		\
	.read_range_end = rl_end,				\
	.counters = rl_counters

const struct lock_ops range_lock_ops = {
	.name = "range",
	.desc = "range rwlock (interval tree, FIFO): faults lock their page, writers their range; finer than Bueso's RFC (an upper bound)",
	.create = range_create,
	.write_begin_unplaced = rl_write_begin_unplaced,
	.write_begin_mprotect = rl_write_begin_mprotect,
	RANGE_LOCK_OPS,
};

const struct lock_ops range_full_lock_ops = {
	.name = "range-full",
	.desc = "the range lock with every operation taking the full range, as Bueso's RFC converted mmap_sem",
	.create = range_full_create,
	.vma_typesafe = true,            /* faults lock the whole space */
	RANGE_LOCK_OPS,
};
