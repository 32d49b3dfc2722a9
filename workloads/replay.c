/* SPDX-License-Identifier: MIT */
/*
 * replay — a recorded program (vmsim record) run against the simulated
 * mm: one task per recorded thread, each performing its operations in
 * order — mmap and friends through the simulated mm, faults as real
 * touches through the fault source — where the plan (workloads/replay.h)
 * put them in the arena, each after what it depends on.
 *
 * Metrics per iteration: operations/s (calls and faults replayed), faults
 * (touches)/s, operations/s per task, the seconds spent in each kind of
 * call (the slowest task's), and the elapsed time.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "sync/futex.h"
#include "sync/rcu.h"
#include "workloads/replay.h"
#include "workloads/workload.h"

enum { PH_MMAP, PH_MUNMAP, PH_MPROTECT, PH_OTHER };

struct rp_shared {
	struct rp_plan *p;
	unsigned long base;
	/* Per rank: 0 not done, 1 done, 2 not done and waited for. */
	_Atomic int *done;
	_Atomic int abort;               /* a task gave up: nobody waits */
	int32_t *vmas;                   /* --replay-log: VMAs after each */
};

static int rp_setup(struct sim_mm *mm, const struct wl_opts *o, int ntasks,
		    void **shared)
{
	struct rp_plan *p = (struct rp_plan *)o->replay;
	struct rp_shared *s;

	if (!p || ntasks != p->nthreads)
		return -EINVAL;
	if (mm->end - mm->base < p->arena_need)
		return -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->p = p;
	s->base = mm->base;
	s->done = calloc(p->nlayout + 1, sizeof(*s->done));
	if (p->log)
		s->vmas = calloc(p->nlayout + 1, sizeof(*s->vmas));
	if (!s->done || (p->log && !s->vmas)) {
		free(s->done);
		free(s);
		return -ENOMEM;
	}
	if (p->have_brk)
		sim_mm_set_brk_base(mm, mm->base + p->brk_off);
	*shared = s;
	return 0;
}

/* Wait until rank r is done: spin a little, then sleep on it (10 ms at a
 * time, to see a stop). 0, or -EINTR when the run or a task gave up. */
static int wait_rank(struct rp_shared *s, struct wl_task *t, uint32_t r)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	_Atomic int *w = &s->done[r];

	for (int spins = 0;
	     atomic_load_explicit(w, memory_order_acquire) != 1; spins++) {
		int v = 0;

		if (atomic_load_explicit(&s->abort, memory_order_relaxed) ||
		    wl_should_stop(t))
			return -EINTR;
		if (spins < 200) {
			cpu_relax();
			continue;
		}
		if (atomic_compare_exchange_strong(w, &v, 2) || v == 2)
			syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, 2, &tick,
				NULL, 0);
	}
	return 0;
}

static void done_rank(struct rp_shared *s, uint32_t r)
{
	if (atomic_exchange_explicit(&s->done[r], 1, memory_order_release) == 2)
		futex_wake(&s->done[r], INT_MAX);
}

/* --speed: sleep until the op's recorded time (scaled) since start. */
static void pace(const struct rp_plan *p, const struct rp_op *op,
		 const struct timespec *start)
{
	struct timespec at = *start;
	uint64_t ns = (uint64_t)(op->t_ns / p->speed);

	at.tv_sec += (time_t)(ns / 1000000000);
	at.tv_nsec += (long)(ns % 1000000000);
	if (at.tv_nsec >= 1000000000) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000;
	}
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
}

static int count_vma(struct sim_vma *v, void *arg)
{
	(*(int32_t *)arg)++;
	return 0;
}

/* VMAs of the cluster at arena offset off, after an operation. */
static int32_t cluster_vmas(struct sim_mm *mm, const struct rp_plan *p,
			    unsigned long off)
{
	int32_t n = 0;

	for (int i = 0; i < p->ncl; i++) {
		const struct rp_cluster *c = &p->cl[i];

		if (off < c->off || off >= c->off + (c->end - c->start))
			continue;
		sim_rcu_read_lock();
		vma_tree_for_each(&mm->tree, mm->base + c->off,
				  mm->base + c->off + (c->end - c->start),
				  count_vma, &n);
		sim_rcu_read_unlock();
		break;
	}
	return n;
}

static int map_flags(const struct rp_op *op, bool fixed)
{
	int f = (op->flags & 3) == MAP_PRIVATE ? MAP_PRIVATE : MAP_SHARED;

	if (op->file < 0)
		f |= MAP_ANONYMOUS;
	return f | (fixed ? MAP_FIXED : 0) | (op->flags & MAP_POPULATE);
}

/* An mmap where the recording had it: as a hint (the kernel's path for a
 * free hint), or MAP_FIXED when the program asked for that or the hint
 * is taken in the simulation (which then counts a divergence). */
static int do_mmap(struct sim_mm *mm, const struct rp_op *op,
		   unsigned long addr, unsigned long len, unsigned long pgoff)
{
	unsigned long out;
	int ret = sim_do_mmap(mm, addr, len, op->prot, map_flags(op, op->fixed),
			      op->file, pgoff, &out);

	if (ret || out == addr)
		return ret;
	sim_do_munmap(mm, out, len);
	ret = sim_do_mmap(mm, addr, len, op->prot, map_flags(op, true),
			  op->file, pgoff, &out);
	return ret ? ret : -EADDRINUSE;
}

/* mremap, as the layout change it makes: in place, a shrink unmaps the
 * tail and a growth maps the extension (which merges); a move maps the
 * new place and unmaps the old (pages are not carried: docs/trace.md). */
