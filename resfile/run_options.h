/* SPDX-License-Identifier: MIT */
/*
 * A run's options in its result file, both ways (resfile/run_options.c):
 * written from the run's configuration, and read back into the vmsim run
 * command line that runs it again; the form of each is
 * resfile/run_opts.def's.
 */
#ifndef VMSIM_RUN_OPTIONS_H
#define VMSIM_RUN_OPTIONS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "resfile/run_opts.h"
#include "workloads/runner.h"

/* What a result records of the run that made it (resfile/run_options.c):
 * every option that changes what is measured, and those that let it
 * run again (struct run_harness_opts). */
/* The keys of run_options_json whose value each target's scheme (or the
 * variant the run compares) chose, not the user: vma_free when not
 * given, slab and rcu_free when the run compares several. */
json_object *run_by_scheme_json(const struct run_cfg *c);
/* Does scheme l have what o needs of a scheme (o->needs: a choice only
 * some schemes have, RUN_NEEDS_*_SCHEME)? And what such schemes do, for
 * a refusal ("choose an mprotect's range"). */
bool run_opt_scheme_has(const struct run_opt *o, const struct lock_ops *l);
const char *run_opt_scheme_need_text(const struct run_opt *o);
/* What the command line says of how vmsim ran that run_cfg does not
 * hold: recorded beside the options that change what is measured. */
struct run_harness_opts {
	int nhandlers;                   /* --handlers as given (0: default) */
	int max_tasks;
	bool ceiling;
	/* --costs: the cost profile's JSON (resfile/cost_profile.h), or
	 * NULL: none. */
	json_object *costs;
};
json_object *run_options_json(const struct run_cfg *c, int target,
			  const struct run_harness_opts *h);

/* The other way: the arguments of `vmsim run` (argv[0] "run") that make
 * the run of result root again — its scheme, workload, fault source and
 * every recorded option. 0, or -EINVAL (an option this vmsim does not
 * know, say) / -ENOMEM with one clause in err. Free with run_args_free. */
struct run_args_vec {
	int n, cap;
	char **argv;                     /* n words, then NULL */
};
int run_rerun_args(json_object *root, struct run_args_vec *v, char *err,
		   size_t len);
/* One word more (copied): 0 or -ENOMEM. A vector grows as it needs. */
int run_args_add(struct run_args_vec *v, const char *s);
void run_args_free(struct run_args_vec *v);

#endif
