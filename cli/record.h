/* SPDX-License-Identifier: MIT */
/* vmsim record's second half (cli/record_out.c): the trace's place
 * claimed before the recording, perf's data converted into it through
 * the safe-write layer — never lost, never clobbering — and what was
 * recorded, told. */
#ifndef VMSIM_RECORD_H
#define VMSIM_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "trace/perf_conv.h"
#include "base/safefile.h"

/* What record needs from the host (cli/record_env.c). */
struct record_env {
	bool perf;                       /* perf is on PATH */
	long paranoid;                   /* kernel.perf_event_paranoid */
	bool uid_may_trace;              /* root, or paranoid -1 */
	const char *tracefs;             /* its events/ folder, or NULL */
	const char *missing;             /* a tracepoint it lacks, or NULL */
	bool lock_events;                /* it has mmap_lock:* too */
};

/* Probe e; may_mount: mount tracefs where it is not (as perf would). */
void record_probe(struct record_env *e, bool may_mount);
/* Can name be run (a path, or found in PATH)? 0; -ENOENT not found;
 * -EACCES found but not executable; -EISDIR a directory. */
int record_runnable(const char *name);

/* The header's comment: the command line, or "pid P for S s". */
void record_comment(char **cmd, long pid, long duration, char *out,
		    size_t len);

struct record_out {
	struct sf_out trace;
	char side[PATH_MAX + 32];        /* TRACE.mmap_lock.json, or "" */
	bool force;
	bool open;
};

/* Claim path for the trace; then (when the host's lock is recorded too)
 * check its side file's place. 0, or -1 after one line. */
int record_claim(struct record_out *o, const char *path, bool force);
int record_claim_side(struct record_out *o);
/* Drop whatever was not published. Safe twice. */
void record_release(struct record_out *o);

struct record_job {
	const char *comment, *data;
	const char *scratch;             /* the folder data is in */
	const char *errlog;              /* perf record's complaints (-p) */
	const char *script_log;          /* perf script's */
	long pid;                        /* -p: that process only; 0 */
	/* -p: its mappings when the recording began (/proc/PID/maps). */
	const struct perf_premap *pre;
	size_t npre;
	/* --follow: the process traced is this one, or the first that
	 * execs a program of this name, or the follow_fork-th process made;
	 * else the command's own. */
	long follow_pid, follow_fork;
	const char *follow_comm;
	int status;                      /* perf record's wait status */
	int signal_at_start;             /* a signal ended the recording */
	/* perf script of data into c (log: its complaints); 0, -errno,
	 * or -EIO with its wait status in *st. */
	int (*script)(const char *data, const char *log,
		      struct perf_conv *c, int *st);
};

/* Convert j's data into o and print what it holds. Returns enum sf_where
 * (0: the trace is where asked; 1 or 2: elsewhere, said), or -1 after
 * one line (nothing recorded, or nothing could be written). */
int record_convert(const struct record_job *j, struct record_out *o);

#endif
