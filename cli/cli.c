/* SPDX-License-Identifier: MIT */
/*
 * vmsim — user-space virtual memory manager simulator: the command line.
 * Each command is one file (cli/cmd_*.c) and one row of commands[]
 * below, which both dispatches and makes vmsim --help's list.
 *
 * Only cli/ turns errors into messages and exit codes: 2 for bad usage,
 * 1 for a run that failed, 3 for a run that was aborted.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"

static int list_main(int argc, char **argv, const struct cli_ctx *ctx)
{
	(void)ctx;
	return cmd_list(argc, argv);
}

static int check_main(int argc, char **argv, const struct cli_ctx *ctx)
{
	if (argc > 1 && cli_is_help(argv[1]))
		return cli_help("check");
	if (argc > 1)
		return cli_bad("unexpected argument '%s'", argv[1]);
	return ctx->dry_run ? 0 : cmd_check();
}

static const struct cli_command commands[] = {
	{ "run", "run a workload under one or more lock schemes, write a result",
	  cmd_run, cmd_run_optsets },
	{ "compare", "compare result files or directories: mmtests-style tables,\n"
	  "the regression gate", cmd_compare, cmd_compare_optsets },
	{ "report", "one self-contained HTML page of results (tables, graphs)",
	  cmd_report, cmd_report_optsets },
	{ "gate", "the CI gate: base and candidate run alternately, judged by\n"
	  "round; the last line is PASS, REGRESSION or CANNOT JUDGE",
	  cmd_gate, cmd_gate_optsets },
	{ "calibrate", "the models against the host kernel (-l kernel): each\n"
	  "one's rate and scaling beside the kernel's, one table",
	  cmd_calibrate, cmd_calibrate_optsets },
	{ "rerun", "run what a result file records again (its every option)",
	  cmd_rerun, NULL },
	{ "record", "run a program under perf and write what it did to its\n"
	  "address space as a trace (replay it with -w replay)",
	  cmd_record, cmd_record_optsets },
	{ "trace", "what a trace holds (info), or its events (show)",
	  cmd_trace, cmd_trace_optsets },
	{ "bench", "tree: the VMA tree's costs; fault: what a fault costs;\n"
	  "slab: the slab fast paths' costs; scale: the harness's scaling",
	  cmd_bench, cmd_bench_optsets },
	{ "list", "the lock schemes, components and workloads", list_main, NULL },
	{ "check", "what this machine offers (userfaultfd, io_uring, CPUs, perf)",
	  check_main, NULL },
};
#define NCOMMANDS ((int)(sizeof(commands) / sizeof(commands[0])))

/* "no command" names them all, from the table. */
static int no_command(void)
{
	fprintf(stderr, "%s: no command: want ", prog);
	for (int i = 0; i < NCOMMANDS; i++)
		fprintf(stderr, "%s%s", i == 0 ? "" : i == NCOMMANDS - 1 ?
			" or " : ", ", commands[i].name);
	cli_see_help();
	return EXIT_USAGE;
}

int cli_main_ctx(int argc, char **argv, const struct cli_ctx *ctx)
{
	const char *cmd;

	opterr = 0;      /* getopt's complaints are ours: cli_bad_option() */
	cli_names_hook = cmd_list_names;
	cli_commands = commands;
	cli_ncommands = NCOMMANDS;
	cli_set_help_command(NULL);
	if (argc < 2)
		return no_command();
	cmd = argv[1];
	/* A command's complaints point at its own --help (unset below if
	 * it is no command). */
	cli_set_help_command(cmd);
	if (cli_is_help(cmd) || (!strcmp(cmd, "help") && argc == 2)) {
		cli_usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "help"))
		return cli_help(argv[2]);
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("vmsim %s (%s)\n", VMSIM_VERSION, VMSIM_GIT_REV);
		cmd_check_tree_source(stdout);
		return 0;
	}
	for (int i = 0; i < NCOMMANDS; i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc - 1, argv + 1, ctx);
	cli_set_help_command(NULL);
	return cli_bad("unknown command '%s'", cmd);
}

int cli_main(int argc, char **argv)
{
	const struct cli_ctx ctx = { .dry_run = false };

	return cli_main_ctx(argc, argv, &ctx);
}

const char *cli_docs_dir(void)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = 0;
		/* The build tree's binary: the source's docs, where they are. */
		if (!strcmp(self, VMSIM_BUILD_EXE) &&
		    access(VMSIM_DOCS_SOURCE, R_OK) == 0)
			return VMSIM_DOCS_SOURCE;
	}
	return VMSIM_DOCS_INSTALLED;
}
