/* SPDX-License-Identifier: MIT */
/*
 * The harness's own ceiling (vmsim bench scale, and vmsim run's check
 * before a run of several task counts): pft under the `none` scheme — no
 * lock, so nothing of any scheme — at the run's task counts, with its
 * fault source, mode, uffd layout, handler placement and pinning, and
 * how far each count's fault rate is from linear scaling of the 1-task
 * rate. Where the harness itself does not scale, a scheme's difference at
 * that count says as much about vmsim as about the scheme (on a 2-vCPU VM
 * a shared uffd ran 2 tasks at 0.53x of 1 and hid every scheme).
 *
 * Left out on purpose: the simulated components (--frames, --slab,
 * --hold-extra, --vma-free) — they are the model under test, not the
 * harness.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "base/stats.h"
#include "cli/run.h"
#include "locks/lock_ops.h"

/* pft's region: 16 MiB a task (threads share one region, split). */
#define CEIL_MEM_PER_TASK (16UL << 20)

static int by_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The counts to measure: 1 (the reference) and the run's, sorted. */
static int ceiling_tasks(const struct run_cfg *c, int *t)
{
	int n = 0;
	bool one = false;

	for (int i = 0; i < c->ntasklist; i++)
		one |= c->tasks[i] == 1;
	if (!one && c->ntasklist < RUNNER_MAX_TASKLIST)
		t[n++] = 1;
	for (int i = 0; i < c->ntasklist && n < RUNNER_MAX_TASKLIST; i++)
		t[n++] = c->tasks[i];
	qsort(t, (size_t)n, sizeof(*t), by_int);
	return n;
}

size_t run_ceiling_mem(const struct run_cfg *c)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int most = runner_max_tasks(c);
	/* Threads share one region: 16 MiB for each task a CPU can run. */
	size_t mem = CEIL_MEM_PER_TASK * (c->processes ? 1 :
		(size_t)(most < ncpus || ncpus < 1 ? most : ncpus));

	while (mem > CEIL_MEM_PER_TASK && mem > c->mm.arena_size / 2)
		mem /= 2;
	return mem;
}

int run_ceiling_measure(const struct run_cfg *c, int rounds,
			size_t mem, struct run_ceiling *out, char *err,
			size_t errlen)
{
	struct run_cfg h = *c;
	struct res_file r = { 0 };
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int ret;

	memset(out, 0, sizeof(*out));
	h.wl = &pft_workload;
	h.targets[0] = (struct run_target){ .lock = &none_lock_ops,
					    .slab = SLAB_MALLOC,
					    .rcu_free = c->targets[0].rcu_free };
	h.ntargets = 1;
	h.vary = RUN_VARY_SCHEME;
	h.mm.lock = &none_lock_ops;
	h.frames = FRAMES_NONE;
	h.mm.hold_extra_ns = 0;
	/* How VMAs are freed is the model's too, and none takes only its
	 * own way (a recorded --vma-free typesafe, put back by rerun, made
	 * the check fail and the result lose its harness_efficiency). */
	h.mm.vma_free = SIM_VMA_FREE_SCHEME;
	h.trace = h.replay_log = NULL;
	h.wo.replay = NULL;
	h.host_lock = (struct res_host_lock){ 0 };
	h.wo.writers = 0;
	h.wo.iterations = rounds;
	h.wo.warmup = 1;
	h.min_sample_ms = c->min_sample_ms > 0 ? c->min_sample_ms : 200;
	h.passes = 0;
	h.progress = false;
	h.ntasklist = ceiling_tasks(c, h.tasks);
	h.wo.mem = mem ? mem : run_ceiling_mem(&h);
	ret = runner_run(&h, &r, err, errlen);
	for (int i = 0; i < r.npoints && i < RUNNER_MAX_TASKLIST; i++) {
		const struct res_point *p = &r.points[i];

		if (!p->nsamples)
			continue;
		out->tasks[out->n] = p->tasks;
		/* A ceiling: what the harness reaches, so the best half of
		 * the samples (BHmean-50; noise only ever slows a sample). */
		out->rate[out->n] = stats_best_mean(p->samples[0],
						    (size_t)p->nsamples, 50, true);
		out->cv[out->n] = p->nsamples > 1 ?
			stats_stddev(p->samples[0], (size_t)p->nsamples) /
			stats_amean(p->samples[0], (size_t)p->nsamples) : NAN;
		out->n++;
	}
	for (int i = 0; i < out->n; i++) {
		/* Linear up to the CPUs: past them, tasks share CPUs. */
		double ideal = out->rate[0] * (double)(out->tasks[i] < ncpus ?
						       out->tasks[i] : ncpus);

		out->eff[i] = out->tasks[0] == 1 && ideal > 0 ?
			      out->rate[i] / ideal : NAN;
	}
	res_file_free(&r);
	return ret;
}

double run_ceiling_eff(const struct run_ceiling *h, int tasks)
{
	for (int i = 0; h && i < h->n; i++)
		if (h->tasks[i] == tasks)
			return h->eff[i];
	return NAN;
}

void run_ceiling_print(FILE *f, const struct run_ceiling *h)
{
	fprintf(f, "%-7s %16s %10s %12s\n", "tasks", "BHmean-50 f/sec",
		"CoeffVar", "efficiency");
	for (int i = 0; i < h->n; i++)
		fprintf(f, "%-7d %16.1f %9.2f%% %11.2fx\n", h->tasks[i],
			h->rate[i], 100 * h->cv[i], h->eff[i]);
}

int run_ceiling_warn(FILE *f, const struct run_ceiling *h, const int *tasks,
		     int ntasks)
{
	int n = 0;

	for (int i = 0; i < ntasks; i++) {
		double e = run_ceiling_eff(h, tasks[i]);

		if (tasks[i] < 2 || isnan(e) || e >= RUN_CEILING_MIN_EFF)
			continue;
		fprintf(f, "%s: warning: at %d tasks the harness itself runs at "
			"%.2fx of linear (pft under the none scheme, this run's "
			"fault source and options): differences at %d tasks "
			"include vmsim's own limits (vmsim bench scale)\n",
			prog, tasks[i], e, tasks[i]);
		n++;
	}
	return n;
}
