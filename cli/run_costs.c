/* SPDX-License-Identifier: MIT */
/*
 * --costs FILE|none (vmsim run, calibrate, and gate's recipes): the cost
 * profile read and checked against this host before anything runs, then
 * each model target given what its scheme on its tree pays
 * (resfile/cost_profile.h, sim/costs.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/complain.h"
#include "base/parse.h"
#include "cli/run.h"
#include "resfile/cost_profile.h"

int run_costs_load(const char *arg, struct cost_profile **out,
		   json_object **raw)
{
	struct cost_profile *p;
	struct cost_host now;
	char err[1024], why[512];

	*out = NULL;
	*raw = NULL;
	if (!strcmp(arg, "none"))
		return 0;
	if (!(p = calloc(1, sizeof(*p))))
		return cli_bad("--costs '%s': out of memory", arg);
	if (cost_profile_load(arg, p, raw, err, sizeof(err))) {
		free(p);
		fprintf(stderr, "%s: --costs: %s\n", prog, err);
		return EXIT_USAGE;
	}
	cost_host_now(&now);
	if (!cost_host_matches(&p->host, &now, why, sizeof(why))) {
		char shown[256];

		fprintf(stderr, "%s: --costs: the cost profile '%s' is another "
			"host's: %s (make one here: vmsim calibrate --profile "
			"FILE)\n", prog, parse_printable(shown, sizeof(shown), arg),
			why);
		free(p);
		json_object_put(*raw);
		*raw = NULL;
		return EXIT_USAGE;
	}
	*out = p;
	return 0;
}

int run_costs_check(const char *arg)
{
	struct cost_profile *p;
	json_object *raw;
	int ret = run_costs_load(arg, &p, &raw);

	free(p);
	json_object_put(raw);
	return ret;
}

int run_costs_settle(struct run_cfg *c, const struct cost_profile *p)
{
	for (int k = 0; k < c->ntargets; k++) {
		struct run_target *t = &c->targets[k];
		const char *tree = vma_tree_kind_name(runner_target_tree(c, k));
		const struct cost_model *m;

		memset(&t->costs, 0, sizeof(t->costs));
		if (!p || t->lock->host)
			continue;
		m = cost_profile_model(p, t->lock->name, tree);
		if (!m) {
			fprintf(stderr, "%s: --costs: the cost profile has no %s on "
				"the %s tree (made by another vmsim? make it again: "
				"vmsim calibrate --profile FILE)\n", prog,
				t->lock->name, tree);
			return EXIT_USAGE;
		}
		cost_profile_paid(p, m, &t->costs);
	}
	return 0;
}

void run_costs_print(FILE *f, const struct run_cfg *c,
		     const struct cost_profile *p)
{
	if (!p)
		return;
	fprintf(f, "costs, us an operation (the cost profile of %s): the model's "
		"own + paid inside its lock + paid outside (the kernel's)\n",
		p->date);
	for (int k = 0; k < c->ntargets; k++) {
		const struct run_target *t = &c->targets[k];
		const char *tree = vma_tree_kind_name(runner_target_tree(c, k));
		const struct cost_model *m;

		if (t->lock->host ||
		    !(m = cost_profile_model(p, t->lock->name, tree)))
			continue;
		fprintf(f, "  %s/%s:", t->lock->name, tree);
		for (int op = 0; op < SIM_COST_NOPS; op++) {
			const struct sim_op_cost *o = &t->costs.op[op];

			fprintf(f, " %s %.2f+%.2f+%.2f (%.2f)", sim_cost_op_names[op],
				m->op[op].total_ns / 1e3,
				(o->in_ns + o->down_ns) / 1e3, o->out_ns / 1e3,
				p->kernel[op].total_ns / 1e3);
		}
		fputc('\n', f);
	}
}