static int do_mremap(struct sim_mm *mm, const struct rp_op *op,
		     unsigned long base)
{
	unsigned long a = base + op->off, na = base + op->off2;
	int ret;

	if (a == na && op->len2 < op->len)
		return sim_do_munmap(mm, a + op->len2, op->len - op->len2);
	if (a == na)
		return op->len2 == op->len ? 0 :
		       do_mmap(mm, op, a + op->len, op->len2 - op->len,
			       op->pgoff + op->len / 4096);
	ret = do_mmap(mm, op, na, op->len2, op->pgoff);
	return ret ? ret : sim_do_munmap(mm, a, op->len);
}

/* One call; its phase. 0, or what the simulation said. */
static int do_call(struct sim_mm *mm, const struct rp_op *op,
		   unsigned long base, int *phase)
{
	unsigned long a = base + op->off, out;

	*phase = PH_OTHER;
	switch (op->kind) {
	case TR_MMAP:
		*phase = PH_MMAP;
		return do_mmap(mm, op, a, op->len, op->pgoff);
	case TR_MUNMAP:
		*phase = PH_MUNMAP;
		return sim_do_munmap(mm, a, op->len);
	case TR_MPROTECT:
		*phase = PH_MPROTECT;
		return sim_do_mprotect(mm, a, op->len, op->prot);
	case TR_MADVISE:
		/* -ENOMEM: part of the range unmapped, the rest done. */
		return sim_do_madvise(mm, a, op->len, op->advice) == -EFAULT ?
		       -EFAULT : 0;
	case TR_MREMAP:
		return do_mremap(mm, op, base);
	case TR_BRK:
		return sim_do_brk(mm, base + op->off2, &out);
	default:
		return -EINVAL;
	}
}

/* A layout operation, after its dependencies; done for its dependants
 * whatever the simulation made of it. */
static int do_layout(struct wl_task *t, struct rp_shared *s,
		     const struct rp_op *op)
{
	const uint32_t *deps = s->p->deps + op->dep0;
	double t0;
	int phase, ret;

	for (uint32_t i = 0; i < op->ndeps; i++)
		if (wait_rank(s, t, deps[i]))
			return -EINTR;
	t0 = mono_s();
	ret = do_call(t->mm, op, s->base, &phase);
	t->phase[phase] += mono_s() - t0;
	if (ret)
		atomic_fetch_add_explicit(&s->p->diverged, 1,
					  memory_order_relaxed);
	if (s->vmas)
		s->vmas[op->rank] = cluster_vmas(t->mm, s->p, op->off);
	done_rank(s, op->rank);
	return 0;
}

static int rp_task(struct wl_task *t)
{
	struct rp_shared *s = t->shared;
	const struct rp_thread *th = &s->p->th[t->id];
	struct timespec start;
	unsigned char v = 1;
	int ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (size_t i = 0; i < th->n && !ret; i++) {
		const struct rp_op *op = &th->ops[i];

		if (op->skip)
			continue;
		if (wl_should_stop(t)) {
			ret = -EINTR;
			break;
		}
		if (s->p->speed > 0)
			pace(s->p, op, &start);
		if (op->kind != TR_FAULT)
			ret = do_layout(t, s, op);
		else if (op->rank == RP_NONE || !(ret = wait_rank(s, t, op->rank)))
			wl_touch(t, s->base + op->off, op->write, &v);
		wl_add_ops(t, 1);
	}
	if (ret)
		atomic_store(&s->abort, 1);
	return ret;
}

/* --replay-log: one line per layout operation, in rank order. */
static void write_log(const struct rp_shared *s)
{
	FILE *f = fopen(s->p->log, "w");

	if (!f) {
		fprintf(stderr, "vmsim: replay: cannot write %s\n", s->p->log);
		return;
	}
	fprintf(f, "# rank thread kind recorded_address vmas_in_cluster\n");
	for (int k = 0; k < s->p->nthreads; k++)
		for (size_t i = 0; i < s->p->th[k].n; i++) {
			const struct rp_op *op = &s->p->th[k].ops[i];

			if (op->kind != TR_FAULT && !op->skip)
				fprintf(f, "%u %d %s 0x%lx %d\n", op->rank, k,
					trace_kind_name(op->kind), op->rec,
					s->vmas[op->rank]);
		}
	fclose(f);
}

/* Back to an empty address space for the next iteration. */
static void rp_teardown(struct sim_mm *mm, const struct wl_opts *o,
			void *shared)
{
	struct rp_shared *s = shared;
	unsigned long out;

	if (s->vmas)
		write_log(s);
	sim_do_brk(mm, mm->start_brk, &out);
	sim_do_munmap(mm, mm->base, mm->end - mm->base);
	free(s->vmas);
	free(s->done);
	free(s);
}

static void rp_report(const struct wl_iter *it, double *v)
{
	double el = it->elapsed > 0 ? it->elapsed : 1e-9;

	v[0] = it->ops / el;
	v[1] = it->touches / el;
	v[2] = v[0] / (it->ntasks ? it->ntasks : 1);
	for (int i = 0; i <= PH_OTHER; i++)
		v[3 + i] = it->phase[i];
	v[7] = it->elapsed;
}

const struct workload replay_workload = {
	.name = "replay",
	.desc = "a recorded program (vmsim record; --trace FILE): one task per "
		"recorded thread",
	.concurrent_writes = true,
	.options = WL_OPT_TRACE,
	.nmetrics = 8,
	.metrics = {
		{ "ops/sec", "ops/s", true, true },
		{ "faults/sec", "faults/s", true, false },
		{ "ops/sec/task", "ops/s", true, false },
		{ "mmap", "s", false, false },
		{ "munmap", "s", false, false },
		{ "mprotect", "s", false, false },
		{ "other", "s", false, false },
		{ "time", "s", false, false },
	},
	.setup = rp_setup,
	.task = rp_task,
	.teardown = rp_teardown,
	.report = rp_report,
};
