/* SPDX-License-Identifier: MIT */
/* vmsim list: the lock schemes and the workloads. */
#include <stdio.h>

#include "cli/cmd.h"
#include "locks/lock_ops.h"
#include "workloads/workload.h"

int cmd_list(void)
{
	printf("lock schemes:\n");
	for (int i = 0; i < lock_nschemes; i++)
		printf("  %-12s %s\n", lock_schemes[i]->name, lock_schemes[i]->desc);
	printf("\nworkloads:\n");
	for (int i = 0; i < nworkloads; i++)
		printf("  %-14s %s\n", workloads[i]->name, workloads[i]->desc);
	return 0;
}
