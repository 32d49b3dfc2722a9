/* SPDX-License-Identifier: MIT */
#include "base/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/complain.h"
#include "base/parse.h"

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

/* The first component of path that is a symbolic link or no directory,
 * into out ("" when none is), its lstat into *st: for the message when
 * resolution fails. */
static void find_blocker(const char *path, char *out, size_t len,
			 struct stat *st)
{
	char part[PATH_MAX];
	size_t n = strlen(path);

	out[0] = 0;
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= sizeof(part))
		return;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		memcpy(part, path, i);
		part[i] = 0;
		if (!lstat(part, st) && !S_ISDIR(st->st_mode)) {
			parse_printable(out, len, part);
			return;
		}
	}
}

/* path resolved without following any link, as openat2's
 * RESOLVE_NO_SYMLINKS does: one component at a time, O_NOFOLLOW. With
 * mk, a missing component is made (0755). fd or -errno; *made: the
 * last component was made here. */
static int walk_dir(const char *path, bool mk, bool *made)
{
	const char *p = path;
	int fd = open(*p == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	while (fd >= 0 && *p) {
		char comp[NAME_MAX + 1];
		size_t n;
		int next;

		p += strspn(p, "/");
		if (!(n = strcspn(p, "/")))
			break;
		if (n > NAME_MAX) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(comp, p, n);
		comp[n] = 0;
		p += n;
		if (made)
			*made = false;
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC);
		if (next < 0 && errno == ENOENT && mk) {
			if (mkdirat(fd, comp, 0755) && errno != EEXIST) {
				int e = errno;

				close(fd);
				return -e;
			}
			if (made)
				*made = errno != EEXIST;
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				      O_CLOEXEC);
		}
		if (next < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		close(fd);
		fd = next;
	}
	return fd < 0 ? -errno : fd;
}

#ifndef RESOLVE_NO_SYMLINKS
#define RESOLVE_NO_SYMLINKS 0x04
#endif

/* openat2(2) where the kernel has it (5.6): the same resolution in one
 * call, atomic against a component being swapped meanwhile. */
static int open_nolinks(const char *path)
{
	struct { uint64_t flags, mode, resolve; } how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	long fd = -1;

#ifdef SYS_openat2
	fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return fd < 0 ? -errno : (int)fd;
#endif
	(void)how;
	return walk_dir(path, false, NULL);
}

/* The one line for a directory that could not be resolved. */
static int dir_fail(char *err, size_t len, const char *what, const char *path,
		    int e)
{
	char shown[256], at[256];
	struct stat st;

	parse_printable(shown, sizeof(shown), path);
	if (e == ELOOP || e == ENOTDIR) {
		find_blocker(path, at, sizeof(at), &st);
		if (*at && S_ISLNK(st.st_mode))
			return msg_fail(err, len, -ELOOP, "%s '%s': '%s' is a symbolic "
				    "link, and vmsim follows no link in a path "
				    "it writes to (give the real path)", what,
				    shown, at);
		if (*at)
			return msg_fail(err, len, -ENOTDIR, "%s '%s': '%s' is %s, not "
				    "a directory", what, shown, at,
				    sf_kind(st.st_mode));
	}
	return msg_fail(err, len, -e, "%s '%s': %s", what, shown, strerror(e));
}

int sf_open_dir(const char *path, char *err, size_t errlen)
{
	int fd;

	if (!*path || strlen(path) >= PATH_MAX)
		return msg_fail(err, errlen, -ENAMETOOLONG, "bad directory name");
	fd = open_nolinks(path);
	if (fd < 0 && err)
		return dir_fail(err, errlen, "directory", path, -fd);
	return fd;
}

