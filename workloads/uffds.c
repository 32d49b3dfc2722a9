/* SPDX-License-Identifier: MIT */
/*
 * How a run's uffds are laid out (--uffd, --handlers): read by the runner
 * (to size the counter slots) and by each agent (to create its mm).
 */
#include "sim/faults/sources.h"
#include "workloads/runner.h"

int runner_max_tasks(const struct run_cfg *c)
{
	int most = 1;

	for (int i = 0; i < c->ntasklist; i++)
		if (c->tasks[i] > most)
			most = c->tasks[i];
	return most;
}

int runner_uffds(const struct run_cfg *c, int ntasks)
{
	if (c->processes || c->mm.source != &uffd_fault_source ||
	    c->uffd_split == UFFD_SPLIT_SHARED)
		return 1;
	if (c->uffd_split == UFFD_SPLIT_PER_TASK || ntasks > 1)
		return ntasks;
	return 1;
}

int runner_handlers_per_uffd(const struct run_cfg *c, int ntasks)
{
	if (c->uffd.nhandlers)
		return c->uffd.nhandlers;
	return c->processes || runner_uffds(c, ntasks) > 1 ? 1 : ntasks;
}
