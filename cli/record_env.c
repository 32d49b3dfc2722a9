/* SPDX-License-Identifier: MIT */
/*
 * What vmsim record needs from the host, probed once: perf on PATH,
 * tracefs mounted with the tracepoints perf_conv reads, and a
 * kernel.perf_event_paranoid that lets this uid read them. vmsim record
 * refuses with the first that is missing; vmsim check prints them all,
 * each with its fix.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/record.h"
#include "base/tracefs.h"
#include "trace/perf_conv.h"

int record_runnable(const char *name)
{
	const char *path = getenv("PATH");
	struct stat st;
	char *buf;
	int ret = -ENOENT;

	if (strchr(name, '/')) {
		if (stat(name, &st))
			return -ENOENT;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		return access(name, X_OK) ? -EACCES : 0;
	}
	buf = malloc(strlen(path ? path : "") + strlen(name) + 16);
	if (!buf)
		return -ENOMEM;
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		sprintf(buf, "%.*s/%s", (int)n, n ? p : ".", name);
		if (!stat(buf, &st) && !S_ISDIR(st.st_mode)) {
			if (!access(buf, X_OK)) {
				ret = 0;
				break;
			}
			ret = -EACCES;
		}
		p += n + (p[n] == ':');
	}
	free(buf);
	return ret;
}

/* Has the kernel tracepoint ev ("group:name") under tracefs root? */
static bool have_tracepoint(const char *root, const char *ev)
{
	char p[256];
	int n = snprintf(p, sizeof(p), "%s/%.*s/%s", root,
			 (int)strcspn(ev, ":"), ev, strchr(ev, ':') + 1);

	return n < (int)sizeof(p) && access(p, F_OK) == 0;
}

void record_probe(struct record_env *e, bool may_mount)
{
	FILE *f;

	*e = (struct record_env){ .paranoid = 2 };
	e->perf = record_runnable("perf") == 0;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%ld", &e->paranoid) != 1)
			e->paranoid = 2;
		fclose(f);
	}
	e->uid_may_trace = geteuid() == 0 || e->paranoid <= -1;
	/* perf mounts tracefs itself where it is not (tracefs__mount());
	 * record does too, for the checks below; check only looks. */
	e->tracefs = tracefs_events(may_mount);
	if (!e->tracefs)
		return;
	for (int i = 0; perf_conv_events[i] && !e->missing; i++)
		if (!have_tracepoint(e->tracefs, perf_conv_events[i]))
			e->missing = perf_conv_events[i];
	e->lock_events = true;
	for (int i = 0; perf_conv_lock_events[i]; i++)
		e->lock_events &= have_tracepoint(e->tracefs,
						  perf_conv_lock_events[i]);
}
