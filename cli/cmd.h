/* SPDX-License-Identifier: MIT */
/*
 * What the commands share: the program's name, exit statuses, the
 * one-line complaints about bad input, and the context a command runs in
 * (instead of process-wide flags).
 *
 * How a failure travels in cli/, two rules:
 *  - what checks the command line (parsing, and settling what the user
 *    gave against the workload and the machine) says one line — the
 *    cli_bad family — and returns EXIT_USAGE, which its cmd_*() returns;
 *  - what does the work below a cmd_*() returns 0 or -errno with its
 *    message in the caller's buffer (msg_fail), and only the cmd_*()
 *    prints it and chooses the exit status.
 * A function whose work is telling the user (record_convert's account of
 * what it recorded) prints, and says so in its contract.
 */
#ifndef VMSIM_CMD_H
#define VMSIM_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/complain.h"
#include "cli/opt.h"

/* What a command runs with. */
struct cli_ctx {
	bool dry_run;            /* validate only: stop before doing anything
				  * (for fuzzing the parser) */
};

/* vmsim's commands (cli/cli.c sets them; vmsim-compare has none). */
extern const struct cli_command *const *cli_commands;
extern int cli_ncommands;

void cli_usage(FILE *f);
/* vmsim help CMD: CMD's usage and options only; 0, or EXIT_USAGE after
 * one line for a command there is none of. */
int cli_help(const char *cmd);
/* The exit statuses of a command that writes a file, and of one that
 * only tells (cli/common.c). */
extern const char cli_exit_write[], cli_exit_info[];
/* The directory of vmsim's documentation: the source tree's for the
 * build tree's binary, else where the package installs it. */
const char *cli_docs_dir(void);
/* Which VMA trees this vmsim has, and the kernel source of the maple
 * tree (vmsim --version, vmsim check). */
void cmd_check_tree_source(FILE *f);

/* The commands, one file each (cli/cmd_*.c): what each is (its table,
 * its help, what runs it). */
extern const struct cli_command cmd_run_desc, cmd_compare_desc,
	cmd_report_desc, cmd_gate_desc, cmd_calibrate_desc, cmd_rerun_desc,
	cmd_record_desc, cmd_trace_desc, cmd_bench_desc, cmd_list_desc,
	cmd_check_desc;
/* vmsim bench scale: run's options, the harness's ceiling (cli/cmd_run.c). */
int cmd_bench_scale(int argc, char **argv, const struct cli_ctx *ctx);
/* bench scale, whose options are run's (cli/cmd_bench.c). */
extern const struct cli_command cmd_bench_scale_desc;
/* run's options that bench scale takes, as a table (cli/cmd_run.c). */
const struct cli_opt *cmd_bench_scale_opts(void);
/* The scheme and workload names (cli/cmd_list.c): -l's and -w's values. */
void cmd_list_names(FILE *f);
void cmd_list_schemes(FILE *f);
void cmd_list_workloads(FILE *f);
/* Prints the scheme and workload names at the end of --help; NULL in
 * vmsim-compare, which links no simulator (set by cli_main_ctx). */
extern void (*cli_names_hook)(FILE *f);

#endif
