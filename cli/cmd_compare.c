/* SPDX-License-Identifier: MIT */
/* vmsim compare: result files side by side, as mmtests compare does. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "report/compare.h"
#include "util/parse.h"

enum { OPT_FORMAT = 300, OPT_LABEL, OPT_TEST, OPT_ALPHA, OPT_FAIL, OPT_METRIC,
       OPT_SIGNIFICANCE, OPT_ALLOW_MISMATCH };

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

		if (cmp_validate(&files[i], i ? &files[0] : NULL, why, sizeof(why))) {
			fprintf(stderr, gate ? "%s: %s: not a valid measurement for "
				"the regression gate: %s\n" : "%s: warning: %s: %s\n",
				prog, path, why);
			if (gate)
				return EXIT_USAGE;
		}
		if (i && cmp_mismatch(&files[0], &files[i], why, sizeof(why))) {
			bool refuse = gate && !allow_mismatch;

			fprintf(stderr, "%s: %s%s was run differently from %s: %s%s\n",
				prog, refuse ? "" : "warning: ", path, base, why,
				refuse ? " (the gate compares only like runs; "
				"--allow-mismatch to gate anyway)" : "");
			if (refuse)
				return EXIT_USAGE;
		}
	}
	return 0;
}

int cmd_compare(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "test", required_argument, NULL, OPT_TEST },
		{ "significance", required_argument, NULL, OPT_SIGNIFICANCE },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "fail-on-regression", optional_argument, NULL, OPT_FAIL },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "allow-mismatch", no_argument, NULL, OPT_ALLOW_MISMATCH },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct cmp_opts o = { .format = CMP_TEXT, .test = CMP_WELCH };
	const char *labels[64];
	struct cmp_file *files;
	int nlabels = 0, opt, n, ret = 0;
	bool fail = false, allow_mismatch = false;
	double pct = 0;
	char err[256], *end;

	optind = 0;      /* 0: glibc re-initialises getopt fully */
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_FORMAT: {           /* in enum cmp_format order */
			int i = pick("format", optarg, NAMES("text", "markdown",
				     "csv", "json", "gnuplot"));

			if (i < 0)
				return EXIT_USAGE;
			o.format = (enum cmp_format)i;
			break;
		}
		case OPT_LABEL:
			if (nlabels == 64)
				return bad("too many labels at '%s'", optarg);
			labels[nlabels++] = optarg;
			break;
		case OPT_TEST: {             /* in enum cmp_test order */
			int i = pick("test", optarg, NAMES("welch", "mannwhitney"));

			if (i < 0)
				return EXIT_USAGE;
			o.test = (enum cmp_test)i;
			break;
		}
		case OPT_SIGNIFICANCE: {     /* in enum cmp_test order */
			int i = pick("significance rule", optarg, NAMES("welch",
				     "mannwhitney", "mmtests-ttest", "mmtests-ci"));

			if (i < 0)
				return EXIT_USAGE;
			o.test = (enum cmp_test)i;
			break;
		}
		case OPT_ALPHA:
			o.alpha = strtod(optarg, &end);
			if (*end || !(o.alpha > 0 && o.alpha < 1))
				return bad("bad alpha '%s': want a number between 0 and 1",
					   optarg);
			break;
		case OPT_FAIL:
			fail = true;
			if (optarg) {
				pct = strtod(optarg, &end);
				if (*end || !(pct >= 0 && pct < 1000))
					return bad("bad regression threshold '%s': want a "
						   "percentage such as 5", optarg);
			}
			break;
		case OPT_METRIC:
			o.metric = optarg;
			break;
		case OPT_ALLOW_MISMATCH:
			allow_mismatch = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return bad_option(argv, opt, opts);
		}
	}
	n = argc - optind;
	if (n < 1)
		return bad("%s", "compare needs at least one result file");
	if (n > 32)
		return bad("too many files (%s): at most 32", argv[optind + 32]);
	if (nlabels && nlabels != n) {
		fprintf(stderr, "%s: %d labels for %d files: give one --label per "
			"file\n", prog, nlabels, n);
		return EXIT_USAGE;
	}
	files = calloc((size_t)n, sizeof(*files));
	if (!files)
		return 1;
	for (int i = 0; i < n && !ret; i++) {
		const char *path = argv[optind + i];

		char shown[256];

		printable(shown, sizeof(shown), path);
		if (cmp_load(path, &files[i], err, sizeof(err))) {
			fprintf(stderr, "%s: %s: %s\n", prog, shown, err);
			ret = EXIT_USAGE;
		} else if (i && strcmp(files[i].workload, files[0].workload)) {
			fprintf(stderr, "%s: %s: workload '%s' does not match '%s' "
				"of %s\n", prog, shown,
				files[i].workload_shown, files[0].workload_shown,
				files[0].shown);
			ret = EXIT_USAGE;
		} else if (nlabels) {
			printable(files[i].label, sizeof(files[i].label), labels[i]);
		}
	}
	if (!ret)
		ret = compare_check(files, n, fail, allow_mismatch);
	if (!ret && o.metric) {
		bool found = false;

		for (int m = 0; m < files[0].nmetrics; m++)
			found |= !strcmp(files[0].metrics[m].name, o.metric);
		if (!found) {
			char m[64];

			fprintf(stderr, "%s: %s has no metric '%s'\n", prog,
				files[0].shown, printable(m, sizeof(m), o.metric));
			ret = EXIT_USAGE;
		}
	}
	if (!ret) {
		cmp_print(stdout, files, n, &o);
		if (fail && cmp_regressions(stderr, files, n, &o, pct))
			ret = 1;
	}
	for (int i = 0; i < n; i++)
		cmp_file_free(&files[i]);
	free(files);
	return ret;
}

