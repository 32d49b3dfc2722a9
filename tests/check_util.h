/* SPDX-License-Identifier: MIT */
/* What every Check test program does around its suite. */
#ifndef VMSIM_CHECK_UTIL_H
#define VMSIM_CHECK_UTIL_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


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
