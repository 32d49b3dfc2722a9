/* SPDX-License-Identifier: MIT */
#include "report/results.h"
#include "report/results_int.h"
#include "report/stats.h"

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
		(struct res_noise){ NAN, NAN, NAN };
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void res_shape_of(const double *x, int n, struct res_shape *out)
{
	double s[64], d[64], med, mad, gap = 0;
	int cut = 0;

	memset(out, 0, sizeof(*out));
	if (n > 64)
		n = 64;
	if (n < 3)
		return;
	memcpy(s, x, sizeof(double) * (size_t)n);
	qsort(s, (size_t)n, sizeof(double), cmp_double);
	med = stats_median(s, (size_t)n);
	for (int i = 0; i < n; i++)
		d[i] = fabs(s[i] - med);
	mad = stats_median(d, (size_t)n);
	for (int i = 0; i < n && mad > 0; i++)
		if (fabs(x[i] - med) > 3.5 * 1.4826 * mad) {
			out->outlier[i] = true;
			out->noutliers++;
		}
	/* Two groups: the widest gap between neighbours, sorted. */
	for (int i = 1; i < n; i++)
		if (s[i] - s[i - 1] > gap) {
			gap = s[i] - s[i - 1];
			cut = i;
		}
	if (cut >= 2 && n - cut >= 2) {
		double lo = s[cut - 1] - s[0], hi = s[n - 1] - s[cut];

		out->bimodal = gap > 2 * (lo > hi ? lo : hi) &&
			       gap > 0.05 * fabs(med);
	}
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
	mm->src->ops->counters(mm->src, &c->uffd);
	c->uffds = mm->src->ops->nfds ? (uint64_t)mm->src->ops->nfds(mm->src) : 0;
	c->handlers = (uint64_t)mm->src->ops->nhandlers(mm->src);
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
	uffd_counters_add(&a->uffd, &b->uffd);
	a->vmas += b->vmas;
	a->mapped_pages += b->mapped_pages;
	a->resident_pages += b->resident_pages;
	a->populated += b->populated;
	a->uffds += b->uffds;
	a->handlers += b->handlers;
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
	json_object_put(r->options);
	r->options = NULL;
	json_object_put(r->command);
	r->command = NULL;
}

static json_object *hist_json(const uint64_t *h)
{
	json_object *a = json_object_new_array();
	int last = LOCKSTAT_HIST - 1;

	while (last >= 0 && !h[last])
		last--;
	for (int i = 0; i <= last; i++)
		json_object_array_add(a, json_object_new_int64((int64_t)h[i]));
	return a;
}

#define JADD(o, k, v) json_object_object_add((o), (k), (v))
#define JU64(v) json_object_new_int64((int64_t)(v))

static json_object *lockside_json(const struct lockstat_totals *t)
{
	json_object *o = json_object_new_object();

	JADD(o, "acquisitions", JU64(t->acquisitions));
	JADD(o, "contentions", JU64(t->contentions));
	JADD(o, "wait_ns_total", JU64(t->wait_total));
	JADD(o, "wait_ns_max", JU64(t->wait_max));
	JADD(o, "hold_ns_total", JU64(t->hold_total));
	JADD(o, "hold_ns_max", JU64(t->hold_max));
	JADD(o, "wait_hist_log2ns", hist_json(t->wait_hist));
	JADD(o, "hold_hist_log2ns", hist_json(t->hold_hist));
	return o;
}

