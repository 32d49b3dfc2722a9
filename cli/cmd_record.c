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
 *
 * As root, and never losing a recording: the trace (and its side file)
 * is claimed through the safe-write layer before anything runs; perf and
 * the program run in a process group of their own, to which SIGINT,
 * SIGTERM and SIGHUP sent to vmsim are forwarded (the terminal is handed
 * to that group while it records, as a shell does), and vmsim waits for
 * them and converts what was recorded. A signal while converting stops
 * the conversion: the trace keeps the events converted so far. The
 * temporary folder is removed on every path.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/record.h"
#include "base/safefile.h"
#include "trace/perf_conv.h"
#include "base/clock.h"
#include "base/parse.h"

/* perf script's deadline (--convert-timeout): it reads a file, so
 * minutes even for a long recording; past this it is hung. */
#define REC_CONVERT_TIMEOUT 600

struct rec_args {
	const char *out;
	long pid;                        /* -p; 0: run a command */
	long duration;                   /* s, with -p */
	bool duration_given;
	bool force;                      /* -f: replace a trace of ours */
	bool lock_events;                /* the kernel has mmap_lock:* */
	long convert_timeout;            /* s perf script may take */
	const char *follow_comm;         /* --follow NAME, or NULL */
	struct perf_premap *pre;         /* -p: its maps at attach */
	size_t npre;
	long follow_pid;                 /* --follow PID, or 0 */
	long follow_fork;                /* --follow fork:N, or 0 */
	char **cmd;                      /* NULL-terminated */
	char comment[TRACE_MAX_COMMENT];
};

/* --follow NAME|PID|fork:N: 0 or EXIT_USAGE. */
static int rec_follow(void *args, const struct cli_opt *o, const char *arg)
{
	struct rec_args *a = args;

	(void)o;
	if (!strncmp(arg, "fork:", 5)) {
		if (parse_long(arg + 5, 1, 1L << 20, &a->follow_fork))
			return cli_bad("record: bad --follow '%s': want fork:N, N "
				       "from 1 (the N-th process the command "
				       "makes)", arg);
		return 0;
	}
	if (arg[strspn(arg, "0123456789")] == 0) {
		if (parse_long(arg, 1, 1L << 30, &a->follow_pid))
			return cli_bad("record: bad --follow process id '%s'", arg);
		return 0;
	}
	if (!arg[0] || strlen(arg) >= PERF_COMM_LEN || strchr(arg, '/'))
		return cli_bad("record: bad --follow '%s': want a process id, or "
			       "a program's name as the kernel keeps it (at most "
			       "15 characters, no '/': cc1, not "
			       "/usr/lib/gcc/.../cc1)", arg);
	a->follow_comm = arg;
	return 0;
}

#define STR_(x) #x
#define STR(x) STR_(x)
#define T struct rec_args
static const struct cli_opt rec_opts[] = {
	CLI_STR(T, out, 'o', "output", "FILE", "the trace (default vmsim.trace)"),
	CLI_FLAG(T, force, 'f', "force", "replace FILE if it is a trace"),
	CLI_LONG(T, pid, 'p', "pid", "PID", 1, 1L << 30,
		 "attach to a running process"),
	{ .kind = CLI_OPT_LONG, .shrt = 'd', .name = "duration", .metavar = "S",
	  .help = "with -p: seconds to record (default 10)",
	  .off = CLI_AT(T, duration, long), .lo = 1, .hi = 86400,
	  CLI_GIVEN(T, duration_given) },
	CLI_CALL(rec_follow, 0, "follow", "NAME|PID|fork:N",
		 "trace the first process that execs NAME (cc1,\n"
		 "not gcc: a trace is one address space), or\n"
		 "process PID, or the N-th process the command\n"
		 "makes (a child that forks without exec: it\n"
		 "begins with its parent's mappings), instead\n"
		 "of CMD itself; the others' events are counted\n"
		 "and named"),
	CLI_LONG(T, convert_timeout, 0, "convert-timeout", "S", 1, 86400,
		 "end perf script if converting takes longer\n"
		 "(default " STR(REC_CONVERT_TIMEOUT) "): the trace keeps what it had"),
	CLI_HELP_OPT,
	CLI_END
};
#undef T

