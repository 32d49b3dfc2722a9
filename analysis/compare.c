/* SPDX-License-Identifier: MIT */
/*
 * vmsim compare: mmtests-style comparison of result files.
 *
 * For every metric and task count of the first file (the base), rows
 * Min, Hmean or Amean, Stddev, CoeffVar, Max and the best-P% means,
 * one column per file, each value with its difference from the base:
 * higher-is-better 100*new/base - 100, lower-is-better 100 - 100*new/base,
 * Stddev and CoeffVar always in the lower form, so positive is better.
 * The mean row is marked *x.xx%* when the difference is significant under
 * the chosen rule (compare.h: Welch, Mann-Whitney, or either of mmtests'
 * rules). Higher-is-better metrics get HStddev/HCoeffVar, the spread of
 * the harmonic mean, as current mmtests prints them. Lock statistics and
 * the scheme's event counters follow, side by side.
 */
#include "analysis/compare_int.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/parse.h"
#include "base/stats.h"
#include "resfile/busy.h"
#include "resfile/schema.h"

double cmp_spread(const double *a, size_t na, const double *b, size_t nb,
		  bool higher)
{
	double sa = higher ? stats_hcoeffvar(a, na) : stats_coeffvar(a, na);
	double sb = higher ? stats_hcoeffvar(b, nb) : stats_coeffvar(b, nb);

	if (isnan(sa))
		return sb;
	return isnan(sb) ? sa : fmax(sa, sb);
}

/* Other processes' CPUs (mean over the samples) at which a contended
 * spinning lock counts as disturbed even without a long hold seen. */
#define CMP_BUSY_OTHERS 0.5
/* The share of the point's timed span spent in spinning-lock holds over
 * 100 us (preempted holders) at which it counts as disturbed: each such
 * hold stalls every waiter, and on an idle 2-vCPU VM a few a run happen
 * (0-6 in a million range-tree acquisitions, 0.06% of the time). */
#define CMP_LONG_HOLD_SHARE 0.01

/* The number at p's path a.b.c.d (NULL ends it early), or NaN. */
static double num_at(json_object *p, const char *a, const char *b,
		     const char *c, const char *d)
{
	json_object *o = p;
	const char *keys[4] = { a, b, c, d };

	for (int i = 0; i < 4 && keys[i]; i++)
		if (!o || !json_object_object_get_ex(o, keys[i], &o))
			return NAN;
	return o && (json_object_is_type(o, json_type_int) ||
		     json_object_is_type(o, json_type_double)) ?
	       json_object_get_double(o) : NAN;
}

/* The finite numbers of array key in object o into x (at most cap), NaN
 * for the others; how many. */
