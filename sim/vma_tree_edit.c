/* SPDX-License-Identifier: MIT */
/*
 * The VMA tree's changes: insert, erase (copy-on-write nodes published at
 * commit), transactions, and the gap search mmap places with.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/debug.h"
#include "sim/vma_tree_int.h"

/* --- insert --------------------------------------------------------------- */

/*
 * Split an overfull c; the upper part is returned. Normally c keeps half.
 * When the overflow came from appending at the end (ascending inserts,
 * as mmap top-down and brk produce in practice), c stays full and the new
 * node takes only the last slot, so sequential growth fills nodes rather
 * than leaving them half empty (the maple tree does the same).
 */
static struct vt_node *vt_split(struct vma_tree *t, struct vt_node *c,
				bool appended)
{
	struct vt_node *b = vt_alloc(t, c->leaf);
	int keep = appended ? c->n - 1 : c->n / 2;

	vt_slot_append(b, c, keep, c->n - keep);
	c->n = (unsigned char)keep;
	return b;
}

/* Insert v below n; returns n's replacement, *split its new right
 * sibling or NULL. */
static struct vt_node *vt_ins(struct vma_tree *t, struct vt_node *n,
			      struct sim_vma *v, struct vt_node **split)
{
	struct vt_node *c = vt_cow(t, n);
	int i;

	if (c->leaf) {
		for (i = 0; i < c->n && c->start[i] < v->vm_start; i++)
			;
		vt_slot_open(c, i);
		vt_set_vma(c, i, v);
	} else {
		struct vt_node *cb = NULL, *ca;

		i = vt_slot_by_start(c, v->vm_start);
		ca = vt_ins(t, c->slot[i], v, &cb);
		vt_set_child(c, i, ca);
		if (cb) {
			vt_slot_open(c, ++i);
			vt_set_child(c, i, cb);
		}
	}
	*split = c->n > VT_SLOTS ? vt_split(t, c, i == c->n - 1) : NULL;
	return c;
}

static int vt_b_insert(struct vma_tree *t, struct sim_vma *v)
{
	struct vt_node *a, *b;
	int ret;

	t->node_stores++;
	/* A write of the tree under the writer's lock (the maple tree's
	 * mmap_assert_write_locked in vma_iter_store): inside begin..end. */
	SIM_WARN_ON(!t->in_txn);
	if (vt_b_txn_find_intersection(t, v->vm_start, v->vm_end))
		return -EEXIST;
	ret = vt_reserve_insert(t, v->vm_start);
	if (ret)
		return ret;
	if (!t->wroot) {
		a = vt_alloc(t, true);
		a->n = 1;
		vt_set_vma(a, 0, v);
		t->height = 1;
	} else {
		a = vt_ins(t, t->wroot, v, &b);
		if (b) {
			struct vt_node *r = vt_alloc(t, false);

			r->n = 2;
			vt_set_child(r, 0, a);
			vt_set_child(r, 1, b);
			a = r;
			t->height++;
		}
	}
	t->wroot = a;
	t->wcount++;
	return 0;
}

/* --- erase ---------------------------------------------------------------- */

/* p->slot[i] has too few slots: merge it with a sibling, or even out. */
static void vt_rebalance(struct vma_tree *t, struct vt_node *p, int i)
{
	int l = i > 0 ? i - 1 : i, r = l + 1;
	struct vt_node *L = p->slot[l], *R = p->slot[r], *nl, *nr = NULL;
	int total = L->n + R->n, half = total / 2;

	nl = vt_alloc(t, L->leaf);
	if (total <= VT_SLOTS) {
		vt_slot_append(nl, L, 0, L->n);
		vt_slot_append(nl, R, 0, R->n);
	} else if (L->n <= half) {
		/* Move the start of R to the end of L. */
		nr = vt_alloc(t, R->leaf);
		vt_slot_append(nl, L, 0, L->n);
		vt_slot_append(nl, R, 0, half - L->n);
		vt_slot_append(nr, R, half - L->n, R->n - (half - L->n));
	} else {
		/* Move the end of L to the start of R. */
		nr = vt_alloc(t, R->leaf);
		vt_slot_append(nl, L, 0, half);
		vt_slot_append(nr, L, half, L->n - half);
		vt_slot_append(nr, R, 0, R->n);
	}
	vt_drop(t, L);
	vt_drop(t, R);
	vt_set_child(p, l, nl);
	if (nr)
		vt_set_child(p, r, nr);
	else
		vt_slot_close(p, r);
}