static int cmd_record(int argc, char **argv, const struct cli_ctx *ctx);

const struct cli_command cmd_record_desc = {
	.name = "record",
	.summary = "run a program under perf and write what it did to its\n"
		   "address space as a trace (replay it with -w replay)",
	.synopsis = "record [-f] [-o FILE] [--follow NAME|PID|fork:N] [--] CMD [ARGS...]\n"
		    "record [-f] [-o FILE] -p PID [--duration S]",
	.text = "Runs CMD under perf (or attaches to PID for S seconds) and writes what\n"
		"it did to its address space (mmap, munmap, mprotect, mremap, madvise,\n"
		"brk, page faults) as a trace; where the kernel has the mmap_lock\n"
		"tracepoints, also the host's own lock acquisitions (FILE.mmap_lock.json).\n"
		"Needs root or kernel.perf_event_paranoid -1. Replay it with\n"
		"'vmsim run -w replay --trace FILE'.\n",
	.opts = rec_opts,
	.after = "SIGINT, SIGTERM, SIGHUP stop the recording; the trace keeps what was\n"
		 "recorded until then.\n",
	.exits = "\n"
		 "exit status: 0 done; 1 nothing was recorded, perf failed, the conversion\n"
		 "  timed out (the trace keeps what was converted), or the trace could not\n"
		 "  go where asked (stderr says where it went); 2 bad input (one line on\n"
		 "  stderr says which value and why); 128+N stopped by signal N (SIGINT,\n"
		 "  SIGTERM, SIGHUP): the trace keeps what was recorded until then, or\n"
		 "  stderr says why there was nothing.\n",
	.in_order = true,
	.run = cmd_record,
};

static int rec_parse(int argc, char **argv, struct rec_args *a)
{
	int first, ret = cli_parse(&cmd_record_desc, argc, argv, a, &first);

	if (ret)
		return ret;
	a->cmd = first < argc ? argv + first : NULL;
	if (a->pid && a->cmd)
		return cli_bad("record: give a command or -p PID, not both ('%s')",
			   a->cmd[0]);
	if (!a->pid && !a->cmd)
		return cli_bad("record: %s", "nothing to record: want 'vmsim record "
			   "[-o FILE] -- CMD [ARGS...]' or '-p PID'");
	if (a->pid && (a->follow_comm || a->follow_pid || a->follow_fork))
		return cli_bad("record: %s", "--follow goes with a command (-p "
			   "records that process)");
	if (a->duration_given && !a->pid)
		return cli_bad("record: %s", "--duration goes with -p PID (a command "
			   "is recorded until it exits)");
	if (!a->out[0])
		return cli_bad("record: %s", "empty output file name");
	return 0;
}

/* Is there something to record: the command runs, the process lives?
 * 0, or EXIT_USAGE after one line. Before the output is claimed: a
 * mistyped program is the first thing to hear of. */
static int rec_check_target(const struct rec_args *a)
{
	char p[32];

	switch (a->cmd ? record_runnable(a->cmd[0]) : 0) {
	case -ENOENT:
		return cli_bad("record: command '%s' not found", a->cmd[0]);
	case -EACCES:
		return cli_bad("record: '%s' is not executable", a->cmd[0]);
	case -EISDIR:
		return cli_bad("record: '%s' is a directory, not a program",
			   a->cmd[0]);
	}
	if (a->pid && kill((pid_t)a->pid, 0) && errno == ESRCH)
		return cli_bad("record: no process %s", (snprintf(p, sizeof(p),
			   "%ld", a->pid), p));
	return 0;
}

