/* SPDX-License-Identifier: MIT */
/*
 * vmsim record's output: perf's data converted into the trace file,
 * written beside its final name and renamed into place (or, when that
 * directory cannot be written, into /tmp, and the user told where), then
 * read back — the check that it is whole — and summarized.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/cmd.h"
#include "cli/record.h"

void record_comment(char **cmd, long pid, long duration, char *out,
		    size_t len)
{
	size_t n = 0;

	out[0] = 0;
	if (!cmd) {
		snprintf(out, len, "pid %ld for %ld s", pid, duration);
		return;
	}
	for (int i = 0; cmd[i] && n + 2 < len; i++) {
		int k = snprintf(out + n, len - n, "%s%s", i ? " " : "", cmd[i]);

		if (k < 0 || (size_t)k >= len - n)
			break;
		n += (size_t)k;
	}
}

/* perf's first complaint, for the one line. */
static void perf_complaint(const char *errlog, char *out, size_t len)
{
	FILE *f = fopen(errlog, "r");
	char line[512];

	snprintf(out, len, "perf wrote no data");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] && strncmp(line, "[ perf", 6)) {
			snprintf(out, len, "perf: %s", line);
			break;
		}
	}
	if (f)
		fclose(f);
}

/* A file to write the trace to: out.tmp beside out, or one in /tmp.
 * *tmp gets its name. */
static FILE *open_out(const char *out, char *tmp, size_t len, bool *fallback)
{
	FILE *f;
	int fd;

	snprintf(tmp, len, "%s.tmp", out);
	*fallback = false;
	if ((f = fopen(tmp, "wb")))
		return f;
	snprintf(tmp, len, "/tmp/vmsim-trace-XXXXXX");
	if ((fd = mkstemp(tmp)) < 0)
		return NULL;
	*fallback = true;
	return fdopen(fd, "wb");
}

struct restart_ctx {
	struct trace_writer *w;
	FILE *f;
	const char *comment;
};

/* The traced program exec'd: empty the file and start the trace again,
 * its comment naming the new program. 0 or -errno. */
static int restart_trace(void *arg, const char *exe)
{
	struct restart_ctx *r = arg;
	char comment[TRACE_MAX_COMMENT];

	if (fflush(r->f) || ftruncate(fileno(r->f), 0) || fseek(r->f, 0, SEEK_SET))
		return -errno;
	snprintf(comment, sizeof(comment), "%.2000s (after exec of %.1000s)",
		 r->comment, exe);
	trace_writer_init(r->w, r->f, comment);
	return 0;
}

static void print_summary(const char *path, const struct trace_summary *s,
			  const struct perf_conv *c)
{
	struct stat st;

	printf("recorded %llu events of %u thread%s over %.3f s: %llu faults, "
	       "%llu mmap, %llu munmap, %llu mprotect, %llu mremap, "
	       "%llu madvise, %llu brk",
	       (unsigned long long)s->events, s->threads,
	       s->threads == 1 ? "" : "s", s->span_ns / 1e9,
	       (unsigned long long)s->by_kind[TR_FAULT],
	       (unsigned long long)s->by_kind[TR_MMAP],
	       (unsigned long long)s->by_kind[TR_MUNMAP],
	       (unsigned long long)s->by_kind[TR_MPROTECT],
	       (unsigned long long)s->by_kind[TR_MREMAP],
	       (unsigned long long)s->by_kind[TR_MADVISE],
	       (unsigned long long)s->by_kind[TR_BRK]);
	if (!stat(path, &st))
		printf(" -> %s (%.1f KiB)", path, st.st_size / 1024.0);
	printf("\n");
	if (c->lost)
		fprintf(stderr, "%s: record: perf lost %llu events: the trace "
			"is incomplete (a replay meets faults and calls it "
			"cannot place)\n", prog, (unsigned long long)c->lost);
	if (c->other_pid)
		fprintf(stderr, "%s: record: %llu events of other processes "
			"(the program's children) left out: a trace is one "
			"address space\n", prog,
			(unsigned long long)c->other_pid);
	if (c->dropped)
		fprintf(stderr, "%s: record: the program exec'd %s: the trace "
			"holds what came after (%llu events before it left out)\n",
			prog, c->exe, (unsigned long long)c->dropped);
	if (c->too_many_threads)
		fprintf(stderr, "%s: record: %llu events of threads beyond %d "
			"left out\n", prog,
			(unsigned long long)c->too_many_threads,
			TRACE_MAX_THREADS);
}

