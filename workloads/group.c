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

#include "sync/futex.h"
#include "sync/rcu.h"
#include "uffd/host.h"
#include "workloads/watchdog.h"

enum { CMD_NONE, CMD_ITERATE, CMD_EXIT };
enum { AGENT_STARTING, AGENT_READY, AGENT_FAILED };

/* One agent's part of the shared block. */
struct agent_rec {
	_Atomic int arm;                 /* iteration its tasks run; -1: exit */
	_Atomic int finished;            /* its tasks done with the iteration */
	_Atomic int state;               /* AGENT_* */
	int ret;                         /* -errno: start or set-up failed */
	char err[256];
	uint64_t handler_ns;             /* the iteration's handler CPU */
	uint64_t host[HOST_NCALLS];      /* the iteration's host calls */
	struct res_counters final;       /* at exit */
} __attribute__((aligned(64)));

struct task_slot {
	struct wl_task t;                /* first: cache-line aligned */
	int agent;                       /* which agent runs it */
	int cpu;                         /* pin to this CPU, or -1 */
	int ret;
	uint64_t t_start, t_end;         /* ns, CLOCK_MONOTONIC */
	uint64_t cpu_ns;                 /* CLOCK_THREAD_CPUTIME_ID delta */
	double user, sys;                /* s, RUSAGE_THREAD delta */
} __attribute__((aligned(64)));

struct group_shm {
	_Atomic int cmd_seq;             /* bumped with every command */
	_Atomic int cmd;
	_Atomic int iter;                /* the iteration, from 1 */
	_Atomic int started;             /* agents up (or failed) */
	_Atomic int ready;               /* tasks at the gate */
	_Atomic int go;                  /* iter: run; -iter: abort */
	_Atomic int stop;                /* non-zero: stop (tasks poll it) */
	_Atomic int fg_done;             /* foreground tasks finished */
	_Atomic int done;                /* agents finished the iteration */
	_Atomic int exited;              /* agents gone */
} __attribute__((aligned(64)));

struct group {
	const struct run_cfg *c;
	const struct lock_ops *lock;
	struct group_shm *shm;           /* the shared block ... */
	struct agent_rec *rec;           /* ... its agents */
	struct task_slot *slots;         /* ... and tasks */
	size_t len;
	int nagents, nfg, ntotal;
	_Atomic int *interrupt;
	pid_t *pids;                     /* processes mode; 0 once reaped */
	bool broken;                     /* an agent died: nothing to wait for */
	pthread_t agent_thread;          /* threads mode */
	bool thread_started;
	int iter;
};

/* What an agent keeps in its own process. */
struct agent {
	struct group *g;
	int id;
	struct agent_rec *r;
	struct sim_mm *mm;
	int nmine;
	struct task_slot **mine;
	struct wl_task **tasks;          /* the same, for the watchdog */
	struct task_ctx *ctx;            /* one per thread, for its life */
	pthread_t *threads;
	int nthreads;
	struct watchdog *wd;
};

