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
/* The result file format vmsim writes (resfile/results_json.c) and compare
 * reads: 1 to this (docs/results.md). */

enum cmp_format { CMP_TEXT, CMP_MARKDOWN, CMP_CSV, CMP_JSON, CMP_GNUPLOT,
		  CMP_WIS, CMP_NFORMATS,
		  CMP_HTML = CMP_NFORMATS /* tables for vmsim report: no
					   * --format */ };
/* --format's names, indexed by value. */
extern const char *const cmp_format_names[CMP_NFORMATS];
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
#define CMP_NTESTS (CMP_MMTESTS_CI + 1)
/* --significance's names, indexed by value (--test, the older option,
 * takes the first two). */
extern const char *const cmp_test_names[CMP_NTESTS];

/* The longest metric, lock class, counter or cache name a result file
 * may hold (longer is malformed: a name is never cut short). */
#define CMP_MAX_NAME 64

struct cmp_gate_rows;

struct cmp_opts {
	enum cmp_format format;
	enum cmp_test test;
	double alpha;                    /* 0 < alpha < 1; 0: the rule's own */
	const char *metric;              /* gnuplot: which metric (NULL: first) */
	bool brief;                      /* no lock statistics and counters */
	/* CMP_TEXT: after the table, one verdict line a compared file
	 * (cmp_verdict_metric's mean rows: the difference and what its
	 * marks make of it); verdicts_only: those lines alone. */
	bool verdicts, verdicts_only;
	/* CMP_HTML: where the findings go (one <li> a primary metric and
	 * task count: what its marks support), or NULL. */
	FILE *findings;
	/* The gates: where each row they judged goes (vmsim gate --junit),
	 * or NULL. */
	struct cmp_gate_rows *rows;
	/* The gates: judge a point the machine disturbed (cmp_point_disturbed)
	 * anyway, each such row said, instead of CANNOT JUDGE. */
	bool allow_disturbed;
};

/* A row a gate judged: a primary metric at a task count of a
 * candidate. */
struct cmp_gate_row {
	char metric[CMP_MAX_NAME + 1];
	char workload[CMP_MAX_NAME + 1];
	char candidate[256];             /* its side's name, printable */
	int tasks;
	double effect;                   /* %, positive better */
	double p, threshold;             /* one-sided p; Holm's threshold */
	double mde;                      /* smallest detectable worsening,
					  * %; NaN: not known */
	bool regression;                 /* > pct worse and significant */
	bool blind;                      /* mde > pct: cannot be judged */
};
struct cmp_gate_rows {
	struct cmp_gate_row *row;        /* malloc'd; free() it */
	int n;
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
	const char *unit;                /* "faults/s", "s"...; NULL: unsaid */
	bool higher, primary;
};

struct cmp_file {
	const char *path;
	char shown[256];                 /* path, printable (parse.h) */
	char label[64];                  /* printable */
	char workload_shown[64];         /* printable */
	json_object *root;
	const char *scheme, *workload;
	int nmetrics;
	struct cmp_metric metrics[CMP_MAX_METRICS];
	json_object *results;            /* the results array */
	int ntasks;
	int *tasks;                      /* results[i]'s task count */
	int *by_tasks;                   /* indices of results, by task count */
};

/* What compare and report are given: result files and results
 * directories, expanded into result files. */
#define CMP_MAX_INPUTS 32
struct cmp_inputs {
	int n;
	bool several_dirs;               /* labels are the directories' names */
	char *path[CMP_MAX_INPUTS];      /* each a result file */
	char *dir[CMP_MAX_INPUTS];       /* its results directory's name, or NULL */
	int arg[CMP_MAX_INPUTS];         /* the argument it came from */
};
/* The gate's sides (cmp_gate_runs): the results of one folder argument
 * made by one configuration (their own label, or scheme, alike) are
 * runs of one side; a file given alone is a side of its own. side[i]
 * for files[i], as cmp_inputs_load ordered them. */
void cmp_inputs_sides(const struct cmp_inputs *in, const struct cmp_file *files,
		      int *side);

/* args (files, or directories: their *.json results, by name) into in:
 * 0, or -errno with err (one line, the path in it). */
int cmp_inputs_expand(char *const *args, int nargs, struct cmp_inputs *in,
		      char *err, size_t errlen);
void cmp_inputs_free(struct cmp_inputs *in);
/*
 * Load every input into files[0..in->n) (zeroed by the caller, freed by
 * it with cmp_file_free whatever this returns): one workload; labelled
 * by labels[0..nlabels) if given, else by scheme, or with several
 * directories by the directory's name (DIR/scheme where one holds
 * several); and with baseline, the one result it names (label, scheme,
 * file name or directory) made files[0], the others in their order.
 * 0, or -EINVAL with err (one line, the file in it).
 */
int cmp_inputs_load(struct cmp_inputs *in, struct cmp_file *files,
		    const char *const *labels, int nlabels, const char *baseline,
		    char *err, size_t errlen);

