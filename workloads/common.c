/* SPDX-License-Identifier: MIT */
/* Helpers shared by the will-it-scale-style workloads, and the program
 * fault_vs_mmap and maps_reader both run. */
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
			if (verify && t->mm->be->arena &&
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

int wl_fvm_map(struct sim_mm *mm, const struct wl_opts *o, int ntasks,
	       struct wl_region *r)
{
	size_t chunk = WL_FVM_VMA_PAGES * SIM_PAGE_SIZE;
	size_t per = o->mem / (size_t)ntasks / chunk;
	int ret;

	*r = (struct wl_region){ 0 };
	if (!per)
		return -EINVAL;          /* --mem too small for one VMA per task */
	r->slice = per * chunk;
	r->len = r->slice * (size_t)ntasks;
	ret = sim_do_mmap(mm, 0, r->len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, SIM_FILE_NONE, 0, &r->start);
	/* Every other chunk gets PROT_EXEC too: one VMA per chunk. */
	for (size_t off = chunk; !ret && off < r->len; off += 2 * chunk)
		ret = sim_do_mprotect(mm, r->start + off, chunk,
				      PROT_READ | PROT_WRITE | PROT_EXEC);
	/* Each fault task's slice its own: with one uffd per task, its
	 * faults reach its own uffd and handler (the writers' pages are
	 * populated by the writers themselves, no fault message). */
	for (int i = 0; i < ntasks && !ret; i++)
		ret = sim_mm_claim(mm, r->start + r->slice * (size_t)i,
				   r->start + r->slice * (size_t)(i + 1), i);
	if (ret && r->start) {
		sim_do_munmap(mm, r->start, r->len);
		r->start = 0;
	}
	return ret;
}

int wl_fvm_fault(struct wl_task *t, const struct wl_region *r)
{
	size_t chunk = WL_FVM_VMA_PAGES * SIM_PAGE_SIZE;
	unsigned long base = r->start + r->slice * (size_t)t->id;
	unsigned char v = (unsigned char)(t->id + 1);

	for (unsigned long c = base; c < base + r->slice; c += chunk) {
		if (wl_should_stop(t))
			return -EINTR;
		for (unsigned long a = c; a < c + chunk; a += SIM_PAGE_SIZE) {
			if (wl_touch(t, a, true, &v))
				return -EFAULT;
			wl_add_ops(t, 1);
		}
		if (sim_do_madvise(t->mm, c, chunk, MADV_DONTNEED))
			return -EFAULT;
	}
	return 0;
}

/* One writer call's result, counted as an op; with timed, its latency
 * (from c0) into the task's call histogram. */
static int fvm_call(struct wl_task *t, bool timed, uint64_t c0, int ret)
{
	if (timed)
		hist_record(&t->call_lat, cycles_to_ns(cycles_now() - c0,
						       t->ns_per_cycle));
	if (!ret)
		wl_add_ops(t, 1);
	return ret;
}

int wl_fvm_writer(struct wl_task *t, bool timed)
{
	size_t len = WL_FVM_WRITER_PAGES * SIM_PAGE_SIZE;

	while (!wl_should_stop(t)) {
		unsigned long a = 0;
		uint64_t c0 = timed ? cycles_now() : 0;
		int ret = fvm_call(t, timed, c0, sim_do_mmap(t->mm, 0, len,
				   PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE,
				   SIM_FILE_NONE, 0, &a));

		if (!ret) {
			c0 = timed ? cycles_now() : 0;
			ret = fvm_call(t, timed, c0,
				       sim_do_mprotect(t->mm, a, len / 2, PROT_READ));
		}
		if (!ret) {
			c0 = timed ? cycles_now() : 0;
			ret = fvm_call(t, timed, c0, sim_do_munmap(t->mm, a, len));
		}
		if (ret)
			return ret;
	}
	return 0;
}

void wl_report_rate(const struct wl_iter *it, double *v)
{
	v[0] = it->elapsed > 0 ? (double)it->ops / it->elapsed : 0;
	v[1] = it->ntasks > 0 ? v[0] / it->ntasks : 0;
}