/* Every touch's latency: percentiles (log-linear histogram, < 1% off). */
static json_object *latency_json(const struct lat_hist *h)
{
	static const struct { const char *key; double q; } pct[] = {
		{ "p50", 0.50 }, { "p90", 0.90 }, { "p99", 0.99 },
		{ "p99_9", 0.999 },
	};
	json_object *o = json_object_new_object();

	JADD(o, "count", JU64(h->count));
	JADD(o, "mean", json_object_new_double(hist_mean(h)));
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		JADD(o, pct[i].key, json_object_new_double(hist_quantile(h, pct[i].q)));
	JADD(o, "max", JU64(h->max_ns));
	return o;
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
	out->mean = (double)p->lat->sum_ns / (double)faults;
	out->lock_wait = p->c.lock_wait_ns / (double)faults;
	out->lock_hold = p->c.lock_hold_ns / (double)faults;
	out->rest = out->mean - out->lock_wait - out->lock_hold;
	if (out->rest < 0)
		out->rest = 0;
	out->lock_share = out->mean > 0 ?
		(out->lock_wait + out->lock_hold) / out->mean : 0;
	return true;
}

static json_object *split_json(const struct res_fault_split *s)
{
	json_object *o = json_object_new_object();

	JADD(o, "mean", json_object_new_double(s->mean));
	JADD(o, "lock_wait", json_object_new_double(s->lock_wait));
	JADD(o, "lock_hold", json_object_new_double(s->lock_hold));
	JADD(o, "rest", json_object_new_double(s->rest));
	JADD(o, "lock_share", json_object_new_double(s->lock_share));
	return o;
}

static json_object *uffd_json(const struct res_counters *rc)
{
	const struct uffd_counters *c = &rc->uffd;
	json_object *o = json_object_new_object();

	JADD(o, "uffds", JU64(rc->uffds));
	JADD(o, "handlers", JU64(rc->handlers));
	JADD(o, "messages", JU64(c->messages));
	JADD(o, "reads", JU64(c->reads));
	JADD(o, "copy", JU64(c->copies));
	JADD(o, "zeropage", JU64(c->zeropages));
	JADD(o, "unprotect", JU64(c->unprotects));
	JADD(o, "wake", JU64(c->wakes));
	JADD(o, "refused", JU64(c->refused));
	JADD(o, "retries", JU64(c->retries));
	JADD(o, "errors", JU64(c->errors));
	JADD(o, "read_errors", JU64(c->read_errors));
	JADD(o, "other_events", JU64(c->other_events));
	return o;
}

/* {"zap": {"failed": N, "first_error": "EINVAL"}, ...}: what the host
 * refused of the fault source's work. */
static json_object *source_errors_json(const struct res_counters *c)
{
	json_object *o = json_object_new_object();

	for (int k = 0; k < SIM_SRC_NOPS; k++) {
		json_object *e = json_object_new_object();
		const char *n = c->src_errno[k] ?
				strerrorname_np(c->src_errno[k]) : NULL;

		JADD(e, "failed", JU64(c->src_err[k]));
		JADD(e, "first_error", n ? json_object_new_string(n) : NULL);
		JADD(o, sim_src_op_name((enum sim_src_op)k), e);
	}
	return o;
}

/* The host kernel during the timed phases. */
static json_object *host_json(const struct res_point *p)
{
	json_object *o = json_object_new_object(), *calls, *vm;

	calls = json_object_new_object();
	for (int i = 0; i < HOST_NCALLS; i++)
		JADD(calls, host_call_name(i), JU64(p->host_calls[i]));
	JADD(o, "timed_phase_calls", calls);
	vm = json_object_new_object();
	for (int i = 0; i < p->vmstat.n; i++)
		JADD(vm, p->vmstat.name[i], JU64(p->vmstat.v[i]));
	JADD(o, "vmstat_delta", vm);
	return o;
}

/* The samples that are not measurements: which, why, and their times. */
static json_object *flagged_json(const struct res_point *p)
{
	json_object *fl = json_object_new_array();

	for (int i = 0; i < p->nsamples; i++) {
		json_object *e;

		if (p->flag[i] == RES_FLAG_NONE)
			continue;
		e = json_object_new_object();
		JADD(e, "sample", json_object_new_int(i + 1));
		JADD(e, "reason", json_object_new_string(
			res_flag_reason(p->flag[i])));
		JADD(e, "wall_s", json_object_new_double(p->wall[i]));
		if (isfinite(p->cpu[i]))
			JADD(e, "cpu_s", json_object_new_double(p->cpu[i]));
		json_object_array_add(fl, e);
	}
	return fl;
}

