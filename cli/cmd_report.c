/* SPDX-License-Identifier: MIT */
/* vmsim report: one self-contained HTML page of results (report.h). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "analysis/compare.h"
#include "analysis/report.h"
#include "base/parse.h"
#include "base/safefile.h"

enum { OPT_BASELINE = 300, OPT_SIGNIFICANCE };

#define REPORT_SHORT ":o:fh"
static const struct option report_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "significance", required_argument, NULL, OPT_SIGNIFICANCE },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* --force replaces only a page vmsim report wrote. */
static bool is_report(int fd)
{
	char head[512];

	return sf_head(fd, head, sizeof(head)) &&
	       !strncmp(head, "<!DOCTYPE html>", 15) && strstr(head, CMP_REPORT_MARK);
}

struct report_job {
	const struct cmp_file *files;
	int n;
	const struct cmp_opts *o;
};

static int emit_report(FILE *f, void *arg)
{
	const struct report_job *j = arg;

	return cmp_report(f, j->files, j->n, j->o);
}

/* Every result that is not a valid measurement is said; its cells say
 * invalid (the page is made all the same). */
static void report_warn(const struct cmp_file *files, int n)
{
	char err[1024];

	for (int i = 0; i < n; i++) {
		bool bad = cmp_validate(&files[i], i ? &files[0] : NULL, err,
					sizeof(err));

		if (bad)
			fprintf(stderr, "%s: warning: %s: %s (its cells say "
				"invalid)\n", prog, files[i].shown, err);
		cmp_say_flags(stderr, &files[i], bad);
	}
}

/* Write the page through the safe-write layer; said where it went. */
static int report_write(const char *path, bool force, const struct report_job *j)
{
	const struct sf_spec spec = { .what = "report", .force = force,
				      .ours = is_report };
	char err[PATH_MAX + 256], where[PATH_MAX], note[PATH_MAX + 256];
	struct sf_out o;
	int ret = sf_open(&o, path, &spec, err, sizeof(err));

	if (ret) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	ret = sf_emit(&o, emit_report, (void *)j);
	if (ret >= 0)
		ret = sf_commit(&o, true, where, sizeof(where), note, sizeof(note));
	sf_abort(&o);
	if (ret < 0) {
		fprintf(stderr, "%s: the report could not be written: %s\n", prog,
			ret == -EIO ? "a write failed" : strerror(-ret));
		return 1;
	}
	if (ret != SF_AT_PATH) {
		fprintf(stderr, "%s: %s\n", prog, note);
		return 1;
	}
	fprintf(stderr, "report written to %s\n", where);
	return 0;
}

/* The options: 0, or the exit status of a bad one (or of --help). */
static int report_parse(int argc, char **argv, const char **out, bool *force,
			const char **baseline, struct cmp_opts *o, bool *help)
{
	int opt, i;

	optind = 0;
	while ((opt = getopt_long(argc, argv, REPORT_SHORT, report_opts, NULL)) != -1) {
		switch (opt) {
		case 'o': *out = optarg; break;
		case 'f': *force = true; break;
		case OPT_BASELINE: *baseline = optarg; break;
		case OPT_SIGNIFICANCE:
			i = cli_pick("significance rule", optarg,
				     cmp_test_names, CMP_NTESTS);
			if (i < 0)
				return EXIT_USAGE;
			o->test = (enum cmp_test)i;
			break;
		case 'h': *help = true; return 0;
		default: return cli_bad_option(argv, opt, report_opts);
		}
	}
	if (optind >= argc)
		return cli_bad("%s", "report needs at least one result file or "
			       "results directory");
	return 0;
}

int cmd_report(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct cmp_opts o = { .format = CMP_HTML, .test = CMP_WELCH };
	const char *out = "report.html", *baseline = NULL;
	struct cmp_file *files = NULL;
	struct cmp_inputs in = { 0 };
	char err[1400];
	bool force = false, help = false;
	int ret = report_parse(argc, argv, &out, &force, &baseline, &o, &help);

	if (help)
		return cli_help("report");
	if (ret)
		return ret;
	if (cmp_inputs_expand(argv + optind, argc - optind, &in, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	files = calloc((size_t)in.n, sizeof(*files));
	if (!files)
		ret = 1;
	else if (cmp_inputs_load(&in, files, NULL, 0, baseline, err,
				 sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		ret = EXIT_USAGE;
	} else {
		report_warn(files, in.n);
	}
	if (!ret && !ctx->dry_run) {
		struct report_job j = { files, in.n, &o };

		ret = report_write(out, force, &j);
	}
	for (int i = 0; files && i < in.n; i++)
		cmp_file_free(&files[i]);
	free(files);
	cmp_inputs_free(&in);
	return ret;
}

const struct cli_optset *cmd_report_optsets(void)
{
	static const struct cli_optset sets[] = {
		{ NULL, report_opts, REPORT_SHORT, NULL, cmd_cmp_values },
		{ 0 }
	};

	return sets;
}
