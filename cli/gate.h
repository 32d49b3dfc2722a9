/* SPDX-License-Identifier: MIT */
/*
 * vmsim gate's runs as child processes (cli/gate_run.c): one run of a
 * side's program in a process group of its own, its output into a log,
 * ended when it outlives its time; the gate's interrupt forwarded to it.
 * The judging is cmd_gate.c's.
 */
#ifndef VMSIM_GATE_H
#define VMSIM_GATE_H

#include <signal.h>
#include <stddef.h>

#include "cli/run.h"

#define GATE_KILL_GRACE_MS 5000          /* SIGTERM, then SIGKILL */

/* From here SIGINT, SIGTERM and SIGHUP stop the gate and are forwarded
 * to the run under way (old: what to put back). */
void gate_signals_install(struct sigaction old[3]);
void gate_signals_restore(const struct sigaction old[3]);
/* The first of them that came, or 0. */
int gate_signal(void);

/* The words of s (blank-separated, as --candidate-opts gives them) onto
 * v, however many: 0 or -ENOMEM. */
int gate_split_words(struct run_args_vec *v, const char *s);

/*
 * PROG run RECIPE [EXTRA] -q -o OUT, its output into LOG (made new), for
 * at most timeout_s seconds (a grace period once the gate is
 * interrupted): then SIGTERM to its group, a grace period, SIGKILL.
 * 0 when it exited 0; else -errno with why: -ENOMEM, the log's or
 * fork's -errno, -ETIMEDOUT (it was ended), -ECHILD (it failed: its
 * status and its last complaint).
 */
int gate_run_one(const struct run_args_vec *recipe, const char *prog,
		 const char *extra, const char *out, const char *log,
		 int timeout_s, char *why, size_t len);

#endif
