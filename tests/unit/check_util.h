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

#include "locks/lock_ops.h"
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

/* The scheme's event counter called name, or 0 if it has none. */
static inline uint64_t scheme_counter(struct lock_inst *l, const char *name)
{
	const char *names[LOCK_MAX_COUNTERS];
	uint64_t v[LOCK_MAX_COUNTERS];
	int n = l->ops->counters ? l->ops->counters(l, names, v) : 0;

	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return v[i];
	return 0;
}

/* The sum of the scheme's counters named in a NULL-terminated list. */
static inline uint64_t scheme_counter_sum(struct lock_inst *l,
					  const char *const *names)
{
	uint64_t n = 0;

	for (; names && *names; names++)
		n += scheme_counter(l, *names);
	return n;
}

/* The scheme's attempts, as its counters tell them (lock_ops'
 * attempt_ok, attempt_retried, attempt_other): every fault once as a
 * success or a failure; *retried gets those sent back to be retried. 0
 * for a scheme with no such counters. */
static inline uint64_t scheme_attempts(struct lock_inst *l, uint64_t *ok,
				       uint64_t *retried)
{
	*ok = scheme_counter_sum(l, l->ops->attempt_ok);
	*retried = scheme_counter_sum(l, l->ops->attempt_retried);
	return *ok + *retried + scheme_counter_sum(l, l->ops->attempt_other);
}

#endif
