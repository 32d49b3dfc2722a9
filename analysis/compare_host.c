/* SPDX-License-Identifier: MIT */
/*
 * The distance from the host kernel: where a comparison has a column run
 * on the host kernel itself (-l kernel), each model's level (its mean
 * against the kernel's at the same task count) and shape (its scaling,
 * the mean at N tasks against its own at the fewest, against the
 * kernel's scaling). The shape is what transfers to a bigger machine;
 * the level says how much of a fault the model leaves out (with uffd, a
 * round trip the kernel does not make).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_int.h"
#include "resfile/schema.h"

int cmp_host_column(const struct cmp_file *files, int n)
{
	for (int i = 0; i < n; i++)
		if (files[i].scheme && !strcmp(files[i].scheme, "kernel"))
			return i;
	return -1;
}

/* The metric the distance is told for: the first primary one. */
static const struct cmp_metric *host_metric(const struct cmp_file *f)
{
	for (int m = 0; m < f->nmetrics; m++)
		if (f->metrics[m].primary)
			return &f->metrics[m];
	return f->nmetrics ? &f->metrics[0] : NULL;
}

/* f's mean of m at tasks and its CoeffVar (%); false: none valid. */
static bool mean_at(const struct cmp_file *f, const struct cmp_metric *m,
		    int tasks, double *mean, double *cov)
{
	double *x = NULL;
	size_t n = cmp_samples_of(f, m->name, tasks, &x);
	bool ok = n && cmp_point_valid(f, m, tasks, x, n);

	if (ok) {
		*mean = cmp_stat_value(ST_MEAN, x, n, m->higher);
		*cov = n > 1 ? cmp_stat_value(ST_COV, x, n, m->higher) : NAN;
		ok = isfinite(*mean) && *mean > 0;
	}
	free(x);
	return ok;
}

bool cmp_host_distance(const struct cmp_file *files, int n, int i, int tasks,
		       struct cmp_host_dist *out)
{
	int k = cmp_host_column(files, n), base;
	const struct cmp_metric *m;
	double v, cv, kv, kcv, v1, cv1, kv1, kcv1;

	memset(out, 0, sizeof(*out));
	if (k < 0 || !(m = host_metric(&files[k])) ||
	    !cmp_metric_of(&files[i], m->name) || !files[k].ntasks)
		return false;
	base = files[k].tasks[0];            /* sorted: the fewest */
	out->metric = m;
	out->base_tasks = base;
	if (!mean_at(&files[i], m, tasks, &v, &cv) ||
	    !mean_at(&files[k], m, tasks, &kv, &kcv))
		return false;
	/* Higher is better: the rate's ratio; lower: the time's, turned
	 * so that above 1 is faster than the kernel either way. */
	out->mean = v;
	out->kmean = kv;
	out->level = m->higher ? v / kv : kv / v;
	out->scaling = out->kscaling = NAN;
	out->shape_pct = out->spread_pct = NAN;
	if (tasks == base || !mean_at(&files[i], m, base, &v1, &cv1) ||
	    !mean_at(&files[k], m, base, &kv1, &kcv1))
		return true;
	out->scaling = m->higher ? v / v1 : v1 / v;
	out->kscaling = m->higher ? kv / kv1 : kv1 / kv;
	out->shape_pct = 100 * (out->scaling / out->kscaling - 1);
	/* Four means stand behind it: their spreads add (in quadrature). */
	out->spread_pct = sqrt(cv * cv + cv1 * cv1 + kcv * kcv + kcv1 * kcv1);
	return true;
}

/* "0.57x", "1.40x (-9%)", "1.40x (-19%!)": the shape difference marked
 * where it is over CMP_HOST_SHAPE_WARN and over the spread, "~" where
 * within the spread. */
static void cell(char *buf, size_t len, double x, double pct, double spread)
{
	const char *mark = !isfinite(pct) ? "" :
			   isfinite(spread) && fabs(pct) < spread ? "~" :
			   fabs(pct) > CMP_HOST_SHAPE_WARN ? "!" : "";

	if (!isfinite(x))
		snprintf(buf, len, "-");
	else if (!isfinite(pct))
		snprintf(buf, len, "%.2fx", x);
	else
		snprintf(buf, len, "%.2fx (%+.0f%%%s)", x, pct, mark);
}

