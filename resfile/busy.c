/* SPDX-License-Identifier: MIT */
/*
 * resfile/busy.h's rule: a point disturbed by others' load, by the
 * hypervisor, or by a harness that cannot scale at its task count.
 */
#include "resfile/busy.h"

#include <math.h>
#include <stdio.h>

/* The mean of the finite values of x[0..n), or NaN. */
static double finite_mean(const double *x, size_t n)
{
	double s = 0;
	size_t k = 0;

	for (size_t i = 0; x && i < n; i++)
		if (isfinite(x[i])) {
			s += x[i];
			k++;
		}
	return k ? s / (double)k : NAN;
}

bool res_busy_judge(const struct res_busy *b, char *why, size_t len)
{
	double others = finite_mean(b->others, b->n);
	double own = finite_mean(b->own, b->n);
	double steal = finite_mean(b->steal, b->n);
	char tmp[8];

	if (!why || !len) {
		why = tmp;
		len = sizeof(tmp);
	}
	why[0] = 0;
	/* What vmsim asked of the machine: a CPU a task at least (a task
	 * that waits on a handler or a lock still wanted its CPU back at
	 * once), or what it was seen to use if more (writers, handlers).
	 * Without the machine's size (results before it), others' alone
	 * decides: then any over the limit competed. */
	if (!isfinite(own) || own < b->tasks)
		own = b->tasks;
	if (isfinite(others) && others > RES_BUSY_OTHERS &&
	    (b->ncpus <= 0 || others + own > b->ncpus - RES_BUSY_OTHERS)) {
		snprintf(why, len, "others kept %.2f CPUs of %d busy", others,
			 b->ncpus);
		return true;
	}
	if (isfinite(steal) && steal > RES_BUSY_STEAL) {
		snprintf(why, len, "the hypervisor took %.0f%% of the CPUs",
			 100 * steal);
		return true;
	}
	if (b->tasks > 1 && isfinite(b->ceiling) && b->ceiling < RES_BUSY_CEILING) {
		snprintf(why, len, "the harness reached %.2fx of linear at %d "
			 "tasks", b->ceiling, b->tasks);
		return true;
	}
	return false;
}
