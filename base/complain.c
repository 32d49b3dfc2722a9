/* SPDX-License-Identifier: MIT */
/*
 * The message a function below a command fails with (base/complain.h);
 * the command line's own complaints are cli/complain.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/complain.h"
#include "base/parse.h"

int msg_fail(char *msg, size_t len, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= len && len > 4)
		memcpy(msg + len - 4, "...", 4);
	return err;
}
