/* SPDX-License-Identifier: MIT */
/* A result as its JSON file (docs/results.md). */
#include "resfile/results_json.h"

#include <errno.h>
#include <math.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "trace/perf_conv.h"
#include "resfile/busy.h"
#include "resfile/schema.h"
#include "base/stats.h"
#include "sim/vma_tree.h"

/* The slab caches' counters, per cache. */
static json_object *res_slab_json(const struct res_point *p)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < SIM_NSLABS; i++) {
		json_object *c = json_object_new_object();

		for (int k = 0; k < SLAB_NCOUNTERS; k++)
			json_object_object_add(c, slab_counter_name(k),
				json_object_new_int64((int64_t)p->slab[i][k]));
		json_object_object_add(o, sim_mm_slab_name(i), c);
	}
	return o;
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

	JADD(o, RK_ACQUISITIONS, JU64(t->acquisitions));
	JADD(o, RK_CONTENTIONS, JU64(t->contentions));
	JADD(o, RK_WAIT_NS_TOTAL, JU64(t->wait_total));
	JADD(o, RK_WAIT_NS_MAX, JU64(t->wait_max));
	JADD(o, RK_HOLD_NS_TOTAL, JU64(t->hold_total));
	JADD(o, RK_HOLD_NS_MAX, JU64(t->hold_max));
	JADD(o, RK_WAIT_HIST_LOG2NS, hist_json(t->wait_hist));
	JADD(o, RK_HOLD_HIST_LOG2NS, hist_json(t->hold_hist));
	if (t->spins) {                  /* holds a kernel spinlock never has */
		JADD(o, RK_LONG_HOLDS, JU64(t->long_holds));
		JADD(o, RK_LONG_HOLD_NS, JU64(t->long_hold_ns));
	}
	return o;
}

/* Every touch's latency: percentiles (log-linear histogram, < 1% off). */
static json_object *latency_json(const struct lat_hist *h)
{
	static const struct { const char *key; double q; } pct[] = {
		{ RK_P50, 0.50 }, { RK_P90, 0.90 }, { RK_P99, 0.99 },
		{ RK_P99_9, 0.999 },
	};
	json_object *o = json_object_new_object();

	JADD(o, RK_COUNT, JU64(h->count));
	JADD(o, RK_MEAN, json_object_new_double(hist_mean(h)));
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		JADD(o, pct[i].key, json_object_new_double(hist_quantile(h, pct[i].q)));
	JADD(o, RK_MAX, JU64(h->max_ns));
	return o;
}

static json_object *split_json(const struct res_fault_split *s)
{
	json_object *o = json_object_new_object();

	JADD(o, RK_MEAN, json_object_new_double(s->mean));
	JADD(o, RK_LOCK_WAIT, json_object_new_double(s->lock_wait));
	JADD(o, RK_LOCK_HOLD, json_object_new_double(s->lock_hold));
	JADD(o, RK_REST, json_object_new_double(s->rest));
	JADD(o, RK_LOCK_SHARE, json_object_new_double(s->lock_share));
	return o;
}

/* The fault source's own counters, under its name ("uffd": uffds,
 * handlers, messages, reads, copy, … docs/results.md). */
static json_object *source_json(const struct res_counters *rc)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < rc->nsrc; i++)
		JADD(o, rc->src_names[i], JU64(rc->src_values[i]));
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

		JADD(e, RK_FAILED, JU64(c->src_err[k]));
		JADD(e, RK_FIRST_ERROR, n ? json_object_new_string(n) : NULL);
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
	JADD(o, RK_TIMED_PHASE_CALLS, calls);
	vm = json_object_new_object();
	for (int i = 0; i < p->vmstat.n; i++)
		JADD(vm, p->vmstat.name[i], JU64(p->vmstat.v[i]));
	JADD(o, RK_VMSTAT_DELTA, vm);
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
		JADD(e, RK_SAMPLE, json_object_new_int(i + 1));
		JADD(e, RK_REASON, json_object_new_string(
			res_flag_reason(p->flag[i])));
		JADD(e, RK_WALL_S, json_object_new_double(p->wall[i]));
		if (isfinite(p->cpu[i]))
			JADD(e, RK_CPU_S, json_object_new_double(p->cpu[i]));
		json_object_array_add(fl, e);
	}
	return fl;
}

