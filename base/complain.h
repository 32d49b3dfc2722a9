/* SPDX-License-Identifier: MIT */
/*
 * The program's name and the message a function below a command fails
 * with (base/complain.c). The command line's own one-line complaints
 * are cli/complain.h's; cli/cmd.h says how a failure travels.
 */
#ifndef VMSIM_COMPLAIN_H
#define VMSIM_COMPLAIN_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

static const char *const prog = "vmsim";

/* The message below a command: fmt into msg (len bytes, cut with an
 * ellipsis where it must be), and err (a -errno) returned, so that
 * `return msg_fail(why, len, -EINVAL, "...", ...);` says and fails in
 * one. */
int msg_fail(char *msg, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define NAMES(...) (const char *const[]){ __VA_ARGS__ }, \
	(int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *))

#endif
