/* SPDX-License-Identifier: MIT */
/*
 * outstream — standard output with its errors kept, as coreutils'
 * close_stdout: a command's output that did not arrive (a full disk, a
 * closed descriptor, a reader gone) is a failure, exit 1 and one line,
 * never a silent exit 0; and vmsim run, whose only copy of a result may
 * be what it prints, keeps the result in a file instead (cli/cmd_run.c).
 */
#ifndef VMSIM_OUTSTREAM_H
#define VMSIM_OUTSTREAM_H

#include <stdbool.h>

/* Before anything is printed: descriptors 0-2 kept occupied (a closed
 * one gets /dev/null, so that no file vmsim opens lands there and
 * receives its messages; a closed standard output is an error once
 * something is printed to it), and stdout replaced by a line-buffered stream that records the
 * first error of a write. */
void cli_stdout_init(void);

/* Everything printed so far flushed: 0 if it all arrived, else the
 * first failure's -errno (-EBADF: standard output was closed). */
int cli_stdout_error(void);

/* The failure was told already (run's line saying where its result
 * went): cli_stdout_close adds no second line. */
void cli_stdout_told(void);

/* At exit: flush and close standard output; on a failure one line and
 * the exit status 1 (a status already non-zero is kept). Returns the
 * exit status. */
int cli_stdout_close(int status);

#endif
