/* SPDX-License-Identifier: MIT */
/*
 * vmsim calibrate: how far the models are from the host kernel on this
 * machine. Each workload runs with -l kernel,SCHEME (SCHEME the design
 * the host's faults follow: pervma with per-VMA locks, rwsem without) at
 * 1 to CPUs tasks under each fault source, as `vmsim run` children
 * (gate_run_one: their own process group, a timeout, the interrupt
 * forwarded); one table then sets each model's rate against the
 * kernel's and its scaling against the kernel's (cmp_host_distance),
 * with a warning where the shapes differ by more than
 * CMP_HOST_SHAPE_WARN per cent beyond the spread of the runs.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "cli/cmd.h"
#include "analysis/compare.h"
#include "cli/gate.h"
#include "base/parse.h"
#include "base/safefile.h"
#include "locks/lock_ops.h"
#include "workloads/workload.h"
#include "cli/run.h"
#include "resfile/busy.h"
#include "resfile/cost_profile.h"
#include "base/stats.h"

#define CAL_DEFAULT_WORKLOADS "pft,page_fault1,mmap1,brk1,fault_vs_mmap,malloc_arena"
#define CAL_RUN_TIMEOUT_S 1800

struct cal_args {
	const char *workloads, *sources, *tasks, *dir;
	const char *profile, *costs;     /* --profile FILE, --costs FILE|none */
	int duration, iterations, rounds, calls;
	bool quiet, force;
};

static void cal_workload_names(const struct cli_opt *o, FILE *f)
{
	(void)o;
	cmd_list_workloads(f);
}

static void cal_source_names(const struct cli_opt *o, FILE *f)
{
	(void)o;
	fputs("synthetic uffd", f);
}

#define STR_(x) #x
#define STR(x) STR_(x)
#define T struct cal_args
static const struct cli_opt cal_opts[] = {
	{ .kind = CLI_OPT_STRING, .shrt = 'w', .name = "workload",
	  .metavar = "LIST", .help = "workloads (default " CAL_DEFAULT_WORKLOADS ")",
	  .off = CLI_AT(T, workloads, const char *), .values = cal_workload_names },
	CLI_STR(T, tasks, 't', "tasks", "LIST", "task counts (default 1-CPUs)"),
	{ .kind = CLI_OPT_STRING, .name = "fault-source", .metavar = "LIST",
	  .help = "synthetic,uffd (default both)",
	  .off = CLI_AT(T, sources, const char *), .values = cal_source_names },
	CLI_INT(T, duration, 0, "duration", "N", 1, 3600,
		"loop workloads' samples (default 5)"),
	CLI_INT(T, iterations, 'i', "iterations", "N", 1, 3600,
		"other workloads' samples (default 5)"),
	CLI_STR(T, dir, 0, "keep", "DIR",
		"keep the runs' results and logs in DIR\n"
		"(new; default: a temporary one, removed)"),
	CLI_STR(T, costs, 0, "costs", "FILE|none",
		"the runs' models pay the cost profile FILE\n"
		"(vmsim run --costs; default none)"),
	CLI_STR(T, profile, 0, "profile", "FILE",
		"instead of the table: measure what each\n"
		"operation costs the kernel and every model\n"
		"at one task (its mmap_lock traced) and\n"
		"write the cost profile FILE (new) for\n"
		"--costs"),
	CLI_INT(T, rounds, 0, "rounds", "N", 1, COST_PROBE_MAX_ROUNDS,
		"--profile's rounds, cases rotated (default 9)"),
	CLI_INT(T, calls, 0, "calls", "N", 2, 100000,
		"--profile's calls a round (default 2000)"),
	CLI_FLAG(T, force, 0, "force", "--profile may replace a cost profile"),
	CLI_FLAG(T, quiet, 'q', "quiet", "no progress lines on stderr"),
	CLI_HELP_OPT,
	CLI_END
};
#undef T

static int cmd_calibrate(int argc, char **argv, const struct cli_ctx *ctx);