static size_t nums_of(json_object *o, const char *key, double *x, size_t cap)
{
	json_object *a;
	size_t n = 0;

	if (!o || !json_object_object_get_ex(o, key, &a) ||
	    !json_object_is_type(a, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(a) && n < cap; i++) {
		json_object *v = json_object_array_get_idx(a, i);

		x[n++] = v && (json_object_is_type(v, json_type_double) ||
			       json_object_is_type(v, json_type_int)) ?
			 json_object_get_double(v) : NAN;
	}
	return n;
}

/* The length of array key in object o (0: none). */
static size_t arr_len(json_object *o, const char *key)
{
	json_object *a;

	return o && json_object_object_get_ex(o, key, &a) &&
	       json_object_is_type(a, json_type_array) ?
	       json_object_array_length(a) : 0;
}

/* Were f's point's spinning locks' holders preempted (holds a kernel
 * spinlock could not have) for over 1% of the timed span, or was there
 * other load while such a lock was contended? */
static bool spin_disturbed(json_object *p, double others, char *why,
			   size_t len)
{
	json_object *l;
	bool contended = false;
	double long_ns = 0, span;

	if (!json_object_object_get_ex(p, RK_LOCKSTAT, &l) ||
	    !json_object_is_type(l, json_type_object))
		return false;
	span = num_at(p, RK_TIMED_S, NULL, NULL, NULL);
	json_object_object_foreach(l, name, cls) {
		static const char *const sides[] = { RK_READ, RK_WRITE };

		(void)name;
		for (int s = 0; s < 2; s++) {
			json_object *side, *lh, *ct;
			double ns;

			if (!json_object_object_get_ex(cls, sides[s], &side) ||
			    !json_object_object_get_ex(side, RK_LONG_HOLDS, &lh))
				continue;
			ns = num_at(side, RK_LONG_HOLD_NS, NULL, NULL, NULL);
			if (isfinite(ns))
				long_ns += ns;
			if (json_object_object_get_ex(side, RK_CONTENTIONS, &ct) &&
			    json_object_get_int64(ct) > 0)
				contended = true;
		}
	}
	if (isfinite(span) && span > 0 && long_ns / (span * 1e9) > CMP_LONG_HOLD_SHARE) {
		snprintf(why, len, "a spinning lock's holders were preempted "
			 "for %.1f%% of the time", 100 * long_ns / (span * 1e9));
		return true;
	}
	if (contended && isfinite(others) && others > CMP_BUSY_OTHERS) {
		snprintf(why, len, "others kept %.2f CPUs busy while a "
			 "spinning lock was contended", others);
		return true;
	}
	return false;
}

bool cmp_point_disturbed(const struct cmp_file *f, int tasks, char *why,
			 size_t len)
{
	json_object *p = cmp_point_of(f, tasks), *n = NULL;
	struct res_busy b = { .tasks = tasks };
	double *x;
	size_t cap, no, nw, ns;
	double others = 0, cpus;
	bool ret;

	why[0] = 0;
	if (!p)
		return false;
	json_object_object_get_ex(p, RK_NOISE, &n);
	cap = arr_len(n, RK_OTHERS_CPUS);
	cap = cap > arr_len(n, RK_STEAL) ? cap : arr_len(n, RK_STEAL);
	cap = cap ? cap : 1;
	x = calloc(3 * cap, sizeof(*x));
	if (!x)
		return false;
	no = nums_of(n, RK_OTHERS_CPUS, x, cap);
	nw = nums_of(n, RK_VMSIM_CPUS, x + cap, cap);
	ns = nums_of(n, RK_STEAL, x + 2 * cap, cap);
	/* Results before issue 64 recorded an others figure biased up by a
	 * tick a pass (each pass clamped at 0 before the sum): the machine
	 * rule reads only results that record vmsim's own CPUs beside it,
	 * so that an old baseline is judged as it was. */
	b.others = nw == no && nw ? x : NULL;
	b.own = nw == no ? x + cap : NULL;
	b.steal = x + 2 * cap;
	b.n = no;
	b.ceiling = num_at(p, RK_HARNESS_EFFICIENCY, NULL, NULL, NULL);
	cpus = num_at(f->root, RK_META, RK_CPUS, NULL, NULL);
	b.ncpus = isfinite(cpus) && cpus >= 1 && cpus < 1e6 ? (int)cpus : 0;
	for (size_t i = 0; i < no; i++)
		others += isfinite(x[i]) ? x[i] / (double)no : 0;
	/* Steal may have fewer entries than others in a hand-made file. */
	if (ns < no)
		b.steal = NULL;
	ret = res_busy_judge(&b, why, len) || spin_disturbed(p, others, why, len);
	free(x);
	return ret;
}

/* A metric the one-line verdicts speak of: the primary one, every
 * other rate (writer-ops/sec beside faults/sec)... */
static bool verdict_metric(const struct cmp_metric *m)
{
	size_t n = strlen(m->name);

	/* ... and a call's tail latency (maps_reader's writer-p99: the
	 * figure the workload is about). */
	return m->primary || (m->higher && n > 4 &&
			      !strcmp(m->name + n - 4, "/sec")) ||
	       (!m->higher && n > 4 && !strcmp(m->name + n - 4, "-p99"));
}

/* The mean row r of m: its clause in each compared file's verdict. */
static void verdict_add(struct printer *pr, const struct row *r,
			const struct cmp_metric *m, int tasks)
{
	char what[160];

	if (pr->files[0].ntasks > 1)
		snprintf(what, sizeof(what), "%s at %d task%s", m->name, tasks,
			 tasks == 1 ? "" : "s");
	else
		snprintf(what, sizeof(what), "%s", m->name);
	for (int i = 1; i < pr->n; i++) {
		FILE *f = pr->verdict[i];
		const char *word = r->sig[i] == 1 ? "significant" :
				   r->sig[i] == 0 ? "not significant" :
				   r->sig[i] == CMP_WITHIN ? "noise: within the spread" :
				   r->sig[i] == CMP_DISTURBED ? "disturbed, not a finding" :
				   "too few samples to tell";

		if (!f)
			continue;
		if (ftell(f) > 0)
			fputs(", ", f);
		if (r->invalid[i] || r->invalid[0] || !isfinite(r->pct[i]))
			fprintf(f, "%s invalid", what);
		else if (r->sig[i] == CMP_DISTURBED && r->why[i][0])
			fprintf(f, "%s %+.1f%% (%s: %s)", what, r->pct[i], word,
				r->why[i]);
		else
			fprintf(f, "%s %+.1f%% (%s)", what, r->pct[i], word);
	}
}

/* All rows of one metric at one task count. */
static void metric_rows(struct printer *pr, const struct cmp_metric *m,
			int tasks)
{
	double *x[CMP_MAX_FILES], spread;
	size_t nx[CMP_MAX_FILES];
	struct row r = { .section = "metric" };
	bool disturbed[CMP_MAX_FILES];
	char why[CMP_MAX_FILES][96];

	for (int i = 0; i < pr->n; i++) {
		disturbed[i] = cmp_point_disturbed(&pr->files[i], tasks, why[i],
						   sizeof(why[i]));
		nx[i] = cmp_samples_of(&pr->files[i], m->name, tasks, &x[i]);
		/* Not a number to compute with, nor to compare against. */
		r.invalid[i] = !cmp_point_valid(&pr->files[i], m, tasks, x[i],
						nx[i]);
		if (r.invalid[i])
			nx[i] = 0;
	}
	snprintf(r.key, sizeof(r.key), "%s-%d", m->name, tasks);
	for (int st = 0; st < ST_N; st++) {
		bool lower_form = st == ST_STDDEV || st == ST_COV;

		r.stat = cmp_stat_name(st, m->higher);
		for (int i = 0; i < pr->n; i++) {
			double p;

			r.v[i] = cmp_stat_value(st, x[i], nx[i], m->higher);
			r.pct[i] = cmp_pct_diff(r.v[0], r.v[i],
					    lower_form ? false : m->higher);
			r.sig[i] = -1;
			r.primary = st == ST_MEAN && m->primary;
			if (st != ST_MEAN || i == 0 || !nx[i])
				continue;
			r.sig[i] = cmp_significant(pr->o, x[0], nx[0], x[i], nx[i],
						   m->higher, &p) == 1 &&
				   isfinite(r.pct[i]) && r.pct[i] != 0;
			spread = cmp_spread(x[0], nx[0], x[i], nx[i], m->higher);
			/* A difference within the spread of the samples
			 * behind it is no finding, significant or not. */
			if (isfinite(r.pct[i]) && fabs(r.pct[i]) < spread)
				r.sig[i] = CMP_WITHIN;
			/* Nor is one the machine made: others' load, the
			 * hypervisor, a preempted spinlock holder... */
			else if (disturbed[0] || disturbed[i]) {
				int k = disturbed[i] ? i : 0;

				snprintf(r.why[i], sizeof(r.why[i]), "in %.30s, %.76s",
					 pr->files[k].label, why[k]);
				r.sig[i] = CMP_DISTURBED;
			}
		}
		if (st == ST_MEAN && verdict_metric(m))
			verdict_add(pr, &r, m, tasks);
		if (!pr->o->verdicts_only)
			cmp_emit_row(pr, &r);
	}
	for (int i = 0; i < pr->n; i++)
		free(x[i]);
}

/* The number at p.<a>.<b>.<c>.<d> (NULL ends the path early), or NaN. */
static void counter_row(struct printer *pr, const char *stat, const char *key,
			int tasks, const char *const path[4], double scale,
			bool lower_better)
{
	struct row r = { .section = "lock", .stat = stat, .integer = scale == 1,
			 .nopct = !lower_better };

	snprintf(r.key, sizeof(r.key), "%s-%d", key, tasks);
	for (int i = 0; i < pr->n; i++) {
		json_object *p = cmp_point_of(&pr->files[i], tasks);

		r.v[i] = p ? num_at(p, path[0], path[1], path[2], path[3]) / scale
			   : NAN;
		r.pct[i] = lower_better ? cmp_pct_diff(r.v[0], r.v[i], false) : NAN;
		r.sig[i] = -1;
	}
	cmp_emit_row(pr, &r);
}

/* Union of the keys of object p.<field> across the files at tasks. */
static int key_union(struct printer *pr, int tasks, const char *field,
		     const char **keys, int max)
{
	int n = 0;

	for (int i = 0; i < pr->n; i++) {
		json_object *p = cmp_point_of(&pr->files[i], tasks), *o;

		if (!p || !json_object_object_get_ex(p, field, &o) ||
		    !json_object_is_type(o, json_type_object))
			continue;
		json_object_object_foreach(o, k, v) {
			int j;

			(void)v;
			for (j = 0; j < n && strcmp(keys[j], k); j++)
				;
			if (j == n && n < max)
				keys[n++] = k;
		}
	}
	return n;
}

/* Every touch's latency (results' latency_ns), in microseconds, lower
 * is better, then the mean fault split into the lock's wait and hold and
 * the rest (fault_split_ns) and the lock's share of it in per cent;
 * rows only where some file has them. */
static void latency_rows(struct printer *pr, int tasks)
{
	static const struct {
		const char *stat, *obj, *field, *key;
		double scale;
	} rows[] = {
		{ "Mean", RK_LATENCY_NS, RK_MEAN, "latency", 1e3 },
		{ "Pct-50", RK_LATENCY_NS, RK_P50, "latency", 1e3 },
		{ "Pct-90", RK_LATENCY_NS, RK_P90, "latency", 1e3 },
		{ "Pct-99", RK_LATENCY_NS, RK_P99, "latency", 1e3 },
		{ "Pct-99.9", RK_LATENCY_NS, RK_P99_9, "latency", 1e3 },
		{ "Max", RK_LATENCY_NS, RK_MAX, "latency", 1e3 },
		{ "Mean", RK_FAULT_SPLIT_NS, RK_MEAN, "fault", 1e3 },
		{ "LockWait", RK_FAULT_SPLIT_NS, RK_LOCK_WAIT, "fault", 1e3 },
		{ "LockHold", RK_FAULT_SPLIT_NS, RK_LOCK_HOLD, "fault", 1e3 },
		{ "Rest", RK_FAULT_SPLIT_NS, RK_REST, "fault", 1e3 },
		{ "LockShr%", RK_FAULT_SPLIT_NS, RK_LOCK_SHARE, "fault", 0.01 },
	};

	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		struct row r = { .section = "latency", .stat = rows[k].stat };
		bool any = false;

		snprintf(r.key, sizeof(r.key), "%s-%d", rows[k].key, tasks);
		for (int i = 0; i < pr->n; i++) {
			json_object *p = cmp_point_of(&pr->files[i], tasks);

			r.v[i] = p ? num_at(p, rows[k].obj, rows[k].field, NULL,
					    NULL) / rows[k].scale : NAN;
			any |= isfinite(r.v[i]);
			r.pct[i] = cmp_pct_diff(r.v[0], r.v[i], false);
			r.sig[i] = -1;
		}
		if (any)
			cmp_emit_row(pr, &r);
	}
}

