/* SPDX-License-Identifier: MIT */
/*
 * resfile — where a result file goes, checked before the run and
 * published after it without ever clobbering what is not ours or losing
 * a measurement.
 *
 * Before the run, res_target_open() refuses (one line) a target that is
 * not a regular file or a missing name in a writable directory — a
 * symbolic link, a device, a FIFO, a directory — and, unless forced, an
 * existing file; with --force it still refuses a file that is not a
 * vmsim result. It then creates the temporary file in the target's
 * directory (a short name, `.vmsim-PID-N.tmp`, that cannot overflow
 * NAME_MAX), which proves the directory writable, and removes the
 * temporary files of vmsim processes that died.
 *
 * After the run, res_target_publish() writes the result into the
 * temporary file and publishes it: without --force by link(2), which
 * never replaces a file — if the name was taken meanwhile (two runs given
 * the same name), the result goes to a fresh name beside it and the
 * caller is told which; with --force by rename(2), after checking again
 * that what it replaces is a vmsim result. If the result cannot be
 * written there at all (a full disk, a removed directory), it is written
 * to $TMPDIR (or /tmp) and the caller is told where; as a last resort it
 * is printed to standard output. Errors carry the real errno.
 */
#ifndef VMSIM_RESFILE_H
#define VMSIM_RESFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "report/results.h"

struct res_target {
	char path[PATH_MAX];             /* where the user asked */
	char shown[PATH_MAX];            /* path, printable (sim/parse.h) */
	char dir[PATH_MAX];              /* its directory */
	char tmp[PATH_MAX + 32];         /* our temporary file there */
	int fd;                          /* open on tmp, or -1 */
	bool force;
};

/* Check path and create the temporary file. Returns 0, or -errno with
 * err holding one line (the caller adds nothing but its prefix). */
int res_target_open(struct res_target *t, const char *path, bool force,
		    char *err, size_t errlen);

/*
 * Write r and publish it. *where gets the file it ended up in (path, a
 * fresh name beside it, or a file under $TMPDIR; "" if it could only be
 * printed). Returns 0 when it is at path; 1 when the name was taken (or
 * is no longer a result) and it is beside it; 2 when it could not be
 * written there and is under $TMPDIR; -errno when it could only be
 * printed. note holds one line whenever the return is not 0.
 */
int res_target_publish(struct res_target *t, const struct res_file *r,
		       char *where, size_t wlen, char *note, size_t nlen);

/* Remove the temporary file if still there and close it. Safe twice. */
void res_target_close(struct res_target *t);

#endif
