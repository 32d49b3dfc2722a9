/* SPDX-License-Identifier: MIT */
/*
 * vmsim — user-space virtual memory manager simulator: the command line.
 *
 *   vmsim run      run a workload under lock schemes (cli/cmd_run.c)
 *   vmsim compare  compare result files (cli/cmd_compare.c)
 *   vmsim bench    micro-benchmarks (cli/cmd_bench.c)
 *   vmsim list     the lock schemes and workloads (cli/cmd_list.c)
 *   vmsim check    what this machine offers (cli/cmd_check.c)
 *   vmsim record   record a program's address-space activity (cli/cmd_record.c)
 *   vmsim trace    what a recorded trace holds (cli/cmd_trace.c)
 *
 * Only cli/ turns errors into messages and exit codes: 2 for bad usage,
 * 1 for a run that failed, 3 for a run that was aborted.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"

int cli_main_ctx(int argc, char **argv, const struct cli_ctx *ctx)
{
	const char *cmd;

	opterr = 0;      /* getopt's complaints are ours: cli_bad_option() */
	cli_names_hook = cmd_list_names;
	cli_set_help_command(NULL);
	if (argc < 2)
		return cli_bad("%s", "no command: want run, compare, report, gate, rerun, record, trace, bench, list or check");
	cmd = argv[1];
	/* A command's complaints point at its own --help (unset below if
	 * it is no command). */
	cli_set_help_command(cmd);
	if (cli_is_help(cmd) ||
	    (!strcmp(cmd, "help") && argc == 2)) {
		cli_usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("vmsim %s (%s)\n", VMSIM_VERSION, VMSIM_GIT_REV);
		return 0;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1, ctx);
	if (!strcmp(cmd, "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "help") && argc > 2)
		return cli_help(argv[2]);
	if (!strcmp(cmd, "check") && argc > 2 &&
	    cli_is_help(argv[2]))
		return cli_help("check");
	if (!strcmp(cmd, "check") && argc > 2)
		return cli_bad("unexpected argument '%s'", argv[2]);
	if (!strcmp(cmd, "check"))
		return ctx->dry_run ? 0 : cmd_check();
	if (!strcmp(cmd, "bench"))
		return cmd_bench(argc - 1, argv + 1, ctx);
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1, ctx);
	if (!strcmp(cmd, "trace"))
		return cmd_trace(argc - 1, argv + 1, ctx);
	if (!strcmp(cmd, "compare"))
		return cmd_compare(argc - 1, argv + 1, ctx);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1, ctx);
	if (!strcmp(cmd, "rerun"))
		return cmd_rerun(argc - 1, argv + 1, ctx);
	if (!strcmp(cmd, "gate"))
		return cmd_gate(argc - 1, argv + 1, ctx);
	cli_set_help_command(NULL);
	return cli_bad("unknown command '%s'", cmd);
}

int cli_main(int argc, char **argv)
{
	const struct cli_ctx ctx = { .dry_run = false };

	return cli_main_ctx(argc, argv, &ctx);
}
