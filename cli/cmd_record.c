/* SPDX-License-Identifier: MIT */
/*
 * vmsim record [-o FILE] [--] CMD [ARGS...]
 * vmsim record [-o FILE] -p PID [--duration S]
 *
 * Records what a real program does to its address space — every mmap,
 * munmap, mprotect, mremap, madvise and brk with its result, and every
 * user page fault, per thread — with the kernel's own tracepoints through
 * perf (perf record, then perf script into trace/perf_conv.c), and
 * writes it as a trace (docs/trace.md) that `vmsim run -w replay`
 * replays under each lock scheme.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/record.h"
#include "trace/perf_conv.h"
#include "util/parse.h"

struct rec_args {
	const char *out;
	long pid;                        /* -p; 0: run a command */
	long duration;                   /* s, with -p */
	bool duration_given;
	bool lock_events;                /* the kernel has mmap_lock:* */
	char **cmd;                      /* NULL-terminated */
	char comment[TRACE_MAX_COMMENT];
};

static const struct option rec_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

static int rec_parse(int argc, char **argv, struct rec_args *a, bool *help)
{
	int opt;

	optind = 0;      /* 0: glibc re-initialises getopt fully */
	while ((opt = getopt_long(argc, argv, "+o:p:d:h", rec_opts, NULL)) != -1) {
		switch (opt) {
		case 'o': a->out = optarg; break;
		case 'p':
			if (parse_long(optarg, 1, 1L << 30, &a->pid))
				return bad("record: bad process id '%s'", optarg);
			break;
		case 'd':
			if (parse_long(optarg, 1, 86400, &a->duration))
				return bad("record: bad --duration '%s': want 1 to "
					   "86400 seconds", optarg);
			a->duration_given = true;
			break;
		case 'h': *help = true; return 0;
		default: return bad_option(argv, opt, rec_opts);
		}
	}
	a->cmd = optind < argc ? argv + optind : NULL;
	if (a->pid && a->cmd)
		return bad("record: give a command or -p PID, not both ('%s')",
			   a->cmd[0]);
	if (!a->pid && !a->cmd)
		return bad("record: %s", "nothing to record: want 'vmsim record "
			   "[-o FILE] -- CMD [ARGS...]' or '-p PID'");
	if (a->duration_given && !a->pid)
		return bad("record: %s", "--duration goes with -p PID (a command "
			   "is recorded until it exits)");
	if (!a->out[0])
		return bad("record: %s", "empty output file name");
	return 0;
}

