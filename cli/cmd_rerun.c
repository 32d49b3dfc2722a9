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

int cmd_rerun(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct run_args_vec v;
	struct cmp_file f;
	bool print = false;
	char err[512];
	int ret;

	if (argc >= 2 && cli_is_help(argv[1])) {
		printf("usage: vmsim rerun [--print] RESULT.json [vmsim run "
		       "options...]\n"
		       "Runs the run that made RESULT.json again, with every "
		       "option it records;\noptions given here come after "
		       "them (later ones win).\n"
		       "  --print    run nothing: print the vmsim run command "
		       "line it would run\n");
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "--print")) {
		print = true;
		argc--;
		argv++;
	}
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
	if (print)
		print_command(&v);
	ret = print ? 0 : cmd_run(v.n, v.argv, ctx);
	run_args_free(&v);
	return ret;
}
