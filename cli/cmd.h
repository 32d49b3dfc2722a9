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

#include "base/complain.h"

/* What a command runs with. */
struct cli_ctx {
	bool dry_run;            /* validate only: stop before doing anything
				  * (for fuzzing the parser) */
};

/* One getopt table of a command, the one its parser passes to
 * getopt_long: the man pages and the bash completion are generated from
 * these at build time (`vmsim list --options`), so they cannot drift. */
struct cli_optset {
	const char *sub;                 /* its sub-command, or NULL */
	const struct option *longopts;   /* NULL ends a command's sets */
	const char *shortopts;           /* getopt's letters */
	/* A long option's one-letter form, or 0; NULL: the letter of its
	 * val, if shortopts has it. */
	int (*short_of)(const struct option *o);
	/* The values an option takes, space-separated on f; NULL: none
	 * known (a number, a file). */
	void (*values)(const struct option *o, FILE *f);
};

/* A command: its name, its line in vmsim --help ("\n" continues it),
 * what runs it, and its getopt tables (NULL: it takes no option). */
struct cli_command {
	const char *name, *summary;
	int (*run)(int argc, char **argv, const struct cli_ctx *ctx);
	const struct cli_optset *(*optsets)(void);
};

/* vmsim's commands (cli/cli.c sets them; vmsim-compare has none). */
extern const struct cli_command *cli_commands;
extern int cli_ncommands;

void cli_usage(FILE *f);
/* vmsim CMD --help: CMD's usage and options only (all: an unknown CMD); 0. */
int cli_help(const char *cmd);
/* The directory of vmsim's documentation: the source tree's for the
 * build tree's binary, else where the package installs it. */
const char *cli_docs_dir(void);
/* Which VMA trees this vmsim has, and the kernel source of the maple
 * tree (vmsim --version, vmsim check). */
void cmd_check_tree_source(FILE *f);

/* The commands, one file each (cli/cmd_*.c). */
int cmd_run(int argc, char **argv, const struct cli_ctx *ctx);
int cmd_compare(int argc, char **argv, const struct cli_ctx *ctx);
int cmd_rerun(int argc, char **argv, const struct cli_ctx *ctx);
int cmd_gate(int argc, char **argv, const struct cli_ctx *ctx);
int cmd_calibrate(int argc, char **argv, const struct cli_ctx *ctx);
int cmd_report(int argc, char **argv, const struct cli_ctx *ctx);
int cmd_bench(int argc, char **argv, const struct cli_ctx *ctx);
/* vmsim bench scale: run's options, the harness's ceiling (cli/cmd_run.c). */
int cmd_bench_scale(int argc, char **argv, const struct cli_ctx *ctx);
const struct cli_optset *cmd_bench_scale_optset(void);
int cmd_record(int argc, char **argv, const struct cli_ctx *ctx);
int cmd_trace(int argc, char **argv, const struct cli_ctx *ctx);
int cmd_list(int argc, char **argv);
/* The commands' option tables (cmd_*_optsets: the parsers' own). */
const struct cli_optset *cmd_run_optsets(void);
const struct cli_optset *cmd_compare_optsets(void);
const struct cli_optset *cmd_report_optsets(void);
const struct cli_optset *cmd_gate_optsets(void);
const struct cli_optset *cmd_calibrate_optsets(void);
const struct cli_optset *cmd_record_optsets(void);
const struct cli_optset *cmd_trace_optsets(void);
const struct cli_optset *cmd_bench_optsets(void);
/* The names compare's, report's and gate's --format, --test and
 * --significance take (cli/cmd_compare.c). */
void cmd_cmp_values(const struct option *o, FILE *f);
void cmd_list_names(FILE *f);
/* Prints the scheme and workload names at the end of --help; NULL in
 * vmsim-compare, which links no simulator (set by cli_main_ctx). */
extern void (*cli_names_hook)(FILE *f);
int cmd_check(void);

#endif
