/* SPDX-License-Identifier: MIT */
/*
 * The regression gate: does a candidate make a primary metric worse?
 *
 * The error model (docs/gate.md):
 *  - What is tested: each primary metric of the workload (one per
 *    workload) at each task count of the base, for each later file.
 *  - A row is a regression when its mean (Hmean or Amean) is worse than
 *    the base's by more than the minimum effect (--fail-on-regression=PCT)
 *    AND the difference is significant in a one-sided test (the worse
 *    direction: Welch's t by default) after Holm–Bonferroni over every
 *    row tested, so that the chance of any false alarm in the whole
 *    family stays at alpha (0.05 unless --alpha), however many rows.
 *  - A row with fewer than 3 samples on either side cannot be judged:
 *    no verdict at all, never a pass.
 *  - vmsim gate, which runs both sides in alternating rounds, tests by
 *    round instead (cmp_gate_rounds): a round is one pair run side by
 *    side, its difference the log ratio of the two runs' means, and
 *    the test a one-sample t over the rounds' differences (df rounds-1).
 *    Samples inside one run share that moment's machine; pooled as if
 *    independent, a drift between rounds looks significant. At least 3
 *    rounds.
 * The last line printed is the verdict: "PASS: …", "REGRESSION: …" or
 * "CANNOT JUDGE: …".
 */
#include "analysis/compare_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/complain.h"
#include "base/stats.h"
#include "base/parse.h"

#define GATE_MIN_SAMPLES 3

struct gate_row {
	const struct cmp_metric *m;
	int tasks, file;
	double effect;                   /* %, positive = better */
	double p;                        /* one-sided, towards worse */
	double threshold;                /* Holm's, once sorted */
	bool rejected;
	/* The test's standard error (log ratio) and degrees of freedom,
	 * for the smallest change it could have detected; NaN: pooled. */
	double se, df;
	double mde;                      /* %, worse: set by verdict() */
	const char *name;                /* its side's name; NULL: the file's */
};

/* What a row's candidate is called: its side (a folder of runs), or its
 * file. */
static const char *row_name(const struct gate_row *r,
			    const struct cmp_file *files)
{
	return r->name ? r->name : files[r->file].shown;
}

double cmp_gate_alpha(const struct cmp_opts *o)
{
	return o->alpha > 0 ? o->alpha : 0.05;
}

/* The rule's two-sided p-value, made one-sided towards "worse". */
static double one_sided_p(const struct cmp_opts *o, const double *b, size_t nb,
			  const double *x, size_t nx, bool higher, double effect)
{
	double p2;

	cmp_significant(o, b, nb, x, nx, higher, &p2);
	if (isnan(p2))
		return NAN;
	return effect < 0 ? p2 / 2 : 1 - p2 / 2;
}

static int by_p(const void *a, const void *b)
{
	double x = ((const struct gate_row *)a)->p;
	double y = ((const struct gate_row *)b)->p;

	return (x > y) - (x < y);
}

/* Every row the gate tests, with its effect and p; -1 (why filled) when
 * one cannot be judged. */
/* A point the machine did not let be measured (cmp_point_disturbed) is
 * no evidence either way: the gate cannot judge it. -EINVAL with why. */
static int refuse_disturbed(const struct cmp_opts *o, const struct cmp_file *f,
			    const struct cmp_metric *m, int tasks, char *why,
			    size_t len)
{
	char what[128];

	if (!cmp_point_disturbed(f, tasks, what, sizeof(what)))
		return 0;
	if (o->allow_disturbed) {
		fprintf(stderr, "vmsim: gate: %s-%d of %s was disturbed (%s): "
			"judged anyway (--allow-disturbed)\n", m->name, tasks,
			f->shown, what);
		return 0;
	}
	snprintf(why, len, "%s-%d of %s was disturbed (%s): not a finding; "
		 "gate on a quieter machine", m->name, tasks, f->shown, what);
	return -EINVAL;
}

