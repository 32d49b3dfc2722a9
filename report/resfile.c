/* SPDX-License-Identifier: MIT */
#include "report/resfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/parse.h"

#define RES_MAX_BYTES (1L << 30)     /* larger than any result vmsim writes */

static int tmp_seq;

static void split_dir(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "not a regular file";
}

/* Is path a regular file holding a vmsim result? Never blocks (a FIFO
 * is not opened for reading), never follows a symbolic link. */
static bool is_vmsim_result(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	json_object *o, *v;
	struct stat st;
	char *buf;
	bool yes = false;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > RES_MAX_BYTES ||
	    !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return false;
	}
	if (read(fd, buf, (size_t)st.st_size) == st.st_size) {
		buf[st.st_size] = 0;
		o = json_tokener_parse(buf);
		yes = o && json_object_is_type(o, json_type_object) &&
		      json_object_object_get_ex(o, "vmsim_result", &v);
		json_object_put(o);
	}
	free(buf);
	close(fd);
	return yes;
}

/* The temporary files of vmsim processes that died (this naming, and
 * the older FILE.tmp.PID one) are removed from dir. */
static void remove_stale_tmps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *tail = strstr(e->d_name, ".json.tmp.");
		int pid, n, end = 0;

		if (sscanf(e->d_name, ".vmsim-%d-%d.tmp%n", &pid, &n, &end) == 2 &&
		    !e->d_name[end])
			;
		else if (tail && sscanf(tail, ".json.tmp.%d%n", &pid, &end) == 1 &&
			 !tail[end])
			;
		else
			continue;
		if (pid > 0 && pid != getpid() && kill(pid, 0) < 0 && errno == ESRCH)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

