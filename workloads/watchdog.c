/* SPDX-License-Identifier: MIT */
/*
 * watchdog — a thread beside each agent that every 100 ms (a nap that
 * watchdog_stop() ends at once) looks at the agent's tasks: one that has
 * been inside a touch for longer than --fault-timeout has a fault nobody
 * answered (touches are stamped with coarse_ns(), a clock that needs no
 * one to advance it, so a watchdog scheduled late cannot mistake a new
 * touch for an old one). It says which address, which task, and what
 * every handler of the mm is doing;
 * refuses the fault itself (uffd: the refusal signal, so the task leaves
 * the touch); and stops the run. If the run has not stopped 3 s later it
 * exits the process: a CI job must never hang.
 */
#include "workloads/watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct watchdog {
	pthread_t thread;
	_Atomic bool stop;
	pthread_mutex_t lock;            /* the nap below and its end */
	pthread_cond_t wake;
	double timeout;                  /* s */
	struct wl_task *const *tasks;
	int n;
	struct sim_mm *mm;
	_Atomic int *interrupt;
};

/* Where the task's thread is, as the kernel sees it: its state and the
 * kernel function it sleeps in (a uffd fault: handle_userfault), so a
 * report says whether the fault reached the kernel's wait or the thread
 * is elsewhere. Best effort: /proc may be unreadable. */
static void wd_thread_state(int tid)
{
	char path[64], st[256] = "", wchan[64] = "", state;
	const char *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if ((f = fopen(path, "r"))) {
		if (!fgets(st, sizeof(st), f))
			st[0] = 0;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/wchan", tid);
	if ((f = fopen(path, "r"))) {
		if (!fgets(wchan, sizeof(wchan), f))
			wchan[0] = 0;
		fclose(f);
	}
	p = strrchr(st, ')');
	state = p && p[1] && p[2] ? p[2] : '?';
	/* What the state says of the two ways a fault goes unanswered. */
	fprintf(stderr, "vmsim: watchdog:   its thread %d: state %c, in %s%s\n",
		tid, state, wchan[0] ? wchan : "?", state == 'R' ?
		" (running or runnable: spinning, or starved of a CPU)" :
		state == 'S' || state == 'D' ? " (asleep: waiting for a wake-up "
		"that has not come, or for a holder that does not let go)" : "");
}

/* The scheme and its event counters at the moment: which lock, and how
 * far its slow paths went (sleeps, wake-ups, retries). */
static void wd_scheme_state(struct watchdog *w)
{
	const struct lock_ops *ops = w->mm->cfg.lock;
	const char *names[LOCK_MAX_COUNTERS];
	uint64_t v[LOCK_MAX_COUNTERS];
	int n = ops && ops->counters && w->mm->lock ?
		ops->counters(w->mm->lock, names, v) : 0;

	fprintf(stderr, "vmsim: watchdog:   the scheme: %s", ops ? ops->name : "?");
	for (int i = 0, shown = 0; i < n; i++)
		if (v[i])
			fprintf(stderr, "%s%s %llu", shown++ ? ", " : "; its counters: ",
				names[i], (unsigned long long)v[i]);
	fprintf(stderr, "\n");
}

static void wd_report(struct watchdog *w, struct wl_task *t, uint64_t now,
		      uint64_t since)
{
	unsigned long addr = atomic_load_explicit(&t->touch_addr,
						  memory_order_relaxed);
	struct fault_source *src = w->mm->src;
	int nh = src->ops->nworkers ? src->ops->nworkers(src) : 0;

	fprintf(stderr, "vmsim: watchdog: the fault at %#lx (task %d) has not "
		"been resolved after %.1f s\n", addr, t->id,
		(double)(now - since) / 1e9);
	wd_thread_state(atomic_load(&t->tid));
	wd_scheme_state(w);
	for (int h = 0; h < nh; h++) {
		struct fault_worker st;

		src->ops->worker(src, h, &st);
		if (st.addr)
			fprintf(stderr, "vmsim: watchdog:   handler %d: busy with "
				"%#lx for %.1f s: %s\n", h, st.addr,
				(double)(now > st.since_ns ? now - st.since_ns : 0) /
				1e9, st.phase ? st.phase : "before the fault path");
		else if (st.read_errno)
			fprintf(stderr, "vmsim: watchdog:   handler %d: its reads "
				"of the userfaultfd fail: %s\n", h,
				strerror(st.read_errno));
		else
			fprintf(stderr, "vmsim: watchdog:   handler %d: idle, "
				"waiting for messages\n", h);
	}
	/* Answer the fault ourselves so the task can leave it. */
	if (src->ops->abandon(src, atomic_load(&t->tid), addr)) {
		fprintf(stderr, "vmsim: watchdog:   (synthetic faults: the task "
			"itself is stuck in the fault path)\n");
		fprintf(stderr, "vmsim: watchdog: stopping the run\n");
		return;
	}
	fprintf(stderr, "vmsim: watchdog: refused the fault; stopping the run\n");
}

/* 100 ms: a wake-up that may preempt a task holding a lock should be
 * rare. watchdog_stop() ends the nap at once: a run of many short points
 * does not wait out a nap at each. */
static void wd_nap(struct watchdog *w)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += 100000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&w->lock);
	while (!atomic_load(&w->stop) &&
	       pthread_cond_timedwait(&w->wake, &w->lock, &until) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&w->lock);
}