/* The mean of the numbers in p.noise.<field> (nulls skipped), or NaN. */
static double noise_mean(json_object *p, const char *field)
{
	json_object *nz, *a;
	double s = 0;
	size_t n = 0;

	if (!p || !json_object_object_get_ex(p, RK_NOISE, &nz) ||
	    !json_object_object_get_ex(nz, field, &a) ||
	    !json_object_is_type(a, json_type_array))
		return NAN;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *v = json_object_array_get_idx(a, i);

		if (json_object_is_type(v, json_type_double) ||
		    json_object_is_type(v, json_type_int)) {
			s += json_object_get_double(v);
			n++;
		}
	}
	return n ? s / (double)n : NAN;
}

/* What the machine was doing (results' noise): the mean steal (per cent
 * of all CPUs), other processes' CPUs and vmsim's own, its involuntary switches a
 * second; the samples far out and whether they form two groups. Rows
 * only where some file has them; no better or worse. */
static void noise_rows(struct printer *pr, int tasks)
{
	static const struct { const char *stat, *field; double scale; } rows[] = {
		{ "Steal%", RK_STEAL, 0.01 }, { "Others", RK_OTHERS_CPUS, 1 },
		{ "Vmsim", RK_VMSIM_CPUS, 1 }, { "Ivcsw/s", RK_IVCSW_PER_S, 1 },
	};
	bool any = false;

	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		struct row r = { .section = "noise", .stat = rows[k].stat,
				 .nopct = true };

		snprintf(r.key, sizeof(r.key), "noise-%d", tasks);
		for (int i = 0; i < pr->n; i++) {
			r.v[i] = noise_mean(cmp_point_of(&pr->files[i], tasks),
					    rows[k].field) / rows[k].scale;
			r.pct[i] = NAN;
			r.sig[i] = -1;
			any |= isfinite(r.v[i]);
		}
		if (any)
			cmp_emit_row(pr, &r);
	}
	/* The samples the run flagged (stopped, starved): left out of every
	 * statistic above, so said in the table, not only on stderr. */
	{
		struct row r = { .section = "noise", .integer = true, .nopct = true,
				 .stat = "Left-out" };
		bool flagged = false;

		snprintf(r.key, sizeof(r.key), "noise-%d", tasks);
		for (int i = 0; i < pr->n; i++) {
			r.v[i] = cmp_point_of(&pr->files[i], tasks) ?
				 cmp_point_nflagged(&pr->files[i], tasks) : NAN;
			r.pct[i] = NAN;
			r.sig[i] = -1;
			flagged |= r.v[i] > 0;
		}
		if (flagged)
			cmp_emit_row(pr, &r);
	}
	for (int s = 0; s < 2 && any; s++) {
		struct row r = { .section = "noise", .integer = true, .nopct = true,
				 .stat = s ? "Bimodal" : "Outliers" };

		snprintf(r.key, sizeof(r.key), "noise-%d", tasks);
		for (int i = 0; i < pr->n; i++) {
			json_object *p = cmp_point_of(&pr->files[i], tasks), *nz, *v;

			r.v[i] = NAN;
			r.pct[i] = NAN;
			r.sig[i] = -1;
			if (!p || !json_object_object_get_ex(p, RK_NOISE, &nz))
				continue;
			if (s && json_object_object_get_ex(nz, RK_BIMODAL, &v))
				r.v[i] = json_object_get_boolean(v);
			if (!s && json_object_object_get_ex(nz, RK_OUTLIERS, &v))
				r.v[i] = (double)json_object_array_length(v);
		}
		cmp_emit_row(pr, &r);
	}
}

