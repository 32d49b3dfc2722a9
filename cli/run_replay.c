/* SPDX-License-Identifier: MIT */
/*
 * The replay workload's options (--trace, --speed, --replay-log) and its
 * plan: read before the run, so that a bad trace is one line and exit 2
 * before anything starts, and the run's task count is the trace's
 * thread count.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/cmd.h"
#include "cli/run.h"
#include "base/safefile.h"
#include "base/parse.h"
#include "workloads/replay.h"
#include "trace/perf_conv.h"

int run_replay_opt(struct run_cfg *c, enum run_opt_id which, const char *arg)
{
	char *end;

	switch (which) {
	case RUN_O_TRACE:
		c->trace = arg;
		return 0;
	case RUN_O_SPEED:
		if (!strcmp(arg, "asap")) {
			c->speed = 0;
			return 0;
		}
		c->speed_given = true;
		if (!strcmp(arg, "recorded")) {
			c->speed = 1;
			return 0;
		}
		c->speed = strtod(arg, &end);
		if (*end || end == arg || !(c->speed >= 0.001 && c->speed <= 1e6))
			return cli_bad("bad --speed '%s': want asap, recorded, or a "
				   "factor from 0.001 to 1000000", arg);
		return 0;
	case RUN_O_REPLAY_LOG:
		c->replay_log = arg;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

/* A replay log (--force replaces only one). */
static bool is_replay_log(int fd)
{
	char head[sizeof(RP_LOG_HEADER)];

	return sf_head(fd, head, sizeof(head)) == sizeof(head) - 1 &&
	       !memcmp(head, RP_LOG_HEADER, sizeof(head) - 1);
}

/* The check mode writes its log through here: the safe-write layer's
 * emit (under $TMPDIR if the file's own place fails). */
static int log_emit(void *out, int (*fn)(FILE *f, void *arg), void *arg)
{
	return sf_emit(out, fn, arg);
}

/* --replay-log's file, checked and claimed before the run. */
static int open_log(struct run_cfg *c, struct rp_plan *p, bool force)
{
	struct sf_out *log;
	const char *const inputs[] = { c->trace, NULL };
	const struct sf_spec spec = { .what = "replay log", .force = force,
				      .ours = is_replay_log, .inputs = inputs };
	char err[PATH_MAX + 256];

	if (!c->replay_log)
		return 0;
	log = calloc(1, sizeof(*log));
	if (!log)
		return fprintf(stderr, "%s: out of memory\n", prog), EXIT_USAGE;
	if (sf_open(log, c->replay_log, &spec, err, sizeof(err))) {
		free(log);
		return fprintf(stderr, "%s: --replay-log: %s\n", prog, err),
		       EXIT_USAGE;
	}
	p->log_out = log;
	p->log_emit = log_emit;
	return 0;
}

/* side.<key>, a count >= 0, into *v; false if it is not one. */
static bool host_count(json_object *side, const char *key, uint64_t *v)
{
	json_object *o;

	if (!json_object_object_get_ex(side, key, &o) ||
	    !json_object_is_type(o, json_type_int) || json_object_get_int64(o) < 0)
		return false;
	*v = json_object_get_uint64(o);
	return true;
}

/* Version 2's causes and replayable part (a version 1 file has none:
 * then the replay is set against the host's whole count, as before). */
static bool host_causes(json_object *j, struct res_host_lock *h)
{
	json_object *c, *rep, *o;

	_Static_assert(PC_NCAUSES <= RES_HOST_CAUSES, "RES_HOST_CAUSES");
	if (!json_object_object_get_ex(j, "causes", &c) ||
	    !json_object_object_get_ex(j, "replayable", &rep))
		return true;
	if (!host_count(rep, "read", &h->replayable[0]) ||
	    !host_count(rep, "write", &h->replayable[1]))
		return false;
	for (int k = 0; k < PC_NCAUSES; k++) {
		if (!json_object_object_get_ex(c, perf_conv_cause_names[k], &o))
			continue;            /* a cause a newer record added */
		if (!host_count(o, "read", &h->cause[k][0]) ||
		    !host_count(o, "write", &h->cause[k][1]))
			return false;
	}
	return h->have_causes = true;
}

