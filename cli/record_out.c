/* SPDX-License-Identifier: MIT */
/*
 * vmsim record's output: perf's data converted into the trace file
 * through the safe-write layer (base/safefile.h: claimed before the
 * recording, written unnamed, published when whole; under $TMPDIR when
 * its directory cannot take it, converted again there), then read back —
 * the check that it is whole — and summarized.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/cmd.h"
#include "cli/record.h"
#include "base/parse.h"

void record_comment(char **cmd, long pid, long duration, char *out,
		    size_t len)
{
	size_t n = 0;

	out[0] = 0;
	if (!cmd) {
		snprintf(out, len, "pid %ld for %ld s", pid, duration);
		return;
	}
	for (int i = 0; cmd[i]; i++) {
		int k = snprintf(out + n, len - n, "%s%s", i ? " " : "", cmd[i]);

		if (k < 0 || (size_t)k >= len - n - 4) {
			/* The trace's comment has a limit (TRACE_MAX_COMMENT):
			 * a longer command line ends in an ellipsis, not cut
			 * silently (the program still gets every word). */
			out[n] = 0;
			strcat(out, " \xe2\x80\xa6");
			return;
		}
		n += (size_t)k;
	}
}

/* perf's complaint, for the one line: its last line that is not
 * chatter ("[ perf record: ...", "'trace' not valid for ...", warnings). */
static void perf_complaint(const char *errlog, const char *none, char *out,
			   size_t len)
{
	FILE *f = fopen(errlog, "r");
	char line[512], shown[512];

	snprintf(out, len, "%s", none);
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] && strncmp(line, "[ perf", 6) &&
		    strncmp(line, "'trace' not valid", 17) &&
		    strncmp(line, "WARNING", 7) && strncmp(line, "Was the", 7))
			snprintf(out, len, "perf: %s",
				 parse_printable(shown, sizeof(shown), line));
	}
	if (f)
		fclose(f);
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

/* The other processes' events, left out: the largest named, and how
 * --follow would take one of them instead. */
static void tell_others(const struct perf_conv *c)
{
	const struct perf_other *top[3] = { NULL };
	uint64_t rest = c->other_pid;

	if (c->follow_comm[0] && c->follow_matches > 1)
		fprintf(stderr, "%s: record: followed %s (pid %ld), the first of "
			"%d execs of it: the others are left out\n", prog,
			c->follow_comm, c->pid, c->follow_matches);
	if (!c->other_pid)
		return;
	for (int i = 0; i < c->nothers; i++) {
		const struct perf_other *o = &c->others[i];

		for (int k = 0; k < 3; k++)
			if (!top[k] || o->events > top[k]->events) {
				memmove(&top[k + 1], &top[k],
					sizeof(top[0]) * (size_t)(2 - k));
				top[k] = o;
				break;
			}
	}
	fprintf(stderr, "%s: record: %llu events of %s%d other process%s left "
		"out (a trace is one address space):", prog,
		(unsigned long long)c->other_pid, c->others_full ? "more than " :
		"", c->nothers, c->nothers == 1 && !c->others_full ? "" : "es");
	for (int k = 0; k < 3 && top[k]; k++) {
		fprintf(stderr, "%s %s%spid %ld", k ? "," : "", top[k]->comm,
			top[k]->comm[0] ? " " : "", top[k]->pid);
		if (top[k]->fork_no)
			fprintf(stderr, " (fork:%d)", top[k]->fork_no);
		fprintf(stderr, ": %llu", (unsigned long long)top[k]->events);
		rest -= top[k]->events;
	}
	if (rest)
		fprintf(stderr, ", others %llu", (unsigned long long)rest);
	/* The largest exec'd a name of its own: --follow NAME. Else it is
	 * a child that did not exec (a browser's zygote's renderers), or a
	 * later exec of the followed name: --follow fork:N, its number. */
	if (top[0] && top[0]->fork_no && (!top[0]->execd ||
	    (c->follow_comm[0] && !strcmp(top[0]->comm, c->follow_comm))))
		fprintf(stderr, "; --follow fork:%d records that one instead (%s"
			"; it begins with the mappings it inherited)\n",
			top[0]->fork_no, top[0]->execd ? "a later exec of the "
			"same name" : "forked without an exec");
	else if (top[0] && c->follow_comm[0] &&
		 !strcmp(top[0]->comm, c->follow_comm))
		fprintf(stderr, "; they are other processes named %s, which "
			"--follow NAME cannot tell apart: record one alone with "
			"-p PID\n", c->follow_comm);
	else
		fprintf(stderr, "; --follow %s records %s instead\n",
			top[0] && top[0]->comm[0] ? top[0]->comm : "NAME",
			top[0] && top[0]->comm[0] ? "that one" : "the process "
			"that execs NAME");
}

