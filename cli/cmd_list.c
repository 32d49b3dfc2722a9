/* SPDX-License-Identifier: MIT */
/* vmsim list: the lock schemes, the mm's components and the workloads. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli/cmd.h"
#include "resfile/run_opts.h"
#include "locks/lock_ops.h"
#include "workloads/workload.h"

/* --tsv: what the test suites read (tests/suites/smoke.sh, host_isolation.sh),
 * so that a new scheme or workload is tested from its descriptor. */
static int list_tsv(void)
{
	for (int i = 0; i < lock_nschemes; i++)
		printf("scheme\t%s\t%s\n", lock_schemes[i]->name,
		       lock_schemes[i]->excludes ? "excludes" : "no-exclusion");
	/* Not a model: the host itself (tests/suites/kernel_column.sh). */
	printf("host\t%s\n", kernel_lock_ops.name);
	for (int i = 0; i < wl_nworkloads; i++) {
		const struct workload *w = wl_workloads[i];
		const char *primary = w->metrics[0].name;

		for (int m = 0; m < w->nmetrics; m++)
			if (w->metrics[m].primary)
				primary = w->metrics[m].name;
		printf("workload\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", w->name,
		       primary,
		       w->options & WL_OPT_TRACE ? "threads" : "threads,processes",
		       w->concurrent_writes ? "concurrent-writes" : "-",
		       w->test_isolation ? "isolation" : "-",
		       w->test_args ? w->test_args : "",
		       w->no_host ? "no-host" : "host");
	}
	return 0;
}

/* --options: every command's getopt tables, what the man pages and the
 * bash completion are generated from at build time
 * (scripts/gen-cli-docs.py), one line each:
 *   command NAME SUMMARY
 *   sub NAME SUB
 *   option NAME SUB|- --LONG -L|- ARG(0 none, 1 required, 2 optional) VALUES
 * tab-separated; VALUES space-separated, or empty. */
static void list_optset(const char *cmd, const struct cli_optset *set)
{
	const char *sub = set->sub ? set->sub : "-";

	if (set->sub)
		printf("sub\t%s\t%s\n", cmd, set->sub);
	for (const struct option *o = set->longopts; o->name; o++) {
		int c = set->short_of ? set->short_of(o) :
			o->val > 0 && o->val < 128 && o->val != ':' &&
			o->val != '+' && strchr(set->shortopts, o->val) ?
			o->val : 0;

		printf("option\t%s\t%s\t--%s\t", cmd, sub, o->name);
		if (c)
			printf("-%c", c);
		else
			putchar('-');
		printf("\t%d\t", o->has_arg);
		if (set->values)
			set->values(o, stdout);
		putchar('\n');
	}
}

static int list_options(void)
{
	for (int i = 0; i < cli_ncommands; i++) {
		const struct cli_command *c = &cli_commands[i];

		printf("command\t%s\t", c->name);
		for (const char *p = c->summary; *p; p++)
			putchar(*p == '\n' ? ' ' : *p);
		putchar('\n');
		for (const struct cli_optset *s = c->optsets ? c->optsets() : NULL;
		     s && s->longopts; s++)
			list_optset(c->name, s);
	}
	return 0;
}

/* The end of run's --help and vmsim --help: the names -l and -w take,
 * wrapped at 78 columns (cli_names_hook). */
void cmd_list_names(FILE *f)
{
	int col = 0;

	fputs("\nlock schemes (-l):", f);
	for (int i = 0; i < lock_nschemes; i++)
		fprintf(f, " %s", lock_schemes[i]->name);
	fprintf(f, " %s (the host itself)", kernel_lock_ops.name);
	fputs("\nworkloads (-w):", f);
	col = 17;
	for (int i = 0; i < wl_nworkloads; i++) {
		int w = (int)strlen(wl_workloads[i]->name) + 1;

		if (col + w > 78) {
			fputs("\n ", f);
			col = 1;
		}
		fprintf(f, " %s", wl_workloads[i]->name);
		col += w;
	}
	fputs("\n('vmsim list': what each is)\n", f);
}

int cmd_list(int argc, char **argv)
{
	struct utsname u;

	if (argc > 1 && !strcmp(argv[1], "--tsv") && argc == 2)
		return list_tsv();
	if (argc > 1 && !strcmp(argv[1], "--options") && argc == 2)
		return list_options();
	if (argc > 1 && cli_is_help(argv[1]))
		return cli_help("list");
	if (argc > 1)
		return cli_bad("unexpected argument '%s'", argv[1]);
	printf("lock schemes:\n");
	for (int i = 0; i < lock_nschemes; i++)
		printf("  %-12s %s\n", lock_schemes[i]->name, lock_schemes[i]->desc);
	uname(&u);
	printf("  %-12s %s; here Linux %s\n", kernel_lock_ops.name,
	       kernel_lock_ops.desc, u.release);
	printf("\ncomponents:\n");
	for (int i = 0; i < RUN_NOPTS; i++)
		if (run_optlist[i].list)
			printf("  --%-13s %s\n", run_optlist[i].name,
			       run_optlist[i].list);
	printf("\nworkloads:\n");
	for (int i = 0; i < wl_nworkloads; i++)
		printf("  %-14s %s\n", wl_workloads[i]->name, wl_workloads[i]->desc);
	return 0;
}