/* Is prog runnable (a path, or found in PATH)? */
static bool runnable(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", name);
		if (access(buf, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

/* Has the kernel tracepoint ev ("group:name") under tracefs root? */
static bool have_tracepoint(const char *root, const char *ev)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%.*s/%s", root, (int)strcspn(ev, ":"), ev,
		 strchr(ev, ':') + 1);
	return access(p, F_OK) == 0;
}

/* Can perf give us the tracepoints? 0, or 1 after one line. */
static int rec_preflight(struct rec_args *a)
{
	static const char *const roots[] = { "/sys/kernel/tracing/events",
					     "/sys/kernel/debug/tracing/events" };
	const char *root = NULL;
	char p[256];
	long paranoid = 2;
	FILE *f;

	if (!runnable("perf"))
		return fprintf(stderr, "%s: record: perf is not installed (Debian: "
			       "apt-get install linux-perf)\n", prog), 1;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%ld", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	if (geteuid() != 0 && paranoid > -1)
		return fprintf(stderr, "%s: record: perf may not read tracepoints "
			       "as uid %u (kernel.perf_event_paranoid is %ld): "
			       "run as root, or set it to -1\n", prog,
			       (unsigned)geteuid(), paranoid), 1;
	for (size_t i = 0; i < 2 && !root; i++)
		if (access(roots[i], X_OK) == 0)
			root = roots[i];
	if (!root)
		return fprintf(stderr, "%s: record: no tracefs at "
			       "/sys/kernel/tracing (mount -t tracefs nodev "
			       "/sys/kernel/tracing)\n", prog), 1;
	for (int i = 0; perf_conv_events[i]; i++)
		if (!have_tracepoint(root, perf_conv_events[i]))
			return fprintf(stderr, "%s: record: this kernel has no "
				       "tracepoint %s (%s)\n", prog,
				       perf_conv_events[i], strerror(errno)), 1;
	a->lock_events = true;
	for (int i = 0; perf_conv_lock_events[i]; i++)
		a->lock_events &= have_tracepoint(root, perf_conv_lock_events[i]);
	if (a->cmd && !runnable(a->cmd[0]))
		return bad("record: command '%s' not found", a->cmd[0]);
	if (a->pid && kill((pid_t)a->pid, 0) && errno == ESRCH)
		return bad("record: no process %s", (snprintf(p, sizeof(p),
			   "%ld", a->pid), p));
	return 0;
}

/* perf record's argument vector (the strings live in a and bufs). */
static void perf_argv(const struct rec_args *a, const char *data,
		      char bufs[2][32], const char **v, int max)
{
	int n = 0;

	v[n++] = "perf"; v[n++] = "record"; v[n++] = "-q";
	/* 2 MiB of ring buffer per CPU: a fault-heavy program loses
	 * events with the default. */
	v[n++] = "-m"; v[n++] = "512";
	v[n++] = "-o"; v[n++] = data;
	for (int i = 0; perf_conv_events[i] && n < max - 8; i++) {
		v[n++] = "-e";
		v[n++] = perf_conv_events[i];
	}
	for (int i = 0; a->lock_events && perf_conv_lock_events[i]; i++) {
		v[n++] = "-e";
		v[n++] = perf_conv_lock_events[i];
	}
	if (a->pid) {
		/* Attached to the process's threads (and those it makes)
		 * for as long as `sleep S` runs. */
		snprintf(bufs[0], 32, "%ld", a->pid);
		snprintf(bufs[1], 32, "%ld", a->duration);
		v[n++] = "-p"; v[n++] = bufs[0];
		v[n++] = "--"; v[n++] = "sleep"; v[n++] = bufs[1];
		v[n] = NULL;
		return;
	}
	v[n++] = "--";
	for (int i = 0; a->cmd[i] && n < max - 1; i++)
		v[n++] = a->cmd[i];
	v[n] = NULL;
}

/* Run perf record; its status (the program's, for a command). perf's
 * own complaints go to errlog. */
static int run_perf_record(const struct rec_args *a, const char *data,
			   const char *errlog, int *status)
{
	const char *v[256];
	char bufs[2][32];
	pid_t p;

	perf_argv(a, data, bufs, v, 256);
	p = fork();
	if (p < 0)
		return -errno;
	if (!p) {
		int fd = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd >= 0 && a->pid)
			dup2(fd, 2);
		execvp("perf", (char *const *)v);
		_exit(127);
	}
	/* The recorded program gets the terminal's ^C; we wait it out. */
	signal(SIGINT, SIG_IGN);
	while (waitpid(p, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	signal(SIGINT, SIG_DFL);
	return 0;
}

/* perf script of data (only process c->pid's when that is set),
 * converted into c's writer. 0 or -errno. */
static int run_perf_script(const char *data, struct perf_conv *c)
{
	char pidopt[40] = "--ns";
	int fds[2], st;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *in;
	pid_t p;

	if (pipe(fds))
		return -errno;
	p = fork();
	if (p < 0)
		return -errno;
	if (!p) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(fds[1], 1);
		if (nul >= 0)
			dup2(nul, 2);
		close(fds[0]);
		if (c->pid > 0)
			snprintf(pidopt, sizeof(pidopt), "--pid=%ld", c->pid);
		execlp("perf", "perf", "script", "-i", data, "-F",
		       "pid,tid,time,event,trace", "--ns",
		       "--show-lost-events", pidopt, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	if (!in)
		return -errno;
	while ((n = getline(&line, &cap, in)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		perf_conv_line(c, line);
	}
	free(line);
	fclose(in);
	while (waitpid(p, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -EIO;
}

int cmd_record(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct rec_args a = { .out = "vmsim.trace", .duration = 10 };
	char dir[] = "/tmp/vmsim-record-XXXXXX", data[64], errlog[64];
	bool help = false;
	int ret, status = 0;

	if ((ret = rec_parse(argc, argv, &a, &help)) || help) {
		if (help)
			usage(stdout);
		return ret;
	}
	if (ctx->dry_run)
		return 0;
	if ((ret = rec_preflight(&a)))
		return ret;
	if (!mkdtemp(dir))
		return fprintf(stderr, "%s: record: cannot make a directory in "
			       "/tmp: %s\n", prog, strerror(errno)), 1;
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(errlog, sizeof(errlog), "%s/perf.err", dir);
	record_comment(a.cmd, a.pid, a.duration, a.comment, sizeof(a.comment));
	ret = run_perf_record(&a, data, errlog, &status);
	if (!ret)
		ret = record_convert(&a.comment[0], data, errlog, a.out, a.pid,
				     status, run_perf_script);
	else
		fprintf(stderr, "%s: record: cannot run perf: %s\n", prog,
			strerror(-ret));
	unlink(data);
	unlink(errlog);
	rmdir(dir);
	return ret ? 1 : 0;
}
