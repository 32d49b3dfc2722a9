/* SPDX-License-Identifier: MIT */
/* vmsim run's simulated-memory options: folios, fault-around, the
 * page frames behind faults (--frames, --phys, --bulk-free), the slab
 * caches VMAs and tree nodes come from (--slab, --rcu-free) — and what
 * a range scheme locks for the mm's mprotect (--mprotect-range): the
 * components a run may compare under one scheme, each a variant. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/run.h"
#include "base/parse.h"

_Static_assert(RCU_LAZY_MAX == 10000, "run_opts.def's bound of --rcu-lazy-max");

#define PHYS_MAX (64UL << 30)

/* --folio, --fault-around: a power of two from a page to a PMD (2M). */
static int fault_size(const char *arg, bool folio, size_t *out)
{
	if (parse_size(arg, out) || *out < SIM_PAGE_SIZE || *out > (2UL << 20) ||
	    (*out & (*out - 1)))
		return cli_bad(folio ? "bad size '%s' for --folio: want a power of "
				   "two from 4K to 2M"
				 : "bad size '%s' for --fault-around: want a "
				   "power of two from 4K to 2M", arg);
	return 0;
}

static const char *const vma_tree_kind_choices[] = { "maple", "vmsim" };

static int variants(enum run_opt_id which, const char *arg,
		    const char *const *names, int nnames, int *out, int *n);

/* --tree: one tree, or several to compare. */
static int tree_opt(struct run_cfg *c, const char *arg)
{
	struct run_target v[RUNNER_MAX_SCHEMES];
	int n, vals[RUNNER_MAX_SCHEMES];

	if (variants(RUN_O_TREE, arg, vma_tree_kind_choices, 2, vals, &n))
		return EXIT_USAGE;
	for (int i = 0; i < n; i++) {
		v[i].tree = (enum vma_tree_kind)(vals[i] + VMA_TREE_MAPLE);
		if (v[i].tree == VMA_TREE_MAPLE && !vma_tree_maple_built())
			return cli_bad("--tree %s: this vmsim was built without a "
				       "kernel source (install linux-source-6.12 "
				       "and build again, or -DVMSIM_KERNEL_SRC=DIR)",
				       "maple");
	}
	runner_targets_set(c, RUN_VARY_TREE, v, n);
	return 0;
}

/* A component's value, or several to compare (names separated by
 * commas, each once): out[0..*n-1]. */
static int variants(enum run_opt_id which, const char *arg,
		    const char *const *names, int nnames, int *out, int *n)
{
	char buf[128], twice[64], *save = NULL, *tok;

	if (parse_list_check(arg) || strlen(arg) >= sizeof(buf))
		return cli_bad("bad list '%s': want names separated by commas, "
			   "none empty", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k = run_opt_pick(which, tok, names, nnames);

		if (k < 0)
			return EXIT_USAGE;
		snprintf(twice, sizeof(twice), "%s '%%s' given twice",
			 run_optlist[which].what);
		for (int i = 0; i < *n; i++)
			if (out[i] == k)
				return cli_bad(twice, tok);
		out[(*n)++] = k;
	}
	return 0;
}

/* run_mem_opt's RCU, tree-node and fast-path options. */
static int slab_tuning_opt(struct run_cfg *c, enum run_opt_id which,
			   const char *arg)
{
	long v;
	int k;

	switch (which) {
	case RUN_O_RCU_CBS:
		if ((k = run_opt_pick(which, arg, sim_rcu_cbs_names,
				      SIM_RCU_CBS_N)) < 0)
			return EXIT_USAGE;
		c->mm.rcu_cbs = (enum sim_rcu_cbs)k;
		return 0;
	case RUN_O_RCU_LAZY_MAX:
		if (parse_long(arg, run_optlist[which].lo, run_optlist[which].hi, &v))
			return cli_bad("bad --rcu-lazy-max '%s': want 1 to 10000 "
				   "sheaves", arg);
		c->mm.rcu_lazy_max = (uint32_t)v;
		c->rcu_lazy_given = true;
		return 0;
	case RUN_O_RCU_LAZY_FLUSH:
		if (parse_long(arg, run_optlist[which].lo, run_optlist[which].hi, &v))
			return cli_bad("bad --rcu-lazy-flush '%s': want 1 to 3600000 "
				   "ms", arg);
		c->mm.rcu_lazy_flush_ms = (uint64_t)v;
		c->rcu_lazy_given = true;
		return 0;
	case RUN_O_TREE_ALLOC:
		if ((k = run_opt_pick(which, arg, NULL, 0)) < 0)
			return EXIT_USAGE;
		c->mm.tree_spares = k == 1;
		return 0;
	case RUN_O_SLAB_FASTPATH:
		if ((k = run_opt_pick(which, arg, NULL, 0)) < 0)
			return EXIT_USAGE;
		c->mm.slab_fast_locked = k == 1;
		c->slab_fastpath_given = true;
		return 0;
	default:
		break;
	}
	return EXIT_USAGE;
}

