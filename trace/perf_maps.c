/* SPDX-License-Identifier: MIT */
/*
 * Each untraced process's mappings, from its calls: a sorted array of
 * disjoint ranges per process, changed as the kernel's VMAs would be by
 * the call's result (a failed call changes nothing).
 */
#include <stdlib.h>
#include <string.h>

#include "trace/perf_maps.h"

#define PG(x) (((x) + 4095) & ~4095ULL)

void perf_maps_fini(struct perf_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->p[i].v);
	free(m->p);
	free(m->pend);
	memset(m, 0, sizeof(*m));
}

static struct perf_proc *proc_of(struct perf_maps *m, long pid, bool add)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->p[i].pid == pid)
			return &m->p[i];
	if (!add)
		return NULL;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct perf_proc *p = realloc(m->p, cap * sizeof(*p));

		if (!p) {
			m->lost++;
			return NULL;
		}
		m->p = p;
		m->cap = cap;
	}
	m->p[m->n] = (struct perf_proc){ .pid = pid };
	return &m->p[m->n++];
}

/* Room for k more ranges. */
static bool room(struct perf_maps *m, struct perf_proc *p, size_t k)
{
	if (p->n + k <= p->cap)
		return true;
	size_t cap = p->cap ? 2 * p->cap : 64;

	while (cap < p->n + k)
		cap *= 2;
	struct perf_vma *v = realloc(p->v, cap * sizeof(*v));

	if (!v) {
		m->lost++;
		return false;
	}
	p->v = v;
	p->cap = cap;
	return true;
}

/* Split the range that holds addr inside it (not at its start) in two:
 * afterwards addr is a boundary. */
static bool split_at(struct perf_maps *m, struct perf_proc *p, uint64_t addr)
{
	for (size_t i = 0; i < p->n; i++) {
		struct perf_vma *v = &p->v[i];

		if (v->start >= addr)
			return true;
		if (v->end <= addr)
			continue;
		if (!room(m, p, 1))
			return false;
		v = &p->v[i];
		memmove(v + 2, v + 1, (p->n - i - 1) * sizeof(*v));
		v[1] = (struct perf_vma){ addr, v->end, v->prot };
		v->end = addr;
		p->n++;
		return true;
	}
	return true;
}

static void unmap(struct perf_maps *m, struct perf_proc *p, uint64_t start,
		  uint64_t end)
{
	size_t k = 0;

	if (start >= end || !split_at(m, p, start) || !split_at(m, p, end))
		return;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].end <= start || p->v[i].start >= end)
			p->v[k++] = p->v[i];
	p->n = k;
}

static void map(struct perf_maps *m, struct perf_proc *p, uint64_t start,
		uint64_t end, uint32_t prot)
{
	size_t i = 0;

	if (start >= end)
		return;
	unmap(m, p, start, end);
	if (!room(m, p, 1))
		return;
	while (i < p->n && p->v[i].start < start)
		i++;
	memmove(&p->v[i + 1], &p->v[i], (p->n - i) * sizeof(*p->v));
	p->v[i] = (struct perf_vma){ start, end, prot };
	p->n++;
}

static void protect(struct perf_maps *m, struct perf_proc *p, uint64_t start,
		    uint64_t end, uint32_t prot)
{
	if (start >= end || !split_at(m, p, start) || !split_at(m, p, end))
		return;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].start >= start && p->v[i].end <= end)
			p->v[i].prot = prot;
}

static uint32_t prot_at(const struct perf_proc *p, uint64_t addr)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].start <= addr && addr < p->v[i].end)
			return p->v[i].prot;
	return 3;                        /* PROT_READ | PROT_WRITE */
}

void perf_maps_fork(struct perf_maps *m, long parent, long child)
{
	struct perf_proc *c = proc_of(m, child, true), *p;

	if (!c)
		return;
	c->n = 0;
	c->brk_lo = c->brk_hi = 0;
	/* Adding c may have moved the array: the parent is looked up after
	 * (room() moves c->v only). */
	if (!(p = proc_of(m, parent, false)) || p == c || !room(m, c, p->n))
		return;
	memcpy(c->v, p->v, p->n * sizeof(*c->v));
	c->n = p->n;
	c->brk_lo = p->brk_lo;
	c->brk_hi = p->brk_hi;
}

