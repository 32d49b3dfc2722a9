/* SPDX-License-Identifier: MIT */
/*
 * The result model: what one run measured, in memory — samples per
 * metric and task count, their flags and noise, and the counters of the
 * mms that measured them. No JSON here (resfile/results_json.c writes it).
 */
#include "sim/result.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

int res_point_reserve(struct res_point *p, int n)
{
	/* All metrics grow together; sample index = nsamples of metric 0. */
	if (n <= p->cap)
		return 0;
	for (int i = 0; i < RES_MAX_METRICS + 2; i++) {
		double **arr = i < RES_MAX_METRICS ? &p->samples[i] :
			       i == RES_MAX_METRICS ? &p->wall : &p->cpu;
		double *a = realloc(*arr, sizeof(double) * (size_t)n);

		if (!a)
			return -ENOMEM;
		*arr = a;
	}
	{
		unsigned char *f = realloc(p->flag, (size_t)n);
		struct res_noise *z;

		if (!f)
			return -ENOMEM;
		p->flag = f;
		z = realloc(p->noise, sizeof(*z) * (size_t)n);
		if (!z)
			return -ENOMEM;
		p->noise = z;
	}
	p->cap = n;
	return 0;
}

void res_point_note(struct res_point *p, double wall, double cpu,
		    enum res_flag flag, const struct res_noise *noise)
{
	if (p->nsamples >= p->cap)
		return;                  /* res_point_add() failed before */
	p->wall[p->nsamples] = wall;
	p->cpu[p->nsamples] = cpu;
	p->flag[p->nsamples] = (unsigned char)flag;
	p->noise[p->nsamples] = noise ? *noise :
		(struct res_noise){ NAN, NAN, NAN, NAN };
	/* The clock's tick rounds a short sample's figures either way. */
	if (p->noise[p->nsamples].others < 0)
		p->noise[p->nsamples].others = 0;
	if (p->noise[p->nsamples].steal < 0)
		p->noise[p->nsamples].steal = 0;
}

int res_point_nflagged(const struct res_point *p)
{
	int n = 0;

	for (int i = 0; i < p->nsamples; i++)
		n += p->flag[i] != RES_FLAG_NONE;
	return n;
}

const char *res_flag_reason(enum res_flag f)
{
	switch (f) {
	case RES_FLAG_STOPPED:
		return "vmsim was stopped (SIGSTOP or SIGTSTP) while it was taken";
	case RES_FLAG_STARVED:
		return "its wall time is over 3x the median while its CPU time per "
		       "second is under a third of the median's: its tasks were "
		       "not running (stopped or starved)";
	case RES_FLAG_OVERSLEPT:
		return "its sampling interval lasted over 1.5x --interval: vmsim "
		       "was stopped or starved";
	default:
		return "";
	}
}

int res_point_add(struct res_point *p, int m, double v)
{
	if (p->nsamples >= p->cap &&
	    res_point_reserve(p, p->cap ? p->cap * 2 : 16))
		return -ENOMEM;
	p->samples[m][p->nsamples] = v;
	return 0;
}

/* The page allocator's locks, after the scheme's. */
void res_frames_classes(struct res_counters *c, const struct sim_mm *mm)
{
	struct lockstat_class *fc[2] = { mm->fstat.zone, mm->fstat.pcp };
	int n = mm->cfg.frames && mm->cfg.frames->mode == FRAMES_PCP ? 2 : 1;

	for (int k = 0; mm->cfg.frames && k < n && c->nclasses < LOCK_MAX_CLASSES;
	     k++) {
		struct res_lockclass *rc = &c->classes[c->nclasses++];

		snprintf(rc->name, sizeof(rc->name), "%s", fc[k]->name);
		for (int s = 0; s < LS_NSIDES; s++)
			lockstat_sum(fc[k], s, &rc->side[s]);
	}
}

