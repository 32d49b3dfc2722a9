/* SPDX-License-Identifier: MIT */
/*
 * vmsim — user-space virtual memory manager simulator: the command line.
 *
 *   vmsim run     run a workload under a lock scheme, print a summary,
 *                 write a JSON result
 *   vmsim list    the lock schemes and workloads
 *   vmsim check   what this machine offers (userfaultfd, io_uring, ...)
 *
 * Only this file turns errors into messages and exit codes: 2 for bad
 * usage, 1 for a run that failed.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <liburing.h>
#include <math.h>
#include <pthread.h>
#include <numa.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "faults/sources.h"
#include "locks/lock_ops.h"
#include "cli/bench.h"
#include "report/compare.h"
#include "util/parse.h"
#include "report/resfile.h"
#include "report/results.h"
#include "report/stats.h"
#include "uffd/uffd.h"
#include "cli/cli.h"
#include "workloads/runner.h"

#define EXIT_USAGE 2
#define MAX_TASKS_LIMIT 1024

static const char *prog = "vmsim";

static void usage(FILE *f)
{
	fprintf(f,
"usage: vmsim <command> [options]\n"
"\n"
"commands:\n"
"  run      run a workload under a lock scheme and write a result\n"
"  list     list the lock schemes and workloads\n"
"  compare  compare result files: mmtests-style tables, regression gate\n"
"  check    report what this machine offers (userfaultfd, io_uring, CPUs)\n"
"  bench tree [--vmas LIST] [--lookups N]\n"
"           VMA-tree costs at several sizes against a sorted array\n"
"\n"
"vmsim run options:\n"
"  -l, --lock NAME[,NAME]   lock scheme(s) (default rwsem; see 'vmsim list');\n"
"                           several are run interleaved and compared\n"
"  -w, --workload NAME      workload (default pft)\n"
"  -t, --tasks LIST         task counts: 1,2,4 | 1-8 | max (default 1-CPUs)\n"
"  -i, --iterations N       runs per task count (default 5; loop workloads 1)\n"
"  -m, --mem SIZE           region size, K/M/G/T suffixes, a multiple of 4K\n"
"                           (default: the workload's: pft 64M, page_fault*\n"
"                           and mmap* 128M per task, madvise_batch 256M,\n"
"                           fault_vs_mmap 16M); threads share it, split among\n"
"                           them; in --mode processes each task has its own\n"
"      --duration N         loop workloads: samples kept (default 5)\n"
"      --warmup N           loop workloads: samples discarded first (default 1)\n"
"      --interval MS        loop workloads: sample length (default 1000 ms)\n"
"      --cycles N           mmap_stress: cycles per iteration (default 20000)\n"
"      --zap MODE           madvise_batch: process_madvise (one call per batch,\n"
"                           default) | madvise (one call per range)\n"
"      --writers N          writer tasks for fault_vs_mmap (default 1)\n"
"      --arena SIZE         simulated address space (default 16G)\n"
"      --handlers N         uffd handler threads (default: one per task)\n"
"      --wait MODE          handler wait: block | poll | busy | uring\n"
"                           (default block)\n"
"      --batch N            uffd messages per read, 1-64 (default 16)\n"
"      --fault-source SRC   uffd | synthetic (default uffd)\n"
"      --mode MODE          threads (one shared mm) | processes (an mm per\n"
"                           task) (default threads)\n"
"      --pin                pin tasks (and handlers) to CPUs\n"
"      --numa POLICY        local (arena and handlers on this node) |\n"
"                           interleave (arena over all nodes) (default: the\n"
"                           kernel's)\n"
"      --fault-timeout S    a fault unanswered this long aborts the run with\n"
"                           a diagnostic (default 10; 0: off)\n"
"      --max-tasks N        refuse more tasks than N (default 256)\n"
"      --max-map-count N    like vm.max_map_count (default 65530)\n"
"  -o, --json FILE          write the result to FILE (several schemes:\n"
"                           FILE-<scheme>.json)\n"
"  -f, --force              replace FILE if it is a vmsim result\n"
"      --brief              no lock statistics (several schemes: only the\n"
"                           comparison table)\n"
"  -q, --quiet              no progress line\n"
"\n"
"vmsim compare [options] BASE.json NEW.json [MORE.json ...]\n"
"      --format FMT         text | markdown | csv | json | gnuplot (default text)\n"
"      --label NAME         column label, once per file in order (default: scheme)\n"
"      --significance RULE  the *x.xx%%* marker: welch (Welch's t-test, alpha\n"
"                           0.05; default) | mannwhitney | mmtests-ttest\n"
"                           (t-test on the Hmean, n1+n2-2 df, alpha 0.10:\n"
"                           mmtests 2018 to Nov 2024) | mmtests-ci\n"
"                           (|diff| > 1.96*(sd_a+sd_b): mmtests since Nov 2024)\n"
"      --test TEST          the same (welch | mannwhitney), older name\n"
"      --alpha A            significance level (default: the rule's)\n"
"      --fail-on-regression[=PCT]\n"
"                           exit 1 if a primary metric of a later file is\n"
"                           significantly worse than BASE by more than PCT%%;\n"
"                           exit 2 if a file is not a valid measurement\n"
"                           (incomplete, NaN/negative/missing samples, flagged\n"
"                           samples) or was run with other options\n"
"      --allow-mismatch     gate runs made with different options anyway\n"
"      --metric NAME        the metric for --format gnuplot (default: first)\n"
"\n"
"exit status: 0 done; 1 the run failed, its result could not go where asked\n"
"  (it went elsewhere, and stderr says where), or the gate found a regression;\n"
"  2 bad input (one line on stderr says which value and why), or a file the\n"
"  gate cannot trust; 3 the run was aborted (a fault nobody answered, a task\n"
"  process died); 128+N stopped by signal N (SIGINT, SIGTERM): what was\n"
"  measured is printed and written, complete: false. A repeat of the signal\n"
"  within a second is ignored; a later one exits within a second.\n"
"\n"
"  -h, --help               this help;  -V, --version  the version\n");
}

static int bad(const char *fmt, const char *val)
{
	char shown[256];

	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, printable(shown, sizeof(shown), val));
	fprintf(stderr, " (see 'vmsim --help')\n");
	return EXIT_USAGE;
}

/*
 * getopt's complaint as one line of ours (opterr is 0, and the option
 * strings start with ':' so that a missing value is told apart).
 */
