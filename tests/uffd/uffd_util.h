/* SPDX-License-Identifier: MIT */
/* Whether a test can have a userfaultfd, and its skip where it cannot. */
#ifndef VMSIM_UFFD_UTIL_H
#define VMSIM_UFFD_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uffd/uffd.h"

/* Can this process open a userfaultfd? */
static inline bool uffd_available(void)
{
	bool via_dev;
	int fd = uffd_open(0, &via_dev, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Add the uffd half of a suite where userfaultfd is available; say so
 * (a skip is reported, never silent) where it is not. */
#define ADD_UFFD_TESTS(tc, test, n) do {                                 \
	if (uffd_available())                                           \
		tcase_add_loop_test(tc, test, 0, n);                    \
	else                                                            \
		printf("SKIP: userfaultfd unavailable: %s not run\n", #test); \
} while (0)

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
