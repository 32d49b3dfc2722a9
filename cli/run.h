/* SPDX-License-Identifier: MIT */
/* vmsim run's helpers: its checks and interrupts (cli/run_guard.c), its
 * output (cli/run_print.c). */
#ifndef VMSIM_RUN_H
#define VMSIM_RUN_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "resfile/run_options.h"
#include "resfile/run_opts.h"
#include "sim/result.h"
#include "workloads/runner.h"

/* From here SIGINT/SIGTERM stop the run (see run_guard.c). */
void run_install_interrupts(void);
/* The first interrupting signal, or 0. */
int run_first_signal(void);
/* Can this run have the userfaultfd the uffd source needs? 0, or 1
 * after one line saying why not. */
int run_uffd_preflight(void);
/* The run's memory, tasks and address space against this machine's
 * limits: 0, or EXIT_USAGE after one line (a command-line check). */
int run_check_limits(const struct run_cfg *c, int max_tasks, bool mem_given);

/* The machine's busy CPU time and our own, at one moment. */
struct host_busy {
	bool ok;
	double busy, own, wall;          /* seconds */
};
void run_host_busy_now(struct host_busy *b);
/* After the tables: one line per primary metric whose CoeffVar is over
 * 10%, and one if other processes kept CPUs busy during the run. */
void run_warn_noise(const struct res_file *r, int n, const struct host_busy *t0,
		    const struct run_cfg *c);
/* Before the run: a look at the machine since a (the host probe's time,
 * made up to RUN_BUSY_LOOK_S); one line (and true) if others keep busy
 * the CPUs the run will need (the verdicts' rule, resfile/busy.h). */
#define RUN_BUSY_LOOK_S 0.3
bool run_warn_busy_before(const struct run_cfg *c, const struct host_busy *a);
/* Before the run: one line if at some task count the threads that run
 * without blocking (tasks, writers, busy-polling handlers) outnumber
 * the online CPUs: they take turns, and no scheme scales past them. */
void run_warn_oversubscribed(const struct run_cfg *c);

/* The simulated memory's options (cli/run_mem.c: those of
 * resfile/run_opts.def parsed RUN_PARSE_MEM): 0, or EXIT_USAGE after one
 * line. */
int run_mem_opt(struct run_cfg *c, enum run_opt_id which, const char *arg);
/* After the options: --phys's default (what the run populates, and
 * room), or a refusal where it is too small. 0 or EXIT_USAGE. */
int run_mem_settle(struct run_cfg *c);
/* The pages a run may have resident at once (for --phys). */
size_t run_mem_need(const struct run_cfg *c);

/* The replay workload (cli/run_replay.c): --trace, --speed, --replay-log
 * (RUN_PARSE_REPLAY): 0 or EXIT_USAGE; after the options, its plan read
 * and the task count set: 0 or EXIT_USAGE; what the plan replays,
 * printed; after the run, what diverged, and the plan freed. */
int run_replay_opt(struct run_cfg *c, enum run_opt_id which, const char *arg);
int run_replay_settle(struct run_cfg *c, bool tasks_given, bool arena_given,
		      bool force);
/* TRACE.mmap_lock.json (its name into path) into h: 0, 1 when there is
 * none, -1 with the reason in *why (unreadable, not vmsim record's). */
/* The most a lock file may be (a thread a line: a few MiB at most). */
#define RUN_HOST_LOCK_MAX (64L << 20)
int run_host_lock_read(const char *trace, struct res_host_lock *h,
		       char *path, size_t plen, const char **why);

/* The replay log published (complete: the run was): 0, -EEXIST when it
 * went elsewhere, -errno when lost; each said in one line. */
int run_replay_publish(struct run_cfg *c, bool complete);
void run_replay_print(const struct run_cfg *c);
/* Its pace (and a warning where asap puts more threads than CPUs), and
 * the bound its recording puts on any scheme (the host's mmap_lock
 * waits over its span). */
void run_replay_print_pace(const struct run_cfg *c);
void run_replay_print_bound(const struct run_cfg *c);
/* After the run: each target's time a pass beside the program's, and a
 * warning where asap made the replay many times denser. */
void run_replay_pace_report(const struct run_cfg *c, const struct res_file *r,
			    int n);
void run_replay_done(struct run_cfg *c);