/* The lockstat rows: per class and side, what each stat row reads. */
static const struct {
	const char *stat, *field;
	double scale;
	bool lower_better;
} lock_stats[] = {
	{ "acquired", RK_ACQUISITIONS, 1, false },
	{ "contended", RK_CONTENTIONS, 1, true },
	{ "wait-ms", RK_WAIT_NS_TOTAL, 1e6, true },
};

/* The slab counters that say why slabs differ (--slab, --rcu-free). */
static const char *const slab_rows[] = {
	"alloc_slowpath", "slab_new", "barn_get", "barn_put",
	"rcu_sheaf_destroyed", "rcu_barrier", "rcu_inflight_max",
};

/* A slab cache's name in a row key: vm_area_struct as vma, vt_node as
 * node (the results' names), any other as it is. */
static const char *slab_short(const char *cache)
{
	return !strcmp(cache, "vm_area_struct") ? "vma" :
	       !strcmp(cache, "vt_node") ? "node" : cache;
}

static void lock_rows(struct printer *pr, int tasks)
{
	const char *classes[16], *counters[16];
	int nc = key_union(pr, tasks, RK_LOCKSTAT, classes, 16);
	int nk = key_union(pr, tasks, RK_SCHEME_COUNTERS, counters, 16);
	const char *caches[16];
	int ns = key_union(pr, tasks, RK_SLAB, caches, 16);
	char key[96];

	for (size_t st = 0; st < sizeof(lock_stats) / sizeof(lock_stats[0]); st++)
		for (int c = 0; c < nc; c++)
			for (int side = 0; side < 2; side++) {
				const char *s = side ? RK_WRITE : RK_READ;
				const char *path[4] = { RK_LOCKSTAT, classes[c], s,
							lock_stats[st].field };

				snprintf(key, sizeof(key), "%s-%s", classes[c], s);
				counter_row(pr, lock_stats[st].stat, key, tasks, path,
					    lock_stats[st].scale,
					    lock_stats[st].lower_better);
			}
	/* Spinning classes: holds a kernel spinlock could not have. */
	for (int c = 0; c < nc; c++)
		for (int side = 0; side < 2; side++) {
			const char *s = side ? RK_WRITE : RK_READ;
			const char *path[4] = { RK_LOCKSTAT, classes[c], s,
						RK_LONG_HOLDS };
			bool any = false;

			for (int i = 0; i < pr->n && !any; i++)
				any = isfinite(num_at(cmp_point_of(&pr->files[i], tasks),
						      path[0], path[1], path[2], path[3]));
			snprintf(key, sizeof(key), "%s-%s", classes[c], s);
			if (any)
				counter_row(pr, "long-hold", key, tasks, path, 1, true);
		}
	for (int k = 0; k < nk; k++) {
		const char *path[4] = { RK_SCHEME_COUNTERS, counters[k], NULL, NULL };

		counter_row(pr, "counter", counters[k], tasks, path, 1, false);
	}
	for (size_t k = 0; k < sizeof(slab_rows) / sizeof(*slab_rows); k++)
		for (int c = 0; c < ns; c++) {
			const char *path[4] = { RK_SLAB, caches[c], slab_rows[k], NULL };

			snprintf(key, sizeof(key), "%s-%s", slab_short(caches[c]),
				 slab_rows[k]);
			counter_row(pr, "slab", key, tasks, path, 1, false);
		}
	{
		const char *msgs[4] = { "uffd", "messages", NULL, NULL };
		const char *refused[4] = { "uffd", "refused", NULL, NULL };

		counter_row(pr, "uffd", "messages", tasks, msgs, 1, false);
		counter_row(pr, "uffd", "refused", tasks, refused, 1, false);
	}
}