/* Can perf give us the tracepoints? 0, or 1 after one line. */
static int rec_preflight(struct rec_args *a)
{
	struct record_env e;

	record_probe(&e, true);
	if (!e.perf)
		return fprintf(stderr, "%s: record: perf is not installed (Debian: "
			       "apt-get install linux-perf)\n", prog), 1;
	if (!e.uid_may_trace)
		return fprintf(stderr, "%s: record: perf may not read tracepoints "
			       "as uid %u (kernel.perf_event_paranoid is %ld): "
			       "run as root, or set it to -1\n", prog,
			       (unsigned)geteuid(), e.paranoid), 1;
	if (!e.tracefs)
		return fprintf(stderr, "%s: record: no tracefs at "
			       "/sys/kernel/tracing (mount -t tracefs nodev "
			       "/sys/kernel/tracing)\n", prog), 1;
	if (e.missing)
		return fprintf(stderr, "%s: record: this kernel has no "
			       "tracepoint %s\n", prog, e.missing), 1;
	a->lock_events = e.lock_events;
	return 0;
}

/* How many words perf_argv() makes at most, with its NULL. */
static int perf_argc(const struct rec_args *a)
{
	int n = 32;

	for (int i = 0; perf_conv_events[i]; i++)
		n += 2;
	for (int i = 0; perf_conv_lock_events[i]; i++)
		n += 2;
	for (int i = 0; a->cmd && a->cmd[i]; i++)
		n++;
	return n;
}

/* perf record's argument vector (the strings live in a and bufs), every
 * word of the command: v holds perf_argc(a). */
static void perf_argv(const struct rec_args *a, const char *data,
		      char bufs[3][80], const char **v, int max)
{
	int n = 0;

	(void)max;                       /* sized by perf_argc() */
	snprintf(bufs[2], 80, "%s/call-graph=fp/", perf_conv_chain_event);
	v[n++] = "perf"; v[n++] = "record"; v[n++] = "-q";
	/* No build ids (-B) and no build-id cache (-N): a trace needs
	 * neither, and perf would write them to ~/.debug and copy the vdso
	 * into /tmp (perf-vdso.so-XXXXXX, not under $TMPDIR). */
	v[n++] = "-B"; v[n++] = "-N";
	/* 2 MiB of ring buffer per CPU: a fault-heavy program loses
	 * events with the default. */
	v[n++] = "-m"; v[n++] = "512";
	v[n++] = "-o"; v[n++] = data;
	for (int i = 0; perf_conv_events[i]; i++) {
		v[n++] = "-e";
		v[n++] = perf_conv_events[i];
	}
	for (int i = 0; a->lock_events && perf_conv_lock_events[i]; i++) {
		v[n++] = "-e";
		/* The acquisition with its kernel call chain (its cause); the
		 * chain of no other event: frame-pointer walks cost. */
		v[n++] = strcmp(perf_conv_lock_events[i], perf_conv_chain_event) ?
			 perf_conv_lock_events[i] : bufs[2];
	}
	if (a->lock_events)
		v[n++] = "--kernel-callchains";
	if (a->pid) {
		/* Attached to the process's threads (and those it makes)
		 * for as long as `sleep S` runs. */
		snprintf(bufs[0], 80, "%ld", a->pid);
		snprintf(bufs[1], 80, "%ld", a->duration);
		v[n++] = "-p"; v[n++] = bufs[0];
		v[n++] = "--"; v[n++] = "sleep"; v[n++] = bufs[1];
		v[n] = NULL;
		return;
	}
	v[n++] = "--";
	for (int i = 0; a->cmd[i]; i++)
		v[n++] = a->cmd[i];
	v[n] = NULL;
}

/* --- signals: forwarded to the group that records, never lost --------- */

