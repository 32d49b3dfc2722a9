/* SPDX-License-Identifier: MIT */
/* Standard output with its errors kept (base/outstream.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/complain.h"
#include "base/outstream.h"

static int out_err;                      /* first -errno of a write */
static bool out_closed;                  /* descriptor 1 was closed */
static bool out_told;

/* The stream's write: all of buf to descriptor 1, or 0 with errno set
 * (fopencookie's contract: never negative). After a failure nothing more
 * is tried: the output is already incomplete. */
static ssize_t out_write(void *cookie, const char *buf, size_t len)
{
	size_t done = 0;

	(void)cookie;
	if (out_closed && !out_err)
		out_err = -EBADF;
	if (out_err) {
		errno = -out_err;
		return 0;
	}
	while (done < len) {
		ssize_t n = write(STDOUT_FILENO, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out_err = n < 0 ? -errno : -EIO;
			errno = -out_err;
			return 0;
		}
		done += (size_t)n;
	}
	return (ssize_t)len;
}

static int out_close(void *cookie)
{
	(void)cookie;
	return 0;                        /* descriptor 1 stays open */
}

void cli_stdout_init(void)
{
	static const cookie_io_functions_t io = { .write = out_write,
						  .close = out_close };
	FILE *f;

	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* open() takes the lowest free descriptor: this one. */
		if (open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			continue;
		/* An error only once something is printed (as coreutils'
		 * close_stream: a command with nothing to say is fine). */
		if (fd == STDOUT_FILENO)
			out_closed = true;
	}
	f = fopencookie(NULL, "w", io);
	if (!f) {                        /* keep glibc's stream */
		setvbuf(stdout, NULL, _IOLBF, 0);
		return;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	stdout = f;
}

int cli_stdout_error(void)
{
	if (fflush(stdout) && !out_err)
		out_err = errno ? -errno : -EIO;
	if (ferror(stdout) && !out_err)
		out_err = -EIO;
	return out_err;
}

void cli_stdout_told(void)
{
	out_told = true;
}

int cli_stdout_close(int status)
{
	int err = cli_stdout_error();

	/* The descriptor's own close reports what a write may not have (a
	 * file system that writes late); nothing is printed after this. */
	if (!err && !out_closed && close(STDOUT_FILENO) && errno != EINTR)
		err = -errno;
	if (!err)
		return status;
	if (!out_told)
		fprintf(stderr, "%s: cannot write standard output: %s\n", prog,
			err == -EBADF ? "it is closed" : strerror(-err));
	return status ? status : 1;
}
