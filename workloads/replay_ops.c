/* SPDX-License-Identifier: MIT */
/*
 * Pass 2 of the replay plan: each event becomes an operation of its
 * thread, with arena addresses, and the ranks it waits for — found in a
 * model of the recorded address space (sorted, disjoint intervals, each
 * mapped or not, with its protection and backing and the rank of the
 * last layout operation that touched it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "workloads/replay_int.h"

/* The model after a layout call on [s, e) (mremap: to [ns, ne); brk:
 * the heap's changed part), already checked and translated. */
static int apply(struct rp_model *m, const struct trace_ev *ev,
		 const struct rp_op *op, const struct rp_iv *old,
		 unsigned long s, unsigned long e, unsigned long ns,
		 unsigned long ne)
{
	struct rp_iv v = { .rank = op->rank, .mapped = true, .prot = op->prot,
			   .flags = op->flags, .file = op->file,
			   .pgoff = op->pgoff };
	struct rp_iv gone = { .rank = op->rank, .file = -1 };

	switch (ev->kind) {
	case TR_MMAP:
		return rp_model_mark(m, s, e, &v);
	case TR_MUNMAP:
		return rp_model_mark(m, s, e, &gone);
	case TR_MPROTECT:
		return rp_model_retouch(m, s, e, op->rank, op->prot);
	case TR_MADVISE:
		return rp_model_retouch(m, s, e, op->rank, -1);
	case TR_MREMAP:
		v = *old;
		v.rank = op->rank;
		return rp_model_mark(m, s, e, &gone) ? -ENOMEM
						     : rp_model_mark(m, ns, ne, &v);
	case TR_BRK:
		m->last_brk = op->rank;
		v.prot = PROT_READ | PROT_WRITE;
		v.flags = MAP_PRIVATE | MAP_ANONYMOUS;
		v.file = -1;
		return rp_model_mark(m, s, e, (unsigned long)ev->ret > m->brk ?
				     &v : &gone);
	default:
		return 0;
	}
}

/* The recorded range of a layout event, and its kind's fields. */
static void layout_fields(const struct trace_ev *ev, const struct rp_model *m,
			  struct rp_op *op, unsigned long *s, unsigned long *e)
{
	unsigned long ret = (unsigned long)ev->ret;

	*s = ev->addr & ~(RP_PAGE - 1);
	*e = *s + rp_page_up(ev->len);
	switch (ev->kind) {
	case TR_MMAP:
		*s = ret;
		*e = ret + rp_page_up(ev->len);
		op->prot = (int)(ev->arg & (PROT_READ | PROT_WRITE | PROT_EXEC));
		op->flags = (int)ev->arg2;
		op->file = ev->fd >= 0 && !(ev->arg2 & MAP_ANONYMOUS) ?
			   (int)ev->fd : -1;
		op->pgoff = ev->arg3 / RP_PAGE;
		op->fixed = !!(ev->arg2 & (MAP_FIXED | MAP_FIXED_NOREPLACE));
		break;
	case TR_MPROTECT:
		op->prot = (int)(ev->arg & (PROT_READ | PROT_WRITE | PROT_EXEC));
		break;
	case TR_MADVISE:
		op->advice = (int)ev->arg;
		break;
	case TR_BRK:                     /* the heap's changed part */
		*s = rp_page_up(m->brk < ret ? m->brk : ret);
		*e = rp_page_up(m->brk < ret ? ret : m->brk);
		break;
	default:
		break;
	}
}

