/* SPDX-License-Identifier: MIT */
/*
 * trunc — mmtests' config-io-trunc: sparse files read into the page
 * cache, then truncated, the truncation timed. Sparse files keep the
 * file system out; what is left is the page cache giving its pages back
 * to the page allocator (pagevecs, release_pages(), the per-CPU lists
 * and free_pcppages_bulk()), the path the single-pass bulk free thread
 * measured. Needs --frames.
 *
 * Each task has 8 files of --mem / 8 (256M a task by default); an
 * iteration reads them all (untimed) and truncates them all (timed).
 * Metrics, lower is better: elapsed (the truncation, ms) and fill (the
 * reads, ms).
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/mem/pagecache.h"
#include "base/clock.h"
#include "workloads/workload.h"

#define TRUNC_FILES 8
#define TRUNC_NO_HOST "its page cache is a model of its own (sim/mem/" \
	"pagecache.c) that the host's truncate(2) does not run"


struct trunc_shared {
	int ntasks;
	struct sim_pagecache pc[];       /* TRUNC_FILES per task */
};

static void trunc_teardown(struct sim_mm *mm, const struct wl_opts *o,
			   void *shared)
{
	struct trunc_shared *s = shared;

	for (int i = 0; i < s->ntasks * TRUNC_FILES; i++)
		pagecache_destroy(mm, &s->pc[i]);
	free(s);
}

static int trunc_setup(struct sim_mm *mm, const struct wl_opts *o, int ntasks,
		       void **shared)
{
	uint32_t pages = (uint32_t)((o->mem / TRUNC_FILES) >> SIM_PAGE_SHIFT);
	struct trunc_shared *s;
	int ret = 0;

	if (!mm->cfg.frames || !pages)
		return -EINVAL;
	s = calloc(1, sizeof(*s) + sizeof(s->pc[0]) * TRUNC_FILES * (size_t)ntasks);
	if (!s)
		return -ENOMEM;
	s->ntasks = ntasks;
	for (int i = 0; i < ntasks * TRUNC_FILES && !ret; i++)
		ret = pagecache_init(&s->pc[i], pages);
	if (ret) {
		trunc_teardown(mm, o, s);
		return ret;
	}
	*shared = s;
	return 0;
}

static int trunc_task(struct wl_task *t)
{
	struct trunc_shared *s = t->shared;
	struct sim_pagecache *pc = &s->pc[t->id * TRUNC_FILES];
	double t0 = mono_s(), t1;
	uint64_t freed = 0;

	for (int f = 0; f < TRUNC_FILES; f++) {
		int ret = pagecache_read(t->mm, &pc[f]);

		if (ret)
			return ret;
		if (wl_should_stop(t))
			return -EINTR;
	}
	t1 = mono_s();
	t->phase[1] += t1 - t0;
	for (int f = 0; f < TRUNC_FILES; f++)
		freed += pagecache_truncate(t->mm, &pc[f]);
	t->phase[0] += mono_s() - t1;
	wl_add_ops(t, freed);
	return 0;
}

static void trunc_report(const struct wl_iter *it, double *v)
{
	v[0] = it->phase[0] * 1e3;
	v[1] = it->phase[1] * 1e3;
}

const struct workload trunc_workload = {
	.name = "trunc",
	.test_args = "-m 1M -i 1 --frames pcp",
	.test_isolation = true,
	.desc = "mmtests trunc: read 8 files of --mem/8 into the page cache, "
		"truncate them (timed); needs --frames",
	.default_mem = 256UL << 20,
	.min_mem = TRUNC_FILES * SIM_PAGE_SIZE,
	.needs_frames = true,
	.no_host = TRUNC_NO_HOST,
	.nmetrics = 2,
	.metrics = {
		{ "elapsed", "ms", false, true },
		{ "fill", "ms", false, false },
	},
	.setup = trunc_setup,
	.task = trunc_task,
	.teardown = trunc_teardown,
	.report = trunc_report,
};
