/* SPDX-License-Identifier: MIT */
/*
 * resfile — a result file, through the one safe-write layer
 * (base/safefile.h): checked before the run (a new name, or with --force
 * only a vmsim result that is no input of the run), written unnamed in its
 * directory, published when the run is over. An incomplete result never
 * replaces a file: it goes beside it. If the directory cannot take it, it
 * goes under $TMPDIR; as a last resort to standard output.
 */
#ifndef VMSIM_RESFILE_H
#define VMSIM_RESFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "sim/result.h"
#include "base/safefile.h"

struct res_target {
	struct sf_out out;
	bool open;
};

/* Check path and make the unnamed file. inputs: the run's input files
 * (NULL-terminated, may be NULL). Returns 0, or -errno with err holding
 * one line (the caller adds nothing but its prefix). */
int resfile_open(struct res_target *t, const char *path, bool force,
		    const char *const *inputs, char *err, size_t errlen);

/*
 * Write r and publish it. *where gets the file it ended up in (path, a
 * fresh name beside it, or a file under $TMPDIR; "" if it could only be
 * printed). Returns enum sf_where: 0 at path; 1 beside it (the name was
 * taken, is no longer a result, or r is incomplete and would have
 * replaced one); 2 under $TMPDIR; -errno when it could only be printed.
 * note holds one line whenever the return is not 0.
 */
int resfile_publish(struct res_target *t, const struct res_file *r,
		       json_object *options, json_object *command,
		       json_object *by_scheme, char *where, size_t wlen, char *note, size_t nlen);

/* Remove the temporary file if still there and close it. Safe twice. */
void resfile_close(struct res_target *t);

#endif
