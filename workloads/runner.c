/* SPDX-License-Identifier: MIT */
#include "workloads/runner.h"

#define RUNNER_MAX_TASKS 1024

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

_Atomic int wl_interrupt_sig;

void runner_interrupt(int sig)
{
	int zero = 0;

	/* The first reason wins; async-signal-safe (a lock-free CAS). */
	atomic_compare_exchange_strong(&wl_interrupt_sig, &zero, sig);
}

int runner_interrupted(void)
{
	return atomic_load(&wl_interrupt_sig);
}

void runner_clear_interrupt(void)
{
	atomic_store(&wl_interrupt_sig, 0);
}

/* Start gate: tasks wait until go is 1 (run) or -1 (abort). Unlike a
 * barrier it can be opened when only some of the threads were created. */
struct start_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int waiting, go;
};

static int gate_wait(struct start_gate *g)
{
	int go;

	pthread_mutex_lock(&g->lock);
	g->waiting++;
	pthread_cond_broadcast(&g->cond);
	while (!g->go)
		pthread_cond_wait(&g->cond, &g->lock);
	go = g->go;
	pthread_mutex_unlock(&g->lock);
	return go;
}

/* Wait for n tasks to be at the gate, then open it with go. */
static void gate_open(struct start_gate *g, int n, int go)
{
	pthread_mutex_lock(&g->lock);
	while (g->waiting < n)
		pthread_cond_wait(&g->cond, &g->lock);
	g->go = go;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

struct task_slot {
	struct wl_task t;                /* first: cache-line aligned */
	pthread_t thread;
	struct start_gate *start;
	const struct workload *wl;
	int ret;
	bool started;
	int cpu;                         /* pin to this CPU, or -1 */
	uint64_t t_start, t_end;         /* ns, CLOCK_MONOTONIC */
	double user, sys;                /* s, RUSAGE_THREAD delta */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static void *task_main(void *arg)
{
	struct task_slot *s = arg;
	struct rusage r0, r1;

	if (s->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(s->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	if (gate_wait(s->start) < 0)
		return NULL;
	getrusage(RUSAGE_THREAD, &r0);
	s->t_start = now_ns();
	s->ret = s->wl->task(&s->t);
	s->t_end = now_ns();
	getrusage(RUSAGE_THREAD, &r1);
	s->user = tv_s(&r1.ru_utime) - tv_s(&r0.ru_utime);
	s->sys = tv_s(&r1.ru_stime) - tv_s(&r0.ru_stime);
	return NULL;
}

static int ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

/* One scheme's simulated mms at one task count. */
struct mm_group {
	struct sim_mm *mm[RUNNER_MAX_TASKS];
	int n;                           /* 1 (threads) or tasks (processes) */
};

static uint64_t group_handler_ns(const struct mm_group *g)
{
	uint64_t ns = 0;

	for (int k = 0; k < g->n; k++)
		if (g->mm[k]->pool)
			ns += uffd_pool_cpu_ns(g->mm[k]->pool);
	return ns;
}

static uint64_t sum_ops(struct task_slot *slots, int n)
{
	uint64_t sum = 0;

	for (int i = 0; i < n; i++)
		sum += atomic_load_explicit(&slots[i].t.ops, memory_order_relaxed);
	return sum;
}

/* will-it-scale sampling: every second (--interval) the tasks' summed
 * ops; the first --warmup samples are dropped, then --duration rates
 * (ops per second) are kept. */
static int sample_loop(const struct run_cfg *c, struct task_slot *slots,
		       int n, struct wl_iter *it)
{
	int total = c->wo.warmup + c->wo.duration;
	struct timespec next;
	uint64_t prev, cur;
	double tprev, t;

	it->rates = calloc((size_t)c->wo.duration, sizeof(double));
	if (!it->rates)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &next);
	tprev = (double)now_ns() / 1e9;
	prev = sum_ops(slots, n);
	for (int s = 0; s < total; s++) {
		next.tv_nsec += (long)c->wo.interval_ms * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) &&
		       !runner_interrupted())
			;
		if (runner_interrupted())
			return 0;
		cur = sum_ops(slots, n);
		t = (double)now_ns() / 1e9;
		if (s >= c->wo.warmup)
			it->rates[it->nrates++] = (double)(cur - prev) / (t - tprev);
		prev = cur;
		tprev = t;
	}
	return 0;
}

/* --- watchdog ---------------------------------------------------------- */

/*
 * A thread that every 100 ms looks at the running iteration's tasks (their
 * touches are stamped with wl_coarse_ns(), a clock that needs no one to
 * advance it, so a watchdog scheduled late cannot mistake a new touch
 * for an old one): one that has been inside a
 * touch for longer than --fault-timeout has a fault nobody answered. It
 * says which address, which task, and what every handler of that mm is
 * doing; poisons the page (so the task gets SIGBUS and returns); and stops
 * the run. If the run has not stopped 3 s later, it exits the process: a
 * CI job must never hang.
 */
struct watchdog {
	pthread_t thread;
	_Atomic bool stop;
	double timeout;                  /* s */
	pthread_mutex_t lock;            /* guards the iteration below */
	struct task_slot *slots;         /* the running iteration's tasks */
	int nfg;
};

static void wd_report(struct watchdog *w, int i, uint64_t now, uint64_t since)
{
	struct task_slot *s = &w->slots[i];
	unsigned long addr = atomic_load_explicit(&s->t.touch_addr,
						  memory_order_relaxed);
	struct sim_mm *mm = s->t.mm;
	struct uffd_counters dummy = { 0 };

	fprintf(stderr, "vmsim: watchdog: the fault at %#lx (task %d) has not "
		"been resolved after %.1f s\n", addr, i,
		(double)(now - since) / 1e9);
	for (int h = 0; mm->pool && h < uffd_pool_size(mm->pool); h++) {
		const struct uffd_handler_state *st = uffd_pool_state(mm->pool, h);
		unsigned long busy = atomic_load(&st->addr);
		uffd_phase_t *ph = atomic_load_explicit(&st->phase,
							memory_order_acquire);
		const char *what = ph ? atomic_load_explicit(ph,
				memory_order_relaxed) : NULL;

		uint64_t began = atomic_load(&st->since_ns);  /* coarse, as now */

		if (busy)
			fprintf(stderr, "vmsim: watchdog:   handler %d: busy with "
				"%#lx for %.1f s: %s\n", h, busy,
				(double)(now > began ? now - began : 0) / 1e9,
				what ? what : "before the fault path");
		else
			fprintf(stderr, "vmsim: watchdog:   handler %d: idle, "
				"waiting for messages\n", h);
	}
	if (!mm->pool)
		fprintf(stderr, "vmsim: watchdog:   (synthetic faults: the task "
			"itself is stuck in the fault path)\n");
	/* Answer the fault ourselves so the task can leave it. */
	if (mm->uffd >= 0)
		uffd_resolve_poison(mm->uffd, addr & SIM_PAGE_MASK, SIM_PAGE_SIZE,
				    &dummy);
	fprintf(stderr, "vmsim: watchdog: poisoned the page; stopping the run\n");
}

static void *wd_main(void *arg)
{
	struct watchdog *w = arg;
	uint64_t fired = 0;

	for (int tick = 0; !atomic_load(&w->stop); tick++) {
		uint64_t now = wl_coarse_ns();

		if (fired && now - fired > 3000000000ull) {
			fprintf(stderr, "vmsim: watchdog: the run did not stop "
				"after the timeout; exiting\n");
			_exit(3);
		}
		if (!fired && w->timeout > 0 && tick % 10 == 0) {
			pthread_mutex_lock(&w->lock);
			for (int i = 0; w->slots && i < w->nfg && !fired; i++) {
				uint64_t since = atomic_load_explicit(
					&w->slots[i].t.touch_since, memory_order_relaxed);

				if (since && now - (since - 1) > (uint64_t)(w->timeout * 1e9)) {
					wd_report(w, i, now, since - 1);
					runner_interrupt(-1);
					fired = now;
				}
			}
			pthread_mutex_unlock(&w->lock);
		}
		usleep(10000);
	}
	return NULL;
}

static struct watchdog *watchdog;        /* the running one, if any */

static void wd_watch(struct task_slot *slots, int nfg)
{
	if (!watchdog)
		return;
	pthread_mutex_lock(&watchdog->lock);
	watchdog->slots = slots;
	watchdog->nfg = nfg;
	pthread_mutex_unlock(&watchdog->lock);
}

static void teardown_all(const struct run_cfg *c, struct mm_group *g,
			 void **shared, int nset)
{
	for (int k = 0; k < nset && c->wl->teardown; k++)
		c->wl->teardown(g->mm[k], &c->wo, shared[k]);
}

/* One iteration with n tasks on g; fills it. Returns 0 or -errno. */
static int run_iteration(const struct run_cfg *c, struct mm_group *g, int n,
			 struct wl_iter *it, char *err, size_t errlen)
{
	struct task_slot *slots;
	struct start_gate start = { PTHREAD_MUTEX_INITIALIZER,
				    PTHREAD_COND_INITIALIZER, 0, 0 };
	_Atomic bool stop = false;
	void *shared[RUNNER_MAX_TASKS] = { 0 };
	uint64_t h0, first = UINT64_MAX, last = 0;
	int ret = 0, started = 0, nset = 0;
	int nbg = c->wl->background ? c->wl->background(&c->wo) : 0;
	int total = n + nbg, per_mm = c->processes ? 1 : n;

	memset(it, 0, sizeof(*it));
	for (; nset < g->n && !ret; nset++) {
		ret = c->wl->setup ? c->wl->setup(g->mm[nset], &c->wo, per_mm,
						  &shared[nset]) : 0;
		if (ret) {
			snprintf(err, errlen, "%s setup with %d tasks: %s",
				 c->wl->name, n, strerror(-ret));
			teardown_all(c, g, shared, nset);
			return ret;
		}
	}
	slots = aligned_alloc(64, sizeof(*slots) * (size_t)total);
	if (!slots) {
		teardown_all(c, g, shared, nset);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(slots, 0, sizeof(*slots) * (size_t)total);
	/* Background tasks first, so that they are running when the
	 * foreground ones start; ids: foreground 0..n-1, background n... */
	for (int k = 0; k < total; k++) {
		int i = (k + n) % total;
		int m = i < n ? (c->processes ? i : 0) : (i - n) % g->n;

		slots[i].t = (struct wl_task){ .mm = g->mm[m],
			.id = c->processes && i < n ? 0 : i,
			.ntasks = per_mm, .o = &c->wo, .shared = shared[m],
			.background = i >= n, .stop = &stop };
		slots[i].start = &start;
		slots[i].wl = c->wl;
		slots[i].cpu = c->pin ? i % ncpus() : -1;
		ret = -pthread_create(&slots[i].thread, NULL, task_main, &slots[i]);
		if (ret)
			break;
		slots[i].started = true;
		started++;
	}
	if (ret)
		snprintf(err, errlen, "cannot start task thread: %s", strerror(-ret));
	h0 = group_handler_ns(g);
	wd_watch(slots, n);
	gate_open(&start, started, ret ? -1 : 1);
	if (c->wl->loop && !ret)
		ret = sample_loop(c, slots, n, it);
	else
		for (int i = 0; i < n; i++)
			if (slots[i].started)
				pthread_join(slots[i].thread, NULL);
	/* Release: pairs with the acquire in wl_should_stop(). */
	atomic_store_explicit(&stop, true, memory_order_release);
	for (int i = c->wl->loop ? 0 : n; i < total; i++)
		if (slots[i].started)
			pthread_join(slots[i].thread, NULL);
	it->ntasks = n;
	it->handler = (double)(group_handler_ns(g) - h0) / 1e9;
	for (int i = 0; i < total; i++) {
		struct task_slot *s = &slots[i];

		if (!s->started)
			continue;
		if (s->ret && !ret) {
			ret = s->ret;
			if (ret == -ENOMEM && vma_tree_count(&s->t.mm->tree) + 2 >=
			    s->t.mm->cfg.max_map_count)
				snprintf(err, errlen, "%s task %d: more VMAs than "
					 "--max-map-count (%zu)", c->wl->name, i,
					 s->t.mm->cfg.max_map_count);
			else
				snprintf(err, errlen, "%s task %d: %s", c->wl->name,
					 i, strerror(-ret));
		}
		if (s->t.background) {
			it->bg_ops += s->t.ops;
			continue;
		}
		if (s->t_start < first)
			first = s->t_start;
		if (s->t_end > last)
			last = s->t_end;
		it->user += s->user;
		it->sys += s->sys;
		it->ops += s->t.ops;
		for (int m = 0; m < RES_MAX_METRICS; m++)
			if (s->t.phase[m] > it->phase[m])
				it->phase[m] = s->t.phase[m];
		it->touches += s->t.touches;
		it->segv += s->t.segv;
	}
	it->elapsed = last > first ? (double)(last - first) / 1e9 : 0;
	wd_watch(NULL, 0);
	pthread_cond_destroy(&start.cond);
	pthread_mutex_destroy(&start.lock);
	free(slots);
	teardown_all(c, g, shared, nset);
	return ret;
}

static void group_destroy(struct mm_group *g, struct res_point *p)
{
	for (int k = 0; k < g->n; k++) {
		sim_mm_stop_handlers(g->mm[k]);
		if (p)
			res_point_collect(p, g->mm[k]);
		sim_mm_destroy(g->mm[k]);
	}
	g->n = 0;
}

static int group_create(const struct run_cfg *c, const struct lock_ops *lock,
			int n, struct mm_group *g, char *err, size_t errlen)
{
	struct sim_mm_cfg mc = c->mm;
	int want = c->processes ? n : 1, ret = 0, cpus[256];
	int nc = ncpus() < 256 ? ncpus() : 256;

	mc.lock = lock;
	if (!mc.nhandlers)
		mc.nhandlers = c->processes ? 1 : n;
	for (int i = 0; i < nc; i++)
		cpus[i] = i;
	for (g->n = 0; g->n < want; g->n++) {
		/* Pinned: a process's handler on its task's CPU; the shared
		 * mm's handlers spread over all CPUs, as the tasks are. */
		if (c->pin && c->processes) {
			mc.cpus = &cpus[g->n % nc];
			mc.ncpus = 1;
		} else if (c->pin) {
			mc.cpus = cpus;
			mc.ncpus = nc;
		}
		ret = sim_mm_create(&mc, &g->mm[g->n]);
		if (ret)
			break;
	}
	if (ret) {
		snprintf(err, errlen, "cannot create the simulated mm: %s",
			 strerror(-ret));
		group_destroy(g, NULL);
	}
	return ret;
}

static int add_sample(const struct run_cfg *c, struct res_point *p,
		      const struct wl_iter *it, char *err, size_t errlen)
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
		return add_sample(c, p, it, err, errlen);
	for (int i = 0; i < it->nrates && !ret; i++) {
		struct wl_iter one = *it;

		one.ops = (uint64_t)it->rates[i];
		one.elapsed = 1.0;
		ret = add_sample(c, p, &one, err, errlen);
	}
	return ret;
}

/* The progress line: shown once a run has taken 2 s, on a terminal. */
struct progress {
	uint64_t t0;                     /* ns */
	int done, total;                 /* iterations, over all schemes */
};

static void progress_show(const struct run_cfg *c, struct progress *pg,
			  const char *scheme, int n, int i)
{
	double el = (double)(now_ns() - pg->t0) / 1e9, left;

	if (!c->progress || el < 2.0)
		return;
	left = pg->done ? el / pg->done * (pg->total - pg->done) : 0;
	fprintf(stderr, "\r\033[K%s: %s, tasks %d, iteration %d/%d, %.0f s "
		"elapsed, ~%.0f s left", c->wl->name, scheme, n, i + 1,
		c->wo.iterations, el, left);
}

/* All schemes at one task count, iterations interleaved. */
static int run_point(const struct run_cfg *c, int n, struct res_point **pts,
		     struct progress *pg, char *err, size_t errlen)
{
	struct mm_group *g = calloc((size_t)c->nlocks, sizeof(*g));
	int ret = 0, made = 0;

	if (!g) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (; made < c->nlocks && !ret; made++) {
		ret = group_create(c, c->locks[made], n, &g[made], err, errlen);
		pts[made]->tasks = n;
	}
	if (ret)
		made--;
	for (int i = 0; i < c->wo.iterations && !ret; i++) {
		for (int k = 0; k < c->nlocks && !ret; k++) {
			/* Rotate the order so no scheme always runs first. */
			int s = (i + k) % c->nlocks;
			struct wl_iter it = { 0 };

			progress_show(c, pg, c->locks[s]->name, n, i);
			ret = run_iteration(c, &g[s], n, &it, err, errlen);
			pg->done++;
			pts[s]->touches += it.touches;
			pts[s]->segv += it.segv;
			/* An interrupted iteration is not a sample. */
			if (runner_interrupted()) {
				ret = runner_interrupted() > 0 ? -EINTR : -ETIMEDOUT;
				snprintf(err, errlen, runner_interrupted() > 0 ?
					 "interrupted by signal %d" :
					 "a fault was not resolved in time (see above)",
					 runner_interrupted());
			}
			if (!ret)
				ret = add_samples(c, pts[s], &it, err, errlen);
			free(it.rates);
		}
	}
	if (c->progress)
		fprintf(stderr, "\r\033[K");
	for (int k = 0; k < made; k++)
		group_destroy(&g[k], pts[k]);
	free(g);
	return ret;
}

int runner_run(const struct run_cfg *c, struct res_file *outs, char *err,
	       size_t errlen)
{
	struct res_point *pts[RUNNER_MAX_SCHEMES];
	int ret = 0;

	for (int s = 0; s < c->nlocks; s++) {
		struct res_file *out = &outs[s];

		out->workload = c->wl->name;
		out->scheme = c->locks[s]->name;
		out->fault_source = c->mm.source == FAULT_SRC_UFFD ? "uffd"
								   : "synthetic";
		out->nmetrics = c->wl->nmetrics;
		memcpy(out->metrics, c->wl->metrics, sizeof(out->metrics));
		out->complete = false;
		out->points = calloc((size_t)c->ntasklist, sizeof(*out->points));
		if (!out->points) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	struct progress pg = { now_ns(), 0,
			       c->ntasklist * c->wo.iterations * c->nlocks };
	struct watchdog w = { .timeout = c->fault_timeout,
			      .lock = PTHREAD_MUTEX_INITIALIZER };

	if (!pthread_create(&w.thread, NULL, wd_main, &w))
		watchdog = &w;
	for (int i = 0; i < c->ntasklist && !ret; i++) {
		for (int s = 0; s < c->nlocks; s++) {
			pts[s] = &outs[s].points[i];
			outs[s].npoints = i + 1;
		}
		ret = run_point(c, c->tasks[i], pts, &pg, err, errlen);
	}
	for (int s = 0; s < c->nlocks && !ret; s++)
		outs[s].complete = true;
	if (watchdog) {
		atomic_store(&w.stop, true);
		pthread_join(w.thread, NULL);
		watchdog = NULL;
	}
	pthread_mutex_destroy(&w.lock);
	return ret;
}
