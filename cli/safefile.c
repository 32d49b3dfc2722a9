/* SPDX-License-Identifier: MIT */
#include "cli/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/parse.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

const char *sf_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
	       S_ISSOCK(m) ? "a socket" : S_ISLNK(m) ? "a symbolic link" :
	       S_ISREG(m) ? "a regular file" : "not a regular file";
}

static int __attribute__((format(printf, 4, 5)))
fail(char *err, size_t len, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -e;
}

int sf_mkdirs(const char *path, char *err, size_t errlen)
{
	char shown[256], part[PATH_MAX];
	size_t n = strlen(path);
	struct stat st;

	parse_printable(shown, sizeof(shown), path);
	if (!n || n >= sizeof(part))
		return fail(err, errlen, ENAMETOOLONG, "%s: bad directory name",
			    shown);
	/* Each missing component, parents first (mkdir -p); one that is
	 * there already is left as it is. */
	for (size_t i = 1; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		memcpy(part, path, i);
		part[i] = '\0';
		if (mkdir(part, 0755) && errno != EEXIST) {
			char p2[256];
			int e = errno;

			return fail(err, errlen, e, "%s: cannot make the "
				    "directory %s: %s", shown,
				    parse_printable(p2, sizeof(p2), part),
				    strerror(e));
		}
	}
	/* The directory itself is no link another user planted (without
	 * its trailing '/', which would have lstat follow a link). */
	memcpy(part, path, n + 1);
	while (n > 1 && part[n - 1] == '/')
		part[--n] = '\0';
	if (lstat(part, &st))
		return fail(err, errlen, errno, "%s: %s", shown, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(err, errlen, ENOTDIR, "%s is %s, not a results "
			    "directory", shown, sf_kind(st.st_mode));
	return 0;
}

/* dir and base of path; -EISDIR when it names a directory ("x/", "."). */
static int split_path(const char *path, char *dir, size_t dlen, char *base,
		      size_t blen)
{
	const char *slash = strrchr(path, '/');
	const char *b = slash ? slash + 1 : path;

	if (!*b || !strcmp(b, ".") || !strcmp(b, ".."))
		return -EISDIR;
	if (strlen(b) >= blen)
		return -ENAMETOOLONG;
	snprintf(base, blen, "%s", b);
	snprintf(dir, dlen, "%.*s", !slash ? 1 : slash == path ? 1 :
		 (int)(slash - path), !slash ? "." : path);
	return 0;
}

static bool is_input(const struct sf_out *o, const struct stat *st)
{
	for (int i = 0; i < o->ninputs; i++)
		if (o->in_dev[i] == st->st_dev && o->in_ino[i] == st->st_ino)
			return true;
	return false;
}

/* May --force replace the file at name in o's directory? Opened read-only,
 * never following a link, never blocking. */
static bool replaceable(const struct sf_out *o, const char *name)
{
	int fd = openat(o->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC);
	struct stat st;
	bool yes;

	if (fd < 0)
		return false;
	yes = !fstat(fd, &st) && S_ISREG(st.st_mode) && !is_input(o, &st) &&
	      o->spec.ours && o->spec.ours(fd);
	close(fd);
	return yes;
}

static int check_into(struct sf_out *o, const char *path,
		      const struct sf_spec *spec, char *err, size_t len)
{
	char dir[PATH_MAX], dshown[PATH_MAX];
	struct stat st;
	int ret;

	memset(o, 0, sizeof(*o));
	o->dirfd = o->fd = -1;
	o->spec = *spec;
	if (!*path)
		return fail(err, len, EINVAL, "an empty %s name", spec->what);
	if (strlen(path) >= sizeof(o->path))
		return fail(err, len, ENAMETOOLONG, "%s name too long (%zu bytes)",
			    spec->what, strlen(path));
	snprintf(o->path, sizeof(o->path), "%s", path);
	parse_printable(o->shown, sizeof(o->shown), path);
	ret = split_path(path, dir, sizeof(dir), o->base, sizeof(o->base));
	if (ret == -EISDIR)
		return fail(err, len, EISDIR, "'%s' names a directory, not a %s",
			    o->shown, spec->what);
	if (ret)
		return fail(err, len, -ret, "cannot write '%s': %s", o->shown,
			    strerror(-ret));
	parse_printable(dshown, sizeof(dshown), dir);
	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0)
		return fail(err, len, errno, "cannot write '%s': directory '%s': "
			    "%s", o->shown, dshown, strerror(errno));
	for (int i = 0; spec->inputs && spec->inputs[i] &&
			i < SF_MAX_INPUTS; i++)
		if (!stat(spec->inputs[i], &st)) {
			o->in_dev[o->ninputs] = st.st_dev;
			o->in_ino[o->ninputs++] = st.st_ino;
		}
	if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return fail(err, len, errno, "cannot write '%s': %s",
				    o->shown, strerror(errno));
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return fail(err, len, EINVAL, "'%s' is %s, not a place for a %s "
			    "(give a regular file or a new name)", o->shown,
			    sf_kind(st.st_mode), spec->what);
	if (is_input(o, &st))
		return fail(err, len, EINVAL, "'%s' is an input of this run: the "
			    "%s must go elsewhere", o->shown, spec->what);
	if (!spec->force)
		return fail(err, len, EEXIST, "%s '%s' exists (use --force to "
			    "replace it)", spec->what, o->shown);
	if (!replaceable(o, o->base))
		return fail(err, len, EINVAL, "'%s' is not a vmsim %s: --force "
			    "replaces only %ss", o->shown, spec->what, spec->what);
	return 0;
}

