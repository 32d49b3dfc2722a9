/* SPDX-License-Identifier: MIT */
/*
 * The replay's check mode (--replay-log FILE): every event in the
 * recorded order, one at a time, so that what each did is its own — the
 * VMAs of its cluster after a call, whether a fault faulted — and a log
 * a test compares with what the recorded program saw.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "locks/sync/futex.h"
#include "locks/sync/rcu.h"
#include "base/clock.h"
#include "workloads/replay_int.h"

int rp_check_turn(struct rp_shared *s, struct wl_task *t, uint32_t seq)
{
	int v;

	while ((v = atomic_load_explicit(&s->turn, memory_order_acquire)) !=
	       (int)seq) {
		if (atomic_load_explicit(&s->abort, memory_order_relaxed) ||
		    wl_should_stop(t))
			return -1;
		futex_wait_tick(&s->turn, v);
	}
	return 0;
}

void rp_check_next(struct rp_shared *s)
{
	atomic_fetch_add_explicit(&s->turn, 1, memory_order_release);
	futex_wake(&s->turn, INT_MAX);
}

uint64_t rp_fault_total(struct sim_mm *mm)
{
	uint64_t n[SIM_FAULT_NKINDS], sum = 0;

	sim_mm_fault_counts(mm, n);
	for (int k = 0; k < SIM_FAULT_NKINDS; k++)
		sum += n[k];
	return sum;
}

/* A uffd handler counts a fault just after it woke the toucher: give it
 * 5 ms to show before calling the touch fault-free. */
int32_t rp_faulted(struct sim_mm *mm, uint64_t c0)
{
	double until = mono_s() + 0.005;
	uint64_t c;

	while ((c = rp_fault_total(mm)) == c0 && mono_s() < until)
		;
	return (int32_t)(c - c0);
}

static int count_vma(struct sim_vma *v, void *arg)
{
	(*(int32_t *)arg)++;
	return 0;
}

int32_t rp_cluster_vmas(struct sim_mm *mm, const struct rp_plan *p,
			unsigned long off)
{
	int32_t n = 0;

	for (int i = 0; i < p->ncl; i++) {
		const struct rp_cluster *c = &p->cl[i];
		unsigned long lo = mm->base + c->off;

		if (off < c->off || off >= c->off + (c->end - c->start))
			continue;
		sim_rcu_read_lock();
		vma_tree_for_each(&mm->tree, lo, lo + (c->end - c->start),
				  count_vma, &n);
		sim_rcu_read_unlock();
		break;
	}
	return n;
}

struct log_ctx {
	const struct rp_shared *s;
	const struct rp_op **by_seq;
	const int *who;
};

static int emit_log(FILE *f, void *arg)
{
	const struct log_ctx *c = arg;
	const struct rp_plan *p = c->s->p;

	fprintf(f, "%s recorded_us ran_us (a call: VMAs in its cluster after "
		"it; a fault: 1 if it faulted; the times since the trace's and "
		"the task's start)\n", RP_LOG_HEADER);
	for (uint64_t q = 0; q < p->events; q++)
		if (c->by_seq[q] && c->s->val[q] >= 0)
			fprintf(f, "%llu %d %s 0x%lx %d %.1f %.1f\n",
				(unsigned long long)q, c->who[q],
				trace_kind_name(c->by_seq[q]->kind),
				c->by_seq[q]->rec, c->s->val[q],
				(double)c->by_seq[q]->t_ns / 1e3,
				(double)c->s->ran_ns[q] / 1e3);
	return 0;
}

void rp_check_write_log(const struct rp_shared *s)
{
	struct rp_plan *p = s->p;
	const struct rp_op **by_seq = calloc(p->events + 1, sizeof(*by_seq));
	int *who = calloc(p->events + 1, sizeof(*who));
	struct log_ctx c = { s, by_seq, who };

	if (!by_seq || !who) {
		p->log_err = -ENOMEM;
		goto out;
	}
	for (int k = 0; k < p->nthreads; k++)
		for (size_t i = 0; i < p->th[k].n; i++) {
			by_seq[p->th[k].ops[i].seq] = &p->th[k].ops[i];
			who[p->th[k].ops[i].seq] = k;
		}
	p->log_err = p->log_emit(p->log_out, emit_log, &c);
	if (p->log_err > 0)
		p->log_err = 0;              /* under $TMPDIR: said at commit */
out:
	free(by_seq);
	free(who);
}