/* Before the rows: the header of each format. */
static void print_head(struct printer *pr)
{
	FILE *out = pr->out;

	for (int m = 0; m < pr->files[0].nmetrics; m++) {
		int w = (int)strlen(pr->files[0].metrics[m].name) + 6;

		if (w > pr->keyw)
			pr->keyw = w;
	}
	if (pr->keyw < 28)
		pr->keyw = 28;
	if (pr->o->format == CMP_HTML) {
		cmp_html_begin(pr);
	} else if (pr->o->format == CMP_TEXT) {
		fprintf(out, "vmsim compare: workload %s\n",
			pr->files[0].workload_shown);
		/* Each metric's unit, as the result declares it. */
		{
			int k = 0;

			for (int m = 0; m < pr->files[0].nmetrics; m++)
				if (pr->files[0].metrics[m].unit)
					fprintf(out, "%s%s %s", k++ ? ", " :
						"units: ", pr->files[0].metrics[m].name,
						pr->files[0].metrics[m].unit);
			fprintf(out, "%s\n", k ? "\n" : "");
		}
		cmp_print_header_text(pr);
	} else if (pr->o->format == CMP_MARKDOWN) {
		fprintf(out, "| Stat | Metric |");
		for (int i = 0; i < pr->n; i++)
			fprintf(out, " %s |", pr->files[i].label);
		fprintf(out, "\n|---|---|");
		for (int i = 0; i < pr->n; i++)
			fprintf(out, "---:|");
		fprintf(out, "\n");
	} else if (pr->o->format == CMP_CSV) {
		fprintf(out, "section,stat,key,label,value,diff_pct,significant\n");
	} else {
		pr->rows = json_object_new_array();
	}
}

