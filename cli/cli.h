/* SPDX-License-Identifier: MIT */
/* The vmsim command line, as a library (main.c and the fuzzer call it). */
#ifndef VMSIM_CLI_H
#define VMSIM_CLI_H

#include <stdbool.h>

/* Run the command line; returns the exit code. */
int vmsim_cli(int argc, char **argv);

/* Validate only: `run`, `bench` and `check` stop before doing anything
 * (for fuzzing the parser). */
extern bool vmsim_cli_dry_run;

#endif