static int bad_option(char **argv, int opt, const struct option *opts)
{
	char name[64], shown[80];
	const char *arg = argv[optind - 1];
	int matches = 0;

	if (optopt > 0 && optopt < 256 && arg[0] == '-' && arg[1] != '-')
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	printable(shown, sizeof(shown), name);
	if (opt == ':')
		return bad("option '%s' needs a value", shown);
	for (int i = 0; name[0] == '-' && name[1] == '-' && opts[i].name; i++)
		matches += !strncmp(opts[i].name, name + 2, strlen(name + 2));
	if (matches > 1)
		return bad("ambiguous option '%s': give more of its name", shown);
	return bad("unknown option '%s'", shown);
}

static void print_summary(const struct res_file *r, const struct run_cfg *c,
			  bool brief)
{
	printf("\n%-6s", "tasks");
	for (int m = 0; m < r->nmetrics; m++) {
		char h[48];

		snprintf(h, sizeof(h), "%s %s", r->metrics[m].higher_better ?
			 "Hmean" : "Amean", r->metrics[m].name);
		printf(" %18s", h);
	}
	printf("\n");
	for (int i = 0; i < r->npoints; i++) {
		const struct res_point *p = &r->points[i];

		printf("%-6d", p->tasks);
		for (int m = 0; m < r->nmetrics; m++) {
			double v = r->metrics[m].higher_better ?
				stats_hmean(p->samples[m], (size_t)p->nsamples) :
				stats_amean(p->samples[m], (size_t)p->nsamples);

			printf(" %18.4f", isnan(v) ? 0.0 : v);
		}
		if (res_point_nflagged(p))
			printf("  [%d of %d samples flagged]", res_point_nflagged(p),
			       p->nsamples);
		printf("\n");
	}
	/* Samples that are not measurements, said where the numbers are. */
	for (int i = 0; i < r->npoints; i++) {
		const struct res_point *p = &r->points[i];

		for (int k = 0; k < p->nsamples; k++)
			if (p->flag[k])
				printf("flagged: tasks %d, sample %d (wall %.2f s): %s\n",
				       p->tasks, k + 1, p->wall[k],
				       res_flag_reason(p->flag[k]));
	}
	for (int i = 0; i < r->npoints && !brief; i++) {
		const struct res_point *p = &r->points[i];

		printf("\ntasks %d: %d samples, %llu pages touched, %llu SIGSEGV\n",
		       p->tasks, p->nsamples, (unsigned long long)p->touches,
		       (unsigned long long)p->segv);
		if (c->mm.source == &uffd_fault_source)
			printf("  uffd: %llu messages in %llu reads; copy %llu, "
			       "zeropage %llu, unprotect %llu, wake %llu, refused "
			       "%llu, errors %llu\n",
			       (unsigned long long)p->c.uffd.messages,
			       (unsigned long long)p->c.uffd.reads,
			       (unsigned long long)p->c.uffd.copies,
			       (unsigned long long)p->c.uffd.zeropages,
			       (unsigned long long)p->c.uffd.unprotects,
			       (unsigned long long)p->c.uffd.wakes,
			       (unsigned long long)p->c.uffd.refused,
			       (unsigned long long)p->c.uffd.errors);
		printf("  host (timed phase): mmap %llu, munmap %llu, mprotect "
		       "%llu, mremap %llu, brk %llu, madvise %llu\n",
		       (unsigned long long)p->host_calls[HOST_MMAP],
		       (unsigned long long)p->host_calls[HOST_MUNMAP],
		       (unsigned long long)p->host_calls[HOST_MPROTECT],
		       (unsigned long long)p->host_calls[HOST_MREMAP],
		       (unsigned long long)p->host_calls[HOST_BRK],
		       (unsigned long long)p->host_calls[HOST_MADVISE]);
		for (int k = 0; k < p->c.ncounters; k++)
			printf("%s%s %llu%s", k ? "" : "  ", p->c.counter_names[k],
			       (unsigned long long)p->c.counters[k],
			       k + 1 < p->c.ncounters ? ", " : "\n");
		printf("  %-12s %-5s %12s %12s %12s %12s %12s %12s\n",
		       "lock class", "side", "acquired", "contended", "wait-total",
		       "wait-max", "hold-avg", "hold-max");
		for (int k = 0; k < p->c.nclasses; k++)
			for (int s = 0; s < LS_NSIDES; s++) {
				const struct lockstat_totals *t =
					&p->c.classes[k].side[s];

				if (!t->acquisitions)
					continue;
				printf("  %-12s %-5s %12llu %12llu %10.3fms %10.3fus "
				       "%10.3fus %10.3fus\n", p->c.classes[k].name,
				       s == LS_READ ? "read" : "write",
				       (unsigned long long)t->acquisitions,
				       (unsigned long long)t->contentions,
				       (double)t->wait_total / 1e6,
				       (double)t->wait_max / 1e3,
				       (double)t->hold_total / 1e3 /
				       (double)t->acquisitions,
				       (double)t->hold_max / 1e3);
			}
	}
}

static json_object *options_json(const struct run_cfg *c, int nhandlers_opt)
{
	json_object *o = json_object_new_object(), *t = json_object_new_array();

	for (int i = 0; i < c->ntasklist; i++)
		json_object_array_add(t, json_object_new_int(c->tasks[i]));
	json_object_object_add(o, "tasks", t);
	json_object_object_add(o, "iterations", json_object_new_int(c->wo.iterations));
	if (c->wl->min_mem)              /* only where the workload uses it */
		json_object_object_add(o, "mem", json_object_new_int64((int64_t)c->wo.mem));
	json_object_object_add(o, "arena", json_object_new_int64((int64_t)c->mm.arena_size));
	json_object_object_add(o, "handlers", json_object_new_int(nhandlers_opt));
	json_object_object_add(o, "wait", json_object_new_string(
		uffd_wait_mode_name(c->mm.src.wait)));
	json_object_object_add(o, "batch", json_object_new_int(c->mm.src.batch));
	json_object_object_add(o, "writers", json_object_new_int(c->wo.writers));
	json_object_object_add(o, "mode", json_object_new_string(
		c->processes ? "processes" : "threads"));
	json_object_object_add(o, "pin", json_object_new_boolean(c->pin));
	json_object_object_add(o, "numa", json_object_new_string(
		c->mm.numa == SIM_NUMA_LOCAL ? "local" :
		c->mm.numa == SIM_NUMA_INTERLEAVE ? "interleave" : "default"));
	if (c->wl->loop) {
		json_object_object_add(o, "warmup", json_object_new_int(c->wo.warmup));
		json_object_object_add(o, "duration", json_object_new_int(c->wo.duration));
		json_object_object_add(o, "interval_ms", json_object_new_int(c->wo.interval_ms));
	}
	if (c->wl == &mmap_stress_workload)
		json_object_object_add(o, "cycles", json_object_new_int64(c->wo.cycles));
	if (c->wl == &madvise_batch_workload)
		json_object_object_add(o, "zap", json_object_new_string(
			c->wo.zap_per_range ? "madvise" : "process_madvise"));
	return o;
}