static int gate_rows(const struct cmp_file *files, int n,
		     const struct cmp_opts *o, struct gate_row **out,
		     int *nrows, char *why, size_t len)
{
	const struct cmp_file *b = &files[0];
	int cap = b->nmetrics * b->ntasks * (n - 1), k = 0;
	struct gate_row *r = calloc((size_t)(cap ? cap : 1), sizeof(*r));

	if (!r) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (int m = 0; m < b->nmetrics; m++) {
		const struct cmp_metric *mt = &b->metrics[m];

		for (int t = 0; mt->primary && t < b->ntasks; t++)
			for (int i = 1; i < n; i++) {
				double *xb, *xi;
				size_t nb = cmp_samples_of(b, mt->name, b->tasks[t], &xb);
				size_t ni = cmp_samples_of(&files[i], mt->name,
						       b->tasks[t], &xi);

				if (nb < GATE_MIN_SAMPLES || ni < GATE_MIN_SAMPLES) {
					snprintf(why, len, "%s-%d has %zu sample%s in "
						 "%s (the gate needs at least %d on "
						 "each side to judge)", mt->name,
						 b->tasks[t], nb < ni ? nb : ni,
						 PLURAL(nb < ni ? nb : ni),
						 nb < ni ? b->shown : files[i].shown,
						 GATE_MIN_SAMPLES);
					free(xb);
					free(xi);
					free(r);
					return -1;
				}
				/* After the count: a file's own fault first. */
				if (refuse_disturbed(o, b, mt, b->tasks[t], why, len) ||
				    refuse_disturbed(o, &files[i], mt, b->tasks[t],
						     why, len)) {
					free(xb);
					free(xi);
					free(r);
					return -1;
				}
				r[k] = (struct gate_row){ .m = mt, .tasks = b->tasks[t],
							  .file = i, .se = NAN,
							  .df = NAN };
				r[k].effect = cmp_pct_diff(
					cmp_stat_value(ST_MEAN, xb, nb, mt->higher),
					cmp_stat_value(ST_MEAN, xi, ni, mt->higher),
					mt->higher);
				r[k].p = one_sided_p(o, xb, nb, xi, ni, mt->higher,
						     r[k].effect);
				if (isnan(r[k].p))
					r[k].p = 1;      /* no spread: no evidence */
				k++;
				free(xb);
				free(xi);
			}
	}
	if (!k) {
		snprintf(why, len, "%s declares no primary metric to gate on",
			 b->shown);
		free(r);
		return -1;
	}
	*out = r;
	*nrows = k;
	return 0;
}

/* Holm–Bonferroni: the k-th smallest p (from 0) is held against
 * alpha / (m - k); the first that fails stops every later one. */
static void holm(struct gate_row *r, int m, double alpha)
{
	bool go = true;

	qsort(r, (size_t)m, sizeof(*r), by_p);
	for (int k = 0; k < m; k++) {
		r[k].threshold = alpha / (double)(m - k);
		r[k].rejected = go && r[k].p <= r[k].threshold;
		go = r[k].rejected;
	}
}

/*
 * The smallest worsening a row could have detected: the change whose t
 * reaches the critical value of the row's one-sided test at alpha / m —
 * the level Holm holds the first row to, so none is held to less. A
 * change smaller than it passes whatever it is; where it is larger than
 * the minimum effect the gate guards, a PASS would say nothing.
 */
static void detectable(struct gate_row *r, int m, double alpha)
{
	for (int k = 0; k < m; k++) {
		double t = stats_t_critical(alpha / m, r[k].df);

		r[k].mde = isfinite(t) && isfinite(r[k].se) ?
			   100 * (1 - exp(-t * r[k].se)) : NAN;
	}
}

/* One line a row: its change, p and what it could have detected. */
static void row_lines(FILE *out, const struct gate_row *r, int nr,
		      const struct cmp_file *files)
{
	for (int k = 0; k < nr; k++) {
		if (isnan(r[k].mde))
			continue;
		fprintf(out, "row %s-%d of %s: %+.2f%% (one-sided p = %.3g); the "
			"smallest worsening it could have detected: %.2f%%\n",
			r[k].m->name, r[k].tasks, row_name(&r[k], files),
			r[k].effect, r[k].p, r[k].mde);
	}
}

/* Holm over the rows, a line per regression, the verdict into line;
 * how says which test made the p-values. A gate finds a regression, or
 * passes only when every row could have seen one of pct: else it cannot
 * judge, and says how large a change it could have seen. */