static void print_rows(FILE *out, const struct cmp_file *files, int n, int k,
		       bool shape)
{
	const struct cmp_file *kf = &files[k];
	int w = 14;

	for (int t = shape; t < kf->ntasks; t++) {
		int tasks = kf->tasks[t];
		struct cmp_host_dist d;
		char c[64];

		fprintf(out, "%-8d", tasks);
		cmp_host_distance(files, n, k, tasks, &d);
		cell(c, sizeof(c), shape ? d.kscaling : 1, NAN, NAN);
		fprintf(out, " %*s", w, c);
		for (int i = 0; i < n; i++) {
			if (i == k)
				continue;
			if (!cmp_host_distance(files, n, i, tasks, &d))
				snprintf(c, sizeof(c), "-");
			else if (shape)
				cell(c, sizeof(c), d.scaling, d.shape_pct,
				     d.spread_pct);
			else
				cell(c, sizeof(c), d.level, NAN, NAN);
			fprintf(out, " %*s", w, c);
		}
		fprintf(out, "\n");
	}
}

void cmp_print_host_distance(FILE *out, const struct cmp_file *files, int n)
{
	int k = cmp_host_column(files, n), w = 14;
	const struct cmp_metric *m;

	if (k < 0 || n < 2 || !(m = host_metric(&files[k])))
		return;
	fprintf(out, "\nDistance from the host kernel (%s, %s %s):\n",
		files[k].label, cmp_stat_name(ST_MEAN, m->higher), m->name);
	fprintf(out, "%-8s", "level");
	fprintf(out, " %*s", w, files[k].label);
	for (int i = 0; i < n; i++)
		if (i != k)
			fprintf(out, " %*s", w, files[i].label);
	fprintf(out, "\n");
	print_rows(out, files, n, k, false);
	if (files[k].ntasks > 1) {
		fprintf(out, "scaling\n");
		print_rows(out, files, n, k, true);
	}
	fprintf(out, "level: the model's %s over the kernel's at the same task "
		"count (above 1: faster than the host).", m->higher ? "rate" :
		"time, inverted");
	if (files[k].ntasks > 1)
		fprintf(out, " scaling: each one's %s at N tasks over its own "
			"at %d (the shape a bigger machine extends), and in "
			"brackets how far the model's is from the kernel's: ! "
			"over %.0f%% and over the spread of the four means behind "
			"it, ~ within that spread (not a finding).",
			m->higher ? "rate" : "speed", files[k].tasks[0],
			CMP_HOST_SHAPE_WARN);
	fprintf(out, "\n");
}

/* What each design predicts of a replay's mm lock against the host's
 * mmap_lock (per-VMA locks), by side: the reason, and the range of
 * ratios the prediction holds for. */
static const struct {
	const char *scheme;              /* a prefix; NULL: every other */
	bool write;
	double lo, hi;
	const char *design, *expect;
} lock_meaning[] = {
	{ NULL, true, 0.5, 2, "every scheme takes the mm lock's write side "
	  "where the host does", "near 1x" },
	{ "pervma", false, 0.5, 2, "the host's own design (per-VMA locks, "
	  "6.4+): this is the comparison", "near 1x" },
	{ "spf", false, 0, 2, "faults speculate without the mm lock and take "
	  "it only to retry", "near or below the host's" },
	{ "none", false, 0, INFINITY, "no lock: counted, never contended",
	  NULL },
	{ "range", false, 2, INFINITY, "its range lock stands in for the mm "
	  "lock and every fault takes it", "far above the host's" },
	{ NULL, false, 2, INFINITY, "every fault takes the mm lock's read "
	  "side, which the host (per-VMA locks) takes for few",
	  "far above the host's" },
};

