/* SPDX-License-Identifier: MIT */
/*
 * runner — runs a workload over a list of task counts and collects
 * samples. For each task count it creates a group per scheme (agents,
 * simulated mms, persistent task threads: group.h); per iteration it
 * opens the gate, samples (loop workloads) or waits for the tasks, stops
 * them and reads what they measured. Schemes' iterations are interleaved
 * in rotating order, so that each comparison is measured side by side on
 * a machine whose speed drifts.
 */
#include "workloads/runner.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "sim/faults/sources.h"
#include "base/slots.h"
#include "sim/host.h"
#include "workloads/group.h"
#include "base/clock.h"

const char *const runner_handler_cpu_names[HANDLER_CPU_N] = {
	[HANDLER_CPU_ANY] = "any", [HANDLER_CPU_SAME] = "same",
	[HANDLER_CPU_OTHER] = "other",
};
const char *const runner_uffd_split_names[UFFD_SPLIT_N] = {
	[UFFD_SPLIT_AUTO] = "auto", [UFFD_SPLIT_SHARED] = "shared",
	[UFFD_SPLIT_PER_TASK] = "per-task",
};

/*
 * The run's interrupt word: a signal number, or -1 when the watchdog (or
 * a dead task) stopped the run. It lives in shared memory so that forked
 * agents see it; runner_interrupt() is called from a signal handler and
 * finds it through this pointer (a fallback word between runs).
 */
static _Atomic int interrupt_idle;
static _Atomic(_Atomic int *) interrupt_word = &interrupt_idle;

void runner_interrupt(int sig)
{
	int zero = 0;

	/* The first reason wins; async-signal-safe (a lock-free CAS). */
	atomic_compare_exchange_strong(atomic_load(&interrupt_word), &zero, sig);
}

int runner_interrupted(void)
{
	return atomic_load(atomic_load(&interrupt_word));
}

void runner_clear_interrupt(void)
{
	atomic_store(atomic_load(&interrupt_word), 0);
}

/* SIGCONTs received: a sample during which this changes was taken while
 * vmsim was stopped (SIGSTOP, or Ctrl-Z's SIGTSTP), and its wall time
 * holds the stop. */
static _Atomic unsigned long conts;

static void on_cont(int sig)
{
	(void)sig;
	atomic_fetch_add(&conts, 1);
}

/* Sleep until the absolute time next, looking every 20 ms for an
 * interrupt or a dead task process. */
static int sleep_until(struct group *g, const struct timespec *next,
		       char *err, size_t errlen)
{
	for (;;) {
		struct timespec now, step;
		int ret = group_check(g, err, errlen);

		if (ret || runner_interrupted())
			return ret;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next->tv_sec ||
		    (now.tv_sec == next->tv_sec && now.tv_nsec >= next->tv_nsec))
			return 0;
		step = now;
		step.tv_nsec += 20 * 1000 * 1000;
		if (step.tv_nsec >= 1000000000L) {
			step.tv_nsec -= 1000000000L;
			step.tv_sec++;
		}
		if (step.tv_sec > next->tv_sec ||
		    (step.tv_sec == next->tv_sec && step.tv_nsec > next->tv_nsec))
			step = *next;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &step, NULL);
	}
}

/* will-it-scale sampling: every --interval the tasks' summed ops; the
 * first --warmup samples are dropped, then --duration rates (ops per
 * second) are kept in it->rates (room for --duration). */
static int sample_loop(const struct run_cfg *c, struct group *g,
		       struct wl_iter *it, char *err, size_t errlen)
{
	int total = c->wo.warmup + c->wo.duration;
	struct timespec next;
	uint64_t prev, cur;
	double tprev, t;

	clock_gettime(CLOCK_MONOTONIC, &next);
	tprev = (double)mono_ns() / 1e9;
	prev = group_ops(g);
	for (int s = 0; s < total; s++) {
		unsigned long c0 = atomic_load(&conts);

		next.tv_nsec += (long)c->wo.interval_ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		int ret = sleep_until(g, &next, err, errlen);

		if (ret || runner_interrupted())
			return ret;
		cur = group_ops(g);
		t = (double)mono_ns() / 1e9;
		if (s >= c->wo.warmup) {
			it->rate_wall[it->nrates] = t - tprev;
			it->rate_flag[it->nrates] =
				atomic_load(&conts) != c0 ? RES_FLAG_STOPPED :
				t - tprev > 1.5e-3 * c->wo.interval_ms ?
				RES_FLAG_OVERSLEPT : RES_FLAG_NONE;
			it->rates[it->nrates++] = (double)(cur - prev) / (t - tprev);
		}
		prev = cur;
		tprev = t;
	}
	return 0;
}