/* The machine per sample, and the shape of the primary metric's samples. */
static json_object *noise_json(const struct res_file *r,
			       const struct res_point *p)
{
	json_object *o = json_object_new_object(), *a[4], *out;
	struct stats_shape sh;
	int m = 0;

	for (int k = 0; k < 4; k++)
		a[k] = json_object_new_array();
	for (int i = 0; i < p->nsamples; i++) {
		const double v[4] = { p->noise[i].steal, p->noise[i].others,
				      p->noise[i].ivcsw, p->noise[i].own };

		for (int k = 0; k < 4; k++)
			json_object_array_add(a[k], isfinite(v[k]) ?
					      json_object_new_double(v[k]) : NULL);
	}
	JADD(o, RK_STEAL, a[0]);
	JADD(o, RK_OTHERS_CPUS, a[1]);
	JADD(o, RK_IVCSW_PER_S, a[2]);
	JADD(o, RK_VMSIM_CPUS, a[3]);
	while (m < r->nmetrics - 1 && !r->metrics[m].primary)
		m++;
	stats_shape(p->samples[m], p->nsamples, &sh);
	JADD(o, RK_METRIC, json_object_new_string(r->metrics[m].name));
	out = json_object_new_array();
	for (int i = 0; i < p->nsamples && i < 64; i++)
		if (sh.outlier[i])
			json_object_array_add(out, json_object_new_int(i + 1));
	JADD(o, RK_OUTLIERS, out);
	JADD(o, RK_BIMODAL, json_object_new_boolean(sh.bimodal));
	return o;
}

/* The machine's verdict on the point (resfile/busy.h), where it is one of
 * disturbance: the reason, for scripts; compare judges again from the
 * samples' noise, by the same rule. */
static void busy_json(json_object *o, const struct res_point *p)
{
	double *x = p->nsamples ? calloc(3 * (size_t)p->nsamples, sizeof(*x)) : NULL;
	struct res_busy b = { .n = (size_t)p->nsamples, .tasks = p->tasks,
			      .ceiling = p->has_ceiling ? p->ceiling_eff : NAN,
			      .ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN) };
	char why[128];

	if (!x)
		return;
	for (int i = 0; i < p->nsamples; i++) {
		x[i] = p->noise[i].others;
		x[p->nsamples + i] = p->noise[i].own;
		x[2 * p->nsamples + i] = p->noise[i].steal;
	}
	b.others = x;
	b.own = x + p->nsamples;
	b.steal = x + 2 * p->nsamples;
	if (res_busy_judge(&b, why, sizeof(why)))
		JADD(o, RK_DISTURBED, json_object_new_string(why));
	free(x);
}

void res_json_host_causes(const struct res_host_lock *h, bool replayable,
			  char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int k = 0; k < PC_NCAUSES && n < len; k++) {
		if ((!h->cause[k][0] && !h->cause[k][1]) ||
		    perf_conv_replayable((enum perf_cause)k) != replayable)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s %llu/%llu",
				      n ? ", " : "", perf_conv_cause_names[k],
				      (unsigned long long)h->cause[k][0],
				      (unsigned long long)h->cause[k][1]);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* A replay beside its recording: the mm lock an iteration against the
 * host kernel's own mmap_lock in the recorded run, and their ratio. */