void cmp_host_lock_meaning(char *buf, size_t len, const char *scheme,
			   bool write, double ratio)
{
	size_t k = 0, n = sizeof(lock_meaning) / sizeof(*lock_meaning);

	for (; k < n - 1; k++)
		if (lock_meaning[k].write == write &&
		    (write || !lock_meaning[k].scheme || !strncmp(scheme,
		     lock_meaning[k].scheme, strlen(lock_meaning[k].scheme))))
			break;
	if (!lock_meaning[k].expect)
		snprintf(buf, len, "%s", lock_meaning[k].design);
	else if (ratio >= lock_meaning[k].lo && ratio <= lock_meaning[k].hi)
		snprintf(buf, len, "%s: %s, as the design predicts",
			 lock_meaning[k].design, lock_meaning[k].expect);
	else
		snprintf(buf, len, "%s, which predicts %s: this is not; its "
			 "lock statistics (vmsim compare) say where the "
			 "acquisitions came from", lock_meaning[k].design,
			 lock_meaning[k].expect);
}

/* One side's ratio of a replay's host_mmap_lock, NaN where none. */
static double host_lock_ratio(json_object *side, bool *replayable)
{
	json_object *v;

	*replayable = json_object_object_get_ex(side, RK_RATIO_REPLAYABLE, &v);
	if (!*replayable && !json_object_object_get_ex(side, RK_RATIO, &v))
		return NAN;
	return v && (json_object_is_type(v, json_type_double) ||
		     json_object_is_type(v, json_type_int)) ?
	       json_object_get_double(v) : NAN;
}

/* The bound the recording puts on every scheme (the replay's header
 * says it too): the host's mmap_lock waits, all threads, over its span. */
static void print_bound(FILE *out, json_object *h)
{
	json_object *side, *v;
	double span, w = 0;

	if (!json_object_object_get_ex(h, RK_HOST_SPAN_S, &v) ||
	    !(span = json_object_get_double(v), span > 0))
		return;
	for (int s = 0; s < 2; s++)
		if (json_object_object_get_ex(h, s ? RK_WRITE : RK_READ, &side) &&
		    json_object_object_get_ex(side, RK_HOST_WAIT_NS, &v))
			w += json_object_get_double(v) / 1e9;
	fprintf(out, "\nThe most a lock scheme could give this program: its threads "
		"waited %.3f ms on the host's mmap_lock in its %.3f s: at most "
		"%.2f%% of its time (a scheme changes waiting, not the work)",
		1e3 * w, span, 100 * w / span);
	if (json_object_object_get_ex(h, RK_HOST_WORST_THREAD, &side) &&
	    json_object_object_get_ex(side, RK_SHARE, &v)) {
		json_object *tid, *run;
		double share = json_object_get_double(v);

		if (json_object_object_get_ex(side, RK_TID, &tid) &&
		    json_object_object_get_ex(side, RK_RUN_S, &run))
			fprintf(out, "; the thread that waited most of its run, "
				"tid %lld: %.2f%% of its %.3f s",
				(long long)json_object_get_int64(tid), 100 * share,
				json_object_get_double(run));
	}
	fprintf(out, ".\n");
}

void cmp_print_host_lock(FILE *out, const struct cmp_file *files, int n)
{
	bool head = false, bound = false;

	for (int i = 0; i < n; i++) {
		const struct cmp_file *f = &files[i];
		json_object *p = f->ntasks ? cmp_point_of(f, f->tasks[0]) : NULL,
			    *h, *side;

		if (!p || !json_object_object_get_ex(p, RK_HOST_MMAP_LOCK, &h))
			continue;
		if (!bound)
			print_bound(out, h);
		bound = true;
		for (int s = 0; s < 2; s++) {
			char meaning[320];
			bool rep;
			double r = json_object_object_get_ex(h, s ? RK_WRITE : RK_READ,
							     &side) ?
				   host_lock_ratio(side, &rep) : NAN;

			if (!isfinite(r))
				continue;
			if (!head)
				fprintf(out, "\nThe host kernel's mmap_lock in the "
					"recording, against each scheme's mm lock "
					"an iteration%s:\n", rep ? " (the part of "
					"the host's a replay can make)" : " (the "
					"host's whole count, exec and exit in it: "
					"a version 1 recording; record again for "
					"the part a replay can make)");
			head = true;
			cmp_host_lock_meaning(meaning, sizeof(meaning),
					      f->scheme, s, r);
			fprintf(out, "%s %s: %.2fx (%s%s)\n", f->label,
				s ? "writes" : "reads", r, rep ? "" : "against the "
				"whole count, which holds what no replay "
				"makes; ", meaning);
		}
	}
}