/*
 * arg as one of names: its index, or -1 after one line naming the bad
 * value and the choices ("unknown WHAT 'x': want a, b or c").
 */
static int pick(const char *what, const char *arg, const char *const *names,
		int n)
{
	int i = parse_choice(arg, names, n);
	char shown[256];

	if (i >= 0)
		return i;
	fprintf(stderr, "%s: unknown %s '%s': want ", prog, what,
		printable(shown, sizeof(shown), arg));
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%s", names[i], i == n - 1 ? "" :
			i == n - 2 ? " or " : ", ");
	fprintf(stderr, " (see 'vmsim --help')\n");
	return -1;
}

#define NAMES(...) (const char *const[]){ __VA_ARGS__ }, \
	(int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *))

struct int_opt {
	int id;
	long lo, hi;
	const char *what;
	int *dst;
};

/* If opt is one of ints, parse arg into it: 1 taken, 0 not an integer
 * option, -1 bad value (said in one line). */
static int set_int_opt(const struct int_opt *ints, size_t n, int opt,
		       const char *arg)
{
	long v;

	for (size_t i = 0; i < n; i++) {
		if (ints[i].id != opt)
			continue;
		if (parse_long(arg, ints[i].lo, ints[i].hi, &v)) {
			fprintf(stderr, "%s: bad %s '%s': want %ld to %ld (see "
				"'vmsim --help')\n", prog, ints[i].what, arg,
				ints[i].lo, ints[i].hi);
			return -1;
		}
		*ints[i].dst = (int)v;
		return 1;
	}
	return 0;
}

/*
 * Interrupts. The first SIGINT or SIGTERM stops the run: the iteration
 * under way is dropped, and what was measured is printed and written
 * (complete: false). Another one within INTERRUPT_ECHO_NS of the first is
 * the same interrupt delivered twice — coreutils timeout(1) signals its
 * child and then its whole process group, and a terminal's Ctrl-C reaches
 * every process of the foreground group — and is ignored. A later one is
 * a person who does not want to wait: vmsim still writes what was
 * measured if that takes under a second (SIGALRM then exits), and a
 * third exits at once. The exit status is always 128 + the first signal.
 */
#define INTERRUPT_ECHO_NS 1000000000LL

static volatile sig_atomic_t first_signal, hurried;
static struct timespec first_signal_at;

static void say(const char *msg)
{
	ssize_t ignored = write(STDERR_FILENO, msg, strlen(msg));

	(void)ignored;
}

static void on_interrupt(int sig)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);    /* async-signal-safe */
	if (!first_signal) {
		first_signal_at = now;
		first_signal = sig;
		runner_interrupt(sig);
		return;
	}
	if ((now.tv_sec - first_signal_at.tv_sec) * 1000000000LL +
	    (now.tv_nsec - first_signal_at.tv_nsec) < INTERRUPT_ECHO_NS)
		return;
	if (hurried)
		_exit(128 + first_signal);
	hurried = 1;
	say("vmsim: interrupted again: writing what was measured, exiting "
	    "within a second\n");
	alarm(1);
}

static void on_alarm(int sig)
{
	(void)sig;
	say("vmsim: could not finish writing within a second; exiting\n");
	_exit(128 + first_signal);
}

static void install_interrupts(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
}

