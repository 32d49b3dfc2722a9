/* SPDX-License-Identifier: MIT */
/*
 * The replay plan's model of the recorded address space: sorted, disjoint
 * intervals, each mapped or not, with its protection and backing, the
 * rank of the last call that touched it, and — per thread — the last of
 * that thread's faults in it since. A call waits for both: the calls
 * before it on its range, and every other thread's faults there (a
 * program joins its workers, then unmaps what they wrote).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/replay_int.h"

int rp_grow(void **v, size_t *cap, size_t need, size_t size)
{
	void *n;
	size_t c = *cap ? *cap : 64;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if (!(n = realloc(*v, c * size)))
		return -ENOMEM;
	*v = n;
	*cap = c;
	return 0;
}

const struct rp_cluster *rp_cluster_of(const struct rp_plan *p,
				       unsigned long a)
{
	int lo = 0, hi = p->ncl - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (a < p->cl[mid].start)
			hi = mid - 1;
		else if (a >= p->cl[mid].end)
			lo = mid + 1;
		else
			return &p->cl[mid];
	}
	return NULL;
}

int rp_arena_off(const struct rp_plan *p, unsigned long a, unsigned long len,
		 unsigned long *off, uint8_t *why)
{
	const struct rp_cluster *c = rp_cluster_of(p, a);

	if (!c || a + len > c->end) {
		*why = c ? RP_SKIP_SPLIT : RP_SKIP_NEVER_MAPPED;
		return -1;
	}
	*off = c->off + (a - c->start);
	return 0;
}

size_t rp_iv_find(const struct rp_model *m, unsigned long a)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->v[mid].e <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void iv_clear_faults(struct rp_iv *x)
{
	free(x->fd);
	x->fd = NULL;
	x->nfd = 0;
}

/* Make a an interval boundary; both halves keep the fault list. */
static int iv_split(struct rp_model *m, unsigned long a)
{
	size_t i = rp_iv_find(m, a);
	struct rp_iv *x;
	struct rp_tdep *copy = NULL;

	if (i == m->n || m->v[i].s >= a)
		return 0;
	if (m->v[i].nfd &&
	    !(copy = malloc(m->v[i].nfd * sizeof(*copy))))
		return -ENOMEM;
	if (rp_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v))) {
		free(copy);
		return -ENOMEM;
	}
	x = &m->v[i];
	memmove(x + 1, x, (m->n - i) * sizeof(*x));
	m->n++;
	x[0].e = a;
	x[1].s = a;
	if (copy)
		memcpy(copy, x[0].fd, x[0].nfd * sizeof(*copy));
	x[1].fd = copy;
	if (x[1].file >= 0)
		x[1].pgoff += (a - x[0].s) / RP_PAGE;
	return 0;
}

int rp_model_mark(struct rp_model *m, unsigned long s, unsigned long e,
		  const struct rp_iv *val)
{
	size_t i, j;

	if (s >= e)
		return 0;
	if (iv_split(m, s) || iv_split(m, e))
		return -ENOMEM;
	i = j = rp_iv_find(m, s);
	while (j < m->n && m->v[j].s < e)
		iv_clear_faults(&m->v[j++]);
	if (i == j && rp_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v)))
		return -ENOMEM;
	memmove(&m->v[i + 1], &m->v[j], (m->n - j) * sizeof(*m->v));
	m->n = m->n - (j - i) + 1;
	m->v[i] = *val;
	m->v[i].s = s;
	m->v[i].e = e;
	m->v[i].fd = NULL;
	m->v[i].nfd = 0;
	return 0;
}

int rp_model_retouch(struct rp_model *m, unsigned long s, unsigned long e,
		     uint32_t rank, int prot)
{
	if (iv_split(m, s) || iv_split(m, e))
		return -ENOMEM;
	for (size_t i = rp_iv_find(m, s); i < m->n && m->v[i].s < e; i++) {
		m->v[i].rank = rank;
		iv_clear_faults(&m->v[i]);
		if (prot >= 0 && m->v[i].mapped)
			m->v[i].prot = prot;
	}
	return 0;
}

int rp_model_fault(struct rp_model *m, size_t i, uint32_t thread,
		   uint32_t idx)
{
	struct rp_iv *x = &m->v[i];
	struct rp_tdep *n;

	for (uint32_t k = 0; k < x->nfd; k++)
		if (x->fd[k].thread == thread) {
			x->fd[k].idx = idx;
			return 0;
		}
	if (!(n = realloc(x->fd, (x->nfd + 1) * sizeof(*n))))
		return -ENOMEM;
	x->fd = n;
	x->fd[x->nfd++] = (struct rp_tdep){ thread, idx };
	return 0;
}

/* thread's progress past idx into op's thread deps (the largest kept). */
static int add_tdep(struct rp_plan *p, struct rp_op *op, struct rp_tdep d)
{
	for (uint32_t k = op->tdep0; k < op->tdep0 + op->ntdeps; k++)
		if (p->tdeps[k].thread == d.thread) {
			if (d.idx > p->tdeps[k].idx)
				p->tdeps[k].idx = d.idx;
			return 0;
		}
	if (rp_grow((void **)&p->tdeps, &p->captdeps, p->ntdeps + 1,
		    sizeof(*p->tdeps)))
		return -ENOMEM;
	p->tdeps[p->ntdeps++] = d;
	op->ntdeps++;
	return 0;
}

int rp_add_rank(struct rp_plan *p, struct rp_op *op, uint32_t rank)
{
	for (uint32_t k = op->dep0; k < op->dep0 + op->ndeps; k++)
		if (p->deps[k] == rank)
			return 0;
	if (rp_grow((void **)&p->deps, &p->capdeps, p->ndeps + 1,
		    sizeof(*p->deps)))
		return -ENOMEM;
	p->deps[p->ndeps++] = rank;
	op->ndeps++;
	return 0;
}

int rp_model_deps(struct rp_plan *p, struct rp_op *op,
		  const struct rp_model *m, unsigned long s, unsigned long e,
		  uint32_t self, const struct rp_iv **first)
{
	for (size_t i = rp_iv_find(m, s); i < m->n && m->v[i].s < e; i++) {
		const struct rp_iv *x = &m->v[i];

		if (x->mapped && first && !*first)
			*first = x;
		if (x->rank != RP_NONE && rp_add_rank(p, op, x->rank))
			return -ENOMEM;
		for (uint32_t k = 0; k < x->nfd; k++) {
			const struct rp_tdep *d = &x->fd[k];

			if (d->thread == self)
				continue;
			if (add_tdep(p, op, *d))
				return -ENOMEM;
			p->th[d->thread].ops[d->idx].waited = 1;
		}
	}
	return 0;
}

void rp_model_free(struct rp_model *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].fd);
	free(m->v);
}