static bool host_sides(json_object *j, struct res_host_lock *h)
{
	static const char *const side[LS_NSIDES] = { "read", "write" };
	json_object *o;

	if (!json_object_object_get_ex(j, "vmsim_mmap_lock", &o))
		return false;
	for (int s = 0; s < LS_NSIDES; s++)
		if (!json_object_object_get_ex(j, side[s], &o) ||
		    !host_count(o, "acquired", &h->acquired[s]) ||
		    !host_count(o, "trylock_failed", &h->failed[s]) ||
		    !host_count(o, "wait_ns", &h->wait_ns[s]) ||
		    !host_count(o, "hold_ns", &h->hold_ns[s]))
			return false;
	if (!host_causes(j, h))
		return false;
	return h->have = true;
}

/* The thread that waited the most of its run, where the file has them
 * (record since issue 64). */
static void host_threads(json_object *j, struct res_host_lock *h)
{
	json_object *a, *t, *o, *ws;
	uint64_t run, w[2], longest = 0;

	if (!json_object_object_get_ex(j, "threads", &a) ||
	    !json_object_is_type(a, json_type_array))
		return;
	/* As record ranks them: of the threads that ran 1% of the longest. */
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (host_count(json_object_array_get_idx(a, i), "run_ns", &run) &&
		    run > longest)
			longest = run;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		t = json_object_array_get_idx(a, i);
		if (!json_object_object_get_ex(t, "wait_ns", &ws) ||
		    !host_count(t, "run_ns", &run) || !run || run < longest / 100 ||
		    !host_count(ws, "read", &w[0]) || !host_count(ws, "write", &w[1]) ||
		    !json_object_object_get_ex(t, "tid", &o))
			continue;
		double share = (double)(w[0] + w[1]) / (double)run;

		if (!h->have_threads || share > h->worst_share) {
			h->have_threads = true;
			h->worst_share = share;
			h->worst_tid = (uint32_t)json_object_get_int64(o);
			h->worst_run_ns = run;
		}
	}
}

/* TRACE.mmap_lock.json, if vmsim record left one beside the trace: the
 * host kernel's own mmap_lock in that recording, the reference the
 * replay's per-iteration acquisitions are shown against. Absent: said
 * nothing; unreadable or not vmsim's: one warning, and no reference. */
int run_host_lock_read(const char *trace, struct res_host_lock *h,
		       char *path, size_t plen, const char **whyp)
{
	const char *why = NULL;
	json_object *j = NULL;
	struct stat st;
	int fd;

	memset(h, 0, sizeof(*h));
	if (snprintf(path, plen, "%s.mmap_lock.json", trace) >= (int)plen)
		return 1;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			why = strerror(errno);
	} else if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		why = "not a regular file";
	} else if (st.st_size > RUN_HOST_LOCK_MAX) {
		/* A thread a line, at most TRACE_MAX_THREADS: a few MiB. */
		why = "too large for a lock file";
	} else {
		j = json_object_from_fd(fd);
		if (!j || !host_sides(j, h))
			why = "not a vmsim record lock file";
		else
			host_threads(j, h);
	}
	if (fd >= 0)
		close(fd);
	json_object_put(j);
	*whyp = why;
	if (why)
		memset(h, 0, sizeof(*h));
	return why ? -1 : h->have ? 0 : 1;
}

static void load_host_lock(struct run_cfg *c)
{
	char path[PATH_MAX], shown[256];
	const char *why = NULL;

	if (run_host_lock_read(c->trace, &c->host_lock, path, sizeof(path),
			       &why) < 0)
		fprintf(stderr, "%s: warning: %s: %s; the replay is shown without "
			"the host's own mmap_lock\n", prog,
			parse_printable(shown, sizeof(shown), path), why);
}