static volatile sig_atomic_t rec_sig;        /* the first signal, or 0 */
static volatile sig_atomic_t rec_nsig;       /* how many arrived */
static volatile sig_atomic_t rec_last;       /* the latest signal */
static volatile pid_t rec_group;             /* whom to forward to; 0 */

/* What the recording group is sent for sig: SIGHUP goes as SIGTERM,
 * because perf record ends on SIGHUP without finishing its file (it
 * catches SIGINT and SIGTERM only): the program then sees SIGTERM. */
static int rec_forwarded(int sig)
{
	return sig == SIGHUP ? SIGTERM : sig;
}

static void rec_on_signal(int sig)
{
	int e = errno;

	if (!rec_sig)
		rec_sig = sig;
	rec_nsig++;
	rec_last = sig;
	if (rec_group > 0)
		kill(-rec_group, rec_forwarded(sig));
	errno = e;
}

static const int rec_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* perf script past its deadline: ended (its pipe closes, the conversion
 * keeps what it had). */
static volatile sig_atomic_t rec_timed_out;

static void rec_on_alarm(int sig)
{
	(void)sig;
	rec_timed_out = 1;
	if (rec_group > 0)
		kill(-rec_group, SIGKILL);
}

static void rec_catch(struct sigaction *old)
{
	struct sigaction sa = { .sa_handler = rec_on_signal };

	sigemptyset(&sa.sa_mask);      /* no SA_RESTART: waits see EINTR */
	for (int i = 0; i < 3; i++)
		sigaction(rec_signals[i], &sa, &old[i]);
}

static void rec_restore(const struct sigaction *old)
{
	for (int i = 0; i < 3; i++)
		sigaction(rec_signals[i], &old[i], NULL);
}

/* Fork a child in a process group of its own, signals blocked until it
 * is there, so that one arriving meanwhile is forwarded, not lost. */
