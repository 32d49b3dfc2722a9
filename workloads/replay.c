/* SPDX-License-Identifier: MIT */
/*
 * replay — a recorded program (vmsim record) run against the simulated
 * mm: one task per recorded thread, each performing its operations in
 * order — mmap and friends through the simulated mm, faults as real
 * touches through the fault source — where the plan (workloads/replay.h)
 * put them in the arena, each after what it depends on.
 *
 * Metrics per iteration: operations/s (calls and faults replayed), faults
 * (touches)/s, operations/s per task, the milliseconds spent in each
 * kind of call (the slowest task's), and the elapsed time in seconds.
 */
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "locks/sync/futex.h"
#include "workloads/replay_int.h"
#include "workloads/workload.h"

enum { PH_MMAP, PH_MUNMAP, PH_MPROTECT, PH_OTHER };

static void rp_shared_free(struct rp_shared *s)
{
	free(s->val);
	free(s->ran_ns);
	free(s->done);
	free(s->progress);
	free(s->waiting);
	free(s);
}

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
	s->progress = calloc((size_t)p->nthreads, sizeof(*s->progress));
	s->waiting = calloc((size_t)p->nthreads, sizeof(*s->waiting));
	if (p->log_out) {
		s->val = calloc(p->events + 1, sizeof(*s->val));
		s->ran_ns = calloc(p->events + 1, sizeof(*s->ran_ns));
	}
	if (!s->done || !s->progress || !s->waiting ||
	    (p->log_out && (!s->val || !s->ran_ns))) {
		rp_shared_free(s);
		return -ENOMEM;
	}
	if (p->have_brk)
		sim_mm_set_brk_base(mm, mm->base + p->brk_off);
	*shared = s;
	return 0;
}

/* One round of a wait: -EINTR when the run or a task gave up; 1 after
 * a short spin (the first 200 rounds); 0 when it is time to sleep. */
static int wait_round(struct rp_shared *s, struct wl_task *t, int *spins)
{
	if (atomic_load_explicit(&s->abort, memory_order_relaxed) ||
	    wl_should_stop(t))
		return -EINTR;
	if ((*spins)++ < 200) {
		cpu_relax();
		return 1;
	}
	return 0;
}

/* Wait until rank r is done: spin a little, then sleep on it (10 ms at a
 * time, to see a stop). 0, or -EINTR when the run or a task gave up. */
static int wait_rank(struct rp_shared *s, struct wl_task *t, uint32_t r)
{
	_Atomic int *w = &s->done[r];
	int spins = 0, ret, v;

	while (atomic_load_explicit(w, memory_order_acquire) != 1) {
		if ((ret = wait_round(s, t, &spins)) < 0)
			return ret;
		if (ret)
			continue;
		v = 0;
		if (atomic_compare_exchange_strong(w, &v, 2) || v == 2)
			futex_wait_tick(w, 2);
	}
	return 0;
}

/* Wait until thread k has done more than idx ops (its faults in a
 * call's range). A thread publishes its progress only after the ops
 * another's call waits for (rp_op.waited): one store, not one an op.
 * 0, or -EINTR. */
static int wait_progress(struct rp_shared *s, struct wl_task *t, uint32_t k,
			 uint32_t idx)
{
	int spins = 0, ret, v;

	while ((v = atomic_load(&s->progress[k])) <= (int)idx) {
		if ((ret = wait_round(s, t, &spins)) < 0)
			return ret;
		if (ret)
			continue;
		/* Seq-cst store, then load: the thread's store of its
		 * progress and load of waiting cannot both miss. */
		atomic_store(&s->waiting[k], 1);
		if (atomic_load(&s->progress[k]) == v)
			futex_wait_tick(&s->progress[k], v);
	}
	return 0;
}

static void done_op(struct rp_shared *s, int k, size_t n)
{
	atomic_store(&s->progress[k], (int)n);
	if (atomic_load_explicit(&s->waiting[k], memory_order_relaxed) &&
	    atomic_exchange(&s->waiting[k], 0))
		futex_wake(&s->progress[k], INT_MAX);
}

static void done_rank(struct rp_shared *s, uint32_t r)
{
	if (atomic_exchange_explicit(&s->done[r], 1, memory_order_release) == 2)
		futex_wake(&s->done[r], INT_MAX);
}

/* A paced task sleeps at most this long between looks at the stop flag
 * (a trace's gap may be hours: an interrupt is acted on at once). */
#define PACE_SLICE_NS 20000000LL

/* --speed: sleep until the op's recorded time (scaled) since start, or
 * until the task is told to stop. */
static void pace(const struct wl_task *t, const struct rp_plan *p,
		 const struct rp_op *op, const struct timespec *start)
{
	double ns = (double)op->t_ns / p->speed;
	struct timespec at = *start, now;

	/* Past a century a gap is no time the run will reach. */
	if (!(ns < 3.2e18))
		ns = 3.2e18;
	at.tv_sec += (time_t)(ns / 1e9);
	at.tv_nsec += (long)fmod(ns, 1e9);
	if (at.tv_nsec >= 1000000000) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000;
	}
	while (!wl_should_stop(t)) {
		struct timespec nap;
		long long left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = at.tv_sec - now.tv_sec > 1 ? PACE_SLICE_NS :
		       (long long)(at.tv_sec - now.tv_sec) * 1000000000LL +
		       (at.tv_nsec - now.tv_nsec);
		if (left <= 0)
			return;
		if (left > PACE_SLICE_NS)
			left = PACE_SLICE_NS;
		nap.tv_sec = 0;
		nap.tv_nsec = (long)left;
		nanosleep(&nap, NULL);
	}
}