int sf_mkdirs(const char *path, bool *made, char *err, size_t errlen)
{
	char shown[256];
	bool m = false;
	int fd;

	parse_printable(shown, sizeof(shown), path);
	if (!*path || strlen(path) >= PATH_MAX)
		return msg_fail(err, errlen, -ENAMETOOLONG, "%s: bad directory name",
			    shown);
	fd = walk_dir(path, true, &m);
	if (fd < 0) {
		char at[256];
		struct stat st;

		find_blocker(path, at, sizeof(at), &st);
		if (fd == -ENOTDIR && *at && !S_ISLNK(st.st_mode) &&
		    !strncmp(at, shown, strlen(at)) && strspn(shown + strlen(at),
							       "/") == strlen(shown + strlen(at)))
			return msg_fail(err, errlen, -ENOTDIR, "%s is %s, not a results "
				    "directory", shown, sf_kind(st.st_mode));
		return dir_fail(err, errlen, "results directory", path, -fd);
	}
	close(fd);
	if (made)
		*made = m;
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
	char dir[PATH_MAX];
	struct stat st;
	int ret;

	memset(o, 0, sizeof(*o));
	o->dirfd = o->fd = o->fbdirfd = -1;
	o->spec = *spec;
	if (!*path)
		return msg_fail(err, len, -EINVAL, "an empty %s name", spec->what);
	if (strlen(path) >= sizeof(o->path))
		return msg_fail(err, len, -ENAMETOOLONG, "%s name too long (%zu bytes)",
			    spec->what, strlen(path));
	snprintf(o->path, sizeof(o->path), "%s", path);
	parse_printable(o->shown, sizeof(o->shown), path);
	ret = split_path(path, dir, sizeof(dir), o->base, sizeof(o->base));
	if (ret == -EISDIR)
		return msg_fail(err, len, -EISDIR, "'%s' names a directory, not a %s",
			    o->shown, spec->what);
	if (ret)
		return msg_fail(err, len, ret, "cannot write '%s': %s", o->shown,
			    strerror(-ret));
	o->dirfd = open_nolinks(dir);
	if (o->dirfd < 0) {
		char why[PATH_MAX + 128];

		dir_fail(why, sizeof(why), "directory", dir, -o->dirfd);
		return msg_fail(err, len, o->dirfd, "cannot write '%s': %s",
			    o->shown, why);
	}
	for (int i = 0; spec->inputs && spec->inputs[i] &&
			i < SF_MAX_INPUTS; i++)
		if (!stat(spec->inputs[i], &st)) {
			o->in_dev[o->ninputs] = st.st_dev;
			o->in_ino[o->ninputs++] = st.st_ino;
		}
	if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return msg_fail(err, len, -errno, "cannot write '%s': %s",
				    o->shown, strerror(errno));
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return msg_fail(err, len, -EINVAL, "'%s' is %s, not a place for a %s "
			    "(give a regular file or a new name)", o->shown,
			    sf_kind(st.st_mode), spec->what);
	if (is_input(o, &st))
		return msg_fail(err, len, -EINVAL, "'%s' is an input of this run: the "
			    "%s must go elsewhere", o->shown, spec->what);
	if (!spec->force)
		return msg_fail(err, len, -EEXIST, "%s '%s' exists (use --force to "
			    "replace it)", spec->what, o->shown);
	if (!replaceable(o, o->base))
		return msg_fail(err, len, -EINVAL, "'%s' is not a vmsim %s: --force "
			    "replaces only %ss", o->shown, spec->what, spec->what);
	return 0;
}

size_t sf_head(int fd, char *buf, size_t len)
{
	ssize_t n = len ? pread(fd, buf, len - 1, 0) : 0;

	if (n <= 0)
		n = 0;
	if (len)
		buf[n] = 0;
	return (size_t)n;
}