static pid_t fork_group(void)
{
	sigset_t block, old;
	int n0 = rec_nsig;
	pid_t p;

	sigemptyset(&block);
	for (int i = 0; i < 3; i++)
		sigaddset(&block, rec_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	p = fork();
	if (!p) {
		setpgid(0, 0);
		for (int i = 0; i < 3; i++)
			signal(rec_signals[i], SIG_DFL);
		signal(SIGTTOU, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return 0;
	}
	if (p > 0) {
		setpgid(p, p);
		rec_group = p;
		if (rec_nsig != n0)          /* it came before the group */
			kill(-p, rec_forwarded(rec_last));
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return p;
}

/* Wait for child p (its group rec_group). After a signal (more than n0
 * of them), whatever of the group outlives it by 10 s is killed, and so
 * is what is left of the group once p is gone: nothing keeps running. */
static int wait_group(pid_t p, int *status, int n0)
{
	double since = 0;

	for (;;) {
		bool sig = rec_nsig > n0;
		pid_t r = waitpid(p, status, sig ? WNOHANG : 0);

		if (r == p)
			break;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (sig && !since)
			since = mono_s();
		if (sig && mono_s() - since > 10)
			kill(-p, SIGKILL);
		if (sig)
			usleep(20000);
	}
	if (rec_nsig > n0)
		kill(-p, SIGKILL);
	rec_group = 0;
	return 0;
}

/* The terminal to the recording group while it runs (a terminal ^C then
 * reaches perf and the program, as without vmsim), and back after. */
static bool hand_terminal(pid_t group)
{
	if (!isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp())
		return false;
	return tcsetpgrp(STDIN_FILENO, group) == 0;
}

static void take_terminal(void)
{
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGTTOU);
	sigprocmask(SIG_BLOCK, &block, &old);
	tcsetpgrp(STDIN_FILENO, getpgrp());
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Run perf record; its status (the program's, for a command). perf's
 * own complaints go to errlog. */
static int run_perf_record(const struct rec_args *a, const char *data,
			   const char *errlog, int *status)
{
	int max = perf_argc(a);
	const char **v = calloc((size_t)max, sizeof(*v));
	char bufs[3][80];
	bool term;
	pid_t p;
	int ret;

	if (!v)
		return -ENOMEM;
	perf_argv(a, data, bufs, v, max);
	p = fork_group();
	if (p < 0) {
		ret = -errno;
		free(v);
		return ret;
	}
	if (!p) {
		int fd = open(errlog, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
			      O_CLOEXEC, 0600);

		if (fd >= 0 && a->pid)
			dup2(fd, 2);
		execvp("perf", (char *const *)v);
		_exit(127);
	}
	free(v);
	term = hand_terminal(p);
	ret = wait_group(p, status, 0);
	if (term)
		take_terminal();
	return ret;
}

/* perf script of data (only process c->pid's when that is set),
 * converted into c's writer. A signal stops it: what was converted is
 * kept (c->cut). 0 or -errno; -EIO with perf script's status in *st. */
static long rec_convert_timeout = REC_CONVERT_TIMEOUT;

static int run_perf_script(const char *data, const char *errlog,
			   struct perf_conv *c, int *st)
{
	struct sigaction sa = { .sa_handler = rec_on_alarm }, old_alrm;
	char pidopt[40] = "--ns";
	int fds[2], n0 = rec_nsig;       /* a signal from now on stops it */
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *in;
	pid_t p;

	*st = 0;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	p = fork_group();
	if (p < 0)
		return -errno;
	if (!p) {
		int log = open(errlog, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW,
			       0600);

		dup2(fds[1], 1);
		if (log >= 0)
			dup2(log, 2);
		if (c->pid > 0)
			snprintf(pidopt, sizeof(pidopt), "--pid=%ld", c->pid);
		execlp("perf", "perf", "script", "-i", data, "-F",
		       "pid,tid,time,event,trace,ip,sym", "--ns",
		       "--show-lost-events", pidopt, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	rec_timed_out = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old_alrm);
	alarm((unsigned)rec_convert_timeout);
	in = fdopen(fds[0], "r");
	if (!in) {
		alarm(0);
		sigaction(SIGALRM, &old_alrm, NULL);
		close(fds[0]);
		kill(-p, SIGKILL);
		wait_group(p, st, n0);
		return -ENOMEM;
	}
	for (;;) {
		errno = 0;
		n = getline(&line, &cap, in);
		if (n <= 0 && errno == EINTR && !ferror(in))
			continue;
		if (n <= 0 || rec_nsig > n0)
			break;
		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		perf_conv_line(c, line);
	}
	perf_conv_flush(c);
	alarm(0);
	sigaction(SIGALRM, &old_alrm, NULL);
	if (rec_nsig > n0 || rec_timed_out) {
		c->cut = true;               /* keep what was converted */
		c->cut_by = rec_timed_out ? SIGALRM : rec_last;
		kill(-p, SIGKILL);
	}
	free(line);
	fclose(in);
	if (wait_group(p, st, n0))
		return -ECHILD;
	if (c->cut)
		return 0;
	return WIFEXITED(*st) && !WEXITSTATUS(*st) ? 0 : -EIO;
}

/* -p: the process's mappings now (/proc/PID/maps, every line whatever
 * its length), but the kernel's own ([vdso], [vvar], [vsyscall]). 0, or
 * -errno. */
static int rec_snapshot_maps(long pid, struct perf_premap **out, size_t *n)
{
	char path[64], *line = NULL;
	size_t cap = 0, have = 0;
	struct perf_premap *v = NULL;
	FILE *f;

	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long lo, hi;
		char perm[8];
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s%n", &lo, &hi, perm,
			   &pos) < 3 || hi <= lo || strstr(line + pos, "[v"))
			continue;
		if (*n == have) {
			size_t want = have ? 2 * have : 64;
			struct perf_premap *nv = realloc(v, want * sizeof(*v));

			if (!nv) {
				free(v);
				free(line);
				fclose(f);
				return -ENOMEM;
			}
			v = nv;
			have = want;
		}
		v[(*n)++] = (struct perf_premap){ lo, hi - lo,
			(perm[0] == 'r' ? PROT_READ : 0) |
			(perm[1] == 'w' ? PROT_WRITE : 0) |
			(perm[2] == 'x' ? PROT_EXEC : 0) };
	}
	free(line);
	fclose(f);
	*out = v;
	return 0;
}

/* -p: the snapshot, or a warning that there is none. */
static void rec_premaps(long pid, struct perf_premap **pre, size_t *npre)
{
	if (pid && rec_snapshot_maps(pid, pre, npre))
		fprintf(stderr, "%s: record: warning: cannot read /proc/%ld/maps: "
			"what it mapped before the recording is not in the trace\n",
			prog, pid);
}

static int cmd_record(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct rec_args a = { .out = "vmsim.trace", .duration = 10 };
	char dir[PATH_MAX], data[PATH_MAX + 16], errlog[PATH_MAX + 16],
	     slog[PATH_MAX + 16];
	const char *tmpdir = sf_tmpdir();
	struct sigaction old[3];
	struct record_out out;
	int ret, status = 0;

	if ((ret = rec_parse(argc, argv, &a)))
		return ret == CLI_PARSED_HELP ? 0 : ret;
	if (ctx->dry_run)
		return 0;
	if (a.convert_timeout)
		rec_convert_timeout = a.convert_timeout;
	if ((ret = rec_check_target(&a)))
		return ret;
	/* The trace's place claimed before anything runs. */
	if (record_claim(&out, a.out, a.force))
		return EXIT_USAGE;
	if ((ret = rec_preflight(&a)) ||
	    (a.lock_events && record_claim_side(&out) && (ret = EXIT_USAGE))) {
		record_release(&out);
		return ret;
	}
	rec_sig = rec_nsig = 0;
	rec_catch(old);
	/* perf's data and logs in a directory of its own, under $TMPDIR
	 * as every other scratch file of vmsim's. */
	ret = -sf_mkdtemp(dir, sizeof(dir), "vmsim-record");
	if (ret) {
		char shown[PATH_MAX];

		fprintf(stderr, "%s: record: cannot make a directory in %s: "
			"%s\n", prog, parse_printable(shown, sizeof(shown), tmpdir),
			strerror(ret));
		record_release(&out);
		rec_restore(old);
		return 1;
	}
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(errlog, sizeof(errlog), "%s/record.err", dir);
	snprintf(slog, sizeof(slog), "%s/script.err", dir);
	record_comment(a.cmd, a.pid, a.duration, a.comment, sizeof(a.comment));
	rec_premaps(a.pid, &a.pre, &a.npre);
	ret = run_perf_record(&a, data, errlog, &status);
	if (!ret) {
		struct record_job job = {
			.comment = a.comment, .data = data, .errlog = errlog,
			.scratch = dir,
			.script_log = slog, .follow_fork = a.follow_fork,
			.pid = a.pid, .pre = a.pre, .npre = a.npre, .status = status,
			.script = run_perf_script,
			.follow_comm = a.follow_comm, .follow_pid = a.follow_pid,
			.signal_at_start = rec_sig,
		};

		ret = record_convert(&job, &out);
	} else {
		fprintf(stderr, "%s: record: cannot run perf: %s\n", prog,
			strerror(-ret));
		ret = -1;
	}
	record_release(&out);
	free(a.pre);
	unlink(data);
	unlink(errlog);
	unlink(slog);
	rmdir(dir);
	rec_restore(old);
	/* Stopped by a signal: 128 + N, as every command (the trace, if
	 * any, is written and said). */
	if (rec_sig)
		return 128 + rec_sig;
	if (rec_timed_out)               /* the trace is what was converted */
		return 1;
	return ret < 0 ? 1 : ret > 0 ? 1 : 0;
}
