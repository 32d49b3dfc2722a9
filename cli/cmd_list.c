/* SPDX-License-Identifier: MIT */
/* vmsim list: the lock schemes, the mm's components and the workloads. */
#include <stdio.h>

#include "cli/cmd.h"
#include "locks/lock_ops.h"
#include "workloads/workload.h"

int cmd_list(void)
{
	printf("lock schemes:\n");
	for (int i = 0; i < lock_nschemes; i++)
		printf("  %-12s %s\n", lock_schemes[i]->name, lock_schemes[i]->desc);
	printf("\ncomponents:\n"
	       "  %-12s %s\n  %-12s %s\n  %-12s %s\n  %-12s %s\n  %-12s %s\n",
	       "--frames", "none | zone | pcp: page frames behind faults: none; "
	       "a zone (buddy lists, zone lock); per-CPU lists in front",
	       "--bulk-free", "twopass | onepass: how a per-CPU list is given "
	       "back (free_pcppages_bulk)",
	       "--folio", "4K..2M: the folio an anonymous write fault places",
	       "--slab", "malloc | slub | sheaves: where VMAs and tree nodes "
	       "come from: the mm's pools; SLUB; SLUB with per-CPU sheaves",
	       "--rcu-free", "call_rcu | hurry | barrier: how rcu_free sheaves "
	       "meet RCU (lazy; at once; lazy with an rcu_barrier)");
	printf("\nworkloads:\n");
	for (int i = 0; i < wl_nworkloads; i++)
		printf("  %-14s %s\n", wl_workloads[i]->name, wl_workloads[i]->desc);
	return 0;
}
