/* SPDX-License-Identifier: MIT */
/*
 * What a run checks before it starts (userfaultfd, memory, address-space
 * limits) and how it is stopped (interrupts).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "base/parse.h"
#include "cli/run.h"
#include "resfile/busy.h"
#include "sim/faults/sources.h"
#include "base/stats.h"
#include "uffd/uffd.h"
#include "base/clock.h"

/*
 * Interrupts. The first SIGINT, SIGTERM or SIGHUP (a terminal or an
 * ssh session closed) stops the run: the iteration
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

void run_install_interrupts(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	/* A closed stdout (vmsim run ... | head) must not lose the run: what
	 * it would have printed fails with EPIPE, the result is written all
	 * the same. (A run executes no program that would inherit this.) */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}


int run_first_signal(void)
{
	return first_signal;
}

/*
 * Before a uffd run: can we have a userfaultfd with what the uffd source
 * needs (thread ids, write-protect faults on anonymous memory)? One line
 * saying exactly why not and what to do, at once.
 */
int run_uffd_preflight(void)
{
	struct uffd_probe u;

	uffd_probe(&u);
	if (u.open_err) {
		fprintf(stderr, "%s: userfaultfd is not available: userfaultfd(2): "
			"%s (vm.unprivileged_userfaultfd = %d), /dev/userfaultfd: %s; "
			"remedies: 'sysctl vm.unprivileged_userfaultfd=1', read-write "
			"access to /dev/userfaultfd, or --fault-source synthetic\n",
			prog, strerror(-u.open_err), u.sysctl,
			u.dev_err ? strerror(u.dev_err) : "refused");
		return 1;
	}
	if (u.api_err || (u.info.features & SIM_UFFD_FEATURES) != SIM_UFFD_FEATURES) {
		fprintf(stderr, "%s: this kernel's userfaultfd lacks thread ids or "
			"write-protect faults on anonymous memory (Linux 5.7+), which "
			"the uffd fault source needs; use --fault-source synthetic\n",
			prog);
		return 1;
	}
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

/* A uffd a task registers the arena in 2 MiB stripes, a mapping each, in
 * every target's mm, all counted against the host's vm.max_map_count:
 * a large trace's arena (a browser's: 53 GiB) needs more than the host
 * allows. Refused before anything runs, with what would fit. */
static int check_map_count(const struct run_cfg *c, int most)
{
	unsigned long long limit = 0, stripes, need;
	int ntgt = 0, fit;
	FILE *f;

	/* The kernel column registers nothing: its faults are the host's. */
	for (int k = 0; k < runner_ntargets(c); k++)
		ntgt += !runner_target_lock(c, k)->host;
	if (!ntgt || runner_uffds(c, most) <= 1 ||
	    !(f = fopen("/proc/sys/vm/max_map_count", "r")))
		return 0;
	if (fscanf(f, "%llu", &limit) != 1)
		limit = 0;
	fclose(f);
	stripes = (c->mm.arena_size + (2UL << 20) - 1) / (2UL << 20);
	/* What else a run maps (libraries, stacks, pools): a margin. */
	need = stripes * (unsigned long long)ntgt + 4096;
	if (!limit || need <= limit)
		return 0;
	fit = (int)((limit > 4096 ? limit - 4096 : 0) / (stripes ? stripes : 1));
	/* Where not even one target fits, fewer targets is no way out. */
	char fewer[64] = "";

	if (fit >= 1)
		snprintf(fewer, sizeof(fewer), ", at most %d target%s", fit,
			 PLURAL(fit));
	fprintf(stderr, "%s: the arena (%llu MiB) in 2 MiB stripes, a uffd a task, "
		"needs %llu mappings for %d target%s, over vm.max_map_count %llu: "
		"give --uffd shared (one registration)%s, or "
		"raise it (sysctl vm.max_map_count=%llu)\n", prog,
		(unsigned long long)(c->mm.arena_size >> 20), need, ntgt,
		PLURAL(ntgt), limit, fewer, need);
	return -1;
}

static int check_address_space(const struct run_cfg *c, int most)
{
	struct rlimit rl;
	pthread_attr_t attr;
	size_t stack = 8UL << 20, per_mm, need, base, fit;
	int nmm = c->processes ? 1 : runner_ntargets(c);
	int tasks = c->processes ? 1 : most + (c->wo.writers > 0 ? c->wo.writers : 0) +
		    (c->wo.readers > 0 ? c->wo.readers : 0);
	int handlers = c->mm.source != &uffd_fault_source ? 0 :
		       c->uffd.nhandlers ? c->uffd.nhandlers : tasks;
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
	return EXIT_USAGE;
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
			return EXIT_USAGE;
		}
		return 0;
	}
	if (c->wo.mem < want && share > 1) {
		fprintf(stderr, "%s: --mem %zuK is too small for %s with %d tasks "
			"sharing it: want at least %zuK (%zuK per task)\n", prog,
			c->wo.mem >> 10, c->wl->name, share, want >> 10,
			c->wl->min_mem >> 10);
		return EXIT_USAGE;
	}
	if (c->wo.mem < want) {
		fprintf(stderr, "%s: --mem %zuK is too small for %s: want at least "
			"%zuK%s\n", prog, c->wo.mem >> 10, c->wl->name, want >> 10,
			c->processes || c->wl->loop ? " per task" : "");
		return EXIT_USAGE;
	}
	return 0;
}

