/* SPDX-License-Identifier: MIT */
/*
 * The VMA tree as the kernel's maple tree (--tree maple): the same API as
 * vmsim's B-tree (sim/vma_tree.h), on the kernel's own lib/maple_tree.c
 * (sim/kmaple). Each vma_tree_* call of a tree made with
 * vma_tree_init_maple() comes here. Built without a kernel source, the
 * kmaple calls are sim/kmaple/kmaple_none.c's, and no tree is made.
 *
 * The tree is the mm's mm_mt: MT_FLAGS_ALLOC_RANGE | MT_FLAGS_USE_RCU,
 * and MT_FLAGS_LOCK_EXTERN where the scheme's write side serialises
 * writers (rwsem, pervma, spf: the mmap_lock is the tree's lock, as
 * mm_mt's is); where it does not (range, range-list, none: writers of
 * disjoint ranges run at once) the tree's own lock, held from begin to
 * end — a whole operation, as vmsim's own tree holds its mutex.
 * Its nodes come from the tree's node pool (t->nodes: --slab), through
 * the kernel's own calls: mas_preallocate() sizes and allocates each
 * store's nodes (kmem_cache_alloc + kmem_cache_alloc_bulk, 6.12), the
 * unused ones go back (mas_destroy, kmem_cache_free_bulk), a replaced
 * node is freed after a grace period (call_rcu, mt_free_rcu).
 *
 * What differs from vmsim's tree, for readers: each store is atomic, not
 * the operation. A reader without the lock (pervma's
 * lock_vma_under_rcu, spf, range's gap guess, the refined mprotect's
 * span) can see an operation half done — a VMA removed before its
 * replacements are stored (vmsim's VMAs are immutable: a split removes
 * the VMA and stores two new ones; the kernel shrinks the VMA in place
 * and stores one). docs/fidelity.md says how each stays correct: a
 * removed VMA is write-locked before its store (lock_vma_under_rcu
 * gives up on it) and marked detached after; a hole seen half-way sends
 * the fault to the mm-wide lock, which the writer holds; the layout's
 * version is odd from a transaction's first store to its end, so a
 * speculation that read it then always validates again.
 *
 * Abort: the stores are in the tree already; a transaction's changes
 * are logged (the VMA and whether it went in or out) and undone in
 * reverse order. The log grows at most once per size (kept across
 * transactions), so after the first operations it costs no allocation.
 */
#include "sim/vma_tree.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/debug.h"
#include "sim/vma_tree_int.h"

#include "sim/kmaple/kmaple.h"

/* --- the kernel's allocator calls, onto the tree's node pool ------------ */

/* The nodes this thread allocated and freed at once (not after a grace
 * period): a store's preallocation and what it gave back unused. Per
 * thread, so that writers of disjoint ranges count their own. */
static __thread unsigned long vt_maple_allocs, vt_maple_frees;

static void *vt_maple_node_alloc(void *ctx)
{
	struct vma_tree *t = ctx;
	void *n = objpool_alloc_reclaim(&t->nodes);

	vt_maple_allocs += n != NULL;
	return n;
}

static size_t vt_maple_node_alloc_bulk(void *ctx, size_t n, void **p)
{
	struct vma_tree *t = ctx;
	size_t k = objpool_alloc_bulk(&t->nodes, n, p);

	vt_maple_allocs += k;
	return k;
}

static void vt_maple_node_free(void *ctx, void *node)
{
	struct vma_tree *t = ctx;

	vt_maple_frees++;
	objpool_free(&t->nodes, node);
}

static void vt_maple_node_free_bulk(void *ctx, size_t n, void **p)
{
	struct vma_tree *t = ctx;

	vt_maple_frees += n;
	objpool_free_bulk(&t->nodes, n, p);
}

/* The head's owner says whose node it is (set below; no RCU path uses
 * the field once a head is queued): no lookup in the callback. */
static void vt_maple_node_rcu_cb(struct sim_rcu_head *h)
{
	struct vma_tree *t = h->owner;

	objpool_free(&t->nodes, (char *)h - kmaple_node_rcu_offset());
}

static void vt_maple_node_free_rcu(void *ctx, void *node)
{
	struct vma_tree *t = ctx;
	struct sim_rcu_head *h = (struct sim_rcu_head *)
				 ((char *)node + kmaple_node_rcu_offset());

	h->owner = t;
	objpool_free_rcu(&t->nodes, h, vt_maple_node_rcu_cb);
}