/* vm.unprivileged_userfaultfd, or -1 if it cannot be read. */
static int unprivileged_uffd_sysctl(void)
{
	FILE *f = fopen("/proc/sys/vm/unprivileged_userfaultfd", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * Before a uffd run: can we have userfaultfd, with UFFDIO_POISON? One
 * line saying exactly why not and what to do, at once.
 */
static int uffd_preflight(void)
{
	struct uffd_info info = { 0 };
	int dev_err, sysctl = unprivileged_uffd_sysctl(), fd;
	bool via_dev;

	fd = uffd_open(0, &via_dev, &dev_err);
	if (fd < 0) {
		fprintf(stderr, "%s: userfaultfd is not available: userfaultfd(2): "
			"%s (vm.unprivileged_userfaultfd = %d), /dev/userfaultfd: %s; "
			"remedies: 'sysctl vm.unprivileged_userfaultfd=1', read-write "
			"access to /dev/userfaultfd, or --fault-source synthetic\n",
			prog, strerror(-fd), sysctl,
			dev_err ? strerror(dev_err) : "refused");
		return 1;
	}
	if (uffd_api(fd, UFFD_FEATURE_POISON, &info) ||
	    !(info.features & UFFD_FEATURE_POISON)) {
		close(fd);
		fprintf(stderr, "%s: this kernel's userfaultfd lacks UFFDIO_POISON "
			"(Linux 6.6+), which vmsim needs to refuse bad accesses; "
			"use --fault-source synthetic\n", prog);
		return 1;
	}
	close(fd);
	return 0;
}

/* Bytes of memory available now (MemAvailable), or 0 if unknown. */
static size_t mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	size_t kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %zu kB", &kb) == 1)
			break;
	fclose(f);
	return kb << 10;
}

/*
 * Refuse, with one line, what would end in an OOM kill or a useless run:
 * more tasks than --max-tasks; a scheme without exclusion where tasks
 * sharing an mm map and unmap at once; a region larger than the arena;
 * more memory touched than the machine has available.
 */
/* Bytes of address space this process maps now. */
static size_t vm_size_now(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long pages = 0;

	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * `ulimit -v` and `ulimit -d` against what a run maps: in each process that
 * holds simulated mms (threads mode: one per scheme, all alive at once;
 * processes mode: one per task process), their reservations, a stack per
 * thread, what is mapped already, and room for the allocator and
 * libraries. Checked here so that the answer is a usage error naming the
 * limit, not "Cannot allocate memory" (or liburcu aborting) mid-run.
 */
#define AS_SLACK (128UL << 20)

static int check_address_space(const struct run_cfg *c, int most)
{
	struct rlimit rl;
	pthread_attr_t attr;
	size_t stack = 8UL << 20, per_mm, need, base, fit;
	int nmm = c->processes ? 1 : c->nlocks;
	int tasks = c->processes ? 1 : most + (c->wo.writers > 0 ? c->wo.writers : 0);
	int handlers = c->mm.source != &uffd_fault_source ? 0 :
		       c->mm.src.nhandlers ? c->mm.src.nhandlers : tasks;
	int threads = nmm * (1 + tasks + handlers) + 4;
	char hint[96] = "raise the limit";

	const char *which = "ulimit -v";
	struct rlimit dl;

	/* RLIMIT_DATA counts private writable mappings (Linux 4.7+): the
	 * arena, the pools and the stacks, nearly all of it. */
	if (getrlimit(RLIMIT_AS, &rl))
		rl.rlim_cur = RLIM_INFINITY;
	if (!getrlimit(RLIMIT_DATA, &dl) && dl.rlim_cur < rl.rlim_cur) {
		rl = dl;
		which = "ulimit -d";
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if (!pthread_getattr_default_np(&attr)) {
		pthread_attr_getstacksize(&attr, &stack);
		pthread_attr_destroy(&attr);
	}
	per_mm = sim_mm_reserve_bytes(&c->mm);
	base = vm_size_now() + (size_t)threads * stack + AS_SLACK;
	need = base + (size_t)nmm * per_mm;
	if (need <= rl.rlim_cur)
		return 0;
	/* The largest arena that fits: the rest of an mm scales with it by
	 * 1/4096 (its page map). */
	fit = rl.rlim_cur > base + (size_t)nmm * (per_mm - c->mm.arena_size -
		(c->mm.arena_size >> SIM_PAGE_SHIFT)) ?
	      (rl.rlim_cur - base) / (size_t)nmm -
	      (per_mm - c->mm.arena_size - (c->mm.arena_size >> SIM_PAGE_SHIFT)) : 0;
	fit = fit / 4097 * 4096 & ~((1UL << 20) - 1);
	if (fit >= 1UL << 20)
		snprintf(hint, sizeof(hint), "give --arena %zuM or less, or raise "
			 "the limit", fit >> 20);
	fprintf(stderr, "%s: the run needs about %zu MiB of address space per "
		"process (--arena %zu MiB%s, %d threads), more than %s "
		"allows (%llu MiB): %s\n", prog, need >> 20,
		c->mm.arena_size >> 20, nmm > 1 ? " for each scheme" : "", threads,
		which, (unsigned long long)(rl.rlim_cur >> 20), hint);
	return -1;
}

/* --mem against what the workload needs of it, per task. */
static int check_mem(const struct run_cfg *c, int most, bool mem_given)
{
	/* Threads share one region unless the workload maps --mem per
	 * task (loop); a task process has --mem to itself. */
	int share = c->processes || c->wl->loop ? 1 : most;
	size_t want = c->wl->min_mem * (size_t)share;

	if (!c->wl->min_mem) {
		if (mem_given) {
			fprintf(stderr, "%s: --mem does not apply to workload '%s'\n",
				prog, c->wl->name);
			return -1;
		}
		return 0;
	}
	if (c->wo.mem < want && share > 1) {
		fprintf(stderr, "%s: --mem %zuK is too small for %s with %d tasks "
			"sharing it: want at least %zuK (%zuK per task)\n", prog,
			c->wo.mem >> 10, c->wl->name, share, want >> 10,
			c->wl->min_mem >> 10);
		return -1;
	}
	if (c->wo.mem < want) {
		fprintf(stderr, "%s: --mem %zuK is too small for %s: want at least "
			"%zuK%s\n", prog, c->wo.mem >> 10, c->wl->name, want >> 10,
			c->processes || c->wl->loop ? " per task" : "");
		return -1;
	}
	return 0;
}

static int check_limits(const struct run_cfg *c, int max_tasks,
			bool mem_given)
{
	int most = 0;
	size_t need, avail = mem_available();

	for (int k = 0; k < c->ntasklist; k++)
		most = c->tasks[k] > most ? c->tasks[k] : most;
	if (most > max_tasks) {
		fprintf(stderr, "%s: %d tasks is more than --max-tasks (%d)\n",
			prog, most, max_tasks);
		return -1;
	}
	for (int i = 0; i < c->nlocks; i++)
		if (!c->locks[i]->excludes && c->wl->concurrent_writes &&
		    !c->processes && (most > 1 || c->wo.writers > 0)) {
			fprintf(stderr, "%s: lock scheme '%s' has no exclusion, and "
				"%s changes the address space from several tasks at "
				"once: use one task, --mode processes, or another "
				"scheme\n", prog, c->locks[i]->name, c->wl->name);
			return -1;
		}
	/* Loop workloads map --mem per task; threads share one arena. */
	need = c->wl->loop ? c->wo.mem * (size_t)most : c->wo.mem;
	if ((c->processes ? c->wo.mem : need) > c->mm.arena_size) {
		fprintf(stderr, "%s: --mem %zu MiB%s does not fit the arena "
			"(%zu MiB): raise --arena\n", prog, c->wo.mem >> 20,
			c->wl->loop && !c->processes ? " per task" : "",
			c->mm.arena_size >> 20);
		return -1;
	}
	if (avail && c->wl->touches_mem && need > avail) {
		fprintf(stderr, "%s: --mem %zu MiB%s would touch %zu MiB, more "
			"than the %zu MiB of memory available\n", prog,
			c->wo.mem >> 20, c->wl->loop ? " per task" : "",
			need >> 20, avail >> 20);
		return -1;
	}
	if (check_mem(c, most, mem_given))
		return -1;
	return check_address_space(c, most);
}

/* "rwsem,range": each a known scheme, none twice. Prints the error. */
static int parse_locks(const char *arg, struct run_cfg *c)
{
	char buf[256], *save = NULL, *tok;

	if (parse_list_check(arg))
		return bad("bad lock scheme list '%s': want names separated by "
			   "commas, none empty, such as rwsem,pervma", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	c->nlocks = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct lock_ops *l = lock_scheme_find(tok);

		if (!l)
			return bad("unknown lock scheme '%s'", tok);
		for (int i = 0; i < c->nlocks; i++)
			if (c->locks[i] == l)
				return bad("lock scheme '%s' given twice", tok);
		if (c->nlocks == RUNNER_MAX_SCHEMES)
			return bad("too many lock schemes at '%s'", tok);
		c->locks[c->nlocks++] = l;
	}
	if (!c->nlocks)
		return bad("no lock scheme in '%s'", arg);
	return 0;
}

/* FILE for one scheme, FILE-<scheme>.json (FILE without .json) for many. */
static void result_path(char *out, size_t len, const char *json,
			const char *scheme)
{
	size_t n = strlen(json);

	if (!scheme) {
		snprintf(out, len, "%s", json);
		return;
	}
	if (n > 5 && !strcmp(json + n - 5, ".json"))
		n -= 5;
	snprintf(out, len, "%.*s-%s.json", (int)n, json, scheme);
}

static void print_banner(const struct run_cfg *c)
{
	printf("vmsim %s: workload %s, lock ", VMSIM_VERSION, c->wl->name);
	for (int i = 0; i < c->nlocks; i++)
		printf("%s%s", i ? "," : "", c->locks[i]->name);
	printf(", fault source %s",
	       c->mm.source == &uffd_fault_source ? "uffd" : "synthetic");
	if (c->mm.source == &uffd_fault_source && c->mm.src.nhandlers)
		printf(" (%s wait, %d handlers)", uffd_wait_mode_name(c->mm.src.wait),
		       c->mm.src.nhandlers);
	else if (c->mm.source == &uffd_fault_source)
		printf(" (%s wait, one handler per task)",
		       uffd_wait_mode_name(c->mm.src.wait));
	printf(",\n  %s mode%s", c->processes ? "processes" : "threads",
	       c->pin ? " (pinned)" : "");
	if (c->wl->min_mem && c->wo.mem % (1UL << 20))
		printf(", mem %zu KiB", c->wo.mem >> 10);
	else if (c->wl->min_mem)
		printf(", mem %zu MiB", c->wo.mem >> 20);
	if (c->wl->min_mem && (c->processes || c->wl->loop))
		printf(" per task");
	printf(", %d iterations", c->wo.iterations);
	if (c->wl->background)
		printf(", %d writer%s", c->wo.writers, c->wo.writers == 1 ? "" : "s");
	if (c->nlocks > 1)
		printf(";\n  schemes interleaved iteration by iteration");
	printf("\n");
	fflush(stdout);
}

/* Several schemes in one run: the comparison table, rwsem-first order as
 * given (the first is the base). */
static void print_comparison(struct res_file *r, int n)
{
	struct cmp_file f[RUNNER_MAX_SCHEMES];
	struct cmp_opts o = { .format = CMP_TEXT, .test = CMP_WELCH };
	char err[256];
	int ok = 0;

	for (int i = 0; i < n; i++) {
		if (cmp_from_json(res_to_json(&r[i]), r[i].scheme, &f[ok], err,
				  sizeof(err)))
			break;
		ok++;
	}
	if (ok == n) {
		printf("\n");
		cmp_print(stdout, f, n, &o);
	}
	for (int i = 0; i < ok; i++)
		cmp_file_free(&f[i]);
}

enum { OPT_ARENA = 256, OPT_HANDLERS, OPT_WAIT, OPT_BATCH, OPT_SOURCE,
       OPT_WRITERS, OPT_MODE, OPT_PIN, OPT_DURATION, OPT_WARMUP, OPT_CYCLES,
       OPT_ZAP, OPT_INTERVAL, OPT_TIMEOUT, OPT_MAX_TASKS, OPT_MAX_MAP,
       OPT_NUMA, OPT_BRIEF };

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lock", required_argument, NULL, 'l' },
		{ "workload", required_argument, NULL, 'w' },
		{ "tasks", required_argument, NULL, 't' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "mem", required_argument, NULL, 'm' },
		{ "arena", required_argument, NULL, OPT_ARENA },
		{ "handlers", required_argument, NULL, OPT_HANDLERS },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "batch", required_argument, NULL, OPT_BATCH },
		{ "fault-source", required_argument, NULL, OPT_SOURCE },
		{ "writers", required_argument, NULL, OPT_WRITERS },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "pin", no_argument, NULL, OPT_PIN },
		{ "numa", required_argument, NULL, OPT_NUMA },
		{ "brief", no_argument, NULL, OPT_BRIEF },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "cycles", required_argument, NULL, OPT_CYCLES },
		{ "zap", required_argument, NULL, OPT_ZAP },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "fault-timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "max-tasks", required_argument, NULL, OPT_MAX_TASKS },
		{ "max-map-count", required_argument, NULL, OPT_MAX_MAP },
		{ "json", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct run_cfg c = {
		.wl = &pft_workload,
		.mm = { .lock = &rwsem_lock_ops, .arena_size = SIM_DEFAULT_ARENA,
			.source = &uffd_fault_source,
			.src = { .wait = UFFD_WAIT_BLOCK, .batch = 16 } },
		.fault_timeout = 10,
		.wo = { .iterations = 0, .writers = -1, .duration = 5, .warmup = 1,
			.cycles = 20000, .interval_ms = 1000 },
		.locks = { &rwsem_lock_ops },
		.nlocks = 1,
	};
	struct res_file r[RUNNER_MAX_SCHEMES] = { 0 };
	struct res_target tgt[RUNNER_MAX_SCHEMES];
	int ntgt = 0;
	bool stopped, measured = false, mem_given;
	const char *json = NULL;
	bool force = false, quiet = false, zap_given = false, brief = false;
	int max_tasks = 256;
	char err[256] = "";
	long v;
	int k;
	int opt, ret;

	if (ncpus < 1)
		ncpus = 1;
	for (int i = 0; i < ncpus && i < RUNNER_MAX_TASKLIST; i++)
		c.tasks[c.ntasklist++] = i + 1;
	/* The options that take a bounded integer. */
	const struct int_opt ints[] = {
		{ 'i', 1, 1000000, "iteration count", &c.wo.iterations },
		{ OPT_HANDLERS, 1, 1024, "handler count", &c.mm.src.nhandlers },
		{ OPT_BATCH, 1, 64, "batch", &c.mm.src.batch },
		{ OPT_DURATION, 1, 3600, "duration (samples)", &c.wo.duration },
		{ OPT_WARMUP, 0, 3600, "warmup (samples)", &c.wo.warmup },
		{ OPT_MAX_TASKS, 1, MAX_TASKS_LIMIT, "--max-tasks", &max_tasks },
		{ OPT_INTERVAL, 10, 60000, "interval (ms)", &c.wo.interval_ms },
		{ OPT_WRITERS, 0, 64, "writer count", &c.wo.writers },
	};

	optind = 0;      /* 0: glibc re-initialises getopt fully */
	while ((opt = getopt_long(argc, argv, ":l:w:t:i:m:o:fqh", opts, NULL)) != -1) {
		int taken = set_int_opt(ints, sizeof(ints) / sizeof(ints[0]), opt,
					optarg);

		if (taken < 0)
			return EXIT_USAGE;
		if (taken)
			continue;
		switch (opt) {
		case 'l':
			if (parse_locks(optarg, &c))
				return EXIT_USAGE;
			break;
		case 'w':
			c.wl = workload_find(optarg);
			if (!c.wl)
				return bad("unknown workload '%s'", optarg);
			break;
		case 't':
			if (parse_tasks(optarg, ncpus, MAX_TASKS_LIMIT, c.tasks,
					RUNNER_MAX_TASKLIST, &c.ntasklist))
				return bad("bad task list '%s': want counts from 1 to 1024 "
					   "such as 1,2,4 or 1-8 or max", optarg);
			{
				long t[RUNNER_MAX_TASKLIST];
				int d;

				for (int i = 0; i < c.ntasklist; i++)
					t[i] = c.tasks[i];
				d = parse_first_duplicate(t, c.ntasklist);
				if (d >= 0) {
					fprintf(stderr, "%s: bad task list '%s': %d tasks "
						"given twice (see 'vmsim --help')\n", prog,
						printable(err, sizeof(err), optarg),
						c.tasks[d]);
					return EXIT_USAGE;
				}
			}
			break;
		case 'm':
			if (parse_size(optarg, &c.wo.mem))
				return bad("bad size '%s' for --mem: want a number with "
					   "an optional K, M, G or T suffix", optarg);
			if (c.wo.mem % SIM_PAGE_SIZE)
				return bad("bad size '%s' for --mem: want a multiple "
					   "of 4K", optarg);
			break;
		case OPT_ARENA:
			if (parse_size(optarg, &c.mm.arena_size) ||
			    c.mm.arena_size % SIM_PAGE_SIZE)
				return bad("bad size '%s' for --arena: want a multiple "
					   "of 4K", optarg);
			break;
		case OPT_WAIT:
			if (uffd_wait_mode_parse(optarg, &c.mm.src.wait))
				return bad("unknown wait mode '%s': want block, poll, "
					   "busy or uring", optarg);
			break;
		case OPT_SOURCE:
			if ((k = pick("fault source", optarg,
				      NAMES("uffd", "synthetic"))) < 0)
				return EXIT_USAGE;
			c.mm.source = fault_source_find(optarg);
			break;
		case OPT_MODE:
			if ((k = pick("mode", optarg,
				      NAMES("threads", "processes"))) < 0)
				return EXIT_USAGE;
			c.processes = k == 1;
			break;
		case OPT_PIN:
			c.pin = true;
			break;
		case OPT_NUMA:               /* enum sim_numa order, after default */
			if ((k = pick("NUMA policy", optarg,
				      NAMES("local", "interleave"))) < 0)
				return EXIT_USAGE;
			c.mm.numa = (enum sim_numa)(SIM_NUMA_LOCAL + k);
			break;
		case OPT_BRIEF:
			brief = true;
			break;
		case OPT_TIMEOUT: {
			char *end;

			c.fault_timeout = strtod(optarg, &end);
			if (*end || !(c.fault_timeout >= 0 && c.fault_timeout <= 3600))
				return bad("bad fault timeout '%s': want 0 (off) to "
					   "3600 seconds", optarg);
			break;
		}
		case OPT_MAX_MAP:
			if (parse_long(optarg, 1, 100000000, &v))
				return bad("bad --max-map-count '%s': want 1 or more", optarg);
			c.mm.max_map_count = (size_t)v;
			break;
		case OPT_CYCLES:
			if (parse_long(optarg, 1, 100000000, &v))
				return bad("bad cycle count '%s': want 1 or more", optarg);
			c.wo.cycles = v;
			break;
		case OPT_ZAP:
			if ((k = pick("zap mode", optarg,
				      NAMES("process_madvise", "madvise"))) < 0)
				return EXIT_USAGE;
			c.wo.zap_per_range = k == 1;
			zap_given = true;
			break;
		case 'o': json = optarg; break;
		case 'f': force = true; break;
		case 'q': quiet = true; break;
		case 'h': usage(stdout); return 0;
		default:
			return bad_option(argv, opt, opts);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (c.wo.writers >= 0 && !c.wl->background)
		return bad("--writers does not apply to workload '%s'", c.wl->name);
	if (c.wo.writers < 0)
		c.wo.writers = c.wl->background ? 1 : 0;
	mem_given = c.wo.mem != 0;
	if (!c.wo.mem)
		c.wo.mem = c.wl->default_mem ? c.wl->default_mem : 64UL << 20;
	if (check_limits(&c, max_tasks, mem_given))
		return EXIT_USAGE;
	if (!c.wo.iterations)
		c.wo.iterations = c.wl->loop ? 1 : 5;
	if (c.wl == &madvise_batch_workload && !c.wo.zap_per_range &&
	    !sim_process_madvise_self_ok()) {
		if (zap_given) {
			fprintf(stderr, "%s: --zap process_madvise needs "
				"process_madvise(MADV_DONTNEED) on oneself (Linux "
				"6.13+); use --zap madvise\n", prog);
			return EXIT_USAGE;
		}
		fprintf(stderr, "%s: this kernel cannot process_madvise itself: "
			"zapping with one madvise per range\n", prog);
		c.wo.zap_per_range = true;
	}

	c.progress = !quiet && isatty(STDERR_FILENO);
	c.mm.lock = c.locks[0];
	if (vmsim_cli_dry_run)
		return 0;
	/* From here an interrupt is a request to stop and keep what was
	 * measured (caught before the result files are claimed, so that
	 * their temporary files are removed). */
	install_interrupts();
	/* Every result file checked and claimed before anything runs. */
	for (; json && ntgt < c.nlocks; ntgt++) {
		char path[PATH_MAX];

		result_path(path, sizeof(path), json, c.nlocks > 1 ?
			    c.locks[ntgt]->name : NULL);
		char terr[PATH_MAX + 256];

		if (res_target_open(&tgt[ntgt], path, force, terr, sizeof(terr))) {
			fprintf(stderr, "%s: %s\n", prog, terr);
			ret = EXIT_USAGE;
			goto out_targets;
		}
	}
	/* The watchdog's test hook (README: "a fault nobody answers"). */
	if (getenv("VMSIM_TEST_STALL_FAULT"))
		c.mm.src.test_stall_at = atol(getenv("VMSIM_TEST_STALL_FAULT"));
	if (c.mm.source == &uffd_fault_source && uffd_preflight()) {
		ret = 1;
		goto out_targets;
	}
	print_banner(&c);

	ret = runner_run(&c, r, err, sizeof(err));
	stopped = ret == -EINTR || ret == -ETIMEDOUT || ret == -ECHILD;
	for (int i = 0; i < c.nlocks; i++) {
		/* A task count that the stop left without a sample is not
		 * a row of zeros: only what was measured is shown and kept. */
		while (r[i].npoints && !r[i].points[r[i].npoints - 1].nsamples)
			res_point_free(&r[i].points[--r[i].npoints]);
		if (!r[i].complete)
			snprintf(r[i].stopped, sizeof(r[i].stopped), "%s",
				 ret ? err : "stopped");
		r[i].options = options_json(&c, c.mm.src.nhandlers);
		measured |= r[i].npoints > 0;
	}
	if (ret)
		fprintf(stderr, "%s: %s%s%s\n", prog, ret == -EINTR ? "" :
			stopped ? "run aborted: " : "run failed: ", err,
			!stopped ? "" : measured ? "; writing what was measured" :
			"; no sample was complete");
	for (int i = 0; i < c.nlocks; i++) {
		/* --brief with several schemes: only the comparison. */
		if (!r[i].npoints || (brief && c.nlocks > 1))
			continue;
		if (c.nlocks > 1)
			printf("\n== %s ==", r[i].scheme);
		print_summary(&r[i], &c, brief);
	}
	if (c.nlocks > 1 && measured)
		print_comparison(r, c.nlocks);
	for (int i = 0; i < ntgt; i++) {
		char where[PATH_MAX + 64], note[PATH_MAX + 256];
		int wret;

		/* An interrupted run's file is written even when empty: it
		 * says the run stopped, and why. */
		if (!r[i].npoints && !stopped)
			continue;
		wret = res_target_publish(&tgt[i], &r[i], where, sizeof(where),
					  note, sizeof(note));
		if (wret)
			fprintf(stderr, "%s: %s\n", prog, note);
		if (wret >= 0)
			printf("%sresult written to %s%s\n", i ? "" : "\n",
			       printable(note, sizeof(note), where),
			       r[i].complete ? "" : " (incomplete)");
		if (wret && !ret)
			ret = wret < 0 ? wret : -EEXIST;
	}
out_targets:
	for (int i = 0; i < ntgt; i++)
		res_target_close(&tgt[i]);
	for (int i = 0; i < c.nlocks; i++)
		res_file_free(&r[i]);
	if (ret == -EINTR)
		return 128 + (first_signal ? first_signal : runner_interrupted());
	/* 3: the run was aborted (a fault nobody answered, a task process
	 * that died). */
	if (ret == -ETIMEDOUT || ret == -ECHILD)
		return 3;
	if (ret == EXIT_USAGE)
		return EXIT_USAGE;
	return ret ? 1 : 0;
}

static int cmd_list(void)
{
	printf("lock schemes:\n");
	for (int i = 0; i < lock_nschemes; i++)
		printf("  %-12s %s\n", lock_schemes[i]->name, lock_schemes[i]->desc);
	printf("\nworkloads:\n");
	for (int i = 0; i < nworkloads; i++)
		printf("  %-14s %s\n", workloads[i]->name, workloads[i]->desc);
	return 0;
}

static void check_uffd(void)
{
	struct uffd_info info = { 0 };
	int dev_err, fd, ret, sysctl = unprivileged_uffd_sysctl();
	bool via_dev;

	fd = uffd_open(0, &via_dev, &dev_err);
	if (fd < 0) {
		printf("userfaultfd:   NOT available: userfaultfd(2): %s; "
		       "/dev/userfaultfd: %s\n", strerror(-fd),
		       dev_err ? strerror(dev_err) : "ioctl refused");
		printf("               vm.unprivileged_userfaultfd = %d; remedies: "
		       "sysctl vm.unprivileged_userfaultfd=1, access to "
		       "/dev/userfaultfd, or --fault-source synthetic\n", sysctl);
		return;
	}
	ret = uffd_api(fd, ~0ull, &info);
	if (ret) {
		printf("userfaultfd:   opened but UFFDIO_API failed: %s\n",
		       strerror(-ret));
		close(fd);
		return;
	}
	close(fd);
	printf("userfaultfd:   available (via %s)\n",
	       via_dev ? "/dev/userfaultfd" : "the userfaultfd syscall");
	printf("uffd features:");
	for (int b = 0; b < 64; b++)
		if (info.features & (1ull << b)) {
			const char *n = uffd_feature_name(b);

			if (n)
				printf(" %s", n);
			else
				printf(" bit%d", b);
		}
	printf("\n");
	printf("UFFDIO_POISON: %s\n", (info.features & UFFD_FEATURE_POISON) ?
	       "yes (bad accesses get SIGBUS)" :
	       "no (needs Linux 6.6; use --fault-source synthetic)");
}

static int cmd_check(void)
{
	struct io_uring ring;
	struct utsname u;
	int ret;

	uname(&u);
	printf("kernel:        %s %s\n", u.release, u.machine);
	check_uffd();
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret == 0) {
		io_uring_queue_exit(&ring);
		printf("io_uring:      available\n");
	} else {
		printf("io_uring:      not available: %s\n", strerror(-ret));
	}
	printf("CPUs:          %ld online\n", sysconf(_SC_NPROCESSORS_ONLN));
	printf("NUMA nodes:    %d\n",
	       numa_available() < 0 ? 1 : numa_num_configured_nodes());
	return 0;
}

enum { OPT_FORMAT = 300, OPT_LABEL, OPT_TEST, OPT_ALPHA, OPT_FAIL, OPT_METRIC,
       OPT_SIGNIFICANCE, OPT_ALLOW_MISMATCH };

/*
 * Before the table: is every file a measurement, and were the runs made
 * alike? With the gate, the first "no" is one line and exit 2 (a gate
 * must never pass on garbage); without it, a warning per file, and the
 * table shows invalid cells as "invalid".
 */
static int compare_check(const struct cmp_file *files, int n, bool gate,
			 bool allow_mismatch)
{
	char why[512];

	for (int i = 0; i < n; i++) {
		const char *path = files[i].shown, *base = files[0].shown;

		if (cmp_validate(&files[i], i ? &files[0] : NULL, why, sizeof(why))) {
			fprintf(stderr, gate ? "%s: %s: not a valid measurement for "
				"the regression gate: %s\n" : "%s: warning: %s: %s\n",
				prog, path, why);
			if (gate)
				return EXIT_USAGE;
		}
		if (i && cmp_mismatch(&files[0], &files[i], why, sizeof(why))) {
			bool refuse = gate && !allow_mismatch;

			fprintf(stderr, "%s: %s%s was run differently from %s: %s%s\n",
				prog, refuse ? "" : "warning: ", path, base, why,
				refuse ? " (the gate compares only like runs; "
				"--allow-mismatch to gate anyway)" : "");
			if (refuse)
				return EXIT_USAGE;
		}
	}
	return 0;
}

static int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "test", required_argument, NULL, OPT_TEST },
		{ "significance", required_argument, NULL, OPT_SIGNIFICANCE },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "fail-on-regression", optional_argument, NULL, OPT_FAIL },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "allow-mismatch", no_argument, NULL, OPT_ALLOW_MISMATCH },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct cmp_opts o = { .format = CMP_TEXT, .test = CMP_WELCH };
	const char *labels[64];
	struct cmp_file *files;
	int nlabels = 0, opt, n, ret = 0;
	bool fail = false, allow_mismatch = false;
	double pct = 0;
	char err[256], *end;

	optind = 0;      /* 0: glibc re-initialises getopt fully */
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_FORMAT: {           /* in enum cmp_format order */
			int i = pick("format", optarg, NAMES("text", "markdown",
				     "csv", "json", "gnuplot"));

			if (i < 0)
				return EXIT_USAGE;
			o.format = (enum cmp_format)i;
			break;
		}
		case OPT_LABEL:
			if (nlabels == 64)
				return bad("too many labels at '%s'", optarg);
			labels[nlabels++] = optarg;
			break;
		case OPT_TEST: {             /* in enum cmp_test order */
			int i = pick("test", optarg, NAMES("welch", "mannwhitney"));

			if (i < 0)
				return EXIT_USAGE;
			o.test = (enum cmp_test)i;
			break;
		}
		case OPT_SIGNIFICANCE: {     /* in enum cmp_test order */
			int i = pick("significance rule", optarg, NAMES("welch",
				     "mannwhitney", "mmtests-ttest", "mmtests-ci"));

			if (i < 0)
				return EXIT_USAGE;
			o.test = (enum cmp_test)i;
			break;
		}
		case OPT_ALPHA:
			o.alpha = strtod(optarg, &end);
			if (*end || !(o.alpha > 0 && o.alpha < 1))
				return bad("bad alpha '%s': want a number between 0 and 1",
					   optarg);
			break;
		case OPT_FAIL:
			fail = true;
			if (optarg) {
				pct = strtod(optarg, &end);
				if (*end || !(pct >= 0 && pct < 1000))
					return bad("bad regression threshold '%s': want a "
						   "percentage such as 5", optarg);
			}
			break;
		case OPT_METRIC:
			o.metric = optarg;
			break;
		case OPT_ALLOW_MISMATCH:
			allow_mismatch = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return bad_option(argv, opt, opts);
		}
	}
	n = argc - optind;
	if (n < 1)
		return bad("%s", "compare needs at least one result file");
	if (n > 32)
		return bad("too many files (%s): at most 32", argv[optind + 32]);
	if (nlabels && nlabels != n) {
		fprintf(stderr, "%s: %d labels for %d files: give one --label per "
			"file\n", prog, nlabels, n);
		return EXIT_USAGE;
	}
	files = calloc((size_t)n, sizeof(*files));
	if (!files)
		return 1;
	for (int i = 0; i < n && !ret; i++) {
		const char *path = argv[optind + i];

		char shown[256];

		printable(shown, sizeof(shown), path);
		if (cmp_load(path, &files[i], err, sizeof(err))) {
			fprintf(stderr, "%s: %s: %s\n", prog, shown, err);
			ret = EXIT_USAGE;
		} else if (i && strcmp(files[i].workload, files[0].workload)) {
			fprintf(stderr, "%s: %s: workload '%s' does not match '%s' "
				"of %s\n", prog, shown,
				files[i].workload_shown, files[0].workload_shown,
				files[0].shown);
			ret = EXIT_USAGE;
		} else if (nlabels) {
			printable(files[i].label, sizeof(files[i].label), labels[i]);
		}
	}
	if (!ret)
		ret = compare_check(files, n, fail, allow_mismatch);
	if (!ret && o.metric) {
		bool found = false;

		for (int m = 0; m < files[0].nmetrics; m++)
			found |= !strcmp(files[0].metrics[m].name, o.metric);
		if (!found) {
			char m[64];

			fprintf(stderr, "%s: %s has no metric '%s'\n", prog,
				files[0].shown, printable(m, sizeof(m), o.metric));
			ret = EXIT_USAGE;
		}
	}
	if (!ret) {
		cmp_print(stdout, files, n, &o);
		if (fail && cmp_regressions(stderr, files, n, &o, pct))
			ret = 1;
	}
	for (int i = 0; i < n; i++)
		cmp_file_free(&files[i]);
	free(files);
	return ret;
}

