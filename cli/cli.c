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

/* Dispatch and vmsim --help's list, in this order. */
static const struct cli_command *const commands[] = {
	&cmd_run_desc, &cmd_compare_desc, &cmd_report_desc, &cmd_gate_desc,
	&cmd_calibrate_desc, &cmd_rerun_desc, &cmd_record_desc, &cmd_trace_desc,
	&cmd_bench_desc, &cmd_list_desc, &cmd_check_desc,
};
#define NCOMMANDS ((int)(sizeof(commands) / sizeof(commands[0])))

/* "no command" names them all, from the table. */
static int no_command(void)
{
	fprintf(stderr, "%s: no command: want ", prog);
	for (int i = 0; i < NCOMMANDS; i++)
		fprintf(stderr, "%s%s", i == 0 ? "" : i == NCOMMANDS - 1 ?
			" or " : ", ", commands[i]->name);
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
		if (!strcmp(cmd, commands[i]->name))
			return commands[i]->run(argc - 1, argv + 1, ctx);
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
