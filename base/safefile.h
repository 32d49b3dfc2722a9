/* SPDX-License-Identifier: MIT */
/*
 * safefile — the one way vmsim writes a file: results, traces, their side
 * files, replay logs. vmsim runs as root, so the rules are strict:
 *
 *  - The destination is checked before any work: it must be a new name in
 *    a directory, or (with --force only) a regular file that the caller's
 *    ours() recognises as its own kind and that is no input of the run.
 *    A symbolic link, FIFO, device, socket or directory at the name is
 *    refused; nothing is ever opened at the destination for writing.
 *  - The content goes into an unnamed file in the destination's directory
 *    (O_TMPFILE; where the filesystem has none, a name of 16 random hex
 *    digits made with O_CREAT|O_EXCL|O_NOFOLLOW) — there is no name for
 *    another user to plant a link at, and nothing is left behind by a
 *    process that dies.
 *  - It is published only when complete: linked in (which never replaces a
 *    file); with --force swapped in atomically (RENAME_EXCHANGE) and the
 *    file it replaced checked again, and put back if it is no longer one
 *    of ours. An incomplete content (an interrupted run) never replaces a
 *    file: it goes beside it (FILE-2.json …), as does a content whose name
 *    was taken meanwhile.
 *  - When the directory cannot take it (a full disk, a removed folder), it
 *    is written again under $TMPDIR (or /tmp) at an unpredictable name, and
 *    the caller told where, so that no measurement is lost.
 *
 * Return codes shared by every writer (and so every command's exit code):
 * 0 where asked, 1 beside it, 2 under $TMPDIR, -errno lost.
 */
#ifndef VMSIM_SAFEFILE_H
#define VMSIM_SAFEFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define SF_MAX_INPUTS 4

enum sf_where {
	SF_AT_PATH = 0,
	SF_BESIDE = 1,
	SF_IN_TMPDIR = 2,
};

struct sf_spec {
	const char *what;                /* "result file", "trace", ... */
	bool force;                      /* may replace a file of ours */
	/* Is the regular file open (read-only) on fd one that --force may
	 * replace? NULL: none may be. */
	bool (*ours)(int fd);
	/* Files this run reads (NULL-terminated, may be NULL): never a
	 * destination. */
	const char *const *inputs;
};

struct sf_out {
	char path[PATH_MAX];             /* as asked */
	char shown[PATH_MAX];            /* printable */
	char base[NAME_MAX + 1];         /* its last component */
	char tmpname[32];                /* a named temporary; "" unnamed */
	char fallback[PATH_MAX];         /* the file under $TMPDIR, if moved */
	char fbname[NAME_MAX + 1];       /* its name there */
	int fbdirfd;                     /* $TMPDIR */
	int dirfd;                       /* the destination's directory */
	int fd;                          /* the content, or -1 */
	int moved_why;                   /* errno that sent it to $TMPDIR */
	struct sf_spec spec;
	dev_t in_dev[SF_MAX_INPUTS];
	ino_t in_ino[SF_MAX_INPUTS];
	int ninputs;
};

/* The first len - 1 bytes of fd (from offset 0) into buf, NUL-terminated
 * (what an ours() reads to know a file of its kind): how many, or 0. */
size_t sf_head(int fd, char *buf, size_t len);
/* Check path as a destination for spec (no file is made): 0, or -errno
 * with one line in err. */
/* Where scratch and fallback files go: $TMPDIR, or /tmp. */
const char *sf_tmpdir(void);

int sf_check(const char *path, const struct sf_spec *spec, char *err,
	     size_t errlen);

/* sf_check, then make the unnamed content file. 0 or -errno (err). */
int sf_open(struct sf_out *o, const char *path, const struct sf_spec *spec,
	    char *err, size_t errlen);

/*
 * Write the whole content through emit(f, arg), which returns 0 or -errno
 * (and may ftruncate/fseek f to start again). Any earlier content is
 * dropped. If the write fails, the content is written again into a file
 * under $TMPDIR. 0 (or SF_IN_TMPDIR once it has moved), or -errno when it
 * could be written nowhere; emit's own error is returned as it is.
 */
int sf_emit(struct sf_out *o, int (*emit)(FILE *f, void *arg), void *arg);

/*
 * Publish. complete: the content is the whole of what was asked (an
 * incomplete one never replaces a file). *where gets the file it is in;
 * note one line whenever the return is not SF_AT_PATH. Returns enum
 * sf_where, or -errno (note says why; the content is gone).
 */
int sf_commit(struct sf_out *o, bool complete, char *where, size_t wlen,
	      char *note, size_t nlen);

/* Drop the content (if not committed) and close. Safe twice. */
void sf_abort(struct sf_out *o);

/*
 * Paths: no symbolic link is followed in any component of a path vmsim
 * writes to (a destination's directory, a results directory, $TMPDIR
 * for fallbacks, the gate's and record's folders): each is resolved
 * once, with openat2(RESOLVE_NO_SYMLINKS) where the kernel has it, else
 * component by component with O_NOFOLLOW, and the directory descriptor
 * is what is written into. "." and ".." are taken as they are.
 */
/* Directory path, opened so: fd, or -errno with one line in err (which
 * may be NULL). */
int sf_open_dir(const char *path, char *err, size_t errlen);

/* Make directory path and its missing parents (0755), as mkdir -p,
 * following no link: 0, or -errno with one line in err. *made (may be
 * NULL): path itself was made here. */
int sf_mkdirs(const char *path, bool *made, char *err, size_t errlen);

/* A new directory at path (EEXIST if there is anything), its parent
 * resolved so: 0 or -errno. */
int sf_mkdir_new(const char *path, mode_t mode);
/* A new directory $TMPDIR/PREFIX-<12 random hex digits> (0700), its
 * path into out: 0 or -errno. */
int sf_mkdtemp(char *out, size_t len, const char *prefix);
/* Remove path if it is an empty directory: 0 or -errno. */
int sf_rmdir_empty(const char *path);
/* A new file at path, for writing (O_EXCL, O_NOFOLLOW), its parent
 * resolved so: fd or -errno. */
int sf_create_new(const char *path, mode_t mode);
/* Remove directory path and all it holds (16 levels down at most),
 * following no link: 0 or the first -errno. */
int sf_remove_tree(const char *path);

/* "a FIFO", "a directory", ... for a file type. */
const char *sf_kind(mode_t mode);

#endif