static void *wd_main(void *arg)
{
	struct watchdog *w = arg;
	uint64_t fired = 0;

	while (!atomic_load(&w->stop)) {
		uint64_t now = coarse_ns();

		if (fired && now - fired > 3000000000ull) {
			fprintf(stderr, "vmsim: watchdog: the run did not stop "
				"after the timeout; exiting\n");
			_exit(3);
		}
		uint64_t nowc = cycles_now();

		for (int i = 0; !fired && i < w->n; i++) {
			uint64_t since = atomic_load_explicit(
				&w->tasks[i]->touch_since, memory_order_relaxed);
			uint64_t age;
			int zero = 0;

			/* A touch stamped after nowc was read has only just
			 * begun: nowc - since would wrap around and fire. */
			if (!since || since - 1 >= nowc)
				continue;
			age = cycles_to_ns(nowc - (since - 1), clock_ns_per_cycle());
			if (age <= (uint64_t)(w->timeout * 1e9))
				continue;
			/* The run is marked aborted before the fault is
			 * refused: the task that leaves it with an error must
			 * find the run already stopping. */
			atomic_compare_exchange_strong(w->interrupt, &zero, -1);
			wd_report(w, w->tasks[i], now, now - age);
			fired = now;
		}
		wd_nap(w);
	}
	return NULL;
}

/* The nap's clock is CLOCK_MONOTONIC: a change of the wall clock neither
 * stretches nor skips it. */
static int wd_sync_init(struct watchdog *w)
{
	pthread_condattr_t ca;
	int ret;

	ret = -pthread_condattr_init(&ca);
	if (ret)
		return ret;
	ret = -pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!ret)
		ret = -pthread_cond_init(&w->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (ret)
		return ret;
	ret = -pthread_mutex_init(&w->lock, NULL);
	if (ret)
		pthread_cond_destroy(&w->wake);
	return ret;
}

int watchdog_start(struct watchdog **out, double timeout,
		   struct wl_task *const *tasks, int n, struct sim_mm *mm,
		   _Atomic int *interrupt)
{
	struct watchdog *w;
	int ret;

	*out = NULL;
	if (timeout <= 0)
		return 0;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (struct watchdog){ .timeout = timeout, .tasks = tasks, .n = n,
				.mm = mm, .interrupt = interrupt };
	ret = wd_sync_init(w);
	if (ret) {
		free(w);
		return ret;
	}
	ret = -pthread_create(&w->thread, NULL, wd_main, w);
	if (ret) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return ret;
	}
	*out = w;
	return 0;
}

void watchdog_stop(struct watchdog *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	atomic_store(&w->stop, true);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