/* A uffd of each task's takes UFFD_SOURCE_MAX_HANDLERS handlers: said
 * before the first task count runs, not when the one that needs several
 * uffds comes (sim_mm_create's EINVAL). */
static int check_handlers(const struct run_cfg *c)
{
	for (int i = 0; i < c->ntasklist; i++) {
		int t = c->tasks[i];

		if (runner_uffds(c, t) < 2 ||
		    runner_handlers_per_uffd(c, t) <= UFFD_SOURCE_MAX_HANDLERS)
			continue;
		fprintf(stderr, "%s: --handlers %d: with %d tasks each task has "
			"a uffd of its own, which takes at most %d handlers: give "
			"%d or fewer, or --uffd shared\n", prog, c->uffd.nhandlers,
			t, UFFD_SOURCE_MAX_HANDLERS, UFFD_SOURCE_MAX_HANDLERS);
		return EXIT_USAGE;
	}
	return 0;
}

int run_check_limits(const struct run_cfg *c, int max_tasks,
			bool mem_given)
{
	int most = runner_max_tasks(c);
	size_t need, avail = mem_available();

	if (most > max_tasks) {
		fprintf(stderr, "%s: %d tasks is more than --max-tasks (%d)\n",
			prog, most, max_tasks);
		return EXIT_USAGE;
	}
	if (check_handlers(c))
		return EXIT_USAGE;
	for (int i = 0; i < c->ntargets; i++)
		if (!c->targets[i].lock->excludes && c->wl->concurrent_writes &&
		    !c->processes && (most > 1 || c->wo.writers > 0)) {
			fprintf(stderr, "%s: lock scheme '%s' has no exclusion, and "
				"%s changes the address space from several tasks at "
				"once: use one task, --mode processes, or another "
				"scheme\n", prog, c->targets[i].lock->name,
				c->wl->name);
			return EXIT_USAGE;
		}
	/* Loop workloads map --mem per task; threads share one arena. */
	need = c->wl->loop ? c->wo.mem * (size_t)most : c->wo.mem;
	if ((c->processes ? c->wo.mem : need) > c->mm.arena_size) {
		fprintf(stderr, "%s: --mem %zu MiB%s does not fit the arena "
			"(%zu MiB): raise --arena\n", prog, c->wo.mem >> 20,
			c->wl->loop && !c->processes ? " per task" : "",
			c->mm.arena_size >> 20);
		return EXIT_USAGE;
	}
	if (avail && c->wl->touches_mem && need > avail) {
		fprintf(stderr, "%s: --mem %zu MiB%s would touch %zu MiB, more "
			"than the %zu MiB of memory available\n", prog,
			c->wo.mem >> 20, c->wl->loop ? " per task" : "",
			need >> 20, avail >> 20);
		return EXIT_USAGE;
	}
	if (check_mem(c, most, mem_given))
		return EXIT_USAGE;
	if (check_map_count(c, most))
		return EXIT_USAGE;
	return check_address_space(c, most);
}


/* --- was the machine quiet? ------------------------------------------------ */

/* CPU-seconds the whole machine was busy (all CPUs, /proc/stat), and this
 * process's own (with its reaped children): their difference is what
 * others took during a run. */
void run_host_busy_now(struct host_busy *b)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");
	struct rusage self, kids;

	b->ok = f && fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
			    &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			    &v[7]) == 8 && hz > 0;
	if (f)
		fclose(f);
	/* user nice system idle iowait irq softirq steal: busy is all but
	 * idle and iowait (steal: the hypervisor gave the CPU away). */
	b->busy = b->ok ? (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) /
			  (double)hz : 0;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	b->own = (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec +
			  kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) +
		 (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec +
			  kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
	b->wall = (double)mono_ns() / 1e9;
}

/* A completion workload's sample shorter than 10 ms (--min-sample 0, or
 * --passes too few) measures the start gate and the clock as much as
 * the workload: said, never shown as a clean number. */
static void run_warn_short(const struct res_file *r, const struct res_point *p)
{
	double shortest = INFINITY;

	if (p->passes <= 0)
		return;
	for (int j = 0; j < p->nsamples; j++)
		if (p->wall[j] * p->passes < shortest)
			shortest = p->wall[j] * p->passes;
	if (p->nsamples && shortest < 0.010)
		printf("warning: %s tasks %d: a sample lasted only %.3f ms: too "
		       "short to time well (--min-sample, --passes)\n",
		       r->label ? r->label : r->scheme, p->tasks, shortest * 1e3);
}

/* What lowers the spread of this run: more iterations always; busy
 * waiting where the tasks sleep in the host's uffd; a quieter machine. */
static const char *spread_advice(const struct run_cfg *c)
{
	return c->mm.source == &uffd_fault_source && c->uffd.wait != UFFD_WAIT_BUSY ?
	       "more iterations, --wait busy or a quieter machine" :
	       "more iterations or a quieter machine";
}