/* Most of a trace (or all of it) not replayed: said, with why; refused
 * (EXIT_USAGE) where nothing is left, or where most of its events lie
 * outside every mapping it knows (a -p attach to a running program: its
 * mappings made before): what is left is not the program. */
static int replay_skipped(const struct run_cfg *c, const struct rp_plan *p)
{
	char shown[256];

	if (p->skipped[RP_DO] * 2 < p->events) {
		bool unknown = p->skipped[RP_SKIP_NEVER_MAPPED] * 2 > p->events;
		bool none = !p->skipped[RP_DO];

		if (unknown) {
			fprintf(stderr, "%s: trace %s: %llu of its %llu events lie "
				"outside any mapping it made (made before the "
				"recording began, as with -p): not the program; "
				"record it from its start\n", prog,
				parse_printable(shown, sizeof(shown), c->trace),
				(unsigned long long)p->skipped[RP_SKIP_NEVER_MAPPED],
				(unsigned long long)p->events);
			return EXIT_USAGE;
		}
		fprintf(stderr, "%s: %strace %s: %s %llu of its %llu events "
			"can be replayed (%llu calls failed when recorded, %llu "
			"events outside any mapping it made, %llu madvise of "
			"advice vmsim does not model, %llu spanning a collapsed "
			"gap)\n", prog, none ? "" : "warning: ",
			parse_printable(shown, sizeof(shown), c->trace),
			none ? "nothing to replay:" : "only",
			(unsigned long long)p->skipped[RP_DO],
			(unsigned long long)p->events,
			(unsigned long long)p->skipped[RP_SKIP_FAILED],
			(unsigned long long)p->skipped[RP_SKIP_NEVER_MAPPED],
			(unsigned long long)p->skipped[RP_SKIP_ADVICE],
			(unsigned long long)p->skipped[RP_SKIP_SPLIT]);
		if (none)
			return EXIT_USAGE;
	}
	return 0;
}

int run_replay_settle(struct run_cfg *c, bool tasks_given, bool arena_given,
		      bool force)
{
	struct rp_plan *p;
	char err[600], shown[256];

	if (!c->trace)
		return cli_bad("%s", "workload 'replay' needs --trace FILE (made by "
			   "vmsim record)");
	if (c->processes)
		return cli_bad("%s", "workload 'replay' runs in --mode threads: a "
			   "trace is one address space");
	if (rp_plan_load(c->trace, &p, err, sizeof(err))) {
		fprintf(stderr, "%s: trace %s: %s\n", prog,
			parse_printable(shown, sizeof(shown), c->trace), err);
		return EXIT_USAGE;
	}
	if (replay_skipped(c, p)) {
		rp_plan_free(p);
		return EXIT_USAGE;
	}
	if (tasks_given && (c->ntasklist != 1 || c->tasks[0] != p->nthreads)) {
		fprintf(stderr, "%s: the trace has %d threads: replay runs one "
			"task each (drop -t)\n", prog, p->nthreads);
		rp_plan_free(p);
		return EXIT_USAGE;
	}
	/* Sized to the trace where --arena was not given: the arena is
	 * address space reserved, not memory. */
	if (p->arena_need > c->mm.arena_size && !arena_given) {
		unsigned long step = 64UL << 20;

		c->mm.arena_size = (p->arena_need + step - 1) / step * step;
	}
	if (p->arena_need > c->mm.arena_size) {
		char need[32], have[32];

		fprintf(stderr, "%s: trace %s: its mappings need %s of arena "
			"after collapsing gaps; --arena is %s (give --arena "
			"%lluM or more)\n", prog,
			parse_printable(shown, sizeof(shown), c->trace),
			parse_size_str(need, sizeof(need), p->arena_need),
			parse_size_str(have, sizeof(have), c->mm.arena_size),
			(unsigned long long)((p->arena_need + (1 << 20) - 1) >> 20));
		rp_plan_free(p);
		return EXIT_USAGE;
	}
	if (open_log(c, p, force)) {
		rp_plan_free(p);
		return EXIT_USAGE;
	}
	load_host_lock(c);
	c->host_lock.span_ns = p->span_ns;
	/* The check mode runs events one at a time, in turn: a check, not
	 * a measurement, and no pace to keep unless --speed asks for one
	 * (then the log's times show each event's against its recording). */
	p->speed = c->replay_log && !c->speed_given ? 0 : c->speed;
	c->tasks[0] = p->nthreads;
	c->ntasklist = 1;
	c->wo.replay = p;
	return 0;
}

