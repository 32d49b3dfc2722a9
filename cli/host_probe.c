/* SPDX-License-Identifier: MIT */
/*
 * What this host charges for the things vmsim's numbers are made of,
 * measured in a fraction of a second (vmsim check prints it; every run
 * records it in its result's meta): the cross-CPU wake-up (a futex
 * ping-pong between two threads pinned to two CPUs: waking an idle vCPU
 * is a hypervisor exit on a VM) and the bare userfaultfd round trip in
 * block and busy wait (bench_fault.c's bare loop).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/bench.h"
#include "cli/compare/stats.h"
#include "locks/sync/futex.h"
#include "locks/sync/clock.h"
#include "locks/sync/cpu.h"

#define PINGS 400

struct pingpong {
	_Atomic int turn;                /* odd: the partner's move */
	int cpu;
};

static void *partner(void *arg)
{
	struct pingpong *p = arg;

	pin_self(p->cpu);
	for (int i = 0; i < PINGS; i++) {
		int t;

		while (!((t = atomic_load(&p->turn)) & 1))
			futex_wait(&p->turn, t);
		atomic_store(&p->turn, t + 1);
		futex_wake(&p->turn, 1);
	}
	return NULL;
}

/* One-way wake-up latency between CPU 0 and CPU 1 (a sleeping thread
 * woken by a futex), the median of PINGS round trips halved; 0 if the
 * machine has one CPU. */
static double wake_us(void)
{
	struct pingpong p = { .cpu = 1 };
	double rt[PINGS];
	pthread_t th;
	cpu_set_t old;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return 0;
	pthread_getaffinity_np(pthread_self(), sizeof(old), &old);
	pin_self(0);
	if (pthread_create(&th, NULL, partner, &p)) {
		pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
		return 0;
	}
	for (int i = 0; i < PINGS; i++) {
		uint64_t t0 = mono_ns();
		int t = atomic_fetch_add(&p.turn, 1) + 1;

		futex_wake(&p.turn, 1);
		while (atomic_load(&p.turn) == t)
			futex_wait(&p.turn, t);
		rt[i] = (double)(mono_ns() - t0) / 2e3;
	}
	pthread_join(th, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	return stats_median(rt, PINGS);
}

void probe_host(struct host_probe *h)
{
	double rate;

	h->wake_us = wake_us();
	h->uffd_block_us = !bench_bare_uffd_rate(2UL << 20, UFFD_WAIT_BLOCK, 4096, &rate) ?
			   1e6 / rate : 0;
	h->uffd_busy_us = !bench_bare_uffd_rate(2UL << 20, UFFD_WAIT_BUSY, 4096, &rate) ?
			  1e6 / rate : 0;
}
