/* SPDX-License-Identifier: MIT */
/* Pinning the calling thread (tasks, handlers, the host probe). */
#ifndef VMSIM_CPU_H
#define VMSIM_CPU_H

#include <pthread.h>
#include <sched.h>

/* Run the calling thread on cpu only; no-op for cpu < 0. 0 or -errno. */
static inline int pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

#endif