static int cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vmas", required_argument, NULL, 'n' },
		{ "lookups", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	size_t sizes[16] = { 1000, 65530, 1000000 };
	int nsizes = 3, opt, ret;
	long lookups = 2000000;

	if (argc < 2 || strcmp(argv[1], "tree"))
		return bad("unknown benchmark '%s' (want: vmsim bench tree)",
			   argc < 2 ? "" : argv[1]);
	argc--;          /* from here argv[0] is "tree" */
	argv++;
	optind = 0;      /* 0: glibc re-initialises getopt fully */
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		char *save = NULL, *tok, buf[256];

		switch (opt) {
		case 'n':
			if (parse_list_check(optarg))
				return bad("bad VMA count list '%s': want numbers "
					   "separated by commas, none empty, such as "
					   "1000,65530", optarg);
			snprintf(buf, sizeof(buf), "%s", optarg);
			nsizes = 0;
			for (tok = strtok_r(buf, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				long v;

				if (nsizes == 16 || parse_long(tok, 1, 10000000, &v))
					return bad("bad VMA count list '%s': want numbers "
						   "from 1 to 10000000 such as 1000,65530",
						   optarg);
				for (int i = 0; i < nsizes; i++)
					if (sizes[i] == (size_t)v)
						return bad("VMA count %s given twice", tok);
				sizes[nsizes++] = (size_t)v;
			}
			break;
		case 'k':
			if (parse_long(optarg, 1000, 1000000000, &lookups))
				return bad("bad lookup count '%s': want 1000 or more", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return bad_option(argv, opt, opts);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (vmsim_cli_dry_run)
		return 0;
	ret = sim_bench_tree(stdout, sizes, nsizes, lookups);
	if (ret) {
		fprintf(stderr, "%s: bench tree: %s\n", prog, strerror(-ret));
		return 1;
	}
	return 0;
}

bool vmsim_cli_dry_run;

int vmsim_cli(int argc, char **argv)
{
	const char *cmd;

	opterr = 0;      /* getopt's complaints are ours: bad_option() */
	if (argc < 2)
		return bad("%s", "no command: want run, list, compare, check or bench");
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("vmsim %s (%s)\n", VMSIM_VERSION, VMSIM_GIT_REV);
		return 0;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if ((!strcmp(cmd, "list") || !strcmp(cmd, "check")) && argc > 2)
		return bad("unexpected argument '%s'", argv[2]);
	if (!strcmp(cmd, "list"))
		return cmd_list();
	if (!strcmp(cmd, "check"))
		return vmsim_cli_dry_run ? 0 : cmd_check();
	if (!strcmp(cmd, "bench"))
		return cmd_bench(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return cmd_compare(argc - 1, argv + 1);
	return bad("unknown command '%s'", cmd);
}
