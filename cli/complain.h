/* SPDX-License-Identifier: MIT */
/*
 * The command line's complaints, one line each (cli/complain.c): the
 * exit status of bad input, a bad value or option said with the --help
 * it points at. cli/cmd.h says how a failure travels through the
 * commands.
 */
#ifndef VMSIM_CLI_COMPLAIN_H
#define VMSIM_CLI_COMPLAIN_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/complain.h"

#define EXIT_USAGE 2

/* One line "vmsim: <fmt with val>" (val made printable); EXIT_USAGE. */
int cli_bad(const char *fmt, const char *val);
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
#endif