/* The live maple trees, for a node freed by the walk an RCU callback
 * runs (free_found: no call names its tree): the tree whose pool holds
 * its address, as the kernel's kmem_cache_free finds the slab from the
 * object. A process has one mm, so the first tree looked at is almost
 * always it: a comparison, not a search. */
static pthread_mutex_t vt_maple_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vma_tree *vt_maple_trees;

/* A fork while an RCU callback thread holds the list's lock would leave
 * the child's copy locked forever. */
static void vt_maple_fork_lock(void)
{
	pthread_mutex_lock(&vt_maple_lock);
}

static void vt_maple_fork_unlock(void)
{
	pthread_mutex_unlock(&vt_maple_lock);
}

static pthread_once_t vt_maple_once = PTHREAD_ONCE_INIT;

static void vt_maple_atfork(void)
{
	pthread_atfork(vt_maple_fork_lock, vt_maple_fork_unlock,
		       vt_maple_fork_unlock);
}

/* The newest first: a forked process's own trees before the copies of
 * its parent's (which may share a slab cache's memory with them). */
static struct vma_tree *vt_maple_owner(const void *node)
{
	struct vma_tree *t;

	pthread_mutex_lock(&vt_maple_lock);
	for (t = vt_maple_trees; t && !objpool_owns(&t->nodes, node);
	     t = t->live_next)
		;
	pthread_mutex_unlock(&vt_maple_lock);
	SIM_WARN_ON(!t);
	return t;
}

/* Not counted: freed a grace period after the store, not given back
 * unused by it. */
static void vt_maple_node_free_found(void *node)
{
	struct vma_tree *t = vt_maple_owner(node);

	if (t)
		objpool_free(&t->nodes, node);
}

static void vt_maple_node_free_bulk_found(size_t n, void **p)
{
	struct vma_tree *t = vt_maple_owner(p[0]);

	if (t)
		objpool_free_bulk(&t->nodes, n, p);
}

/* The kernel's tree allocates from the tree's node pool (ctx: the
 * vma_tree). */
static const struct kmaple_alloc vt_maple_alloc = {
	.alloc = vt_maple_node_alloc,
	.alloc_bulk = vt_maple_node_alloc_bulk,
	.free = vt_maple_node_free,
	.free_bulk = vt_maple_node_free_bulk,
	.free_rcu = vt_maple_node_free_rcu,
	.free_found = vt_maple_node_free_found,
	.free_bulk_found = vt_maple_node_free_bulk_found,
};

bool vma_tree_maple_built(void)
{
	return kmaple_built();
}

const char *vma_tree_maple_release(void)
{
	return kmaple_release();
}

const char *vma_tree_maple_origin(void)
{
	return kmaple_origin();
}

/* --- set-up --------------------------------------------------------------- */

size_t vt_maple_node_size(void)
{
	return kmaple_node_size();
}

int vt_maple_init(struct vma_tree *t, size_t max_nodes, struct slab_cache *s,
		  const struct slab_stat *st)
{
	size_t sz = kmaple_node_size();
	int ret;

	if (!kmaple_built())
		return -ENOSYS;
	if (s)
		ret = objpool_init_slab(&t->nodes, sz, sz, s, st,
					kmaple_node_rcu_offset());
	else
		ret = objpool_init(&t->nodes, sz, sz, max_nodes);
	if (ret)
		return ret;
	t->undo_cap = 64;
	t->undo = malloc(t->undo_cap * sizeof(*t->undo));
	/* Its flags are set when the scheme says who locks (begin). */
	t->mt = t->undo ? kmaple_new(KMAPLE_RCU | KMAPLE_GAPS, &vt_maple_alloc,
				     t) : NULL;
	if (!t->mt) {
		free(t->undo);
		objpool_destroy(&t->nodes);
		return -ENOMEM;
	}
	t->ops = &vt_maple_ops;
	pthread_once(&vt_maple_once, vt_maple_atfork);
	pthread_mutex_lock(&vt_maple_lock);
	t->live_next = vt_maple_trees;
	vt_maple_trees = t;
	pthread_mutex_unlock(&vt_maple_lock);
	return 0;
}

static void vt_maple_set_external_lock(struct vma_tree *t, bool on)
{
	kmaple_delete(t->mt);
	t->mt = kmaple_new(KMAPLE_RCU | KMAPLE_GAPS |
			   (on ? KMAPLE_EXTERN_LOCK : 0), &vt_maple_alloc, t);
	SIM_WARN_ON(!t->mt);
}

