/* SPDX-License-Identifier: MIT */
/* A scheme's counters, as the tests of schemes read them. */
#ifndef VMSIM_LOCK_UTIL_H
#define VMSIM_LOCK_UTIL_H

#include <stdint.h>
#include <string.h>

#include "locks/lock_ops.h"

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