/* The machine per sample, and the shape of the primary metric's samples. */
static json_object *noise_json(const struct res_file *r,
			       const struct res_point *p)
{
	json_object *o = json_object_new_object(), *a[3], *out;
	struct res_shape sh;
	int m = 0;

	for (int k = 0; k < 3; k++)
		a[k] = json_object_new_array();
	for (int i = 0; i < p->nsamples; i++) {
		const double v[3] = { p->noise[i].steal, p->noise[i].others,
				      p->noise[i].ivcsw };

		for (int k = 0; k < 3; k++)
			json_object_array_add(a[k], isfinite(v[k]) ?
					      json_object_new_double(v[k]) : NULL);
	}
	JADD(o, "steal", a[0]);
	JADD(o, "others_cpus", a[1]);
	JADD(o, "ivcsw_per_s", a[2]);
	while (m < r->nmetrics - 1 && !r->metrics[m].primary)
		m++;
	res_shape_of(p->samples[m], p->nsamples, &sh);
	JADD(o, "metric", json_object_new_string(r->metrics[m].name));
	out = json_object_new_array();
	for (int i = 0; i < p->nsamples && i < 64; i++)
		if (sh.outlier[i])
			json_object_array_add(out, json_object_new_int(i + 1));
	JADD(o, "outliers", out);
	JADD(o, "bimodal", json_object_new_boolean(sh.bimodal));
	return o;
}

static json_object *point_json(const struct res_file *r,
			       const struct res_point *p)
{
	json_object *o = json_object_new_object(), *s, *f, *l;
	struct res_fault_split split;

	JADD(o, "tasks", json_object_new_int(p->tasks));
	s = json_object_new_object();
	for (int m = 0; m < r->nmetrics; m++) {
		json_object *a = json_object_new_array();

		for (int i = 0; i < p->nsamples; i++)
			json_object_array_add(a,
				json_object_new_double(p->samples[m][i]));
		JADD(s, r->metrics[m].name, a);
	}
	JADD(o, "samples", s);
	if (res_point_nflagged(p))
		JADD(o, "flagged", flagged_json(p));
	if (p->nsamples)
		JADD(o, "noise", noise_json(r, p));
	JADD(o, "touches", JU64(p->touches));
	JADD(o, "segv", JU64(p->segv));
	if (p->lat)
		JADD(o, "latency_ns", latency_json(p->lat));
	if (p->call_lat)
		JADD(o, "call_latency_ns", latency_json(p->call_lat));
	if (res_fault_split(p, &split))
		JADD(o, "fault_split_ns", split_json(&split));
	f = json_object_new_object();
	for (int k = 0; k < SIM_FAULT_NKINDS; k++)
		JADD(f, sim_fault_kind_name(k), JU64(p->c.faults[k]));
	JADD(o, "faults", f);
	JADD(o, "fault_pages", JU64(p->c.fault_pages));
	f = json_object_new_object();
	JADD(f, "vmas", JU64(p->c.vmas));
	JADD(f, "mapped_pages", JU64(p->c.mapped_pages));
	JADD(f, "resident_pages", JU64(p->c.resident_pages));
	JADD(f, "populated_pages", JU64(p->c.populated));
	JADD(o, "mm", f);
	if (r->fault_source && !strcmp(r->fault_source, "uffd"))
		JADD(o, "uffd", uffd_json(&p->c));
	JADD(o, "source_errors", source_errors_json(&p->c));
	JADD(o, "counter_slots", JU64(p->c.slots));
	if (p->has_frames) {
		f = json_object_new_object();
		for (int k = 0; k < FRAMES_NCOUNTERS; k++)
			JADD(f, frames_counter_name(k), JU64(p->frames[k]));
		JADD(o, "frames", f);
	}
	if (p->has_slab)
		JADD(o, "slab", res_slab_json(p));
	l = json_object_new_object();
	for (int i = 0; i < p->c.nclasses; i++) {
		json_object *c = json_object_new_object();

		JADD(c, "read", lockside_json(&p->c.classes[i].side[LS_READ]));
		JADD(c, "write", lockside_json(&p->c.classes[i].side[LS_WRITE]));
		JADD(l, p->c.classes[i].name, c);
	}
	JADD(o, "lockstat", l);
	if (p->c.ncounters) {
		json_object *c = json_object_new_object();

		for (int i = 0; i < p->c.ncounters; i++)
			JADD(c, p->c.counter_names[i], JU64(p->c.counters[i]));
		JADD(o, "scheme_counters", c);
	}
	JADD(o, "host", host_json(p));
	return o;
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (c && !strncmp(line, "model name", 10)) {
			c += 2;
			c[strcspn(c, "\n")] = 0;
			snprintf(buf, len, "%s", c);
			break;
		}
	}
	fclose(f);
}