const struct cli_command cmd_calibrate_desc = {
	.name = "calibrate",
	.summary = "the models against the host kernel (-l kernel): each\n"
		   "one's rate and scaling beside the kernel's, one table",
	.synopsis = "calibrate [options]",
	.text = "How far the models are from the host kernel on this machine: each\n"
		"workload runs with -l kernel,SCHEME (SCHEME: the design the host's\n"
		"faults follow, pervma with per-VMA locks, rwsem without) at each\n"
		"task count, under each fault source; one table sets the model's\n"
		"rate against the kernel's and its scaling (rate at N tasks over its\n"
		"own at the fewest) against the kernel's, and warns where the shapes\n"
		"differ by more than " STR(CMP_HOST_SHAPE_WARN_PCT) "% beyond the "
		"spread of the runs.\n",
	.opts = cal_opts,
	.exits = "\nexit status: 0 done (warnings or not); 1 a run failed (stderr\n"
		 "  says which, and where its log is); 2 bad input.\n",
	.in_order = true,
	.run = cmd_calibrate,
};

/* The recipe of one run: the workload's own samples option. */
static int cal_recipe(const struct cal_args *a, const char *wl,
		      const char *scheme, const char *src,
		      struct run_args_vec *v)
{
	char locks[64], n[16];
	bool loop = strcmp(wl, "pft") && strcmp(wl, "fault_vs_mmap");

	snprintf(locks, sizeof(locks), "kernel,%s", scheme);
	snprintf(n, sizeof(n), "%d", loop ? a->duration : a->iterations);
	return run_args_add(v, "-w") ?: run_args_add(v, wl) ?:
	       run_args_add(v, "-l") ?: run_args_add(v, locks) ?:
	       run_args_add(v, "--fault-source") ?: run_args_add(v, src) ?:
	       run_args_add(v, "-t") ?: run_args_add(v, a->tasks) ?:
	       run_args_add(v, loop ? "--duration" : "-i") ?:
	       run_args_add(v, n) ?:
	       (a->costs ? run_args_add(v, "--costs") ?:
			   run_args_add(v, a->costs) : 0);
}

/* The larger CoeffVar (per cent) of the kernel's and the model's samples
 * of metric m at tasks; NaN with fewer than two on both sides. */
static double cal_spread(const struct cmp_file f[2], const struct cmp_metric *m,
			 int tasks)
{
	double worst = NAN;

	for (int i = 0; m && i < 2; i++) {
		double *x, mean;
		size_t n = cmp_samples_of(&f[i], m->name, tasks, &x);

		mean = n > 1 ? stats_amean(x, n) : NAN;
		if (n > 1 && mean > 0) {
			double cv = 100 * stats_stddev(x, n) / mean;

			worst = isnan(worst) || cv > worst ? cv : worst;
		}
		free(x);
	}
	return worst;
}

/* Why a row has no figure: a file's own fault (cmp_validate), or no
 * sample at this count. */
static void cal_invalid_why(const struct cmp_file f[2], int tasks, char *why,
			    size_t len)
{
	char v[512];

	for (int i = 0; i < 2; i++) {
		if (cmp_validate(&f[i], NULL, v, sizeof(v))) {
			snprintf(why, len, "%.40s: %.400s", f[i].label, v);
			return;
		}
		if (!cmp_point_of(&f[i], tasks)) {
			snprintf(why, len, "%s: no sample at %d task%s", f[i].label,
				 tasks, PLURAL(tasks));
			return;
		}
	}
	snprintf(why, len, "no primary metric to set side by side");
}

/* What calibrate counted over its rows. */
struct cal_tally {
	int far, disturbed, collapsed, invalid;
};

/*
 * One table row a task count: the kernel's mean and scaling, the
 * model's level and scaling, the shape's distance (! beyond the warning
 * and the spread, ~ within the spread), the samples' spread, and what
 * the machine let the row be. A row the machine disturbed (resfile/busy.h)
 * is no finding either way: no mark, its reason. A collapse — the
 * model's rate at N below a tenth of its own level at the fewest tasks,
 * against the kernel's — is a failure of the run or a finding about the
 * model, never noise: marked, and told after the table.
 */
