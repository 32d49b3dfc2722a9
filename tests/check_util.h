/* SPDX-License-Identifier: MIT */
/* What every Check test program does around its suite. */
#ifndef VMSIM_CHECK_UTIL_H
#define VMSIM_CHECK_UTIL_H

#include <check.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* n steps of a stress loop, divided by VMSIM_TEST_DIVISOR where it is set
 * (the sanitizer builds in the developer's suite, where each step costs
 * 5-20x: scripts/sanitizer-suite.sh); at least one. Read once; any
 * thread may call it. */
static inline long check_steps(long n)
{
	static _Atomic long divisor;
	long d = atomic_load_explicit(&divisor, memory_order_relaxed);

	if (!d) {
		const char *e = getenv("VMSIM_TEST_DIVISOR");

		d = e && atol(e) > 1 ? atol(e) : 1;
		atomic_store_explicit(&divisor, d, memory_order_relaxed);
	}
	return n / d > 0 ? n / d : 1;
}

/* Run s, printing as mode; the exit code for ctest. */
static inline int check_run(Suite *s, enum print_output mode)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, mode);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
