/* SPDX-License-Identifier: MIT */
/* vmsim list: the lock schemes, the mm's components and the workloads. */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "locks/lock_ops.h"
#include "workloads/workload.h"

/* --tsv: what the test suites read (tests/smoke.sh, host_isolation.sh),
 * so that a new scheme or workload is tested from its descriptor. */
static int list_tsv(void)
{
	for (int i = 0; i < lock_nschemes; i++)
		printf("scheme\t%s\t%s\n", lock_schemes[i]->name,
		       lock_schemes[i]->excludes ? "excludes" : "no-exclusion");
	for (int i = 0; i < wl_nworkloads; i++) {
		const struct workload *w = wl_workloads[i];
		const char *primary = w->metrics[0].name;

		for (int m = 0; m < w->nmetrics; m++)
			if (w->metrics[m].primary)
				primary = w->metrics[m].name;
		printf("workload\t%s\t%s\t%s\t%s\t%s\t%s\n", w->name, primary,
		       w->options & WL_OPT_TRACE ? "threads" : "threads,processes",
		       w->concurrent_writes ? "concurrent-writes" : "-",
		       w->test_isolation ? "isolation" : "-",
		       w->test_args ? w->test_args : "");
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
	if (argc > 1 && !strcmp(argv[1], "--tsv") && argc == 2)
		return list_tsv();
	if (argc > 1 && cli_is_help(argv[1]))
		return cli_help("list");
	if (argc > 1)
		return cli_bad("unexpected argument '%s'", argv[1]);
	printf("lock schemes:\n");
	for (int i = 0; i < lock_nschemes; i++)
		printf("  %-12s %s\n", lock_schemes[i]->name, lock_schemes[i]->desc);
	printf("\ncomponents:\n"
	       "  %-15s %s\n  %-15s %s\n  %-15s %s\n  %-15s %s\n  %-15s %s\n"
	       "  %-15s %s\n  %-15s %s\n  %-15s %s\n  %-15s %s\n  %-15s %s\n"
	       "  %-15s %s\n",
	       "--frames", "none | zone | pcp: page frames behind faults: none; "
	       "a zone (buddy lists, zone lock); per-CPU lists in front",
	       "--bulk-free", "twopass | onepass: how a per-CPU list is given "
	       "back (free_pcppages_bulk)",
	       "--folio", "4K..2M: the folio an anonymous write fault places",
	       "--slab", "malloc | slub | sheaves: where VMAs and tree nodes "
	       "come from: the mm's pools; SLUB; SLUB with per-CPU sheaves",
	       "--rcu-free", "call_rcu | hurry | barrier: how rcu_free sheaves "
	       "meet RCU (lazy; at once; lazy with an rcu_barrier)",
	       "--vma-free", "typesafe | rcu: a removed VMA freed at once "
	       "(SLAB_TYPESAFE_BY_RCU) or after a grace period",
	       "--kfree-rcu", "call_rcu | batch | each: SLUB's tree nodes by one "
	       "lazy call_rcu a node, in bulk arrays, or one callback at once",
	       "--rcu-cbs", "percpu | one: RCU callbacks on each CPU's thread, "
	       "or on one",
	       "--rcu-lazy-max", "N: lazy RCU holds a CPU's lazy callbacks back "
	       "until N wait (or --rcu-lazy-flush MS pass)",
	       "--tree-alloc", "store | spare: tree nodes preallocated per store "
	       "(the maple tree's), or a reserve kept",
	       "--slab-fastpath", "rseq | lock: slab fast paths in restartable "
	       "sequences, no lock; or under the CPU's lock");
	printf("\nworkloads:\n");
	for (int i = 0; i < wl_nworkloads; i++)
		printf("  %-14s %s\n", wl_workloads[i]->name, wl_workloads[i]->desc);
	return 0;
}
