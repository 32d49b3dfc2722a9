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
 * RCU callback (locks/sync/rcu.h) once every reader that could see them is
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
 * come from the tree's own pool (sim/mem/objpool.h), reserved at init.
 *
 * Invariants: ranges are disjoint and sorted; every published node is
 * immutable; summaries equal what is below them; every non-root node has
 * >= 1 slot (>= VT_MIN after erase rebalancing when it has a sibling).
 */
#include "sim/vma_tree.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "locks/sync/rcu.h"
#include "sim/vma_tree_int.h"

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

void vt_set_child(struct vt_node *p, int i, struct vt_node *c)
{
	p->slot[i] = c;
	p->start[i] = c->start[0];
	p->end[i] = c->end[c->n - 1];
	p->gap[i] = node_gap(c);
}

void vt_set_vma(struct vt_node *leaf, int i, struct sim_vma *v)
{
	leaf->slot[i] = v;
	leaf->start[i] = v->vm_start;
	leaf->end[i] = v->vm_end;
	leaf->gap[i] = 0;
}

void vt_slot_open(struct vt_node *n, int i)
{
	int k = n->n - i;

	memmove(&n->start[i + 1], &n->start[i], sizeof(n->start[0]) * (size_t)k);
	memmove(&n->end[i + 1], &n->end[i], sizeof(n->end[0]) * (size_t)k);
	memmove(&n->gap[i + 1], &n->gap[i], sizeof(n->gap[0]) * (size_t)k);
	memmove(&n->slot[i + 1], &n->slot[i], sizeof(n->slot[0]) * (size_t)k);
	n->n++;
}

void vt_slot_close(struct vt_node *n, int i)
{
	int k = n->n - i - 1;

	memmove(&n->start[i], &n->start[i + 1], sizeof(n->start[0]) * (size_t)k);
	memmove(&n->end[i], &n->end[i + 1], sizeof(n->end[0]) * (size_t)k);
	memmove(&n->gap[i], &n->gap[i + 1], sizeof(n->gap[0]) * (size_t)k);
	memmove(&n->slot[i], &n->slot[i + 1], sizeof(n->slot[0]) * (size_t)k);
	n->n--;
}