/* Remove v below n; returns n's replacement, NULL if it became empty. */
static struct vt_node *vt_del(struct vma_tree *t, struct vt_node *n,
			      struct sim_vma *v)
{
	struct vt_node *c = vt_cow(t, n);
	int i = vt_slot_by_start(c, v->vm_start);

	if (c->leaf) {
		vt_slot_close(c, i);
	} else {
		struct vt_node *cc = vt_del(t, c->slot[i], v);

		if (!cc) {
			vt_slot_close(c, i);
		} else {
			vt_set_child(c, i, cc);
			if (cc->n < VT_MIN && c->n > 1)
				vt_rebalance(t, c, i);
		}
	}
	if (!c->n) {
		vt_unalloc(t, c);        /* c is fresh: it was just copied */
		return NULL;
	}
	return c;
}

/* Is v (by identity) in the working tree? */
static bool vt_contains(const struct vt_node *n, const struct sim_vma *v)
{
	while (n) {
		int i = vt_slot_by_start(n, v->vm_start);

		if (n->leaf)
			return n->slot[i] == v && n->start[i] == v->vm_start;
		n = n->slot[i];
	}
	return false;
}

static int vt_b_erase(struct vma_tree *t, struct sim_vma *v)
{
	struct vt_node *r;
	int ret;

	t->node_stores++;
	SIM_WARN_ON(!t->in_txn);
	if (!vt_contains(t->wroot, v))
		return -ENOENT;
	ret = vt_reserve_erase(t, v->vm_start);
	if (ret)
		return ret;
	r = vt_del(t, t->wroot, v);
	/* A root with one child is replaced by the child. */
	while (r && !r->leaf && r->n == 1) {
		struct vt_node *child = r->slot[0];

		vt_drop(t, r);
		r = child;
		t->height--;
	}
	if (!r)
		t->height = 0;
	t->wroot = r;
	t->wcount--;
	return 0;
}

static int vt_b_replace(struct vma_tree *t, struct sim_vma *const *olds, int nold,
		     struct sim_vma *const *news, int nnew)
{
	int ret = 0;

	/* One version is published at the end: the order is the reader's
	 * concern on the maple tree only. */
	for (int i = 0; !ret && i < nold; i++)
		ret = vt_b_erase(t, olds[i]);
	for (int i = 0; !ret && i < nnew; i++)
		ret = vt_b_insert(t, news[i]);
	return ret;
}

/* --- munmap's detached tree ---------------------------------------------- */

static void vt_b_detached_build(struct vma_tree *t, size_t nvmas,
				struct vma_detached *d)
{
	size_t leaves = (nvmas + VT_SLOTS - 1) / VT_SLOTS, nodes = leaves;

	if (t->keep_spares)
		return;

	for (size_t up = leaves; up > 1; nodes += up)
		up = (up + VT_SLOTS - 1) / VT_SLOTS;
	while (nodes--) {
		void **n = objpool_alloc(&t->nodes);

		if (!n)
			break;
		*n = d->chain;           /* the chain's link, in a free node */
		d->chain = n;
	}
}

static void vt_b_detached_destroy(struct vma_tree *t, struct vma_detached *d)
{
	void *chain = d->chain;

	while (chain) {
		void *next = *(void **)chain;

		objpool_free(&t->nodes, chain);
		chain = next;
	}
}

/* --- transactions --------------------------------------------------------- */

void vma_tree_retire(struct vma_tree *t, struct objpool *pool,
		     struct sim_rcu_head *h, void (*fn)(struct sim_rcu_head *))
{
	vt_pending_add(t, pool, h, fn);
}