/* The harness's own ceiling (cli/run_ceiling.c): pft under the none
 * scheme at 1 and the run's task counts, with its fault source, mode and
 * uffd and handler options, rounds samples each (mem 0: 16 MiB a task). */
#define RUN_CEILING_MIN_EFF 0.8      /* below: the run is told */
struct run_ceiling {
	int n;
	int tasks[RUNNER_MAX_TASKLIST + 1];
	double rate[RUNNER_MAX_TASKLIST + 1];   /* BHmean-50 faults/s */
	double cv[RUNNER_MAX_TASKLIST + 1];     /* CoeffVar (0 to 1) */
	double eff[RUNNER_MAX_TASKLIST + 1];    /* rate / (1-task rate x
						 * min(tasks, CPUs)) */
};
/* 0 or -errno (why in err); out holds what was measured. */
int run_ceiling_measure(const struct run_cfg *c, int rounds, size_t mem,
			struct run_ceiling *out, char *err, size_t errlen);
/* The region it uses by default: 16 MiB a task. */
size_t run_ceiling_mem(const struct run_cfg *c);
/* The efficiency measured at tasks, or NaN. */
double run_ceiling_eff(const struct run_ceiling *h, int tasks);
void run_ceiling_print(FILE *f, const struct run_ceiling *h);
/* One warning line for each of tasks[] (2 or more) where the harness is
 * under RUN_CEILING_MIN_EFF; returns how many. */
int run_ceiling_warn(FILE *f, const struct run_ceiling *h, const int *tasks,
		     int ntasks);

/* vmsim run's arguments (argv[0] "run") parsed and settled as a run
 * settles them, nothing run: the part of target 0's result that vmsim
 * rerun reads (scheme, workload, fault source, options); NULL after the
 * complaint (cli/cmd_run.c; tests/cli/test_options.c). */
json_object *cmd_run_preview(int argc, char **argv);

/* --costs (cli/run_costs.c). arg "none", or a cost profile (a file, a
 * result made with --costs, or its JSON text) of this host: 0 with *out
 * and *raw (the caller's to free; NULL for none), or EXIT_USAGE after
 * one line. run_costs_check: the same, nothing kept (calibrate, gate). */
struct cost_profile;
int run_costs_load(const char *arg, struct cost_profile **out,
		   json_object **raw);
int run_costs_check(const char *arg);
/* Each model target's costs from p (NULL: none): 0, or EXIT_USAGE after
 * one line where p has no entry for a target's scheme and tree. */
int run_costs_settle(struct run_cfg *c, const struct cost_profile *p);
/* A line per model target: each class's cost, model, paid and kernel. */
void run_costs_print(FILE *f, const struct run_cfg *c,
		     const struct cost_profile *p);

/* The exit status of a run that returned ret (cli/run_guard.c). */
int run_status(int ret);

void run_print_banner(const struct run_cfg *c);
/* With a kernel column (-l kernel): one line on the host kernel it runs
 * (release, per-VMA locks, a VM's first-touch cost). */
void run_print_host_kernel(const struct run_cfg *c,
			   const struct res_host_kernel *k);
void run_print_summary(const struct res_file *r, const struct run_cfg *c,
		   bool brief);
/* Several schemes in one run: the comparison table. */
void run_print_comparison(struct res_file *r, int n, bool brief,
			  bool verdicts_only);
/* One warning line (stderr) per fault-source operation the host refused
 * during the run, and for failed reads of the uffd. label: the target's
 * name with several, or NULL. */
void run_print_source_errors(const struct res_file *r, const char *label);
/* FILE for one scheme, FILE-<scheme>.json (FILE without .json) for many. */
/* 0, or -ENAMETOOLONG when it does not fit in len (nothing is cut). */
int run_result_path(char *out, size_t len, const char *json, const char *scheme);
/* DIR/<scheme>.json: a result in the results directory DIR. */
int run_dir_result_path(char *out, size_t len, const char *dir,
			 const char *scheme);

/* What the test binary changes of a settled run (tests/cli/vmsim_test.c:
 * a fault left unanswered, a zone that runs out); NULL in vmsim. */
struct run_cfg;
extern void (*cmd_run_test_hooks)(struct run_cfg *c);

/* arg as one of names (an option's values from a lower layer's list),
 * or as one of the option's own choices (names NULL): the index, or -1
 * after one line naming the option's what. */
int run_opt_pick(enum run_opt_id id, const char *arg, const char *const *names,
		 int n);

#endif