/* The slab caches' locks, after those. */
void res_slab_classes(struct res_counters *c, const struct sim_mm *mm)
{
	struct lockstat_class *sc[2] = { mm->sstat.list_lock, mm->sstat.barn_lock };
	int n = !mm->cfg.slab_vma ? 0 : mm->cfg.slab_vma->kind == SLAB_SHEAVES ? 2 : 1;

	for (int k = 0; k < n && c->nclasses < LOCK_MAX_CLASSES; k++) {
		struct res_lockclass *rc = &c->classes[c->nclasses++];

		snprintf(rc->name, sizeof(rc->name), "%s", sc[k]->name);
		for (int s = 0; s < LS_NSIDES; s++)
			lockstat_sum(sc[k], s, &rc->side[s]);
	}
}


bool res_host_compare(const struct res_point *p, const struct res_host_lock *h,
		      struct res_host_cmp *out)
{
	const struct res_lockclass *k = NULL;

	for (int i = 0; !k && i < p->c.nclasses; i++)
		if (!strcmp(p->c.classes[i].name, "mmap_lock") ||
		    !strcmp(p->c.classes[i].name, "range_lock"))
			k = &p->c.classes[i];
	/* Per pass of the workload (a replay of the whole trace): the
	 * counters cover every pass, warm-up included. */
	int runs = p->runs > 0 ? p->runs : p->nsamples;

	if (!h->have || !k || runs <= 0)
		return false;
	out->cls = k->name;
	for (int s = 0; s < LS_NSIDES; s++) {
		uint64_t n = k->side[s].acquisitions;

		/* The replay's own teardown between passes: not the program's. */
		if (k == &p->c.classes[0] && p->c.untimed_lock[s] <= n)
			n -= p->c.untimed_lock[s];
		out->acquired[s] = (double)n / runs;
		out->contended[s] = (double)k->side[s].contentions / runs;
		out->ratio[s] = h->acquired[s] ?
				out->acquired[s] / (double)h->acquired[s] : NAN;
		out->ratio_rep[s] = h->have_causes && h->replayable[s] ?
				    out->acquired[s] / (double)h->replayable[s] :
				    NAN;
	}
	return true;
}

void res_counters_collect(struct res_counters *c, struct sim_mm *mm)
{
	struct lock_inst *l = mm->lock;

	memset(c, 0, sizeof(*c));
	sim_mm_fault_counts(mm, c->faults);
	c->vmas = vma_tree_count(&mm->tree);
	c->mapped_pages = atomic_load_explicit(&mm->map_pages,
					       memory_order_relaxed);
	c->resident_pages = sim_mm_resident(mm);
	c->populated = atomic_load_explicit(&mm->populated, memory_order_relaxed);
	for (int s = 0; s < 2; s++)
		c->untimed_lock[s] = atomic_load_explicit(&mm->untimed_lock[s],
							  memory_order_relaxed);
	if (mm->src->ops->counters)
		c->nsrc = mm->src->ops->counters(mm->src, c->src_names,
						  c->src_values);
	c->slots = (uint64_t)mm->faults.n;
	c->fault_pages = sim_mm_fault_pages(mm);
	for (int k = 0; k < SIM_SRC_NOPS; k++) {
		c->src_err[k] = atomic_load_explicit(&mm->src_err.n[k],
						     memory_order_relaxed);
		c->src_errno[k] = atomic_load_explicit(&mm->src_err.first[k],
						       memory_order_relaxed);
	}
	{
		uint64_t w, h;

		sim_mm_fault_lock_time(mm, &w, &h);
		c->lock_wait_ns = (double)w * clock_ns_per_cycle();
		c->lock_hold_ns = (double)h * clock_ns_per_cycle();
	}
	for (int i = 0; i < l->nclasses && i < LOCK_MAX_CLASSES; i++) {
		struct res_lockclass *rc = &c->classes[i];

		snprintf(rc->name, sizeof(rc->name), "%s", l->classes[i]->name);
		for (int s = 0; s < LS_NSIDES; s++)
			lockstat_sum(l->classes[i], s, &rc->side[s]);
	}
	c->nclasses = l->nclasses < LOCK_MAX_CLASSES ? l->nclasses
						      : LOCK_MAX_CLASSES;
	res_frames_classes(c, mm);
	res_slab_classes(c, mm);
	if (l->ops->counters)
		c->ncounters = l->ops->counters(l, c->counter_names, c->counters);
	/* The validate/retry contract: attempts the scheme sent back. */
	if (l->ops->fault_validate && c->ncounters < LOCK_MAX_COUNTERS) {
		c->counter_names[c->ncounters] = "fault_retry";
		c->counters[c->ncounters++] = atomic_load_explicit(
			&l->fault_retries, memory_order_relaxed);
	}
}

