/* SPDX-License-Identifier: MIT */
/*
 * What this host charges for the things vmsim's numbers are made of,
 * measured in a fraction of a second (vmsim check prints it; every run
 * records it in its result's meta): the cross-CPU wake-up (a futex
 * ping-pong between two threads pinned to two CPUs: waking an idle vCPU
 * is a hypervisor exit on a VM) and the bare userfaultfd round trip in
 * block and busy wait (bench_fault.c's bare loop).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "bench/bench.h"
#include "base/stats.h"
#include "locks/sync/futex.h"
#include "base/clock.h"
#include "base/cpu.h"

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

/* Is "CONFIG_PER_VMA_LOCK=y" in the kernel's config (gzip or plain:
 * gzread reads both)? 1, 0, or -1 where the file cannot be read. */
static int config_has(const char *path, const char *line)
{
	gzFile f = gzopen(path, "rb");
	char buf[512];
	int found = 0;

	if (!f)
		return -1;
	while (!found && gzgets(f, buf, sizeof(buf)))
		found = !strncmp(buf, line, strlen(line)) &&
			(buf[strlen(line)] == '\n' || !buf[strlen(line)]);
	gzclose(f);
	return found;
}

static void per_vma_lock(struct res_host_kernel *k)
{
	char boot[128];
	unsigned maj = 0, min = 0;

	snprintf(boot, sizeof(boot), "/boot/config-%s", k->release);
	k->per_vma_from = "/proc/config.gz";
	k->per_vma_lock = config_has("/proc/config.gz", "CONFIG_PER_VMA_LOCK=y");
	if (k->per_vma_lock < 0) {
		k->per_vma_from = "/boot/config-RELEASE";
		k->per_vma_lock = config_has(boot, "CONFIG_PER_VMA_LOCK=y");
	}
	if (k->per_vma_lock >= 0)
		return;
	/* No config to read: since 6.4 it is def_bool y wherever the
	 * architecture supports it (x86_64 and arm64 among them). */
	k->per_vma_from = "inferred from the release";
	if (sscanf(k->release, "%u.%u", &maj, &min) == 2)
		k->per_vma_lock = maj > 6 || (maj == 6 && min >= 4) ? 1 : 0;
}

/* Does any task's comm begin with prefix (kdamond.N)? */
static bool thread_named(const char *prefix)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char path[300], comm[64] = "";
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "re");
		if (f && fgets(comm, sizeof(comm), f))
			found = !strncmp(comm, prefix, strlen(prefix));
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

static long read_long(const char *path, long dflt)
{
	FILE *f = fopen(path, "re");
	long v = dflt;

	if (f && fscanf(f, "%ld", &v) != 1)
		v = dflt;
	if (f)
		fclose(f);
	return v;
}

static bool cpu_flag(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5))
			found = strstr(line, flag) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* A write to each page of a fresh anonymous mapping, the median page's
 * time (us); then the same after MADV_DONTNEED, when the guest's freed
 * pages come straight back (a guest's first touch may also cost the
 * host a fault: EPT). */
#define TOUCH_PAGES 512              /* 2 MiB: each run pays it */
static void first_touch(struct res_host_kernel *k)
{
	size_t len = (size_t)TOUCH_PAGES * 4096;
	double *t = malloc(sizeof(double) * TOUCH_PAGES);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || !t) {
		free(t);
		if (p != MAP_FAILED)
			munmap(p, len);
		return;
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < TOUCH_PAGES; i++) {
			uint64_t t0 = mono_ns();

			((volatile char *)p)[(size_t)i * 4096] = 1;
			t[i] = (double)(mono_ns() - t0) / 1e3;
		}
		*(pass ? &k->retouch_us : &k->first_touch_us) =
			stats_median(t, TOUCH_PAGES);
		madvise(p, len, MADV_DONTNEED);
	}
	munmap(p, len);
	free(t);
}

void probe_host_kernel(struct res_host_kernel *k)
{
	struct utsname u;

	memset(k, 0, sizeof(*k));
	k->have = true;
	uname(&u);
	snprintf(k->release, sizeof(k->release), "%s", u.release);
	per_vma_lock(k);
	k->vm = cpu_flag(" hypervisor");
	k->page_reporting_order = (int)read_long(
		"/sys/module/page_reporting/parameters/page_reporting_order", -1);
	/* The module's parameter is there with reporting off: only a
	 * driver that registered (virtio-balloon) reports. */
	if (access("/sys/bus/virtio/drivers/virtio_balloon", F_OK) &&
	    !k->vm)
		k->page_reporting_order = -1;
	k->damon = thread_named("kdamond");
	first_touch(k);
}

void probe_host(struct host_probe *h)
{
	double rate;

	probe_host_kernel(&h->kernel);
	h->wake_us = wake_us();
	h->uffd_block_us = !bench_bare_uffd_rate(2UL << 20, UFFD_WAIT_BLOCK, 4096, &rate) ?
			   1e6 / rate : 0;
	h->uffd_busy_us = !bench_bare_uffd_rate(2UL << 20, UFFD_WAIT_BUSY, 4096, &rate) ?
			  1e6 / rate : 0;
}
