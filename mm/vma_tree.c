/* SPDX-License-Identifier: MIT */
/*
 * vma_tree: an RCU-safe B+tree of VMAs with path copying.
 *
 * Shape. Leaves hold up to VT_SLOTS VMAs in address order; internal nodes
 * hold up to VT_SLOTS children. Every slot carries a summary of what is
 * below it: the lowest vm_start, the highest vm_end, and the largest gap
 * between two consecutive VMAs inside it (0 for a single VMA). With the
 * summaries, find_vma(addr) descends into the first slot whose end is
 * above addr (O(log n)), and a gap search skips every subtree whose
 * largest gap is too small (O(log n) for a fit, like the maple tree's
 * gap tracking or the old rb-tree's rb_subtree_gap).
 *
 * Concurrency. Published nodes are immutable. A writer never changes a
 * node that a reader may see: it copies the nodes on the path from the
 * root to the change (path copying, as in Bonsai / functional B-trees)
 * and finally publishes the new root with one release store. Readers
 * load the root with acquire and then only read nodes that were fully
 * written before that store, so they see the tree before or after an
 * update, never in between. Replaced nodes are retired and freed by an
 * RCU callback (locks/rcu.h) once every reader that could see them is
 * done, so a reader still walking an old version never touches freed
 * memory — and no writer ever waits for a grace period.
 *
 * Transactions. A writer's begin..commit may do several inserts and
 * erases (munmap = splits + erases; mmap = merges + insert). They build
 * one private version (nodes stamped with the transaction's generation
 * are unpublished and are changed in place rather than copied), and
 * commit publishes it at once; abort frees the private nodes and keeps
 * the old version. So an operation is all-or-nothing for readers too.
 *
 * Balance. Insert splits full nodes on the way back up; erase merges an
 * underfull node (fewer than VT_MIN slots) with a sibling, or shares the
 * sibling's slots, and drops a root with one child. Height stays
 * O(log n). Every operation reserves the nodes it may need first, so
 * nothing can fail half-way (-ENOMEM comes before any change). Nodes
 * come from the tree's own pool (sim/objpool.h), reserved at init.
 *
 * Invariants: ranges are disjoint and sorted; every published node is
 * immutable; summaries equal what is below them; every non-root node has
 * >= 1 slot (>= VT_MIN after erase rebalancing when it has a sibling).
 */
#include "mm/vma_tree.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sync/rcu.h"

#define VT_SLOTS 15                      /* + 1 spare = 16: 2 cache lines */
#define VT_MIN   (VT_SLOTS / 4)
#define VT_DEFAULT_NODES (1UL << 18)     /* node pool of vma_tree_init() */

struct vt_node {
	/* What a lookup reads comes first, each array two cache lines. One
	 * extra slot so that an overfull node can be split after. */
	unsigned long end[VT_SLOTS + 1];
	void *slot[VT_SLOTS + 1];
	unsigned char leaf;
	unsigned char n;
	unsigned gen;                    /* == tree->gen: unpublished */
	struct vt_node *next_spare;
	unsigned long start[VT_SLOTS + 1];
	unsigned long gap[VT_SLOTS + 1];
	struct sim_rcu_head rcu;         /* retirement */
	struct objpool *pool;            /* where it goes back to */
} __attribute__((aligned(64)));

/* --- summaries and slot helpers ---------------------------------------- */

static unsigned long node_gap(const struct vt_node *n)
{
	unsigned long g = 0;

	for (int i = 0; i < n->n; i++) {
		if (n->gap[i] > g)
			g = n->gap[i];
		if (i && n->start[i] - n->end[i - 1] > g)
			g = n->start[i] - n->end[i - 1];
	}
	return g;
}

static void set_child(struct vt_node *p, int i, struct vt_node *c)
{
	p->slot[i] = c;
	p->start[i] = c->start[0];
	p->end[i] = c->end[c->n - 1];
	p->gap[i] = node_gap(c);
}