enum vma_tree_kind vma_tree_kind_resolve(enum vma_tree_kind k)
{
	if (k == VMA_TREE_DEFAULT)
		return vma_tree_maple_built() ? VMA_TREE_MAPLE : VMA_TREE_VMSIM;
	return k;
}

const char *vma_tree_kind_name(enum vma_tree_kind k)
{
	return vma_tree_kind_resolve(k) == VMA_TREE_MAPLE ? "maple" : "vmsim";
}

size_t vma_tree_reserve_bytes(enum vma_tree_kind kind, size_t max_nodes)
{
	/* Unresolved (default): the larger, vmsim's, as a bound. */
	if (kind == VMA_TREE_MAPLE)
		return objpool_reserve_bytes(vt_maple_node_size(),
					     vt_maple_node_size(), max_nodes);
	return objpool_reserve_bytes(sizeof(struct vt_node),
				     _Alignof(struct vt_node), max_nodes);
}

void vma_tree_slab_args(enum vma_tree_kind kind, struct slab_args *a)
{
	/* maple_node_cache: 256 bytes, aligned to 256 */
	if (vma_tree_kind_resolve(kind) == VMA_TREE_MAPLE)
		*a = (struct slab_args){ .size = vt_maple_node_size(),
					 .align = vt_maple_node_size() };
	else
		*a = (struct slab_args){ .size = sizeof(struct vt_node),
					 .align = _Alignof(struct vt_node) };
}

int vma_tree_init_maple(struct vma_tree *t, size_t max_nodes,
			struct slab_cache *s, const struct slab_stat *st)
{
	memset(t, 0, sizeof(*t));
	atomic_init(&t->root, NULL);
	atomic_init(&t->count, 0);
	return vt_maple_init(t, max_nodes, s, st);   /* t->ops: the maple tree's */
}

/* The B-tree's lock is its mutex, taken or not at begin: nothing to do. */
static void vt_b_set_external_lock(struct vma_tree *t, bool on)
{
	(void)t;
	(void)on;
}

int vma_tree_init_slab(struct vma_tree *t, size_t max_nodes,
		       struct slab_cache *s, const struct slab_stat *st)
{
	int ret;

	memset(t, 0, sizeof(*t));
	atomic_init(&t->root, NULL);
	atomic_init(&t->count, 0);
	t->ops = &vt_btree_ops;
	t->gen = 1;
	objpool_pre_init(&t->pre);
	if (s)
		ret = objpool_init_slab(&t->nodes, sizeof(struct vt_node),
					_Alignof(struct vt_node), s, st,
					offsetof(struct vt_node, rcu));
	else
		ret = objpool_init(&t->nodes, sizeof(struct vt_node),
				   _Alignof(struct vt_node), max_nodes);
	if (ret)
		return ret;
	ret = -pthread_mutex_init(&t->lock, NULL);
	if (ret)
		objpool_destroy(&t->nodes);
	return ret;
}

int vma_tree_init_cap(struct vma_tree *t, size_t max_nodes)
{
	return vma_tree_init_slab(t, max_nodes, NULL, NULL);
}

int vma_tree_init(struct vma_tree *t)
{
	return vma_tree_init_cap(t, VT_DEFAULT_NODES);
}

/* mas_destroy(): the nodes preallocated and not used go back (kept, with
 * --tree-alloc spare). */
static void vt_pre_end(struct vma_tree *t)
{
	t->node_prealloc += (unsigned long)t->pre.asked;
	if (t->pre.asked > t->pre.used)
		t->node_unused += (unsigned long)(t->pre.asked - t->pre.used);
	if (t->keep_spares)
		objpool_pre_keep(&t->pre);
	else
		objpool_pre_return(&t->nodes, &t->pre);
}

static void vt_b_begin(struct vma_tree *t)
{
	if (!t->external_lock)
		pthread_mutex_lock(&t->lock);
	SIM_WARN_ON(t->in_txn);          /* one writer at a time */
	t->in_txn = true;
	t->wroot = atomic_load_explicit(&t->root, memory_order_relaxed);
	t->wcount = atomic_load_explicit(&t->count, memory_order_relaxed);
	t->pending = NULL;
}