int sf_check(const char *path, const struct sf_spec *spec, char *err,
	     size_t errlen)
{
	struct sf_out o;
	int ret = check_into(&o, path, spec, err, errlen);

	if (!ret && faccessat(o.dirfd, ".", W_OK, AT_EACCESS) < 0)
		ret = fail(err, errlen, errno, "cannot write '%s': %s", o.shown,
			   strerror(errno));
	sf_abort(&o);
	return ret;
}

/* A temporary name nobody can guess. */
static void random_name(char *out, size_t len)
{
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r ^= (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)out ^
		     (uint64_t)time(NULL);
	snprintf(out, len, ".vmsim-%016llx.tmp", (unsigned long long)r);
}

int sf_open(struct sf_out *o, const char *path, const struct sf_spec *spec,
	    char *err, size_t errlen)
{
	int ret = check_into(o, path, spec, err, errlen);

	if (ret) {
		sf_abort(o);
		return ret;
	}
	o->fd = openat(o->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	/* A filesystem without O_TMPFILE: a random name, made, not opened. */
	for (int k = 0; o->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR ||
				      errno == EINVAL || errno == EEXIST) &&
			k < 16; k++) {
		random_name(o->tmpname, sizeof(o->tmpname));
		o->fd = openat(o->dirfd, o->tmpname, O_RDWR | O_CREAT | O_EXCL |
			       O_NOFOLLOW | O_CLOEXEC, 0644);
	}
	if (o->fd >= 0)
		return 0;
	ret = fail(err, errlen, errno, "cannot write '%s': %s", o->shown,
		   strerror(errno));
	o->tmpname[0] = 0;
	sf_abort(o);
	return ret;
}

/* emit into fd from its start. *io: the I/O error (0: written and on
 * disk). Returns emit's own result. */
static int emit_into(int fd, int (*emit)(FILE *f, void *arg), void *arg,
		     int *io)
{
	int dfd, ret;
	FILE *f;

	*io = 0;
	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0 ||
	    (dfd = dup(fd)) < 0)
		return *io = errno, 0;
	if (!(f = fdopen(dfd, "w+"))) {
		*io = errno;
		close(dfd);
		return 0;
	}
	errno = 0;
	ret = emit(f, arg);
	if (fflush(f) || ferror(f))
		*io = errno ? errno : EIO;
	if (!*io && fsync(fd) < 0)
		*io = errno;
	if (fclose(f) && !*io)
		*io = errno;
	return ret;
}

const char *sf_tmpdir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