/* The rows, judged, into rows (if asked for): what vmsim gate --junit
 * writes. */
static void keep_rows(struct cmp_gate_rows *rows, const struct gate_row *r,
		      int nr, const struct cmp_file *files, double pct)
{
	struct cmp_gate_row *k;

	if (!rows || !nr)
		return;
	k = realloc(rows->row, sizeof(*k) * (size_t)(rows->n + nr));
	if (!k)
		return;
	rows->row = k;
	for (int i = 0; i < nr; i++) {
		struct cmp_gate_row *o = &rows->row[rows->n++];

		memset(o, 0, sizeof(*o));
		snprintf(o->metric, sizeof(o->metric), "%s", r[i].m->name);
		snprintf(o->workload, sizeof(o->workload), "%s",
			 files[0].workload_shown);
		snprintf(o->candidate, sizeof(o->candidate), "%s",
			 row_name(&r[i], files));
		o->tasks = r[i].tasks;
		o->effect = r[i].effect;
		o->p = r[i].p;
		o->threshold = r[i].threshold;
		o->mde = r[i].mde;
		o->regression = r[i].rejected && r[i].effect < -pct;
		o->blind = isfinite(r[i].mde) && r[i].mde > pct;
	}
}

static int verdict(FILE *out, struct gate_row *r, int nr,
		   const struct cmp_file *files, const char *base, double alpha,
		   double pct, const char *how, char *line, size_t len,
		   struct cmp_gate_rows *rows)
{
	struct gate_row *worst = NULL, *smallest = NULL, *blind = NULL;
	int nreg = 0, nsig = 0;
	char could[96] = "";

	detectable(r, nr, alpha);
	row_lines(out, r, nr, files);
	holm(r, nr, alpha);
	for (int k = 0; k < nr; k++) {
		bool worse = r[k].effect < -pct;

		if (!smallest || r[k].effect < smallest->effect)
			smallest = &r[k];
		if (isfinite(r[k].mde) && (!blind || r[k].mde > blind->mde))
			blind = &r[k];
		if (!r[k].rejected)
			continue;
		nsig++;
		if (!worse)
			continue;
		nreg++;
		if (!worst || r[k].effect < worst->effect)
			worst = &r[k];
		fprintf(out, "regression: %s-%d in %s (%s) is %.2f%% worse than "
			"%s (%s p = %.3g, Holm threshold %.3g)\n",
			r[k].m->name, r[k].tasks, row_name(&r[k], files),
			files[r[k].file].label, -r[k].effect,
			base ? base : files[0].shown, how, r[k].p, r[k].threshold);
	}
	keep_rows(rows, r, nr, files, pct);
	if (blind)
		snprintf(could, sizeof(could), "; it could have detected a "
			 "worsening of %.2f%% or more", blind->mde);
	if (nreg)
		snprintf(line, len, "REGRESSION: %s-%d %.2f%% worse in %s (%d of "
			 "%d rows: more than %g%% worse and significant at "
			 "family-wise alpha %g; %s)", worst->m->name, worst->tasks,
			 -worst->effect, row_name(worst, files), nreg, nr, pct,
			 alpha, how);
	else if (blind && blind->mde > pct)
		snprintf(line, len, "CANNOT JUDGE: the smallest worsening this "
			 "gate could have detected is %.2f%% (%s-%d; %s), more "
			 "than the %g%% it guards: a PASS "
			 "would not mean a change under %g%%; more rounds or runs, "
			 "a quieter machine, or a larger --fail-on-regression (the "
			 "largest change: %s-%d %+.2f%%)", blind->mde,
			 blind->m->name, blind->tasks, how, pct, pct,
			 smallest->m->name, smallest->tasks, smallest->effect);
	else
		snprintf(line, len, "PASS: no primary metric more than %g%% worse "
			 "with family-wise significance (%s, Holm over %d row%s, "
			 "alpha %g); the largest change: %s-%d %+.2f%%%s%s",
			 pct, how, nr, PLURAL(nr), alpha,
			 smallest->m->name, smallest->tasks, smallest->effect,
			 nsig ? " (the significant drops are all within the "
			 "minimum effect)" : "", could);
	if (nreg)
		return CMP_REGRESSION;
	return blind && blind->mde > pct ? CMP_CANNOT_JUDGE : CMP_PASS;
}

