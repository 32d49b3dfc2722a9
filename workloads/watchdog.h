/* SPDX-License-Identifier: MIT */
/* watchdog — finds a fault nobody answers (see watchdog.c). Internal to
 * workloads/. */
#ifndef VMSIM_WATCHDOG_H
#define VMSIM_WATCHDOG_H

#include "workloads/workload.h"

struct watchdog;

/* Watch tasks[0..n-1] (of mm) until watchdog_stop(); on a fault older
 * than timeout seconds, report, refuse it and set *interrupt to -1.
 * timeout 0: no watchdog (*out = NULL). Returns 0 or -errno. */
int watchdog_start(struct watchdog **out, double timeout,
		   struct wl_task *const *tasks, int n, struct sim_mm *mm,
		   _Atomic int *interrupt);
void watchdog_stop(struct watchdog *w);   /* safe on NULL */

#endif