static void record_print_summary(const char *path, const struct trace_summary *s,
			  const struct perf_conv *c)
{
	char shown[PATH_MAX];
	struct stat st;

	fprintf(stderr, "recorded %llu events of %u thread%s over %.3f s: %llu faults "
	       "(%llu kernel-mode), "
	       "%llu mmap, %llu munmap, %llu mprotect, %llu mremap, "
	       "%llu madvise, %llu brk",
	       (unsigned long long)s->events, s->threads,
	       s->threads == 1 ? "" : "s", s->span_ns / 1e9,
	       (unsigned long long)s->by_kind[TR_FAULT],
	       (unsigned long long)s->fault_kernel,
	       (unsigned long long)s->by_kind[TR_MMAP],
	       (unsigned long long)s->by_kind[TR_MUNMAP],
	       (unsigned long long)s->by_kind[TR_MPROTECT],
	       (unsigned long long)s->by_kind[TR_MREMAP],
	       (unsigned long long)s->by_kind[TR_MADVISE],
	       (unsigned long long)s->by_kind[TR_BRK]);
	if (!stat(path, &st))
		fprintf(stderr, " -> %s (%.1f KiB)", parse_printable(shown, sizeof(shown), path),
		       st.st_size / 1024.0);
	fprintf(stderr, "\n");
	if (c->pre_done && c->npre && c->followed_parent)
		fprintf(stderr, "%s: record: %zu of the mmaps are what its parent "
			"(pid %ld) had mapped at the fork, as recorded (anonymous "
			"in the trace; the image's and the stack's, mapped before "
			"the recording, are not among them)\n", prog, c->npre,
			c->followed_parent);
	else if (c->pre_done && c->npre)
		fprintf(stderr, "%s: record: %zu of the mmaps are the process's "
			"mappings when the recording began (/proc/PID/maps), "
			"anonymous in the trace, so that what it touches there "
			"replays\n", prog, c->npre);
	if (c->lost)
		fprintf(stderr, "%s: record: perf lost %llu events: the trace "
			"is incomplete (a replay meets faults and calls it "
			"cannot place)\n", prog, (unsigned long long)c->lost);
	tell_others(c);
	if (c->dropped)
		fprintf(stderr, "%s: record: the program exec'd %s: the trace "
			"holds what came after (%llu events before it left out)\n",
			prog, parse_printable(shown, sizeof(shown), c->exe),
			(unsigned long long)c->dropped);
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

/* A side file of ours (--force replaces only one). */
static bool is_lock_json(int fd)
{
	static const char key[] = "\"vmsim_mmap_lock\"";
	char head[256];

	return sf_head(fd, head, sizeof(head)) && strstr(head, key);
}

static const struct sf_spec side_spec = {
	.what = "lock file", .ours = is_lock_json,
};

static int emit_json(FILE *f, void *arg)
{
	fputs(json_object_to_json_string_ext(arg, JSON_C_TO_STRING_PRETTY), f);
	putc('\n', f);
	return 0;
}

/* The causes as {"cause": {"read": n, "write": n}, ...}, and the part a
 * replay can make into rep. */
static json_object *causes_json(const struct perf_mm *m, uint64_t rep[2])
{
	json_object *o = json_object_new_object();

	rep[0] = rep[1] = 0;
	for (int k = 0; k < PC_NCAUSES; k++) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "read", json_object_new_uint64(m->cause[k][0]));
		json_object_object_add(c, "write", json_object_new_uint64(m->cause[k][1]));
		json_object_object_add(o, perf_conv_cause_names[k], c);
		for (int w = 0; w < 2 && perf_conv_replayable((enum perf_cause)k); w++)
			rep[w] += m->cause[k][w];
	}
	return o;
}