static void cal_rows(const char *wl, const char *src, const struct cmp_file f[2],
		     struct cal_tally *t)
{
	for (int k = 0; k < f[0].ntasks; k++) {
		struct cmp_host_dist d;
		int tasks = f[0].tasks[k];
		char ks[16] = "-", ms[16] = "-", sh[24] = "-", sp[16] = "-",
		     why[512] = "", mach[600] = "quiet";
		bool within, far, collapse, dist = false;
		double spread;

		if (!cmp_host_distance(f, 2, 1, tasks, &d)) {
			cal_invalid_why(f, tasks, why, sizeof(why));
			printf("%-14s %-10s %5d %14s  %s\n", wl, src, tasks,
			       "invalid:", why);
			t->invalid++;
			continue;
		}
		for (int i = 0; i < 2 && !dist; i++)
			if ((dist = cmp_point_disturbed(&f[i], tasks, why,
							sizeof(why))))
				snprintf(mach, sizeof(mach), "disturbed (%s: %s)",
					 f[i].label, why);
		spread = cal_spread(f, d.metric, tasks);
		if (isfinite(spread))
			snprintf(sp, sizeof(sp), "%.1f%%", spread);
		collapse = isfinite(d.scaling) && d.scaling / d.kscaling < 0.1;
		within = !collapse && isfinite(d.spread_pct) &&
			 fabs(d.shape_pct) < d.spread_pct;
		far = !dist && !within && fabs(d.shape_pct) > CMP_HOST_SHAPE_WARN;
		if (isfinite(d.scaling)) {
			snprintf(ks, sizeof(ks), "%.2fx", d.kscaling);
			snprintf(ms, sizeof(ms), "%.2fx", d.scaling);
			if (collapse)
				snprintf(sh, sizeof(sh), "collapse");
			else
				snprintf(sh, sizeof(sh), "%+.0f%%%s", d.shape_pct,
					 dist ? "" : within ? " ~" : far ? " !" : "");
		}
		printf("%-14s %-10s %5d %14.0f %9s %9.2fx %9s %9s %8s  %s\n", wl,
		       src, tasks, d.kmean, ks, d.level, ms, sh, sp, mach);
		t->far += far && !collapse;
		t->disturbed += dist;
		t->collapsed += collapse;
	}
}

/* Is the machine busy now (a look of RUN_BUSY_LOOK_S)? Others' CPUs
 * over the look; NaN if it could not be read or a signal came. */
static double cal_others_now(void)
{
	struct host_busy a, b;
	struct timespec ts = { 0, (long)(RUN_BUSY_LOOK_S * 1e9) };

	run_host_busy_now(&a);
	if (nanosleep(&ts, NULL))
		return NAN;
	run_host_busy_now(&b);
	if (!a.ok || !b.ok || b.wall <= a.wall)
		return NAN;
	return ((b.busy - a.busy) - (b.own - a.own)) / (b.wall - a.wall);
}

/* What each model leaves out, for the workloads whose rows differ from
 * the kernel's (the mechanisms measured in docs/figures.md). */
static const struct {
	const char *wl, *why;
} cal_advice[] = {
	{ "mmap1", "the model's mmap and munmap leave out what the kernel does "
	  "outside the lock (the system call's entry and exit, the page "
	  "tables): its lock is held for most of an operation, so it contends "
	  "at 2 tasks as no kernel does; --costs PROFILE (vmsim calibrate "
	  "--profile) pays the kernel's times" },
	{ "mmap2", "as mmap1 (each task its own file mapping)" },
	{ "brk1", "as mmap1 for brk; and the kernel's brk of a shared break "
	  "is a no-op for a thread whose break another moved" },
	{ "page_fault1", "through uffd each fault is a round trip to a "
	  "handler, and two tasks' handlers share the CPUs (vmsim bench scale: "
	  "the harness's own ceiling)" },
	{ "pft", "through uffd each fault is a round trip to a handler" },
	{ "fault_vs_mmap", "through uffd each fault is a round trip to a "
	  "handler; the writer's operations as in mmap1" },
	{ "malloc_arena", "in threads mode both tasks' pages are in one host "
	  "mapping of one mm (the arena), where the kernel's tasks fault their "
	  "own heaps: --mode processes" },
};

