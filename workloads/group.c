/* SPDX-License-Identifier: MIT */
/*
 * A task group, the runner's side: create the shared block, start the
 * agents, run iterations, gather each task's counts and times.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "locks/sync/futex.h"
#include "locks/sync/rcu.h"
#include "sim/host.h"
#include "workloads/group_int.h"

/* --- the runner's side --------------------------------------------------------- */

/* A forked agent that has died: say so and stop the run. */
static int group_check_agents(struct group *g, char *err, size_t errlen)
{
	for (int i = 0; g->pids && i < g->nagents; i++) {
		int st, zero = 0;

		if (!g->pids[i] || waitpid(g->pids[i], &st, WNOHANG) != g->pids[i])
			continue;
		if (WIFSIGNALED(st))
			snprintf(err, errlen, "task %d (process %d) was killed by "
				 "signal %d (%s)", i, (int)g->pids[i], WTERMSIG(st),
				 strsignal(WTERMSIG(st)));
		else if (WEXITSTATUS(st) == 3)
			snprintf(err, errlen, "task %d (process %d) was stopped "
				 "by its watchdog (see above)", i, (int)g->pids[i]);
		else
			snprintf(err, errlen, "task %d (process %d) exited with "
				 "status %d", i, (int)g->pids[i], WEXITSTATUS(st));
		g->pids[i] = 0;
		g->broken = true;
		atomic_compare_exchange_strong(g->interrupt, &zero, -1);
		return -ECHILD;
	}
	return 0;
}

/* Wait until *w reaches target; -ECHILD if an agent died meanwhile. */
static int group_wait(struct group *g, _Atomic int *w, int target, char *err,
		      size_t errlen)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };

	for (;;) {
		int v = atomic_load(w), ret;

		if (v >= target)
			return 0;
		if (g->broken)
			return -ECHILD;
		ret = group_check_agents(g, err, errlen);
		if (ret)
			return ret;
		futex_wait_shared(w, v, &tick);
	}
}

static void group_init_slots(struct group *g, int n)
{
	const struct run_cfg *c = g->c;

	for (int i = 0; i < g->ntotal; i++) {
		struct task_slot *s = &g->slots[i];

		s->agent = i < n ? (c->processes ? i : 0) : (i - n) % g->nagents;
		s->cpu = c->pin ? i % agent_ncpus() : -1;
		s->t.id = c->processes && i < n ? 0 : i;
		s->t.ntasks = c->processes ? 1 : n;
		s->t.o = &c->wo;
		s->t.params = c->wl->params;
		s->t.background = i >= n;
		s->t.bg = i >= n ? i - n : -1;
		s->t.stop = &g->shm->stop;
		s->t.interrupt = g->interrupt;
	}
}

/* The target's slab caches, shared by its mms (and task processes). */
static int group_slabs(struct group *g, int k, enum slab_kind slab,
		       char *err, size_t errlen)
{
	struct sim_mm_cfg mc = g->c->mm;
	int ret;

	mc.tree = g->tree;               /* its nodes' size */
	ret = sim_mm_slabs_create(&mc, slab, runner_target_rcu_free(g->c, k),
				  agent_ncpus(), &g->slab_vma, &g->slab_node);
	if (ret)
		snprintf(err, errlen, "cannot set up the %s slab caches: %s",
			 slab_kind_name(slab), strerror(-ret));
	return ret;
}

int group_create(const struct run_cfg *c, int k, int n,
		 _Atomic int *interrupt, struct group **out, char *err,
		 size_t errlen)
{
	const struct lock_ops *lock = runner_target_lock(c, k);
	enum slab_kind slab = runner_target_slab(c, k);
	int nbg = c->wl->background ? c->wl->background(&c->wo) : 0, ret = 0;
	struct group *g = calloc(1, sizeof(*g));
	void *p;

	if (!g) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*g = (struct group){ .c = c, .lock = lock,
			     .mprotect = runner_target_mprotect(c, k),
			     .tree = runner_target_tree(c, k),
			     .costs = c->targets[k].costs,
			     .nfg = n, .ntotal = n + nbg,
			     .nagents = c->processes ? n : 1, .interrupt = interrupt };
	g->len = sizeof(struct group_shm) +
		 sizeof(struct agent_rec) * (size_t)g->nagents +
		 sizeof(struct task_slot) * (size_t)g->ntotal;
	p = host_mmap(NULL, g->len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		snprintf(err, errlen, "cannot map the runner's shared memory: %s",
			 strerror(errno));
		free(g);
		return ret;
	}
	g->shm = p;
	g->rec = (struct agent_rec *)(g->shm + 1);
	g->slots = (struct task_slot *)(g->rec + g->nagents);
	group_init_slots(g, n);
	/* A zone for the group, before any agent is forked: its task
	 * processes share it, as processes share the kernel's. */
	if (c->frames != FRAMES_NONE) {
		ret = frames_create(c->frames, c->bulk_free,
				    (uint32_t)(c->phys >> SIM_PAGE_SHIFT),
				    agent_ncpus(), &g->frames);
		if (ret)
			snprintf(err, errlen, "cannot set up %zu MiB of simulated "
				 "page frames: %s", c->phys >> 20, strerror(-ret));
	}
	if (!ret && slab != SLAB_MALLOC)
		ret = group_slabs(g, k, slab, err, errlen);
	if (ret) {
	} else if (c->processes) {
		g->pids = calloc((size_t)g->nagents, sizeof(*g->pids));
		if (!g->pids)
			ret = -ENOMEM;
		for (int i = 0; !ret && i < g->nagents; i++)
			ret = agent_fork(g, i);
		if (ret)
			snprintf(err, errlen, "cannot start task processes: %s",
				 strerror(-ret));
	} else {
		ret = -pthread_create(&g->agent_thread, NULL, agent_thread_main, g);
		g->thread_started = !ret;
		if (ret)
			snprintf(err, errlen, "cannot start the agent thread: %s",
				 strerror(-ret));
	}
	if (!ret)
		ret = group_wait(g, &g->shm->started, g->nagents, err, errlen);
	/* An agent that could not start says why (before it exited). */
	for (int i = 0; (!ret || ret == -ECHILD) && i < g->nagents; i++)
		if (atomic_load(&g->rec[i].state) == AGENT_FAILED) {
			ret = g->rec[i].ret ? g->rec[i].ret : -EIO;
			snprintf(err, errlen, "%s", g->rec[i].err);
		}
	if (ret) {
		group_destroy(g, NULL);
		return ret;
	}
	*out = g;
	return 0;
}

