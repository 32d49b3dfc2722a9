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
 *    message in the caller's buffer (cli_fail), and only the cmd_*()
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

#define EXIT_USAGE 2
#define MAX_TASKS_LIMIT 1024

static const char *const prog = "vmsim";

/* What a command runs with. */
struct cli_ctx {
	bool dry_run;            /* validate only: stop before doing anything
				  * (for fuzzing the parser) */
};

/* A command: its name, its line in vmsim --help ("\n" continues it),
 * and what runs it. */
struct cli_command {
	const char *name, *summary;
	int (*run)(int argc, char **argv, const struct cli_ctx *ctx);
};

/* vmsim's commands (cli/cli.c sets them; vmsim-compare has none). */
extern const struct cli_command *cli_commands;
extern int cli_ncommands;

void cli_usage(FILE *f);
/* vmsim CMD --help: CMD's usage and options only (all: an unknown CMD); 0. */
int cli_help(const char *cmd);
/* One line "vmsim: <fmt with val>" (val made printable); EXIT_USAGE. */
int cli_bad(const char *fmt, const char *val);
/* Which VMA trees this vmsim has, and the kernel source of the maple
 * tree (vmsim --version, vmsim check). */
void cmd_check_tree_source(FILE *f);
/* Complaints from now on point at 'vmsim CMD --help' (NULL: 'vmsim --help'). */
void cli_set_help_command(const char *cmd);
/* Complaints from now on are about these words, not the command's own
 * ("--candidate-opts"; NULL: the command's): "(in WORDS; see ...)". */
void cli_set_help_context(const char *ctx);
/* Is arg -h or --help? */
bool cli_is_help(const char *arg);
/* " (see 'vmsim [CMD ]--help')" and the newline that ends a complaint. */
void cli_see_help(void);
/* getopt's complaint as one line of ours; EXIT_USAGE. */
int cli_bad_option(char **argv, int opt, const struct option *opts);
/* arg as one of names: its index, or -1 after one line. */
int cli_pick(const char *what, const char *arg, const char *const *names, int n);
/* "unknown WHAT 'arg' (one of: a, b, c)" (arg NULL: "WHAT (one of:
 * ...)") in one line; EXIT_USAGE. */
int cli_unknown(const char *what, const char *arg, const char *(*name)(int i),
		int n);
/* The message below a command: fmt into msg (len bytes, cut with an
 * ellipsis where it must be), and err (a -errno) returned, so that
 * `return cli_fail(why, len, -EINVAL, "...", ...);` says and fails in
 * one. */
int cli_fail(char *msg, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define NAMES(...) (const char *const[]){ __VA_ARGS__ }, \
	(int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *))

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
int cmd_record(int argc, char **argv, const struct cli_ctx *ctx);
int cmd_trace(int argc, char **argv, const struct cli_ctx *ctx);
int cmd_list(int argc, char **argv);
void cmd_list_names(FILE *f);
/* Prints the scheme and workload names at the end of --help; NULL in
 * vmsim-compare, which links no simulator (set by cli_main_ctx). */
extern void (*cli_names_hook)(FILE *f);
int cmd_check(void);

#endif