/* Read and check one result file. Returns 0, or -EINVAL with err saying
 * what is wrong (without the file name). */
int cmp_load(const char *path, struct cmp_file *f, char *err, size_t errlen);
/* The same for a result already in memory; takes over the reference to
 * root (put on error and by cmp_file_free). name stands for the path. */
int cmp_from_json(json_object *root, const char *name, struct cmp_file *f,
		  char *err, size_t errlen);
void cmp_file_free(struct cmp_file *f);

/*
 * Can f be trusted as a measurement against base (NULL: f is the base)?
 * 0, or -EINVAL with why saying what is wrong, in one clause without the
 * file name: an incomplete run; no results; a task count of base
 * missing; a metric with no samples, with a sample that is not a finite
 * number >= 0 (> 0 for a primary metric: a rate of nothing is not a
 * measurement), or with a different number of samples than the others
 * at its task count; a point where the run flagged samples (taken while
 * vmsim was stopped, or starved of CPU) and fewer than three good ones
 * (or fewer than all, for a run of under three) are left.
 */
int cmp_validate(const struct cmp_file *f, const struct cmp_file *base,
		 char *why, size_t len);

/*
 * What differs between the runs of a and b that changes what is
 * measured: every run option but the number of samples (iterations,
 * duration) and the task list (validated on its own), the fault source,
 * and the machine (kernel, CPU model and count, NUMA nodes). Writes
 * "mem 33554432 vs 67108864, kernel ..." to out; returns the count.
 * An option that only one file has is compared with the value an older
 * format meant by its absence (folio 4096, frames none, slab malloc,
 * ...); one with no such meaning, or a file with no options or fault
 * source at all, is a difference: the gate never judges what it cannot
 * compare.
 */
/* One of a and b was made with --costs and the other not: their models'
 * operations cost different things, and compare refuses to set them
 * side by side (--allow-mismatch overrides). */
bool cmp_costs_differ(const struct cmp_file *a, const struct cmp_file *b);
int cmp_mismatch(const struct cmp_file *a, const struct cmp_file *b,
		 char *out, size_t len);

/* The result of f at tasks (its JSON object), or NULL. */
json_object *cmp_point_of(const struct cmp_file *f, int tasks);
/* Has the point at tasks samples the run flagged (not measurements)? */
bool cmp_point_flagged(const struct cmp_file *f, int tasks);
/* Did the machine let f's point at tasks be measured (resfile/busy.h's
 * rule on its samples' noise), and were its spinning locks' holders left
 * alone? true with why (one clause) when not: a difference it stands
 * behind is "disturbed, not a finding" in every verdict and the gate
 * cannot judge it. */
bool cmp_point_disturbed(const struct cmp_file *f, int tasks, char *why,
			 size_t len);
/* How many samples of the point at tasks the run flagged. */
int cmp_point_nflagged(const struct cmp_file *f, int tasks);
/* The points of f whose flagged samples are left out of its statistics
 * while enough good ones remain to compare ("tasks 2: 1 sample left out
 * (sample 2: why), 4 of 5 remain; ..."); returns how many. A point with
 * too few left is cmp_validate's to say. */
int cmp_flag_notes(const struct cmp_file *f, char *out, size_t len);
/* Those notes as one line on err, and, when f is invalid for its flagged
 * samples, the line that measures it again (vmsim rerun ...). */
void cmp_say_flags(FILE *err, const struct cmp_file *f, bool invalid);
/* Samples of metric at tasks in f, those the run flagged left out
 * (malloc'ed into *out; NULL if none). */
/*
 * The host kernel's column (-l kernel): its index among files, or -1; and
 * file i's distance from it at tasks, for the first primary metric
 * (compare_host.c): the two means (Hmean, or Amean of a time); level, i's mean over the kernel's (a time's
 * inverted: above 1 is faster); scaling, i's at tasks over its own at
 * base_tasks (the kernel's fewest), kscaling the kernel's, shape_pct
 * how far the first is from the second (%), spread_pct the spread of the
 * four means behind that (CoeffVars in quadrature; NaN: too few
 * samples). The scaling fields are NaN at base_tasks. false: no kernel
 * column, or no valid point at tasks.
 */
#define CMP_HOST_SHAPE_WARN_PCT 15        /* as an integer, for texts */
#define CMP_HOST_SHAPE_WARN ((double)CMP_HOST_SHAPE_WARN_PCT)
struct cmp_host_dist {
	const struct cmp_metric *metric;
	int base_tasks;
	double mean, kmean;              /* i's and the kernel's at tasks */
	double level, scaling, kscaling, shape_pct, spread_pct;
};
int cmp_host_column(const struct cmp_file *files, int n);
bool cmp_host_distance(const struct cmp_file *files, int n, int i, int tasks,
		       struct cmp_host_dist *out);
