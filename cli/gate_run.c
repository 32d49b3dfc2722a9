/* SPDX-License-Identifier: MIT */
/* vmsim gate's runs as child processes (cli/gate.h). */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/gate.h"
#include "base/safefile.h"

/* The gate's own interrupt: forwarded to the run under way, to its
 * whole process group (a candidate may be a script with children). */
static volatile sig_atomic_t gate_sig;
static volatile pid_t gate_child;

static void gate_on_signal(int sig)
{
	if (!gate_sig)
		gate_sig = sig;
	if (gate_child > 0)
		kill(-gate_child, sig);
}

static const int gate_sigs[3] = { SIGINT, SIGTERM, SIGHUP };

void gate_signals_install(struct sigaction old[3])
{
	struct sigaction sa = { .sa_handler = gate_on_signal };

	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(gate_sigs[i], &sa, &old[i]);
}

void gate_signals_restore(const struct sigaction old[3])
{
	for (int i = 0; i < 3; i++)
		sigaction(gate_sigs[i], &old[i], NULL);
}

int gate_signal(void)
{
	return gate_sig;
}

int gate_split_words(struct run_args_vec *v, const char *s)
{
	int ret = 0;

	while (s && *s && !ret) {
		size_t n;
		char *w;

		s += strspn(s, " \t\n");
		if (!(n = strcspn(s, " \t\n")))
			break;
		if (!(w = strndup(s, n)))
			return -ENOMEM;
		ret = run_args_add(v, w);
		free(w);
		s += n;
	}
	return ret;
}

/* argv for one run of side's program: PROG run RECIPE [extra] -q -o OUT.
 * 0 or -ENOMEM. */
static int run_argv(const struct run_args_vec *recipe, const char *progpath,
		    const char *extra, const char *out, struct run_args_vec *v)
{
	int ret = run_args_add(v, progpath) ?: run_args_add(v, "run");

	for (int i = 0; i < recipe->n && !ret; i++)
		ret = run_args_add(v, recipe->argv[i]);
	return ret ?: gate_split_words(v, extra) ?: run_args_add(v, "-q") ?:
	       run_args_add(v, "-o") ?: run_args_add(v, out);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Has child p ended (not reaped: its pid, and so its group's id, stay
 * ours until waitpid)? Waits up to ms for it. */
static bool child_ended(pid_t p, long long ms)
{
	long long until = now_ms() + ms;

	for (;;) {
		siginfo_t si = { 0 };
		struct timespec nap = { 0, 20 * 1000000 };

		if (waitid(P_PID, (id_t)p, &si, WEXITED | WNOHANG | WNOWAIT) < 0 &&
		    errno != EINTR)
			return true;             /* not ours to wait for */
		if (si.si_pid == p)
			return true;
		if (now_ms() >= until)
			return false;
		nanosleep(&nap, NULL);           /* a signal ends it early */
	}
}

/* Wait for run p, in its own process group, for at most timeout_s (or,
 * once the gate is interrupted, a grace period): then SIGTERM to the
 * group, a grace period, SIGKILL. Whatever it left running in its group
 * is ended too. Reaps p into *st; true when it had to be ended. */
static bool wait_run(pid_t p, int timeout_s, int *st)
{
	long long deadline = now_ms() + 1000LL * timeout_s;
	bool ended = false;

	while (!child_ended(p, 200)) {
		long long now = now_ms();

		if (gate_sig && deadline > now + GATE_KILL_GRACE_MS)
			deadline = now + GATE_KILL_GRACE_MS;
		if (now < deadline)
			continue;
		ended = true;
		kill(-p, SIGTERM);
		if (!child_ended(p, GATE_KILL_GRACE_MS))
			kill(-p, SIGKILL);
		child_ended(p, GATE_KILL_GRACE_MS);
		break;
	}
	kill(-p, SIGKILL);                       /* what it left behind */
	while (waitpid(p, st, 0) < 0 && errno == EINTR)
		;
	return ended;
}

int gate_run_one(const struct run_args_vec *recipe, const char *progpath,
		 const char *extra, const char *out, const char *log,
		 int timeout_s, char *why, size_t len)
{
	struct run_args_vec v = { 0 };
	char line[512] = "";
	int fd, e, st = 0;
	bool killed;
	pid_t p;
	FILE *f;

	if (run_argv(recipe, progpath, extra, out, &v)) {
		run_args_free(&v);
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	fd = sf_create_new(log, 0600);
	if (fd < 0) {
		run_args_free(&v);
		snprintf(why, len, "cannot make %.400s: %s", log, strerror(-fd));
		return fd;
	}
	p = fork();
	if (p == 0) {
		setpgid(0, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execv(progpath, v.argv);
		fprintf(stderr, "vmsim: gate: cannot run %s: %s\n", progpath,
			strerror(errno));
		_exit(127);
	}
	e = errno;
	close(fd);
	run_args_free(&v);
	if (p < 0) {
		snprintf(why, len, "cannot fork: %s", strerror(e));
		return -e;
	}
	setpgid(p, p);                   /* before it runs, whichever is first */
	gate_child = p;
	if (gate_sig)                    /* came before gate_child was set */
		kill(-p, gate_sig);
	killed = wait_run(p, timeout_s, &st);
	gate_child = 0;
	if (killed && !gate_sig) {
		snprintf(why, len, "%.300s did not end within %d s "
			 "(--run-timeout): ended", progpath, timeout_s);
		return -ETIMEDOUT;
	}
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	f = fopen(log, "r");
	for (char l[512]; f && fgets(l, sizeof(l), f);)
		if (!strncmp(l, "vmsim: ", 7) && !strstr(l, "warning"))
			snprintf(line, sizeof(line), "%s", l + 7);
	if (f)
		fclose(f);
	line[strcspn(line, "\n")] = 0;
	snprintf(why, len, "%.300s exited with %s %d%s%.400s", progpath,
		 WIFSIGNALED(st) ? "signal" : "status",
		 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
		 *line ? ": " : "", line);
	return -ECHILD;
}