struct task_ctx {
	struct group *g;
	struct agent_rec *r;
	struct task_slot *s;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static int ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

/* Wake everyone waiting on w (seq_cst RMWs before: see each caller). */
static void wake_all(_Atomic int *w)
{
	futex_wake_shared(w, INT_MAX);
}

static void bump(_Atomic int *w)
{
	atomic_fetch_add(w, 1);
	wake_all(w);
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
	s->t_start = now_ns();
	s->ret = wl->task(&s->t);
	s->t_end = now_ns();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	getrusage(RUSAGE_THREAD, &r1);
	s->cpu_ns = ts_ns(&c1) - ts_ns(&c0);
	s->user = tv_s(&r1.ru_utime) - tv_s(&r0.ru_utime);
	s->sys = tv_s(&r1.ru_stime) - tv_s(&r0.ru_stime);
}

/* A task's thread: lives as long as the group, runs one iteration per
 * arming of its agent. */
static void *task_main(void *arg)
{
	struct task_ctx *x = arg;
	struct group_shm *shm = x->g->shm;
	struct task_slot *s = x->s;
	int armed = 0;

	if (s->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(s->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	atomic_store(&s->t.tid, (int)gettid());
	for (;;) {
		int iter = wait_change(&x->r->arm, armed), go;

		armed = iter;
		if (iter < 0)
			break;
		bump(&shm->ready);
		while ((go = atomic_load(&shm->go)) != iter && go != -iter)
			futex_wait_shared(&shm->go, go, NULL);
		if (go == iter)
			task_run(x->g->c->wl, s);
		if (!s->t.background)
			bump(&shm->fg_done);
		bump(&x->r->finished);
	}
	return NULL;
}

/* --- agents ------------------------------------------------------------------ */

static int agent_start_mm(struct agent *a, char *err, size_t errlen)
{
	const struct run_cfg *c = a->g->c;
	struct sim_mm_cfg mc = c->mm;
	int cpus[256], nc = ncpus() < 256 ? ncpus() : 256, ret;

	mc.lock = a->g->lock;
	if (!mc.src.nhandlers)
		mc.src.nhandlers = c->processes ? 1 : a->g->nfg;
	for (int i = 0; i < nc; i++)
		cpus[i] = i;
	/* Pinned: a process's handler on its task's CPU; the shared mm's
	 * handlers spread over all CPUs, as the tasks are. */
	if (c->pin && c->processes) {
		mc.src.cpus = &cpus[a->id % nc];
		mc.src.ncpus = 1;
	} else if (c->pin) {
		mc.src.cpus = cpus;
		mc.src.ncpus = nc;
	}
	ret = sim_mm_create(&mc, &a->mm);
	if (ret)
		snprintf(err, errlen, "cannot create the simulated mm: %s",
			 strerror(-ret));
	return ret;
}

static void agent_stop_threads(struct agent *a)
{
	if (!a->r)
		return;
	atomic_store(&a->r->arm, -1);
	wake_all(&a->r->arm);
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
	void *shared = NULL;

	a->r->ret = 0;
	atomic_store(&a->r->finished, 0);
	if (c->wl->setup)
		ret = c->wl->setup(a->mm, &c->wo, c->processes ? 1 : g->nfg,
				   &shared);
	if (ret) {
		a->r->ret = ret;
		snprintf(a->r->err, sizeof(a->r->err), "%s setup with %d tasks: "
			 "%s", c->wl->name, g->nfg, strerror(-ret));
		/* Its tasks will not come to the gate: stand in for them. */
		atomic_fetch_add(&g->shm->ready, a->nmine);
		wake_all(&g->shm->ready);
		bump(&g->shm->done);
		return;
	}
	for (int k = 0; k < a->nmine; k++) {
		struct wl_task *t = &a->mine[k]->t;

		t->shared = shared;
		atomic_store(&t->ops, 0);
		t->touches = t->segv = 0;
		memset(t->phase, 0, sizeof(t->phase));
		a->mine[k]->ret = 0;
		a->mine[k]->cpu_ns = a->mine[k]->t_start = a->mine[k]->t_end = 0;
	}
	host_counts(h0);
	hcpu = a->mm->src->ops->handler_cpu_ns(a->mm->src);
	atomic_store(&a->r->arm, iter);
	wake_all(&a->r->arm);
	for (int f; (f = atomic_load(&a->r->finished)) < a->nmine;)
		futex_wait_shared(&a->r->finished, f, NULL);
	host_counts(h1);
	for (int i = 0; i < HOST_NCALLS; i++)
		a->r->host[i] = h1[i] - h0[i];
	a->r->handler_ns = a->mm->src->ops->handler_cpu_ns(a->mm->src) - hcpu;
	if (c->wl->teardown)
		c->wl->teardown(a->mm, &c->wo, shared);
	bump(&g->shm->done);
}

static int agent_main(struct group *g, int id)
{
	struct agent a = { .g = g, .id = id, .r = &g->rec[id] };
	int ret = agent_init(&a), seen = 0;

	a.r->ret = ret;
	atomic_store(&a.r->state, ret ? AGENT_FAILED : AGENT_READY);
	bump(&g->shm->started);
	while (!ret) {
		seen = wait_change(&g->shm->cmd_seq, seen);
		if (atomic_load(&g->shm->cmd) == CMD_EXIT)
			break;
		agent_iterate(&a);
	}
	agent_fini(&a);
	bump(&g->shm->exited);
	return ret;
}

static void *agent_thread_main(void *arg)
{
	agent_main(arg, 0);
	return NULL;
}

/* A forked agent: its own host process, ended with its parent. */
static int agent_fork(struct group *g, int id)
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
		_exit(agent_main(g, id) ? 1 : 0);
	}
	sim_rcu_after_fork_parent();
	if (pid < 0)
		return -errno;
	g->pids[id] = pid;
	return 0;
}

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
		s->cpu = c->pin ? i % ncpus() : -1;
		s->t.id = c->processes && i < n ? 0 : i;
		s->t.ntasks = c->processes ? 1 : n;
		s->t.o = &c->wo;
		s->t.background = i >= n;
		s->t.stop = &g->shm->stop;
		s->t.interrupt = g->interrupt;
	}
}

int group_create(const struct run_cfg *c, const struct lock_ops *lock, int n,
		 _Atomic int *interrupt, struct group **out, char *err,
		 size_t errlen)
{
	int nbg = c->wl->background ? c->wl->background(&c->wo) : 0, ret = 0;
	struct group *g = calloc(1, sizeof(*g));
	void *p;

	if (!g) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*g = (struct group){ .c = c, .lock = lock, .nfg = n, .ntotal = n + nbg,
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
	if (c->processes) {
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
	wake_all(&g->shm->go);
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
	bump(&shm->cmd_seq);
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
	wake_all(&shm->go);
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
	double user = ticks > 0 ? cpu * s->user / ticks : 0;

	it->cpu += cpu;
	it->user += user;
	it->sys += cpu - user;
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
		it->segv += s->t.segv;
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

void group_destroy(struct group *g, struct res_point *p)
{
	if (!g)
		return;
	atomic_store(&g->shm->cmd, CMD_EXIT);
	bump(&g->shm->cmd_seq);
	for (int i = 0; g->pids && i < g->nagents; i++)
		if (g->pids[i])
			agent_reap(g->pids[i]);
	if (g->thread_started)
		pthread_join(g->agent_thread, NULL);
	for (int i = 0; p && i < g->nagents; i++)
		if (atomic_load(&g->rec[i].state) == AGENT_READY)
			res_counters_add(&p->c, &g->rec[i].final);
	host_munmap(g->shm, g->len);
	free(g->pids);
	free(g);
}