/* "kernel_fault 993/0, mmap_call 0/18, ...": the causes that took it. */
static void print_causes(const struct perf_mm *m, const uint64_t rep[2])
{
	const char *sep = "";

	fprintf(stderr, "host mmap_lock by cause (read/write):");
	for (int k = 0; k < PC_NCAUSES; k++) {
		if (!m->cause[k][0] && !m->cause[k][1])
			continue;
		fprintf(stderr, "%s %s %llu/%llu", sep, perf_conv_cause_names[k],
		       (unsigned long long)m->cause[k][0],
		       (unsigned long long)m->cause[k][1]);
		sep = ",";
	}
	fprintf(stderr, "\nhost mmap_lock a replay can make: %llu/%llu of %llu/%llu "
	       "(exec, exit, fork, faults and calls outside the trace's mappings "
	       "and other left out)\n", (unsigned long long)rep[0],
	       (unsigned long long)rep[1],
	       (unsigned long long)m->lock[0].acquired,
	       (unsigned long long)m->lock[1].acquired);
}

static const char *const side_names[2] = { "read", "write" };

/* "mmap_call in __vm_munmap": what a holder or a waiter was doing. */
static const char *holder_what(const struct perf_conv *c,
			       const struct perf_holder *h, char *buf,
			       size_t len)
{
	const char *site = h->site ? c->waits.sites[h->site] : "";

	snprintf(buf, len, "%s%s%s", h->cause < PC_NCAUSES ?
		 perf_conv_cause_names[h->cause] : "?", site[0] ? " in " : "",
		 site);
	return buf;
}

static json_object *holder_json(const struct perf_conv *c,
				const struct perf_holder *h)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "tid", json_object_new_int64(h->tid));
	json_object_object_add(o, "side", json_object_new_string(
				       side_names[h->write & 1]));
	json_object_object_add(o, "cause", json_object_new_string(
		h->cause < PC_NCAUSES ? perf_conv_cause_names[h->cause] : "?"));
	json_object_object_add(o, "site", json_object_new_string(
				       h->site ? c->waits.sites[h->site] : ""));
	return o;
}

/* The share of a thread's run (its first to its last event) it spent
 * waiting; NaN where it ran no time. */
static double wait_share(const struct perf_wait_thread *t)
{
	uint64_t run = t->t_last > t->t_first ? t->t_last - t->t_first : 0;

	return run ? (double)(t->wait_ns[0] + t->wait_ns[1]) / (double)run : NAN;
}

/* Each thread's waits against its run time, and the longest waits with
 * who held the lock: the three of each on the terminal, all in j. */