static void vt_maple_destroy(struct vma_tree *t, void (*free_vma)(void *))
{
	unsigned long first, last, at = 0;
	struct sim_vma *v;

	objpool_rcu_barrier(&t->nodes);
	while (free_vma && at <= ~0UL - 1 &&
	       (v = kmaple_find(t->mt, at, ~0UL, &first, &last))) {
		/* A VMA may hold several ranges only mid-operation. */
		if (first == v->vm_start)
			free_vma(v);
		if (last == ~0UL)
			break;
		at = last + 1;
	}
	kmaple_delete(t->mt);
	objpool_rcu_barrier(&t->nodes);
	pthread_mutex_lock(&vt_maple_lock);
	for (struct vma_tree **pp = &vt_maple_trees; *pp; pp = &(*pp)->live_next)
		if (*pp == t) {
			*pp = t->live_next;
			break;
		}
	pthread_mutex_unlock(&vt_maple_lock);
	free(t->undo);
	objpool_destroy(&t->nodes);
}

/* --- readers ---------------------------------------------------------------- */

static struct sim_vma *vt_maple_find(struct vma_tree *t, unsigned long addr)
{
	unsigned long first, last;

	return kmaple_find(t->mt, addr, ~0UL, &first, &last);
}

static struct sim_vma *vt_maple_find_range(struct vma_tree *t, unsigned long addr,
				    unsigned long *start, unsigned long *end)
{
	unsigned long first, last;
	struct sim_vma *v = kmaple_walk(t->mt, addr, &first, &last);

	if (v) {
		*start = first;
		*end = last + 1;
	}
	return v;
}

static struct sim_vma *vt_maple_find_intersection(struct vma_tree *t,
					   unsigned long start,
					   unsigned long end)
{
	unsigned long first, last;

	if (end <= start)
		return NULL;
	return kmaple_find(t->mt, start, end - 1, &first, &last);
}

static struct sim_vma *vt_maple_prev(struct vma_tree *t, unsigned long addr)
{
	unsigned long first, last;

	if (!addr)
		return NULL;
	return kmaple_find_rev(t->mt, addr - 1, 0, &first, &last);
}

static int vt_maple_for_each(struct vma_tree *t, unsigned long start,
		      unsigned long end,
		      int (*fn)(struct sim_vma *v, void *arg), void *arg)
{
	unsigned long first, last, at = start;
	struct sim_vma *v;
	int ret;

	/* By the ranges the tree holds: a lock-free walk may meet a VMA
	 * partly replaced (vt_maple_replace), found where it still is. */
	while (at < end && (v = kmaple_find(t->mt, at, end - 1, &first, &last))) {
		ret = fn(v, arg);
		if (ret)
			return ret;
		if (last >= end - 1)
			break;
		at = last + 1;
	}
	return 0;
}

static int vt_maple_height(struct vma_tree *t)
{
	return kmaple_height(t->mt);
}

/* --- writers ---------------------------------------------------------------- */

static void vt_maple_begin(struct vma_tree *t)
{
	kmaple_lock(t->mt);
	SIM_WARN_ON(t->in_txn);
	t->in_txn = true;
	t->wcount = atomic_load_explicit(&t->count, memory_order_relaxed);
	t->pending = NULL;
	t->nundo = 0;
}

/* Before a transaction's first store: the layout's version odd. */
static void vt_maple_changing(struct vma_tree *t)
{
	if (!(atomic_load_explicit(&t->seq, memory_order_relaxed) & 1))
		atomic_fetch_add_explicit(&t->seq, 1, memory_order_seq_cst);
}

static int vt_maple_log(struct vma_tree *t, struct sim_vma *v, bool in)
{
	if (t->nundo == t->undo_cap) {
		struct vt_undo *u = realloc(t->undo, 2 * t->undo_cap *
					    sizeof(*u));

		if (!u)
			return -ENOMEM;
		t->undo = u;
		t->undo_cap *= 2;
	}
	t->undo[t->nundo++] = (struct vt_undo){ v, in };
	return 0;
}

/* One store, with what it preallocated and gave back unused counted as
 * the kernel's slab counts them (SLAB_PREALLOC, _UNUSED). */
static int vt_maple_store(struct vma_tree *t, unsigned long first,
			  unsigned long last, void *entry)
{
	unsigned long a = vt_maple_allocs, u = vt_maple_frees;
	int ret;

	vt_maple_changing(t);
	ret = kmaple_store(t->mt, first, last, entry);
	t->node_stores++;
	t->node_prealloc += vt_maple_allocs - a;
	t->node_unused += vt_maple_frees - u;
	if (t->nodes.slab) {
		slab_count(t->nodes.slab, SLAB_PREALLOC, vt_maple_allocs - a);
		slab_count(t->nodes.slab, SLAB_PREALLOC_UNUSED,
			   vt_maple_frees - u);
	}
	return ret;
}

