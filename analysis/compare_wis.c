/* SPDX-License-Identifier: MIT */
/*
 * compare --format wis: the will-it-scale summary as the percpu-sheaves
 * thread prints it — one markdown block per test (workload, task count,
 * mode), a row per file (the first is BASE) with MIN, MAX, MEAN, MEDIAN
 * and STDDEV of the primary metric's samples, and a % row per file
 * against BASE:
 *
 *   |            | MIN        | MAX        | MEAN       | MEDIAN     | STDDEV     |
 *   |:-----------|:-----------|:-----------|:-----------|:-----------|:-----------|
 *   | brk1_8_processes
 *   | BASE       | 7,667,220  | 7,705,767  | 7,682,782  | 7,676,211  | 12,733     |
 *   | TEST       | 9,477,395  | 10,053,058 | 9,878,753  | 9,959,360  | 182,014    |
 *   | %          | +23.61%    | +30.46%    | +28.58%    | +29.74%    | +1,329.46% |
 *
 * MEAN is the arithmetic mean and STDDEV the sample standard deviation,
 * as will-it-scale's own summary computes them; the % row is the plain
 * change, 100 * (test - base) / base, for every column (a larger STDDEV
 * shows as a positive change, as in the thread).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_int.h"
#include "base/stats.h"
#include "resfile/schema.h"

#define WIS_COLS 5

/* v with thousands separators: no decimals from 1000 up, else two. */
static void fmt_num(char *out, size_t len, double v, bool sign)
{
	char digits[64], *p = out;
	const char *d = digits;
	int n, lead;

	if (!isfinite(v)) {
		snprintf(out, len, "n/a");
		return;
	}
	snprintf(digits, sizeof(digits), fabs(v) >= 1000 ? "%.0f" : "%.2f",
		 fabs(v));
	n = (int)strcspn(digits, ".");
	if (len < sizeof(digits) + 24)
		return;
	if (v < 0)
		*p++ = '-';
	else if (sign)
		*p++ = '+';
	lead = n % 3 ? n % 3 : 3;
	for (int i = 0; i < n; i++) {
		if (i && (i - lead) % 3 == 0)
			*p++ = ',';
		*p++ = *d++;
	}
	strcpy(p, d);
}

static void row(FILE *out, const char *label, const double *v, bool pct,
		bool invalid)
{
	fprintf(out, "| %-10s |", label);
	for (int c = 0; c < WIS_COLS; c++) {
		char s[96];

		if (invalid) {
			fprintf(out, " %-10s |", "invalid");
			continue;
		}
		fmt_num(s, sizeof(s), v[c], pct);
		if (pct && isfinite(v[c]))
			strcat(s, "%");
		fprintf(out, " %-10s |", s);
	}
	fprintf(out, "\n");
}

/* MIN, MAX, MEAN, MEDIAN, STDDEV of f's samples of m at tasks. */
static bool summary(const struct cmp_file *f, const struct cmp_metric *m,
		    int tasks, double v[WIS_COLS])
{
	double *x;
	size_t n = cmp_samples_of(f, m->name, tasks, &x);
	bool ok = n > 0 && cmp_point_valid(f, m, tasks, x, n);

	if (ok) {
		v[0] = stats_min(x, n);
		v[1] = stats_max(x, n);
		v[2] = stats_amean(x, n);
		v[3] = stats_median(x, n);
		v[4] = stats_stddev(x, n);
	}
	free(x);
	return ok;
}

/* "threads" or "processes", from the base file's options. */
static const char *mode_of(const struct cmp_file *f)
{
	json_object *o, *m;

	if (json_object_object_get_ex(f->root, RK_OPTIONS, &o) &&
	    json_object_object_get_ex(o, "mode", &m) &&
	    json_object_is_type(m, json_type_string))
		return json_object_get_string(m);
	return "threads";
}

static void test_block(FILE *out, const struct cmp_file *files, int n,
		       const struct cmp_metric *m, int tasks, bool name_metric)
{
	double base[WIS_COLS], v[WIS_COLS], pct[WIS_COLS];
	bool have_base = summary(&files[0], m, tasks, base);

	fprintf(out, "| %s_%d_%s", files[0].workload_shown, tasks,
		mode_of(&files[0]));
	if (name_metric)
		fprintf(out, " (%s)", m->name);
	fprintf(out, "\n");
	for (int i = 0; i < n; i++) {
		bool ok = summary(&files[i], m, tasks, v);

		row(out, i ? files[i].label : "BASE", v, false, !ok);
		if (!i)
			continue;
		for (int c = 0; c < WIS_COLS; c++)
			pct[c] = have_base && ok && base[c] != 0 ?
				 100 * (v[c] - base[c]) / base[c] : NAN;
		row(out, "%", pct, true, false);
	}
}

void cmp_print_wis(FILE *out, const struct cmp_file *files, int n)
{
	static const char *const cols[WIS_COLS] = { "MIN", "MAX", "MEAN",
						    "MEDIAN", "STDDEV" };
	const int *tasks = files[0].tasks;
	int nt = files[0].ntasks, nprimary = 0;
	bool first = true;

	fprintf(out, "| %-10s |", "");
	for (int c = 0; c < WIS_COLS; c++)
		fprintf(out, " %-10s |", cols[c]);
	fprintf(out, "\n|:-----------|");
	for (int c = 0; c < WIS_COLS; c++)
		fprintf(out, ":-----------|");
	fprintf(out, "\n");
	for (int mi = 0; mi < files[0].nmetrics; mi++)
		nprimary += files[0].metrics[mi].primary;
	for (int mi = 0; mi < files[0].nmetrics; mi++) {
		const struct cmp_metric *m = &files[0].metrics[mi];

		if (!m->primary)
			continue;
		for (int t = 0; t < nt; t++) {
			if (!first)
				fprintf(out, "\n");
			first = false;
			test_block(out, files, n, m, tasks[t], nprimary > 1);
		}
	}
	fprintf(out, "\nBASE: %s", files[0].label);
	for (int i = 1; i < n; i++)
		fprintf(out, "%s%s", i == 1 ? "; against it: " : ", ",
			files[i].label);
	fprintf(out, "\n");
}