static json_object *host_lock_json(const struct res_host_lock *h,
				   const struct res_host_cmp *hc,
				   const struct res_point *p)
{
	static const char *const side[LS_NSIDES] = { RK_READ, RK_WRITE };
	json_object *o = json_object_new_object();

	JADD(o, RK_CLASS, json_object_new_string(hc->cls));
	if (h->span_ns)
		JADD(o, RK_HOST_SPAN_S, json_object_new_double((double)h->span_ns / 1e9));
	if (h->have_threads) {
		json_object *t = json_object_new_object();

		JADD(t, RK_TID, json_object_new_int64(h->worst_tid));
		JADD(t, RK_SHARE, json_object_new_double(h->worst_share));
		JADD(t, RK_RUN_S, json_object_new_double((double)h->worst_run_ns / 1e9));
		JADD(o, RK_HOST_WORST_THREAD, t);
	}
	for (int s = 0; s < LS_NSIDES; s++) {
		json_object *j = json_object_new_object();

		JADD(j, RK_HOST_ACQUIRED, JU64(h->acquired[s]));
		JADD(j, RK_HOST_TRYLOCK_FAILED, JU64(h->failed[s]));
		JADD(j, RK_HOST_WAIT_NS, JU64(h->wait_ns[s]));
		JADD(j, RK_HOST_HOLD_NS, JU64(h->hold_ns[s]));
		JADD(j, RK_VMSIM_ACQUIRED, json_object_new_double(hc->acquired[s]));
		JADD(j, RK_VMSIM_CONTENDED, json_object_new_double(hc->contended[s]));
		/* The replay's teardown between passes, in all: lockstat's
		 * count less this, over counted_passes, is vmsim_acquired. */
		JADD(j, RK_VMSIM_TEARDOWN, JU64(p->c.untimed_lock[s]));
		JADD(j, RK_RATIO, isfinite(hc->ratio[s]) ?
		     json_object_new_double(hc->ratio[s]) : NULL);
		if (h->have_causes) {
			JADD(j, RK_HOST_REPLAYABLE, JU64(h->replayable[s]));
			JADD(j, RK_RATIO_REPLAYABLE, isfinite(hc->ratio_rep[s]) ?
			     json_object_new_double(hc->ratio_rep[s]) : NULL);
		}
		JADD(o, side[s], j);
	}
	if (h->have_causes) {
		char in[512], out[512];

		res_json_host_causes(h, true, in, sizeof(in));
		res_json_host_causes(h, false, out, sizeof(out));
		JADD(o, RK_HOST_CAUSES, json_object_new_string(in));
		JADD(o, RK_HOST_LEFT_OUT, json_object_new_string(out));
	}
	return o;
}

