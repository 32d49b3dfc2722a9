/* SPDX-License-Identifier: MIT */
/*
 * Where the kernel's tracepoints are: the events/ folder of tracefs, at
 * /sys/kernel/tracing, or the older /sys/kernel/debug/tracing. A tool
 * that reads tracepoints mounts tracefs where it is not, as perf does
 * (tools/lib/api/fs/tracing_path.c, tracefs__mount): record's checks and
 * the cost probe both need it, and neither may depend on another having
 * mounted it first.
 */
#ifndef VMSIM_BASE_TRACEFS_H
#define VMSIM_BASE_TRACEFS_H

#include <stdbool.h>

/* The events folder ("/sys/kernel/tracing/events"), or NULL. may_mount:
 * as root, mount tracefs at /sys/kernel/tracing where neither is there. */
const char *tracefs_events(bool may_mount);

#endif