static const char *cal_advice_of(const char *wl)
{
	for (size_t i = 0; i < sizeof(cal_advice) / sizeof(*cal_advice); i++)
		if (!strcmp(cal_advice[i].wl, wl))
			return cal_advice[i].why;
	return NULL;
}

/* Load DIR/W-S-kernel.json and DIR/W-S-SCHEME.json into f. */
static int cal_load(const char *out, const char *scheme, struct cmp_file f[2],
		    char *err, size_t len)
{
	const char *names[2] = { "kernel", scheme };

	for (int i = 0; i < 2; i++) {
		char path[PATH_MAX], why[512];

		if (run_result_path(path, sizeof(path), out, names[i]) ||
		    cmp_load(path, &f[i], why, sizeof(why))) {
			snprintf(err, len, "%.500s: %.400s", path, why);
			return -EINVAL;
		}
		snprintf(f[i].label, sizeof(f[i].label), "%s", names[i]);
	}
	return 0;
}

/* One workload under one source: run, load, print its rows. 0 or -errno
 * with err. */
static int cal_one(const struct cal_args *a, const char *self, const char *dir,
		   const char *wl, const char *src, const char *scheme,
		   struct cal_tally *t, char *err, size_t len)
{
	struct run_args_vec v = { 0 };
	struct cmp_file f[2] = { 0 };
	char out[PATH_MAX], log[PATH_MAX];
	int ret;

	snprintf(out, sizeof(out), "%.3000s/%.200s-%.20s", dir, wl, src);
	snprintf(log, sizeof(log), "%.3300s.log", out);
	if (!a->quiet)
		fprintf(stderr, "vmsim: calibrate: %s, %s faults, kernel and %s\n",
			wl, src, scheme);
	ret = cal_recipe(a, wl, scheme, src, &v);
	if (!ret)
		ret = gate_run_one(&v, self, NULL, out, log, CAL_RUN_TIMEOUT_S,
				   err, len);
	run_args_free(&v);
	if (!ret)
		ret = cal_load(out, scheme, f, err, len);
	if (!ret)
		cal_rows(wl, src, f, t);
	cmp_file_free(&f[0]);
	cmp_file_free(&f[1]);
	return ret;
}

/* The list "a,b," of the workloads with rows to explain. */
static bool seen_wl(const char *wl, const char *list)
{
	size_t n = strlen(wl);

	for (const char *p = list; *p; p = strchr(p, ',') + 1)
		if (!strncmp(p, wl, n) && p[n] == ',')
			return true;
	return false;
}

static void note_wl(const char *wl, char *list, size_t len)
{
	size_t used = strlen(list);

	if (used + strlen(wl) + 2 <= len)
		snprintf(list + used, len - used, "%s,", wl);
}

/* After the table: what its columns mean, what disturbed or collapsed,
 * and in words what each model leaves out where its rows differ. */
