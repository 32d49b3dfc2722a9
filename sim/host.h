/* SPDX-License-Identifier: MIT */
/*
 * host — every real memory system call vmsim makes, in one place, with
 * counters; and the host kernel's /proc/vmstat.
 *
 * vmsim measures a simulated address space; the host kernel's own
 * address space must stay out of the measurement. A real mmap, munmap,
 * mprotect, mremap or brk takes the host's mmap_write_lock and changes
 * the one real VMA every faulting task uses, so after set-up vmsim makes
 * none of them: the counters let results prove it (the `host` section of
 * a result) and tests assert it. madvise(MADV_DONTNEED) and
 * process_madvise, which take the host lock only for reading (or a
 * per-VMA lock), are how simulated zaps reach real memory; they are
 * counted too.
 *
 * Functions return what the system call returns (-1 and errno), except
 * where said.
 */
#ifndef VMSIM_HOST_H
#define VMSIM_HOST_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum host_call { HOST_MMAP, HOST_MUNMAP, HOST_MPROTECT, HOST_MREMAP,
		 HOST_BRK, HOST_MADVISE, HOST_NCALLS };

void *host_mmap(void *addr, size_t len, int prot, int flags, int fd,
		off_t off);
int host_munmap(void *addr, size_t len);
int host_mprotect(void *addr, size_t len, int prot);
/* 0 or -errno. */
int host_madvise(void *addr, size_t len, int advice);
/* process_madvise(2) on pidfd (the bytes advised, or -errno); counted
 * as madvise. */
long host_process_madvise(int pidfd, const void *iov, size_t n, int advice);

/*
 * Make glibc's allocator call the host rarely and predictably: one arena
 * (no heap mapped on a thread's first malloc), the heap grown in 64 MiB
 * steps and never trimmed, large blocks from the heap rather than one
 * mmap each. Call once, first thing in main(): the real memory calls of a
 * run then depend on what it sets up, not on how many samples it holds.
 */
void host_malloc_setup(void);

/* Calls made by this process so far, per kind. */
void host_counts(uint64_t out[HOST_NCALLS]);
const char *host_call_name(enum host_call c);
/* The calls that change the host's VMA layout (all but madvise). */
static inline int host_call_changes_layout(enum host_call c)
{
	return c != HOST_MADVISE;
}

/* The /proc/vmstat lines vmsim records, where the kernel has them. */
#define HOST_VMSTAT_MAX 16
struct host_vmstat {
	int n;
	const char *name[HOST_VMSTAT_MAX];
	uint64_t v[HOST_VMSTAT_MAX];
};
/* Read them now (no allocation). Returns 0 or -errno. */
int host_vmstat_read(struct host_vmstat *out);
/* out += b - a, matching lines by name. */
void host_vmstat_add_delta(struct host_vmstat *out, const struct host_vmstat *a,
			   const struct host_vmstat *b);

/* The machine's CPU time so far, all CPUs (/proc/stat's "cpu" line), in
 * seconds: busy (user, nice, system, irq, softirq) and steal (what the
 * hypervisor gave to another tenant). */
struct host_cpustat {
	bool ok;
	double busy, steal;
	int ncpus;
};
/* Read it now (no allocation). Returns 0 or -errno (then !ok). */
int host_cpustat_read(struct host_cpustat *out);
/* The CPU time process pid (0: this one) has used so far, user and
 * system, all its threads, in /proc/stat's units (ticks, as seconds) so
 * that it subtracts from host_cpustat's busy; NaN if it cannot be read. */
double host_pid_cpu(pid_t pid);

#endif