/* JSON: the rows gathered, with what they compare. */
static void print_json(struct printer *pr)
{
	const struct cmp_opts *o = pr->o;
	json_object *top = json_object_new_object(), *cols;

	json_object_object_add(top, "workload",
			       json_object_new_string(pr->files[0].workload));
	json_object_object_add(top, "test", json_object_new_string(
		cmp_test_name(o->test)));
	json_object_object_add(top, "alpha", isnan(cmp_alpha(o)) ? NULL :
			       json_object_new_double(cmp_alpha(o)));
	cols = json_object_new_array();
	for (int i = 0; i < pr->n; i++) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "label",
			json_object_new_string(pr->files[i].label));
		json_object_object_add(c, "file",
			json_object_new_string(pr->files[i].path));
		json_object_object_add(c, "scheme",
			json_object_new_string(pr->files[i].scheme));
		json_object_array_add(cols, c);
	}
	json_object_object_add(top, "columns", cols);
	json_object_object_add(top, "rows", pr->rows);
	fprintf(pr->out, "%s\n", json_object_to_json_string_ext(top,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(top);
}

/* The verdict lines made (one a compared file), then freed. */
static void print_verdicts(struct printer *pr)
{
	bool any = false;

	for (int i = 1; i < pr->n; i++) {
		if (!pr->verdict[i])
			continue;
		fclose(pr->verdict[i]);
		pr->verdict[i] = NULL;
		if (pr->vlen[i]) {
			char at[32] = "";

			if (pr->files[0].ntasks == 1)
				snprintf(at, sizeof(at), " at %d task%s",
					 pr->files[0].tasks[0],
					 pr->files[0].tasks[0] == 1 ? "" : "s");
			fprintf(pr->out, "%s%s vs %s%s: %s\n", any ? "" : "\n",
				pr->files[i].label, pr->files[0].label, at,
				pr->vbuf[i]);
			any = true;
		}
		free(pr->vbuf[i]);
		pr->vbuf[i] = NULL;
	}
}

/* HTML: the distance from the host kernel and a replay's ratios to the
 * recording's mmap_lock, as the text shows them, where there are some. */
static void html_host(struct printer *pr)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	cmp_print_host_distance(m, pr->files, pr->n);
	cmp_print_host_lock(m, pr->files, pr->n);
	fclose(m);
	if (len) {
		fputs("<h2>The host kernel</h2>\n<pre>", pr->out);
		cmp_html_text(pr->out, buf + (buf[0] == '\n'));
		fputs("</pre>\n", pr->out);
	}
	free(buf);
}

