/* SPDX-License-Identifier: MIT */
#include "sim/host.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif

static _Atomic uint64_t host_n[HOST_NCALLS];

static void count(enum host_call c)
{
	atomic_fetch_add_explicit(&host_n[c], 1, memory_order_relaxed);
}

void *host_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	count(HOST_MMAP);
	return mmap(addr, len, prot, flags, fd, off);
}

int host_munmap(void *addr, size_t len)
{
	count(HOST_MUNMAP);
	return munmap(addr, len);
}

int host_mprotect(void *addr, size_t len, int prot)
{
	count(HOST_MPROTECT);
	return mprotect(addr, len, prot);
}

int host_madvise(void *addr, size_t len, int advice)
{
	count(HOST_MADVISE);
	return madvise(addr, len, advice) ? -errno : 0;
}

long host_process_madvise(int pidfd, const void *iov, size_t n, int advice)
{
	long ret;

	count(HOST_MADVISE);
	ret = syscall(SYS_process_madvise, pidfd, iov, n, advice, 0);
	return ret < 0 ? -errno : ret;
}

void host_malloc_setup(void)
{
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_TOP_PAD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);     /* glibc's largest */
	/* Grow the heap now (by the pad), so that processes forked later
	 * inherit room rather than each growing its own at a moment that
	 * depends on what the parent has allocated by then. */
	void *volatile p = malloc(1 << 20);   /* volatile: not elided */

	free(p);
}

void host_counts(uint64_t out[HOST_NCALLS])
{
	for (int i = 0; i < HOST_NCALLS; i++)
		out[i] = atomic_load_explicit(&host_n[i], memory_order_relaxed);
}

const char *host_call_name(enum host_call c)
{
	static const char *const names[HOST_NCALLS] = {
		"mmap", "munmap", "mprotect", "mremap", "brk", "madvise",
	};

	return names[c];
}

static const char *const vmstat_names[] = {
	"pgfault", "pgmajfault", "pgfree", "pgalloc_normal",
	"thp_fault_alloc", "thp_fault_fallback",
	"vma_lock_success", "vma_lock_abort", "vma_lock_retry", "vma_lock_miss",
	"nr_tlb_remote_flush", "nr_tlb_local_flush_all",
	"nr_tlb_local_flush_one",
};

int host_vmstat_read(struct host_vmstat *out)
{
	/* /proc/vmstat is about 6 KiB; read it whole without stdio. */
	char buf[16384], *p, *line;
	int fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
	ssize_t len = 0, r;

	out->n = 0;
	if (fd < 0)
		return -errno;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (r = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += r;
	close(fd);
	buf[len] = 0;
	for (line = buf; line && *line; line = p) {
		char *sp = strchr(line, ' ');

		p = strchr(line, '\n');
		if (p)
			*p++ = 0;
		if (!sp)
			continue;
		*sp = 0;
		for (size_t i = 0; i < sizeof(vmstat_names) / sizeof(vmstat_names[0]); i++)
			if (!strcmp(line, vmstat_names[i]) && out->n < HOST_VMSTAT_MAX) {
				out->name[out->n] = vmstat_names[i];
				out->v[out->n++] = strtoull(sp + 1, NULL, 10);
			}
	}
	return 0;
}

void host_vmstat_add_delta(struct host_vmstat *out, const struct host_vmstat *a,
			   const struct host_vmstat *b)
{
	for (int i = 0; i < b->n; i++) {
		int j, k;

		for (j = 0; j < a->n && a->name[j] != b->name[i]; j++)
			;
		if (j == a->n)
			continue;
		for (k = 0; k < out->n && out->name[k] != b->name[i]; k++)
			;
		if (k == out->n) {
			if (out->n == HOST_VMSTAT_MAX)
				continue;
			out->name[out->n] = b->name[i];
			out->v[out->n++] = 0;
		}
		out->v[k] += b->v[i] - a->v[j];
	}
}

int host_cpustat_read(struct host_cpustat *out)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	char buf[512];
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0)
		return -EIO;
	buf[n] = 0;
	/* user nice system idle iowait irq softirq steal */
	if (sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		return -EIO;
	out->busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / (double)hz;
	out->steal = (double)v[7] / (double)hz;
	out->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	out->ok = true;
	return 0;
}

double host_pid_cpu(pid_t pid)
{
	unsigned long long ut, st;
	long hz = sysconf(_SC_CLK_TCK);
	char path[64], buf[1024], *p;
	int fd;
	ssize_t n;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NAN;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0)
		return NAN;
	buf[n] = 0;
	/* The name in brackets may hold anything, ')' too: after the last. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%llu %llu", &ut, &st) != 2)
		return NAN;
	return (double)(ut + st) / (double)hz;
}
