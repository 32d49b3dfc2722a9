/* SPDX-License-Identifier: MIT */
/*
 * Invariants checked where the kernel checks them: SIM_WARN_ON(cond) is
 * the kernel's VM_WARN_ON — compiled in debug and sanitizer builds
 * (VMSIM_DEBUG_CHECKS), nothing in the measuring build; when cond holds
 * it prints one line (file, line, the condition), counts it in
 * sim_warnings and goes on, or aborts if VMSIM_WARN_FATAL is set (the
 * test suites set it: a broken invariant fails the test that broke it).
 * Its value is cond's (0 where checks are compiled out).
 *
 *   SIM_WARN_ON(!sim_spin_is_locked(&c->lock));   lockdep_assert_held()
 *   SIM_WARN_ON(left < 0);                          refcount underflow
 */
#ifndef VMSIM_LOCKS_SYNC_DEBUG_H
#define VMSIM_LOCKS_SYNC_DEBUG_H

#include <stdatomic.h>
#include <stdbool.h>

extern _Atomic unsigned long sim_warnings;
void sim_warn(const char *file, int line, const char *cond);

#ifdef VMSIM_DEBUG_CHECKS
#define SIM_DEBUG_CHECKS 1
#define SIM_WARN_ON(cond) ({						\
	bool warn_ = (cond);						\
	if (__builtin_expect(warn_, 0))					\
		sim_warn(__FILE__, __LINE__, #cond);			\
	warn_;								\
})
#else
#define SIM_DEBUG_CHECKS 0
#define SIM_WARN_ON(cond) ({ (void)sizeof(cond); false; })
#endif

#endif
