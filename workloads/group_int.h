/* SPDX-License-Identifier: MIT */
/* What the two halves of a task group share (agent.c: the tasks and the
 * agents that run them, in threads or processes; group.c: the runner's
 * side). Private to workloads/. */
#ifndef VMSIM_GROUP_INT_H
#define VMSIM_GROUP_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "workloads/group.h"
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
	uint64_t ivcsw;                  /* its process's involuntary context
					  * switches in the iteration (one
					  * agent in threads mode: all of
					  * vmsim's threads) */
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
	uint64_t host_faults;            /* the host's faults it took (its
					  * RUSAGE_THREAD minflt + majflt) */
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
	enum lock_mprotect_range mprotect; /* the target's, for its mms */
	enum vma_tree_kind tree;           /* the target's, for its mms */
	struct sim_costs costs;            /* the target's, for its mms */
	struct group_shm *shm;           /* the shared block ... */
	struct agent_rec *rec;           /* ... its agents */
	struct task_slot *slots;         /* ... and tasks */
	size_t len;
	int nagents, nfg, ntotal;
	_Atomic int *interrupt;
	pid_t *pids;                     /* processes mode; 0 once reaped */
	bool broken;                     /* an agent died: nothing to wait for */
	struct frames *frames;           /* shared by its agents; or NULL */
	struct slab_cache *slab_vma, *slab_node;     /* likewise */
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

int agent_ncpus(void);
void agent_wake_all(_Atomic int *w);
void agent_bump(_Atomic int *w);
void *agent_thread_main(void *arg);
int agent_fork(struct group *g, int id);

#endif