static int refuse_rule(const struct cmp_opts *o, char *line, size_t len)
{
	if (o->test != CMP_MMTESTS_CI)
		return 0;
	snprintf(line, len, "CANNOT JUDGE: the mmtests-ci rule has no "
		 "p-value for family-wise control; gate with welch, "
		 "mannwhitney or mmtests-ttest");
	return -1;
}

int cmp_gate(FILE *out, const struct cmp_file *files, int n,
	     const struct cmp_opts *o, double pct, char *line, size_t len)
{
	struct gate_row *r = NULL;
	int nr = 0, ret;
	char why[512], how[64];

	if (refuse_rule(o, line, len))
		return CMP_CANNOT_JUDGE;
	if (n < 2) {
		snprintf(line, len, "CANNOT JUDGE: the gate needs a base and a "
			 "candidate (two files or more)");
		return CMP_CANNOT_JUDGE;
	}
	if (gate_rows(files, n, o, &r, &nr, why, sizeof(why))) {
		snprintf(line, len, "CANNOT JUDGE: %s", why);
		return CMP_CANNOT_JUDGE;
	}
	snprintf(how, sizeof(how), "%s one-sided", cmp_test_name(o->test));
	ret = verdict(out, r, nr, files, NULL, cmp_gate_alpha(o), pct, how,
		      line, len, o->rows);
	free(r);
	return ret;
}

/* The gate cannot judge: line says why (one clause); r is freed. */
static int cannot_judge(struct gate_row *r, const char *why, char *line,
			size_t len)
{
	snprintf(line, len, "CANNOT JUDGE: %s", why);
	free(r);
	return CMP_CANNOT_JUDGE;
}

/* No row to judge: the base declares no primary metric. */
static int no_primary(struct gate_row *r, const struct cmp_file *b, char *line,
		      size_t len)
{
	char why[320];

	snprintf(why, sizeof(why), "%s declares no primary metric to gate on",
		 b->shown);
	return cannot_judge(r, why, line, len);
}

/* The mean of metric m at tasks in one run; NaN when it has none. */
static double run_mean(const struct cmp_file *f, const struct cmp_metric *m,
		       int tasks)
{
	double *x, v;
	size_t n = cmp_samples_of(f, m->name, tasks, &x);

	v = n ? cmp_stat_value(ST_MEAN, x, n, m->higher) : NAN;
	free(x);
	return v;
}

/* A row by rounds: the log ratios (positive = better), their mean as
 * the effect, the one-sided t as p. -EINVAL with why when a round has no
 * usable mean; -ENOMEM. */
static int round_row(const struct cmp_opts *o,
		     const struct cmp_file *const runs[2], int rounds,
		     const struct cmp_metric *m, int tasks, struct gate_row *row,
		     char *why, size_t len)
{
	double *d = calloc((size_t)rounds, sizeof(*d));

	if (!d) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < rounds; i++) {
		double b = run_mean(&runs[0][i], m, tasks),
		       c = run_mean(&runs[1][i], m, tasks);

		if (refuse_disturbed(o, &runs[0][i], m, tasks, why, len) ||
		    refuse_disturbed(o, &runs[1][i], m, tasks, why, len)) {
			free(d);
			return -EINVAL;
		}

		if (!(b > 0) || !(c > 0) || !isfinite(b) || !isfinite(c)) {
			snprintf(why, len, "%s-%d of round %d is not a positive "
				 "mean on both sides (base %g, candidate %g)",
				 m->name, tasks, i + 1, b, c);
			free(d);
			return -EINVAL;
		}
		d[i] = m->higher ? log(c / b) : log(b / c);
	}
	*row = (struct gate_row){ .m = m, .tasks = tasks, .file = 1,
				  .df = rounds - 1 };
	row->se = stats_stddev(d, (size_t)rounds) / sqrt((double)rounds);
	row->effect = 100 * (exp(stats_amean(d, (size_t)rounds)) - 1);
	row->p = stats_t_below_p(d, (size_t)rounds);
	if (isnan(row->p))
		row->p = 1;
	free(d);
	return 0;
}