/*
 * The machine over the timed phase (from the gate's opening to the
 * tasks' end): the share of all CPUs stolen; the CPUs vmsim itself kept
 * busy (this process and its task processes, all threads: the tasks,
 * handlers, writers, and what the kernel did for them, the tasks' exit
 * included) and the CPUs everything else did (busy time minus vmsim's,
 * over the wall time), both in /proc/stat's ticks so that one subtracts
 * from the other; vmsim's involuntary switches a second. Where vmsim's
 * own time cannot be read, the tasks', handlers' and writers' clocks
 * stand in (they leave out the process's other threads).
 */
static void note_noise(const struct host_cpustat *a, const struct host_cpustat *b,
		       double own_a, double own_b, double wall,
		       const struct wl_iter *it, struct res_noise *z)
{
	double own;

	*z = (struct res_noise){ NAN, NAN, NAN, NAN };
	if (wall <= 0)
		return;
	z->ivcsw = (double)it->ivcsw / wall;
	if (!a->ok || !b->ok || a->ncpus <= 0)
		return;
	own = isfinite(own_a) && isfinite(own_b) && own_b >= own_a ?
	      own_b - own_a : it->cpu + it->bg_cpu + it->handler;
	z->steal = (b->steal - a->steal) / (wall * a->ncpus);
	z->own = own / wall;
	/* Left unclamped: a pass can be a tick or two (10 ms) long, and a
	 * tick's rounding either way; its passes' sum is the sample's, and
	 * the sample is clamped (res_point_note). Clamping each pass biased
	 * a 10 ms pass's others up to half a CPU on an idle machine. */
	z->others = ((b->busy - a->busy) - own) / wall;
}

/* One iteration of g; fills it, and p's host section. */
static int run_iteration(const struct run_cfg *c, struct group *g,
			 struct wl_iter *it, struct res_point *p, char *err,
			 size_t errlen)
{
	struct host_vmstat v0, v1;
	struct host_cpustat s0, s1;
	double own0, own1;
	struct wl_iter keep = *it;
	unsigned long c0 = atomic_load(&conts);
	uint64_t t0;
	int ret, ret2;

	memset(it, 0, sizeof(*it));
	it->rates = keep.rates;
	it->rate_wall = keep.rate_wall;
	it->rate_flag = keep.rate_flag;
	host_vmstat_read(&v0);
	ret = group_start(g, err, errlen);
	if (ret)
		return ret;
	host_cpustat_read(&s0);
	own0 = group_cpu(g);
	t0 = mono_ns();
	if (c->wl->loop)
		ret = sample_loop(c, g, it, err, errlen);
	else
		ret = group_wait_foreground(g, err, errlen);
	host_cpustat_read(&s1);
	own1 = group_cpu(g);
	it->noise_wall = (double)(mono_ns() - t0) / 1e9;
	ret2 = group_finish(g, it, p, ret ? NULL : err, ret ? 0 : errlen);
	note_noise(&s0, &s1, own0, own1, it->noise_wall, it, &it->noise);
	host_vmstat_read(&v1);
	host_vmstat_add_delta(&p->vmstat, &v0, &v1);
	it->stopped = atomic_load(&conts) != c0;
	return ret ? ret : ret2;
}

static int add_sample(const struct run_cfg *c, struct res_point *p,
		      const struct wl_iter *it, double wall, double cpu,
		      enum res_flag flag, char *err, size_t errlen)
{
	double v[RES_MAX_METRICS];
	int ret = 0;

	c->wl->report(it, v);
	for (int m = 0; m < c->wl->nmetrics && !ret; m++)
		ret = res_point_add(p, m, v[m]);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	res_point_note(p, wall, cpu, flag, &it->noise);
	p->nsamples++;
	return 0;
}

/* An iteration gives one sample, or (loop workloads) one per second:
 * each reported as that second's ops over an elapsed time of 1 s. */
static int add_samples(const struct run_cfg *c, struct res_point *p,
		       struct wl_iter *it, char *err, size_t errlen)
{
	int ret = 0;

