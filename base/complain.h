/* SPDX-License-Identifier: MIT */
/*
 * The command line's complaints, one line each (base/complain.c): the
 * program's name, the exit status of bad input, and the message a
 * function below a command fails with. cli/cmd.h says how a failure
 * travels through the commands.
 */
#ifndef VMSIM_COMPLAIN_H
#define VMSIM_COMPLAIN_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#define EXIT_USAGE 2

static const char *const prog = "vmsim";

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
/* The message below a command: fmt into msg (len bytes, cut with an
 * ellipsis where it must be), and err (a -errno) returned, so that
 * `return msg_fail(why, len, -EINVAL, "...", ...);` says and fails in
 * one. */
int msg_fail(char *msg, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define NAMES(...) (const char *const[]){ __VA_ARGS__ }, \
	(int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *))

#endif