/* Stop an iteration that must not run: tasks at the gate go home. */
static void group_abort(struct group *g)
{
	char ignore[8];

	atomic_store(&g->shm->go, -g->iter);
	agent_wake_all(&g->shm->go);
	group_wait(g, &g->shm->done, g->nagents, ignore, sizeof(ignore));
}

int group_start(struct group *g, char *err, size_t errlen)
{
	struct group_shm *shm = g->shm;
	int ret;

	g->iter++;
	atomic_store(&shm->iter, g->iter);
	atomic_store(&shm->ready, 0);
	atomic_store(&shm->go, 0);
	atomic_store(&shm->stop, 0);
	atomic_store(&shm->fg_done, 0);
	atomic_store(&shm->done, 0);
	atomic_store(&shm->cmd, CMD_ITERATE);
	agent_bump(&shm->cmd_seq);
	ret = group_wait(g, &shm->ready, g->ntotal, err, errlen);
	for (int i = 0; !ret && i < g->nagents; i++)
		if (g->rec[i].ret) {
			ret = g->rec[i].ret;
			snprintf(err, errlen, "%s", g->rec[i].err);
		}
	if (ret) {
		group_abort(g);
		return ret;
	}
	/* The timed phase begins. */
	atomic_store(&shm->go, g->iter);
	agent_wake_all(&shm->go);
	return 0;
}

uint64_t group_ops(struct group *g)
{
	uint64_t sum = 0;

	for (int i = 0; i < g->nfg; i++)
		sum += atomic_load_explicit(&g->slots[i].t.ops, memory_order_relaxed);
	return sum;
}

int group_check(struct group *g, char *err, size_t errlen)
{
	return g->broken ? -ECHILD : group_check_agents(g, err, errlen);
}

int group_wait_foreground(struct group *g, char *err, size_t errlen)
{
	return group_wait(g, &g->shm->fg_done, g->nfg, err, errlen);
}

/* A task's failure, said in one line. */
static void task_error(struct group *g, int i, int ret, char *err, size_t errlen)
{
	const struct sim_mm_cfg *mc = &g->c->mm;

	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s task %d: out of memory, or more VMAs "
			 "than --max-map-count (%zu)", g->c->wl->name, i,
			 mc->max_map_count ? mc->max_map_count :
			 (size_t)SIM_DEFAULT_MAX_MAP_COUNT);
	else
		snprintf(err, errlen, "%s task %d: %s", g->c->wl->name, i,
			 strerror(-ret));
}

/*
 * A task's CPU time: the thread's CPU clock, exact (the scheduler's
 * runtime at the moment of reading). getrusage(RUSAGE_THREAD) is good
 * only for the user/system split — its totals come from tick sampling
 * and can be a tick (4 ms) stale, which is most of a short run — so the
 * split is applied to the exact total. No tick seen: all system time (a
 * fault's work is kernel work).
 */
static void task_cpu(const struct task_slot *s, struct wl_iter *it)
{
	double cpu = (double)s->cpu_ns / 1e9, ticks = s->user + s->sys;

	/* Each side its own share (cpu - user could round below 0). */
	it->cpu += cpu;
	it->user += ticks > 0 ? cpu * s->user / ticks : 0;
	it->sys += ticks > 0 ? cpu * s->sys / ticks : cpu;
}

/* A task's call latencies into the point's (made on the first call). */
static void point_calls(struct res_point *p, const struct lat_hist *calls)
{
	if (p && calls->count && !p->call_lat)
		p->call_lat = calloc(1, sizeof(*p->call_lat));
	if (p && p->call_lat)
		hist_merge(p->call_lat, calls);
}