static json_object *lockside_json(const struct perf_lockside *l)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "acquired", json_object_new_uint64(l->acquired));
	json_object_object_add(o, "trylock_failed", json_object_new_uint64(l->failed));
	json_object_object_add(o, "wait_ns", json_object_new_uint64(l->wait_ns));
	json_object_object_add(o, "wait_max_ns", json_object_new_uint64(l->wait_max));
	json_object_object_add(o, "hold_ns", json_object_new_uint64(l->hold_ns));
	json_object_object_add(o, "hold_max_ns", json_object_new_uint64(l->hold_max));
	return o;
}

/* The host's mmap_lock as the program took it: a line per side, and
 * PATH.mmap_lock.json beside the trace (for comparing with a replay's
 * lockstat). */
static void report_host_lock(const char *path, const struct perf_conv *c)
{
	static const char *const side[2] = { "read", "write" };
	json_object *o = json_object_new_object();
	char side_path[4400];

	for (int w = 0; w < 2; w++) {
		const struct perf_lockside *l = &c->lock[w];

		printf("host mmap_lock %-5s %llu acquired (%llu trylocks "
		       "failed): waited %.3f ms in all (max %.1f us), held "
		       "%.3f ms (max %.1f us)\n", side[w],
		       (unsigned long long)l->acquired,
		       (unsigned long long)l->failed, l->wait_ns / 1e6,
		       l->wait_max / 1e3, l->hold_ns / 1e6, l->hold_max / 1e3);
		json_object_object_add(o, side[w], lockside_json(l));
	}
	snprintf(side_path, sizeof(side_path), "%.4200s.mmap_lock.json", path);
	if (json_object_to_file_ext(side_path, o, JSON_C_TO_STRING_PRETTY))
		fprintf(stderr, "%s: record: cannot write %s (the lock figures "
			"are the two lines above)\n", prog, side_path);
	json_object_put(o);
}

/* Read the file back: whole, and what it holds. */
static int check_back(const char *path, const struct perf_conv *c)
{
	struct trace_reader r;
	struct trace_summary s;
	char err[256];
	int ret;

	if (trace_open(&r, path, err, sizeof(err)) ||
	    trace_summarize(&r, &s, err, sizeof(err))) {
		fprintf(stderr, "%s: record: the trace %s reads back wrong: "
			"%s\n", prog, path, err);
		ret = -1;
	} else {
		print_summary(path, &s, c);
		if (c->lock[0].acquired + c->lock[1].acquired +
		    c->lock[0].failed + c->lock[1].failed)
			report_host_lock(path, c);
		ret = 0;
	}
	trace_close(&r);
	return ret;
}

int record_convert(const char *comment, const char *data, const char *errlog,
		   const char *out, long pid, int status,
		   int (*script)(const char *data, struct perf_conv *c))
{
	char tmp[4200], why[600];
	struct trace_writer *w = calloc(1, sizeof(*w));
	struct perf_conv *c = calloc(1, sizeof(*c));
	struct restart_ctx rc;
	bool fallback;
	FILE *f = NULL;
	int ret = -1;

	if (access(data, R_OK)) {
		perf_complaint(errlog, why, sizeof(why));
		fprintf(stderr, "%s: record: %s\n", prog, why);
		goto out;
	}
	if (!w || !c || !(f = open_out(out, tmp, sizeof(tmp), &fallback))) {
		fprintf(stderr, "%s: record: cannot write %s or a file in /tmp: "
			"%s\n", prog, out, strerror(errno));
		goto out;
	}
	trace_writer_init(w, f, comment);
	perf_conv_init(c, w);
	rc = (struct restart_ctx){ w, f, comment };
	c->restart = restart_trace;
	c->restart_arg = &rc;
	if (pid)
		c->pid = pid;                 /* -p: that process only */
	ret = script(data, c);
	if (!ret && c->err)
		ret = c->err;
	if (!ret)
		ret = trace_writer_finish(w);
	if (fclose(f) && !ret)
		ret = -errno;
	f = NULL;
	if (ret) {
		fprintf(stderr, "%s: record: converting perf's data failed: "
			"%s\n", prog, strerror(-ret));
		unlink(tmp);
		goto out;
	}
	if (!fallback && rename(tmp, out)) {
		fprintf(stderr, "%s: record: cannot rename %s to %s (%s): the "
			"trace is in %s\n", prog, tmp, out, strerror(errno), tmp);
		out = tmp;
	} else if (fallback) {
		fprintf(stderr, "%s: record: cannot write %s: the trace is in "
			"%s\n", prog, out, tmp);
		out = tmp;
	}
	ret = check_back(out, c);
	if (WIFEXITED(status) && WEXITSTATUS(status))
		fprintf(stderr, "%s: record: the program exited with status %d "
			"(the trace holds what it did)\n", prog,
			WEXITSTATUS(status));
out:
	free(w);
	free(c);
	return ret;
}
