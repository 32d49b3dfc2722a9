/* SPDX-License-Identifier: MIT */
/*
 * The options compare, report and gate share, each declared once: a
 * command's table names it with the type of its own arguments, which
 * must have the members it binds (a struct cmp_opts o, and baseline,
 * pct, allow_mismatch as the entry says).
 */
#ifndef VMSIM_CLI_CMP_OPTS_H
#define VMSIM_CLI_CMP_OPTS_H

#include "cli/opt.h"
#include "analysis/compare.h"

#define CMP_OPT_BASELINE(T)						\
	CLI_STR(T, baseline, 0, "baseline", "NAME",			\
		"the base column: the result whose label, scheme,\n"	\
		"file name or directory is NAME (default: the\n"	\
		"first given)")
/* A rule of --significance: its index in cmp_test_names. */
#define CMP_OPT_SIGNIFICANCE(T)						\
	CLI_ENUM(T, o.test, 0, "significance", "RULE", cmp_test_names,	\
		 CMP_NTESTS,						\
		 "the *x.xx%* marker: welch (Welch's t-test, alpha\n"	\
		 "0.05; default) | mannwhitney | mmtests-ttest\n"	\
		 "(t-test on the Hmean, n1+n2-2 df, alpha 0.10:\n"	\
		 "mmtests 2018 to Nov 2024) | mmtests-ci\n"		\
		 "(|diff| > 1.96*(sd_a+sd_b): mmtests since Nov 2024;\n" \
		 "no p-value, so no gate)")
#define CMP_OPT_ALPHA(T)						\
	CLI_NUM(T, o.alpha, 0, "alpha", "A", 0, false, 1,		\
		"significance level (default: the rule's; a gate's\n"	\
		"family-wise alpha, Holm over its rows: 0.05)")
/* The gate's minimum effect; more initializers after T (compare's is
 * optional and turns its gate on). */
#define CMP_OPT_FAIL(T, ...) {						\
	.kind = CLI_OPT_NUM, .name = "fail-on-regression", .metavar = "PCT", \
	.off = CLI_AT(T, pct, double), .dlo = 0, .lo_in = true, .dhi = 1000, \
	.help = "the gate's minimum effect: a primary metric more\n"	\
		"than PCT% worse (default 5) and significantly so\n"	\
		"(one-sided, Holm over every row, family-wise\n"	\
		"alpha 0.05) is a regression (exit 1)",		\
	__VA_ARGS__ }
#define CMP_OPT_ALLOW_MISMATCH(T)					\
	CLI_FLAG(T, allow_mismatch, 0, "allow-mismatch",		\
		 "gate runs made with different options anyway (said)")
#define CMP_OPT_ALLOW_DISTURBED(T)					\
	CLI_FLAG(T, o.allow_disturbed, 0, "allow-disturbed",		\
		 "gate points the machine disturbed (others' load,\n"	\
		 "steal, the harness's ceiling) anyway, each said;\n"	\
		 "without it they are CANNOT JUDGE")

#endif