/* Text: the distance table, where there is a kernel column. */
void cmp_print_host_distance(FILE *out, const struct cmp_file *files, int n);
/* What a replay's ratio to the host's mmap_lock means for scheme (the
 * host with per-VMA locks), for the read or the write side: a clause
 * into buf, its words chosen by the ratio (what the design predicts, and
 * whether this ratio is that). */
void cmp_host_lock_meaning(char *buf, size_t len, const char *scheme,
			   bool write, double ratio);
/* Text: each replay file's ratios to the recording's mmap_lock, each
 * with what it means (nothing where none has a recording's lock). */
void cmp_print_host_lock(FILE *out, const struct cmp_file *files, int n);

size_t cmp_samples_of(const struct cmp_file *f, const char *metric, int tasks,
		      double **out);

/* Print the comparison of files[0] (the base) with the others. */
void cmp_print(FILE *out, const struct cmp_file *files, int n,
	       const struct cmp_opts *o);

/*
 * The regression gate (docs/gate.md): each primary metric at each task
 * count, for each later file against the base, is a regression when it
 * is more than pct percent worse AND significantly so in the rule's
 * one-sided test after Holm–Bonferroni over every row (family-wise
 * alpha: o->alpha, else 0.05). A row with fewer than 3 samples a side
 * cannot be judged. Prints a line per regression on out; the verdict
 * ("PASS: …", "REGRESSION: …", "CANNOT JUDGE: …") goes into line.
 */
enum cmp_verdict { CMP_PASS, CMP_REGRESSION, CMP_CANNOT_JUDGE };
#define CMP_GATE_DEFAULT_PCT 5.0         /* --fail-on-regression's */
int cmp_gate(FILE *out, const struct cmp_file *files, int n,
	     const struct cmp_opts *o, double pct, char *line, size_t len);
/* The gate over stored runs (vmsim compare --fail-on-regression, gate
 * --baseline): files[i] is one run of side side[i]; the base is
 * side[0]'s runs, each other side a candidate. A row is tested on run
 * means — each run's mean one value, so the spread between runs is in
 * the test — by Student's t on their logs (pooled variance, one-sided),
 * with the minimum effect, Holm, and the smallest detectable change as
 * the other gates. A pair of single runs cannot be judged. */
int cmp_gate_runs(FILE *out, const struct cmp_file *files, const int *side,
		  int n, const struct cmp_opts *o, double pct, char *line,
		  size_t len);
/* The gate over alternating rounds (vmsim gate): runs[0][i] and
 * runs[1][i] are round i's base and candidate; each row is tested by
 * round (the log ratio of the two runs' means, a one-sample t over the
 * rounds, one-sided), with the same minimum effect and Holm as
 * cmp_gate; pooled[] (the pooled sides) name the files. At least 3
 * rounds. */
int cmp_gate_rounds(FILE *out, const struct cmp_file *const runs[2],
		    int rounds, const struct cmp_file pooled[2],
		    const struct cmp_opts *o, double pct, char *line,
		    size_t len);
/* Several runs of one configuration as one result (a new JSON root, or
 * NULL): files[0] with, at each of its task counts, every file's
 * samples after its own (flags and noise kept alongside). */
json_object *cmp_pool(const struct cmp_file *files, int n);
/* The gate's family-wise alpha under o. */
double cmp_gate_alpha(const struct cmp_opts *o);

/* vmsim gate's rules on the runs it made (analysis/compare_gate.c; the
 * runs themselves are cli/cmd_gate.c's). */
/* No change of code makes a run a million times faster or slower: a
 * result that far from the base's is not a measurement of the run. */
#define CMP_GATE_MAX_RATIO 1e6
/* The primary metric of f (the first metric if it declares none). */
const struct cmp_metric *cmp_primary_metric(const struct cmp_file *f);
/* c against b in m at tasks: %, positive better (as compare prints). */
double cmp_change(const struct cmp_file *b, const struct cmp_file *c,
		  const struct cmp_metric *m, int tasks);
/* Is f a result of the run ref is one of (its task counts, each primary
 * mean finite and within CMP_GATE_MAX_RATIO of ref's)? 0, or -EINVAL
 * with why. */
int cmp_gate_unlike(const struct cmp_file *ref, const struct cmp_file *f,
		    char *why, size_t len);
/* A stored base (name: as the user gave it): can it be judged at all,
 * before anything runs? CMP_PASS, or CMP_CANNOT_JUDGE with line. */
int cmp_gate_check_stored(const struct cmp_file *st, const char *name,
			  const struct cmp_opts *o, double pct, char *line,
			  size_t len);
/* A stored base against the candidate's n runs, by run means
 * (cmp_gate_runs): enum cmp_verdict, line holding the verdict. */
int cmp_gate_stored(const struct cmp_file *st, const struct cmp_file *cand,
		    int n, const struct cmp_opts *o, double pct, char *line,
		    size_t len);

#endif
