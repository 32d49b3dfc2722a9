/* SPDX-License-Identifier: MIT */
/*
 * vmsim rerun [--print] RESULT.json [RUN OPTIONS...]
 *
 * Runs the run that made RESULT.json again: its scheme, workload, fault
 * source and every option it records (resfile/run_options.c), then the
 * options given here (later ones win: -o, -f, -q, --brief, or a changed
 * value such as -i 10 or --hold-extra 500). A result made by a newer
 * vmsim, with an option this one does not know, is refused in one line.
 * --print runs nothing: it prints the vmsim run command line, quoted for
 * a POSIX shell, that rerun would run.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/run.h"
#include "analysis/compare.h"

/* One word as a POSIX shell reads it back: bare when it holds only
 * characters no shell treats specially, else in single quotes. */
static void print_word(const char *w)
{
	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789_@%+=:,./-") == strlen(w)) {
		fputs(w, stdout);
		return;
	}
	putchar('\'');
	for (; *w; w++)
		if (*w == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*w);
	putchar('\'');
}

static void print_command(const struct run_args_vec *v)
{
	fputs("vmsim", stdout);
	for (int i = 0; i < v->n; i++) {
		putchar(' ');
		print_word(v->argv[i]);
	}
	putchar('\n');
}

struct rerun_args {
	bool print;
};

static const struct cli_opt rerun_opts[] = {
	CLI_FLAG(struct rerun_args, print, 0, "print",
		 "run nothing: print the vmsim run command line\n"
		 "it would run, quoted for a shell"),
	CLI_HELP_OPT,
	CLI_END
};

static int cmd_rerun(int argc, char **argv, const struct cli_ctx *ctx);

const struct cli_command cmd_rerun_desc = {
	.name = "rerun",
	.summary = "run what a result file records again (its every option)",
	.synopsis = "rerun [--print] RESULT.json [vmsim run options...]",
	.text = "Runs the run that made RESULT.json again, with every option it records;\n"
		"options given here come after them (later ones win).\n",
	.opts = rerun_opts,
	.exits = "\nexit status: vmsim run's (vmsim run --help); 2 also for a result\n"
		 "  that cannot be run again (one line says why).\n",
	.in_order = true,
	.run = cmd_rerun,
};

static int cmd_rerun(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct run_args_vec v;
	struct cmp_file f;
	struct rerun_args a = { .print = false };
	char err[512];
	int first, ret = cli_parse(&cmd_rerun_desc, argc, argv, &a, &first);

	if (ret)
		return ret == CLI_PARSED_HELP ? 0 : ret;
	/* RESULT.json is argv[1] from here, run's options after it. */
	argc -= first - 1;
	argv += first - 1;
	if (argc < 2)
		return cli_bad("%s", "rerun: want 'vmsim rerun [--print] RESULT.json [run "
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
	if (a.print)
		print_command(&v);
	ret = a.print ? 0 : cmd_run_desc.run(v.n, v.argv, ctx);
	run_args_free(&v);
	return ret;
}
