/* SPDX-License-Identifier: MIT */
/* vmsim run: a workload under one or more lock schemes, interleaved. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "cli/cmd.h"
#include "cli/run.h"
#include "sim/faults/sources.h"
#include "base/outstream.h"
#include "resfile/resfile.h"
#include "resfile/schema.h"
#include "base/parse.h"

static const char *scheme_name(int i)
{
	return lock_schemes[i]->name;
}

static const char *workload_name(int i)
{
	return wl_workloads[i]->name;
}

/* "rwsem,range": each a known scheme, none twice. Prints the error. */
static int parse_locks(const char *arg, struct run_cfg *c)
{
	struct run_target v[RUNNER_MAX_SCHEMES];
	char *buf, *save = NULL, *tok;
	int ret = 0, n = 0;

	if (parse_list_check(arg))
		return cli_bad("bad lock scheme list '%s': want names separated by "
			   "commas, none empty, such as rwsem,pervma", arg);
	buf = strdup(arg);
	if (!buf)
		return cli_bad("out of memory at '%s'", arg);
	for (tok = strtok_r(buf, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct lock_ops *l = lock_scheme_find(tok);

		if (!l) {
			ret = cli_unknown("lock scheme", tok, scheme_name,
					  lock_nschemes);
			break;
		}
		for (int i = 0; i < n && !ret; i++)
			if (v[i].lock == l)
				ret = cli_bad("lock scheme '%s' given twice", tok);
		if (!ret && n == RUNNER_MAX_SCHEMES)
			ret = cli_bad("too many lock schemes at '%s'", tok);
		if (!ret)
			v[n++].lock = l;
	}
	free(buf);
	if (!ret && !n)
		ret = cli_bad("no lock scheme in '%s'", arg);
	if (!ret)
		runner_targets_set(c, RUN_VARY_SCHEME, v, n);
	return ret;
}

/* A run's command line, as parsed. */
struct run_args {
	struct run_cfg c;
	const char *json;
	bool force, quiet, brief, verdicts, mem_given, help, handler_cpu_given;
	bool tasks_given, arena_given;
	bool made_dir;                   /* -o DIR/ was made by this run */
	bool ceiling;                    /* --ceiling on (the default) */
	bool model_given;                /* -l or -w */
	bool scale;                      /* vmsim bench scale's options */
	unsigned given;                  /* WL_OPT_* on the command line */
	bool opt_given[RUN_NOPTS];       /* each option of the table */
	int max_tasks;
	int ncpus;
	/* --costs: the profile and its JSON (NULL: none). */
	struct cost_profile *costs;
	json_object *costs_json;
};

/* What the arguments hold, freed. */
static void run_args_done(struct run_args *a)
{
	run_replay_done(&a->c);
	free(a->costs);
	json_object_put(a->costs_json);
	a->costs = NULL;
	a->costs_json = NULL;
}

/* -t: counts from 1 to MAX_TASKS_LIMIT, none twice. */
static int run_tasks_opt(struct run_args *a, const char *arg)
{
	struct run_cfg *c = &a->c;
	long t[RUNNER_MAX_TASKLIST];
	char err[256];
	int d;

	if (parse_tasks(arg, a->ncpus, MAX_TASKS_LIMIT, c->tasks,
			RUNNER_MAX_TASKLIST, &c->ntasklist))
		return cli_bad("bad task list '%s': want counts from 1 to 1024 "
			   "such as 1,2,4 or 1-8 or max", arg);
	for (int i = 0; i < c->ntasklist; i++)
		t[i] = c->tasks[i];
	d = parse_first_duplicate(t, c->ntasklist);
	if (d < 0)
		return 0;
	fprintf(stderr, "%s: bad task list '%s': %d tasks given twice", prog,
		parse_printable(err, sizeof(err), arg), c->tasks[d]);
	cli_see_help();
	return EXIT_USAGE;
}

/* The options that say what is simulated: 0, EXIT_USAGE, or -1 when opt
 * is not one of them. */
static int run_sim_opt(struct run_args *a, enum run_opt_id opt, const char *arg)
{
	struct run_cfg *c = &a->c;
	long v;
	int k;

	switch (opt) {
	case RUN_O_LOCK:
		a->model_given = true;
		return parse_locks(arg, c) ? EXIT_USAGE : 0;
	case RUN_O_WORKLOAD:
		a->model_given = true;
		c->wl = wl_find(arg);
		return c->wl ? 0 : cli_unknown("workload", arg,
						 workload_name, wl_nworkloads);
	case RUN_O_TASKS:
		a->tasks_given = true;
		return run_tasks_opt(a, arg);
	case RUN_O_MEM:
		if (parse_size(arg, &c->wo.mem))
			return cli_bad("bad size '%s' for --mem: want a number with "
				   "an optional K, M, G or T suffix", arg);
		if (c->wo.mem % SIM_PAGE_SIZE)
			return cli_bad("bad size '%s' for --mem: want a multiple "
				   "of 4K", arg);
		return 0;
	case RUN_O_ARENA:
		a->arena_given = true;
		if (parse_size(arg, &c->mm.arena_size) ||
		    c->mm.arena_size % SIM_PAGE_SIZE)
			return cli_bad("bad size '%s' for --arena: want a multiple "
				   "of 4K", arg);
		return 0;
	case RUN_O_MAX_MAP_COUNT:
		if (parse_long(arg, run_optlist[opt].lo, run_optlist[opt].hi, &v))
			return cli_bad("bad --max-map-count '%s': want 1 to 100000000", arg);
		c->mm.max_map_count = (size_t)v;
		return 0;
	case RUN_O_COSTS:
		free(a->costs);
		json_object_put(a->costs_json);
		return run_costs_load(arg, &a->costs, &a->costs_json);
	case RUN_O_HOLD_EXTRA:
		if (parse_long(arg, run_optlist[opt].lo, run_optlist[opt].hi, &v))
			return cli_bad("bad --hold-extra '%s': want 0 to 10000000 ns "
				   "of busy work per critical section", arg);
		c->mm.hold_extra_ns = (uint64_t)v;
		return 0;
	case RUN_O_CYCLES:
		if (parse_long(arg, run_optlist[opt].lo, run_optlist[opt].hi, &v))
			return cli_bad("bad cycle count '%s': want 1 to 100000000", arg);
		c->wo.cycles = v;
		a->given |= WL_OPT_CYCLES;
		return 0;
	case RUN_O_ZAP:
		if ((k = run_opt_pick(RUN_O_ZAP, arg, NULL, 0)) < 0)
			return EXIT_USAGE;
		c->wo.zap_per_range = k == 1;
		a->given |= WL_OPT_ZAP;
		return 0;
	case RUN_O_READERS:
		if (parse_long(arg, run_optlist[opt].lo, run_optlist[opt].hi, &v))
			return cli_bad("bad --readers '%s': want 0 to 64", arg);
		c->wo.readers = (int)v;
		a->given |= WL_OPT_MAPS;
		return 0;
	case RUN_O_MAPS_READ:
		if ((k = run_opt_pick(RUN_O_MAPS_READ, arg, NULL, 0)) < 0)
			return EXIT_USAGE;
		c->wo.maps_read = k;
		a->given |= WL_OPT_MAPS;
		return 0;
	case RUN_O_MAPS_LOCK:
		if ((k = run_opt_pick(RUN_O_MAPS_LOCK, arg, NULL, 0)) < 0)
			return EXIT_USAGE;
		c->wo.maps_mm_lock = k == 1;
		a->given |= WL_OPT_MAPS;
		return 0;
	default:
		break;
	}
	return -1;
}

/* The options that say how it runs on this machine, and the output. */
static int run_host_opt(struct run_args *a, enum run_opt_id opt, const char *arg)
{
	struct run_cfg *c = &a->c;
	char *end;
	int k;

	switch (opt) {
	case RUN_O_WAIT:
		if ((k = run_opt_pick(RUN_O_WAIT, arg, uffd_wait_mode_names,
				      UFFD_WAIT_NMODES)) < 0)
			return EXIT_USAGE;
		c->uffd.wait = (enum uffd_wait_mode)k;
		return 0;
	case RUN_O_FAULT_SOURCE:
		if (run_opt_pick(RUN_O_FAULT_SOURCE, arg, NULL, 0) < 0)
			return EXIT_USAGE;
		c->mm.source = fault_source_find(arg);
		return 0;
	case RUN_O_NUMA:             /* "default" is not given: the absence */
		if ((k = run_opt_pick(RUN_O_NUMA, arg, sim_numa_names + 1,
				      SIM_NUMA_N - 1)) < 0)
			return EXIT_USAGE;
		c->mm.numa = (enum sim_numa)(k + 1);
		return 0;
	case RUN_O_FAULT_TIMEOUT:
		c->fault_timeout = strtod(arg, &end);
		if (*end || !(c->fault_timeout >= 0 && c->fault_timeout <= 3600))
			return cli_bad("bad fault timeout '%s': want 0 (off) to "
				   "3600 seconds", arg);
		return 0;
	case RUN_O_HANDLER_CPU:
		if ((k = run_opt_pick(RUN_O_HANDLER_CPU, arg,
				      runner_handler_cpu_names, HANDLER_CPU_N)) < 0)
			return EXIT_USAGE;
		c->handler_cpu = (enum handler_cpu)k;
		a->handler_cpu_given = true;
		return 0;
	case RUN_O_UFFD:             /* "auto" is not given: the absence */
		if ((k = run_opt_pick(RUN_O_UFFD, arg, runner_uffd_split_names + 1,
				      UFFD_SPLIT_N - 1)) < 0)
			return EXIT_USAGE;
		c->uffd_split = (enum uffd_split)(k + 1);
		return 0;
	case RUN_O_VERDICTS: a->verdicts = a->brief = true; return 0;
	default:
		break;
	}
	return -1;
}

/* Every option given applies where it was given (the table's needs):
 * one that would change nothing is refused, never ignored. */
/* The host kernel as a target: a workload it can run, and a word on the
 * models' own options, which it does not take (one line). */
static int run_check_host(const struct run_args *a)
{
	const char *sep = "";
	bool host = false;

	for (int k = 0; k < runner_ntargets(&a->c); k++)
		host |= runner_target_lock(&a->c, k)->host;
	if (!host)
		return 0;
	if (a->c.replay_log) {
		fprintf(stderr, "%s: --replay-log checks each event against the "
			"model's VMAs and faults, which the host kernel (-l "
			"kernel) does not show: leave one out", prog);
		cli_see_help();
		return EXIT_USAGE;
	}
	if (a->c.wl->no_host) {
		fprintf(stderr, "%s: workload '%s' cannot run on the host kernel "
			"(-l kernel): %s", prog, a->c.wl->name, a->c.wl->no_host);
		cli_see_help();
		return EXIT_USAGE;
	}
	for (int i = 0; i < RUN_NOPTS; i++) {
		if (!a->opt_given[i] || !run_optlist[i].model)
			continue;
		if (!*sep && !a->quiet)
			fprintf(stderr, "%s: note: ", prog);
		if (!a->quiet)
			fprintf(stderr, "%s--%s", sep, run_optlist[i].name);
		sep = ", ";
	}
	if (*sep && !a->quiet)
		fprintf(stderr, ": the models' own, not the kernel column's "
			"(it runs the host's fault path, allocators and locks)\n");
	return 0;
}

/* Does some target's scheme have what o needs of a scheme? */
static bool run_scheme_has(const struct run_args *a, const struct run_opt *o)
{
	for (int k = 0; k < a->c.ntargets; k++)
		if (run_opt_scheme_has(o, a->c.targets[k].lock))
			return true;
	return false;
}

static int run_check_applies(const struct run_args *a)
{
	for (int i = 0; i < RUN_NOPTS; i++) {
		const struct run_opt *o = &run_optlist[i];

		if (a->opt_given[i] && !run_scheme_has(a, o)) {
			const char *sep = "";

			fprintf(stderr, "%s: --%s applies only to the schemes "
				"that %s (", prog, o->name,
				run_opt_scheme_need_text(o));
			for (int k = 0; k < lock_nschemes; k++)
				if (run_opt_scheme_has(o, lock_schemes[k])) {
					fprintf(stderr, "%s%s", sep,
						lock_schemes[k]->name);
					sep = ", ";
				}
			fputc(')', stderr);
			cli_see_help();
			return EXIT_USAGE;
		}

		if (!a->opt_given[i] || run_opt_applies(o, a->c.mm.source->name,
							 a->c.processes))
			continue;
		fprintf(stderr, "%s: --%s applies only %s: this run has the %s "
			"fault source in --mode %s", prog, o->name,
			run_opt_needs_text(o), a->c.mm.source->name,
			a->c.processes ? "processes" : "threads");
		cli_see_help();
		return EXIT_USAGE;
	}
	return run_check_host(a);
}

/* After the options: what follows from the workload, and the limits. */
static int run_settle(struct run_args *a)
{
	struct run_cfg *c = &a->c;

	if (run_check_applies(a))
		return EXIT_USAGE;

	if (c->wo.writers >= 0 && !c->wl->background)
		return cli_bad("--writers does not apply to workload '%s'", c->wl->name);
	if (a->given & WL_OPT_CYCLES & ~c->wl->options)
		return cli_bad("--cycles does not apply to workload '%s'", c->wl->name);
	if (a->given & WL_OPT_ZAP & ~c->wl->options)
		return cli_bad("--zap does not apply to workload '%s'", c->wl->name);
	if (a->given & WL_OPT_MAPS & ~c->wl->options)
		return cli_bad("--readers, --maps-read and --maps-lock go with "
			   "-w maps_reader, not '%s'", c->wl->name);
	if (a->given & WL_OPT_TRACE & ~c->wl->options)
		return cli_bad("--trace, --speed and --replay-log go with -w replay, "
			   "not '%s'", c->wl->name);
	if ((c->wl->options & WL_OPT_TRACE) &&
	    run_replay_settle(c, a->tasks_given, a->arena_given, a->force))
		return EXIT_USAGE;
	if (c->wo.writers < 0)
		c->wo.writers = c->wl->background ? 1 : 0;
	if (c->wo.readers < 0)
		c->wo.readers = c->wl->options & WL_OPT_MAPS ? 1 : 0;
	/* By default each task's handler runs on the task's CPU and the
	 * tasks are pinned (as will-it-scale pins them): the kernel handles
	 * a fault on the faulting CPU, and a handler elsewhere adds a
	 * cross-CPU wake-up — on a VM a hypervisor exit when that vCPU
	 * idles — that made identical runs differ by 2x (README: "Numbers
	 * that repeat"). --handler-cpu any is the old placement. */
	if (!a->handler_cpu_given)
		c->handler_cpu = HANDLER_CPU_SAME;
	if (c->handler_cpu != HANDLER_CPU_ANY)
		c->pin = true;
	a->mem_given = c->wo.mem != 0;
	if (!c->wo.mem)
		c->wo.mem = c->wl->default_mem ? c->wl->default_mem : 64UL << 20;
	if (run_check_limits(c, a->max_tasks, a->mem_given) || run_mem_settle(c))
		return EXIT_USAGE;
	if (!c->wo.iterations)
		c->wo.iterations = c->wl->loop ? 1 : 5;
	if (c->wl->prepare) {
		char msg[256] = "";

		if (c->wl->prepare(&c->wo, a->given, msg, sizeof(msg))) {
			fprintf(stderr, "%s: %s\n", prog, msg);
			return EXIT_USAGE;
		}
		if (*msg)
			fprintf(stderr, "%s: %s\n", prog, msg);
	}
	c->progress = !a->quiet && isatty(STDERR_FILENO);
	c->mm.lock = c->targets[0].lock;
	if (run_costs_settle(c, a->costs))
		return EXIT_USAGE;
	/* Only the test binary has hooks (tests/cli/vmsim_test.c). */
	if (cmd_run_test_hooks)
		cmd_run_test_hooks(c);
	return 0;
}

void (*cmd_run_test_hooks)(struct run_cfg *c);

/* Where an option's value goes (BIND in run_opts.def): a member of
 * struct run_args of the type its kind takes, checked at compile time. */
enum run_bind_kind { RUN_BIND_NONE, RUN_BIND_INT, RUN_BIND_FLAG,
		     RUN_BIND_CHOICE, RUN_BIND_STRING };
struct run_bind {
	enum run_bind_kind kind;
	size_t off;                      /* offsetof(struct run_args, ...) */
};
#define RUN_BIND_AT(f, T) (offsetof(struct run_args, f) + 0 * sizeof(struct { \
	_Static_assert(__builtin_types_compatible_p(				\
		__typeof__(((struct run_args *)0)->f), T),			\
		"run_opts.def: " #f " is not " #T); int x; }))
static const struct run_bind run_binds[RUN_NOPTS] = {
#define NOFIELD { RUN_BIND_NONE, 0 }
#define INT(f) { RUN_BIND_INT, RUN_BIND_AT(f, int) }
#define FLAG(f) { RUN_BIND_FLAG, RUN_BIND_AT(f, bool) }
#define CHOICE(f) { RUN_BIND_CHOICE, RUN_BIND_AT(f, bool) }  /* of two */
#define STRING(f) { RUN_BIND_STRING, RUN_BIND_AT(f, const char *) }
#define RUN_OPT(id, bind, rec, ...) [RUN_O_##id] = bind,
#include "resfile/run_opts.def"
#undef RUN_OPT
#undef STRING
#undef CHOICE
#undef FLAG
#undef INT
#undef NOFIELD
};

/* A word of the names an option takes: [a-z][a-z0-9_-]* (not a number). */
static size_t run_word(const char *p)
{
	return *p >= 'a' && *p <= 'z' ?
	       strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_-") : 0;
}

/* The first "a | b | c" of a line of text (`.list`, then `.help`: the
 * names of an enum a lower layer parses), printed "a b c"; false if its
 * first line has none. */
static bool run_text_words(const char *t, FILE *f)
{
	size_t eol = t ? strcspn(t, "\n") : 0;

	for (size_t i = 0; i < eol; i++) {
		size_t n = (i && run_word(&t[i - 1])) ? 0 : run_word(&t[i]);
		size_t j = i + n;
		int words = 1;

		if (!n)
			continue;
		while (j + 3 < eol && !strncmp(&t[j], " | ", 3) &&
		       run_word(&t[j + 3])) {
			j += 3 + run_word(&t[j + 3]);
			words++;
		}
		if (words < 2)
			continue;
		for (size_t k = i; k < j; k++)
			if (t[k] != ' ' && t[k] != '|')
				fputc(t[k], f);
			else if (t[k] == '|')
				fputc(' ', f);
		return true;
	}
	return false;
}

/* The names an option of run's takes (completion, the man page). */
static void run_values(const struct cli_opt *co, FILE *f)
{
	const struct run_opt *o = &run_optlist[co->id];

	if (co->id == RUN_O_LOCK)
		cmd_list_schemes(f);
	else if (co->id == RUN_O_WORKLOAD)
		cmd_list_workloads(f);
	else if (o->nchoices)
		for (int i = 0; i < o->nchoices; i++)
			fprintf(f, "%s%s", i ? " " : "", o->choices[i]);
	else if (!run_text_words(o->list, f))
		run_text_words(o->help, f);
}

static int run_one_opt(struct run_args *a, enum run_opt_id id, const char *arg);

/* An entry of run's table, parsed by run_one_opt (--help ends the
 * parse: the caller prints the help of its own command). */
static int run_cli_call(void *args, const struct cli_opt *o, const char *arg)
{
	struct run_args *a = args;
	int ret = run_one_opt(a, (enum run_opt_id)o->id, arg);

	return !ret && a->help ? CLI_PARSED_HELP : ret;
}

/* run's table as cli/opt.h's, made from resfile's once: every entry is
 * parsed by run_one_opt; bench scale's is the part it takes (.scale). */
static struct cli_opt run_cli_opts[RUN_NOPTS + 1], run_scale_opts[RUN_NOPTS + 1];

static void run_cli_tables(void)
{
	int n = 0;

	if (run_cli_opts[0].name)
		return;
	for (int i = 0; i < RUN_NOPTS; i++) {
		const struct run_opt *o = &run_optlist[i];

		run_cli_opts[i] = (struct cli_opt){
			.kind = CLI_OPT_CALL, .shrt = o->shrt, .name = o->name,
			.metavar = o->metavar, .help = o->help, .lo = o->lo,
			.hi = o->hi, .choices = o->choices,
			.nchoices = o->nchoices, .values = run_values,
			.call = run_cli_call, .id = i };
		if (o->scale || !o->help)
			run_scale_opts[n++] = run_cli_opts[i];
	}
}

static const struct cli_opt *run_opts_table(void)
{
	run_cli_tables();
	return run_cli_opts;
}

const struct cli_opt *cmd_bench_scale_opts(void)
{
	run_cli_tables();
	return run_scale_opts;
}

/* An option bound to a field (BIND): its value there; 0 or EXIT_USAGE. */
static int run_bound_opt(struct run_args *a, enum run_opt_id id, const char *arg)
{
	const struct run_opt *o = &run_optlist[id];
	char *p = (char *)a + run_binds[id].off;
	long v;
	int k;

	switch (run_binds[id].kind) {
	case RUN_BIND_INT:
		if (parse_long(arg, o->lo, o->hi, &v)) {
			fprintf(stderr, "%s: bad %s '%s': want %ld to %ld", prog,
				o->what, arg, o->lo, o->hi);
			cli_see_help();
			return EXIT_USAGE;
		}
		*(int *)p = (int)v;
		return 0;
	case RUN_BIND_FLAG:
		*(bool *)p = true;
		return 0;
	case RUN_BIND_CHOICE:
		if ((k = run_opt_pick(id, arg, NULL, 0)) < 0)
			return EXIT_USAGE;
		*(bool *)p = k == 1;
		return 0;
	case RUN_BIND_STRING:
		*(const char **)p = arg;
		return 0;
	case RUN_BIND_NONE:
		break;
	}
	return -1;
}

/* One option of the table: 0 or EXIT_USAGE. */
static int run_one_opt(struct run_args *a, enum run_opt_id id, const char *arg)
{
	int ret;

	a->opt_given[id] = true;
	if (a->scale && !run_optlist[id].scale)
		return cli_bad("bench scale measures pft under the none scheme "
			       "with the harness's options only: --%s is not "
			       "taken", run_optlist[id].name);

	if (run_binds[id].kind != RUN_BIND_NONE)
		return run_bound_opt(a, id, arg);
	switch (run_optlist[id].parse) {
	case RUN_PARSE_MEM:
		return run_mem_opt(&a->c, id, arg);
	case RUN_PARSE_REPLAY:
		a->given |= WL_OPT_TRACE;
		return run_replay_opt(&a->c, id, arg);
	case RUN_PARSE_HERE:
		break;
	}
	ret = run_sim_opt(a, id, arg);
	if (ret < 0)
		ret = run_host_opt(a, id, arg);
	if (ret < 0)                     /* a table entry with no parser */
		return cli_bad("option '--%s' is not parsed by this vmsim",
			       run_optlist[id].name);
	return ret;
}

/* Parses with every option of run's table (bench scale refuses those
 * it does not take in run_one_opt, by name); 0 with a->help set after
 * --help, or EXIT_USAGE. */
static const struct cli_command run_parse_desc = {
	.name = "run", .opts_fn = run_opts_table,
};

static int run_parse(int argc, char **argv, struct run_args *a)
{
	int first, ret = cli_parse(&run_parse_desc, argc, argv, a, &first);

	if (ret == CLI_PARSED_HELP)
		return 0;
	if (ret)
		return ret;
	if (first < argc)
		return cli_bad("unexpected argument '%s'", argv[first]);
	return run_settle(a);
}

/* -o DIR/ or -o DIR (an existing directory): a results directory. */
static bool run_json_is_dir(const char *json)
{
	struct stat st;
	size_t n = strlen(json);

	return (n && json[n - 1] == '/') || (!stat(json, &st) && S_ISDIR(st.st_mode));
}

/* Every result file checked and claimed before anything runs (a results
 * directory made first). */
static int run_claim(struct run_args *a, struct res_target *tgt,
		     int *ntgt)
{
	const struct run_cfg *c = &a->c;
	const char *const inputs[] = { c->trace, NULL };
	bool dir = a->json && run_json_is_dir(a->json);
	char terr[PATH_MAX + 256];

	if (dir && sf_mkdirs(a->json, &a->made_dir, terr, sizeof(terr))) {
		fprintf(stderr, "%s: -o: %s\n", prog, terr);
		return EXIT_USAGE;
	}
	for (; a->json && *ntgt < runner_ntargets(c); (*ntgt)++) {
		char path[PATH_MAX];

		if (dir ? run_dir_result_path(path, sizeof(path), a->json,
					      runner_target_label(c, *ntgt)) :
			  run_result_path(path, sizeof(path), a->json,
					  runner_ntargets(c) > 1 ?
					  runner_target_label(c, *ntgt) : NULL)) {
			fprintf(stderr, "%s: -o: the result file's name would be "
				"longer than %d bytes\n", prog, PATH_MAX - 1);
			return EXIT_USAGE;
		}
		if (resfile_open(&tgt[*ntgt], path, a->force, inputs, terr,
				    sizeof(terr))) {
			fprintf(stderr, "%s: %s\n", prog, terr);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/*
 * Before a run of several task counts, the harness's own ceiling at them
 * (--ceiling off skips it; so does VMSIM_NO_CEILING, which vmsim gate
 * sets for the runs it makes, whose binaries may predate --ceiling):
 * pft under none with this run's fault source and options.
 */
static void run_ceiling_before(const struct run_args *a, struct run_ceiling *hc)
{
	char err[256] = "";
	bool several = false;

	for (int i = 0; i < a->c.ntasklist; i++)
		several |= a->c.tasks[i] > 1;
	if (!a->ceiling || !several || getenv("VMSIM_NO_CEILING"))
		return;
	if (a->c.progress)
		fprintf(stderr, "measuring the harness's own scaling first "
			"(--ceiling off skips it)...\r");
	if (run_ceiling_measure(&a->c, 5, 0, hc, err, sizeof(err)) &&
	    !run_first_signal())
		fprintf(stderr, "%s: warning: the harness's ceiling could not be "
			"measured: %s\n", prog, err);
	/* What stopped the check (a dead task process, the watchdog) is
	 * said; the run itself starts afresh. A signal carries over. */
	if (runner_interrupted() < 0)
		runner_clear_interrupt();
}

/* The ceiling into each result, and a line for each count under it. */
static void run_ceiling_after(const struct run_args *a,
			      const struct run_ceiling *hc, struct res_file *r)
{
	if (!hc->n)
		return;
	for (int k = 0; k < runner_ntargets(&a->c); k++)
		for (int i = 0; i < r[k].npoints; i++) {
			double e = run_ceiling_eff(hc, r[k].points[i].tasks);

			r[k].points[i].has_ceiling = !isnan(e);
			r[k].points[i].ceiling_eff = e;
		}
	run_ceiling_warn(stderr, hc, a->c.tasks, a->c.ntasklist);
}

/* What the run measured: trimmed, labelled, told, printed. */
static void run_show(const struct run_args *a, struct res_file *r, int ret,
		     const char *err, bool stopped)
{
	const struct run_cfg *c = &a->c;
	bool measured = false;

	for (int i = 0; i < runner_ntargets(c); i++) {
		/* A task count that the stop left without a sample is not
		 * a row of zeros: only what was measured is shown and kept. */
		while (r[i].npoints && !r[i].points[r[i].npoints - 1].nsamples)
			res_point_free(&r[i].points[--r[i].npoints]);
		if (!r[i].complete)
			snprintf(r[i].stopped, sizeof(r[i].stopped), "%s",
				 ret ? err : "stopped");
		measured |= r[i].npoints > 0;
	}
	if (ret)
		fprintf(stderr, "%s: %s%s%s\n", prog, ret == -EINTR ? "" :
			stopped ? "run aborted: " : "run failed: ", err,
			!stopped ? "" : measured ? "; writing what was measured" :
			"; no sample was complete");
	for (int i = 0; i < runner_ntargets(c); i++) {
		/* --brief with several schemes: only the comparison. */
		if (!r[i].npoints || (a->brief && runner_ntargets(c) > 1))
			continue;
		if (runner_ntargets(c) > 1)
			printf("\n== %s ==", runner_target_label(c, i));
		run_print_summary(&r[i], c, a->brief);
	}
	if (runner_ntargets(c) > 1 && measured)
		run_print_comparison(r, runner_ntargets(c), a->brief, a->verdicts);
	for (int i = 0; i < runner_ntargets(c); i++)
		run_print_source_errors(&r[i], runner_ntargets(c) > 1 ?
				    runner_target_label(c, i) : NULL);
	if (measured && c->wo.replay)
		run_replay_pace_report(c, r, runner_ntargets(c));
}

/* What a result records of how vmsim ran, beside the run's config. */
static struct run_harness_opts run_harness_of(const struct run_args *a)
{
	return (struct run_harness_opts){ .nhandlers = a->c.uffd.nhandlers,
					  .max_tasks = a->max_tasks,
					  .ceiling = a->ceiling,
					  .costs = a->costs_json };
}

/* Write the claimed files; a failure is said and becomes the status. */
static int run_publish(const struct run_args *a, struct res_target *tgt,
		       int ntgt, struct res_file *r, json_object *command,
		       bool stopped, int ret)
{
	for (int i = 0; i < ntgt; i++) {
		char where[PATH_MAX + 64], note[PATH_MAX + 256];
		int wret;

		/* An interrupted run's file is written even when empty: it
		 * says the run stopped, and why. */
		if (!r[i].npoints && !stopped)
			continue;
		const struct run_harness_opts h = run_harness_of(a);
		json_object *opts = run_options_json(&a->c, i, &h);
		json_object *bys = run_by_scheme_json(&a->c);

		wret = resfile_publish(&tgt[i], &r[i], opts, command, bys,
					  where, sizeof(where),
					  note, sizeof(note));
		json_object_put(bys);
		if (wret)
			fprintf(stderr, "%s: %s\n", prog, note);
		if (wret >= 0)
			printf("%sresult written to %s%s\n", i ? "" : "\n",
			       parse_printable(note, sizeof(note), where),
			       r[i].complete ? "" : " (incomplete)");
		json_object_put(opts);
		/* Not where asked (beside it, in $TMPDIR, on standard
		 * output): exit 1, whatever errno sent it there — the
		 * write's ENOSPC is no aborted run (3). */
		if (wret && !ret)
			ret = 1;
	}
	return ret;
}

/*
 * No -o, and standard output did not take what was printed: the summary
 * was the result's only copy. The result files go into a new folder
 * under $TMPDIR instead, and one line says where; exit 1.
 */
static int run_rescue(struct run_args *a, struct res_target *tgt, int *ntgt,
		      struct res_file *r, json_object *command, bool stopped,
		      int ret)
{
	char dir[PATH_MAX], file[PATH_MAX], shown[PATH_MAX], why[128];
	int err = cli_stdout_error();

	if (a->json || !err)
		return ret;
	snprintf(why, sizeof(why), "%s", err == -EBADF ? "it is closed" :
		 strerror(-err));
	cli_stdout_told();
	if (sf_mkdtemp(dir, sizeof(dir) - 1, "vmsim-run")) {
		fprintf(stderr, "%s: cannot write standard output (%s), nor a "
			"folder under %s: the result is lost\n", prog, why,
			sf_tmpdir());
		return ret ? ret : 1;
	}
	strcat(dir, "/");
	a->json = dir;
	a->force = false;
	if (run_claim(a, tgt, ntgt) ||
	    run_publish(a, tgt, *ntgt, r, command, stopped, 0) < 0) {
		a->json = NULL;
		return ret ? ret : 1;
	}
	/* One scheme: its file; several: the folder. */
	if (*ntgt != 1 || run_dir_result_path(file, sizeof(file), dir,
					       runner_target_label(&a->c, 0)))
		snprintf(file, sizeof(file), "%s", dir);
	fprintf(stderr, "%s: cannot write standard output (%s): the result "
		"went to %s\n", prog, why, parse_printable(shown, sizeof(shown),
							  file));
	a->json = NULL;
	return ret ? ret : 1;
}

/* The command line, as given (vmsim rerun runs the options, which say
 * the same in full). */
static json_object *command_json(int argc, char **argv)
{
	json_object *a = json_object_new_array();

	json_object_array_add(a, json_object_new_string(prog));
	for (int k = 0; k < argc; k++)
		json_object_array_add(a, json_object_new_string(argv[k]));
	return a;
}

/* A run's defaults; the task counts 1 to the CPUs. */
static void run_args_init(struct run_args *out)
{
	struct run_args a = {
		.c = {
			.wl = &pft_workload,
			.mm = { .lock = &rwsem_lock_ops,
				.arena_size = SIM_DEFAULT_ARENA,
				.folio_size = SIM_PAGE_SIZE,
				.fault_around = SIM_DEFAULT_FAULT_AROUND,
				.source = &uffd_fault_source },
			.uffd = { .wait = UFFD_WAIT_BLOCK, .batch = 16 },
			.fault_timeout = 10,
			.wo = { .iterations = 0, .writers = -1, .readers = -1, .duration = 5,
				.warmup = 1, .cycles = 20000, .interval_ms = 1000 },
			.min_sample_ms = 200,
			.speed = 1,              /* replay: as the program ran */
			.targets = { { .lock = &rwsem_lock_ops,
				       .slab = SLAB_MALLOC,
				       .rcu_free = RCU_FREE_CALL_RCU } },
			.ntargets = 1,
			.vary = RUN_VARY_SCHEME,
		},
		.max_tasks = 256,
		.ceiling = true,
		.ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN),
	};

	if (a.ncpus < 1)
		a.ncpus = 1;
	for (int i = 0; i < a.ncpus && i < RUNNER_MAX_TASKLIST; i++)
		a.c.tasks[a.c.ntasklist++] = i + 1;
	*out = a;
}

json_object *cmd_run_preview(int argc, char **argv)
{
	struct run_args a;
	json_object *root = NULL;

	run_args_init(&a);
	if (!run_parse(argc, argv, &a) && !a.help) {
		const struct run_harness_opts h = run_harness_of(&a);

		root = json_object_new_object();
		json_object_object_add(root, RK_SCHEME, json_object_new_string(
			runner_target_lock(&a.c, 0)->name));
		json_object_object_add(root, RK_WORKLOAD,
				       json_object_new_string(a.c.wl->name));
		json_object_object_add(root, RK_FAULT_SOURCE,
				       json_object_new_string(a.c.mm.source->name));
		json_object_object_add(root, RK_OPTIONS,
				       run_options_json(&a.c, 0, &h));
	}
	run_args_done(&a);
	return root;
}

/*
 * vmsim bench scale [RUN OPTIONS]: the harness's ceiling alone — pft
 * under none at 1 and the given task counts with the given fault source,
 * mode and uffd and handler options, -i samples each — as rates and
 * efficiencies against linear.
 */
int cmd_bench_scale(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct run_args a;
	struct run_ceiling hc;
	char err[256] = "";
	int ret;

	run_args_init(&a);
	a.scale = true;
	ret = run_parse(argc, argv, &a);
	if (a.help) {
		cli_print_help(&cmd_bench_scale_desc, stdout);
		return 0;
	}
	if (ret || ctx->dry_run) {
		run_args_done(&a);
		return ret;
	}
	run_install_interrupts();
	if (a.c.mm.source == &uffd_fault_source && run_uffd_preflight())
		return 1;
	if (!a.mem_given)
		a.c.wo.mem = run_ceiling_mem(&a.c);
	runner_targets_set(&a.c, RUN_VARY_SCHEME,
			&(struct run_target){ .lock = &none_lock_ops }, 1);
	a.c.mm.lock = &none_lock_ops;
	run_print_banner(&a.c);
	printf("the harness's ceiling: pft under none, %d sample%s of at least "
	       "%d ms a task count\n\n", a.c.wo.iterations,
	       PLURAL(a.c.wo.iterations), a.c.min_sample_ms > 0 ?
	       a.c.min_sample_ms : 200);
	ret = run_ceiling_measure(&a.c, a.c.wo.iterations, a.c.wo.mem, &hc,
				  err, sizeof(err));
	run_ceiling_print(stdout, &hc);
	run_ceiling_warn(stdout, &hc, hc.tasks, hc.n);
	if (ret) {
		fprintf(stderr, "%s: bench scale: %s\n", prog, err);
		return run_status(ret);
	}
	return 0;
}

static int cmd_run(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct run_args a;
	struct res_file r[RUNNER_MAX_SCHEMES] = { 0 };
	struct res_target tgt[RUNNER_MAX_SCHEMES];
	json_object *command;
	int ntgt = 0, ret, lret;
	char err[256] = "";
	bool stopped;

	run_args_init(&a);
	ret = run_parse(argc, argv, &a);
	if (a.help)
		cli_help("run");
	if (ret || a.help || ctx->dry_run) {
		run_args_done(&a);
		return ret;
	}
	/* From here an interrupt is a request to stop and keep what was
	 * measured (caught before the result files are claimed, so that
	 * their temporary files are removed). */
	run_install_interrupts();
	ret = run_claim(&a, tgt, &ntgt);
	if (!ret && a.c.mm.source == &uffd_fault_source && run_uffd_preflight())
		ret = 1;
	if (!ret) {
		struct host_busy t0, look;
		struct host_probe hp;
		struct run_ceiling hc = { 0 };

		/* What the host charges, for the result's meta (untimed);
		 * the machine's load over that time. */
		run_host_busy_now(&look);
		probe_host(&hp);
		run_print_banner(&a.c);
		run_print_host_kernel(&a.c, &hp.kernel);
		run_costs_print(stdout, &a.c, a.costs);
		if (a.c.wo.replay)
			run_replay_print(&a.c);
		run_warn_oversubscribed(&a.c);
		run_warn_busy_before(&a.c, &look);
		run_ceiling_before(&a, &hc);
		run_host_busy_now(&t0);
		ret = runner_run(&a.c, r, err, sizeof(err));
		for (int i = 0; i < runner_ntargets(&a.c); i++) {
			r[i].host_wake_us = hp.wake_us;
			r[i].host_uffd_block_us = hp.uffd_block_us;
			r[i].host_uffd_busy_us = hp.uffd_busy_us;
			r[i].host_kernel = hp.kernel;
		}
		stopped = ret == -EINTR || ret == -ETIMEDOUT || ret == -ECHILD ||
			  ret == -ENOSPC;
		run_show(&a, r, ret, err, stopped);
		run_warn_noise(r, runner_ntargets(&a.c), &t0, &a.c);
		run_ceiling_after(&a, &hc, r);
		command = command_json(argc, argv);
		ret = run_publish(&a, tgt, ntgt, r, command, stopped, ret);
		ret = run_rescue(&a, tgt, &ntgt, r, command, stopped, ret);
		json_object_put(command);
		lret = run_replay_publish(&a.c, r[0].complete);
		if (lret && !ret)
			ret = lret;
	}
	run_args_done(&a);
	for (int i = 0; i < ntgt; i++)
		resfile_close(&tgt[i]);
	/* A results directory this run made and wrote nothing into is not
	 * left behind (rmdir removes only an empty one). */
	if (a.made_dir)
		sf_rmdir_empty(a.json);
	for (int i = 0; i < runner_ntargets(&a.c); i++)
		res_file_free(&r[i]);
	return run_status(ret);
}

/* Its options follow, from resfile/run_opts.def; then the names -l and
 * -w take. */
static void run_more_help(FILE *f)
{
	if (cli_names_hook)
		cli_names_hook(f);
}

const struct cli_command cmd_run_desc = {
	.name = "run",
	.summary = "run a workload under one or more lock schemes, write a result",
	.synopsis = "run [options]",
	.text = "Runs a workload under each scheme of -l, interleaved iteration by\n"
		"iteration; prints the summary and the comparison; writes the results.\n",
	.opts_fn = run_opts_table,
	.more_help = run_more_help,
	.exits = "\n"
		 "exit status: 0 done; 1 the run failed, or its result could not go where\n"
		 "  asked (it went elsewhere, and stderr says where); 2 bad input (one line on\n"
		 "  stderr says which value and why); 3 the run was aborted (a fault nobody\n"
		 "  answered, a task process died); 128+N stopped by signal N (SIGINT, SIGTERM,\n"
		 "  SIGHUP): what was measured is printed and written, complete: false. A\n"
		 "  repeat of the signal within a second is ignored; a later one exits within\n"
		 "  a second.\n",
	.run = cmd_run,
};
