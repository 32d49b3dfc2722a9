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
#include <time.h>

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

/* --junit (cli/gate_junit.c): one gate's verdict for a JUnit file. */
struct cmp_gate_rows;
struct gate_junit {
	const char *path;                /* --junit's FILE */
	const char *input;               /* the gate's --recipe or --baseline */
	double pct, alpha;               /* the minimum effect, family-wise */
	int rounds;
	const struct cmp_gate_rows *rows;
	int verdict;                     /* enum cmp_verdict */
	const char *line;                /* the verdict line */
	double seconds;
	time_t start;
};
/* Can path take the JUnit file (new, or one the gate wrote; never
 * input)? 0, or -errno with one line in err. */
int gate_junit_check(const char *path, const char *input, char *err,
		     size_t len);
/* Write it: 0 where asked; else 1 after one line on stderr (where it
 * went, or why it is nowhere). */
int gate_junit_write(const struct gate_junit *j);

#endif
