/* SPDX-License-Identifier: MIT */
/*
 * What a run compares: its lock schemes, or, under one scheme, the
 * variants of one component (--slab slub,sheaves; --rcu-free
 * call_rcu,hurry,barrier; --mprotect-range exact,refined,full; --tree
 * maple,vmsim). Either way each is a target of its own: its
 * own group, its iterations interleaved with the others', its own
 * result.
 */
#include <unistd.h>

#include "sim/mem/slab.h"
#include "workloads/runner.h"

static void set_member(struct run_target *t, enum run_vary what,
		       const struct run_target *v)
{
	switch (what) {
	case RUN_VARY_SCHEME: t->lock = v->lock; break;
	case RUN_VARY_SLAB: t->slab = v->slab; break;
	case RUN_VARY_RCU_FREE: t->rcu_free = v->rcu_free; break;
	case RUN_VARY_MPROTECT: t->mprotect = v->mprotect; break;
	case RUN_VARY_TREE: t->tree = v->tree; break;
	}
}

void runner_targets_set(struct run_cfg *c, enum run_vary what,
		     const struct run_target *v, int n)
{
	struct run_target base = c->targets[0];

	c->nvaried[what] = n;
	if (n == 1 && !runner_varies(c, what)) {
		for (int k = 0; k < c->ntargets; k++)
			set_member(&c->targets[k], what, v);
		return;
	}
	/* A list (or one value where a list of the same was): the targets
	 * are target 0 n times over, each with its value. */
	for (int k = 0; k < n && k < RUNNER_MAX_SCHEMES; k++) {
		c->targets[k] = base;
		set_member(&c->targets[k], what, &v[k]);
	}
	c->ntargets = n < RUNNER_MAX_SCHEMES ? n : RUNNER_MAX_SCHEMES;
	c->vary = n > 1 ? what : RUN_VARY_SCHEME;
}

bool runner_varies(const struct run_cfg *c, enum run_vary what)
{
	return c->ntargets > 1 && c->vary == what;
}

int runner_ntargets(const struct run_cfg *c)
{
	return c->ntargets;
}

const struct lock_ops *runner_target_lock(const struct run_cfg *c, int k)
{
	return c->targets[k].lock;
}

enum slab_kind runner_target_slab(const struct run_cfg *c, int k)
{
	return c->targets[k].slab;
}

enum vma_tree_kind runner_target_tree(const struct run_cfg *c, int k)
{
	return vma_tree_kind_resolve(c->targets[k].tree);
}

enum slab_rcu_free runner_target_rcu_free(const struct run_cfg *c, int k)
{
	return c->targets[k].rcu_free;
}

enum lock_mprotect_range runner_target_mprotect(const struct run_cfg *c, int k)
{
	return c->targets[k].mprotect;
}

const char *runner_vary_name(enum run_vary w)
{
	static const char *const names[RUN_VARY_N] = {
		[RUN_VARY_SCHEME] = "schemes", [RUN_VARY_SLAB] = "slabs",
		[RUN_VARY_RCU_FREE] = "rcu-free variants",
		[RUN_VARY_MPROTECT] = "mprotect ranges",
		[RUN_VARY_TREE] = "VMA trees",
	};

	return names[w];
}

const char *runner_target_label(const struct run_cfg *c, int k)
{
	switch (c->vary) {
	case RUN_VARY_SLAB: return slab_kind_name(c->targets[k].slab);
	case RUN_VARY_RCU_FREE: return slab_rcu_free_name(c->targets[k].rcu_free);
	case RUN_VARY_MPROTECT:
		return lock_mprotect_range_names[c->targets[k].mprotect];
	case RUN_VARY_TREE:
		return vma_tree_kind_name(c->targets[k].tree);
	case RUN_VARY_SCHEME: break;
	}
	return c->targets[k].lock->name;
}

bool runner_slab_fast_rseq(const struct run_cfg *c)
{
	return !c->mm.slab_fast_locked &&
	       slab_fast_rseq_usable((int)sysconf(_SC_NPROCESSORS_ONLN));
}