static void vt_b_publish(struct vma_tree *t)
{
	bool changed = t->wroot != atomic_load_explicit(&t->root,
						       memory_order_relaxed);

	/* Release: pairs with the acquire load in vt_b_find(); the new
	 * version's nodes are complete before readers can reach them. */
	atomic_store_explicit(&t->root, t->wroot, memory_order_release);
	atomic_store_explicit(&t->count, t->wcount, memory_order_relaxed);
	/* Release, after the root: pairs with vma_tree_seq()'s acquire. */
	if (changed)             /* by 2: even (a maple store makes it odd) */
		atomic_fetch_add_explicit(&t->seq, 2, memory_order_release);
	t->gen++;                        /* this version is published now */
}

static void vt_b_end(struct vma_tree *t)
{
	/* The nodes preallocated and not used go back (mas_destroy). Then
	 * everything this transaction replaced is freed once the readers
	 * that may still see it are done; the caller had until now to act
	 * on it (mark removed VMAs detached). */
	vt_pre_end(t);
	vt_pending_flush(t);
	t->in_txn = false;
	if (!t->external_lock)
		pthread_mutex_unlock(&t->lock);
}

/* Free this transaction's unpublished nodes reachable from n. */
static void vt_free_fresh(struct vma_tree *t, struct vt_node *n)
{
	if (!n || !vt_node_fresh(t, n))
		return;
	if (!n->leaf)
		for (int i = 0; i < n->n; i++)
			vt_free_fresh(t, n->slot[i]);
	vt_unalloc(t, n);
}

static void vt_b_abort(struct vma_tree *t)
{
	vt_free_fresh(t, t->wroot);
	t->wroot = atomic_load_explicit(&t->root, memory_order_relaxed);
	t->wcount = atomic_load_explicit(&t->count, memory_order_relaxed);
	t->height = 0;
	for (struct vt_node *n = t->wroot; n; n = n->leaf ? NULL : n->slot[0])
		t->height++;
	t->pending = NULL;               /* nothing was replaced after all */
	vt_pre_end(t);
	t->gen++;
	t->in_txn = false;
	if (!t->external_lock)
		pthread_mutex_unlock(&t->lock);
}

static void vt_free_all(struct vma_tree *t, struct vt_node *n,
			void (*free_vma)(void *))
{
	if (!n)
		return;
	for (int i = 0; i < n->n; i++) {
		if (!n->leaf)
			vt_free_all(t, n->slot[i], free_vma);
		else if (free_vma)
			free_vma(n->slot[i]);
	}
	objpool_free(&t->nodes, n);
}

static void vt_b_destroy(struct vma_tree *t, void (*free_vma)(void *))
{
	/* Callbacks still queued free into our pool: let them run first. */
	objpool_rcu_barrier(&t->nodes);
	vt_free_all(t, atomic_load_explicit(&t->root, memory_order_relaxed),
		    free_vma);
	objpool_pre_return(&t->nodes, &t->pre);
	objpool_destroy(&t->nodes);
	pthread_mutex_destroy(&t->lock);
}

/* --- gap search ----------------------------------------------------------- */

struct gap_req {
	unsigned long lo, hi;
	size_t len, align;
	unsigned long out;
};

static bool gap_fit(struct gap_req *q, unsigned long gs, unsigned long ge,
		    bool topdown)
{
	unsigned long s;

	if (gs < q->lo)
		gs = q->lo;
	if (ge > q->hi)
		ge = q->hi;
	if (ge <= gs || ge - gs < q->len)
		return false;
	s = topdown ? (ge - q->len) & ~(q->align - 1)
		    : (gs + q->align - 1) & ~(q->align - 1);
	if (s < gs || s > ge - q->len)
		return false;
	q->out = s;
	return true;
}