/* The wait set and the model for one layout event. 0 or -ENOMEM. */
static int build_layout(struct rp_plan *p, struct rp_model *m,
			const struct trace_ev *ev, struct rp_op *op)
{
	unsigned long s, e, ns = 0, ne = 0;
	const struct rp_iv *first = NULL;
	struct rp_iv old = { .file = -1 };

	op->dep0 = (uint32_t)p->ndeps;
	op->tdep0 = (uint32_t)p->ntdeps;
	if (ev->kind == TR_BRK && !m->brk)
		m->brk = (unsigned long)ev->ret;      /* the first: the base */
	layout_fields(ev, m, op, &s, &e);
	if (ev->kind == TR_MADVISE && op->advice != MADV_DONTNEED &&
	    op->advice != MADV_POPULATE_WRITE)
		return op->skip = RP_SKIP_ADVICE, 0;
	if (ev->kind == TR_MREMAP) {
		ns = (unsigned long)ev->ret;
		ne = ns + rp_page_up(ev->arg);
		if (rp_arena_off(p, ns, ne - ns, &op->off2, &op->skip))
			return 0;
		op->len2 = ne - ns;
	}
	if (rp_arena_off(p, s, e - s, &op->off, &op->skip) ||
	    (ev->kind == TR_BRK &&           /* off2: the new break */
	     rp_arena_off(p, (unsigned long)ev->ret, 0, &op->off2, &op->skip)))
		return 0;
	if (rp_model_deps(p, op, m, s, e, ev->thread, &first) ||
	    (ev->kind == TR_MREMAP &&
	     rp_model_deps(p, op, m, ns, ne, ev->thread, NULL)) ||
	    (ev->kind == TR_BRK && m->last_brk != RP_NONE &&
	     rp_add_rank(p, op, m->last_brk)))
		return -ENOMEM;
	if (ev->kind != TR_MMAP && ev->kind != TR_BRK && !first) {
		p->ndeps = op->dep0;          /* nothing of it was mapped */
		p->ntdeps = op->tdep0;
		op->ndeps = op->ntdeps = 0;
		return op->skip = RP_SKIP_NEVER_MAPPED, 0;
	}
	if (first)
		old = *first;
	if (ev->kind == TR_MREMAP) {         /* the mapping it moves or resizes */
		op->prot = old.prot;
		op->flags = old.flags;
		op->file = old.file;
		op->pgoff = old.pgoff;
	}
	op->len = e - s;
	op->rank = p->nlayout++;
	if (apply(m, ev, op, &old, s, e, ns, ne))
		return -ENOMEM;
	if (ev->kind == TR_BRK)
		m->brk = (unsigned long)ev->ret;
	return 0;
}

/* A fault: replayed where the model has its page mapped, after the
 * operation that last touched the page. */
static int build_fault(const struct rp_plan *p, struct rp_model *m,
		       const struct trace_ev *ev, struct rp_op *op,
		       uint32_t idx)
{
	size_t i = rp_iv_find(m, ev->addr);

	op->write = !!(ev->arg & TRACE_FAULT_WRITE);
	op->kernel = !!(ev->arg & TRACE_FAULT_KERNEL);
	op->len = RP_PAGE;
	if (i == m->n || m->v[i].s > ev->addr || !m->v[i].mapped ||
	    rp_arena_off(p, ev->addr, RP_PAGE, &op->off, &op->skip)) {
		op->skip = RP_SKIP_NEVER_MAPPED;
		return 0;
	}
	op->rank = m->v[i].rank;
	return rp_model_fault(m, i, ev->thread, idx);
}

static int add_op(struct rp_plan *p, struct rp_model *m, const struct trace_ev *ev)
{
	struct rp_thread *t = &p->th[ev->thread];
	struct rp_op *op;

	if (rp_grow((void **)&t->ops, &t->cap, t->n + 1, sizeof(*t->ops)))
		return -ENOMEM;
	op = &t->ops[t->n];
	memset(op, 0, sizeof(*op));
	op->kind = (uint8_t)ev->kind;
	op->seq = (uint32_t)p->events;
	op->t_ns = ev->t_ns;
	if (ev->t_ns > p->span_ns)
		p->span_ns = ev->t_ns;
	op->rec = (unsigned long)(ev->kind == TR_MMAP && ev->ret >= 0 ?
				  (uint64_t)ev->ret : ev->addr);
	op->rank = RP_NONE;
	op->file = -1;
	p->events++;
	if (ev->kind == TR_FAULT) {
		p->faults++;
		if (build_fault(p, m, ev, op, (uint32_t)t->n))
			return -ENOMEM;
	} else {
		p->calls++;
		if (ev->ret < 0)
			op->skip = RP_SKIP_FAILED;
		else if (build_layout(p, m, ev, op))
			return -ENOMEM;
	}
	p->skipped[op->skip]++;
	t->n++;
	return 0;
}

int rp_pass_ops(struct rp_plan *p, char *err, size_t len)
{
	struct rp_model m = { .last_brk = RP_NONE };
	struct trace_reader r;
	struct trace_ev ev;
	int ret;

	if (trace_open(&r, p->path, err, len))
		return -1;
	p->th = calloc(p->nthreads ? (size_t)p->nthreads : 1, sizeof(*p->th));
	ret = p->th ? 0 : -ENOMEM;
	while (!ret && (ret = trace_next(&r, &ev, err, len)) > 0)
		ret = ev.kind == TR_THREAD ? 0 : add_op(p, &m, &ev);
	trace_close(&r);
	rp_model_free(&m);
	if (ret == -ENOMEM)
		snprintf(err, len, "out of memory reading the trace");
	if (!ret && !p->events)
		snprintf(err, len, "the trace holds no events"), ret = -1;
	return ret ? -1 : 0;
}