void res_counters_add(struct res_counters *a, const struct res_counters *b)
{
	for (int k = 0; k < SIM_FAULT_NKINDS; k++)
		a->faults[k] += b->faults[k];
	/* The same source names the same counters in the same order. */
	for (int i = 0; i < b->nsrc; i++) {
		a->src_names[i] = b->src_names[i];
		a->src_values[i] += b->src_values[i];
	}
	if (b->nsrc > a->nsrc)
		a->nsrc = b->nsrc;
	a->vmas += b->vmas;
	a->untimed_lock[0] += b->untimed_lock[0];
	a->untimed_lock[1] += b->untimed_lock[1];
	a->mapped_pages += b->mapped_pages;
	a->resident_pages += b->resident_pages;
	a->populated += b->populated;
	a->slots += b->slots;
	a->fault_pages += b->fault_pages;
	for (int k = 0; k < SIM_SRC_NOPS; k++) {
		a->src_err[k] += b->src_err[k];
		if (!a->src_errno[k])
			a->src_errno[k] = b->src_errno[k];
	}
	a->lock_wait_ns += b->lock_wait_ns;
	a->lock_hold_ns += b->lock_hold_ns;
	for (int i = 0; i < b->nclasses; i++) {
		snprintf(a->classes[i].name, sizeof(a->classes[i].name), "%s",
			 b->classes[i].name);
		for (int s = 0; s < LS_NSIDES; s++)
			lockstat_totals_add(&a->classes[i].side[s],
					    &b->classes[i].side[s]);
	}
	if (b->nclasses > a->nclasses)
		a->nclasses = b->nclasses;
	for (int i = 0; i < b->ncounters; i++) {
		a->counter_names[i] = b->counter_names[i];
		a->counters[i] += b->counters[i];
	}
	if (b->ncounters > a->ncounters)
		a->ncounters = b->ncounters;
}

void res_point_free(struct res_point *p)
{
	for (int m = 0; m < RES_MAX_METRICS; m++)
		free(p->samples[m]);
	free(p->wall);
	free(p->cpu);
	free(p->flag);
	free(p->noise);
	free(p->lat);
	free(p->call_lat);
	memset(p, 0, sizeof(*p));
}

void res_file_free(struct res_file *r)
{
	for (int i = 0; i < r->npoints; i++)
		res_point_free(&r->points[i]);
	free(r->points);
	r->points = NULL;
	r->npoints = 0;
}

uint64_t res_source_counter(const struct res_counters *c, const char *name)
{
	for (int i = 0; i < c->nsrc; i++)
		if (!strcmp(c->src_names[i], name))
			return c->src_values[i];
	return 0;
}

uint64_t res_faults(const struct res_counters *c)
{
	uint64_t n = 0;

	for (int k = 0; k < SIM_FAULT_NKINDS; k++)
		n += c->faults[k];
	return n;
}

bool res_fault_split(const struct res_point *p, struct res_fault_split *out)
{
	uint64_t faults = res_faults(&p->c);

	if (!faults || !p->lat || !p->lat->count)
		return false;
	/* Over every pass, as the counters are: the warm-up's touches too. */
	out->mean = ((double)p->lat->sum_ns + p->warm_lat_ns) / (double)faults;
	out->lock_wait = p->c.lock_wait_ns / (double)faults;
	out->lock_hold = p->c.lock_hold_ns / (double)faults;
	out->rest = out->mean - out->lock_wait - out->lock_hold;
	if (out->rest < 0)
		out->rest = 0;
	out->lock_share = out->mean > 0 ?
		(out->lock_wait + out->lock_hold) / out->mean : 0;
	return true;
}