static void set_vma(struct vt_node *leaf, int i, struct sim_vma *v)
{
	leaf->slot[i] = v;
	leaf->start[i] = v->vm_start;
	leaf->end[i] = v->vm_end;
	leaf->gap[i] = 0;
}

static void slot_open(struct vt_node *n, int i)
{
	int k = n->n - i;

	memmove(&n->start[i + 1], &n->start[i], sizeof(n->start[0]) * (size_t)k);
	memmove(&n->end[i + 1], &n->end[i], sizeof(n->end[0]) * (size_t)k);
	memmove(&n->gap[i + 1], &n->gap[i], sizeof(n->gap[0]) * (size_t)k);
	memmove(&n->slot[i + 1], &n->slot[i], sizeof(n->slot[0]) * (size_t)k);
	n->n++;
}

static void slot_close(struct vt_node *n, int i)
{
	int k = n->n - i - 1;

	memmove(&n->start[i], &n->start[i + 1], sizeof(n->start[0]) * (size_t)k);
	memmove(&n->end[i], &n->end[i + 1], sizeof(n->end[0]) * (size_t)k);
	memmove(&n->gap[i], &n->gap[i + 1], sizeof(n->gap[0]) * (size_t)k);
	memmove(&n->slot[i], &n->slot[i + 1], sizeof(n->slot[0]) * (size_t)k);
	n->n--;
}

/* Copy slots [from, from+k) of src to the end of dst. */
static void slot_append(struct vt_node *dst, const struct vt_node *src,
			int from, int k)
{
	int d = dst->n;

	memcpy(&dst->start[d], &src->start[from], sizeof(src->start[0]) * (size_t)k);
	memcpy(&dst->end[d], &src->end[from], sizeof(src->end[0]) * (size_t)k);
	memcpy(&dst->gap[d], &src->gap[from], sizeof(src->gap[0]) * (size_t)k);
	memcpy(&dst->slot[d], &src->slot[from], sizeof(src->slot[0]) * (size_t)k);
	dst->n = (unsigned char)(d + k);
}