int cmp_gate_rounds(FILE *out, const struct cmp_file *const runs[2],
		    int rounds, const struct cmp_file pooled[2],
		    const struct cmp_opts *o, double pct, char *line,
		    size_t len)
{
	const struct cmp_file *b = &pooled[0];
	struct gate_row *r;
	int nr = 0, ret;
	char why[512], how[64];

	if (rounds < GATE_MIN_SAMPLES) {
		snprintf(line, len, "CANNOT JUDGE: %d round%s (the gate needs at "
			 "least %d rounds to judge by round)", rounds,
			 PLURAL(rounds), GATE_MIN_SAMPLES);
		return CMP_CANNOT_JUDGE;
	}
	r = calloc((size_t)(b->nmetrics * b->ntasks + 1), sizeof(*r));
	if (!r) {
		snprintf(line, len, "CANNOT JUDGE: out of memory");
		return CMP_CANNOT_JUDGE;
	}
	for (int m = 0; m < b->nmetrics; m++)
		for (int t = 0; b->metrics[m].primary && t < b->ntasks; t++)
			if (round_row(o, runs, rounds, &b->metrics[m], b->tasks[t],
				      &r[nr++], why, sizeof(why)))
				return cannot_judge(r, why, line, len);
	if (!nr)
		return no_primary(r, b, line, len);
	snprintf(how, sizeof(how), "paired by round: one-sided t over %d "
		 "rounds", rounds);
	ret = verdict(out, r, nr, pooled, NULL, cmp_gate_alpha(o), pct, how,
		      line, len, o->rows);
	free(r);
	return ret;
}

/* The logs of one side's run means of metric m at tasks (side: the
 * files whose side[] is s); their count, or -1 (why filled) when a run
 * has no positive mean there. */
static int side_logs(const struct cmp_opts *o, const struct cmp_file *files,
		     const int *side, int n, int s, const struct cmp_metric *m,
		     int tasks, double *out, char *why, size_t len)
{
	int k = 0;

	for (int i = 0; i < n; i++) {
		double v;

		if (side[i] != s)
			continue;
		if (refuse_disturbed(o, &files[i], m, tasks, why, len))
			return -1;
		v = run_mean(&files[i], m, tasks);
		if (!(v > 0) || !isfinite(v)) {
			snprintf(why, len, "%s-%d of %s is not a positive mean "
				 "(%g)", m->name, tasks, files[i].shown, v);
			return -1;
		}
		out[k++] = log(v);
	}
	return k;
}

/* One row by run means: Student's t on the logs with a pooled variance
 * (the runs of both sides spread alike: one machine, one recipe), df =
 * nb + nc - 2, one-sided towards worse. -EINVAL with why when it cannot
 * be tested. */