int run_mem_opt(struct run_cfg *c, enum run_opt_id which, const char *arg)
{
	struct run_target v[RUNNER_MAX_SCHEMES];
	int k, n, vals[RUNNER_MAX_SCHEMES];

	switch (which) {
	case RUN_O_FOLIO:
		return fault_size(arg, true, &c->mm.folio_size);
	case RUN_O_FAULT_AROUND:
		return fault_size(arg, false, &c->mm.fault_around);
	case RUN_O_FRAMES:
		if ((k = run_opt_pick(which, arg, frames_mode_names,
				      FRAMES_NMODES)) < 0)
			return EXIT_USAGE;
		c->frames = (enum frames_mode)k;
		return 0;
	case RUN_O_PHYS:
		if (parse_size(arg, &c->phys) || c->phys % (2UL << 20) ||
		    !c->phys || c->phys > PHYS_MAX)
			return cli_bad("bad size '%s' for --phys: want a multiple of "
				   "2M up to 64G", arg);
		return 0;
	case RUN_O_BULK_FREE:
		if ((k = run_opt_pick(which, arg, frames_bulk_names,
				      FRAMES_NBULK)) < 0)
			return EXIT_USAGE;
		c->bulk_free = (enum frames_bulk)k;
		c->bulk_given = true;
		return 0;
	case RUN_O_SLAB:
		if (variants(which, arg, slab_kind_names, SLAB_NKINDS, vals, &n))
			return EXIT_USAGE;
		for (int i = 0; i < n; i++)
			v[i].slab = (enum slab_kind)vals[i];
		runner_targets_set(c, RUN_VARY_SLAB, v, n);
		return 0;
	case RUN_O_RCU_FREE:
		if (variants(which, arg, slab_rcu_free_names, RCU_FREE_NVARIANTS,
			     vals, &n))
			return EXIT_USAGE;
		for (int i = 0; i < n; i++)
			v[i].rcu_free = (enum slab_rcu_free)vals[i];
		runner_targets_set(c, RUN_VARY_RCU_FREE, v, n);
		c->rcu_free_given = true;
		return 0;
	case RUN_O_MPROTECT_RANGE:
		if (variants(which, arg, lock_mprotect_range_names,
			     LOCK_MPROTECT_N, vals, &n))
			return EXIT_USAGE;
		for (int i = 0; i < n; i++)
			v[i].mprotect = (enum lock_mprotect_range)vals[i];
		runner_targets_set(c, RUN_VARY_MPROTECT, v, n);
		c->mprotect_given = true;
		return 0;
	case RUN_O_TREE:
		return tree_opt(c, arg);
	case RUN_O_VMA_FREE:       /* "scheme" is not given: the absence */
		if ((k = run_opt_pick(which, arg, sim_vma_free_names + 1,
				      SIM_VMA_FREE_N - 1)) < 0)
			return EXIT_USAGE;
		c->mm.vma_free = (enum sim_vma_free)(k + 1);
		return 0;
	case RUN_O_KFREE_RCU:
		if ((k = run_opt_pick(which, arg, sim_kfree_rcu_names,
				      SIM_KFREE_RCU_N)) < 0)
			return EXIT_USAGE;
		c->mm.kfree_rcu = (enum sim_kfree_rcu)k;
		c->kfree_rcu_given = true;
		return 0;
	default:
		return slab_tuning_opt(c, which, arg);
	}
	return EXIT_USAGE;
}

size_t run_mem_need(const struct run_cfg *c)
{
	size_t most = (size_t)runner_max_tasks(c);

	if (!c->wl->min_mem)
		return 16UL << 20;
	return c->wo.mem * (c->processes || c->wl->loop || c->wl->needs_frames ?
			    most : 1);
}


/* One list at a time: several values of one of --slab, --rcu-free and
 * --mprotect-range, under one scheme. */
static int vary_settle(const struct run_cfg *c)
{
	const int *n = c->nvaried;
	enum run_vary which = RUN_VARY_SCHEME;
	int lists = 0;

	for (int w = RUN_VARY_SCHEME + 1; w < RUN_VARY_N; w++)
		if (n[w] > 1) {
			lists++;
			which = (enum run_vary)w;
		}
	/* The targets hold one list only (the last given). */
	if (lists > 1)
		return cli_bad("%s", "compare one component at a time: one of "
			   "--slab, --rcu-free, --mprotect-range and --tree with "
			   "several values");
	if (lists && n[RUN_VARY_SCHEME] > 1)
		return cli_bad("compare %s under one scheme: give --lock one scheme",
			   runner_vary_name(which));
	/* The kept reserve is vmsim's tree's; the maple tree allocates as
	 * the kernel's code does. */
	for (int i = 0; c->mm.tree_spares && i < c->ntargets; i++)
		if (runner_target_tree(c, i) == VMA_TREE_MAPLE)
			return cli_bad("--tree-alloc %s: vmsim's tree only (the "
				       "maple tree allocates as the kernel's "
				       "code does): add --tree vmsim", "spare");
	return 0;
}