/* Copy slots [from, from+k) of src to the end of dst. */
void vt_slot_append(struct vt_node *dst, const struct vt_node *src,
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
int vt_slot_by_start(const struct vt_node *n, unsigned long addr)
{
	int i = n->n - 1;

	while (i > 0 && n->start[i] > addr)
		i--;
	return i;
}

/* --- node memory: reserve, fresh copies, retirement ---------------------- */

bool vt_node_fresh(const struct vma_tree *t, const struct vt_node *n)
{
	return n->gen == t->gen;
}

/* Make sure the store's preallocation holds `want` nodes; -ENOMEM
 * before any change. */
static int vt_reserve(struct vma_tree *t, int want)
{
	if (t->keep_spares)              /* the worst case, node by node */
		return objpool_pre_fill_single(&t->nodes, &t->pre,
					       3 * (t->height + 1) + 1);
	return objpool_pre_fill(&t->nodes, &t->pre, want);
}

struct vt_node *vt_alloc(struct vma_tree *t, bool leaf)
{
	/* Preallocated: cannot be NULL. */
	struct vt_node *n = objpool_pre_take(&t->nodes, &t->pre);

	n->pool = &t->nodes;
	n->leaf = leaf;
	n->n = 0;
	n->gen = t->gen;
	return n;
}

/* An unpublished node goes straight back to the preallocation. */
void vt_unalloc(struct vma_tree *t, struct vt_node *n)
{
	objpool_pre_put(&t->nodes, &t->pre, n);
}

static void vt_node_free_rcu(struct sim_rcu_head *h)
{
	struct vt_node *n = (struct vt_node *)((char *)h -
					       offsetof(struct vt_node, rcu));

	objpool_free(n->pool, n);
}

void vt_pending_add(struct vma_tree *t, struct objpool *pool,
		    struct sim_rcu_head *h, void (*fn)(struct sim_rcu_head *))
{
	h->fn = fn;
	h->owner = pool;
	h->next = t->pending;
	t->pending = h;
}

/* Drop a node from the working version: published ones are retired when
 * the transaction ends. */
void vt_drop(struct vma_tree *t, struct vt_node *n)
{
	if (vt_node_fresh(t, n))
		vt_unalloc(t, n);
	else
		vt_pending_add(t, n->pool, &n->rcu, vt_node_free_rcu);
}

/*
 * What one store needs, as mas_prealloc_calc() sizes it by store type, in
 * this tree's terms (every node on the path is copied, see fidelity.md):
 * a copy of each published node on the path to addr's leaf; an insert
 * adds a node for each full node from the leaf up (a split) and a root
 * if they all are; an erase adds two for each node on the path that may
 * end below VT_MIN (its rebalance with a sibling).
 */
static int vt_need(struct vma_tree *t, unsigned long addr, bool insert)
{
	const struct vt_node *path[32];
	int h = 0, need = 0;

	for (const struct vt_node *n = t->wroot; n && h < 32;
	     n = n->leaf ? NULL : n->slot[vt_slot_by_start(n, addr)])
		path[h++] = n;
	if (!h)
		return 1;                /* the first leaf */
	for (int k = 0; k < h; k++)
		need += !vt_node_fresh(t, path[k]);
	/* Insert: splits run up from the leaf while nodes are full. Erase:
	 * any node on the path may end below VT_MIN (a node made small by
	 * an appending split is rebalanced by the next erase under it). */
	for (int k = h - 1; k >= 0; k--) {
		if (insert && path[k]->n < VT_SLOTS)
			break;
		if (insert)
			need += 1 + (k == 0);
		else if (k > 0 && path[k]->n - 1 < VT_MIN)
			need += 2;
	}
	return need;
}

int vt_reserve_insert(struct vma_tree *t, unsigned long addr)
{
	return vt_reserve(t, vt_need(t, addr, true));
}

int vt_reserve_erase(struct vma_tree *t, unsigned long addr)
{
	return vt_reserve(t, vt_need(t, addr, false));
}

/* Writable version of n for this transaction. */
struct vt_node *vt_cow(struct vma_tree *t, struct vt_node *n)
{
	struct vt_node *c;

	if (vt_node_fresh(t, n))
		return n;
	c = vt_alloc(t, n->leaf);
	vt_slot_append(c, n, 0, n->n);
	vt_drop(t, n);
	return c;
}

/* --- lookups ------------------------------------------------------------ */

/* The leaf slot of the first VMA with vm_end > addr: its leaf, or NULL
 * (and *slot its index). */
static const struct vt_node *vt_find_slot(const struct vt_node *n,
					  unsigned long addr, int *slot)
{
	while (n) {
		int i = slot_by_end(n, addr);

		if (i == n->n)
			return NULL;
		if (n->leaf) {
			*slot = i;
			return n;
		}
		n = n->slot[i];
	}
	return NULL;
}

static struct sim_vma *vt_find(const struct vt_node *n, unsigned long addr)
{
	int i;

	n = vt_find_slot(n, addr, &i);
	return n ? n->slot[i] : NULL;
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

struct sim_vma *vt_b_find(struct vma_tree *t, unsigned long addr)
{
	/* Acquire: pairs with the release store in vma_tree_commit(); every
	 * node reachable from this root was written before that store. */
	return vt_find(atomic_load_explicit(&t->root, memory_order_acquire), addr);
}

struct sim_vma *vt_b_find_range(struct vma_tree *t, unsigned long addr,
				unsigned long *start, unsigned long *end)
{
	/* Acquire: as in vt_b_find(). */
	const struct vt_node *n;
	int i;

	n = vt_find_slot(atomic_load_explicit(&t->root, memory_order_acquire),
			 addr, &i);
	if (!n || n->start[i] > addr)
		return NULL;
	*start = n->start[i];
	*end = n->end[i];
	return n->slot[i];
}

struct sim_vma *vt_b_find_intersection(struct vma_tree *t,
				       unsigned long start, unsigned long end)
{
	struct sim_vma *v = vt_b_find(t, start);

	return v && v->vm_start < end ? v : NULL;
}

struct sim_vma *vt_b_txn_find(struct vma_tree *t, unsigned long addr)
{
	return vt_find(t->wroot, addr);
}

struct sim_vma *vt_b_txn_find_intersection(struct vma_tree *t,
					   unsigned long start,
					   unsigned long end)
{
	struct sim_vma *v = vt_find(t->wroot, start);

	return v && v->vm_start < end ? v : NULL;
}

struct sim_vma *vt_b_txn_prev(struct vma_tree *t, unsigned long addr)
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

int vt_b_for_each(struct vma_tree *t, unsigned long start, unsigned long end,
		  int (*fn)(struct sim_vma *v, void *arg), void *arg)
{
	/* Acquire: as in vt_b_find(). */
	const struct vt_node *r = atomic_load_explicit(&t->root,
						       memory_order_acquire);

	return r ? vt_walk(r, start, end, fn, arg) : 0;
}

int vt_b_height(struct vma_tree *t)
{
	int h = 0;

	for (struct vt_node *n = atomic_load_explicit(&t->root,
			memory_order_acquire); n; n = n->leaf ? NULL : n->slot[0])
		h++;
	return h;
}

/* --- the tree's interface: each call is the tree's own (t->ops) --------- */

struct sim_vma *vma_tree_find(struct vma_tree *t, unsigned long addr)
{
	return t->ops->find(t, addr);
}

struct sim_vma *vma_tree_find_range(struct vma_tree *t, unsigned long addr,
				    unsigned long *start, unsigned long *end)
{
	return t->ops->find_range(t, addr, start, end);
}

struct sim_vma *vma_tree_find_intersection(struct vma_tree *t,
					   unsigned long start,
					   unsigned long end)
{
	return t->ops->find_intersection(t, start, end);
}

int vma_tree_for_each(struct vma_tree *t, unsigned long start,
		      unsigned long end,
		      int (*fn)(struct sim_vma *v, void *arg), void *arg)
{
	return t->ops->for_each(t, start, end, fn, arg);
}

int vma_tree_height(struct vma_tree *t)
{
	return t->ops->height(t);
}

int vma_tree_rcu_gap_topdown(struct vma_tree *t, unsigned long lo,
			     unsigned long hi, size_t len, size_t align,
			     unsigned long *out)
{
	return t->ops->rcu_gap_topdown(t, lo, hi, len, align, out);
}

void vma_tree_destroy(struct vma_tree *t, void (*free_vma)(void *))
{
	t->ops->destroy(t, free_vma);
	memset(t, 0, sizeof(*t));
}

void vma_tree_set_external_lock(struct vma_tree *t, bool on)
{
	t->external_lock = on;
	t->ops->set_external_lock(t, on);
}

void vma_tree_begin(struct vma_tree *t)
{
	t->ops->begin(t);
}

void vma_tree_publish(struct vma_tree *t)
{
	t->ops->publish(t);
}

void vma_tree_end(struct vma_tree *t)
{
	t->ops->end(t);
}

void vma_tree_commit(struct vma_tree *t)
{
	t->ops->publish(t);
	t->ops->end(t);
}

void vma_tree_abort(struct vma_tree *t)
{
	t->ops->abort(t);
}

struct sim_vma *vma_tree_txn_find(struct vma_tree *t, unsigned long addr)
{
	return t->ops->txn_find(t, addr);
}

struct sim_vma *vma_tree_txn_find_intersection(struct vma_tree *t,
					       unsigned long start,
					       unsigned long end)
{
	return t->ops->txn_find_intersection(t, start, end);
}

struct sim_vma *vma_tree_txn_prev(struct vma_tree *t, unsigned long addr)
{
	return t->ops->txn_prev(t, addr);
}

int vma_tree_insert(struct vma_tree *t, struct sim_vma *v)
{
	return t->ops->insert(t, v);
}

int vma_tree_erase(struct vma_tree *t, struct sim_vma *v)
{
	return t->ops->erase(t, v);
}

int vma_tree_replace(struct vma_tree *t, struct sim_vma *const *olds, int nold,
		     struct sim_vma *const *news, int nnew)
{
	return t->ops->replace(t, olds, nold, news, nnew);
}

void vma_tree_detached_build(struct vma_tree *t, size_t nvmas,
			     struct vma_detached *d)
{
	d->chain = NULL;
	d->maple = NULL;
	t->ops->detached_build(t, nvmas, d);
}

void vma_tree_detached_destroy(struct vma_tree *t, struct vma_detached *d)
{
	t->ops->detached_destroy(t, d);
}

int vma_tree_gap_topdown(struct vma_tree *t, unsigned long lo,
			 unsigned long hi, size_t len, size_t align,
			 unsigned long *out)
{
	return t->ops->gap_topdown(t, lo, hi, len, align, out);
}

int vma_tree_gap_bottomup(struct vma_tree *t, unsigned long lo,
			  unsigned long hi, size_t len, size_t align,
			  unsigned long *out)
{
	return t->ops->gap_bottomup(t, lo, hi, len, align, out);
}