void run_warn_oversubscribed(const struct run_cfg *c)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int most = 0;
	bool busy_handlers = c->mm.source == &uffd_fault_source &&
			     c->uffd.wait == UFFD_WAIT_BUSY;

	for (int i = 0; i < c->ntasklist; i++)
		if (c->tasks[i] > most)
			most = c->tasks[i];
	{
		int writers = c->wl->background ? c->wo.writers : 0;
		int readers = c->wl->options & WL_OPT_MAPS ? c->wo.readers : 0;
		int handlers = !busy_handlers ? 0 : c->uffd.nhandlers ?
			       c->uffd.nhandlers : most;
		int busy = most + writers + readers + handlers;

		if (cpus <= 0 || busy <= cpus)
			return;
		char w[64] = "", h[32] = "";

		if (writers)
			snprintf(w, sizeof(w), " + %d writer%s", writers,
				 PLURAL(writers));
		if (readers)
			snprintf(w + strlen(w), sizeof(w) - strlen(w),
				 " + %d reader%s", readers, PLURAL(readers));
		if (handlers)
			snprintf(h, sizeof(h), " + %d busy handler%s", handlers,
				 PLURAL(handlers));
		printf("warning: %d task%s%s%s: %d threads that do not block, "
		       "on %ld online CPU%s: they take turns, so what a scheme "
		       "does past %ld is not measured here%s\n", most,
		       PLURAL(most), w, h, busy, cpus,
		       PLURAL(cpus), cpus, c->wo.replay ?
		       " (a replay runs a task for each recorded thread)" : "");
	}
}

bool run_warn_busy_before(const struct run_cfg *c, const struct host_busy *a)
{
	struct host_busy b;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double others, left;
	int most = runner_max_tasks(c);
	int busy = most + (c->wl->background ? c->wo.writers : 0) +
		   (c->wl->options & WL_OPT_MAPS ? c->wo.readers : 0);

	run_host_busy_now(&b);
	left = RUN_BUSY_LOOK_S - (b.wall - a->wall);
	if (left > 0) {
		struct timespec ts = { 0, (long)(left * 1e9) };

		/* A signal ends the look early: then nothing is said. */
		if (nanosleep(&ts, NULL))
			return false;
		run_host_busy_now(&b);
	}
	if (!a->ok || !b.ok || b.wall <= a->wall || cpus <= 0)
		return false;
	others = ((b.busy - a->busy) - (b.own - a->own)) / (b.wall - a->wall);
	/* The rule of the verdicts (resfile/busy.h), with the run's most
	 * tasks and its writers and readers as what vmsim will keep busy. */
	if (others <= RES_BUSY_OTHERS ||
	    others + busy <= (double)cpus - RES_BUSY_OTHERS)
		return false;
	printf("warning: the machine is busy: other processes kept "
		"%.2f CPUs of %ld busy over the last %.1f s; vmsim's %d thread%s "
		"will take turns with them, and verdicts on what is measured so "
		"will read \"disturbed, not a finding\"\n", others, cpus,
		b.wall - a->wall, busy, PLURAL(busy));
	return true;
}

void run_warn_noise(const struct res_file *r, int n, const struct host_busy *t0,
		    const struct run_cfg *c)
{
	struct host_busy t1;
	double others;

	for (int i = 0; i < n; i++)
		for (int k = 0; k < r[i].npoints; k++) {
			const struct res_point *p = &r[i].points[k];

			for (int m = 0; m < r[i].nmetrics; m++) {
				double cv;

				if (!r[i].metrics[m].primary || p->nsamples < 2)
					continue;
				cv = r[i].metrics[m].higher_better ?
				     stats_hcoeffvar(p->samples[m], (size_t)p->nsamples) :
				     stats_coeffvar(p->samples[m], (size_t)p->nsamples);
				if (cv > 10)
					printf("warning: %s %s-%d: CoeffVar %.1f%% (over "
					       "10%%): %s\n", r[i].label ? r[i].label : r[i].scheme,
					       r[i].metrics[m].name, p->tasks, cv,
					       spread_advice(c));
			}
			run_warn_short(&r[i], p);
		}
	run_host_busy_now(&t1);
	others = (t1.busy - t0->busy) - (t1.own - t0->own);
	if (t0->ok && t1.ok && t1.wall > t0->wall &&
	    others / (t1.wall - t0->wall) > 0.25)
		printf("warning: other processes kept %.1f CPUs busy on average "
		       "during the run: its figures may be disturbed\n",
		       others / (t1.wall - t0->wall));
}

/* 128 + the signal for an interrupt, 3 for an aborted run (a fault
 * nobody answered, a task process that died), 2 usage, 1 failure. */
int run_status(int ret)
{
	if (ret == -EINTR)
		return 128 + (run_first_signal() ? run_first_signal() :
			      runner_interrupted());
	if (ret == -ETIMEDOUT || ret == -ECHILD || ret == -ENOSPC)
		return 3;
	if (ret == EXIT_USAGE)
		return EXIT_USAGE;
	return ret ? 1 : 0;
}
