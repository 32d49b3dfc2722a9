/* SPDX-License-Identifier: MIT */
/* The vmsim command line, as a library (main.c and the fuzzer call it). */
#ifndef VMSIM_CLI_H
#define VMSIM_CLI_H

#include <stdbool.h>

struct cli_ctx;

/* Run the command line; returns the exit code. */
int cli_main(int argc, char **argv);
/* The same in a given context (the fuzzer: ctx->dry_run, validation
 * only). */
int cli_main_ctx(int argc, char **argv, const struct cli_ctx *ctx);

#endif