int sf_check(const char *path, const struct sf_spec *spec, char *err,
	     size_t errlen)
{
	struct sf_out o;
	int ret = check_into(&o, path, spec, err, errlen);

	if (!ret && faccessat(o.dirfd, ".", W_OK, AT_EACCESS) < 0)
		ret = msg_fail(err, errlen, -errno, "cannot write '%s': %s", o.shown,
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
	ret = msg_fail(err, errlen, -errno, "cannot write '%s': %s", o->shown,
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
	/* The stream's error with errno since reset (emit's later calls do
	 * that): emit's own -errno names it, where it gave one. */
	if (fflush(f) || ferror(f))
		*io = errno ? errno : ret < 0 && ret != -EIO ? -ret : EIO;
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

/* The file under $TMPDIR, no longer wanted (or kept: keep). */
static void drop_fallback(struct sf_out *o, bool keep)
{
	if (o->fallback[0] && !keep)
		unlinkat(o->fbdirfd, o->fbname, 0);
	if (o->fbdirfd >= 0)
		close(o->fbdirfd);
	o->fbdirfd = -1;
	o->fallback[0] = 0;
}

/* A file under $TMPDIR for o's content: o->fd and o->fallback. $TMPDIR
 * is resolved as every destination is (no link followed), and the file
 * made at a random name with O_EXCL|O_NOFOLLOW. */
static int open_tmpdir(struct sf_out *o)
{
	const char *dir = sf_tmpdir();
	const char *dot = strrchr(o->base, '.');
	char stem[64], ext[16] = "";
	int fd = -EEXIST, i;

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
	if ((o->fbdirfd = open_nolinks(dir)) < 0) {
		fd = o->fbdirfd;
		o->fbdirfd = -1;
		return fd;
	}
	for (int k = 0; k < 16 && fd == -EEXIST; k++) {
		uint64_t r = 0;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)k;
		snprintf(o->fbname, sizeof(o->fbname), "vmsim-%s-%012llx%s",
			 stem, (unsigned long long)(r & 0xffffffffffffULL), ext);
		fd = openat(o->fbdirfd, o->fbname, O_RDWR | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0) {
		close(o->fbdirfd);
		o->fbdirfd = -1;
		return fd;
	}
	snprintf(o->fallback, sizeof(o->fallback), "%s/%s", dir, o->fbname);
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
		drop_fallback(o, false);
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
		drop_fallback(o, false);
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
	drop_fallback(o, true);          /* committed: keep it */
	return SF_IN_TMPDIR;
}

static int published(struct sf_out *o)
{
	drop_content(o);
	fsync(o->dirfd);
	return 0;
}

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* Link the content in beside the name, at FILE-k.ext; from: the content
 * already has that name in the directory (it is renamed, not linked:
 * an O_TMPFILE file once linked and unlinked can be linked no more). */
static int publish_beside(struct sf_out *o, const char *from,
			  const char *why, char *where, size_t wlen, char *note,
			  size_t nlen)
{
	char alt[NAME_MAX + 16], shown[PATH_MAX];
	int ret = -EEXIST;

	for (int k = 2; k < 1000 && ret == -EEXIST; k++) {
		fresh_name(alt, sizeof(alt), o->base, k);
		if (strlen(alt) > NAME_MAX)
			return -ENAMETOOLONG;
		if (from)
			ret = renameat2(o->dirfd, from, o->dirfd, alt,
					RENAME_NOREPLACE) ? -errno : 0;
		else
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
		/* rnd is now the file that was at the name: put it back
		 * if it may not be replaced, and our content (at rnd
		 * again) goes beside. */
		if (!replaceable(o, rnd)) {
			if (renameat2(o->dirfd, rnd, o->dirfd, o->base,
				      RENAME_EXCHANGE))
				return -errno;   /* cannot be: both are there */
			ret = publish_beside(o, rnd, "is no longer a vmsim file of "
					     "this kind", where, wlen, note, nlen);
			if (ret < 0)
				unlinkat(o->dirfd, rnd, 0);
			return ret;
		}
		ret = 1;
	} else if (errno == ENOENT || errno == EINVAL || errno == ENOSYS) {
		/* Gone meanwhile, or no exchange here: check, then replace. */
		if (errno == ENOENT || replaceable(o, o->base))
			ret = renameat(o->dirfd, rnd, o->dirfd, o->base) ? -errno : 2;
	} else {
		ret = -errno;
	}
	if (!ret) {                      /* at the name: not ours to replace */
		ret = publish_beside(o, rnd, "is no longer a vmsim file of "
				     "this kind", where, wlen, note, nlen);
		if (ret < 0)
			unlinkat(o->dirfd, rnd, 0);
		return ret;
	}
	unlinkat(o->dirfd, rnd, 0);      /* the old file, or our own link */
	if (ret < 0)
		return ret;
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
			ret = publish_beside(o, NULL, "was created while vmsim ran",
					     where, wlen, note, nlen);
	} else if (!complete) {
		ret = publish_beside(o, NULL, "is kept: this one is incomplete", where,
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
	drop_fallback(o, false);
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
}

/* Remove what directory dfd holds, depth levels down at most; links are
 * removed, never followed. 0 or -errno (the first failure). Not nftw():
 * it walks by path name, so a directory replaced by a symlink between
 * its stat and its removal is followed — and vmsim runs as root; here
 * each level is opened O_NOFOLLOW from its parent's descriptor. */
static int remove_in(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int ret = 0;

	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!unlinkat(dirfd(d), e->d_name, 0))
			continue;
		if (errno != EISDIR && errno != EPERM) {
			ret = ret ?: -errno;
			continue;
		}
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY |
			     O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || depth <= 0) {
			ret = ret ?: sub < 0 ? -errno : -ELOOP;
			if (sub >= 0)
				close(sub);
			continue;
		}
		ret = ret ?: remove_in(sub, depth - 1);
		if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR))
			ret = ret ?: -errno;
	}
	closedir(d);
	return ret;
}

