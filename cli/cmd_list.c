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

/* --options: every command's table, what the man pages, the bash
 * completion and docs/usage.md's option tables are made from at build
 * time (scripts/gen-cli-docs.py), one line each, tab-separated:
 *   command NAME SUMMARY
 *   sub NAME SUB
 *   synopsis NAME SUB|- LINE
 *   text NAME SUB|- TEXT
 *   option NAME SUB|- --LONG -L|- ARG VALUES METAVAR|- KIND BOUNDS HELP
 *   after NAME SUB|- TEXT
 *   exits NAME TEXT
 * ARG: 0 none, 1 required, 2 optional (--name=VALUE); VALUES the names
 * it takes, space-separated, or empty; KIND flag, int, number, choice,
 * string, size, parsed or help; BOUNDS what --help says the parser holds
 * it to, or empty; a TEXT's newlines are "\n", its backslashes "\\". */
static int list_options(void)
{
	for (int i = 0; i < cli_ncommands; i++)
		cli_list_options(cli_commands[i], stdout);
	return 0;
}

/* The end of run's --help and vmsim --help: the names -l and -w take,
 * wrapped at 78 columns (cli_names_hook). */
void cmd_list_names(FILE *f)
{
	int col = 0;

	fputs("\nlock schemes (-l): ", f);
	cmd_list_schemes(f);
	fputs(" (the host itself)", f);
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

/* -l's names, the host's last; -w's. */
void cmd_list_schemes(FILE *f)
{
	for (int i = 0; i < lock_nschemes; i++)
		fprintf(f, "%s ", lock_schemes[i]->name);
	fputs(kernel_lock_ops.name, f);
}

void cmd_list_workloads(FILE *f)
{
	for (int i = 0; i < wl_nworkloads; i++)
		fprintf(f, "%s%s", i ? " " : "", wl_workloads[i]->name);
}

struct list_args {
	bool tsv, options;
};

static const struct cli_opt list_opts[] = {
	CLI_FLAG(struct list_args, tsv, 0, "tsv",
		 "one tab-separated line each, for scripts and the\n"
		 "test suites (scheme NAME excludes | workload NAME\n"
		 "PRIMARY MODES WRITES ISOLATION TEST-ARGS)"),
	CLI_FLAG(struct list_args, options, 0, "options",
		 "every command's options as its table has them,\n"
		 "from which the man pages, the bash completion and\n"
		 "docs/usage.md's option tables are made at build time"),
	CLI_HELP_OPT,
	CLI_END
};

static int cmd_list(int argc, char **argv, const struct cli_ctx *ctx);

const struct cli_command cmd_list_desc = {
	.name = "list",
	.summary = "the lock schemes, components and workloads",
	.synopsis = "list [--tsv | --options]",
	.text = "The lock schemes, the mm's components and the workloads, a line each.\n",
	.opts = list_opts,
	.exits = cli_exit_info,
	.run = cmd_list,
};

static int cmd_list(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct list_args a = { .tsv = false };
	struct utsname u;
	int first, ret = cli_parse(&cmd_list_desc, argc, argv, &a, &first);

	(void)ctx;
	if (ret)
		return ret == CLI_PARSED_HELP ? 0 : ret;
	if ((ret = cli_no_args(argc, argv, first)))
		return ret;
	if (a.tsv && a.options)
		return cli_bad("%s", "--tsv or --options, not both");
	if (a.tsv)
		return list_tsv();
	if (a.options)
		return list_options();
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
