/* SPDX-License-Identifier: MIT */
/* vmsim report: one self-contained HTML page of results (report.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/cmp_opts.h"
#include "analysis/compare.h"
#include "analysis/report.h"
#include "base/parse.h"
#include "base/safefile.h"

/* report's command line, as parsed. */
struct report_args {
	struct cmp_opts o;
	const char *out, *baseline;
	bool force;
};

#define T struct report_args
static const struct cli_opt report_opts[] = {
	CLI_STR(T, out, 'o', "output", "FILE", "the page (default report.html)"),
	CLI_FLAG(T, force, 'f', "force", "replace FILE if it is a vmsim report"),
	CMP_OPT_BASELINE(T),
	CMP_OPT_SIGNIFICANCE(T),
	CLI_HELP_OPT,
	CLI_END
};
#undef T

static int cmd_report(int argc, char **argv, const struct cli_ctx *ctx);

const struct cli_command cmd_report_desc = {
	.name = "report",
	.summary = "one self-contained HTML page of results (tables, graphs)",
	.synopsis = "report [-o FILE.html] [-f] [--baseline NAME] RESULT...",
	.text = "One self-contained HTML page (no script, nothing fetched) of result files\n"
		"or results directories: the comparison tables with their significance\n"
		"marks, a scaling graph per metric against the task count with the\n"
		"linear-scaling line, latency percentiles, lock wait and hold histograms\n"
		"per class and side, each run's noise, and the findings the tables\n"
		"support.\n",
	.opts = report_opts,
	.exits = cli_exit_write,
	.run = cmd_report,
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

static int cmd_report(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct report_args a = { .o = { .format = CMP_HTML, .test = CMP_WELCH },
				 .out = "report.html" };
	struct cmp_file *files = NULL;
	struct cmp_inputs in = { 0 };
	char err[1400];
	int first, ret = cli_parse(&cmd_report_desc, argc, argv, &a, &first);

	if (ret)
		return ret == CLI_PARSED_HELP ? 0 : ret;
	if (first >= argc)
		return cli_bad("%s", "report needs at least one result file or "
			       "results directory");
	if (cmp_inputs_expand(argv + first, argc - first, &in, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	files = calloc((size_t)in.n, sizeof(*files));
	if (!files)
		ret = 1;
	else if (cmp_inputs_load(&in, files, NULL, 0, a.baseline, err,
				 sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		ret = EXIT_USAGE;
	} else {
		report_warn(files, in.n);
	}
	if (!ret && !ctx->dry_run) {
		struct report_job j = { files, in.n, &a.o };

		ret = report_write(a.out, a.force, &j);
	}
	for (int i = 0; files && i < in.n; i++)
		cmp_file_free(&files[i]);
	free(files);
	cmp_inputs_free(&in);
	return ret;
}