static void report_waits(const struct perf_conv *c, json_object *j)
{
	const struct perf_waits *w = &c->waits;
	const struct perf_wait_thread *top[3] = { NULL };
	json_object *ja = json_object_new_array(), *jt = json_object_new_array();
	char a[160], b[160];
	uint64_t longest = 0;

	/* A thread that ran a moment (a helper that took the lock once)
	 * has a share of nothing: ranked are those that ran at least 1% of
	 * the longest run (all are in the file). */
	for (int i = 0; i < PERF_WAIT_THREADS; i++)
		if (w->th[i].tid && w->th[i].t_last - w->th[i].t_first > longest)
			longest = w->th[i].t_last - w->th[i].t_first;
	for (int i = 0; i < PERF_WAIT_THREADS; i++) {
		const struct perf_wait_thread *t = &w->th[i];
		json_object *o, *ws;

		if (!t->tid || t->t_last <= t->t_first)
			continue;
		o = json_object_new_object();
		ws = json_object_new_object();
		json_object_object_add(o, "tid", json_object_new_int64(t->tid));
		json_object_object_add(o, "run_ns", json_object_new_uint64(
					       t->t_last - t->t_first));
		for (int s = 0; s < 2; s++)
			json_object_object_add(ws, side_names[s],
					       json_object_new_uint64(t->wait_ns[s]));
		json_object_object_add(o, "wait_ns", ws);
		json_object_array_add(jt, o);
		if (t->t_last - t->t_first < longest / 100)
			continue;
		for (int k = 0; k < 3; k++)
			if (!top[k] || wait_share(t) > wait_share(top[k])) {
				memmove(&top[k + 1], &top[k],
					sizeof(top[0]) * (size_t)(2 - k));
				top[k] = t;
				break;
			}
	}
	for (int i = 0; i < w->ntop; i++) {
		const struct perf_wait_top *e = &w->top[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "wait_ns", json_object_new_uint64(e->wait_ns));
		json_object_object_add(o, "waiter", holder_json(c, &e->waiter));
		json_object_object_add(o, "holder", e->have_holder ?
				       holder_json(c, &e->holder) : NULL);
		json_object_array_add(ja, o);
	}
	json_object_object_add(j, "threads", jt);
	json_object_object_add(j, "longest_waits", ja);
	if (top[0] && top[0]->wait_ns[0] + top[0]->wait_ns[1]) {
		fprintf(stderr, "host mmap_lock waits by thread (the most of "
			"its run, of those that ran 1%% of the longest):");
		for (int k = 0; k < 3 && top[k] && top[k]->wait_ns[0] +
		     top[k]->wait_ns[1]; k++)
			fprintf(stderr, "%s tid %u %.2f%% (read %.3f ms, write "
				"%.3f ms of %.3f s)", k ? "," : "", top[k]->tid,
				100 * wait_share(top[k]), top[k]->wait_ns[0] / 1e6,
				top[k]->wait_ns[1] / 1e6,
				(top[k]->t_last - top[k]->t_first) / 1e9);
		fprintf(stderr, "\n");
	}
	for (int i = 0; i < w->ntop && i < 3; i++) {
		const struct perf_wait_top *e = &w->top[i];

		fprintf(stderr, "%s %.3f ms: tid %u for %s (%s)", i ?
			";" : "host mmap_lock longest waits:", e->wait_ns / 1e6,
			e->waiter.tid, side_names[e->waiter.write & 1],
			holder_what(c, &e->waiter, a, sizeof(a)));
		if (e->have_holder)
			fprintf(stderr, " behind tid %u holding %s (%s)",
				e->holder.tid, side_names[e->holder.write & 1],
				holder_what(c, &e->holder, b, sizeof(b)));
	}
	if (w->ntop)
		fprintf(stderr, "\n");
}

/* The host's mmap_lock as the program took it: a line per side, its
 * causes, and TRACE.mmap_lock.json beside the trace (for comparing with
 * a replay's lockstat). Returns enum sf_where, or -1 after one line. */