static int vt_maple_insert(struct vma_tree *t, struct sim_vma *v)
{
	unsigned long first, last;
	int ret;

	if (v->vm_end <= v->vm_start)
		return -EINVAL;
	if (kmaple_find(t->mt, v->vm_start, v->vm_end - 1, &first, &last))
		return -EEXIST;
	ret = vt_maple_log(t, v, true);
	if (!ret)
		ret = vt_maple_store(t, v->vm_start, v->vm_end - 1, v);
	if (ret) {
		if (t->nundo && t->undo[t->nundo - 1].v == v)
			t->nundo--;
		return ret;
	}
	t->wcount++;
	return 0;
}

/* Store NULL wherever the tree holds v (one range, but for a VMA an
 * aborted transaction left partly overwritten). */
static int vt_maple_clear(struct vma_tree *t, struct sim_vma *v)
{
	unsigned long first, last, at = v->vm_start;
	void *e;
	int ret = 0;

	while (!ret && at < v->vm_end &&
	       (e = kmaple_find(t->mt, at, v->vm_end - 1, &first, &last))) {
		if (e == v)
			ret = vt_maple_store(t, first, last, NULL);
		at = last + 1;
		if (!at)
			break;
	}
	return ret;
}

static int vt_maple_erase(struct vma_tree *t, struct sim_vma *v)
{
	unsigned long first, last;
	int ret;

	if (kmaple_walk(t->mt, v->vm_start, &first, &last) != v)
		return -ENOENT;
	ret = vt_maple_log(t, v, false);
	if (!ret)
		ret = vt_maple_store(t, v->vm_start, v->vm_end - 1, NULL);
	if (ret) {
		t->nundo--;
		return ret;
	}
	t->wcount--;
	return 0;
}

static bool vt_among(struct sim_vma *const *vs, int n, const void *v)
{
	for (int i = 0; i < n; i++)
		if (vs[i] == v)
			return true;
	return false;
}

/* May new go where it goes: nothing but olds[] in its range? */
static int vt_maple_room(struct vma_tree *t, const struct sim_vma *v,
			 struct sim_vma *const *olds, int nold)
{
	unsigned long first, last, at = v->vm_start;
	void *e;

	if (v->vm_end <= v->vm_start)
		return -EINVAL;
	while (at < v->vm_end &&
	       (e = kmaple_find(t->mt, at, v->vm_end - 1, &first, &last))) {
		if (!vt_among(olds, nold, e))
			return -EEXIST;
		if (last >= v->vm_end - 1)
			break;
		at = last + 1;
	}
	return 0;
}

static int vt_maple_replace(struct vma_tree *t, struct sim_vma *const *olds, int nold,
		     struct sim_vma *const *news, int nnew)
{
	unsigned long first, last;
	int ret = 0;

	for (int i = 0; i < nold; i++)
		if (kmaple_walk(t->mt, olds[i]->vm_start, &first, &last) != olds[i])
			return -ENOENT;
	for (int i = 0; !ret && i < nnew; i++)
		ret = vt_maple_room(t, news[i], olds, nold);
	/* The new ones over the old ones, then what is left of those. */
	for (int i = 0; !ret && i < nnew; i++) {
		ret = vt_maple_log(t, news[i], true);
		if (!ret)
			ret = vt_maple_store(t, news[i]->vm_start,
					     news[i]->vm_end - 1, news[i]);
		t->wcount += !ret;
	}
	for (int i = 0; !ret && i < nold; i++) {
		ret = vt_maple_log(t, olds[i], false);
		if (!ret)
			ret = vt_maple_clear(t, olds[i]);
		t->wcount -= !ret;
	}
	return ret;
}

static void vt_maple_publish(struct vma_tree *t)
{
	atomic_store_explicit(&t->count, t->wcount, memory_order_relaxed);
	/* Even again, after every store: pairs with vma_tree_seq(). */
	if (atomic_load_explicit(&t->seq, memory_order_relaxed) & 1)
		atomic_fetch_add_explicit(&t->seq, 1, memory_order_release);
}

static void vt_maple_end(struct vma_tree *t)
{
	vt_pending_flush(t);
	t->in_txn = false;
	kmaple_unlock(t->mt);
}

