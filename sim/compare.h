/* SPDX-License-Identifier: MIT */
/*
 * compare — read result files and print the comparison kernel developers
 * paste into mail (mmtests compare-kernels style), and the regression
 * gate CI uses.
 */
#ifndef VMSIM_COMPARE_H
#define VMSIM_COMPARE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#define CMP_MAX_METRICS 16

enum cmp_format { CMP_TEXT, CMP_MARKDOWN, CMP_CSV, CMP_JSON, CMP_GNUPLOT };
/*
 * Significance rules for the *x.xx%* marker of a mean row:
 *  welch          Welch's t-test, Welch-Satterthwaite df, two-sided,
 *                 alpha 0.05 (vmsim's default)
 *  mannwhitney    Mann-Whitney U, two-sided, alpha 0.05
 *  mmtests-ttest  Student's t on the Hmean (Amean) with n1 + n2 - 2 df,
 *                 two-sided, alpha 0.10: mmtests from 2018 to Nov 2024
 *  mmtests-ci     |mean difference| > 1.96 * (sd_a + sd_b), with HStddev
 *                 for higher-is-better metrics: mmtests since Nov 2024
 */
enum cmp_test { CMP_WELCH, CMP_MANNWHITNEY, CMP_MMTESTS_TTEST, CMP_MMTESTS_CI };

struct cmp_opts {
	enum cmp_format format;
	enum cmp_test test;
	double alpha;                    /* 0 < alpha < 1; 0: the rule's own */
	const char *metric;              /* gnuplot: which metric (NULL: first) */
};

/* The rule's name ("welch", ...), and its alpha given o (NaN for
 * mmtests-ci, which has none). */
const char *cmp_test_name(enum cmp_test t);
double cmp_alpha(const struct cmp_opts *o);
/* Is b significantly different from a under o's rule? 1 yes, 0 no, -1
 * cannot tell (too few samples); *p gets the p-value where the rule has
 * one, else NaN. */
int cmp_significant(const struct cmp_opts *o, const double *a, size_t na,
		    const double *b, size_t nb, bool higher, double *p);

struct cmp_metric {
	const char *name;
	bool higher, primary;
};

struct cmp_file {
	const char *path;
	char label[64];
	json_object *root;
	const char *scheme, *workload;
	int nmetrics;
	struct cmp_metric metrics[CMP_MAX_METRICS];
	json_object *results;            /* the results array */
};

/* Read and check one result file. Returns 0, or -EINVAL with err saying
 * what is wrong (without the file name). */
int cmp_load(const char *path, struct cmp_file *f, char *err, size_t errlen);
/* The same for a result already in memory; takes over the reference to
 * root (put on error and by cmp_file_free). name stands for the path. */
int cmp_from_json(json_object *root, const char *name, struct cmp_file *f,
		  char *err, size_t errlen);
void cmp_file_free(struct cmp_file *f);

/* Print the comparison of files[0] (the base) with the others. */
void cmp_print(FILE *out, const struct cmp_file *files, int n,
	       const struct cmp_opts *o);

/* Primary metrics of a later file significantly worse than the base by
 * more than pct percent; each is described on msg. Returns the count. */
int cmp_regressions(FILE *msg, const struct cmp_file *files, int n,
		    const struct cmp_opts *o, double pct);

#endif