static void cal_summary(const struct cal_tally *tp, char *wls_far)
{
	const struct cal_tally t = *tp;

	printf("\nkernel rate: the kernel's mean (Hmean of a rate); k-scale and "
	       "m-scale: the kernel's and the model's rate at N tasks over their "
	       "own at the fewest; model/k: the model's rate over the kernel's; "
	       "shape: how far m-scale is from k-scale (! over %.0f%% beyond the "
	       "spread, ~ within the spread of the four means: not a finding; "
	       "collapse: the model's scaling fell below a tenth of the "
	       "kernel's); spread: the larger CoeffVar of the two at N; machine: "
	       "quiet, or what disturbed the row (no mark: not a finding)\n",
	       CMP_HOST_SHAPE_WARN);
	if (t.disturbed)
		printf("warning: %d row%s measured on a disturbed machine (other "
		       "load, steal or the harness's ceiling): calibrate again on "
		       "a quieter one\n", t.disturbed, PLURAL(t.disturbed));
	if (t.collapsed)
		printf("warning: %d row%s collapsed: a failure of the run or a "
		       "finding about the model, not noise (--keep DIR keeps each "
		       "run's log)\n", t.collapsed, PLURAL(t.collapsed));
	if (t.invalid)
		printf("warning: %d row%s invalid (the reason is in the row)\n",
		       t.invalid, PLURAL(t.invalid));
	if (t.far)
		printf("warning: %d shape%s differ%s from the kernel's by more than "
		       "%.0f%% (marked !)\n", t.far, PLURAL(t.far),
		       t.far == 1 ? "s" : "", CMP_HOST_SHAPE_WARN);
	for (char *w = wls_far, *e; *w; w = e + 1) {
		const char *why;

		e = strchr(w, ',');
		*e = 0;
		why = cal_advice_of(w);
		if (why)
			printf("  %s: %s\n", w, why);
	}
	if (t.far || t.collapsed)
		printf("the mechanisms, measured: %s/fidelity.md and "
		       "%s/figures.md\n", cli_docs_dir(), cli_docs_dir());
}

static int cal_all(const struct cal_args *a, const char *self, const char *dir,
		   const struct res_host_kernel *k)
{
	const char *scheme = k->per_vma_lock == 0 ? "rwsem" : "pervma";
	char *wls = strdup(a->workloads), *srcs = strdup(a->sources);
	char err[1024] = "", *s1 = NULL, *wl, shown[256] = "";
	char wls_far[1024] = "";
	struct cal_tally t = { 0 };
	int ret = 0, far_before = 0;

	if (!wls || !srcs) {
		free(wls);
		free(srcs);
		fprintf(stderr, "%s: calibrate: out of memory\n", prog);
		return 1;
	}
	printf("vmsim calibrate: %s against the host kernel, Linux %s (%s)%s%s%s\n",
	       scheme, k->release, k->per_vma_lock == 0 ? "no per-VMA locks" :
	       "per-VMA locks", k->vm ? ", a virtual machine" : "",
	       a->costs && strcmp(a->costs, "none") ? "; the model pays the "
	       "costs of " : "; the model's own costs (--costs none)",
	       a->costs && strcmp(a->costs, "none") ?
	       parse_printable(shown, sizeof(shown), a->costs) : "");
	printf("%-14s %-10s %5s %14s %9s %10s %9s %9s %8s  %s\n", "workload",
	       "source", "tasks", "kernel rate", "k-scale", "model/k", "m-scale",
	       "shape", "spread", "machine");
	for (wl = strtok_r(wls, ",", &s1); wl && !ret; wl = strtok_r(NULL, ",", &s1)) {
		char *s2 = NULL, *src, *list = strdup(srcs);

		for (src = list ? strtok_r(list, ",", &s2) : NULL; src && !ret;
		     src = strtok_r(NULL, ",", &s2)) {
			double others = cal_others_now();

			/* Said before minutes are spent on a busy machine,
			 * and again before each row it goes on being busy. */
			if (isfinite(others) && others > RES_BUSY_OTHERS) {
				printf("warning: before %s %s: other processes kept "
				       "%.2f CPUs busy: its rows will likely read "
				       "disturbed\n", wl, src, others);
			}
			ret = cal_one(a, self, dir, wl, src, scheme, &t, err,
				      sizeof(err));
			if (!ret && !seen_wl(wl, wls_far) &&
			    t.far + t.collapsed > far_before)
				note_wl(wl, wls_far, sizeof(wls_far));
			far_before = t.far + t.collapsed;
		}
		free(list);
		ret = ret ? ret : list ? 0 : -ENOMEM;
	}
	free(wls);
	free(srcs);
	if (ret) {
		fprintf(stderr, "%s: calibrate: %s\n", prog, ret == -ENOMEM ?
			"out of memory" : err);
		return gate_signal() ? 128 + gate_signal() : 1;
	}
	cal_summary(&t, wls_far);
	return 0;
}

