/* SPDX-License-Identifier: MIT */
/*
 * will-it-scale's address-space loop tests, as data: each task loops
 * until stopped, one iteration counted per page written (page_faultN) or
 * per mmap+munmap pair (mmapN), or two per brk pair (brk1); sampled once
 * a second as will-it-scale does.
 *
 *   page_fault1  mmap --mem anonymous private memory, write every page,
 *                munmap
 *   page_fault2  the same on a private mapping of a simulated file: every
 *                first touch copies the file page in; every 64th page is
 *                read back and checked against the file before the write
 *   page_fault3  the same on a shared mapping of a simulated file. vmsim
 *                keeps no page cache, so a write is not seen by other
 *                mappings of the file; what is measured is the fault path
 *                and its locking, which is what page_fault3 stresses
 *   mmap1, mmap2 mmap + munmap of --mem (anonymous; a simulated file),
 *                touching nothing
 *   brk1         brk(+page), brk(-page) on the heap VMA, which grows and
 *                shrinks in place; in threads mode the tasks share one
 *                heap, as they do in will-it-scale
 */
#include "workloads/workload.h"

/* One loop test: what each iteration maps and whether it writes it. */
struct wis_test {
	int prot, flags, file;           /* file: a simulated file id */
	bool touch, verify;              /* write every page; check contents */
	bool brk;                        /* brk1's loop instead */
};

static int brk_loop(struct wl_task *t)
{
	unsigned long base, cur;
	int ret = sim_do_brk(t->mm, 0, &base);

	while (!ret && !wl_should_stop(t)) {
		ret = sim_do_brk(t->mm, base + SIM_PAGE_SIZE, &cur);
		if (!ret)
			ret = sim_do_brk(t->mm, base, &cur);
		wl_add_ops(t, 2);
	}
	return ret;
}

static int wis_task(struct wl_task *t)
{
	const struct wis_test *w = t->params;

	if (w->brk)
		return brk_loop(t);
	return wl_map_touch_loop(t, t->o->mem, w->prot, w->flags, w->file,
				 w->touch, w->verify);
}

#define WIS_RW (PROT_READ | PROT_WRITE)
#define WIS_ANON (MAP_PRIVATE | MAP_ANONYMOUS)

/* A will-it-scale loop test's descriptor (name its own, in full, where
 * it is defined); the rest is the same for all. mem false: the test has
 * no use for --mem (brk1); touch_: it writes every page it maps. */
#define WIS_TEST(id, description, unit, mem, touch_, isolation, ...)	\
	{								\
		.name = id,						\
		.test_args = (mem) ? "-m 256K --duration 1 --warmup 0 "	\
			     "--interval 50" : "--duration 1 --warmup 0 " \
			     "--interval 50",				\
		.test_isolation = isolation,				\
		.desc = description,					\
		.loop = true,						\
		.default_mem = (mem) ? 128UL << 20 : 0,			\
		.min_mem = (mem) ? SIM_PAGE_SIZE : 0,			\
		.concurrent_writes = true,				\
		.nmetrics = 2,						\
		.metrics = { WL_RATE_METRICS(unit) },			\
		.task = wis_task,					\
		.report = wl_report_rate,				\
		.touches_mem = touch_,					\
		.params = &(const struct wis_test){ .touch = touch_,	\
						    __VA_ARGS__ },	\
	}

const struct workload page_fault1_workload = WIS_TEST("page_fault1",
	"will-it-scale page_fault1: loop mmap --mem (128M) anon, "
	"write each page, munmap", "faults/s", true, true, true,
	.prot = WIS_RW, .flags = WIS_ANON, .file = SIM_FILE_NONE);
const struct workload page_fault2_workload = WIS_TEST("page_fault2",
	"will-it-scale page_fault2: page_fault1 on a private "
	"mapping of a simulated file", "faults/s", true, true, true,
	.prot = WIS_RW, .flags = MAP_PRIVATE, .file = 2, .verify = true);
const struct workload page_fault3_workload = WIS_TEST("page_fault3",
	"will-it-scale page_fault3: page_fault1 on a shared "
	"mapping of a simulated file", "faults/s", true, true, false,
	.prot = WIS_RW, .flags = MAP_SHARED, .file = 3, .verify = true);
const struct workload mmap1_workload = WIS_TEST("mmap1",
	"will-it-scale mmap1: loop mmap + munmap of --mem (128M) anon, "
	"no touching", "ops/s", true, false, true,
	.prot = WIS_RW, .flags = WIS_ANON, .file = SIM_FILE_NONE);
const struct workload mmap2_workload = WIS_TEST("mmap2",
	"will-it-scale mmap2: loop mmap + munmap of a --mem (128M) "
	"simulated file", "ops/s", true, false, false,
	.prot = WIS_RW, .flags = MAP_SHARED, .file = 4);
const struct workload brk1_workload = WIS_TEST("brk1",
	"will-it-scale brk1: loop brk(+page), brk(-page) on the heap VMA",
	"ops/s", false, false, true, .brk = true);
