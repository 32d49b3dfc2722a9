/* SPDX-License-Identifier: MIT */
/* What every command uses: the usage text and the one-line complaints. */
#include <limits.h>
#include <stdarg.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "base/parse.h"
#include "resfile/run_opts.h"

/* Its options follow, from resfile/run_opts.def (run_opts_help). */
static const char run_text[] =
"usage: vmsim run [options]\n"
"Runs a workload under each scheme of -l, interleaved iteration by\n"
"iteration; prints the summary and the comparison; writes the results.\n"
"\n";

static const char compare_text[] =
"usage: vmsim compare [options] RESULT...\n"
"Compares result files, or results directories (every result in them):\n"
"the base (the first, or --baseline) against each of the others.\n"
"\n"
"      --format FMT         text | markdown | csv | json | gnuplot | wis\n"
"                           (will-it-scale's MIN/MAX/MEAN/MEDIAN/STDDEV\n"
"                           summary) (default text)\n"
"      --baseline NAME      the base column: the result whose label, scheme,\n"
"                           file name or directory is NAME (default: the\n"
"                           first given)\n"
"      --label NAME         column label, once per file in order (default:\n"
"                           the scheme; with several directories, the\n"
"                           directory's name)\n"
"      --significance RULE  the *x.xx%* marker: welch (Welch's t-test, alpha\n"
"                           0.05; default) | mannwhitney | mmtests-ttest\n"
"                           (t-test on the Hmean, n1+n2-2 df, alpha 0.10:\n"
"                           mmtests 2018 to Nov 2024) | mmtests-ci\n"
"                           (|diff| > 1.96*(sd_a+sd_b): mmtests since Nov 2024)\n"
"      --test TEST          the same (welch | mannwhitney), older name\n"
"      --alpha A            significance level (default: the rule's)\n"
"      --fail-on-regression[=PCT]\n"
"                           the gate (docs/gate.md): exit 1 if the primary\n"
"                           metric of a later file is more than PCT% worse\n"
"                           (default 5) and significantly so (one-sided,\n"
"                           Holm over every row, family-wise alpha 0.05);\n"
"                           exit 2, CANNOT JUDGE, if a file is not a valid\n"
"                           measurement (incomplete, NaN/negative/missing\n"
"                           or flagged samples, fewer than 3 samples) or was\n"
"                           run with other options; the last line of the\n"
"                           output is the verdict\n"
"      --allow-mismatch     gate runs made with different options anyway\n"
"      --allow-disturbed    gate points the machine disturbed (others' load,\n"
"                           steal, the harness's ceiling) anyway, each said;\n"
"                           without it they are CANNOT JUDGE\n"
"      --metric NAME        the metric for --format gnuplot (default: first)\n";

static const char report_text[] =
"usage: vmsim report [-o FILE.html] [-f] [--baseline NAME] RESULT...\n"
"One self-contained HTML page (no script, nothing fetched) of result files\n"
"or results directories: the comparison tables with their significance\n"
"marks, a scaling graph per metric against the task count with the\n"
"linear-scaling line, latency percentiles, lock wait and hold histograms\n"
"per class and side, each run's noise, and the findings the tables\n"
"support.\n"
"\n"
"  -o, --output FILE        the page (default report.html)\n"
"  -f, --force              replace FILE if it is a vmsim report\n"
"      --baseline NAME      the base column, as for compare\n"
"      --significance RULE  as for compare (default welch)\n";

static const char record_text[] =
"usage: vmsim record [-f] [-o FILE] [--follow NAME|PID|fork:N] [--] CMD [ARGS...]\n"
"       vmsim record [-f] [-o FILE] -p PID [--duration S]\n"
"Runs CMD under perf (or attaches to PID for S seconds) and writes what\n"
"it did to its address space (mmap, munmap, mprotect, mremap, madvise,\n"
"brk, page faults) as a trace; where the kernel has the mmap_lock\n"
"tracepoints, also the host's own lock acquisitions (FILE.mmap_lock.json).\n"
"Needs root or kernel.perf_event_paranoid -1. Replay it with\n"
"'vmsim run -w replay --trace FILE'.\n"
"\n"
"  -o, --output FILE        the trace (default vmsim.trace)\n"
"  -f, --force              replace FILE if it is a trace\n"
"  -p, --pid PID            attach to a running process\n"
"      --duration S         with -p: seconds to record (default 10)\n"
"      --follow NAME|PID|fork:N\n"
"                           trace the first process that execs NAME (cc1,\n"
"                           not gcc: a trace is one address space), or\n"
"                           process PID, or the N-th process the command\n"
"                           makes (a child that forks without exec: it\n"
"                           begins with its parent's mappings), instead\n"
"                           of CMD itself; the others' events are counted\n"
"                           and named\n"
"      --convert-timeout S  end perf script if converting takes longer\n"
"                           (default 600): the trace keeps what it had\n"
"SIGINT, SIGTERM, SIGHUP stop the recording; the trace keeps what was\n"
"recorded until then.\n";