static int cal_check(const struct cal_args *a)
{
	static const char *const known[] = { "synthetic", "uffd" };
	char *list = strdup(a->sources), *s = NULL, *tok;
	int ret = 0;

	if (!list)
		return cli_bad("calibrate: out of memory at '%s'", a->sources);
	for (tok = strtok_r(list, ",", &s); tok && !ret; tok = strtok_r(NULL, ",", &s))
		if (strcmp(tok, known[0]) && strcmp(tok, known[1]))
			ret = cli_bad("calibrate: unknown fault source '%s': want "
				      "synthetic, uffd or both", tok);
	free(list);
	if (!ret && parse_list_check(a->workloads))
		ret = cli_bad("calibrate: bad workload list '%s'", a->workloads);
	if (!ret && parse_list_check(a->sources))
		ret = cli_bad("calibrate: bad fault source list '%s'", a->sources);
	return ret;
}

/* The profile's table: each operation class, the kernel's and each
 * model's time, and what the model pays. */
static void cal_profile_print(const struct cost_profile *p)
{
	printf("vmsim calibrate: what each operation costs at one task, Linux %s "
	       "on a %s%s; %d rounds of %d calls, cases rotated\n",
	       p->host.release, p->host.cpu, p->host.vm ? " (a virtual machine)" :
	       "", p->rounds, p->calls);
	printf("a real system call (getppid) %.2f us; a clock read pair %.3f us "
	       "(taken off each call)\n\n", p->syscall_ns / 1e3, p->clock_ns / 1e3);
	printf("%-9s %-18s %8s %8s %8s %8s %7s | %8s %8s %8s\n", "op", "who",
	       "call us", "in us", "down us", "out us", "spread", "pays in",
	       "down", "out");
	for (int op = 0; op < SIM_COST_NOPS; op++) {
		const struct cost_meas *k = &p->kernel[op];

		printf("%-9s %-18s %8.2f %8.2f %8.2f %8.2f %6.1f%% | traced: %.1f "
		       "events a call, %.2f us each\n", sim_cost_op_names[op],
		       "kernel", k->total_ns / 1e3, k->in_ns / 1e3,
		       k->down_ns / 1e3, (k->total_ns - k->in_ns - k->down_ns) / 1e3,
		       k->spread_pct, k->events, k->event_ns / 1e3);
		for (int m = 0; m < p->nmodels; m++) {
			const struct cost_meas *o = &p->models[m].op[op];
			struct sim_costs c;
			char who[64];

			cost_profile_paid(p, &p->models[m], &c);
			snprintf(who, sizeof(who), "%s/%s", p->models[m].scheme,
				 p->models[m].tree);
			printf("%-9s %-18s %8.2f %8.2f %8.2f %8.2f %6.1f%% | %8.2f "
			       "%8.2f %8.2f\n", "", who, o->total_ns / 1e3,
			       o->in_ns / 1e3, o->down_ns / 1e3,
			       (o->total_ns - o->in_ns - o->down_ns) / 1e3,
			       o->spread_pct, c.op[op].in_ns / 1e3,
			       c.op[op].down_ns / 1e3, c.op[op].out_ns / 1e3);
		}
	}
	printf("\nin: the mm-wide lock held in the section the call opens (the "
	       "kernel's mmap_lock, from its tracepoints, one event's cost taken "
	       "off each hold); down: held after a downgrade; out: the rest of "
	       "the call. A model pays what the kernel spends beyond its own, "
	       "place by place; where it is already as slow, 0.\n");
}