static int map_flags(const struct rp_op *op, bool fixed)
{
	int f = (op->flags & 3) == MAP_PRIVATE ? MAP_PRIVATE : MAP_SHARED;

	if (op->file < 0)
		f |= MAP_ANONYMOUS;
	return f | (fixed ? MAP_FIXED : 0) |
	       (op->flags & (MAP_POPULATE | MAP_NORESERVE | MAP_STACK));
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
	const struct rp_tdep *td = s->p->tdeps + op->tdep0;
	uint64_t c0, ns;
	int phase, ret;

	for (uint32_t i = 0; i < op->ndeps; i++)
		if (wait_rank(s, t, deps[i]))
			return -EINTR;
	for (uint32_t i = 0; i < op->ntdeps; i++)
		if (wait_progress(s, t, td[i].thread, td[i].idx))
			return -EINTR;
	c0 = cycles_now();
	ret = do_call(t->mm, op, s->base, &phase);
	ns = cycles_to_ns(cycles_now() - c0, t->ns_per_cycle);
	t->phase[phase] += ns / 1e6;   /* ms: a few calls take microseconds */
	hist_record(&t->call_lat, ns);
	if (ret)
		atomic_fetch_add_explicit(&s->p->diverged, 1,
					  memory_order_relaxed);
	if (s->val)
		s->val[op->seq] = rp_cluster_vmas(t->mm, s->p, op->off);
	done_rank(s, op->rank);
	return 0;
}

/* One fault: a touch, after the call that last changed its page. */
static int do_fault(struct wl_task *t, struct rp_shared *s,
		    const struct rp_op *op)
{
	unsigned char v = 1;
	uint64_t c0 = 0;
	int ret = 0;

	if (op->rank != RP_NONE && (ret = wait_rank(s, t, op->rank)))
		return ret;
	if (s->val)
		c0 = rp_fault_total(t->mm);
	wl_touch_flags(t, s->base + op->off,
		       (op->write ? FAULT_FLAG_WRITE : 0) |
		       (op->kernel ? FAULT_FLAG_KERNEL : 0), &v);
	if (s->val)
		s->val[op->seq] = rp_faulted(t->mm, c0);
	return 0;
}

static int rp_task(struct wl_task *t)
{
	struct rp_shared *s = t->shared;
	const struct rp_thread *th = &s->p->th[t->id];
	struct timespec start;
	int ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (size_t i = 0; i < th->n && !ret; i++) {
		const struct rp_op *op = &th->ops[i];

		if (wl_should_stop(t) ||
		    (s->val && rp_check_turn(s, t, op->seq))) {
			ret = -EINTR;
			break;
		}
		if (op->skip) {
			if (s->val)
				s->val[op->seq] = -1;
		} else {
			if (s->p->speed > 0) {
				pace(t, s->p, op, &start);
				if (wl_should_stop(t)) {
					ret = -EINTR;
					break;
				}
			}
			if (s->ran_ns) {
				struct timespec now;

				clock_gettime(CLOCK_MONOTONIC, &now);
				s->ran_ns[op->seq] = (now.tv_sec - start.tv_sec) *
					1000000000LL + (now.tv_nsec - start.tv_nsec);
			}
			ret = op->kind == TR_FAULT ? do_fault(t, s, op)
						   : do_layout(t, s, op);
			wl_add_ops(t, 1);
		}
		if (op->waited)              /* someone waits for it */
			done_op(s, t->id, i + 1);
		if (s->val)
			rp_check_next(s);
	}
	if (ret)
		atomic_store(&s->abort, 1);
	return ret;
}

/* Back to an empty address space for the next iteration. */
static void rp_teardown(struct sim_mm *mm, const struct wl_opts *o,
			void *shared)
{
	struct rp_shared *s = shared;
	struct lockstat_totals t0[2], t1[2];
	unsigned long out;
	/* The host kernel's target has no lock class of vmsim's. */
	bool counted = mm->lock->nclasses > 0;

	if (s->val)
		rp_check_write_log(s);
	/* Counted apart (sim_mm's untimed_lock): the program never made
	 * these two calls. */
	for (int k = 0; k < 2 && counted; k++)
		lockstat_sum(mm->lock->classes[0], k, &t0[k]);
	/* Only a trace with brk moved a break, and then the one placed in
	 * the arena (sim_mm_set_brk_base): on the kernel column a trace
	 * without brk has the host's own break, vmsim's heap, which
	 * moving back to where it was at set-up would cut from under
	 * malloc (issue 64: a renderer's replay crashed in free()). */
	if (s->p->have_brk)
		sim_do_brk(mm, mm->start_brk, &out);
	sim_do_munmap(mm, mm->base, mm->end - mm->base);
	for (int k = 0; k < 2 && counted; k++) {
		lockstat_sum(mm->lock->classes[0], k, &t1[k]);
		atomic_fetch_add_explicit(&mm->untimed_lock[k],
					  t1[k].acquisitions - t0[k].acquisitions,
					  memory_order_relaxed);
	}
	rp_shared_free(s);
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
	.test_args = "-i 1 --trace @TRACES@/sort.trace",
	.desc = "a recorded program (vmsim record; --trace FILE): one task per "
		"recorded thread",
	.concurrent_writes = true,
	.options = WL_OPT_TRACE,
	.nmetrics = 8,
	.metrics = {
		{ "ops/sec", "ops/s", true, true },
		{ "faults/sec", "faults/s", true, false },
		{ "ops/sec/task", "ops/s", true, false },
		{ "mmap", "ms/pass", false, false },
		{ "munmap", "ms/pass", false, false },
		{ "mprotect", "ms/pass", false, false },
		{ "other", "ms/pass", false, false },
		{ "time", "s", false, false },
	},
	.setup = rp_setup,
	.task = rp_task,
	.teardown = rp_teardown,
	.report = rp_report,
};
