/* SPDX-License-Identifier: MIT */
/*
 * report — vmsim report's page: one self-contained HTML document (inline
 * CSS and SVG; no script, nothing fetched) of loaded result files: the
 * runs and the machine, the findings the significance marks support,
 * scaling graphs with the linear-scaling line, latency percentiles, lock
 * wait and hold histograms, and compare's tables.
 */
#ifndef VMSIM_REPORT_H
#define VMSIM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/compare.h"

/* One graph: nseries lines (or bar groups) over nx x positions; y is
 * nseries * nx values (NaN: no point). xnames: categorical x (then x is
 * ignored). ref: an optional dashed line over the same x. colours: one
 * a series (NULL: by index). lo, hi (bars only, optional): each bar's
 * whisker, nseries * nx values (NaN: none). Only series with a drawn
 * value are in the legend; a chart with nothing drawable is one line. */
struct cmp_chart {
	const char *title, *xlabel, *ylabel;
	int nseries, nx;
	const char *const *names;
	const char *const *colours;
	const double *x;
	const char *const *xnames;
	const double *y;
	const double *lo, *hi;
	const double *ref;
	const char *ref_name;
	/* Bars: the count behind each y (a percentage of it), shown beside
	 * it; NULL: none. */
	const double *count;
	bool logy;
};

void cmp_svg_lines(FILE *out, const struct cmp_chart *c);
void cmp_svg_bars(FILE *out, const struct cmp_chart *c);
const char *cmp_svg_colour(int i);
/* The colour of each of files[0..n-1]: its scheme's, by the scheme's
 * place in `vmsim list` (the same on every page), where the files'
 * schemes are all known and all differ; else the column's. */
void cmp_svg_file_colours(const struct cmp_file *files, int n,
			  const char **out);

/* In the head of every page cmp_report() writes: how vmsim report -f
 * knows a page it may replace. */
#define CMP_REPORT_MARK "<meta name=\"generator\" content=\"vmsim report\">"

/* The page for files[0..n-1] (files[0] the base) under o's significance
 * rule. 0, or -errno from writing out. */
int cmp_report(FILE *out, const struct cmp_file *files, int n,
	       const struct cmp_opts *o);

#endif
