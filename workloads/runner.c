/* SPDX-License-Identifier: MIT */
#include "workloads/runner.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

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

/* One iteration with n tasks on mm; fills it. Returns 0 or -errno. */
static int run_iteration(const struct run_cfg *c, struct sim_mm *mm, int n,
			 struct wl_iter *it, char *err, size_t errlen)
{
	struct task_slot *slots;
	struct start_gate start = { PTHREAD_MUTEX_INITIALIZER,
				    PTHREAD_COND_INITIALIZER, 0, 0 };
	_Atomic bool stop = false;
	void *shared = NULL;
	uint64_t h0, first = UINT64_MAX, last = 0;
	int ret, started = 0;
	int nbg = c->wl->background ? c->wl->background(&c->wo) : 0;
	int total = n + nbg;

	ret = c->wl->setup(mm, &c->wo, n, &shared);
	if (ret) {
		snprintf(err, errlen, "%s setup with %d tasks: %s", c->wl->name,
			 n, strerror(-ret));
		return ret;
	}
	slots = aligned_alloc(64, sizeof(*slots) * (size_t)total);
	if (!slots) {
		c->wl->teardown(mm, &c->wo, shared);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(slots, 0, sizeof(*slots) * (size_t)total);
	/* Background tasks first, so that they are running when the
	 * foreground ones start; ids: foreground 0..n-1, background n... */
	for (int k = 0; k < total; k++) {
		int i = (k + n) % total;

		slots[i].t = (struct wl_task){ .mm = mm, .id = i, .ntasks = n,
					       .o = &c->wo, .shared = shared,
					       .background = i >= n, .stop = &stop };
		slots[i].start = &start;
		slots[i].wl = c->wl;
		ret = -pthread_create(&slots[i].thread, NULL, task_main, &slots[i]);
		if (ret)
			break;
		slots[i].started = true;
		started++;
	}
	if (ret)
		snprintf(err, errlen, "cannot start task thread: %s", strerror(-ret));
	h0 = mm->pool ? uffd_pool_cpu_ns(mm->pool) : 0;
	gate_open(&start, started, ret ? -1 : 1);
	for (int i = 0; i < n; i++)
		if (slots[i].started)
			pthread_join(slots[i].thread, NULL);
	/* Release: pairs with the acquire in wl_should_stop(). */
	atomic_store_explicit(&stop, true, memory_order_release);
	for (int i = n; i < total; i++)
		if (slots[i].started)
			pthread_join(slots[i].thread, NULL);
	memset(it, 0, sizeof(*it));
	it->ntasks = n;
	it->handler = mm->pool ? (double)(uffd_pool_cpu_ns(mm->pool) - h0) / 1e9 : 0;
	for (int i = 0; i < total; i++) {
		struct task_slot *s = &slots[i];

		if (!s->started)
			continue;
		if (s->ret && !ret) {
			ret = s->ret;
			snprintf(err, errlen, "%s task %d: %s", c->wl->name, i,
				 strerror(-ret));
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
		it->touches += s->t.touches;
		it->segv += s->t.segv;
	}
	it->elapsed = last > first ? (double)(last - first) / 1e9 : 0;
	pthread_cond_destroy(&start.cond);
	pthread_mutex_destroy(&start.lock);
	free(slots);
	c->wl->teardown(mm, &c->wo, shared);
	return ret;
}

static int run_point(const struct run_cfg *c, int n, struct res_point *p,
		     char *err, size_t errlen)
{
	struct sim_mm_cfg mc = c->mm;
	struct sim_mm *mm;
	double v[RES_MAX_METRICS];
	int ret;

	if (!mc.nhandlers)
		mc.nhandlers = n;
	ret = sim_mm_create(&mc, &mm);
	if (ret) {
		snprintf(err, errlen, "cannot create the simulated mm: %s",
			 strerror(-ret));
		return ret;
	}
	p->tasks = n;
	for (int i = 0; i < c->wo.iterations; i++) {
		struct wl_iter it;

		if (c->progress)
			fprintf(stderr, "\r%s: tasks %d, iteration %d/%d ",
				c->wl->name, n, i + 1, c->wo.iterations);
		ret = run_iteration(c, mm, n, &it, err, errlen);
		p->touches += it.touches;
		p->segv += it.segv;
		if (ret)
			break;
		c->wl->report(&it, v);
		for (int m = 0; m < c->wl->nmetrics && !ret; m++)
			ret = res_point_add(p, m, v[m]);
		if (ret) {
			snprintf(err, errlen, "out of memory");
			break;
		}
		p->nsamples++;
	}
	if (c->progress)
		fprintf(stderr, "\r\033[K");
	sim_mm_stop_handlers(mm);
	res_point_collect(p, mm);
	sim_mm_destroy(mm);
	return ret;
}

int runner_run(const struct run_cfg *c, struct res_file *out, char *err,
	       size_t errlen)
{
	int ret = 0;

	out->workload = c->wl->name;
	out->scheme = c->mm.lock->name;
	out->fault_source = c->mm.source == FAULT_SRC_UFFD ? "uffd" : "synthetic";
	out->nmetrics = c->wl->nmetrics;
	memcpy(out->metrics, c->wl->metrics, sizeof(out->metrics));
	out->points = calloc((size_t)c->ntasklist, sizeof(*out->points));
	if (!out->points) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	out->complete = false;
	for (int i = 0; i < c->ntasklist; i++) {
		ret = run_point(c, c->tasks[i], &out->points[i], err, errlen);
		out->npoints = i + 1;
		if (ret)
			return ret;
	}
	out->complete = true;
	return 0;
}
