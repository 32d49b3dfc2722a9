/* SPDX-License-Identifier: MIT */
/*
 * What a run compares: its lock schemes, or, under one scheme, the
 * variants of one component (--slab slub,sheaves; --rcu-free
 * call_rcu,hurry,barrier). Either way each is a target of its own: its
 * own group, its iterations interleaved with the others', its own
 * result.
 */
#include "workloads/runner.h"

int run_ntargets(const struct run_cfg *c)
{
	if (c->nslabs > 1)
		return c->nslabs;
	if (c->nrcu_frees > 1)
		return c->nrcu_frees;
	return c->nlocks;
}

const struct lock_ops *run_target_lock(const struct run_cfg *c, int k)
{
	return c->locks[c->nlocks > 1 ? k : 0];
}

enum slab_kind run_target_slab(const struct run_cfg *c, int k)
{
	return c->nslabs > 1 ? c->slabs[k] : c->slab;
}

enum slab_rcu_free run_target_rcu_free(const struct run_cfg *c, int k)
{
	return c->nrcu_frees > 1 ? c->rcu_frees[k] : c->rcu_free;
}

const char *run_target_label(const struct run_cfg *c, int k)
{
	if (c->nslabs > 1)
		return slab_kind_name(c->slabs[k]);
	if (c->nrcu_frees > 1)
		return slab_rcu_free_name(c->rcu_frees[k]);
	return c->locks[k]->name;
}
