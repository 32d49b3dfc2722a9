/* SPDX-License-Identifier: MIT */
/* vmsim report's page (report.h). */
#include "cli/compare/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/compare/compare_int.h"
#include "cli/parse.h"

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
"figure.graph{display:inline-block;margin:6px 12px 6px 0}"
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
		json_object *cmd = at(files[i].root, (const char *const[]){ "command", NULL }),
			    *cpus = at(files[i].root, (const char *const[]){ "meta", "cpus", NULL });
		const char *s;

		fputs("<tr><td>", out);
		cmp_html_text(out, files[i].label);
		fputs("</td><td>", out);
		cmp_html_text(out, files[i].shown);
		fputs("</td><td>", out);
		cmp_html_text(out, files[i].scheme ? files[i].scheme : "");
		fputs("</td><td>", out);
		cmp_html_text(out, (s = str_at(files[i].root, "meta", "date")) ? s : "");
		fputs("</td><td>", out);
		cmp_html_text(out, (s = str_at(files[i].root, "meta", "cpu_model")) ? s : "?");
		fprintf(out, ", %d vCPUs, Linux ", cpus ? json_object_get_int(cpus) : 0);
		cmp_html_text(out, (s = str_at(files[i].root, "meta", "kernel")) ? s : "?");
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

/* One graph a metric: its mean at each task count, a line a result;
 * for a higher-is-better metric, the base's first point scaled linearly
 * with the task count (will-it-scale's reference). */
static void scaling_graphs(FILE *out, const struct cmp_file *files, int n)
{
	const struct cmp_file *b = &files[0];
	int nx = b->ntasks < MAX_X ? b->ntasks : MAX_X;
	const char *names[CMP_MAX_FILES];
	double x[MAX_X], *y = calloc((size_t)(n * MAX_X), sizeof(double)),
	       ref[MAX_X];
	char title[160], ylabel[96];

	if (!y)
		return;
	fputs("<h2>Scaling</h2>\n<p class=\"note\">The mean (Hmean where higher "
	      "is better, Amean where lower is) at each task count; the dashed "
	      "line is the base's first point times the task count "
	      "(linear scaling).</p>\n", out);
	for (int i = 0; i < n; i++)
		names[i] = files[i].label;
	for (int k = 0; k < nx; k++)
		x[k] = b->tasks[b->by_tasks[k]];
	for (int m = 0; m < b->nmetrics; m++) {
		const struct cmp_metric *mt = &b->metrics[m];

		for (int i = 0; i < n; i++)
			for (int k = 0; k < nx; k++) {
				double *s;
				size_t ns = cmp_samples_of(&files[i], mt->name,
							   (int)x[k], &s);

				y[i * nx + k] = ns && cmp_point_valid(&files[i],
						mt, (int)x[k], s, ns) ?
					cmp_stat_value(ST_MEAN, s, ns, mt->higher) : NAN;
				free(s);
			}
		for (int k = 0; k < nx; k++)
			ref[k] = y[0] * x[k] / x[0];
		snprintf(title, sizeof(title), "%s%s", mt->name,
			 mt->primary ? " (the primary metric)" : "");
		snprintf(ylabel, sizeof(ylabel), "%s %s (%s is better)",
			 mt->higher ? "Hmean" : "Amean", mt->name,
			 mt->higher ? "higher" : "lower");
		cmp_svg_lines(out, &(struct cmp_chart){
			.title = title, .xlabel = "tasks", .ylabel = ylabel,
			.nseries = n, .nx = nx, .names = names, .x = x, .y = y,
			.ref = mt->higher && nx > 1 && isfinite(y[0]) ? ref : NULL,
			.ref_name = "linear scaling (base)" });
	}
	free(y);
}