static int report_host_lock(struct record_out *o, const struct perf_conv *c)
{
	static const char *const side[2] = { "read", "write" };
	const struct perf_mm *m = perf_conv_traced(c);
	json_object *j = json_object_new_object(), *rj;
	struct sf_spec spec = side_spec;
	char err[PATH_MAX + 256], where[PATH_MAX + 64];
	uint64_t rep[2];
	struct sf_out out;
	int ret;

	json_object_object_add(j, "vmsim_mmap_lock", json_object_new_int(2));
	for (int w = 0; w < 2; w++) {
		const struct perf_lockside *l = &m->lock[w];

		fprintf(stderr, "host mmap_lock %-5s %llu acquired (%llu trylocks "
		       "failed): waited %.3f ms in all (max %.1f us), held "
		       "%.3f ms (max %.1f us)\n", side[w],
		       (unsigned long long)l->acquired,
		       (unsigned long long)l->failed, l->wait_ns / 1e6,
		       l->wait_max / 1e3, l->hold_ns / 1e6, l->hold_max / 1e3);
		json_object_object_add(j, side[w], lockside_json(l));
	}
	json_object_object_add(j, "causes", causes_json(m, rep));
	rj = json_object_new_object();
	json_object_object_add(rj, "read", json_object_new_uint64(rep[0]));
	json_object_object_add(rj, "write", json_object_new_uint64(rep[1]));
	json_object_object_add(j, "replayable", rj);
	json_object_object_add(j, "other_mm_acquired",
			       json_object_new_uint64(perf_conv_other_mms(c)));
	json_object_object_add(j, "kernel_faults",
			       json_object_new_uint64(c->kernel_faults));
	print_causes(m, rep);
	report_waits(c, j);
	spec.force = o->force;
	ret = sf_open(&out, o->side, &spec, err, sizeof(err));
	if (!ret && (ret = sf_emit(&out, emit_json, j)) >= 0)
		ret = sf_commit(&out, true, where, sizeof(where), err,
				sizeof(err));
	sf_abort(&out);
	json_object_put(j);
	if (ret)
		fprintf(stderr, "%s: record: %s%s\n", prog, err, ret < 0 ?
			" (the lock figures are the lines above)" : "");
	return ret < 0 ? -1 : ret;
}

/* Read the file back: whole, and what it holds. */
static int check_back(const char *path, const struct perf_conv *c)
{
	struct trace_reader r;
	struct trace_summary s;
	char err[256], shown[PATH_MAX];
	int ret = 0;

	if (trace_open(&r, path, err, sizeof(err)) ||
	    trace_summarize(&r, &s, err, sizeof(err))) {
		fprintf(stderr, "%s: record: the trace %s reads back wrong: "
			"%s\n", prog, parse_printable(shown, sizeof(shown), path), err);
		ret = -1;
	} else {
		record_print_summary(path, &s, c);
	}
	trace_close(&r);
	return ret;
}

struct conv_ctx {
	const struct record_job *j;
	struct trace_writer w;
	struct perf_conv c;
	struct restart_ctx rc;
	int script_status;
	char comment[TRACE_MAX_COMMENT]; /* the job's, and what it followed */
};

/* The whole conversion into f (run again under $TMPDIR if f's place
 * fails). 0 or -errno. */
static int conv_emit(FILE *f, void *arg)
{
	struct conv_ctx *x = arg;
	int ret;

	if (x->j->follow_comm)
		snprintf(x->comment, sizeof(x->comment), "%.2000s (its process "
			 "%s: --follow)", x->j->comment, x->j->follow_comm);
	else if (x->j->follow_pid)
		snprintf(x->comment, sizeof(x->comment), "%.2000s (its process "
			 "%ld: --follow)", x->j->comment, x->j->follow_pid);
	else if (x->j->follow_fork)
		snprintf(x->comment, sizeof(x->comment), "%.2000s (its process "
			 "fork:%ld: --follow)", x->j->comment, x->j->follow_fork);
	else
		snprintf(x->comment, sizeof(x->comment), "%s", x->j->comment);
	trace_writer_init(&x->w, f, x->comment);
	perf_conv_fini(&x->c);               /* a second pass: the first's */
	perf_conv_init(&x->c, &x->w);
	x->rc = (struct restart_ctx){ &x->w, f, x->comment };
	x->c.restart = restart_trace;
	x->c.restart_arg = &x->rc;
	if (x->j->pid) {
		x->c.pid = x->j->pid;        /* -p: that process only */
		x->c.pre = x->j->pre;
		x->c.npre = x->j->npre;
	}
	if (x->j->follow_pid)
		x->c.pid = x->j->follow_pid;
	x->c.follow_fork = (int)x->j->follow_fork;
	x->c.track_maps = x->j->follow_pid || x->j->follow_fork;
	if (x->j->follow_comm)
		snprintf(x->c.follow_comm, sizeof(x->c.follow_comm), "%s",
			 x->j->follow_comm);
	ret = x->j->script(x->j->data, x->j->script_log, &x->c,
			   &x->script_status);
	if (!ret && x->c.err)
		ret = x->c.err;
	if (!ret)
		ret = trace_writer_finish(&x->w);
	return ret;
}

