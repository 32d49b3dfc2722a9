/* SPDX-License-Identifier: MIT */
/*
 * group — agents and their tasks (see group.h for what they are).
 *
 * One iteration, as the runner and the agents see it (all through the
 * shared block; every wait is a futex on it):
 *   runner: reset the counters, post ITERATE
 *   agent:  set up its mm (wl->setup), arm its tasks
 *   task:   report at the gate (ready++), wait for the gate
 *   runner: when every task is at the gate, open it (go = iter) — or,
 *           if some agent's set-up failed, abort it (go = -iter)
 *   task:   run; then fg_done++ (foreground) and finished++
 *   runner: sample / wait for fg_done; set stop
 *   agent:  when all its tasks finished, note the host calls and handler
 *           CPU of the timed phase, tear down, done++
 *   runner: when every agent is done, read the tasks' numbers
 * Set-up and teardown are outside the timed phase; so is everything an
 * agent does at start (mm, threads) and exit (counters, destroy).
 */
#include "workloads/group.h"

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
#include "base/slots.h"
#include "sim/host.h"
#include "workloads/watchdog.h"
#include "sim/faults/sources.h"
#include "workloads/group_int.h"
#include "base/clock.h"
#include "base/cpu.h"

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

int agent_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

/* Wake everyone waiting on w (seq_cst RMWs before: see each caller). */
void agent_wake_all(_Atomic int *w)
{
	futex_wake_shared(w, INT_MAX);
}

void agent_bump(_Atomic int *w)
{
	atomic_fetch_add(w, 1);
	agent_wake_all(w);
}

/* Wait until *w != seen; returns the new value. */
static int wait_change(_Atomic int *w, int seen)
{
	int v;

	while ((v = atomic_load(w)) == seen)
		futex_wait_shared(w, seen, NULL);
	return v;
}

/* --- tasks ----------------------------------------------------------------- */

