/* SPDX-License-Identifier: MIT */
/*
 * What the three parts of compare share (compare_load.c: reading and
 * checking files; compare_stats.c: the statistics of a row and the
 * regression gate; compare.c: the tables). Not for use outside report/.
 */
#ifndef VMSIM_COMPARE_INT_H
#define VMSIM_COMPARE_INT_H

#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>

#include "analysis/compare.h"

#define CMP_MAX_FILES 32
#define CMP_MAX_BYTES (256 << 20)         /* a result is kilobytes */
#define CMP_COL 25                       /* %14.4f + " ( 123.45%)" */

enum stat_id { ST_MIN, ST_MEAN, ST_STDDEV, ST_COV, ST_MAX, ST_MEDIAN, ST_B50,
	       ST_B95, ST_B99, ST_N };

const struct cmp_metric *cmp_metric_of(const struct cmp_file *f, const char *name);
/* Is every sample of x a measurement of m (finite, > 0 if primary)? */
bool cmp_samples_ok(const struct cmp_metric *m, const double *x, size_t n);
/* ... and none of the run's point at tasks flagged: numbers to compute
 * with and compare against (else the cell says invalid). */
bool cmp_point_valid(const struct cmp_file *f, const struct cmp_metric *m,
		     int tasks, const double *x, size_t n);

const char *cmp_stat_name(enum stat_id st, bool higher);
double cmp_stat_value(enum stat_id st, const double *x, size_t n, bool higher);
/* The spread of two samples in per cent of their means: the larger
 * CoeffVar (HCoeffVar for higher-is-better); NaN with fewer than two
 * samples on both sides. */
double cmp_spread(const double *a, size_t na, const double *b, size_t nb,
		  bool higher);
/* Difference from the base, positive = better; NaN when undefined. */
double cmp_pct_diff(double base, double v, bool higher);

/* --format wis (compare_wis.c): will-it-scale's summary. */
void cmp_print_wis(FILE *out, const struct cmp_file *files, int n);

/* --format gnuplot (compare_stats.c). */
void cmp_print_gnuplot(FILE *out, const struct cmp_file *files, int n,
		   const struct cmp_opts *o);

/* compare.c's tables, row by row (compare_emit.c prints them). */
#define CMP_WITHIN 2
/* A difference involving a run where a spinning lock's holder was
 * preempted (long holds), or where other load kept CPUs busy while such a
 * lock was contended: a kernel spinlock's holder is never preempted, so
 * what the waiters lost is vmsim's, not the scheme's. */
#define CMP_DISTURBED 3

struct row {
	const char *section;             /* "metric" or "lock" */
	const char *stat;
	char key[112];                   /* e.g. "faults/sec-2" */
	bool integer;
	bool nopct;                      /* a count with no better/worse */
	bool primary;                    /* a mean row of the primary metric */
	double v[CMP_MAX_FILES];
	double pct[CMP_MAX_FILES];
	int sig[CMP_MAX_FILES];          /* -1 not tested, 0 no, 1 yes,
					  * CMP_WITHIN: smaller than the spread
					  * of the samples behind it,
					  * CMP_DISTURBED: see above */
	bool invalid[CMP_MAX_FILES];     /* samples that are not measurements */
	char why[CMP_MAX_FILES][112];    /* CMP_DISTURBED: the reason */
};

struct printer {
	FILE *out;
	const struct cmp_opts *o;
	const struct cmp_file *files;
	int n;
	int keyw;
	int colw;                        /* text: a column, >= CMP_COL */
	json_object *rows;               /* --format json */
	const char *section;             /* text: last section header */
	/* The verdict lines being made, one a compared file (o->verdicts). */
	FILE *verdict[CMP_MAX_FILES];
	char *vbuf[CMP_MAX_FILES];
	size_t vlen[CMP_MAX_FILES];
};

void cmp_emit_row(struct printer *pr, const struct row *r);
/* CMP_HTML: the head of the tables, and their end. */
void cmp_html_begin(struct printer *pr);
void cmp_html_end(struct printer *pr);
/* What a result is beside the base: a scheme (a competitor), the
 * harness without a lock (none: what the base's locking costs, not a
 * design) or the host kernel (the reference the models are held to).
 * The findings and the charts' legends say it. */
enum cmp_role { CMP_ROLE_SCHEME, CMP_ROLE_HARNESS, CMP_ROLE_HOST };
enum cmp_role cmp_file_role(const struct cmp_file *f);

/* Text made safe for HTML (&, <, >, "). */
void cmp_html_text(FILE *out, const char *s);
void cmp_print_header_text(struct printer *pr);

#endif
