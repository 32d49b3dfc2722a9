/* SPDX-License-Identifier: MIT */
/* vmsim record's second half (cli/record_out.c): perf's data into a
 * trace file that is never lost, and what was recorded, told. */
#ifndef VMSIM_RECORD_H
#define VMSIM_RECORD_H

#include <stddef.h>

#include "trace/perf_conv.h"

/* The header's comment: the command line, or "pid P for S s". */
void record_comment(char **cmd, long pid, long duration, char *out,
		    size_t len);

/* Convert perf's data (script: runs perf script into a converter) into
 * the trace file out — or, when out cannot be written, a file in /tmp,
 * said in one line — and print what it holds. pid: the process to keep
 * (0: the first seen); status: perf record's wait status. 0, or -1
 * after one line. */
int record_convert(const char *comment, const char *data, const char *errlog,
		   const char *out, long pid, int status,
		   int (*script)(const char *data, struct perf_conv *c));

#endif