/* A file under $TMPDIR for o's content: o->fd and o->fallback. */
static int open_tmpdir(struct sf_out *o)
{
	const char *dir = sf_tmpdir();
	const char *dot = strrchr(o->base, '.');
	char stem[64], ext[16] = "";
	int fd, i;

	if (dot && dot != o->base && strlen(dot) < sizeof(ext))
		snprintf(ext, sizeof(ext), "%s", dot);
	for (i = 0; o->base[i] && o->base + i != dot &&
		    i < (int)sizeof(stem) - 1; i++) {
		char c = o->base[i];

		stem[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_' ? c : '_';
	}
	stem[i] = 0;
	for (i = 0; ext[i]; i++)
		if (ext[i] == '/' || (unsigned char)ext[i] < 0x20)
			ext[i] = '_';
	snprintf(o->fallback, sizeof(o->fallback), "%s/vmsim-%s-XXXXXX%s", dir,
		 stem, ext);
	fd = mkostemps(o->fallback, (int)strlen(ext), O_CLOEXEC);
	if (fd < 0) {
		o->fallback[0] = 0;
		return -errno;
	}
	fchmod(fd, 0644);
	o->fd = fd;
	return 0;
}

/* Drop the content in the destination's directory. */
static void drop_content(struct sf_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmpname[0] && o->dirfd >= 0)
		unlinkat(o->dirfd, o->tmpname, 0);
	o->tmpname[0] = 0;
}

int sf_emit(struct sf_out *o, int (*emit)(FILE *f, void *arg), void *arg)
{
	int io, ret, e;

	if (o->fd < 0)
		return -EBADF;
	ret = emit_into(o->fd, emit, arg, &io);
	if (!io)
		return ret ? ret : o->fallback[0] ? SF_IN_TMPDIR : 0;
	if (o->fallback[0])              /* $TMPDIR failed too */
		return -io;
	drop_content(o);
	o->moved_why = io;
	if ((e = open_tmpdir(o)) < 0)
		return -io;
	ret = emit_into(o->fd, emit, arg, &e);
	if (e) {
		close(o->fd);
		o->fd = -1;
		unlink(o->fallback);
		o->fallback[0] = 0;
		return -io;
	}
	return ret ? ret : SF_IN_TMPDIR;
}