int sf_remove_tree(const char *path)
{
	int fd = sf_open_dir(path, NULL, 0);

	if (fd < 0)
		return fd;
	fd = remove_in(fd, 16);
	if (rmdir(path) && !fd)
		fd = -errno;
	return fd;
}

/* The directory of path opened as sf_open_dir does, and its last
 * component into base: fd or -errno. */
static int open_parent(const char *path, char *base, size_t blen)
{
	char trimmed[PATH_MAX], dir[PATH_MAX];
	size_t n = strlen(path);
	int ret;

	if (!n || n >= sizeof(trimmed))
		return -ENAMETOOLONG;
	memcpy(trimmed, path, n + 1);
	while (n > 1 && trimmed[n - 1] == '/')
		trimmed[--n] = 0;        /* "res/" is res */
	ret = split_path(trimmed, dir, sizeof(dir), base, blen);
	return ret ? ret : open_nolinks(dir);
}

/* op on the last component of path, in its parent resolved as
 * sf_open_dir does: 0 or -errno. */
static int at_parent(const char *path, int (*op)(int dfd, const char *name,
						 mode_t mode), mode_t mode)
{
	char base[NAME_MAX + 1];
	int dfd = open_parent(path, base, sizeof(base)), ret;

	if (dfd < 0)
		return dfd;
	ret = op(dfd, base, mode) ? -errno : 0;
	close(dfd);
	return ret;
}

static int rmdir_at(int dfd, const char *name, mode_t mode)
{
	(void)mode;
	return unlinkat(dfd, name, AT_REMOVEDIR);
}

int sf_mkdir_new(const char *path, mode_t mode)
{
	return at_parent(path, mkdirat, mode);
}

int sf_rmdir_empty(const char *path)
{
	return at_parent(path, rmdir_at, 0);
}

int sf_create_new(const char *path, mode_t mode)
{
	char base[NAME_MAX + 1];
	int dfd = open_parent(path, base, sizeof(base)), fd;

	if (dfd < 0)
		return dfd;
	fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, mode);
	if (fd < 0)
		fd = -errno;
	close(dfd);
	return fd;
}

int sf_mkdtemp(char *out, size_t len, const char *prefix)
{
	int ret = -EEXIST;

	for (int k = 0; k < 64 && ret == -EEXIST; k++) {
		uint64_t r = 0;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)k ^
			    (uint64_t)getpid() << 20;
		if ((size_t)snprintf(out, len, "%s/%s-%012llx", sf_tmpdir(),
				     prefix, (unsigned long long)(r &
				     0xffffffffffffULL)) >= len)
			return -ENAMETOOLONG;
		ret = sf_mkdir_new(out, 0700);
	}
	return ret;
}