static const char *sig_name(int sig)
{
	const char *n = sigabbrev_np(sig);
	static char buf[16];

	if (n) {
		snprintf(buf, sizeof(buf), "SIG%s", n);
		return buf;
	}
	snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}

/* What ended the program, if it is news. */
static void tell_status(const struct record_job *j)
{
	if (j->signal_at_start)
		fprintf(stderr, "%s: record: recording stopped by %s\n", prog,
			sig_name(j->signal_at_start));
	if (j->pid)                      /* the status is perf's own */
		return;
	if (WIFEXITED(j->status) && WEXITSTATUS(j->status))
		fprintf(stderr, "%s: record: the program exited with status %d "
			"(the trace holds what it did)\n", prog,
			WEXITSTATUS(j->status));
	else if (WIFSIGNALED(j->status) && !j->signal_at_start)
		fprintf(stderr, "%s: record: the program was killed by %s (the "
			"trace holds what it did)\n", prog,
			sig_name(WTERMSIG(j->status)));
}

/* The conversion failed: why, in one line. */
static void tell_failure(const struct record_out *o, struct conv_ctx *x,
			 int ret)
{
	char why[600];

	if (ret == -EIO && x->j->signal_at_start) {
		/* A signal can end perf record before its data file is
		 * whole (SIGPIPE on the pipe that starts the program, say):
		 * then there is nothing to keep. */
		perf_complaint(x->j->script_log, "no readable data", why,
			       sizeof(why));
		fprintf(stderr, "%s: record: nothing recorded (stopped by %s "
			"before perf's data was whole: %s)\n", prog,
			sig_name(x->j->signal_at_start), why);
	} else if (ret == -EIO) {
		const int st = x->script_status;

		perf_complaint(x->j->script_log, "it gave no reason", why,
			       sizeof(why));
		fprintf(stderr, "%s: record: perf could not read what it "
			"recorded (perf record: %s %d, perf script: %s %d): %s\n",
			prog, WIFSIGNALED(x->j->status) ? "signal" : "status",
			WIFSIGNALED(x->j->status) ? WTERMSIG(x->j->status) :
			WEXITSTATUS(x->j->status),
			WIFSIGNALED(st) ? "signal" : "status",
			WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), why);
	} else {
		fprintf(stderr, "%s: record: cannot write '%s' nor a file under "
			"$TMPDIR (%s): the recording is lost\n", prog,
			o->trace.shown, strerror(-ret));
	}
}

int record_claim(struct record_out *o, const char *path, bool force)
{
	struct sf_spec spec = { .what = "trace", .force = force,
				.ours = trace_is_ours };
	char err[PATH_MAX + 256];

	memset(o, 0, sizeof(*o));
	o->force = force;
	if (sf_open(&o->trace, path, &spec, err, sizeof(err))) {
		fprintf(stderr, "%s: record: %s\n", prog, err);
		return -1;
	}
	o->open = true;
	return 0;
}

