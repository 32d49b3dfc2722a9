/* SPDX-License-Identifier: MIT */
/* vmsim compare: result files side by side, as mmtests compare does. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "analysis/compare.h"
#include "base/parse.h"

enum { OPT_FORMAT = 300, OPT_LABEL, OPT_TEST, OPT_ALPHA, OPT_FAIL, OPT_METRIC,
       OPT_SIGNIFICANCE, OPT_ALLOW_MISMATCH, OPT_BASELINE,
       OPT_ALLOW_DISTURBED };

/*
 * Before the table: is every file a measurement, and were the runs made
 * alike? With the gate, the first "no" is one line and exit 2 (a gate
 * must never pass on garbage); without it, a warning per file, and the
 * table shows invalid cells as "invalid".
 */
static int compare_check(const struct cmp_file *files, int n, bool gate,
			 bool allow_mismatch)
{
	char why[512];

	for (int i = 0; i < n; i++) {
		const char *path = files[i].shown, *base = files[0].shown;
		bool bad = cmp_validate(&files[i], i ? &files[0] : NULL, why,
					sizeof(why));

		if (bad)
			fprintf(stderr, gate ? "%s: %s: not a valid measurement for "
				"the regression gate: %s\n" : "%s: warning: %s: %s\n",
				prog, path, why);
		/* (the gate's refusal is its one line) */
		if (!bad || !gate)
			cmp_say_flags(stderr, &files[i], bad);
		if (bad && gate) {
			printf("CANNOT JUDGE: %s is not a valid measurement: %s\n",
			       path, why);
			return EXIT_USAGE;
		}
		if (i && !allow_mismatch && cmp_costs_differ(&files[0], &files[i])) {
			fprintf(stderr, "%s: %s and %s: one was run with --costs and "
				"the other without: their models' operations cost "
				"different things (--allow-mismatch to compare "
				"anyway)\n", prog, base, path);
			if (gate)
				printf("CANNOT JUDGE: %s was run differently from "
				       "%s\n", path, base);
			return EXIT_USAGE;
		}
		if (i && cmp_mismatch(&files[0], &files[i], why, sizeof(why))) {
			bool refuse = gate && !allow_mismatch;

			fprintf(stderr, "%s: %s%s was run differently from %s: %s%s\n",
				prog, refuse ? "" : "warning: ", path, base, why,
				refuse ? " (the gate compares only like runs; "
				"--allow-mismatch to gate anyway)" : "");
			if (refuse) {
				printf("CANNOT JUDGE: %s was run differently from "
				       "%s\n", path, base);
				return EXIT_USAGE;
			}
		}
	}
	return 0;
}

#define COMPARE_SHORT ":h"
static const struct option compare_opts[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "test", required_argument, NULL, OPT_TEST },
	{ "significance", required_argument, NULL, OPT_SIGNIFICANCE },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "fail-on-regression", optional_argument, NULL, OPT_FAIL },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "allow-mismatch", no_argument, NULL, OPT_ALLOW_MISMATCH },
	{ "allow-disturbed", no_argument, NULL, OPT_ALLOW_DISTURBED },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* compare's command line, as parsed. */
struct compare_args {
	struct cmp_opts o;
	const char *labels[64];
	const char *baseline;
	int nlabels;
	bool fail, allow_mismatch, help;
	double pct;
};

/* One option: 0, or the exit status of a bad one. */
static int compare_opt(struct compare_args *a, int opt, char **argv)
{
	char *end;
	int i;

	switch (opt) {
	case OPT_FORMAT:
		i = cli_pick("format", optarg, cmp_format_names, CMP_NFORMATS);
		if (i < 0)
			return EXIT_USAGE;
		a->o.format = (enum cmp_format)i;
		return 0;
	case OPT_LABEL:
		if (a->nlabels == 64)
			return cli_bad("too many labels at '%s'", optarg);
		a->labels[a->nlabels++] = optarg;
		return 0;
	case OPT_TEST:
	case OPT_SIGNIFICANCE:
		i = opt == OPT_TEST ?
			cli_pick("test", optarg, cmp_test_names,
				 CMP_MANNWHITNEY + 1) :
			cli_pick("significance rule", optarg, cmp_test_names,
				 CMP_NTESTS);
		if (i < 0)
			return EXIT_USAGE;
		a->o.test = (enum cmp_test)i;
		return 0;
	case OPT_ALPHA:
		a->o.alpha = strtod(optarg, &end);
		if (*end || !(a->o.alpha > 0 && a->o.alpha < 1))
			return cli_bad("bad alpha '%s': want a number between 0 and 1",
				   optarg);
		return 0;
	case OPT_FAIL:
		a->fail = true;
		if (optarg) {
			a->pct = strtod(optarg, &end);
			if (*end || !(a->pct >= 0 && a->pct < 1000))
				return cli_bad("bad regression threshold '%s': want a "
					   "percentage such as 5", optarg);
		}
		return 0;
	case OPT_METRIC: a->o.metric = optarg; return 0;
	case OPT_ALLOW_MISMATCH: a->allow_mismatch = true; return 0;
	case OPT_ALLOW_DISTURBED: a->o.allow_disturbed = true; return 0;
	case OPT_BASELINE: a->baseline = optarg; return 0;
	case 'h': a->help = true; return 0;
	}
	return cli_bad_option(argv, opt, compare_opts);
}

