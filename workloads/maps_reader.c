/* SPDX-License-Identifier: MIT */
/*
 * maps_reader — the readers of /proc/PID/maps beside a program that
 * faults and maps: the mmap_lock contention that comes from outside the
 * program (monitoring agents, profilers, ps and top, Android's system
 * services).
 *
 * The program is fault_vs_mmap's: --tasks fault tasks each write every
 * page of their own 64-page VMAs and zap them (MADV_DONTNEED) to fault
 * again; --writers tasks loop mmap(16 pages, MAP_POPULATE) -> mprotect
 * (half, read-only) -> munmap elsewhere. Its address space also holds
 * MR_LIB_VMAS small VMAs nobody touches, as a process's shared
 * libraries do, so that a read of the list has a process's length.
 * --readers tasks read the whole list over and over (sim/maps.h): maps
 * (--maps-read maps: a page of lines a read(2), the lock taken for each
 * and dropped between), smaps (a page-table walk of each VMA under the
 * lock) or PROCMAP_QUERY (one VMA a call). Under a scheme with per-VMA
 * locks, maps and query walk one VMA's lock at a time as Linux 6.17
 * does, unless --maps-lock mmap asks for the kernel before it.
 *
 * Every writer call is timed: the writers' p99 is the figure a
 * production machine feels — a writer queued behind a reader's chunk,
 * and every fault queued behind the writer.
 *
 * faults/sec = fault-task pages / elapsed; writer-ops/sec = writer calls
 * / elapsed; writer-p99 = the 99th percentile of one writer call (us);
 * reader-vmas/sec = VMAs the readers were shown / elapsed.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/maps.h"
#include "workloads/workload.h"

#define MR_LIB_VMAS     256
#define MR_LIB_PAGES    2

struct mr_shared {
	struct wl_region r;              /* the fault tasks' VMAs */
	unsigned long lib;               /* the library-like VMAs */
	size_t lib_len;
	int nreaders;                    /* open in readers[] */
	struct sim_maps_reader *readers; /* one a reader task (--readers) */
};

static int mr_background(const struct wl_opts *o)
{
	return o->writers + o->readers;
}

/* Set-up: lib_len bytes of VMAs of MR_LIB_PAGES pages, read-only and
 * read-execute by turns, so that none merges with the next. */
static int mr_map_libs(struct sim_mm *mm, struct mr_shared *s)
{
	size_t one = MR_LIB_PAGES * SIM_PAGE_SIZE;
	int ret;

	s->lib_len = one * MR_LIB_VMAS;
	ret = sim_do_mmap(mm, 0, s->lib_len, PROT_READ,
			  MAP_PRIVATE | MAP_ANONYMOUS, SIM_FILE_NONE, 0, &s->lib);
	for (size_t off = one; !ret && off < s->lib_len; off += 2 * one)
		ret = sim_do_mprotect(mm, s->lib + off, one, PROT_READ | PROT_EXEC);
	return ret;
}

static void mr_teardown(struct sim_mm *mm, const struct wl_opts *o,
			void *shared)
{
	struct mr_shared *s = shared;

	for (int i = 0; i < s->nreaders; i++)
		sim_maps_close(&s->readers[i]);
	free(s->readers);
	if (s->r.start)
		sim_do_munmap(mm, s->r.start, s->r.len);
	if (s->lib)
		sim_do_munmap(mm, s->lib, s->lib_len);
	free(s);
}

static int mr_setup(struct sim_mm *mm, const struct wl_opts *o, int ntasks,
		    void **shared)
{
	struct mr_shared *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	ret = wl_fvm_map(mm, o, ntasks, &s->r);
	if (!ret)
		ret = mr_map_libs(mm, s);
	/* The readers' files, opened now: a task makes no host call but
	 * its reads (under -l kernel). */
	if (!ret && o->readers &&
	    !(s->readers = calloc((size_t)o->readers, sizeof(*s->readers))))
		ret = -ENOMEM;
	for (; !ret && s->nreaders < o->readers; s->nreaders++)
		ret = sim_maps_open(&s->readers[s->nreaders], mm,
				    (enum sim_maps_kind)o->maps_read,
				    o->maps_mm_lock);
	if (ret) {
		mr_teardown(mm, o, s);
		return ret;
	}
	*shared = s;
	return 0;
}

static int mr_reader(struct wl_task *t)
{
	const struct mr_shared *s = t->shared;
	struct sim_maps_reader *r = &s->readers[t->bg - t->o->writers];

	while (!wl_should_stop(t)) {
		int n = sim_maps_read(r, NULL, NULL);

		if (n < 0)
			return n;
		wl_add_aux(t, (uint64_t)n);
	}
	return 0;
}

/* Background tasks: the first --writers are writers, the rest readers. */
static int mr_task(struct wl_task *t)
{
	const struct mr_shared *s = t->shared;

	if (!t->background)
		return wl_fvm_fault(t, &s->r);
	return t->bg < t->o->writers ? wl_fvm_writer(t, true) : mr_reader(t);
}

static void mr_report(const struct wl_iter *it, double *v)
{
	double e = it->elapsed;

	v[0] = e > 0 ? (double)it->ops / e : 0;
	v[1] = e > 0 ? (double)it->bg_ops / e : 0;
	v[2] = hist_quantile(&it->bg_lat, 0.99) / 1e3;
	v[3] = e > 0 ? (double)it->bg_aux / e : 0;
	v[4] = e;
}

const struct workload maps_reader_workload = {
	.name = "maps_reader",
	.test_args = "-m 1M -i 1 --writers 1 --readers 1",
	.test_isolation = true,
	.desc = "fault_vs_mmap with --readers tasks reading /proc/PID/maps "
		"(smaps, PROCMAP_QUERY) over and over",
	.default_mem = 16UL << 20,
	.min_mem = WL_FVM_VMA_PAGES * SIM_PAGE_SIZE,
	.concurrent_writes = true,
	.touches_mem = true,
	.nmetrics = 5,
	.metrics = {
		{ "faults/sec", "faults/s", true, true },
		{ "writer-ops/sec", "ops/s", true, false },
		{ "writer-p99", "us", false, false },
		{ "reader-vmas/sec", "VMAs/s", true, false },
		{ "elapsed", "s", false, false },
	},
	.setup = mr_setup,
	.background = mr_background,
	.task = mr_task,
	.teardown = mr_teardown,
	.report = mr_report,
	.options = WL_OPT_MAPS,
};
