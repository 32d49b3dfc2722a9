/* SPDX-License-Identifier: MIT */
/* Helpers shared by the will-it-scale-style workloads. */
#include <errno.h>
#include <stdlib.h>

#include "workloads/workload.h"

void wl_region_teardown(struct sim_mm *mm, const struct wl_opts *o,
			void *shared)
{
	struct wl_region *r = shared;

	sim_do_munmap(mm, r->start, r->len);
	free(r);
}

/* Where a mapping came from, to know what its pages must contain. */
struct sim_vma_view {
	int file;
	unsigned long start, pgoff;
};

/* Check 8 bytes of the file page at a against the simulated file. */
static int verify_file_page(struct wl_task *t, unsigned long a,
			    const struct sim_vma_view *v)
{
	unsigned long off = (a - v->start) + (v->pgoff << SIM_PAGE_SHIFT) + 64;
	uint64_t want = sim_file_word(v->file, off), got = 0;

	for (int i = 0; i < 8; i++) {
		unsigned char b;

		if (wl_touch(t, a + 64 + (unsigned long)i, false, &b))
			return -EFAULT;
		got |= (uint64_t)b << (8 * i);
	}
	return got == want ? 0 : -EIO;
}

int wl_map_touch_loop(struct wl_task *t, size_t len, int prot, int flags,
		      int file, bool touch, bool verify)
{
	unsigned char val = 1;

	while (!wl_should_stop(t)) {
		unsigned long a;
		int ret = sim_do_mmap(t->mm, 0, len, prot, flags, file, 0, &a);
		struct sim_vma_view view = { file, a, 0 };

		if (ret)
			return ret;
		for (unsigned long p = a; touch && p < a + len; p += SIM_PAGE_SIZE) {
			if (wl_touch(t, p, true, &val)) {
				ret = -EFAULT;
				break;
			}
			/* Every 64th page of a file: its contents, after the
			 * write (which wrote byte 0), so that the check takes
			 * no read fault will-it-scale does not take — a read
			 * fault would map fault-around's window. */
			/* The host's files are memfds, sparse as
			 * will-it-scale's: nothing to check there. */
			if (verify && !t->mm->host &&
			    !((p - a) >> SIM_PAGE_SHIFT & 63)) {
				ret = verify_file_page(t, p, &view);
				if (ret)
					break;
			}
			wl_add_ops(t, 1);
			if (wl_should_stop(t))
				break;
		}
		if (!ret)
			ret = sim_do_munmap(t->mm, a, len);
		if (ret)
			return ret;
		if (!touch)
			wl_add_ops(t, 1);
	}
	return 0;
}

void wl_report_rate(const struct wl_iter *it, double *v)
{
	v[0] = it->elapsed > 0 ? (double)it->ops / it->elapsed : 0;
	v[1] = it->ntasks > 0 ? v[0] / it->ntasks : 0;
}
