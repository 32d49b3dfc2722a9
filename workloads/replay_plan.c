/* SPDX-License-Identifier: MIT */
/*
 * The replay plan (workloads/replay.h), built in two passes over the
 * trace: the first gathers every mapped range into clusters, the second
 * turns each event into an operation with arena addresses and the ranks
 * it waits for, found in a model of the recorded address space: sorted,
 * disjoint intervals, each with the rank of the last operation that
 * touched it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "workloads/replay_int.h"

#define HUGE (2UL << 20)

/* --- pass 1: the ranges the trace maps, into clusters -------------------- */

struct range { unsigned long s, e; };

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->s < y->s ? -1 : x->s > y->s;
}

static int add_range(struct range **r, size_t *n, size_t *cap,
		     unsigned long s, unsigned long e)
{
	if (e <= s)
		return 0;
	if (rp_grow((void **)r, cap, *n + 1, sizeof(**r)))
		return -ENOMEM;
	(*r)[(*n)++] = (struct range){ s & ~(RP_PAGE - 1), rp_page_up(e) };
	return 0;
}

/* The mapped ranges of one event (and the heap's extent). */
static int event_ranges(const struct trace_ev *ev, struct range **r,
			size_t *n, size_t *cap, unsigned long *brk_lo,
			unsigned long *brk_hi)
{
	unsigned long ret = (unsigned long)ev->ret;

	if (ev->ret < 0)
		return 0;
	switch (ev->kind) {
	case TR_MMAP:
		return add_range(r, n, cap, ret, ret + ev->len);
	case TR_MREMAP:
		return add_range(r, n, cap, ret, ret + ev->arg);
	case TR_BRK:
		if (!*brk_lo)
			*brk_lo = ret;
		if (ret > *brk_hi)
			*brk_hi = ret;
		return 0;
	default:
		return 0;
	}
}

static int make_clusters(struct rp_plan *p, struct range *r, size_t n)
{
	unsigned long off = RP_GUARD;

	if (n)                           /* qsort's base may not be NULL */
		qsort(r, n, sizeof(*r), cmp_range);
	p->cl = calloc(n ? n : 1, sizeof(*p->cl));
	if (!p->cl)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct rp_cluster *c = p->ncl ? &p->cl[p->ncl - 1] : NULL;
		unsigned long s = r[i].s & ~(HUGE - 1);
		unsigned long e = (r[i].e + HUGE - 1) & ~(HUGE - 1);

		if (c && s <= c->end + RP_GAP) {
			if (e > c->end)
				c->end = e;
			continue;
		}
		p->cl[p->ncl++] = (struct rp_cluster){ .start = s, .end = e };
	}
	for (int i = 0; i < p->ncl; i++) {
		p->cl[i].off = off;
		off += p->cl[i].end - p->cl[i].start + RP_GUARD;
	}
	p->arena_need = off;
	return 0;
}

static int pass_ranges(struct rp_plan *p, char *err, size_t len)
{
	struct trace_reader r;
	struct trace_ev ev;
	struct range *rs = NULL;
	size_t n = 0, cap = 0;
	unsigned long blo = 0, bhi = 0;
	int ret;

	if (trace_open(&r, p->path, err, len))
		return -1;
	snprintf(p->comment, sizeof(p->comment), "%s", r.comment);
	while ((ret = trace_next(&r, &ev, err, len)) > 0)
		if (event_ranges(&ev, &rs, &n, &cap, &blo, &bhi))
			break;
	p->nthreads = (int)r.nthreads;
	trace_close(&r);
	/* The heap: to the highest break (a page, if it never moved). */
	p->have_brk = !ret && blo;
	if (p->have_brk)
		ret = add_range(&rs, &n, &cap, blo, bhi > blo ? bhi : blo + RP_PAGE);
	if (!ret)
		ret = make_clusters(p, rs, n);
	free(rs);
	if (ret > 0 || ret == -ENOMEM)
		snprintf(err, len, "out of memory reading the trace");
	if (!ret && p->have_brk) {
		uint8_t why;

		rp_arena_off(p, blo, 0, &p->brk_off, &why);  /* in a cluster */
	}
	return ret ? -1 : 0;
}

/* --- pass 2: operations, their arena addresses and dependencies ---------- */

int rp_plan_load(const char *path, struct rp_plan **out, char *err,
		 size_t len)
{
	struct rp_plan *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	snprintf(p->path, sizeof(p->path), "%s", path);
	if (pass_ranges(p, err, len) || rp_pass_ops(p, err, len)) {
		rp_plan_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

void rp_plan_free(struct rp_plan *p)
{
	if (!p)
		return;
	for (int i = 0; p->th && i < p->nthreads; i++)
		free(p->th[i].ops);
	free(p->th);
	free(p->deps);
	free(p->tdeps);
	free(p->cl);
	free(p);
}