static void vt_maple_abort(struct vma_tree *t)
{
	/* Undone in reverse: what went in out, what went out back in. */
	while (t->nundo) {
		struct vt_undo *u = &t->undo[--t->nundo];
		int ret = u->in ? vt_maple_clear(t, u->v) :
			  vt_maple_store(t, u->v->vm_start, u->v->vm_end - 1,
					 u->v);

		SIM_WARN_ON(ret);        /* no node for the undo: -ENOMEM */
	}
	t->wcount = atomic_load_explicit(&t->count, memory_order_relaxed);
	t->pending = NULL;               /* nothing was replaced after all */
	vt_maple_publish(t);
	t->in_txn = false;
	kmaple_unlock(t->mt);
}

/* munmap's detached tree (vms_gather_munmap_vmas): the removed VMAs
 * stored, one after the other, into a tree on the stack that is not in
 * RCU mode (its nodes go back at once when it is destroyed). The VMAs
 * themselves are not needed: n entries, adjacent. */
static void vt_maple_detached_build(struct vma_tree *t, size_t nvmas,
			     struct vma_detached *d)
{
	struct kmaple *m = kmaple_init_in(&d->buf, KMAPLE_EXTERN_LOCK,
					   &vt_maple_alloc, t);

	d->maple = m;
	for (size_t i = 0; i < nvmas; i++)
		if (kmaple_store_gfp(m, i * SIM_PAGE_SIZE,
				     (i + 1) * SIM_PAGE_SIZE - 1,
				     (void *)((i + 1) * SIM_PAGE_SIZE)))
			break;
}

static void vt_maple_detached_destroy(struct vma_tree *t, struct vma_detached *d)
{
	(void)t;
	if (d->maple)
		kmaple_clear(d->maple);
}

/* Gap searches (the writer's): unmapped_area_topdown() / unmapped_area(),
 * the length widened by the alignment and the start aligned after. */
static int vt_maple_gap(struct vma_tree *t, unsigned long lo,
			unsigned long hi, size_t len, size_t align, bool down,
			unsigned long *out)
{
	unsigned long size = len + align - SIM_PAGE_SIZE, first, at;

	if (hi <= lo || size < len || hi - lo < size ||
	    (down ? kmaple_empty_area_rev : kmaple_empty_area)(t->mt, lo,
							       hi - 1, size,
							       &first))
		return -ENOMEM;
	/* The free range is [first, first + size): aligned down from its
	 * top, or up from its bottom; len fits either way. */
	at = down ? (first + size - len) & ~(align - 1) :
		    (first + align - 1) & ~(align - 1);
	*out = at;
	return 0;
}

static int vt_maple_gap_topdown(struct vma_tree *t, unsigned long lo,
			 unsigned long hi, size_t len, size_t align,
			 unsigned long *out)
{
	return vt_maple_gap(t, lo, hi, len, align, true, out);
}

static int vt_maple_gap_bottomup(struct vma_tree *t, unsigned long lo,
			  unsigned long hi, size_t len, size_t align,
			  unsigned long *out)
{
	return vt_maple_gap(t, lo, hi, len, align, false, out);
}

static int vt_maple_rcu_gap_topdown(struct vma_tree *t, unsigned long lo,
			     unsigned long hi, size_t len, size_t align,
			     unsigned long *out)
{
	return kmaple_rcu_gap_rev(t->mt, lo, hi, len, align, out);
}

/* The kernel's maple tree behind the tree's interface (sim/vma_tree_int.h):
 * the calls on the published tree and inside a transaction are the same
 * (each store is published as it is made). */
const struct vt_ops vt_maple_ops = {
	.name = "maple",
	.destroy = vt_maple_destroy,
	.set_external_lock = vt_maple_set_external_lock,
	.find = vt_maple_find,
	.find_range = vt_maple_find_range,
	.find_intersection = vt_maple_find_intersection,
	.for_each = vt_maple_for_each,
	.height = vt_maple_height,
	.begin = vt_maple_begin,
	.publish = vt_maple_publish,
	.end = vt_maple_end,
	.abort = vt_maple_abort,
	.txn_find = vt_maple_find,
	.txn_find_intersection = vt_maple_find_intersection,
	.txn_prev = vt_maple_prev,
	.insert = vt_maple_insert,
	.erase = vt_maple_erase,
	.replace = vt_maple_replace,
	.detached_build = vt_maple_detached_build,
	.detached_destroy = vt_maple_detached_destroy,
	.gap_topdown = vt_maple_gap_topdown,
	.gap_bottomup = vt_maple_gap_bottomup,
	.rcu_gap_topdown = vt_maple_rcu_gap_topdown,
};