void perf_maps_exec(struct perf_maps *m, long pid)
{
	struct perf_proc *p = proc_of(m, pid, true);

	if (p) {
		p->n = 0;
		p->brk_lo = p->brk_hi = 0;
	}
}

static struct perf_maps_pend *pend_of(struct perf_maps *m, uint32_t tid,
				      bool add)
{
	uint32_t h = (tid * 2654435761u) % PERF_MAPS_PEND;

	if (!m->pend && !(m->pend = calloc(PERF_MAPS_PEND, sizeof(*m->pend)))) {
		m->lost++;
		return NULL;
	}
	for (int k = 0; k < PERF_MAPS_PEND; k++, h = (h + 1) % PERF_MAPS_PEND) {
		if (m->pend[h].tid == tid)
			return &m->pend[h];
		if (!m->pend[h].tid) {
			if (!add)
				return NULL;
			m->pend[h].tid = tid;
			return &m->pend[h];
		}
	}
	m->lost++;
	return NULL;
}

void perf_maps_enter(struct perf_maps *m, uint32_t tid,
		     const struct trace_ev *ev)
{
	struct perf_maps_pend *e = pend_of(m, tid, true);

	if (e)
		e->ev = *ev;
}

void perf_maps_exit(struct perf_maps *m, long pid, uint32_t tid,
		    enum trace_kind kind, int64_t ret)
{
	struct perf_maps_pend *e = pend_of(m, tid, false);
	struct perf_proc *p;
	struct trace_ev ev;

	if (!e)
		return;
	ev = e->ev;
	/* Kept: a slot freed in open addressing would cut later probes. */
	e->ev.kind = TR_NKINDS;
	if (ev.kind != kind || ret < 0 || !(p = proc_of(m, pid, true)))
		return;
	switch (kind) {
	case TR_MMAP:
		map(m, p, (uint64_t)ret, (uint64_t)ret + PG(ev.len),
		    (uint32_t)ev.arg);
		break;
	case TR_MUNMAP:
		unmap(m, p, ev.addr, ev.addr + PG(ev.len));
		break;
	case TR_MPROTECT:
		protect(m, p, ev.addr, ev.addr + PG(ev.len), (uint32_t)ev.arg);
		break;
	case TR_MREMAP: {
		uint32_t prot = prot_at(p, ev.addr);
		uint64_t r = (uint64_t)ret;

		if (r == ev.addr && PG(ev.arg) >= PG(ev.len)) {
			map(m, p, r + PG(ev.len), r + PG(ev.arg), prot);
		} else if (r == ev.addr) {
			unmap(m, p, r + PG(ev.arg), r + PG(ev.len));
		} else {
			unmap(m, p, ev.addr, ev.addr + PG(ev.len));
			map(m, p, r, r + PG(ev.arg), prot);
		}
		break;
	}
	case TR_BRK:
		/* The first break seen is the heap's start (brk(0) at a
		 * program's start); the latest, its end. */
		if (!p->brk_lo)
			p->brk_lo = (uint64_t)ret;
		p->brk_hi = (uint64_t)ret > p->brk_lo ? (uint64_t)ret : p->brk_lo;
		break;
	default:
		break;
	}
}

int perf_maps_get(const struct perf_maps *m, long pid,
		  struct perf_premap **out, size_t *n, uint64_t brk[2])
{
	const struct perf_proc *p = NULL;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	brk[0] = brk[1] = 0;
	for (size_t i = 0; i < m->n && !p; i++)
		if (m->p[i].pid == pid)
			p = &m->p[i];
	if (!p)
		return 0;
	if (!(*out = calloc(p->n + 1, sizeof(**out))))
		return -1;
	for (size_t i = 0; i < p->n; i++)
		(*out)[k++] = (struct perf_premap){ p->v[i].start,
			p->v[i].end - p->v[i].start, p->v[i].prot };
	if (p->brk_hi > p->brk_lo)
		(*out)[k++] = (struct perf_premap){ p->brk_lo & ~4095ULL,
			PG(p->brk_hi) - (p->brk_lo & ~4095ULL), 3 };
	*n = k;
	brk[0] = p->brk_lo;
	brk[1] = p->brk_hi;
	return 0;
}