/* First slot whose end is above addr; n->n if none. */
static int slot_by_end(const struct vt_node *n, unsigned long addr)
{
	int lo = 0, hi = n->n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (n->end[mid] > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Last slot whose start is <= addr; 0 if none (descend left-most). */
static int slot_by_start(const struct vt_node *n, unsigned long addr)
{
	int i = n->n - 1;

	while (i > 0 && n->start[i] > addr)
		i--;
	return i;
}

/* --- node memory: reserve, fresh copies, retirement ---------------------- */

static bool node_fresh(const struct vma_tree *t, const struct vt_node *n)
{
	return n->gen == t->gen;
}

static struct vt_node *vt_pool_get(struct vma_tree *t)
{
	struct vt_node *n = objpool_alloc_reclaim(&t->nodes);

	if (n)
		n->pool = &t->nodes;
	return n;
}

/* Make sure `want` spare nodes exist; -ENOMEM before any change. */
static int vt_reserve(struct vma_tree *t, int want)
{
	while (t->nspare < want) {
		struct vt_node *n = vt_pool_get(t);

		if (!n)
			return -ENOMEM;
		n->next_spare = t->spare;
		t->spare = n;
		t->nspare++;
	}
	return 0;
}

static struct vt_node *vt_alloc(struct vma_tree *t, bool leaf)
{
	struct vt_node *n = t->spare;      /* reserved: cannot be NULL */

	t->spare = n->next_spare;
	t->nspare--;
	n->leaf = leaf;
	n->n = 0;
	n->gen = t->gen;
	return n;
}

/* An unpublished node goes straight back to the spares. */
static void vt_unalloc(struct vma_tree *t, struct vt_node *n)
{
	n->next_spare = t->spare;
	t->spare = n;
	t->nspare++;
}

static void vt_node_free_rcu(struct sim_rcu_head *h)
{
	struct vt_node *n = (struct vt_node *)((char *)h -
					       offsetof(struct vt_node, rcu));

	objpool_free(n->pool, n);
}

static void vt_pending_add(struct vma_tree *t, struct sim_rcu_head *h,
			   void (*fn)(struct sim_rcu_head *))
{
	h->fn = fn;
	h->next = t->pending;
	t->pending = h;
}

/* Drop a node from the working version: published ones are retired when
 * the transaction ends. */
static void vt_drop(struct vma_tree *t, struct vt_node *n)
{
	if (node_fresh(t, n))
		vt_unalloc(t, n);
	else
		vt_pending_add(t, &n->rcu, vt_node_free_rcu);
}

/*
 * Reserve nodes for one insert or erase: per level at most one copy plus
 * one split (insert) or one copy plus two nodes of a rebalance (erase),
 * and one new root.
 */
static int vt_reserve_ops(struct vma_tree *t)
{
	return vt_reserve(t, 3 * (t->height + 1) + 1);
}

/* Writable version of n for this transaction. */
static struct vt_node *vt_cow(struct vma_tree *t, struct vt_node *n)
{
	struct vt_node *c;

	if (node_fresh(t, n))
		return n;
	c = vt_alloc(t, n->leaf);
	slot_append(c, n, 0, n->n);
	vt_drop(t, n);
	return c;
}

/* --- lookups ------------------------------------------------------------ */

static struct sim_vma *vt_find(const struct vt_node *n, unsigned long addr)
{
	while (n) {
		int i = slot_by_end(n, addr);

		if (i == n->n)
			return NULL;
		if (n->leaf)
			return n->slot[i];
		n = n->slot[i];
	}
	return NULL;
}

static struct sim_vma *vt_prev(const struct vt_node *n, unsigned long addr)
{
	while (n) {
		int i = n->n - 1;

		while (i >= 0 && n->start[i] >= addr)
			i--;
		if (i < 0)
			return NULL;
		if (n->leaf)
			return n->slot[i];
		n = n->slot[i];
	}
	return NULL;
}

struct sim_vma *vma_tree_find(struct vma_tree *t, unsigned long addr)
{
	/* Acquire: pairs with the release store in vma_tree_commit(); every
	 * node reachable from this root was written before that store. */
	return vt_find(atomic_load_explicit(&t->root, memory_order_acquire), addr);
}

struct sim_vma *vma_tree_find_intersection(struct vma_tree *t,
					   unsigned long start,
					   unsigned long end)
{
	struct sim_vma *v = vma_tree_find(t, start);

	return v && v->vm_start < end ? v : NULL;
}

struct sim_vma *vma_tree_txn_find(struct vma_tree *t, unsigned long addr)
{
	return vt_find(t->wroot, addr);
}

struct sim_vma *vma_tree_txn_find_intersection(struct vma_tree *t,
					       unsigned long start,
					       unsigned long end)
{
	struct sim_vma *v = vt_find(t->wroot, start);

	return v && v->vm_start < end ? v : NULL;
}

struct sim_vma *vma_tree_txn_prev(struct vma_tree *t, unsigned long addr)
{
	return vt_prev(t->wroot, addr);
}

static int vt_walk(const struct vt_node *n, unsigned long start,
		   unsigned long end, int (*fn)(struct sim_vma *, void *),
		   void *arg)
{
	for (int i = slot_by_end(n, start); i < n->n && n->start[i] < end; i++) {
		int ret = n->leaf ? fn(n->slot[i], arg)
				  : vt_walk(n->slot[i], start, end, fn, arg);

		if (ret)
			return ret;
	}
	return 0;
}

int vma_tree_for_each(struct vma_tree *t, unsigned long start,
		      unsigned long end,
		      int (*fn)(struct sim_vma *v, void *arg), void *arg)
{
	/* Acquire: as in vma_tree_find(). */
	const struct vt_node *r = atomic_load_explicit(&t->root,
						       memory_order_acquire);

	return r ? vt_walk(r, start, end, fn, arg) : 0;
}

int vma_tree_height(struct vma_tree *t)
{
	int h = 0;

	for (struct vt_node *n = atomic_load_explicit(&t->root,
			memory_order_acquire); n; n = n->leaf ? NULL : n->slot[0])
		h++;
	return h;
}

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

	slot_append(b, c, keep, c->n - keep);
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
		slot_open(c, i);
		set_vma(c, i, v);
	} else {
		struct vt_node *cb = NULL, *ca;

		i = slot_by_start(c, v->vm_start);
		ca = vt_ins(t, c->slot[i], v, &cb);
		set_child(c, i, ca);
		if (cb) {
			slot_open(c, ++i);
			set_child(c, i, cb);
		}
	}
	*split = c->n > VT_SLOTS ? vt_split(t, c, i == c->n - 1) : NULL;
	return c;
}