static json_object *point_json(const struct res_file *r,
			       const struct res_point *p)
{
	json_object *o = json_object_new_object(), *s, *f, *l;
	struct res_fault_split split;
	struct res_host_cmp hc;

	JADD(o, RK_TASKS, json_object_new_int(p->tasks));
	s = json_object_new_object();
	for (int m = 0; m < r->nmetrics; m++) {
		json_object *a = json_object_new_array();

		for (int i = 0; i < p->nsamples; i++)
			json_object_array_add(a,
				json_object_new_double(p->samples[m][i]));
		JADD(s, r->metrics[m].name, a);
	}
	JADD(o, RK_SAMPLES, s);
	JADD(o, RK_TIMED_S, json_object_new_double(p->pass_s));
	if (p->passes > 0) {             /* completion workloads */
		JADD(o, RK_PASSES, json_object_new_int(p->passes));
		JADD(o, RK_WARMUP_PASSES, json_object_new_int(p->warmup));
		JADD(o, RK_COUNTED_PASSES, json_object_new_int(p->runs));
	}
	if (p->has_ceiling)
		JADD(o, RK_HARNESS_EFFICIENCY, json_object_new_double(p->ceiling_eff));
	if (res_point_nflagged(p))
		JADD(o, RK_FLAGGED, flagged_json(p));
	if (p->nsamples)
		JADD(o, RK_NOISE, noise_json(r, p));
	busy_json(o, p);
	JADD(o, RK_TOUCHES, JU64(p->touches));
	JADD(o, RK_HOST_FAULTS, JU64(p->host_faults));
	JADD(o, RK_SEGV, JU64(p->segv));
	if (p->lat)
		JADD(o, RK_LATENCY_NS, latency_json(p->lat));
	if (p->call_lat)
		JADD(o, RK_CALL_LATENCY_NS, latency_json(p->call_lat));
	if (res_fault_split(p, &split))
		JADD(o, RK_FAULT_SPLIT_NS, split_json(&split));
	f = json_object_new_object();
	for (int k = 0; k < SIM_FAULT_NKINDS; k++)
		JADD(f, sim_fault_kind_name(k), JU64(p->c.faults[k]));
	JADD(o, RK_FAULTS, f);
	JADD(o, RK_FAULT_PAGES, JU64(p->c.fault_pages));
	f = json_object_new_object();
	JADD(f, RK_VMAS, JU64(p->c.vmas));
	JADD(f, RK_MAPPED_PAGES, JU64(p->c.mapped_pages));
	JADD(f, RK_RESIDENT_PAGES, JU64(p->c.resident_pages));
	JADD(f, RK_POPULATED_PAGES, JU64(p->c.populated));
	JADD(o, RK_MM, f);
	if (p->c.nsrc)
		JADD(o, r->fault_source, source_json(&p->c));
	JADD(o, RK_SOURCE_ERRORS, source_errors_json(&p->c));
	JADD(o, RK_COUNTER_SLOTS, JU64(p->c.slots));
	if (p->has_frames) {
		f = json_object_new_object();
		for (int k = 0; k < FRAMES_NCOUNTERS; k++)
			JADD(f, frames_counter_name(k), JU64(p->frames[k]));
		JADD(o, RK_FRAMES, f);
	}
	if (p->has_slab)
		JADD(o, RK_SLAB, res_slab_json(p));
	l = json_object_new_object();
	for (int i = 0; i < p->c.nclasses; i++) {
		json_object *c = json_object_new_object();

		JADD(c, RK_READ, lockside_json(&p->c.classes[i].side[LS_READ]));
		JADD(c, RK_WRITE, lockside_json(&p->c.classes[i].side[LS_WRITE]));
		JADD(l, p->c.classes[i].name, c);
	}
	JADD(o, RK_LOCKSTAT, l);
	if (res_host_compare(p, &r->host_lock, &hc))
		JADD(o, RK_HOST_MMAP_LOCK, host_lock_json(&r->host_lock, &hc, p));
	if (p->c.ncounters) {
		json_object *c = json_object_new_object();

		for (int i = 0; i < p->c.ncounters; i++)
			JADD(c, p->c.counter_names[i], JU64(p->c.counters[i]));
		JADD(o, RK_SCHEME_COUNTERS, c);
	}
	JADD(o, RK_HOST, host_json(p));
	return o;
}

void res_json_cpu_model(char *buf, size_t len)
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


