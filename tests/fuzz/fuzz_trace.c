/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the trace reader and the replay plan built from it.
 * The input is read as a trace event by event, then (through a memfd)
 * loaded as a replay plan — clusters, the model of the recorded address
 * space, every operation's dependencies. Neither may crash, hang, leak
 * or allocate without bound, whatever the file holds.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/trace.h"
#include "workloads/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_reader r;
	struct trace_ev ev;
	struct rp_plan *p;
	char err[256], path[64];
	FILE *f = fmemopen((void *)data, size, "rb");
	int fd;

	if (!f)
		return 0;
	if (!trace_open_stream(&r, f, err, sizeof(err)))
		while (trace_next(&r, &ev, err, sizeof(err)) > 0)
			;
	fclose(f);
	fd = memfd_create("trace", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!rp_plan_load(path, &p, err, sizeof(err)))
			rp_plan_free(p);
	}
	close(fd);
	return 0;
}