int vma_tree_insert(struct vma_tree *t, struct sim_vma *v)
{
	struct vt_node *a, *b;
	int ret;

	if (vma_tree_txn_find_intersection(t, v->vm_start, v->vm_end))
		return -EEXIST;
	ret = vt_reserve_ops(t);
	if (ret)
		return ret;
	if (!t->wroot) {
		a = vt_alloc(t, true);
		a->n = 1;
		set_vma(a, 0, v);
		t->height = 1;
	} else {
		a = vt_ins(t, t->wroot, v, &b);
		if (b) {
			struct vt_node *r = vt_alloc(t, false);

			r->n = 2;
			set_child(r, 0, a);
			set_child(r, 1, b);
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
		slot_append(nl, L, 0, L->n);
		slot_append(nl, R, 0, R->n);
	} else if (L->n <= half) {
		/* Move the start of R to the end of L. */
		nr = vt_alloc(t, R->leaf);
		slot_append(nl, L, 0, L->n);
		slot_append(nl, R, 0, half - L->n);
		slot_append(nr, R, half - L->n, R->n - (half - L->n));
	} else {
		/* Move the end of L to the start of R. */
		nr = vt_alloc(t, R->leaf);
		slot_append(nl, L, 0, half);
		slot_append(nr, L, half, L->n - half);
		slot_append(nr, R, 0, R->n);
	}
	vt_drop(t, L);
	vt_drop(t, R);
	set_child(p, l, nl);
	if (nr)
		set_child(p, r, nr);
	else
		slot_close(p, r);
}

/* Remove v below n; returns n's replacement, NULL if it became empty. */
static struct vt_node *vt_del(struct vma_tree *t, struct vt_node *n,
			      struct sim_vma *v)
{
	struct vt_node *c = vt_cow(t, n);
	int i = slot_by_start(c, v->vm_start);

	if (c->leaf) {
		slot_close(c, i);
	} else {
		struct vt_node *cc = vt_del(t, c->slot[i], v);

		if (!cc) {
			slot_close(c, i);
		} else {
			set_child(c, i, cc);
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
		int i = slot_by_start(n, v->vm_start);

		if (n->leaf)
			return n->slot[i] == v && n->start[i] == v->vm_start;
		n = n->slot[i];
	}
	return false;
}

int vma_tree_erase(struct vma_tree *t, struct sim_vma *v)
{
	struct vt_node *r;
	int ret;

	if (!vt_contains(t->wroot, v))
		return -ENOENT;
	ret = vt_reserve_ops(t);
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

/* --- transactions --------------------------------------------------------- */

void vma_tree_retire(struct vma_tree *t, struct sim_rcu_head *h,
		     void (*fn)(struct sim_rcu_head *))
{
	vt_pending_add(t, h, fn);
}

size_t vma_tree_reserve_bytes(size_t max_nodes)
{
	return objpool_reserve_bytes(sizeof(struct vt_node),
				     _Alignof(struct vt_node), max_nodes);
}

int vma_tree_init_cap(struct vma_tree *t, size_t max_nodes)
{
	int ret;

	memset(t, 0, sizeof(*t));
	atomic_init(&t->root, NULL);
	atomic_init(&t->count, 0);
	t->gen = 1;
	ret = objpool_init(&t->nodes, sizeof(struct vt_node),
			   _Alignof(struct vt_node), max_nodes);
	if (ret)
		return ret;
	ret = -pthread_mutex_init(&t->lock, NULL);
	if (ret)
		objpool_destroy(&t->nodes);
	return ret;
}

int vma_tree_init(struct vma_tree *t)
{
	return vma_tree_init_cap(t, VT_DEFAULT_NODES);
}

void vma_tree_begin(struct vma_tree *t)
{
	pthread_mutex_lock(&t->lock);
	t->wroot = atomic_load_explicit(&t->root, memory_order_relaxed);
	t->wcount = atomic_load_explicit(&t->count, memory_order_relaxed);
	t->pending = NULL;
}

void vma_tree_publish(struct vma_tree *t)
{
	/* Release: pairs with the acquire load in vma_tree_find(); the new
	 * version's nodes are complete before readers can reach them. */
	atomic_store_explicit(&t->root, t->wroot, memory_order_release);
	atomic_store_explicit(&t->count, t->wcount, memory_order_relaxed);
	t->gen++;                        /* this version is published now */
}

void vma_tree_end(struct vma_tree *t)
{
	struct sim_rcu_head *h = t->pending;

	/* Everything this transaction replaced is freed once the readers
	 * that may still see it are done; the caller had until now to act
	 * on it (mark removed VMAs detached). */
	t->pending = NULL;
	while (h) {
		struct sim_rcu_head *next = h->next;

		sim_call_rcu(h, h->fn);
		h = next;
	}
	pthread_mutex_unlock(&t->lock);
}

void vma_tree_commit(struct vma_tree *t)
{
	vma_tree_publish(t);
	vma_tree_end(t);
}

/* Free this transaction's unpublished nodes reachable from n. */
static void vt_free_fresh(struct vma_tree *t, struct vt_node *n)
{
	if (!n || !node_fresh(t, n))
		return;
	if (!n->leaf)
		for (int i = 0; i < n->n; i++)
			vt_free_fresh(t, n->slot[i]);
	vt_unalloc(t, n);
}

void vma_tree_abort(struct vma_tree *t)
{
	vt_free_fresh(t, t->wroot);
	t->wroot = atomic_load_explicit(&t->root, memory_order_relaxed);
	t->wcount = atomic_load_explicit(&t->count, memory_order_relaxed);
	t->height = 0;
	for (struct vt_node *n = t->wroot; n; n = n->leaf ? NULL : n->slot[0])
		t->height++;
	t->pending = NULL;               /* nothing was replaced after all */
	t->gen++;
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

void vma_tree_destroy(struct vma_tree *t, void (*free_vma)(void *))
{
	/* Callbacks still queued free into our pool: let them run first. */
	sim_rcu_barrier();
	vt_free_all(t, atomic_load_explicit(&t->root, memory_order_relaxed),
		    free_vma);
	while (t->spare) {
		struct vt_node *n = t->spare;

		t->spare = n->next_spare;
		objpool_free(&t->nodes, n);
	}
	objpool_destroy(&t->nodes);
	pthread_mutex_destroy(&t->lock);
	memset(t, 0, sizeof(*t));
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

int vma_tree_gap_bottomup(struct vma_tree *t, unsigned long lo,
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

int vma_tree_gap_topdown(struct vma_tree *t, unsigned long lo,
			 unsigned long hi, size_t len, size_t align,
			 unsigned long *out)
{
	return gap_topdown(t->wroot, lo, hi, len, align, out);
}

int vma_tree_rcu_gap_topdown(struct vma_tree *t, unsigned long lo,
			     unsigned long hi, size_t len, size_t align,
			     unsigned long *out)
{
	/* Acquire: as in vma_tree_find(). */
	return gap_topdown(atomic_load_explicit(&t->root, memory_order_acquire),
			   lo, hi, len, align, out);
}