int record_claim_side(struct record_out *o)
{
	struct sf_spec spec = side_spec;
	char err[PATH_MAX + 256];

	if ((size_t)snprintf(o->side, sizeof(o->side), "%s.mmap_lock.json",
			     o->trace.path) >= sizeof(o->side)) {
		fprintf(stderr, "%s: record: the side file's name (the trace's "
			"and .mmap_lock.json) would be longer than %zu bytes\n",
			prog, sizeof(o->side) - 1);
		o->side[0] = 0;
		return -1;
	}
	spec.force = o->force;
	if (sf_check(o->side, &spec, err, sizeof(err))) {
		fprintf(stderr, "%s: record: %s\n", prog, err);
		o->side[0] = 0;
		return -1;
	}
	return 0;
}

void record_release(struct record_out *o)
{
	if (o->open)
		sf_abort(&o->trace);
	o->open = false;
}

/* The free bytes of the file system that holds path, or -1. */
static long long free_bytes(const char *path)
{
	struct statvfs v;

	if (statvfs(path, &v))
		return -1;
	return (long long)v.f_bavail * (long long)v.f_frsize;
}

/* Less than this free where perf writes: it could not have written. */
#define RECORD_FULL_BYTES (1LL << 20)

/* Is there nothing to convert? Then one line saying why, and true. */
static bool nothing_recorded(const struct record_job *j)
{
	char why[600];
	struct stat st;

	if (j->pid && !j->signal_at_start &&
	    !(WIFEXITED(j->status) && !WEXITSTATUS(j->status))) {
		/* -p: the status is perf's own, and perf failed. */
		perf_complaint(j->errlog, "it gave no reason", why, sizeof(why));
		fprintf(stderr, "%s: record: nothing recorded: perf record on "
			"process %ld failed (%s %d): %s\n", prog, j->pid,
			WIFSIGNALED(j->status) ? "signal" : "status",
			WIFSIGNALED(j->status) ? WTERMSIG(j->status) :
			WEXITSTATUS(j->status), why);
		return true;
	}
	if (!stat(j->data, &st) && st.st_size)
		return false;
	if (j->signal_at_start) {
		fprintf(stderr, "%s: record: nothing recorded (stopped by "
			"%s before perf wrote any data)\n", prog,
			sig_name(j->signal_at_start));
	} else if (access(j->scratch, F_OK)) {
		/* Another process removed it (a cleanup of $TMPDIR matching
		 * vmsim-record-*, say): say so, not "no data", which sends
		 * the user after perf. */
		char shown[PATH_MAX];

		fprintf(stderr, "%s: record: nothing recorded: perf's scratch "
			"folder '%s' was removed while it recorded\n", prog,
			parse_printable(shown, sizeof(shown), j->scratch));
	} else if (free_bytes(j->scratch) >= 0 &&
		   free_bytes(j->scratch) < RECORD_FULL_BYTES) {
		/* perf's own complaint went to the same full disk. */
		char shown[PATH_MAX];

		perf_complaint(j->errlog, "", why, sizeof(why));
		fprintf(stderr, "%s: record: nothing recorded: the file system of "
			"'%s' is full (%lld KiB free), so perf could not write its "
			"data there%s%s; free space there or point TMPDIR at "
			"another\n", prog, parse_printable(shown, sizeof(shown),
			j->scratch), free_bytes(j->scratch) >> 10, why[0] ? ": " :
			"", why);
	} else {
		char dflt[96];

		snprintf(dflt, sizeof(dflt), "perf wrote no data (perf record "
			 "ended with %s %d)", WIFSIGNALED(j->status) ? "signal" :
			 "status", WIFSIGNALED(j->status) ? WTERMSIG(j->status) :
			 WEXITSTATUS(j->status));
		perf_complaint(j->errlog, dflt, why, sizeof(why));
		fprintf(stderr, "%s: record: nothing recorded: %s\n", prog, why);
	}
	return true;
}

/* perf's data held no event of the program (a signal before it ran, or
 * everything before its exec left out): nothing to write, and why, in
 * one line — never an empty trace. */