/* The host kernel: what a kernel column ran on, what may spread runs. */
static json_object *host_kernel_json(const struct res_host_kernel *k)
{
	json_object *o = json_object_new_object();

	JADD(o, RK_RELEASE, json_object_new_string(k->release));
	JADD(o, RK_PER_VMA_LOCK, k->per_vma_lock < 0 ? NULL :
	     json_object_new_boolean(k->per_vma_lock));
	JADD(o, RK_PER_VMA_LOCK_FROM, json_object_new_string(k->per_vma_from));
	JADD(o, RK_VIRTUAL_MACHINE, json_object_new_boolean(k->vm));
	JADD(o, RK_PAGE_REPORTING_ORDER, k->page_reporting_order < 0 ? NULL :
	     json_object_new_int(k->page_reporting_order));
	JADD(o, RK_DAMON_RUNNING, json_object_new_boolean(k->damon));
	if (k->first_touch_us > 0)
		JADD(o, RK_FIRST_TOUCH_US, json_object_new_double(k->first_touch_us));
	if (k->retouch_us > 0)
		JADD(o, RK_RETOUCH_US, json_object_new_double(k->retouch_us));
	return o;
}
static json_object *meta_json(const struct res_file *r)
{
	json_object *o = json_object_new_object();
	struct utsname u;
	char buf[256];
	time_t now = time(NULL);
	struct tm tm;

	uname(&u);
	JADD(o, RK_KERNEL, json_object_new_string(u.release));
	JADD(o, RK_MACHINE, json_object_new_string(u.machine));
	res_json_cpu_model(buf, sizeof(buf));
	JADD(o, RK_CPU_MODEL, json_object_new_string(buf));
	JADD(o, RK_CPUS, json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	JADD(o, RK_NUMA_NODES, json_object_new_int(
		numa_available() < 0 ? 1 : numa_num_configured_nodes()));
	JADD(o, RK_VMSIM_VERSION, json_object_new_string(VMSIM_VERSION));
	JADD(o, RK_GIT_REVISION, json_object_new_string(VMSIM_GIT_REV));
	if (vma_tree_maple_built())      /* the kernel the maple tree is */
		JADD(o, RK_MAPLE_TREE, json_object_new_string(
			vma_tree_maple_release()));
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	JADD(o, RK_DATE, json_object_new_string(buf));
	if (r->host_wake_us > 0)
		JADD(o, RK_WAKE_US, json_object_new_double(r->host_wake_us));
	if (r->host_uffd_block_us > 0)
		JADD(o, RK_UFFD_BLOCK_US, json_object_new_double(r->host_uffd_block_us));
	if (r->host_uffd_busy_us > 0)
		JADD(o, RK_UFFD_BUSY_US, json_object_new_double(r->host_uffd_busy_us));
	if (r->host_kernel.have)
		JADD(o, RK_HOST_KERNEL, host_kernel_json(&r->host_kernel));
	return o;
}

json_object *res_json_of(const struct res_file *r, json_object *options,
			 json_object *command, json_object *by_scheme)
{
	json_object *o = json_object_new_object(), *ms, *ps;

	JADD(o, RK_VMSIM_RESULT, json_object_new_int(RES_FORMAT_VERSION));
	JADD(o, RK_COMPLETE, json_object_new_boolean(r->complete));
	if (!r->complete && r->stopped[0])
		JADD(o, RK_STOPPED, json_object_new_string(r->stopped));
	JADD(o, RK_SCHEME, json_object_new_string(r->scheme));
	if (r->label && strcmp(r->label, r->scheme))
		JADD(o, RK_LABEL, json_object_new_string(r->label));
	JADD(o, RK_WORKLOAD, json_object_new_string(r->workload));
	JADD(o, RK_FAULT_SOURCE, json_object_new_string(r->fault_source));
	JADD(o, RK_META, meta_json(r));
	if (command)
		JADD(o, RK_COMMAND, json_object_get(command));
	JADD(o, RK_OPTIONS, options ? json_object_get(options)
				   : json_object_new_object());
	if (by_scheme && json_object_array_length(by_scheme))
		JADD(o, RK_BY_SCHEME, json_object_get(by_scheme));
	ms = json_object_new_object();
	for (int m = 0; m < r->nmetrics; m++) {
		json_object *d = json_object_new_object();

		JADD(d, RK_UNIT, json_object_new_string(r->metrics[m].unit));
		JADD(d, RK_BETTER, json_object_new_string(
			r->metrics[m].higher_better ? "higher" : "lower"));
		JADD(d, RK_PRIMARY, json_object_new_boolean(r->metrics[m].primary));
		JADD(ms, r->metrics[m].name, d);
	}
	JADD(o, RK_METRICS, ms);
	ps = json_object_new_array();
	for (int i = 0; i < r->npoints; i++)
		json_object_array_add(ps, point_json(r, &r->points[i]));
	JADD(o, RK_RESULTS, ps);
	return o;
}