static const char trace_text[] =
"usage: vmsim trace info FILE\n"
"       vmsim trace show FILE\n"
"info: what a trace holds (its command, threads, events by kind,\n"
"addresses, span); show: its events as text, one a line.\n";

static const char bench_text[] =
"usage: vmsim bench tree [--vmas LIST] [--lookups N]\n"
"       vmsim bench fault [--mem SIZE] [--rounds N] [--wait LIST] [--folio SIZE]\n"
"       vmsim bench slab [--rounds N]\n"
"       vmsim bench lock [--rounds N]\n"
"       vmsim bench scale [RUN OPTIONS]\n"
"tree: the VMA trees' lookup and erase+insert costs at several sizes,\n"
"vmsim's and the kernel's maple tree (where built) interleaved, against\n"
"a sorted array, and the tree nodes an erase+insert used.\n"
"      --vmas LIST        the tree sizes, VMAs (default 1000,65530,1000000;\n"
"                         at most 16)\n"
"      --lookups N        lookups at each size (default 2000000)\n"
"fault: what a fault costs: one thread writes --mem (64M) once per case:\n"
"the native kernel, a bare uffd loop per wait mode (default block,busy),\n"
"vmsim's uffd and synthetic paths per scheme, in interleaved rounds\n"
"(default 3); median rates, and each vmsim case's rate divided by its\n"
"floor's (the bare loop of its wait mode; native for synthetic).\n"
"  -m, --mem SIZE         what each case writes (default 64M; 4K multiples,\n"
"                         up to 16G)\n"
"      --rounds N         interleaved rounds (default 3; 1 to 16)\n"
"      --wait LIST        the bare loop's wait modes (default block,busy):\n"
"                         block | poll | busy | uring\n"
"      --folio SIZE       the uffd cases again with folios of SIZE (4K to 2M,\n"
"                         a power of two)\n"
"slab: ns per allocation + free on the slab fast paths, one thread:\n"
"slub and sheaves, each in restartable sequences and under the CPU's\n"
"lock (--slab-fastpath), in interleaved rounds; medians.\n"
"lock: ns per uncontended acquisition + release of a page's range, one\n"
"thread, read side and write side, every scheme, in interleaved rounds;\n"
"medians, and ratios to rwsem.\n"
"      --rounds N         slab and lock: interleaved rounds (default 7; 1\n"
"                         to 64)\n"
"scale: the harness's own ceiling: pft under the none scheme at 1 and\n"
"-t's task counts, with vmsim run's fault source, mode, uffd and handler\n"
"options, -i samples each (default 5) of at least --min-sample; each\n"
"count's Hmean faults/sec and its efficiency against linear (the 1-task\n"
"rate times min(tasks, CPUs)), and one warning line under 0.8x.\n";

static const char list_text[] =
"usage: vmsim list [--tsv | --options]\n"
"The lock schemes, the mm's components and the workloads, a line each;\n"
"--tsv: one tab-separated line each, for scripts and the test suites\n"
"(scheme NAME excludes | workload NAME PRIMARY MODES WRITES ISOLATION\n"
"TEST-ARGS); --options: every command's options as its parser has them\n"
"(command | sub | option CMD SUB --LONG -L ARG VALUES), from which the\n"
"man pages and the bash completion are made at build time.\n";

static const char check_text[] =
"usage: vmsim check\n"
"What this machine offers: userfaultfd and its features, io_uring, CPUs\n"
"and NUMA nodes, the cost of a cross-CPU wake-up.\n";