	if (!c->wl->loop)
		return add_sample(c, p, it, it->elapsed, it->cpu + it->handler,
				  it->stopped ? RES_FLAG_STOPPED : RES_FLAG_NONE,
				  err, errlen);
	for (int i = 0; i < it->nrates && !ret; i++) {
		struct wl_iter one = *it;

		one.ops = (uint64_t)it->rates[i];
		one.elapsed = 1.0;
		ret = add_sample(c, p, &one, it->rate_wall[i], NAN,
				 (enum res_flag)it->rate_flag[i], err, errlen);
	}
	return ret;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of x[0..n) (n >= 1), sorting a copy. */
static double median(const double *x, int n)
{
	double c[n];

	memcpy(c, x, sizeof(c));
	qsort(c, (size_t)n, sizeof(double), by_value);
	return n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
}

/*
 * A timed iteration whose wall time is far above the others' while the
 * CPU its tasks (and handlers) got per second of it is far below theirs
 * did not measure the scheme: its tasks were not running — stopped
 * (SIGSTOP to a task process) or starved by something else on the
 * machine. Needs three samples to know what "the others" are.
 */
static void flag_starved(struct res_point *p)
{
	int n = p->nsamples;
	double *f, mw, mf;

	if (n < 3 || !(f = malloc(sizeof(double) * (size_t)n)))
		return;
	for (int i = 0; i < n; i++)
		f[i] = p->wall[i] > 0 ? p->cpu[i] / p->wall[i] : 0;
	mw = median(p->wall, n);
	mf = median(f, n);
	for (int i = 0; i < n; i++)
		if (p->flag[i] == RES_FLAG_NONE && p->wall[i] > 3 * mw &&
		    p->wall[i] > 0 && p->cpu[i] / p->wall[i] < mf / 3)
			p->flag[i] = RES_FLAG_STARVED;
	free(f);
}

/* The progress line: shown once a run has taken 2 s, on a terminal. */
struct progress {
	uint64_t t0;                     /* ns */
	int done, total;                 /* iterations, over all schemes */
};

static void progress_show(const struct run_cfg *c, struct progress *pg,
			  const char *scheme, int n, int i)
{
	double el = (double)(mono_ns() - pg->t0) / 1e9, left;

	if (!c->progress || el < 2.0)
		return;
	left = pg->done ? el / pg->done * (pg->total - pg->done) : 0;
	fprintf(stderr, "\r\033[K%s: %s, tasks %d, iteration %d/%d, %.0f s "
		"elapsed, ~%.0f s left", c->wl->name, scheme, n, i + 1,
		c->wo.iterations, el, left);
}

/* Why an iteration was cut short, if it was: an interrupted iteration
 * is not a sample. */
static int interrupted_ret(char *err, size_t errlen)
{
	int sig = runner_interrupted();

	if (!sig)
		return 0;
	if (sig > 0)
		snprintf(err, errlen, "interrupted by signal %d", sig);
	else
		snprintf(err, errlen, "a fault was not resolved in time (see above)");
	return sig > 0 ? -EINTR : -ETIMEDOUT;
}

int runner_round_order(int n, int i, int k)
{
	int rows = n % 2 ? 2 * n : n, r = i % rows, j = k, first;

	if (n <= 1)
		return 0;
	if (r >= n) {                    /* odd n: the mirrored rows */
		r -= n;
		j = n - 1 - k;
	}
	first = !j ? 0 : j % 2 ? (j + 1) / 2 : n - j / 2;
	return (first + r) % n;
}

/* Fold one pass (one) into a sample's sums (sum). */
static void pass_add(struct wl_iter *sum, const struct wl_iter *one)
{
	double w = sum->noise_wall + one->noise_wall;

	sum->ntasks = one->ntasks;
	sum->elapsed += one->elapsed;
	sum->cpu += one->cpu;
	sum->user += one->user;
	sum->sys += one->sys;
	sum->handler += one->handler;
	sum->ivcsw += one->ivcsw;
	sum->ops += one->ops;
	sum->touches += one->touches;
	sum->host_faults += one->host_faults;
	sum->segv += one->segv;
	sum->bg_ops += one->bg_ops;
	sum->bg_aux += one->bg_aux;
	hist_merge(&sum->bg_lat, &one->bg_lat);
	sum->bg_cpu += one->bg_cpu;
	for (int m = 0; m < RES_MAX_METRICS; m++)
		sum->phase[m] += one->phase[m];
	/* The machine over the sample: each pass's by its length. */
	if (w > 0) {
		double a = sum->noise_wall / w, b = one->noise_wall / w;

		sum->noise.steal = a * (sum->noise_wall > 0 ? sum->noise.steal : 0) +
				   b * one->noise.steal;
		sum->noise.others = a * (sum->noise_wall > 0 ? sum->noise.others : 0) +
				    b * one->noise.others;
		sum->noise.ivcsw = a * (sum->noise_wall > 0 ? sum->noise.ivcsw : 0) +
				   b * one->noise.ivcsw;
		sum->noise.own = a * (sum->noise_wall > 0 ? sum->noise.own : 0) +
				 b * one->noise.own;
	}
	sum->noise_wall = w;
	sum->stopped |= one->stopped;
}

/* Per-pass mean of a count (rounded to nearest). */
static uint64_t count_mean(uint64_t sum, int n)
{
	return (sum + (uint64_t)n / 2) / (uint64_t)n;
}

/* The sums of n passes as their mean: what a sample reports. Every field
 * a report divides by a time is a per-pass figure, counts and times alike:
 * a count left summed over n passes over one pass's elapsed would be n
 * times too high (replay's faults/sec was). */
static void pass_mean(struct wl_iter *it, int n)
{
	if (n <= 1)
		return;
	it->elapsed /= n;
	it->cpu /= n;
	it->user /= n;
	it->sys /= n;
	it->handler /= n;
	it->bg_cpu /= n;
	it->ops = count_mean(it->ops, n);
	it->bg_ops = count_mean(it->bg_ops, n);
	it->bg_aux = count_mean(it->bg_aux, n);
	it->touches = count_mean(it->touches, n);
	it->segv = count_mean(it->segv, n);
	it->ivcsw = count_mean(it->ivcsw, n);
	for (int m = 0; m < RES_MAX_METRICS; m++)
		it->phase[m] /= n;
}

/* One pass of g, and what can end the run after it: the simulated zone
 * out of frames, an interrupt, the watchdog. */
static int run_pass(const struct run_cfg *c, struct group *g,
		    struct wl_iter *it, struct res_point *p, char *err,
		    size_t errlen)
{
	int ret = run_iteration(c, g, it, p, err, errlen);

	/* The point's totals count every pass, whatever a sample makes of
	 * them (a mean of several). */
	p->touches += it->touches;
	p->host_faults += it->host_faults;
	p->segv += it->segv;
	/* The kernel would have OOM-killed: the iteration is not a
	 * measurement, the run ends (exit 3). */
	if (!ret && group_frames_failed(g)) {
		snprintf(err, errlen, "the simulated zone ran out of page frames "
			 "(--phys %zu MiB): %llu allocations failed; give a "
			 "larger --phys", c->phys >> 20,
			 (unsigned long long)group_frames_failed(g));
		ret = -ENOSPC;
	}
	/* An interrupt explains whatever the tasks then returned (-EINTR,
	 * a refused stuck fault); a dead task process says so itself. */
	if (ret != -ECHILD) {
		int r = interrupted_ret(err, errlen);

		ret = r ? r : ret;
	}
	return ret;
}

/* One sample of a completion workload: passes back to back into sum,
 * their mean. */
static int run_sample(const struct run_cfg *c, struct group *g, int passes,
		      struct wl_iter *sum, struct res_point *p, char *err,
		      size_t errlen)
{
	struct wl_iter one = { 0 };
	int ret = 0, n;

	*sum = (struct wl_iter){ .rates = sum->rates, .rate_wall = sum->rate_wall,
				 .rate_flag = sum->rate_flag };
	one.rates = sum->rates;
	one.rate_wall = sum->rate_wall;
	one.rate_flag = sum->rate_flag;
	for (n = 0; n < passes && !ret; n++) {
		ret = run_pass(c, g, &one, p, err, errlen);
		p->pass_s += one.elapsed;
		if (!ret)
			pass_add(sum, &one);
	}
	pass_mean(sum, n);
	return ret;
}

/* Warm-up rounds at most, however short a pass. */
#define RUNNER_WARMUP_MAX 10000

/* Whether another warm-up round is due: fewer than --warmup so far, or
 * (with --min-sample) a target warmed for less than a sample's length —
 * the machine, not only the mm, must be warm (the first run after an
 * idle spell was 15% slow on every scheme with one 15 ms pass). */
static bool warmup_more(const struct run_cfg *c, int w, const double *warm)
{
	if (w >= RUNNER_WARMUP_MAX || !c->wo.warmup)
		return false;
	if (w < c->wo.warmup)
		return true;
	for (int k = 0; k < runner_ntargets(c) && c->min_sample_ms > 0; k++)
		if (warm[k] < c->min_sample_ms / 1e3)
			return true;
	return false;
}

/* The passes a sample needs to last --min-sample, from one warm pass
 * (its elapsed and its wall time, set-up and gate included). */
static double passes_for(const struct run_cfg *c, const struct wl_iter *it,
			 double wall)
{
	double want = c->min_sample_ms / 1e3;
	double np = it->elapsed > 0 ? ceil(want / it->elapsed) : 1e5;

	/* A pass's set-up and gate cost wall time its elapsed does not
	 * show (256 tasks on 2 CPUs): a sample never takes over 10x
	 * --min-sample of the machine. */
	if (wall > 0)
		np = fmin(np, fmax(1, floor(10 * want / wall)));
	return np;
}

/* The warm-up: rounds of one untimed pass of every target, at least
 * --warmup of them and, with --min-sample, until each target has run
 * for that long (their counts go to no sample, their latencies and host
 * calls to a scratch point, their lock statistics still to the mm's
 * counters: counted_passes says so); then, from each target's last
 * (warmest) pass, the passes a sample needs to last --min-sample: the
 * most any target needs, so every target's sample is the same work. */
static int run_warmup(const struct run_cfg *c, struct group **g,
		      struct wl_iter *it, struct res_point **pts, int *passes,
		      char *err, size_t errlen)
{
	double need = 1, warm[RUNNER_MAX_SCHEMES] = { 0 };
	double last[RUNNER_MAX_SCHEMES] = { 0 };
	int ret = 0, nt = runner_ntargets(c);

	for (int w = 0; !ret && warmup_more(c, w, warm); w++)
		for (int k = 0; k < nt && !ret; k++) {
			struct res_point scratch = { 0 };
			uint64_t t0 = mono_ns();
			double wall;

			ret = run_pass(c, g[k], it, &scratch, err, errlen);
			wall = (double)(mono_ns() - t0) / 1e9;
			warm[k] += wall;
			if (scratch.lat)
				pts[k]->warm_lat_ns += (double)scratch.lat->sum_ns;
			res_point_free(&scratch);
			pts[k]->warmup++;
			pts[k]->runs++;
			pts[k]->pass_s += it->elapsed;
			pts[k]->touches += it->touches;
			pts[k]->host_faults += it->host_faults;
			pts[k]->segv += it->segv;
			if (!ret && c->min_sample_ms > 0)
				last[k] = passes_for(c, it, wall);
		}
	for (int k = 0; k < nt; k++)
		need = fmax(need, last[k]);
	*passes = c->passes > 0 ? c->passes : (int)fmin(need, 1e5);
	return ret;
}

/* All schemes at one task count, iterations interleaved. */
static int run_point(const struct run_cfg *c, int n, struct res_point **pts,
		     _Atomic int *interrupt, struct progress *pg, char *err,
		     size_t errlen)
{
	struct group *g[RUNNER_MAX_SCHEMES] = { 0 };
	struct wl_iter it = { 0 };
	int ret = 0, per_iter = c->wl->loop ? c->wo.duration : 1, passes = 1;
	int nt = runner_ntargets(c);

	it.rates = calloc((size_t)c->wo.duration, sizeof(double));
	it.rate_wall = calloc((size_t)c->wo.duration, sizeof(double));
	it.rate_flag = calloc((size_t)c->wo.duration, 1);
	if (!it.rates || !it.rate_wall || !it.rate_flag) {
		free(it.rates);
		free(it.rate_wall);
		free(it.rate_flag);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int k = 0; k < nt && !ret; k++) {
		pts[k]->tasks = n;
		ret = res_point_reserve(pts[k], c->wo.iterations * per_iter);
		if (ret)
			snprintf(err, errlen, "out of memory");
		else
			ret = group_create(c, k, n, interrupt, &g[k], err,
					   errlen);
	}
	if (!ret && !c->wl->loop)
		ret = run_warmup(c, g, &it, pts, &passes, err, errlen);
	for (int k = 0; k < nt && !c->wl->loop; k++)
		pts[k]->passes = passes;
	for (int i = 0; i < c->wo.iterations && !ret; i++) {
		for (int k = 0; k < nt && !ret; k++) {
			/* Rotate the order so no scheme always runs first,
			 * nor always after the same one. */
			int s = runner_round_order(nt, i, k);

			progress_show(c, pg, runner_target_label(c, s), n, i);
			if (c->wl->loop) {
				ret = run_pass(c, g[s], &it, pts[s], err, errlen);
				pts[s]->pass_s += it.noise_wall;
			} else
				ret = run_sample(c, g[s], passes, &it, pts[s],
						 err, errlen);
			pts[s]->runs += c->wl->loop ? 1 : passes;
			pg->done++;
			/* A loop workload's whole seconds before an interrupt
			 * are measurements like any others: kept. */
			if (!ret || (ret == -EINTR && c->wl->loop && it.nrates)) {
				int r = add_samples(c, pts[s], &it, err, errlen);

				ret = r ? r : ret;
			}
		}
	}
	if (c->progress)
		fprintf(stderr, "\r\033[K");
	for (int k = 0; k < nt; k++) {
		group_destroy(g[k], pts[k]);
		if (!c->wl->loop)
			flag_starved(pts[k]);
	}
	free(it.rates);
	free(it.rate_wall);
	free(it.rate_flag);
	return ret;
}

/* A counter slot for every task, every handler and a few others (the
 * agent, the watchdog, the main thread), so that no two threads that
 * count on every fault share one. */
static int runner_slot_count(const struct run_cfg *c)
{
	int most = runner_max_tasks(c);
	int nbg = c->wl->background ? c->wl->background(&c->wo) : 0;

	return most + nbg +
	       runner_uffds(c, most) * runner_handlers_per_uffd(c, most) + 4;
}

int runner_run(const struct run_cfg *c, struct res_file *outs, char *err,
	       size_t errlen)
{
	struct res_point *pts[RUNNER_MAX_SCHEMES];
	_Atomic int *word;
	int ret = 0;

	/* The touch clock's rate, measured (10 ms) here, before any agent
	 * is forked, so that none measures it again. */
	clock_ns_per_cycle();
	slots_set_count(runner_slot_count(c));
	for (int s = 0; s < runner_ntargets(c); s++) {
		struct res_file *out = &outs[s];

		out->workload = c->wl->name;
		out->scheme = runner_target_lock(c, s)->name;
		out->label = runner_target_label(c, s);
		out->fault_source = c->mm.source->name;
		out->host_lock = c->host_lock;
		out->nmetrics = c->wl->nmetrics;
		memcpy(out->metrics, c->wl->metrics, sizeof(out->metrics));
		out->complete = false;
		out->points = calloc((size_t)c->ntasklist, sizeof(*out->points));
		if (!out->points) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	/* The interrupt word, shared with forked agents; an interrupt that
	 * came before the run started carries over. */
	word = host_mmap(NULL, sizeof(*word), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (word == MAP_FAILED) {
		snprintf(err, errlen, "cannot map the interrupt word: %s",
			 strerror(errno));
		return -errno;
	}
	atomic_init(word, runner_interrupted());
	atomic_store(&interrupt_word, word);

	struct progress pg = { mono_ns(), 0,
			       c->ntasklist * c->wo.iterations * runner_ntargets(c) };
	struct sigaction sa = { .sa_handler = on_cont, .sa_flags = SA_RESTART },
			 old_cont;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCONT, &sa, &old_cont);
	for (int i = 0; i < c->ntasklist && !ret; i++) {
		for (int s = 0; s < runner_ntargets(c); s++) {
			pts[s] = &outs[s].points[i];
			outs[s].npoints = i + 1;
		}
		ret = run_point(c, c->tasks[i], pts, word, &pg, err, errlen);
	}
	sigaction(SIGCONT, &old_cont, NULL);
	for (int s = 0; s < runner_ntargets(c) && !ret; s++)
		outs[s].complete = true;
	atomic_store(&interrupt_idle, atomic_load(word));
	atomic_store(&interrupt_word, &interrupt_idle);
	host_munmap((void *)word, sizeof(*word));
	return ret;
}