static int runs_row(const struct cmp_opts *o, const struct cmp_file *files,
		    const int *side, int n, int cs, int cfile,
		    const struct cmp_metric *m, int tasks, struct gate_row *row,
		    char *why, size_t len)
{
	double *lb = calloc((size_t)n, sizeof(double)), *lc = calloc((size_t)n,
		sizeof(double)), sp2, d;
	int nb, nc, ret = -EINVAL;

	if (!lb || !lc) {
		snprintf(why, len, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	nb = side_logs(o, files, side, n, side[0], m, tasks, lb, why, len);
	nc = side_logs(o, files, side, n, cs, m, tasks, lc, why, len);
	if (nb < 0 || nc < 0)
		goto out;
	if (nb + nc - 2 < 2) {
		snprintf(why, len, "%d run%s of the base and %d of %s: the "
			 "spread between runs (separate runs of one build differ "
			 "by several percent) cannot be measured from so few, "
			 "and one sample's spread is not it; give a folder of 3 "
			 "or more runs a side (vmsim run -o baseline/run1.json ...), "
			 "or gate with vmsim gate, which runs both sides in "
			 "rounds", nb, PLURAL(nb), nc, files[cfile].shown);
		goto out;
	}
	sp2 = ((nb > 1 ? (nb - 1) * pow(stats_stddev(lb, (size_t)nb), 2) : 0) +
	       (nc > 1 ? (nc - 1) * pow(stats_stddev(lc, (size_t)nc), 2) : 0)) /
	      (nb + nc - 2);
	d = stats_amean(lc, (size_t)nc) - stats_amean(lb, (size_t)nb);
	if (!m->higher)
		d = -d;
	*row = (struct gate_row){ .m = m, .tasks = tasks, .file = cfile,
				  .df = nb + nc - 2 };
	row->se = sqrt(sp2 * (1.0 / nb + 1.0 / nc));
	row->effect = 100 * (exp(d) - 1);
	row->p = row->se > 0 ? stats_t_cdf(d / row->se, row->df) :
		 d < 0 ? 0.0 : 1.0;
	if (isnan(row->p))
		row->p = 1;
	ret = 0;
out:
	free(lb);
	free(lc);
	return ret;
}

/* Side s's name (side[] values are the index of its first file): its
 * file, or for several runs their folder and count. */
static void side_name(const struct cmp_file *files, const int *side, int n,
		      int s, char *out, size_t len)
{
	int k = 0, first = -1;
	const char *slash;

	for (int i = 0; i < n; i++)
		if (side[i] == s) {
			k++;
			if (first < 0)
				first = i;
		}
	if (first < 0) {
		out[0] = 0;
		return;
	}
	slash = strrchr(files[first].shown, '/');
	if (k == 1 || !slash)
		snprintf(out, len, "%s", files[first].shown);
	else
		snprintf(out, len, "%.*s/ (%d runs)",
			 (int)(slash - files[first].shown), files[first].shown, k);
}

int cmp_gate_runs(FILE *out, const struct cmp_file *files, const int *side,
		  int n, const struct cmp_opts *o, double pct, char *line,
		  size_t len)
{
	const struct cmp_file *b = &files[0];
	struct gate_row *r;
	int nr = 0, ret, nb = 0;
	char why[768], how[96], (*names)[300];

	if (refuse_rule(o, line, len))
		return CMP_CANNOT_JUDGE;
	for (int i = 0; i < n; i++)
		nb += side[i] == side[0];
	if (nb == n) {
		snprintf(line, len, "CANNOT JUDGE: the gate needs a base and a "
			 "candidate (two files or folders of runs)");
		return CMP_CANNOT_JUDGE;
	}
	r = calloc((size_t)(b->nmetrics * b->ntasks * n + 1), sizeof(*r));
	if (!r) {
		snprintf(line, len, "CANNOT JUDGE: out of memory");
		return CMP_CANNOT_JUDGE;
	}
	/* Each candidate side, by its first file. */
	for (int c = 1; c < n; c++) {
		bool first = side[c] != side[0];

		for (int j = 1; j < c && first; j++)
			first = side[j] != side[c];
		for (int m = 0; first && m < b->nmetrics; m++)
			for (int t = 0; b->metrics[m].primary && t < b->ntasks; t++)
				if (runs_row(o, files, side, n, side[c], c,
					     &b->metrics[m], b->tasks[t], &r[nr++],
					     why, sizeof(why)))
					return cannot_judge(r, why, line, len);
	}
	if (!nr)
		return no_primary(r, b, line, len);
	snprintf(how, sizeof(how), "run means: one-sided t over %d base run%s "
		 "and the candidate's, %g df", nb, PLURAL(nb), r[0].df);
	names = calloc((size_t)n, sizeof(*names));
	for (int i = 0; names && i < n; i++)
		side_name(files, side, n, i, names[i], sizeof(names[i]));
	for (int k = 0; names && k < nr; k++)
		r[k].name = names[side[r[k].file]];
	ret = verdict(out, r, nr, files, names ? names[side[0]] : NULL,
		      cmp_gate_alpha(o), pct, how, line, len, o->rows);
	free(names);
	free(r);
	return ret;
}

/* --- vmsim gate's rules on its runs (cli/cmd_gate.c runs them) --- */

/* The primary metric of f (the first metric if it declares none). */
const struct cmp_metric *cmp_primary_metric(const struct cmp_file *f)
{
	for (int k = 0; k < f->nmetrics; k++)
		if (f->metrics[k].primary)
			return &f->metrics[k];
	return &f->metrics[0];
}

/* c against b in m at tasks: %, positive better (as compare prints). */
double cmp_change(const struct cmp_file *b, const struct cmp_file *c,
		     const struct cmp_metric *m, int tasks)
{
	double *x, *y, d;
	size_t nx = cmp_samples_of(b, m->name, tasks, &x);
	size_t ny = cmp_samples_of(c, m->name, tasks, &y);

	d = m->higher ? 100 * stats_hmean(y, ny) / stats_hmean(x, nx) - 100
		      : 100 - 100 * stats_amean(y, ny) / stats_amean(x, nx);
	free(x);
	free(y);
	return d;
}

/* Is f a result of the run ref is one of: its task counts, and each
 * primary mean finite and within CMP_GATE_MAX_RATIO of ref's? 0, or -EINVAL
 * with why. (A candidate that writes another run's result, or a number no
 * run measures, is not judged as if it were one.) */
int cmp_gate_unlike(const struct cmp_file *ref, const struct cmp_file *f,
		    char *why, size_t len)
{
	const struct cmp_metric *m = cmp_primary_metric(ref);

	if (f->ntasks != ref->ntasks ||
	    memcmp(f->tasks, ref->tasks, sizeof(int) * (size_t)f->ntasks))
		return msg_fail(why, len, -EINVAL, "its task counts are not the "
				"recipe's");
	for (int t = 0; t < ref->ntasks; t++) {
		double *x, *y, mx, my;
		size_t nx = cmp_samples_of(ref, m->name, ref->tasks[t], &x);
		size_t ny = cmp_samples_of(f, m->name, ref->tasks[t], &y);

		mx = nx ? stats_amean(x, nx) : NAN;
		my = ny ? stats_amean(y, ny) : NAN;
		free(x);
		free(y);
		if (!isfinite(mx) || !isfinite(my) || !(my / mx <= CMP_GATE_MAX_RATIO) ||
		    !(mx / my <= CMP_GATE_MAX_RATIO))
			return msg_fail(why, len, -EINVAL, "its %s at %d task%s "
					"(%.4g) is not a measurement of the run "
					"that gave %.4g", m->name, ref->tasks[t],
					PLURAL(ref->tasks[t]), my, mx);
	}
	return 0;
}

/* A stored base: can it be judged at all, before anything runs?
 * CMP_PASS (yes), or CMP_CANNOT_JUDGE with line. */
int cmp_gate_check_stored(const struct cmp_file *st, const char *name,
			  const struct cmp_opts *o, double pct, char *line,
			  size_t len)
{
	struct cmp_file twice[2] = { *st, *st };
	FILE *null = fopen("/dev/null", "w");
	char why[1024];
	int v = cmp_gate(null ? null : stdout, twice, 2, o, pct, line,
			 len);

	if (null)
		fclose(null);
	if (v == CMP_CANNOT_JUDGE)
		return v;
	if (cmp_validate(st, NULL, why, sizeof(why))) {
		snprintf(line, len, "CANNOT JUDGE: %.200s is not a valid "
			 "measurement: %.600s", name, why);
		return CMP_CANNOT_JUDGE;
	}
	return CMP_PASS;
}

/* A stored base against the candidate's runs, by run means: the one
 * stored run against the spread of the candidate's (cmp_gate_runs). */
int cmp_gate_stored(const struct cmp_file *st, const struct cmp_file *cand,
		    int n, const struct cmp_opts *o, double pct, char *line,
		    size_t len)
{
	struct cmp_file *f = calloc((size_t)n + 1, sizeof(*f));
	int *side = calloc((size_t)n + 1, sizeof(int)), v;

	if (!f || !side) {
		free(f);
		free(side);
		snprintf(line, len, "CANNOT JUDGE: out of memory");
		return CMP_CANNOT_JUDGE;
	}
	f[0] = *st;                      /* shallow: freed by the caller */
	for (int i = 0; i < n; i++) {
		f[i + 1] = cand[i];
		side[i + 1] = 1;
	}
	v = cmp_gate_runs(stdout, f, side, n + 1, o, pct, line, len);
	free(f);
	free(side);
	return v;
}