/* --rcu-free only where a sheaves slab is, --kfree-rcu where a SLUB one
 * is; --slab-fastpath where either is, rseq only where it can run;
 * --vma-free typesafe only under schemes that allow it. */
static int slab_settle(const struct run_cfg *c)
{
	bool sheaves = false, slub = false;

	if (vary_settle(c))
		return EXIT_USAGE;
	for (int i = 0; i < c->ntargets; i++) {
		sheaves |= c->targets[i].slab == SLAB_SHEAVES;
		slub |= c->targets[i].slab == SLAB_SLUB;
	}
	if (c->rcu_free_given && !sheaves)
		return cli_bad("%s applies only with --slab sheaves", "--rcu-free");
	if (c->rcu_lazy_given && !sheaves && !slub)
		return cli_bad("%s apply only with --slab slub or sheaves",
			   "--rcu-lazy-max and --rcu-lazy-flush");
	if (c->kfree_rcu_given && !slub)
		return cli_bad("%s applies only with --slab slub", "--kfree-rcu");
	if (c->slab_fastpath_given && !slub && !sheaves)
		return cli_bad("%s applies only with --slab slub or sheaves",
			   "--slab-fastpath");
	if (c->slab_fastpath_given && !c->mm.slab_fast_locked &&
	    !runner_slab_fast_rseq(c))
		return cli_bad("--slab-fastpath rseq: restartable sequences are not "
			   "usable here (%s); use --slab-fastpath lock",
			   slab_fast_rseq_built() ? "glibc registered no rseq area, "
			   "or CPU numbers go past the online CPUs" :
			   "not on x86-64, or a TSan build");
	for (int i = 0; c->mm.vma_free == SIM_VMA_FREE_TYPESAFE && i < c->ntargets; i++)
		if (!c->targets[i].lock->vma_typesafe)
			return cli_bad("--vma-free typesafe: scheme '%s' keeps a VMA "
				   "it found under RCU without a reference a writer "
				   "waits for, so its VMAs must outlive a grace "
				   "period; use --vma-free rcu",
				   c->targets[i].lock->name);
	return 0;
}

int run_mem_settle(struct run_cfg *c)
{
	size_t need = run_mem_need(c), want;
	char given[32], least[32];
	int ret = slab_settle(c);

	if (ret)
		return ret;
	if (c->frames == FRAMES_NONE && c->wl->needs_frames)
		return cli_bad("workload '%s' needs page frames: give --frames zone "
			   "or pcp", c->wl->name);
	if (c->frames == FRAMES_NONE) {
		if (c->phys || c->bulk_given)
			return cli_bad("%s applies only with --frames zone or pcp",
				   c->phys ? "--phys" : "--bulk-free");
		return 0;
	}
	/* Room for what the run populates, the per-CPU lists, and a quarter
	 * more (a zone never runs to its last page). */
	want = need + need / 4 + (16UL << 20);
	want = (want + (2UL << 20) - 1) & ~((2UL << 20) - 1);
	/* At least 1 GiB: batch and high grow with the zone (1 GiB: 63 and
	 * ~640), and a toy zone's would be a toy's. Frames cost 12 bytes. */
	if (want < (1UL << 30))
		want = 1UL << 30;
	if (!c->phys) {
		c->phys = want < PHYS_MAX ? want : PHYS_MAX;
		return 0;
	}
	if (c->phys >= need)
		return 0;
	snprintf(given, sizeof(given), "%zuM", c->phys >> 20);
	snprintf(least, sizeof(least), "%zuM",
		 ((need + (2UL << 20) - 1) & ~((2UL << 20) - 1)) >> 20);
	fprintf(stderr, "%s: --phys %s is too small for %s: it may have %zu MiB "
		"resident at once; give --phys %s or more\n", prog, given,
		c->wl->name, need >> 20, least);
	return EXIT_USAGE;
}

int run_opt_pick(enum run_opt_id id, const char *arg, const char *const *names,
		 int n)
{
	const struct run_opt *o = &run_optlist[id];

	return names ? cli_pick(o->what, arg, names, n) :
		       cli_pick(o->what, arg, o->choices, o->nchoices);
}