/* The gate, after the table: its regressions, then the verdict as the
 * last line of the output; 0 pass, 1 regression, 2 cannot judge (said
 * on stderr too, in one line). */
static int compare_gate(const struct cmp_inputs *in,
			const struct cmp_file *files, int n,
			const struct compare_args *a)
{
	char line[1024];
	int v, *side = calloc((size_t)n, sizeof(int));

	if (!side)
		return 1;
	cmp_inputs_sides(in, files, side);
	fflush(stdout);
	printf("\n");
	v = cmp_gate_runs(stdout, files, side, n, &a->o, a->pct, line,
			  sizeof(line));
	free(side);
	printf("%s\n", line);
	if (v == CMP_CANNOT_JUDGE) {
		fprintf(stderr, "%s: the gate cannot judge: %s\n", prog,
			line + strlen("CANNOT JUDGE: "));
		return EXIT_USAGE;
	}
	return v == CMP_REGRESSION ? 1 : 0;
}

/* --metric names a metric of the base: 0 or EXIT_USAGE. */
static int compare_metric_check(const struct cmp_file *base, const char *metric)
{
	char m[64];

	if (!metric)
		return 0;
	for (int k = 0; k < base->nmetrics; k++)
		if (!strcmp(base->metrics[k].name, metric))
			return 0;
	fprintf(stderr, "%s: %s has no metric '%s'\n", prog, base->shown,
		parse_printable(m, sizeof(m), metric));
	return EXIT_USAGE;
}

int cmd_compare(int argc, char **argv, const struct cli_ctx *ctx)
{
	/* The gate's minimum effect by default: 5%, above what identical
	 * runs differ by on a shared VM (docs/gate.md: measured). */
	struct compare_args a = { .o = { .format = CMP_TEXT, .test = CMP_WELCH,
					 .verdicts = true },
				  .pct = CMP_GATE_DEFAULT_PCT };
	struct cmp_inputs in;
	struct cmp_file *files;
	char err[1400];
	int opt, n, ret = 0;

	optind = 0;      /* 0: glibc re-initialises getopt fully */
	while ((opt = getopt_long(argc, argv, COMPARE_SHORT, compare_opts, NULL)) != -1) {
		ret = compare_opt(&a, opt, argv);
		if (ret)
			return ret;
		if (a.help) {
			cli_help("compare");
			return 0;
		}
	}
	n = argc - optind;
	if (n < 1)
		return cli_bad("%s", "compare needs at least one result file or "
			       "results directory");
	if (cmp_inputs_expand(argv + optind, n, &in, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	n = in.n;
	if (a.nlabels && a.nlabels != n) {
		fprintf(stderr, "%s: %d labels for %d files: give one --label per "
			"file\n", prog, a.nlabels, n);
		cmp_inputs_free(&in);
		return EXIT_USAGE;
	}
	files = calloc((size_t)n, sizeof(*files));
	if (!files) {
		cmp_inputs_free(&in);
		return 1;
	}
	if (cmp_inputs_load(&in, files, a.labels, a.nlabels, a.baseline, err,
			    sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		ret = EXIT_USAGE;
	}
	if (!ret)
		ret = compare_check(files, n, a.fail, a.allow_mismatch);
	if (!ret)
		ret = compare_metric_check(&files[0], a.o.metric);
	if (!ret) {
		static char obuf[1 << 20];       /* tables can be long */

		if (!isatty(STDOUT_FILENO))
			setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
		cmp_print(stdout, files, n, &a.o);
		if (a.fail)
			ret = compare_gate(&in, files, n, &a);
	}
	for (int i = 0; i < n; i++)
		cmp_file_free(&files[i]);
	free(files);
	cmp_inputs_free(&in);
	return ret;
}

/* The names --format, --test and --significance take (completion). */
void cmd_cmp_values(const struct option *o, FILE *f)
{
	int n = !strcmp(o->name, "format") ? CMP_NFORMATS :
		!strcmp(o->name, "test") ? CMP_MANNWHITNEY + 1 :
		!strcmp(o->name, "significance") ? CMP_NTESTS : 0;
	const char *const *names = !strcmp(o->name, "format") ?
				   cmp_format_names : cmp_test_names;

	for (int i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " " : "", names[i]);
}

const struct cli_optset *cmd_compare_optsets(void)
{
	static const struct cli_optset sets[] = {
		{ NULL, compare_opts, COMPARE_SHORT, NULL, cmd_cmp_values },
		{ 0 }
	};

	return sets;
}