void run_replay_print(const struct run_cfg *c)
{
	const struct rp_plan *p = c->wo.replay;
	char path[PATH_MAX], cmd[200];

	printf("replay %s (%s): %d thread%s, %llu events: %llu faults and "
	       "%llu calls; not replayed: %llu calls that failed when "
	       "recorded, %llu events outside any mapping the trace made, "
	       "%llu madvise of advice vmsim does not model, %llu spanning a "
	       "collapsed gap; arena %.1f MiB in %d cluster%s\n",
	       parse_printable(path, sizeof(path), c->trace),
	       p->comment[0] ? parse_printable_words(cmd, sizeof(cmd), p->comment)
			     : "?", p->nthreads,
	       PLURAL(p->nthreads),
	       (unsigned long long)p->events, (unsigned long long)p->faults,
	       (unsigned long long)p->calls,
	       (unsigned long long)p->skipped[RP_SKIP_FAILED],
	       (unsigned long long)p->skipped[RP_SKIP_NEVER_MAPPED],
	       (unsigned long long)p->skipped[RP_SKIP_ADVICE],
	       (unsigned long long)p->skipped[RP_SKIP_SPLIT],
	       p->arena_need / 1048576.0, p->ncl, PLURAL(p->ncl));
	run_replay_print_pace(c);
	run_replay_print_bound(c);
}

void run_replay_print_pace(const struct run_cfg *c)
{
	const struct rp_plan *p = c->wo.replay;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double span = (double)p->span_ns / 1e9;

	if (p->speed == 1)
		printf("pace: as recorded, each thread's events at their "
		       "recorded times in its order (%.3f s a pass)\n", span);
	else if (p->speed > 0)
		printf("pace: the recorded times divided by %g (%.3f s a pass "
		       "at least)\n", p->speed, span / p->speed);
	else
		printf("pace: asap, each thread's events as fast as the model "
		       "goes (recorded: %.3f s a pass)\n", span);
	if (p->speed != 1 && !c->replay_log && cpus > 0 && p->nthreads > cpus)
		printf("warning: %d recorded threads on %ld CPUs, paced faster "
		       "than recorded: threads that took turns with others' "
		       "pauses now take turns with each other (--speed recorded "
		       "keeps the program's overlap)\n", p->nthreads, cpus);
}

/* The bound a recording puts on every scheme: a scheme changes how long
 * threads wait for the mm lock, not the program's work, so the wall time
 * it could save is at most what the threads waited (all of them, summed:
 * an overestimate where they waited at once). */
void run_replay_print_bound(const struct run_cfg *c)
{
	const struct res_host_lock *h = &c->host_lock;
	const struct rp_plan *p = c->wo.replay;
	double span = (double)p->span_ns / 1e9, w[LS_NSIDES];

	if (!h->have || !(span > 0))
		return;
	for (int s = 0; s < LS_NSIDES; s++)
		w[s] = (double)h->wait_ns[s] / 1e9;
	printf("the most a lock scheme could give it: its threads waited %.3f ms "
	       "on the host's mmap_lock (read %.3f, write %.3f) in its %.3f s: "
	       "at most %.2f%% of its time", 1e3 * (w[0] + w[1]), 1e3 * w[0],
	       1e3 * w[1], span, 100 * (w[0] + w[1]) / span);
	if (h->have_threads)
		printf("; the thread that waited most of its run, tid %u: %.2f%% "
		       "of its %.3f s", h->worst_tid, 100 * h->worst_share,
		       (double)h->worst_run_ns / 1e9);
	printf("\n");
}