/* --profile FILE: measure and write; 0, 1 (failed) or EXIT_USAGE. */
static int cal_profile(const struct cal_args *a)
{
	struct cost_probe_opts o = { .rounds = a->rounds ? a->rounds : 9,
				     .calls = a->calls ? a->calls : 2000 };
	static const enum vma_tree_kind trees[] = { VMA_TREE_MAPLE, VMA_TREE_VMSIM };
	struct cost_profile *p = calloc(1, sizeof(*p));
	struct res_host_kernel k;
	char err[1024] = "";
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	if (!p) {
		fprintf(stderr, "%s: calibrate: out of memory\n", prog);
		return 1;
	}
	/* Refused before anything is measured: a name taken, a link. */
	{
		const struct sf_spec spec = { .what = "cost profile",
					      .force = a->force };

		if (!a->force && sf_check(a->profile, &spec, err, sizeof(err))) {
			fprintf(stderr, "%s: calibrate: %s\n", prog, err);
			free(p);
			return EXIT_USAGE;
		}
	}
	for (size_t t = 0; t < sizeof(trees) / sizeof(*trees); t++) {
		if (trees[t] == VMA_TREE_MAPLE && !vma_tree_maple_built())
			continue;
		for (int i = 0; i < lock_nschemes; i++)
			o.models[o.nmodels++] = (struct cost_probe_model){
				.lock = lock_schemes[i], .tree = trees[t] };
	}
	if (!a->quiet)
		fprintf(stderr, "vmsim: calibrate: the cost profile: the kernel and "
			"%d models, %d rounds\n", o.nmodels, o.rounds);
	probe_host_kernel(&k);
	ret = cost_probe_run(&o, p, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: calibrate: the cost probe failed: %s\n", prog,
			err);
		free(p);
		return 1;
	}
	cost_host_now(&p->host);
	p->host.first_touch_us = k.first_touch_us;
	gmtime_r(&now, &tm);
	strftime(p->date, sizeof(p->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	cal_profile_print(p);
	ret = cost_profile_write(p, a->profile, a->force, err, sizeof(err));
	if (ret < 0)
		fprintf(stderr, "%s: calibrate: the cost profile was not written: "
			"%s\n", prog, err);
	else if (ret > 0)
		fprintf(stderr, "%s: calibrate: %s\n", prog, err);
	else if (!a->quiet)
		fprintf(stderr, "vmsim: calibrate: the cost profile is in %s\n",
			a->profile);
	free(p);
	return ret < 0 ? 1 : 0;
}

static int cmd_calibrate(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct cal_args a = { .workloads = CAL_DEFAULT_WORKLOADS,
			      .sources = "synthetic,uffd", .duration = 5,
			      .iterations = 5 };
	struct res_host_kernel k;
	struct sigaction old[3];
	char self[PATH_MAX] = "", dir[PATH_MAX], tasks[32];
	int first, ret;

	ret = cli_parse(&cmd_calibrate_desc, argc, argv, &a, &first);
	if (ret)
		return ret == CLI_PARSED_HELP ? 0 : ret;
	if (first < argc)
		return cli_bad("calibrate: unexpected argument '%s'", argv[first]);
	snprintf(tasks, sizeof(tasks), "1-%ld", sysconf(_SC_NPROCESSORS_ONLN));
	if (!a.tasks)
		a.tasks = tasks;
	if ((ret = cal_check(&a)))
		return ret;
	if (a.costs && (ret = run_costs_check(a.costs)))
		return ret;
	if (ctx->dry_run)
		return 0;
	if (a.profile)
		return cal_profile(&a);
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0)
		snprintf(self, sizeof(self), "%s", argv[0]);
	if (a.dir ? (ret = sf_mkdir_new(a.dir, 0700)) :
	    (ret = sf_mkdtemp(dir, sizeof(dir), "vmsim-calibrate"))) {
		fprintf(stderr, "%s: calibrate: cannot make the directory '%s': "
			"%s\n", prog, a.dir ? a.dir : sf_tmpdir(), strerror(-ret));
		return a.dir ? EXIT_USAGE : 1;
	}
	if (a.dir)
		snprintf(dir, sizeof(dir), "%s", a.dir);
	setenv("VMSIM_NO_CEILING", "1", 1);
	probe_host_kernel(&k);
	gate_signals_install(old);
	ret = cal_all(&a, self, dir, &k);
	gate_signals_restore(old);
	if (!a.dir)
		sf_remove_tree(dir);
	else if (!a.quiet)
		fprintf(stderr, "vmsim: calibrate: the runs' results and logs are "
			"in %s\n", dir);
	return ret;
}
