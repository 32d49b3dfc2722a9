/* SPDX-License-Identifier: MIT */
/* SIM_WARN_ON's report (base/debug.h). */
#include "base/debug.h"

#include <stdio.h>
#include <stdlib.h>

_Atomic unsigned long sim_warnings;

void sim_warn(const char *file, int line, const char *cond)
{
	atomic_fetch_add_explicit(&sim_warnings, 1, memory_order_relaxed);
	fprintf(stderr, "vmsim: WARNING: %s:%d: invariant broken: %s\n", file,
		line, cond);
	if (getenv("VMSIM_WARN_FATAL"))
		abort();
}
