/* SPDX-License-Identifier: MIT */
#include "sim/vma_tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void vma_tree_init(struct vma_tree *t)
{
	t->v = NULL;
	t->n = t->cap = 0;
}

void vma_tree_destroy(struct vma_tree *t)
{
	free(t->v);
	vma_tree_init(t);
}

/* Index of the first VMA with vm_end > addr (n if none). */
static size_t vt_index(const struct vma_tree *t, unsigned long addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid]->vm_end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

struct sim_vma *vma_tree_find(const struct vma_tree *t, unsigned long addr)
{
	size_t i = vt_index(t, addr);

	return i < t->n ? t->v[i] : NULL;
}

struct sim_vma *vma_tree_find_intersection(const struct vma_tree *t,
					   unsigned long start,
					   unsigned long end)
{
	struct sim_vma *v = vma_tree_find(t, start);

	return v && v->vm_start < end ? v : NULL;
}

int vma_tree_insert(struct vma_tree *t, struct sim_vma *v)
{
	size_t i = vt_index(t, v->vm_start);

	if (i < t->n && t->v[i]->vm_start < v->vm_end)
		return -EEXIST;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct sim_vma **nv = realloc(t->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		t->v = nv;
		t->cap = cap;
	}
	memmove(&t->v[i + 1], &t->v[i], (t->n - i) * sizeof(*t->v));
	t->v[i] = v;
	t->n++;
	return 0;
}

int vma_tree_erase(struct vma_tree *t, struct sim_vma *v)
{
	size_t i = vt_index(t, v->vm_start);

	if (i >= t->n || t->v[i] != v)
		return -ENOENT;
	memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof(*t->v));
	t->n--;
	return 0;
}

static unsigned long align_down(unsigned long x, size_t a)
{
	return x & ~(a - 1);
}

static unsigned long align_up(unsigned long x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Does [gs, ge) hold an aligned len? Top-down: highest; else lowest. */
static int gap_fit(unsigned long gs, unsigned long ge, size_t len,
		   size_t align, int topdown, unsigned long *out)
{
	unsigned long s;

	if (ge <= gs || ge - gs < len)
		return 0;
	s = topdown ? align_down(ge - len, align) : align_up(gs, align);
	if (s < gs || s + len > ge || s + len < s)
		return 0;
	*out = s;
	return 1;
}

int vma_tree_gap_topdown(const struct vma_tree *t, unsigned long lo,
			 unsigned long hi, size_t len, size_t align,
			 unsigned long *out)
{
	size_t i = vt_index(t, hi - 1);  /* first VMA that may reach into hi */
	unsigned long ge = hi;

	/* Walk gaps from the top: between v[i-1] and min(v[i]->start, hi). */
	if (i < t->n && t->v[i]->vm_start < ge)
		ge = t->v[i]->vm_start;
	for (;;) {
		unsigned long gs = i > 0 ? t->v[i - 1]->vm_end : lo;

		if (gs < lo)
			gs = lo;
		if (gap_fit(gs, ge, len, align, 1, out))
			return 0;
		if (i == 0 || t->v[i - 1]->vm_end <= lo)
			return -ENOMEM;
		i--;
		ge = t->v[i]->vm_start;
	}
}

int vma_tree_gap_bottomup(const struct vma_tree *t, unsigned long lo,
			  unsigned long hi, size_t len, size_t align,
			  unsigned long *out)
{
	size_t i = vt_index(t, lo);
	unsigned long gs = lo;

	if (i < t->n && t->v[i]->vm_start <= lo)
		gs = t->v[i++]->vm_end;
	for (;;) {
		unsigned long ge = i < t->n ? t->v[i]->vm_start : hi;

		if (ge > hi)
			ge = hi;
		if (gap_fit(gs, ge, len, align, 0, out))
			return 0;
		if (i >= t->n || t->v[i]->vm_end >= hi)
			return -ENOMEM;
		gs = t->v[i++]->vm_end;
	}
}