/* Link the content in at name (never replacing). 0 or -errno. */
static int link_as(struct sf_out *o, const char *name)
{
	char proc[64];

	if (o->tmpname[0])
		return linkat(o->dirfd, o->tmpname, o->dirfd, name, 0) ? -errno : 0;
	if (!linkat(o->fd, "", o->dirfd, name, AT_EMPTY_PATH))
		return 0;
	if (errno == EEXIST)
		return -EEXIST;
	/* Without CAP_DAC_READ_SEARCH: through /proc. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	return linkat(AT_FDCWD, proc, o->dirfd, name, AT_SYMLINK_FOLLOW) ?
	       -errno : 0;
}

/* FILE.ext -> FILE-k.ext (FILE-k without an extension). */
static void fresh_name(char *out, size_t len, const char *base, int k)
{
	const char *dot = strrchr(base, '.');

	if (dot && dot != base)
		snprintf(out, len, "%.*s-%d%s", (int)(dot - base), base, k, dot);
	else
		snprintf(out, len, "%s-%d", base, k);
}

/* The path of name in the destination's directory, as the user wrote it. */
static void said_where(struct sf_out *o, const char *name, char *where,
		       size_t wlen)
{
	snprintf(where, wlen, "%.*s%s", (int)(strlen(o->path) -
		 strlen(o->base)), o->path, name);
}

/* The content is whole in o->fd: copy it under $TMPDIR. */
static int copy_to_tmpdir(struct sf_out *o, int why)
{
	int src = o->fd, io = 0, e;
	char buf[65536];
	ssize_t n;

	o->fd = -1;                      /* closed below */
	drop_content(o);
	o->moved_why = why;
	if ((e = open_tmpdir(o)) < 0) {
		close(src);
		return e;
	}
	lseek(src, 0, SEEK_SET);
	while ((n = read(src, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n && !io;) {
			ssize_t w = write(o->fd, buf + off, (size_t)(n - off));

			if (w < 0 && errno != EINTR)
				io = errno;
			off += w > 0 ? w : 0;
		}
	if (n < 0)
		io = errno;
	if (!io && fsync(o->fd) < 0)
		io = errno;
	close(src);
	if (io) {
		close(o->fd);
		o->fd = -1;
		unlink(o->fallback);
		o->fallback[0] = 0;
		return -io;
	}
	return 0;
}

static int moved_note(struct sf_out *o, char *where, size_t wlen, char *note,
		      size_t nlen)
{
	char shown[PATH_MAX];

	snprintf(where, wlen, "%s", o->fallback);
	snprintf(note, nlen, "cannot write '%s': %s; the %s is in '%s'",
		 o->shown, strerror(o->moved_why), o->spec.what,
		 parse_printable(shown, sizeof(shown), o->fallback));
	close(o->fd);
	o->fd = -1;
	o->fallback[0] = 0;              /* committed: keep it */
	return SF_IN_TMPDIR;
}

static int published(struct sf_out *o)
{
	drop_content(o);
	fsync(o->dirfd);
	return 0;
}

/* Link the content in beside the name, at FILE-k.ext. */
static int publish_beside(struct sf_out *o, const char *why, char *where,
			  size_t wlen, char *note, size_t nlen)
{
	char alt[NAME_MAX + 16], shown[PATH_MAX];
	int ret = -EEXIST;

	for (int k = 2; k < 1000 && ret == -EEXIST; k++) {
		fresh_name(alt, sizeof(alt), o->base, k);
		if (strlen(alt) > NAME_MAX)
			return -ENAMETOOLONG;
		ret = link_as(o, alt);
	}
	if (ret)
		return ret;
	said_where(o, alt, where, wlen);
	snprintf(note, nlen, "'%s' %s; the %s is in '%s'", o->shown, why,
		 o->spec.what, parse_printable(shown, sizeof(shown), where));
	published(o);
	return SF_BESIDE;
}

/* --force: swap the content in, and put the old file back unless it is
 * still one that may be replaced. 0, 1 (beside) or -errno. */
static int publish_replacing(struct sf_out *o, char *where, size_t wlen,
			     char *note, size_t nlen)
{
	char rnd[32];
	int ret = -EEXIST;

	for (int k = 0; k < 16 && ret == -EEXIST; k++) {
		random_name(rnd, sizeof(rnd));
		ret = link_as(o, rnd);
	}
	if (ret)
		return ret;
	if (!renameat2(o->dirfd, rnd, o->dirfd, o->base, RENAME_EXCHANGE)) {
		/* rnd is now the file that was at the name. */
		if (!replaceable(o, rnd))
			renameat2(o->dirfd, rnd, o->dirfd, o->base,
				  RENAME_EXCHANGE);
		else
			ret = 1;
	} else if (errno == ENOENT || errno == EINVAL || errno == ENOSYS) {
		/* Gone meanwhile, or no exchange here: check, then replace. */
		if (errno == ENOENT || replaceable(o, o->base))
			ret = renameat(o->dirfd, rnd, o->dirfd, o->base) ? -errno : 2;
	} else {
		ret = -errno;
	}
	unlinkat(o->dirfd, rnd, 0);      /* the old file, or our own link */
	if (ret < 0)
		return ret;
	if (!ret)
		return publish_beside(o, "is no longer a vmsim file of this kind",
				      where, wlen, note, nlen);
	said_where(o, o->base, where, wlen);
	return published(o);
}

int sf_commit(struct sf_out *o, bool complete, char *where, size_t wlen,
	      char *note, size_t nlen)
{
	struct stat st;
	bool exists;
	int ret;

	note[0] = where[0] = 0;
	if (o->fd < 0) {
		snprintf(note, nlen, "cannot write '%s': nothing was written",
			 o->shown);
		return -EBADF;
	}
	if (o->fallback[0])
		return moved_note(o, where, wlen, note, nlen);
	exists = !fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW);
	if (!exists || !o->spec.force) {
		ret = link_as(o, o->base);
		if (!ret) {
			said_where(o, o->base, where, wlen);
			return published(o);
		}
		if (ret == -EEXIST)
			ret = publish_beside(o, "was created while vmsim ran",
					     where, wlen, note, nlen);
	} else if (!complete) {
		ret = publish_beside(o, "is kept: this one is incomplete", where,
				     wlen, note, nlen);
	} else {
		ret = publish_replacing(o, where, wlen, note, nlen);
	}
	if (ret >= 0)
		return ret;
	/* The directory would not take it: the whole content to $TMPDIR. */
	if (copy_to_tmpdir(o, -ret) < 0) {
		snprintf(note, nlen, "cannot write '%s' (%s) nor a file under "
			 "$TMPDIR: the %s is lost", o->shown, strerror(-ret),
			 o->spec.what);
		return ret;
	}
	return moved_note(o, where, wlen, note, nlen);
}

void sf_abort(struct sf_out *o)
{
	drop_content(o);
	if (o->fallback[0])
		unlink(o->fallback);
	o->fallback[0] = 0;
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
}
