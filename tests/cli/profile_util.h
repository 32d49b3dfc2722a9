/* SPDX-License-Identifier: MIT */
/*
 * A cost profile made up for tests (no probe runs): this host's identity
 * (or release, where given), every model scheme on both trees, and the
 * same figures for each, so that a test knows exactly what each model
 * pays: the kernel's in/down/out over the model's.
 */
#ifndef VMSIM_TESTS_PROFILE_UTIL_H
#define VMSIM_TESTS_PROFILE_UTIL_H

#include <stdio.h>
#include <string.h>

#include "locks/lock_ops.h"
#include "resfile/cost_profile.h"

/* Kernel: 5000 ns a call, 3000 in, 1000 down; a model: 1000, 600 in. */
static inline void test_profile_fill(struct cost_profile *p, const char *release)
{
	static const char *const trees[] = { "maple", "vmsim" };

	memset(p, 0, sizeof(*p));
	cost_host_now(&p->host);
	if (release)
		snprintf(p->host.release, sizeof(p->host.release), "%s", release);
	snprintf(p->date, sizeof(p->date), "2026-01-01T00:00:00Z");
	p->rounds = 1;
	p->calls = 2;
	p->syscall_ns = 100;
	for (int op = 0; op < SIM_COST_NOPS; op++)
		p->kernel[op] = (struct cost_meas){ .total_ns = 5000, .in_ns = 3000,
						    .down_ns = 1000 };
	for (int t = 0; t < 2; t++)
		for (int i = 0; i < lock_nschemes; i++) {
			struct cost_model *m = &p->models[p->nmodels++];

			snprintf(m->scheme, sizeof(m->scheme), "%s",
				 lock_schemes[i]->name);
			snprintf(m->tree, sizeof(m->tree), "%s", trees[t]);
			for (int op = 0; op < SIM_COST_NOPS; op++)
				m->op[op] = (struct cost_meas){ .total_ns = 1000,
								.in_ns = 600 };
		}
}

#endif
