/* SPDX-License-Identifier: MIT */
/* vmsim compare: result files side by side, as mmtests compare does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/cmp_opts.h"
#include "analysis/compare.h"
#include "base/parse.h"

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

/* compare's command line, as parsed. */
struct compare_args {
	struct cmp_opts o;
	const char *labels[64];
	const char *baseline;
	int nlabels;
	bool fail, allow_mismatch;
	double pct;
};

static int compare_label(void *args, const struct cli_opt *o, const char *arg)
{
	struct compare_args *a = args;

	(void)o;
	if (a->nlabels == 64)
		return cli_bad("too many labels at '%s'", arg);
	a->labels[a->nlabels++] = arg;
	return 0;
}

#define T struct compare_args
static const struct cli_opt compare_opts[] = {
	CLI_ENUM(T, o.format, 0, "format", "FMT", cmp_format_names, CMP_NFORMATS,
		 "text | markdown | csv | json | gnuplot | wis\n"
		 "(will-it-scale's MIN/MAX/MEAN/MEDIAN/STDDEV\n"
		 "summary) (default text)"),
	CMP_OPT_BASELINE(T),
	CLI_CALL(compare_label, 0, "label", "NAME",
		 "column label, once per file in order (default:\n"
		 "the scheme; with several directories, the\n"
		 "directory's name)"),
	CMP_OPT_SIGNIFICANCE(T),
	CLI_ENUM(T, o.test, 0, "test", "TEST", cmp_test_names, CMP_MANNWHITNEY + 1,
		 "the same (welch | mannwhitney), older name"),
	CMP_OPT_ALPHA(T),
	CMP_OPT_FAIL(T, .optional = true, CLI_GIVEN(T, fail)),
	CMP_OPT_ALLOW_MISMATCH(T),
	CMP_OPT_ALLOW_DISTURBED(T),
	CLI_STR(T, o.metric, 0, "metric", "NAME",
		"the metric for --format gnuplot (default: first)"),
	CLI_FLAG(T, o.brief, 0, "brief",
		 "the metrics, latency and noise only: no lock\n"
		 "statistics and scheme counters (as run --brief)"),
	CLI_HELP_OPT,
	CLI_END
};
#undef T

static int cmd_compare(int argc, char **argv, const struct cli_ctx *ctx);

const struct cli_command cmd_compare_desc = {
	.name = "compare",
	.summary = "compare result files or directories: mmtests-style tables,\n"
		   "the regression gate",
	.synopsis = "compare [options] RESULT...",
	.text = "Compares result files, or results directories (every result in them):\n"
		"the base (the first, or --baseline) against each of the others.\n",
	.opts = compare_opts,
	.after = "\nWith --fail-on-regression, the gate (docs/gate.md): exit 2, CANNOT\n"
		 "JUDGE, if a file is not a valid measurement (incomplete, NaN/negative/\n"
		 "missing or flagged samples, fewer than 3 samples) or was run with other\n"
		 "options; the last line of the output is the verdict.\n",
	.exits = "\n"
		 "exit status: 0 done (with --fail-on-regression: no regression); 1 a\n"
		 "  regression (--fail-on-regression); 2 bad input (one line on stderr says\n"
		 "  which value and why), or a file the gate cannot trust.\n",
	.run = cmd_compare,
};

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

static int cmd_compare(int argc, char **argv, const struct cli_ctx *ctx)
{
	/* The gate's minimum effect by default: 5%, above what identical
	 * runs differ by on a shared VM (docs/gate.md: measured). */
	struct compare_args a = { .o = { .format = CMP_TEXT, .test = CMP_WELCH,
					 .verdicts = true },
				  .pct = CMP_GATE_DEFAULT_PCT };
	struct cmp_inputs in;
	struct cmp_file *files;
	char err[1400];
	int first, n, ret = 0;

	ret = cli_parse(&cmd_compare_desc, argc, argv, &a, &first);
	if (ret)
		return ret == CLI_PARSED_HELP ? 0 : ret;
	n = argc - first;
	if (n < 1)
		return cli_bad("%s", "compare needs at least one result file or "
			       "results directory");
	if (cmp_inputs_expand(argv + first, n, &in, err, sizeof(err))) {
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