/* Each command's exit statuses: only those it can return. */
static const char exit_run[] =
"\n"
"exit status: 0 done; 1 the run failed, or its result could not go where\n"
"  asked (it went elsewhere, and stderr says where); 2 bad input (one line on\n"
"  stderr says which value and why); 3 the run was aborted (a fault nobody\n"
"  answered, a task process died); 128+N stopped by signal N (SIGINT, SIGTERM,\n"
"  SIGHUP): what was measured is printed and written, complete: false. A\n"
"  repeat of the signal within a second is ignored; a later one exits within\n"
"  a second.\n";
static const char exit_record[] =
"\n"
"exit status: 0 done; 1 nothing was recorded, perf failed, the conversion\n"
"  timed out (the trace keeps what was converted), or the trace could not\n"
"  go where asked (stderr says where it went); 2 bad input (one line on\n"
"  stderr says which value and why); 128+N stopped by signal N (SIGINT,\n"
"  SIGTERM, SIGHUP): the trace keeps what was recorded until then, or\n"
"  stderr says why there was nothing.\n";
static const char exit_compare[] =
"\n"
"exit status: 0 done (with --fail-on-regression: no regression); 1 a\n"
"  regression (--fail-on-regression); 2 bad input (one line on stderr says\n"
"  which value and why), or a file the gate cannot trust.\n";
static const char exit_write[] =
"\n"
"exit status: 0 done; 1 it failed, or the output could not go where asked\n"
"  (stderr says where it went); 2 bad input (one line on stderr says which\n"
"  value and why).\n";
static const char exit_info[] =
"\n"
"exit status: 0 done; 2 bad input (one line on stderr says which).\n";
static const char exit_all[] =
"\n"
"exit status: 0 done; 1 failed, or a regression (compare\n"
"  --fail-on-regression, gate); 2 bad input, or a file the gate cannot trust;\n"
"  3 a run aborted; 128+N stopped by signal N. 'vmsim CMD --help' says which\n"
"  of these CMD returns.\n"
"\n"
"  -h, --help               this help;  -V, --version  the version\n";

static const struct {
	const char *cmd;
	const char *text, *exits;
	void (*opts)(FILE *f);           /* its option lines, after text */
} cmd_help[] = {
	{ "run", run_text, exit_run, run_opts_help },
	{ "compare", compare_text, exit_compare, NULL },
	{ "report", report_text, exit_write, NULL },
	{ "record", record_text, exit_record, NULL },
	{ "trace", trace_text, exit_write, NULL },
	{ "bench", bench_text, exit_write, NULL },
	{ "list", list_text, exit_info, NULL },
	{ "check", check_text, exit_info, NULL },
};

/* The names -l and -w take come from the simulator's tables, which
 * vmsim-compare does not link: vmsim's cli_main sets this (cmd_list.c). */
void (*cli_names_hook)(FILE *f);

static void print_names(FILE *f)
{
	if (cli_names_hook)
		cli_names_hook(f);
}

const struct cli_command *cli_commands;
int cli_ncommands;

/* vmsim --help: the commands (from the table that dispatches them), the
 * names -l and -w take, the exit statuses. */
void cli_usage(FILE *f)
{
	fputs("usage: vmsim <command> [options]   ('vmsim <command> --help': "
	      "its options)\n\ncommands:\n", f);
	for (int i = 0; i < cli_ncommands; i++) {
		const char *s = cli_commands[i].summary;

		fprintf(f, "  %-8s ", cli_commands[i].name);
		for (const char *nl; (nl = strchr(s, '\n')); s = nl + 1)
			fprintf(f, "%.*s\n           ", (int)(nl - s), s);
		fprintf(f, "%s\n", s);
	}
	print_names(f);
	fputs(exit_all, f);
}

/* vmsim CMD --help: that command's usage and options only; 0. */
int cli_help(const char *cmd)
{
	for (size_t i = 0; i < sizeof(cmd_help) / sizeof(cmd_help[0]); i++) {
		if (!strcmp(cmd_help[i].cmd, cmd)) {
			fputs(cmd_help[i].text, stdout);
			if (cmd_help[i].opts)
				cmd_help[i].opts(stdout);
			if (!strcmp(cmd, "run"))
				print_names(stdout);
			fputs(cmd_help[i].exits, stdout);
			return 0;
		}
	}
	cli_usage(stdout);
	return 0;
}
