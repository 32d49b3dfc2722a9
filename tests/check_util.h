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

#include "uffd/uffd.h"

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

/* Exit 77 (ctest: skipped) where userfaultfd is truly unavailable. */
static inline void skip_without_uffd(void)
{
	bool via_dev;
	int fd = uffd_open(0, &via_dev, NULL);

	if (fd < 0) {
		printf("SKIP: userfaultfd unavailable: %s\n", strerror(-fd));
		exit(77);
	}
	close(fd);
}

#endif
