/* SPDX-License-Identifier: MIT */
/*
 * The replay workload's options (--trace, --speed, --replay-log) and its
 * plan: read before the run, so that a bad trace is one line and exit 2
 * before anything starts, and the run's task count is the trace's
 * thread count.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/run.h"
#include "util/parse.h"
#include "workloads/replay.h"

int run_replay_opt(struct run_cfg *c, int which, const char *arg)
{
	char *end;

	switch (which) {
	case 0:
		c->trace = arg;
		return 0;
	case 1:
		if (!strcmp(arg, "asap")) {
			c->speed = 0;
			return 0;
		}
		if (!strcmp(arg, "recorded")) {
			c->speed = 1;
			return 0;
		}
		c->speed = strtod(arg, &end);
		if (*end || end == arg || !(c->speed >= 0.001 && c->speed <= 1e6))
			return bad("bad --speed '%s': want asap, recorded, or a "
				   "factor from 0.001 to 1000000", arg);
		return 0;
	default:
		c->replay_log = arg;
		return 0;
	}
}

int run_replay_settle(struct run_cfg *c, bool tasks_given)
{
	struct rp_plan *p;
	char err[600], shown[256];

	if (!c->trace)
		return bad("%s", "workload 'replay' needs --trace FILE (made by "
			   "vmsim record)");
	if (c->processes)
		return bad("%s", "workload 'replay' runs in --mode threads: a "
			   "trace is one address space");
	if (rp_plan_load(c->trace, &p, err, sizeof(err))) {
		fprintf(stderr, "%s: trace %s: %s\n", prog,
			printable(shown, sizeof(shown), c->trace), err);
		return EXIT_USAGE;
	}
	if (tasks_given && (c->ntasklist != 1 || c->tasks[0] != p->nthreads)) {
		fprintf(stderr, "%s: the trace has %d threads: replay runs one "
			"task each (drop -t)\n", prog, p->nthreads);
		rp_plan_free(p);
		return EXIT_USAGE;
	}
	if (p->arena_need > c->mm.arena_size) {
		fprintf(stderr, "%s: trace %s: its mappings need %.1f GiB of "
			"arena after collapsing gaps; --arena is %.1f GiB\n",
			prog, printable(shown, sizeof(shown), c->trace),
			p->arena_need / 1073741824.0,
			c->mm.arena_size / 1073741824.0);
		rp_plan_free(p);
		return EXIT_USAGE;
	}
	p->speed = c->speed;
	p->log = c->replay_log;
	c->tasks[0] = p->nthreads;
	c->ntasklist = 1;
	c->wo.replay = p;
	return 0;
}

void run_replay_print(const struct run_cfg *c)
{
	const struct rp_plan *p = c->wo.replay;

	printf("replay %s (%s): %d thread%s, %llu events: %llu faults and "
	       "%llu calls; not replayed: %llu calls that failed when "
	       "recorded, %llu events outside any mapping the trace made, "
	       "%llu madvise of advice vmsim does not model, %llu spanning a "
	       "collapsed gap; arena %.1f MiB in %d cluster%s\n",
	       c->trace, p->comment[0] ? p->comment : "?", p->nthreads,
	       p->nthreads == 1 ? "" : "s",
	       (unsigned long long)p->events, (unsigned long long)p->faults,
	       (unsigned long long)p->calls,
	       (unsigned long long)p->skipped[RP_SKIP_FAILED],
	       (unsigned long long)p->skipped[RP_SKIP_NEVER_MAPPED],
	       (unsigned long long)p->skipped[RP_SKIP_ADVICE],
	       (unsigned long long)p->skipped[RP_SKIP_SPLIT],
	       p->arena_need / 1048576.0, p->ncl, p->ncl == 1 ? "" : "s");
}

void run_replay_done(struct run_cfg *c)
{
	struct rp_plan *p = c->wo.replay;

	if (!p)
		return;
	if (p->diverged)
		fprintf(stderr, "%s: replay: %llu calls the recording made were "
			"refused by the simulation (summed over iterations)\n",
			prog, (unsigned long long)p->diverged);
	rp_plan_free(p);
	c->wo.replay = NULL;
}