void cmp_print(FILE *out, const struct cmp_file *files, int n,
	       const struct cmp_opts *o)
{
	struct printer pr = { .out = out, .o = o, .files = files, .n = n,
				.colw = CMP_COL };
	const int *tasks = files[0].tasks;
	int nt = files[0].ntasks;
	static const char *const rule[] = {
		"Welch's t-test (Welch-Satterthwaite df, two-sided)",
		"Mann-Whitney U test (two-sided)",
		"Student's t-test on the mean, n1+n2-2 df (mmtests 2018 to Nov 2024)",
		("|difference| > 1.96 * (sd_base + sd_new), HStddev for Hmean rows "
		 "(mmtests since Nov 2024)"),
	};
	char level[64] = "";

	if (n > CMP_MAX_FILES)
		n = pr.n = CMP_MAX_FILES;
	if (o->format == CMP_GNUPLOT) {
		cmp_print_gnuplot(out, files, n, o);
		return;
	}
	if (o->format == CMP_WIS) {
		cmp_print_wis(out, files, n);
		return;
	}
	if (o->format == CMP_TEXT && (o->verdicts || o->verdicts_only))
		for (int i = 1; i < n; i++)
			pr.verdict[i] = open_memstream(&pr.vbuf[i], &pr.vlen[i]);
	if (o->verdicts_only && o->format == CMP_TEXT) {
		for (int m = 0; m < files[0].nmetrics; m++)
			for (int t = 0; t < nt; t++)
				metric_rows(&pr, &files[0].metrics[m], tasks[t]);
		print_verdicts(&pr);
		cmp_print_host_distance(out, files, n);
		cmp_print_host_lock(out, files, n);
		return;
	}
	print_head(&pr);
	for (int m = 0; m < files[0].nmetrics; m++)
		for (int t = 0; t < nt; t++)
			metric_rows(&pr, &files[0].metrics[m], tasks[t]);
	for (int t = 0; t < nt; t++)
		latency_rows(&pr, tasks[t]);
	for (int t = 0; t < nt; t++)
		noise_rows(&pr, tasks[t]);
	for (int t = 0; t < nt && !o->brief; t++)
		lock_rows(&pr, tasks[t]);
	if (o->test != CMP_MMTESTS_CI)
		snprintf(level, sizeof(level), " at alpha = %g", cmp_alpha(o));
	if (o->format == CMP_TEXT || o->format == CMP_MARKDOWN)
		fprintf(out, "\n%s*x.xx%%* on a mean row: significant by %s%s "
			"against the first column; positive is better. "
			"(~x.xx%%): smaller than the spread of the samples "
			"behind it (the larger CoeffVar of the two): not a "
			"finding, significant or not. (!x.xx%%): disturbed — "
			"other processes took turns with vmsim's tasks (over "
			"%.2f CPUs busy with none to spare), the hypervisor took "
			"over %.0f%%, the harness reached under %.1fx of linear "
			"at that task count, or spinning locks' holders were "
			"preempted (holds over 100 us, over 1%% of the time): "
			"not a finding (the verdict lines say which).\n",
			o->format == CMP_MARKDOWN ? "**x.xx%** / " : "",
			rule[o->test], level, RES_BUSY_OTHERS,
			100 * RES_BUSY_STEAL, RES_BUSY_CEILING);
	print_verdicts(&pr);
	if (o->format == CMP_TEXT || o->format == CMP_MARKDOWN) {
		cmp_print_host_distance(out, files, n);
		cmp_print_host_lock(out, files, n);
	}
	if (o->format == CMP_JSON)
		print_json(&pr);
	else if (o->format == CMP_HTML)
		html_host(&pr);
	if (o->format == CMP_HTML)
		cmp_html_end(&pr);
}
