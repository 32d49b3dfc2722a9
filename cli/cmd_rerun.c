/* SPDX-License-Identifier: MIT */
/*
 * vmsim rerun RESULT.json [RUN OPTIONS...]
 *
 * Runs the run that made RESULT.json again: its scheme, workload, fault
 * source and every option it records (resfile/run_options.c), then the
 * options given here (later ones win: -o, -f, -q, --brief, or a changed
 * value such as -i 10 or --hold-extra 500). A result made by a newer
 * vmsim, with an option this one does not know, is refused in one line.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/run.h"
#include "analysis/compare.h"

int cmd_rerun(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct run_args_vec v;
	struct cmp_file f;
	char err[512];
	int ret;

	if (argc >= 2 && cli_is_help(argv[1])) {
		printf("usage: vmsim rerun RESULT.json [vmsim run options...]\n"
		       "Runs the run that made RESULT.json again, with every "
		       "option it records;\noptions given here come after "
		       "them (later ones win).\n");
		return 0;
	}
	if (argc < 2)
		return cli_bad("%s", "rerun: want 'vmsim rerun RESULT.json [run "
			   "options...]'");
	if (cmp_load(argv[1], &f, err, sizeof(err))) {
		fprintf(stderr, "%s: rerun: %s: %s\n", prog, f.shown[0] ?
			f.shown : argv[1], err);
		return EXIT_USAGE;
	}
	ret = run_rerun_args(f.root, &v, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: rerun: %s: cannot run it again: %s\n", prog,
			f.shown, err);
		cmp_file_free(&f);
		return EXIT_USAGE;
	}
	cmp_file_free(&f);
	for (int i = 2; i < argc; i++)
		if (run_args_add(&v, argv[i])) {
			run_args_free(&v);
			fprintf(stderr, "%s: rerun: out of memory\n", prog);
			return 1;
		}
	ret = cmd_run(v.n, v.argv, ctx);
	run_args_free(&v);
	return ret;
}