/* Highest fit among the gaps inside n and between n's last VMA and upper. */
static bool gap_td(const struct vt_node *n, unsigned long upper,
		   struct gap_req *q)
{
	for (int i = n->n - 1; i >= 0; i--) {
		unsigned long ge = i == n->n - 1 ? upper : n->start[i + 1];

		if (gap_fit(q, n->end[i], ge, true))
			return true;
		if (n->end[i] <= q->lo)
			return false;    /* all that is left is below lo */
		if (!n->leaf && n->gap[i] >= q->len && n->start[i] < q->hi &&
		    gap_td(n->slot[i], n->end[i], q))
			return true;
	}
	return false;
}

/* Lowest fit among the gaps between lower and n's first VMA and inside n. */
static bool gap_bu(const struct vt_node *n, unsigned long lower,
		   struct gap_req *q)
{
	for (int i = 0; i < n->n; i++) {
		unsigned long gs = i == 0 ? lower : n->end[i - 1];

		if (gap_fit(q, gs, n->start[i], false))
			return true;
		if (n->start[i] >= q->hi)
			return false;    /* all that is left is above hi */
		if (!n->leaf && n->gap[i] >= q->len && n->end[i] > q->lo &&
		    gap_bu(n->slot[i], n->start[i], q))
			return true;
	}
	return false;
}

static int gap_topdown(const struct vt_node *r, unsigned long lo,
		       unsigned long hi, size_t len, size_t align,
		       unsigned long *out)
{
	struct gap_req q = { lo, hi, len, align, 0 };

	if (!len || hi <= lo)
		return -ENOMEM;
	if (r ? gap_td(r, hi, &q) || gap_fit(&q, lo, r->start[0], true)
	      : gap_fit(&q, lo, hi, true)) {
		*out = q.out;
		return 0;
	}
	return -ENOMEM;
}

static int vt_b_gap_bottomup(struct vma_tree *t, unsigned long lo,
			     unsigned long hi, size_t len, size_t align,
			     unsigned long *out)
{
	struct gap_req q = { lo, hi, len, align, 0 };
	const struct vt_node *r = t->wroot;

	if (!len || hi <= lo)
		return -ENOMEM;
	if (r ? gap_bu(r, lo, &q) || gap_fit(&q, r->end[r->n - 1], hi, false)
	      : gap_fit(&q, lo, hi, false)) {
		*out = q.out;
		return 0;
	}
	return -ENOMEM;
}

static int vt_b_gap_topdown(struct vma_tree *t, unsigned long lo,
			    unsigned long hi, size_t len, size_t align,
			    unsigned long *out)
{
	return gap_topdown(t->wroot, lo, hi, len, align, out);
}

static int vt_b_rcu_gap_topdown(struct vma_tree *t, unsigned long lo,
				unsigned long hi, size_t len, size_t align,
				unsigned long *out)
{
	/* Acquire: as in vt_b_find(). */
	return gap_topdown(atomic_load_explicit(&t->root, memory_order_acquire),
			   lo, hi, len, align, out);
}

/* vmsim's B-tree behind the tree's interface (sim/vma_tree_int.h). */
const struct vt_ops vt_btree_ops = {
	.name = "vmsim",
	.destroy = vt_b_destroy,
	.set_external_lock = vt_b_set_external_lock,
	.find = vt_b_find,
	.find_range = vt_b_find_range,
	.find_intersection = vt_b_find_intersection,
	.for_each = vt_b_for_each,
	.height = vt_b_height,
	.begin = vt_b_begin,
	.publish = vt_b_publish,
	.end = vt_b_end,
	.abort = vt_b_abort,
	.txn_find = vt_b_txn_find,
	.txn_find_intersection = vt_b_txn_find_intersection,
	.txn_prev = vt_b_txn_prev,
	.insert = vt_b_insert,
	.erase = vt_b_erase,
	.replace = vt_b_replace,
	.detached_build = vt_b_detached_build,
	.detached_destroy = vt_b_detached_destroy,
	.gap_topdown = vt_b_gap_topdown,
	.gap_bottomup = vt_b_gap_bottomup,
	.rcu_gap_topdown = vt_b_rcu_gap_topdown,
};