static void tell_empty(const struct conv_ctx *x)
{
	char shown[PATH_MAX], by[64] = "";

	if (x->j->signal_at_start)
		snprintf(by, sizeof(by), " (stopped by %s)",
			 sig_name(x->j->signal_at_start));
	if (x->c.cut)
		fprintf(stderr, "%s: record: nothing recorded: converting stopped "
			"by %s before it reached an event of the program\n", prog,
			x->c.cut_by == SIGALRM ? "its deadline (perf script ended: "
			"--convert-timeout)" : sig_name(x->c.cut_by));
	else if (x->c.dropped)
		fprintf(stderr, "%s: record: nothing recorded%s: the program did "
			"nothing after it exec'd %s (the %llu events before, of "
			"its start-up, are left out)\n", prog, by,
			parse_printable(shown, sizeof(shown), x->c.exe),
			(unsigned long long)x->c.dropped);
	else if (x->c.follow_fork && x->c.pid < 0)
		fprintf(stderr, "%s: record: nothing recorded%s: the command made "
			"%d process%s, not %d (--follow fork:N counts each "
			"fork, vfork or clone of a process, threads not)\n", prog,
			by, x->c.forks, x->c.forks == 1 ? "" : "es",
			x->c.follow_fork);
	else if (x->c.follow_comm[0] && x->c.pid < 0)
		fprintf(stderr, "%s: record: nothing recorded%s: no process "
			"exec'd %s (%d others ran: --follow takes the name of "
			"one, as vmsim record names them without it)\n", prog,
			by, x->c.follow_comm, x->c.nothers);
	else
		fprintf(stderr, "%s: record: nothing recorded%s: perf's data "
			"holds no event of the program%s\n", prog, by,
			x->c.other_pid ? " (only of other processes)" : "");
}

int record_convert(const struct record_job *j, struct record_out *o)
{
	struct conv_ctx *x;
	char where[PATH_MAX + 64], note[PATH_MAX + 256];
	int ret, sret;

	if (nothing_recorded(j))
		return -1;
	if (!(x = calloc(1, sizeof(*x)))) {
		fprintf(stderr, "%s: record: out of memory\n", prog);
		return -1;
	}
	x->j = j;
	ret = sf_emit(&o->trace, conv_emit, x);
	if (ret < 0) {
		tell_failure(o, x, ret);
		perf_conv_fini(&x->c);
		free(x);
		return -1;
	}
	if (!x->w.nevents) {
		tell_empty(x);
		sf_abort(&o->trace);
		perf_conv_fini(&x->c);
		free(x);
		return -1;
	}
	ret = sf_commit(&o->trace, !x->c.cut, where, sizeof(where), note,
			sizeof(note));
	if (ret < 0) {
		fprintf(stderr, "%s: record: %s\n", prog, note);
		perf_conv_fini(&x->c);
		free(x);
		return -1;
	}
	if (ret)
		fprintf(stderr, "%s: record: %s\n", prog, note);
	tell_status(j);
	if (x->c.cut)
		fprintf(stderr, "%s: record: converting stopped by %s: the trace "
			"holds the first %llu events of the recording\n", prog,
			x->c.cut_by == SIGALRM ? "its deadline (perf script "
			"ended: --convert-timeout)" : sig_name(x->c.cut_by),
			(unsigned long long)x->w.nevents);
	/* The side file goes beside the trace where it landed: x-2.trace
	 * (another record took x.trace meanwhile) gets its own
	 * x-2.trace.mmap_lock.json, not a refusal at x's. */
	if (ret && o->side[0] &&
	    (size_t)snprintf(o->side, sizeof(o->side), "%s.mmap_lock.json",
			     where) >= sizeof(o->side)) {
		fprintf(stderr, "%s: record: no side file beside the trace: its "
			"name would be too long\n", prog);
		o->side[0] = 0;
	}
	if (check_back(where, &x->c))
		ret = -1;
	else if (o->side[0] && perf_conv_traced(&x->c) &&
		 (sret = report_host_lock(o, &x->c)) != 0 && !ret)
		ret = sret < 0 ? 1 : sret;
	perf_conv_fini(&x->c);
	free(x);
	return ret;
}