/* Latency percentiles of a touch, a graph a task count (log scale). */
static int latency_graphs(FILE *out, const struct cmp_file *files, int n)
{
	static const char *const pct[] = { "p50", "p90", "p99", "p99_9", "max" };
	static const char *const shown[] = { "p50", "p90", "p99", "p99.9", "max" };
	const struct cmp_file *b = &files[0];
	const char *names[CMP_MAX_FILES];
	double y[CMP_MAX_FILES * 5];
	int graphs = 0;

	for (int i = 0; i < n; i++)
		names[i] = files[i].label;
	for (int k = 0; k < b->ntasks; k++) {
		int tasks = b->tasks[b->by_tasks[k]];
		bool any = false;
		char title[96];

		for (int i = 0; i < n; i++)
			for (int q = 0; q < 5; q++) {
				json_object *p = cmp_point_of(&files[i], tasks);

				y[i * 5 + q] = num(at(p, (const char *const[]){
					"latency_ns", pct[q], NULL })) / 1e3;
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
			.title = title, .xlabel = "percentile", .ylabel = "us",
			.nseries = n, .nx = 5, .names = names, .xnames = shown,
			.y = y, .logy = true });
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
				     (const char *const[]){ "lockstat", NULL });

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
 * file's acquisitions per power-of-two bucket. 1 if drawn. */
static int lock_hist(FILE *out, const struct cmp_file *files, int n, int tasks,
		     const char *cls, const char *side, const char *kind)
{
	char field[32], title[160], names_buf[MAX_X][16];
	const char *names[CMP_MAX_FILES], *xn[MAX_X];
	double y[CMP_MAX_FILES * MAX_X];
	int lo = MAX_X, hi = -1;
	json_object *h[CMP_MAX_FILES];

	snprintf(field, sizeof(field), "%s_hist_log2ns", kind);
	for (int i = 0; i < n; i++) {
		names[i] = files[i].label;
		h[i] = at(cmp_point_of(&files[i], tasks),
			  (const char *const[]){ "lockstat", cls, side, field, NULL });
		for (int b = 0; h[i] && json_object_is_type(h[i], json_type_array) &&
				b < (int)json_object_array_length(h[i]) && b < MAX_X; b++)
			if (num(json_object_array_get_idx(h[i], (size_t)b)) > 0) {
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
			}
	}
	if (hi < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		double total = 0;
		size_t len = h[i] && json_object_is_type(h[i], json_type_array) ?
			     json_object_array_length(h[i]) : 0;

		for (size_t b = 0; b < len; b++)
			total += num(json_object_array_get_idx(h[i], b));
		for (int b = lo; b <= hi; b++)
			y[i * (hi - lo + 1) + b - lo] = total > 0 && (size_t)b < len ?
				100 * num(json_object_array_get_idx(h[i], (size_t)b)) /
				total : NAN;
	}
	for (int b = lo; b <= hi; b++) {
		bucket_name(names_buf[b - lo], sizeof(names_buf[0]), b);
		xn[b - lo] = names_buf[b - lo];
	}
	snprintf(title, sizeof(title), "%s %s %s time, %d task%s", cls, side, kind,
		 tasks, PLURAL(tasks));
	cmp_svg_bars(out, &(struct cmp_chart){
		.title = title, .xlabel = "at least (power-of-two buckets)",
		.ylabel = "% of acquisitions", .nseries = n, .nx = hi - lo + 1,
		.names = names, .xnames = xn, .y = y });
	return 1;
}

/* Wait and hold histograms per class and side, at the most tasks. */
static void lock_graphs(FILE *out, const struct cmp_file *files, int n)
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
						  s ? "write" : "read",
						  k ? "hold" : "wait");

				drawn += d;
				if (!d && !k && used < sizeof(nowait))
					used += (size_t)snprintf(nowait + used,
						sizeof(nowait) - used, "%s%s %s",
						used ? ", " : "", classes[c],
						s ? "write" : "read");
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
	fprintf(out, "<h2>Findings</h2>\n<p class=\"note\">What the significance "
		"marks of the primary metric's mean rows support (%s",
		cmp_test_name(o->test));
	if (!isnan(cmp_alpha(o)))
		fprintf(out, ", alpha %g", cmp_alpha(o));
	fputs("); a difference within the spread of its samples is not a "
	      "finding.</p>\n<ul class=\"findings\">\n", out);
	fputs(flen ? findings : "<li>One result: nothing to compare.</li>\n", out);
	fputs("</ul>\n", out);
	scaling_graphs(out, files, n);
	latency_graphs(out, files, n);
	lock_graphs(out, files, n);
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
