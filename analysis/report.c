/* SPDX-License-Identifier: MIT */
/* vmsim report's page (report.h). */
#include "analysis/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_int.h"
#include "base/parse.h"
#include "resfile/schema.h"

#define MAX_X 64                         /* task counts, buckets */

static const char style[] =
"body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;margin:24px;"
"color:#111;max-width:1400px}"
"h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}"
"h3{font-size:14px;margin-top:20px}"
"table{border-collapse:collapse;font-size:12px;margin:6px 0}"
"th,td{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap}"
"th{background:#f0f0f0}td:nth-child(-n+2){text-align:left}"
"tr.primary td{background:#f7f7ff;font-weight:bold}"
"td.sig em{color:#a00;font-style:normal;font-weight:bold}"
"td.within span{color:#888}td.invalid{color:#a00}"
"table.runs td{text-align:left;white-space:normal}"
"figure.graph{display:block;margin:6px 0}"
"figure.graph svg{width:100%;max-width:1400px;height:auto}"
"ul.findings li{margin:4px 0}p.note{color:#555;font-size:12px}";

/* p.<a>.<b>... (NULL-terminated keys), or NULL. */
static json_object *at(json_object *p, const char *const *keys)
{
	for (int i = 0; p && keys[i]; i++)
		if (!json_object_object_get_ex(p, keys[i], &p))
			return NULL;
	return p;
}

static const char *str_at(json_object *root, const char *a, const char *b)
{
	json_object *o = at(root, (const char *const[]){ a, b, NULL });

	return o && json_object_is_type(o, json_type_string) ?
	       json_object_get_string(o) : NULL;
}

static double num(json_object *o)
{
	return o && (json_object_is_type(o, json_type_int) ||
		     json_object_is_type(o, json_type_double)) ?
	       json_object_get_double(o) : NAN;
}