/* The mean of metric m's samples of point k of r (NaN: none). */
static double point_mean(const struct res_file *r, int m, int k)
{
	const struct res_point *pt = &r->points[k];
	double s = 0;

	if (m < 0 || !pt->nsamples)
		return NAN;
	for (int i = 0; i < pt->nsamples; i++)
		s += pt->samples[m][i];
	return s / pt->nsamples;
}

void run_replay_pace_report(const struct run_cfg *c, const struct res_file *r,
			    int n)
{
	const struct rp_plan *p = c->wo.replay;
	double span = p ? (double)p->span_ns / 1e9 : 0;
	bool head = false;
	double densest = 0;

	if (!p || c->replay_log || !(span > 0) || !p->events)
		return;
	for (int i = 0; i < n; i++) {
		int m = -1;

		for (int k = 0; k < r[i].nmetrics; k++)
			if (!strcmp(r[i].metrics[k].name, "time"))
				m = k;
		if (!r[i].npoints || m < 0)
			continue;
		double t = point_mean(&r[i], m, 0);

		if (!(t > 0))
			continue;
		if (!head)
			printf("pace: the program ran its %llu events in %.3f s "
			       "(%.1f us an event); a pass took", (unsigned long long)
			       p->events, span, 1e6 * span / (double)p->events);
		/* Paced, a pass's time is the pace; what the model spends is
		 * its fault's time (a touch that faulted, mean). */
		printf("%s %s %.3f s (%s", head ? "," : "",
		       r[i].label ? r[i].label : r[i].scheme, t, p->speed > 0 ?
		       (t > 1.05 * span / p->speed ? "behind the pace" :
			"kept the pace") : "");
		if (p->speed == 0)
			printf("%.1f us an event", 1e6 * t / (double)p->events);
		if (r[i].points[0].lat && r[i].points[0].lat->count)
			printf("; a touch %.2f us", (double)r[i].points[0].lat->sum_ns /
			       (double)r[i].points[0].lat->count / 1e3);
		printf(")");
		head = true;
		densest = fmax(densest, span / t);
	}
	if (head)
		printf("\n");
	if (p->speed == 0 && densest >= 2)
		printf("warning: asap ran the recording up to %.0fx denser than the "
		       "program did: its threads overlap here where they did not "
		       "when recorded, and contend as the program never did "
		       "(--speed recorded keeps its pace)\n", densest);
}

int run_replay_publish(struct run_cfg *c, bool complete)
{
	struct rp_plan *p = c->wo.replay;
	char where[PATH_MAX + 64], note[PATH_MAX + 256];
	int ret;

	struct sf_out *log = p ? p->log_out : NULL;

	if (!log)
		return 0;
	if (p->log_err < 0) {
		fprintf(stderr, "%s: --replay-log: cannot write '%s' nor a file "
			"under $TMPDIR: %s\n", prog, log->shown,
			strerror(-p->log_err));
		return p->log_err;
	}
	ret = sf_commit(log, complete, where, sizeof(where), note,
			sizeof(note));
	if (ret)
		fprintf(stderr, "%s: --replay-log: %s\n", prog, note);
	if (ret >= 0)
		printf("replay log written to %s%s\n", parse_printable(note,
		       sizeof(note), where), complete ? "" : " (incomplete)");
	return ret > 0 ? -EEXIST : ret;
}

void run_replay_done(struct run_cfg *c)
{
	struct rp_plan *p = c->wo.replay;

	if (!p)
		return;
	if (p->log_out) {
		sf_abort(p->log_out);
		free(p->log_out);
		p->log_out = NULL;
	}
	if (p->diverged)
		fprintf(stderr, "%s: replay: %llu calls the recording made were "
			"refused by the simulation (summed over iterations)\n",
			prog, (unsigned long long)p->diverged);
	rp_plan_free(p);
	c->wo.replay = NULL;
}
