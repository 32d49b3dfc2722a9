/* SPDX-License-Identifier: MIT */
/*
 * kernel — the host kernel as a target of a run (`-l kernel`): no lock of
 * vmsim's. The simulated mm sees lock_ops.host and hands the workload's
 * mmap, munmap, mprotect, madvise, process_madvise and brk, and every
 * touch, to the host (sim/backend.h); what contends is the host's own
 * mmap_lock and per-VMA locks (Linux 6.4+), over a real mm: vmsim's own
 * process in threads mode, one forked process per task in processes mode.
 *
 * The instance exists so that an mm has one like every other; it has no
 * lock class (the host's statistics are /proc/vmstat's and, with
 * --kernel-lockstat, the mmap_lock tracepoints'), and none of the
 * scheme's sides is ever called.
 */
#include <errno.h>
#include <stdlib.h>

#include "locks/lock_ops.h"

static int kernel_create(const struct lock_env *env, struct lock_inst **out)
{
	struct lock_inst *l = calloc(1, sizeof(*l));
	int ret;

	if (!l)
		return -ENOMEM;
	ret = lock_inst_init(l, &kernel_lock_ops, env, NULL, NULL, 0);
	if (ret) {
		free(l);
		return ret;
	}
	*out = l;
	return 0;
}

static void kernel_destroy(struct lock_inst *l)
{
	lock_inst_fini(l);
	free(l);
}

const struct lock_ops kernel_lock_ops = {
	.name = "kernel",
	.desc = "the host kernel itself: the same calls and touches, natively "
		"(its mmap_lock and per-VMA locks; no model)",
	.excludes = true,
	.serialises_writers = true,
	.host = true,
	.create = kernel_create,
	.destroy = kernel_destroy,
};
