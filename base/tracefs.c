/* SPDX-License-Identifier: MIT */
#include "base/tracefs.h"

#include <sys/mount.h>
#include <unistd.h>

const char *tracefs_events(bool may_mount)
{
	static const char *const events[] = {
		"/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events"
	};

	for (int i = 0; i < 2; i++)
		if (access(events[i], X_OK) == 0)
			return events[i];
	if (may_mount && geteuid() == 0 &&
	    !mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) &&
	    access(events[0], X_OK) == 0)
		return events[0];
	return NULL;
}