static json_object *meta_json(const struct res_file *r)
{
	json_object *o = json_object_new_object();
	struct utsname u;
	char buf[256];
	time_t now = time(NULL);
	struct tm tm;

	uname(&u);
	JADD(o, "kernel", json_object_new_string(u.release));
	JADD(o, "machine", json_object_new_string(u.machine));
	cpu_model(buf, sizeof(buf));
	JADD(o, "cpu_model", json_object_new_string(buf));
	JADD(o, "cpus", json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	JADD(o, "numa_nodes", json_object_new_int(
		numa_available() < 0 ? 1 : numa_num_configured_nodes()));
	JADD(o, "vmsim_version", json_object_new_string(VMSIM_VERSION));
	JADD(o, "git_revision", json_object_new_string(VMSIM_GIT_REV));
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	JADD(o, "date", json_object_new_string(buf));
	if (r->host_wake_us > 0)
		JADD(o, "wake_us", json_object_new_double(r->host_wake_us));
	if (r->host_uffd_block_us > 0)
		JADD(o, "uffd_block_us", json_object_new_double(r->host_uffd_block_us));
	if (r->host_uffd_busy_us > 0)
		JADD(o, "uffd_busy_us", json_object_new_double(r->host_uffd_busy_us));
	return o;
}

json_object *res_to_json(const struct res_file *r)
{
	json_object *o = json_object_new_object(), *ms, *ps;

	JADD(o, "vmsim_result", json_object_new_int(RES_FORMAT_VERSION));
	JADD(o, "complete", json_object_new_boolean(r->complete));
	if (!r->complete && r->stopped[0])
		JADD(o, "stopped", json_object_new_string(r->stopped));
	JADD(o, "scheme", json_object_new_string(r->scheme));
	if (r->label && strcmp(r->label, r->scheme))
		JADD(o, "label", json_object_new_string(r->label));
	JADD(o, "workload", json_object_new_string(r->workload));
	JADD(o, "fault_source", json_object_new_string(r->fault_source));
	JADD(o, "meta", meta_json(r));
	if (r->command)
		JADD(o, "command", json_object_get(r->command));
	JADD(o, "options", r->options ? json_object_get(r->options)
				      : json_object_new_object());
	ms = json_object_new_object();
	for (int m = 0; m < r->nmetrics; m++) {
		json_object *d = json_object_new_object();

		JADD(d, "unit", json_object_new_string(r->metrics[m].unit));
		JADD(d, "better", json_object_new_string(
			r->metrics[m].higher_better ? "higher" : "lower"));
		JADD(d, "primary", json_object_new_boolean(r->metrics[m].primary));
		JADD(ms, r->metrics[m].name, d);
	}
	JADD(o, "metrics", ms);
	ps = json_object_new_array();
	for (int i = 0; i < r->npoints; i++)
		json_object_array_add(ps, point_json(r, &r->points[i]));
	JADD(o, "results", ps);
	return o;
}