double group_cpu(const struct group *g)
{
	double t = host_pid_cpu(0);

	for (int i = 0; g->pids && i < g->nagents; i++)
		if (g->pids[i])
			t += host_pid_cpu(g->pids[i]);
	return t;
}

int group_finish(struct group *g, struct wl_iter *it, struct res_point *p,
		 char *err, size_t errlen)
{
	uint64_t first = UINT64_MAX, last = 0, hns = 0;
	int ret;

	/* Release: pairs with the acquire in wl_should_stop(). */
	atomic_store_explicit(&g->shm->stop, 1, memory_order_release);
	ret = group_wait(g, &g->shm->done, g->nagents, err, errlen);
	it->ntasks = g->nfg;
	for (int k = 0; k < g->nagents; k++) {
		hns += g->rec[k].handler_ns;
		it->ivcsw += g->rec[k].ivcsw;
		for (int i = 0; p && i < HOST_NCALLS; i++)
			p->host_calls[i] += g->rec[k].host[i];
	}
	it->handler = (double)hns / 1e9;
	for (int i = 0; i < g->ntotal; i++) {
		struct task_slot *s = &g->slots[i];

		if (s->ret && !ret) {
			ret = s->ret;
			task_error(g, i, ret, err, errlen);
		}
		if (s->t.background) {
			it->bg_ops += atomic_load(&s->t.ops);
			it->bg_aux += atomic_load(&s->t.aux);
			it->bg_cpu += (double)s->cpu_ns / 1e9;
			/* A background task's calls (maps_reader's writers'):
			 * the report's and the result's. */
			hist_merge(&it->bg_lat, &s->t.call_lat);
			point_calls(p, &s->t.call_lat);
			continue;
		}
		if (s->t_start < first)
			first = s->t_start;
		if (s->t_end > last)
			last = s->t_end;
		task_cpu(s, it);
		it->ops += atomic_load(&s->t.ops);
		for (int m = 0; m < RES_MAX_METRICS; m++)
			if (s->t.phase[m] > it->phase[m])
				it->phase[m] = s->t.phase[m];
		it->touches += s->t.touches;
		it->host_faults += s->host_faults;
		it->segv += s->t.segv;
		if (p && s->t.lat.count && !p->lat)
			p->lat = calloc(1, sizeof(*p->lat));
		if (p && p->lat)
			hist_merge(p->lat, &s->t.lat);
		point_calls(p, &s->t.call_lat);
	}
	it->elapsed = last > first ? (double)(last - first) / 1e9 : 0;
	return ret;
}

/* Reap a forked agent: it exits once it has cleaned up; one that has not
 * after 10 s is killed (a CI job must never hang). */
static void agent_reap(pid_t pid)
{
	for (int i = 0; i < 1000; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

uint64_t group_frames_failed(const struct group *g)
{
	return g->frames ? frames_counter(g->frames, FRAMES_ALLOC_FAIL) : 0;
}

/* Every mm is gone and gave its objects back: the caches' counters. */
static void group_slab_counters(const struct group *g, struct res_point *p)
{
	struct slab_cache *s[SIM_NSLABS] = { [SIM_SLAB_VMA] = g->slab_vma,
					     [SIM_SLAB_NODE] = g->slab_node };

	for (int i = 0; p && g->slab_vma && i < SIM_NSLABS; i++)
		for (int k = 0; k < SLAB_NCOUNTERS; k++) {
			uint64_t v = slab_counter(s[i], (enum slab_counter)k);

			if (k == SLAB_RCU_INFLIGHT_MAX)
				p->slab[i][k] = v > p->slab[i][k] ? v : p->slab[i][k];
			else
				p->slab[i][k] += v;
		}
	if (p && g->slab_vma)
		p->has_slab = true;
}

void group_destroy(struct group *g, struct res_point *p)
{
	if (!g)
		return;
	atomic_store(&g->shm->cmd, CMD_EXIT);
	agent_bump(&g->shm->cmd_seq);
	for (int i = 0; g->pids && i < g->nagents; i++)
		if (g->pids[i])
			agent_reap(g->pids[i]);
	if (g->thread_started)
		pthread_join(g->agent_thread, NULL);
	for (int i = 0; p && i < g->nagents; i++)
		if (atomic_load(&g->rec[i].state) == AGENT_READY)
			res_counters_add(&p->c, &g->rec[i].final);
	/* Every mm is gone and gave its frames back: the zone's counters. */
	for (int k = 0; p && g->frames && k < FRAMES_NCOUNTERS; k++)
		p->frames[k] += frames_counter(g->frames, (enum frames_counter)k);
	if (p && g->frames)
		p->has_frames = true;
	frames_destroy(g->frames);
	group_slab_counters(g, p);
	slab_cache_destroy(g->slab_vma);
	slab_cache_destroy(g->slab_node);
	host_munmap(g->shm, g->len);
	free(g->pids);
	free(g);
}