static void task_run(const struct workload *wl, struct task_slot *s)
{
	struct timespec c0, c1;
	struct rusage r0, r1;

	getrusage(RUSAGE_THREAD, &r0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	s->t_start = mono_ns();
	s->ret = wl->task(&s->t);
	s->t_end = mono_ns();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	getrusage(RUSAGE_THREAD, &r1);
	s->cpu_ns = ts_ns(&c1) - ts_ns(&c0);
	s->user = tv_s(&r1.ru_utime) - tv_s(&r0.ru_utime);
	s->sys = tv_s(&r1.ru_stime) - tv_s(&r0.ru_stime);
	s->host_faults = (uint64_t)(r1.ru_minflt - r0.ru_minflt) +
			 (uint64_t)(r1.ru_majflt - r0.ru_majflt);
}

/* A task's thread: lives as long as the group, runs one iteration per
 * arming of its agent. */
static void *task_main(void *arg)
{
	struct task_ctx *x = arg;
	struct group_shm *shm = x->g->shm;
	struct task_slot *s = x->s;
	int armed = 0;

	pin_self(s->cpu);
	/* Its own counter slot: slots 0..ntotal-1 are the tasks'. */
	slots_bind((int)(s - x->g->slots));
	atomic_store(&s->t.tid, (int)gettid());
	for (;;) {
		int iter = wait_change(&x->r->arm, armed), go;

		armed = iter;
		if (iter < 0)
			break;
		agent_bump(&shm->ready);
		while ((go = atomic_load(&shm->go)) != iter && go != -iter)
			futex_wait_shared(&shm->go, go, NULL);
		if (go == iter)
			task_run(x->g->c->wl, s);
		if (!s->t.background)
			agent_bump(&shm->fg_done);
		agent_bump(&x->r->finished);
	}
	return NULL;
}

/* --- agents ------------------------------------------------------------------ */

/* The CPU time of the fault source's own threads (uffd handlers). */
static uint64_t worker_cpu_ns(const struct sim_mm *mm)
{
	return mm->src->ops->worker_cpu_ns ?
	       mm->src->ops->worker_cpu_ns(mm->src) : 0;
}

static int agent_start_mm(struct agent *a, char *err, size_t errlen)
{
	const struct run_cfg *c = a->g->c;
	struct sim_mm_cfg mc = c->mm;
	struct uffd_source_opts uo = c->uffd;
	int cpus[256], nc = agent_ncpus() < 256 ? agent_ncpus() : 256, ret;

	mc.lock = a->g->lock;
	mc.mprotect_range = a->g->mprotect;
	mc.tree = a->g->tree;
	mc.costs = a->g->costs;
	uo.nuffds = runner_uffds(c, a->g->nfg);
	uo.nhandlers = runner_handlers_per_uffd(c, a->g->nfg);
	uo.slot_base = a->g->ntotal;         /* after the tasks' slots */
	/* Read only while the mm is made (uo is this frame's). */
	mc.source_opts = mc.source == &uffd_fault_source ? &uo : NULL;
	mc.frames = a->g->frames;
	mc.slab_vma = a->g->slab_vma;
	mc.slab_node = a->g->slab_node;
	/* Handler i on task i's CPU (same) or the next one (other): a
	 * process's one handler beside its task; the shared mm's handlers
	 * spread over all CPUs as its tasks are (any of them may answer any
	 * task's fault: one uffd). any: wherever the scheduler puts them. */
	for (int i = 0; i < nc; i++)
		cpus[i] = (i + (c->handler_cpu == HANDLER_CPU_OTHER)) % nc;
	if (c->handler_cpu != HANDLER_CPU_ANY && c->processes) {
		uo.cpus = &cpus[a->id % nc];
		uo.ncpus = 1;
	} else if (c->handler_cpu != HANDLER_CPU_ANY) {
		uo.cpus = cpus;
		uo.ncpus = nc;
	}
	ret = sim_mm_create(&mc, &a->mm);
	/* With a uffd per task the arena is registered in 2 MiB stripes, a
	 * mapping each: 8192 for the default 16G, per target of the run,
	 * all counted against the host's vm.max_map_count. */
	if (ret)
		snprintf(err, errlen, "cannot create the simulated mm: %s%s",
			 strerror(-ret), ret == -ENOMEM && c->uffd_split !=
			 UFFD_SPLIT_SHARED && !c->processes ? " (a uffd per "
			 "task registers the arena in 2M stripes, a mapping each "
			 "of every scheme's: within vm.max_map_count, give a "
			 "smaller --arena, fewer schemes, or --uffd shared)" : "");
	return ret;
}

static void agent_stop_threads(struct agent *a)
{
	if (!a->r)
		return;
	atomic_store(&a->r->arm, -1);
	agent_wake_all(&a->r->arm);
	for (int i = 0; i < a->nthreads; i++)
		pthread_join(a->threads[i], NULL);
	a->nthreads = 0;
}

static void agent_fini(struct agent *a)
{
	agent_stop_threads(a);
	watchdog_stop(a->wd);
	if (a->mm) {
		sim_mm_stop_handlers(a->mm);
		res_counters_collect(&a->r->final, a->mm);
		sim_mm_destroy(a->mm);
	}
	free(a->mine);
	free(a->tasks);
	free(a->ctx);
	free(a->threads);
}

static int agent_init(struct agent *a)
{
	struct group *g = a->g;
	int ret;

	ret = agent_start_mm(a, a->r->err, sizeof(a->r->err));
	if (ret)
		return ret;
	for (int i = 0; i < g->ntotal; i++)
		a->nmine += g->slots[i].agent == a->id;
	a->mine = calloc((size_t)a->nmine, sizeof(*a->mine));
	a->tasks = calloc((size_t)a->nmine, sizeof(*a->tasks));
	a->threads = calloc((size_t)a->nmine, sizeof(*a->threads));
	a->ctx = calloc((size_t)a->nmine, sizeof(*a->ctx));
	if (!a->mine || !a->tasks || !a->threads || !a->ctx) {
		snprintf(a->r->err, sizeof(a->r->err), "out of memory");
		return -ENOMEM;
	}
	for (int i = 0, k = 0; i < g->ntotal; i++) {
		if (g->slots[i].agent != a->id)
			continue;
		g->slots[i].t.mm = a->mm;
		a->mine[k] = &g->slots[i];
		a->tasks[k] = &g->slots[i].t;
		a->ctx[k] = (struct task_ctx){ g, a->r, &g->slots[i] };
		k++;
	}
	for (int k = 0; k < a->nmine; k++) {
		ret = -pthread_create(&a->threads[k], NULL, task_main, &a->ctx[k]);
		if (ret) {
			snprintf(a->r->err, sizeof(a->r->err), "cannot start a "
				 "task thread: %s", strerror(-ret));
			return ret;
		}
		a->nthreads++;
	}
	ret = watchdog_start(&a->wd, g->c->fault_timeout, a->tasks, a->nmine,
			     a->mm, g->interrupt);
	if (ret)
		snprintf(a->r->err, sizeof(a->r->err), "cannot start the "
			 "watchdog: %s", strerror(-ret));
	return ret;
}

static void agent_iterate(struct agent *a)
{
	struct group *g = a->g;
	const struct run_cfg *c = g->c;
	int iter = atomic_load(&g->shm->iter), ret = 0;
	uint64_t h0[HOST_NCALLS], h1[HOST_NCALLS], hcpu = 0;
	struct rusage ru0, ru1;
	void *shared = NULL;

	a->r->ret = 0;
	atomic_store(&a->r->finished, 0);
	if (c->wl->setup)
		ret = c->wl->setup(a->mm, &c->wo, c->processes ? 1 : g->nfg,
				   &shared);
	if (ret) {
		a->r->ret = ret;
		/* Every target's tasks, handlers and uffd stripes are set
		 * up at once: at hundreds of tasks under several schemes the
		 * process's mappings can reach vm.max_map_count. */
		snprintf(a->r->err, sizeof(a->r->err), "%s setup with %d tasks: "
			 "%s%s", c->wl->name, g->nfg, strerror(-ret),
			 ret == -ENOMEM ? " (the host's memory, or its "
			 "vm.max_map_count: fewer tasks or schemes a run)" : "");
		/* Its tasks will not come to the gate: stand in for them. */
		atomic_fetch_add(&g->shm->ready, a->nmine);
		agent_wake_all(&g->shm->ready);
		agent_bump(&g->shm->done);
		return;
	}
	for (int k = 0; k < a->nmine; k++) {
		struct wl_task *t = &a->mine[k]->t;

		t->shared = shared;
		atomic_store(&t->ops, 0);
		atomic_store(&t->aux, 0);
		t->touches = t->segv = 0;
		t->ns_per_cycle = clock_ns_per_cycle();
		memset(&t->lat, 0, sizeof(t->lat));
		memset(&t->call_lat, 0, sizeof(t->call_lat));
		memset(t->phase, 0, sizeof(t->phase));
		a->mine[k]->ret = 0;
		a->mine[k]->cpu_ns = a->mine[k]->t_start = a->mine[k]->t_end = 0;
	}
	host_counts(h0);
	getrusage(RUSAGE_SELF, &ru0);
	hcpu = worker_cpu_ns(a->mm);
	atomic_store(&a->r->arm, iter);
	agent_wake_all(&a->r->arm);
	for (int f; (f = atomic_load(&a->r->finished)) < a->nmine;)
		futex_wait_shared(&a->r->finished, f, NULL);
	host_counts(h1);
	getrusage(RUSAGE_SELF, &ru1);
	a->r->ivcsw = (uint64_t)(ru1.ru_nivcsw - ru0.ru_nivcsw);
	for (int i = 0; i < HOST_NCALLS; i++)
		a->r->host[i] = h1[i] - h0[i];
	a->r->handler_ns = worker_cpu_ns(a->mm) - hcpu;
	if (c->wl->teardown)
		c->wl->teardown(a->mm, &c->wo, shared);
	agent_bump(&g->shm->done);
}

static int agent_main(struct group *g, int id)
{
	struct agent a = { .g = g, .id = id, .r = &g->rec[id] };
	int ret = agent_init(&a), seen = 0;

	a.r->ret = ret;
	atomic_store(&a.r->state, ret ? AGENT_FAILED : AGENT_READY);
	agent_bump(&g->shm->started);
	while (!ret) {
		seen = wait_change(&g->shm->cmd_seq, seen);
		if (atomic_load(&g->shm->cmd) == CMD_EXIT)
			break;
		agent_iterate(&a);
	}
	agent_fini(&a);
	agent_bump(&g->shm->exited);
	return ret;
}

void *agent_thread_main(void *arg)
{
	agent_main(arg, 0);
	return NULL;
}

/* A forked agent: its own host process, ended with its parent. */
int agent_fork(struct group *g, int id)
{
	pid_t parent = getpid(), pid;

	sim_rcu_before_fork();
	pid = fork();
	if (pid == 0) {
		sim_rcu_after_fork_child();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		/* The runner decides when to stop, for all of us. */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		_exit(agent_main(g, id) ? 1 : 0);
	}
	sim_rcu_after_fork_parent();
	if (pid < 0)
		return -errno;
	g->pids[id] = pid;
	return 0;
}