/* The runs: label, file, scheme, when, the machine, the command. */
static void runs_table(FILE *out, const struct cmp_file *files, int n)
{
	fputs("<h2>The runs</h2>\n<table class=\"runs\"><thead><tr><th>column</th>"
	      "<th>file</th><th>scheme</th><th>date</th><th>machine</th>"
	      "<th>command</th></tr></thead><tbody>\n", out);
	for (int i = 0; i < n; i++) {
		json_object *cmd = at(files[i].root, (const char *const[]){ RK_COMMAND, NULL }),
			    *cpus = at(files[i].root, (const char *const[]){ "meta", "cpus", NULL });
		const char *s;

		fputs("<tr><td>", out);
		cmp_html_text(out, files[i].label);
		fputs("</td><td>", out);
		cmp_html_text(out, files[i].shown);
		fputs("</td><td>", out);
		cmp_html_text(out, files[i].scheme ? files[i].scheme : "");
		fputs("</td><td>", out);
		cmp_html_text(out, (s = str_at(files[i].root, RK_META, RK_DATE)) ? s : "");
		fputs("</td><td>", out);
		cmp_html_text(out, (s = str_at(files[i].root, RK_META, RK_CPU_MODEL)) ? s : "?");
		fprintf(out, ", %d vCPUs, Linux ", cpus ? json_object_get_int(cpus) : 0);
		cmp_html_text(out, (s = str_at(files[i].root, RK_META, RK_KERNEL)) ? s : "?");
		fputs("</td><td><code>", out);
		for (size_t k = 0; cmd && json_object_is_type(cmd, json_type_array) &&
				   k < json_object_array_length(cmd); k++) {
			s = json_object_get_string(json_object_array_get_idx(cmd, k));
			fputs(k ? " " : "", out);
			cmp_html_text(out, s ? s : "");
		}
		fputs("</code></td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* --costs: each result whose models paid a cost profile, a line: the
 * profile, and each operation's cost, the model's own and the kernel's
 * (what it paid is their difference, place by place: docs/usage.md). */
static void costs_note(FILE *out, const struct cmp_file *files, int n)
{
	bool any = false;

	for (int i = 0; i < n; i++) {
		json_object *c = at(files[i].root, (const char *const[]){
			"options", "costs", NULL }), *ms, *m = NULL, *kobj;
		const char *scheme = str_at(files[i].root, "scheme", NULL);
		const char *tree = str_at(files[i].root, "options", "tree");

		if (!json_object_is_type(c, json_type_object))
			continue;
		if (!any)
			fputs("<h2>Operation costs</h2>\n<p class=\"note\">Each "
			      "model operation paid what the host kernel's costs "
			      "beyond its own, inside and outside its lock "
			      "(--costs): a call's cost in &micro;s, the model's "
			      "own / the kernel's.</p>\n<ul>\n", out);
		any = true;
		if (json_object_object_get_ex(c, "models", &ms) &&
		    json_object_is_type(ms, json_type_array))
			for (size_t k = 0; !m && k < json_object_array_length(ms); k++) {
				json_object *e = json_object_array_get_idx(ms, k);
				const char *s = str_at(e, "scheme", NULL);
				const char *t = str_at(e, "tree", NULL);

				if (scheme && tree && s && t && !strcmp(s, scheme) &&
				    !strcmp(t, tree))
					m = e;
			}
		fputs("<li>", out);
		cmp_html_text(out, files[i].label);
		fputs(": the cost profile of ", out);
		cmp_html_text(out, str_at(c, "date", NULL) ? str_at(c, "date", NULL) : "?");
		if (!m)
			fputs(" (the host kernel's own column: nothing paid)", out);
		/* The classes as the profile names them, in its order. */
		kobj = at(c, (const char *const[]){ "kernel", NULL });
		if (m && json_object_is_type(kobj, json_type_object)) {
			const char *sep = ":";

			json_object_object_foreach(kobj, op, kop) {
				fprintf(out, "%s %s %.2f / %.2f", sep, op,
					num(at(m, (const char *const[]){ "ops", op,
						"total_ns", NULL })) / 1e3,
					num(at(kop, (const char *const[]){
						"total_ns", NULL })) / 1e3);
				sep = ";";
			}
		}
		fputs("</li>\n", out);
	}
	if (any)
		fputs("</ul>\n", out);
}

/* A metric's y axis: the statistic, the metric, its unit. */
static void metric_label(char *buf, size_t len, const struct cmp_metric *mt)
{
	snprintf(buf, len, "%s %s%s%s (%s is better)",
		 mt->higher ? "Hmean" : "Amean", mt->name,
		 mt->unit ? ", " : "", mt->unit ? mt->unit : "",
		 mt->higher ? "higher" : "lower");
}

/* A rate per task or per CPU: linear scaling keeps it level, so the
 * total's reference line would mislead. */
static bool per_unit(const char *name)
{
	return strstr(name, "/task") || strstr(name, "/cpu");
}

/* files[i]'s mean of mt at tasks and its lowest and highest good
 * sample (NaN where the point is invalid or missing). */
static void metric_point(const struct cmp_file *f, const struct cmp_metric *mt,
			 int tasks, double *mean, double *lo, double *hi)
{
	double *s;
	size_t ns = cmp_samples_of(f, mt->name, tasks, &s);

	*mean = *lo = *hi = NAN;
	if (ns && cmp_point_valid(f, mt, tasks, s, ns)) {
		*mean = cmp_stat_value(ST_MEAN, s, ns, mt->higher);
		*lo = cmp_stat_value(ST_MIN, s, ns, mt->higher);
		*hi = cmp_stat_value(ST_MAX, s, ns, mt->higher);
	}
	free(s);
}

/* The primary metric's shape: each series' mean over its own at the
 * fewest tasks, so that series whose levels lie far apart (the uffd
 * source's models against the host kernel) compare by how they scale;
 * the dashed line is linear scaling. y: n series of nx means. */
static void shape_graph(FILE *out, const struct cmp_metric *mt, int n, int nx,
			const double *x, const double *y, const char *const *names,
			const char *const *colours)
{
	double *s = calloc((size_t)(n * nx), sizeof(double)), ref[MAX_X];
	char title[160];

	if (!s)
		return;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < nx; k++)
			s[i * nx + k] = y[i * nx + k] / y[i * nx];
	for (int k = 0; k < nx; k++)
		ref[k] = x[k] / x[0];
	snprintf(title, sizeof(title), "%s, each over its own at %g task%s "
		 "(the shape)", mt->name, x[0], x[0] == 1 ? "" : "s");
	cmp_svg_lines(out, &(struct cmp_chart){
		.title = title, .xlabel = "tasks", .ylabel = "scaling (x)",
		.nseries = n, .nx = nx, .names = names, .colours = colours,
		.x = x, .y = s, .ref = ref, .ref_name = "linear scaling" });
	free(s);
}

/* Is y (n means) a constant multiple of prev (the same figure in other
 * units: ops/sec, faults/sec and ops/sec/task at one task count)? Its
 * factor, or NaN. */
static double same_figure(const double *y, const double *prev, int n)
{
	double f = NAN;

	for (int i = 0; i < n; i++) {
		double r = y[i] / prev[i];

		if (!isfinite(r) || r <= 0)
			return NAN;
		if (isnan(f))
			f = r;
		else if (fabs(r / f - 1) > 1e-6)
			return NAN;
	}
	return n > 1 ? f : NAN;
}

/* At one task count, one chart a distinct figure: metric m (its n means
 * y) that is an earlier one's constant multiple is said in a line, not
 * drawn again (true). drawn keeps each metric's means. */
static bool drawn_before(FILE *out, const struct cmp_file *b, int m,
			 const double *y, double *drawn, int n, const char *one)
{
	const struct cmp_metric *mt = &b->metrics[m];
	double f = NAN;
	int dup = -1;

	for (int e = 0; e < m && dup < 0; e++)
		if (b->metrics[e].higher == mt->higher &&
		    isfinite(f = same_figure(y, &drawn[e * n], n)))
			dup = e;
	memcpy(&drawn[m * n], y, sizeof(double) * (size_t)n);
	if (dup < 0)
		return false;
	fputs("<p class=\"note samefigure\">", out);
	cmp_html_text(out, mt->name);
	fputs(": the same figure as ", out);
	cmp_html_text(out, b->metrics[dup].name);
	fprintf(out, " at %s (each result's is %.4gx its ", one, f);
	cmp_html_text(out, b->metrics[dup].name);
	fputs("): not drawn again.</p>\n", out);
	return true;
}

/* The legends' name of each result: its label, and what none and the
 * host kernel are beside the schemes (as the findings say): the harness
 * without a lock, and the reference. */
#define LEGEND_LEN (sizeof(((struct cmp_file *)0)->label) + 24)

static void legend_names(const struct cmp_file *files, int n,
			 char (*buf)[LEGEND_LEN], const char **names)
{
	static const char *const what[] = {
		[CMP_ROLE_SCHEME] = "", [CMP_ROLE_HARNESS] = " (harness, no lock)",
		[CMP_ROLE_HOST] = " (host kernel)",
	};

	for (int i = 0; i < n; i++) {
		snprintf(buf[i], sizeof(buf[i]), "%s%s", files[i].label,
			 what[cmp_file_role(&files[i])]);
		names[i] = buf[i];
	}
}

/* One graph a metric. At several task counts: its mean at each, a line
 * a result; for a higher-is-better metric, the base's first point
 * scaled linearly with the task count (will-it-scale's reference). At
 * one task count: a bar a result, its whisker from the lowest to the
 * highest sample. */
static void scaling_graphs(FILE *out, const struct cmp_file *files, int n,
			   const char *const *colours)
{
	const struct cmp_file *b = &files[0];
	int nx = b->ntasks < MAX_X ? b->ntasks : MAX_X;
	const char *names[CMP_MAX_FILES], *xn[1];
	char named[CMP_MAX_FILES][LEGEND_LEN];
	double x[MAX_X], *y = calloc((size_t)(3 * n * MAX_X), sizeof(double)),
	       *lo, *hi, ref[MAX_X];
	/* At one task count, each metric's means as drawn (or not). */
	double *drawn = calloc((size_t)(n * b->nmetrics + 1), sizeof(double));
	char title[160], ylabel[160], one[32];

	if (!y || !drawn) {
		free(y);
		free(drawn);
		return;
	}
	lo = y + n * MAX_X;     /* each value's lowest and highest sample */
	hi = lo + n * MAX_X;
	if (nx == 1) {
		snprintf(one, sizeof(one), "%d task%s", b->tasks[b->by_tasks[0]],
			 PLURAL(b->tasks[b->by_tasks[0]]));
		xn[0] = one;
		fprintf(out, "<h2>Each result at %s</h2>\n<p class=\"note\">The "
			"bar is the mean (Hmean where higher is better, Amean where "
			"lower is); its whisker runs from the lowest to the highest "
			"sample.</p>\n", one);
	} else {
		fputs("<h2>Scaling</h2>\n<p class=\"note\">The mean (Hmean where "
		      "higher is better, Amean where lower is) at each task count, "
		      "its whisker from the lowest to the highest sample; the "
		      "dashed line is the base's first point times the task "
		      "count (linear scaling).</p>\n", out);
	}
	legend_names(files, n, named, names);
	for (int k = 0; k < nx; k++)
		x[k] = b->tasks[b->by_tasks[k]];
	for (int m = 0; m < b->nmetrics; m++) {
		const struct cmp_metric *mt = &b->metrics[m];

		for (int i = 0; i < n; i++)
			for (int k = 0; k < nx; k++)
				metric_point(&files[i], mt, (int)x[k],
					     &y[i * nx + k], &lo[i * nx + k],
					     &hi[i * nx + k]);
		snprintf(title, sizeof(title), "%s%s", mt->name,
			 mt->primary ? " (the primary metric)" : "");
		metric_label(ylabel, sizeof(ylabel), mt);
		if (nx == 1) {
			if (drawn_before(out, b, m, y, drawn, n, one))
				continue;
			cmp_svg_bars(out, &(struct cmp_chart){
				.title = title, .xlabel = "tasks", .ylabel = ylabel,
				.nseries = n, .nx = 1, .names = names,
				.colours = colours, .xnames = xn, .y = y,
				.lo = lo, .hi = hi });
			continue;
		}
		for (int k = 0; k < nx; k++)
			ref[k] = y[0] * x[k] / x[0];
		cmp_svg_lines(out, &(struct cmp_chart){
			.title = title, .xlabel = "tasks", .ylabel = ylabel,
			.nseries = n, .nx = nx, .names = names, .colours = colours,
			.x = x, .y = y, .lo = lo, .hi = hi,
			.ref = mt->higher && isfinite(y[0]) && !per_unit(mt->name) ?
			       ref : NULL,
			.ref_name = "linear scaling (base)" });
		if (mt->primary && mt->higher && !per_unit(mt->name))
			shape_graph(out, mt, n, nx, x, y, names, colours);
	}
	free(y);
	free(drawn);
}

/* Latency percentiles of a touch, a graph a task count (log scale). */
static int latency_graphs(FILE *out, const struct cmp_file *files, int n,
			  const char *const *colours)
{
	static const char *const pct[] = { "p50", "p90", "p99", "p99_9", RK_MAX };
	static const char *const shown[] = { "p50", "p90", "p99", "p99.9", "max" };
	const struct cmp_file *b = &files[0];
	const char *names[CMP_MAX_FILES];
	char named[CMP_MAX_FILES][LEGEND_LEN];
	double y[CMP_MAX_FILES * 5];
	int graphs = 0;

	legend_names(files, n, named, names);
	for (int k = 0; k < b->ntasks; k++) {
		int tasks = b->tasks[b->by_tasks[k]];
		bool any = false;
		char title[96];

		for (int i = 0; i < n; i++)
			for (int q = 0; q < 5; q++) {
				json_object *p = cmp_point_of(&files[i], tasks);

				y[i * 5 + q] = num(at(p, (const char *const[]){
					RK_LATENCY_NS, pct[q], NULL })) / 1e3;
				any |= isfinite(y[i * 5 + q]) && y[i * 5 + q] > 0;
			}
		if (!any)
			continue;
		if (!graphs++)
			fputs("<h2>Latency</h2>\n<p class=\"note\">Percentiles of a "
			      "touch's latency (a touch that faults takes the "
			      "fault's whole time), log scale.</p>\n", out);
		snprintf(title, sizeof(title), "touch latency, %d task%s", tasks,
			 PLURAL(tasks));
		cmp_svg_lines(out, &(struct cmp_chart){
			.title = title, .xlabel = "percentile of the touches",
			.ylabel = "touch latency, us (log scale)", .nseries = n,
			.nx = 5, .names = names, .colours = colours,
			.xnames = shown, .y = y, .logy = true });
	}
	return graphs;
}

/* The lock classes any file has at tasks, in the base's order first. */
static int lock_classes(const struct cmp_file *files, int n, int tasks,
			const char **out, int max)
{
	int nc = 0;

	for (int i = 0; i < n; i++) {
		json_object *ls = at(cmp_point_of(&files[i], tasks),
				     (const char *const[]){ RK_LOCKSTAT, NULL });

		if (!ls || !json_object_is_type(ls, json_type_object))
			continue;
		json_object_object_foreach(ls, key, val) {
			bool seen = false;

			(void)val;
			for (int c = 0; c < nc; c++)
				seen |= !strcmp(out[c], key);
			if (!seen && nc < max)
				out[nc++] = key;
		}
	}
	return nc;
}

static void bucket_name(char *buf, size_t len, int i)
{
	double ns = ldexp(1, i);

	if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3gus", ns / 1e3);
	else
		snprintf(buf, len, "%.3gms", ns / 1e6);
}

/* One histogram: class, side, wait or hold, at tasks, in % of each
 * file's acquisitions per power-of-two bucket. 1 if drawn; 0 if no
 * acquisition is in it; 2 if every one of every file is in one bucket
 * (a single bar says nothing a line would not: said in one). */
static int lock_hist(FILE *out, const struct cmp_file *files, int n, int tasks,
		     const char *cls, const char *side, const char *kind,
		     const char *const *colours)
{
	char field[32], title[160], names_buf[MAX_X][16];
	char named[CMP_MAX_FILES][CMP_MAX_NAME + 48];
	const char *names[CMP_MAX_FILES], *xn[MAX_X];
	double y[CMP_MAX_FILES * MAX_X], count[CMP_MAX_FILES * MAX_X];
	int lo = MAX_X, hi = -1;
	json_object *h[CMP_MAX_FILES];

	snprintf(field, sizeof(field), "%s_hist_log2ns", kind);
	for (int i = 0; i < n; i++) {
		names[i] = files[i].label;
		h[i] = at(cmp_point_of(&files[i], tasks),
			  (const char *const[]){ RK_LOCKSTAT, cls, side, field, NULL });
		for (int b = 0; h[i] && json_object_is_type(h[i], json_type_array) &&
				b < (int)json_object_array_length(h[i]) && b < MAX_X; b++)
			if (num(json_object_array_get_idx(h[i], (size_t)b)) > 0) {
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
			}
	}
	if (hi < 0)
		return 0;
	snprintf(title, sizeof(title), "%s %s %s time, %d task%s", cls, side, kind,
		 tasks, PLURAL(tasks));
	if (lo == hi) {
		fputs("<p class=\"note nograph\">", out);
		cmp_html_text(out, title);
		if (lo) {
			bucket_name(names_buf[0], sizeof(names_buf[0]), lo);
			fprintf(out, ": every acquisition in one bucket (%s to "
				"under ", names_buf[0]);
		} else {
			fputs(": every acquisition in one bucket (under ", out);
		}
		bucket_name(names_buf[0], sizeof(names_buf[0]), lo + 1);
		fprintf(out, "%s), in every result: no graph.</p>\n", names_buf[0]);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		double total = 0;
		size_t len = h[i] && json_object_is_type(h[i], json_type_array) ?
			     json_object_array_length(h[i]) : 0;

		for (size_t b = 0; b < len; b++)
			total += num(json_object_array_get_idx(h[i], b));
		for (int b = lo; b <= hi; b++) {
			int k = i * (hi - lo + 1) + b - lo;

			count[k] = (size_t)b < len ?
				num(json_object_array_get_idx(h[i], (size_t)b)) : 0;
			y[k] = total > 0 && (size_t)b < len ? 100 * count[k] / total :
			       NAN;
		}
		/* The legend: how many acquisitions the percentages are of. */
		snprintf(named[i], sizeof(named[i]), "%s (%.0f)", files[i].label,
			 total);
		names[i] = named[i];
	}
	for (int b = lo; b <= hi; b++) {
		bucket_name(names_buf[b - lo], sizeof(names_buf[0]), b);
		xn[b - lo] = names_buf[b - lo];
	}
	cmp_svg_bars(out, &(struct cmp_chart){
		.title = title, .xlabel = !strcmp(kind, "wait") ?
			"wait, at least (power-of-two buckets of ns)" :
			"hold, at least (power-of-two buckets of ns)",
		.ylabel = "% of acquisitions (legend: how many)", .nseries = n,
		.nx = hi - lo + 1, .names = names, .colours = colours, .xnames = xn,
		.y = y, .count = count });
	return 1;
}

/* Wait and hold histograms per class and side, at the most tasks. */
static void lock_graphs(FILE *out, const struct cmp_file *files, int n,
			const char *const *colours)
{
	const struct cmp_file *b = &files[0];
	int tasks = b->ntasks ? b->tasks[b->by_tasks[b->ntasks - 1]] : 0;
	const char *classes[16];
	int nc = lock_classes(files, n, tasks, classes, 16), drawn = 0;
	char nowait[512] = "";
	size_t used = 0;

	if (nc)
		fprintf(out, "<h2>Lock wait and hold times</h2>\n<p class=\"note\">"
			"Per lock class and side, at %d task%s: the share of "
			"acquisitions whose wait (or hold) fell in each "
			"power-of-two bucket.</p>\n", tasks, PLURAL(tasks));
	for (int c = 0; c < nc; c++)
		for (int s = 0; s < 2; s++)
			for (int k = 0; k < 2; k++) {
				int d = lock_hist(out, files, n, tasks, classes[c],
						  s ? RK_WRITE : RK_READ,
						  k ? "hold" : "wait", colours);

				drawn += d == 1;
				if (!d && !k && used < sizeof(nowait))
					used += (size_t)snprintf(nowait + used,
						sizeof(nowait) - used, "%s%s %s",
						used ? ", " : "", classes[c],
						s ? RK_WRITE : RK_READ);
			}
	if (used) {
		fputs("<p class=\"note\">No acquisition waited (no wait graph): ",
		      out);
		cmp_html_text(out, nowait);
		fputs(".</p>\n", out);
	}
	if (nc && !drawn)
		fputs("<p>No lock was contended or held long enough to show.</p>\n",
		      out);
}

int cmp_report(FILE *out, const struct cmp_file *files, int n,
	       const struct cmp_opts *o)
{
	struct cmp_opts ho = *o;
	const char *colours[CMP_MAX_FILES];
	char *tables = NULL, *findings = NULL;
	size_t tlen = 0, flen = 0;
	FILE *t = open_memstream(&tables, &tlen);
	FILE *f = open_memstream(&findings, &flen);

	if (!t || !f) {
		if (t)
			fclose(t);
		if (f)
			fclose(f);
		free(tables);
		free(findings);
		return -ENOMEM;
	}
	ho.format = CMP_HTML;
	ho.findings = f;
	cmp_print(t, files, n, &ho);
	fclose(t);
	fclose(f);
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		CMP_REPORT_MARK "<title>vmsim report: ");
	cmp_html_text(out, files[0].workload_shown);
	fprintf(out, "</title><style>%s</style></head><body>\n<h1>vmsim report: "
		"workload ", style);
	cmp_html_text(out, files[0].workload_shown);
	fputs(", base ", out);
	cmp_html_text(out, files[0].label);
	fputs("</h1>\n", out);
	runs_table(out, files, n);
	costs_note(out, files, n);
	fprintf(out, "<h2>Findings</h2>\n<p class=\"note\">What the significance "
		"marks of the primary metric's mean rows support (%s",
		cmp_test_name(o->test));
	if (!isnan(cmp_alpha(o)))
		fprintf(out, ", alpha %g", cmp_alpha(o));
	fputs("); a difference within the spread of its samples is not a "
	      "finding.</p>\n<ul class=\"findings\">\n", out);
	fputs(flen ? findings : "<li>One result: nothing to compare.</li>\n", out);
	fputs("</ul>\n", out);
	cmp_svg_file_colours(files, n, colours);
	scaling_graphs(out, files, n, colours);
	latency_graphs(out, files, n, colours);
	lock_graphs(out, files, n, colours);
	fputs("<h2>Tables</h2>\n", out);
	fputs(tables, out);
	fputs("<p class=\"note\"><em>*x%*</em>: significant against the first "
	      "column; (~x%): smaller than the spread of the samples behind it; "
	      "(!x%): disturbed by a preempted spinning-lock holder or other "
	      "load; "
	      "positive is better. Written by vmsim report.</p>\n</body></html>\n",
	      out);
	free(tables);
	free(findings);
	return ferror(out) ? -EIO : 0;
}