int res_target_open(struct res_target *t, const char *path, bool force,
		    char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->force = force;
	if (!*path) {
		snprintf(err, errlen, "an empty result file name");
		return -EINVAL;
	}
	if (strlen(path) >= sizeof(t->path)) {
		snprintf(err, errlen, "result file name too long (%zu bytes)",
			 strlen(path));
		return -ENAMETOOLONG;
	}
	snprintf(t->path, sizeof(t->path), "%s", path);
	printable(t->shown, sizeof(t->shown), path);
	split_dir(path, t->dir, sizeof(t->dir));
	if (lstat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "'%s' is %s, not a place for a result "
				 "file (give a regular file or a new name)", t->shown,
				 file_kind(st.st_mode));
			return -EINVAL;
		}
		if (!force) {
			snprintf(err, errlen, "result file '%s' exists (use --force "
				 "to overwrite)", t->shown);
			return -EEXIST;
		}
		if (!is_vmsim_result(path)) {
			snprintf(err, errlen, "'%s' is not a vmsim result: --force "
				 "replaces only result files", t->shown);
			return -EINVAL;
		}
	} else if (errno != ENOENT) {
		snprintf(err, errlen, "cannot write '%s': %s", t->shown, strerror(errno));
		return -errno;
	}
	if (stat(t->dir, &st) < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot write '%s': directory '%s': %s", t->shown,
			 printable(dir, sizeof(dir), t->dir), strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot write '%s': '%s' is not a directory",
			 t->shown, printable(dir, sizeof(dir), t->dir));
		return -ENOTDIR;
	}
	remove_stale_tmps(t->dir);
	snprintf(t->tmp, sizeof(t->tmp), "%s/.vmsim-%d-%d.tmp", t->dir,
		 (int)getpid(), tmp_seq++);
	t->fd = open(t->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (t->fd < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot write '%s': %s", t->shown, strerror(e));
		t->tmp[0] = 0;
		return -e;
	}
	return 0;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* FILE.json -> FILE-k.json (or FILE-k without an extension). */
static void fresh_name(char *out, size_t len, const char *path, int k)
{
	size_t n = strlen(path);

	if (n > 5 && !strcmp(path + n - 5, ".json"))
		snprintf(out, len, "%.*s-%d.json", (int)(n - 5), path, k);
	else
		snprintf(out, len, "%s-%d", path, k);
}

/* Publish the written temporary file under a fresh name beside path. */
static int publish_beside(struct res_target *t, const char *why, char *where,
			  size_t wlen, char *note, size_t nlen)
{
	char alt[PATH_MAX + 16], shown[PATH_MAX + 16];

	for (int k = 2; k < 1000; k++) {
		fresh_name(alt, sizeof(alt), t->path, k);
		if (link(t->tmp, alt) == 0) {
			unlink(t->tmp);
			t->tmp[0] = 0;
			snprintf(where, wlen, "%s", alt);
			snprintf(note, nlen, "'%s' %s; the result is in '%s'",
				 t->shown, why, printable(shown, sizeof(shown), alt));
			return 1;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static int publish_tmp(struct res_target *t, char *where, size_t wlen,
		       char *note, size_t nlen)
{
	struct stat st;

	if (!t->force) {
		if (link(t->tmp, t->path) == 0) {
			unlink(t->tmp);
			t->tmp[0] = 0;
			snprintf(where, wlen, "%s", t->path);
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
		return publish_beside(t, "was created while vmsim ran", where,
				      wlen, note, nlen);
	}
	/* Forced: replace only what is still a vmsim result (or nothing). */
	if (lstat(t->path, &st) == 0 &&
	    (!S_ISREG(st.st_mode) || !is_vmsim_result(t->path)))
		return publish_beside(t, "is no longer a vmsim result", where,
				      wlen, note, nlen);
	if (rename(t->tmp, t->path) < 0)
		return -errno;
	t->tmp[0] = 0;
	snprintf(where, wlen, "%s", t->path);
	return 0;
}

/* The result could not go where asked: put it in $TMPDIR (or /tmp). */
static int publish_fallback(struct res_target *t, const struct res_file *r,
			    const char *s, size_t n, int why, char *where,
			    size_t wlen, char *note, size_t nlen)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ?
			  getenv("TMPDIR") : "/tmp";
	char alt[PATH_MAX];
	int fd = -1, e = 0;

	for (int k = 0; k < 100 && fd < 0; k++) {
		snprintf(alt, sizeof(alt), "%s/vmsim-%s-%s-%d-%d.json", dir,
			 r->workload, r->scheme, (int)getpid(), k);
		fd = open(alt, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		e = errno;
		if (fd < 0 && e != EEXIST)
			break;
	}
	if (fd >= 0) {
		e = -write_all(fd, s, n);
		if (close(fd) < 0 && !e)
			e = errno;
		if (!e) {
			snprintf(where, wlen, "%s", alt);
			snprintf(note, nlen, "cannot write '%s': %s; the result is "
				 "in '%s'", t->shown, strerror(-why), alt);
			return 2;
		}
		unlink(alt);
	}
	/* Last resort: standard output, so that nothing is lost. */
	where[0] = 0;
	snprintf(note, nlen, "cannot write '%s' (%s) nor a file in %s (%s); "
		 "the result follows on standard output", t->shown, strerror(-why),
		 dir, strerror(e));
	fwrite(s, 1, n, stdout);
	fflush(stdout);
	return why;
}

int res_target_publish(struct res_target *t, const struct res_file *r,
		       char *where, size_t wlen, char *note, size_t nlen)
{
	json_object *o = res_to_json(r);
	const char *s = o ? json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE) : NULL;
	size_t n = s ? strlen(s) : 0;
	int ret;

	note[0] = 0;
	if (!s) {
		json_object_put(o);
		snprintf(note, nlen, "out of memory building the result");
		return -ENOMEM;
	}
	ret = t->fd < 0 ? -EBADF : write_all(t->fd, s, n);
	if (!ret)
		ret = write_all(t->fd, "\n", 1);
	if (!ret && fsync(t->fd) < 0)
		ret = -errno;
	if (t->fd >= 0 && close(t->fd) < 0 && !ret)
		ret = -errno;
	t->fd = -1;
	if (!ret)
		ret = publish_tmp(t, where, wlen, note, nlen);
	if (ret < 0)
		ret = publish_fallback(t, r, s, n, ret, where, wlen, note, nlen);
	json_object_put(o);
	return ret;
}

void res_target_close(struct res_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	if (t->tmp[0])
		unlink(t->tmp);
	t->tmp[0] = 0;
}
