/* SPDX-License-Identifier: MIT */
/*
 * maps — /proc/PID/maps, smaps and PROCMAP_QUERY over the simulated mm
 * (sim/maps.h), and over the host's under -l kernel.
 *
 * What the kernel does, and this file after it (Linux 6.17,
 * fs/proc/task_mmu.c): a read(2) of maps is one fill of the seq_file's
 * page-sized buffer. m_start() takes the lock and finds the first VMA
 * ending after the position; show_map() formats its line; m_next() moves
 * on until a line does not fit; m_stop() drops the lock. The next read
 * finds its place again by address, so a VMA that changed between two
 * reads is shown as it is then. Before 6.17 the lock was mmap_read_lock
 * for the whole fill; since 6.17 maps (not smaps, whose page-table walk
 * needs mmap_lock) holds one VMA's read lock at a time, found under RCU
 * by lock_next_vma() — here lock_ops.vma_read_next. PROCMAP_QUERY (6.11)
 * finds one VMA, covering the address or the next after it, under
 * mmap_read_lock, and since 6.17 under that VMA's lock alone. Under
 * -l kernel the reader reads the host's own (sim/mm_kernel.c).
 *
 * A scheme without per-VMA locks takes its read side over the chunk's
 * range: [position, end of the last VMA the buffer will hold), found
 * first without a lock; the mm-wide schemes take mmap_read_lock whatever
 * the range. The walk under the lock stops at that end, or where the
 * buffer is full, whichever comes first (docs/fidelity.md: a range lock
 * for a maps read is vmsim's).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sim/fault_source.h"
#include "sim/maps.h"
#include "sim/backend.h"
#include "sim/mm.h"


const char *const sim_maps_kind_names[SIM_MAPS_NKINDS] = {
	[SIM_MAPS_MAPS] = "maps", [SIM_MAPS_SMAPS] = "smaps",
	[SIM_MAPS_QUERY] = "query",
};

/* What a VMA's record takes, for the chunk's range found before the
 * lock: a maps line (anonymous; a named one pads to column 73), and
 * smaps' two dozen lines more. An estimate: the lock's range, not the
 * chunk, depends on it. */
#define MAPS_LINE_EST  50
#define MAPS_NAMED_EST 90
#define SMAPS_EST      700

int sim_maps_open(struct sim_maps_reader *r, struct sim_mm *mm,
		  enum sim_maps_kind kind, bool mm_lock)
{
	*r = (struct sim_maps_reader){ .mm = mm, .kind = kind,
				       .mm_lock = mm_lock, .fd = -1 };
	return mm->be->maps_open ? mm->be->maps_open(r) : 0;
}

void sim_maps_close(struct sim_maps_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* --- the model ------------------------------------------------------------ */

/* show_map_vma(): the header line, into buf[len..SIM_MAPS_BUF); its
 * length, or 0 if it does not fit. */
static size_t show_map(char *buf, size_t len, const struct sim_vma *v)
{
	size_t room = SIM_MAPS_BUF - len;
	unsigned long f = v->vm_flags;
	int n = snprintf(buf + len, room, "%08lx-%08lx %c%c%c%c %08lx 00:00 %d ",
			 v->vm_start, v->vm_end, f & VM_READ ? 'r' : '-',
			 f & VM_WRITE ? 'w' : '-', f & VM_EXEC ? 'x' : '-',
			 f & VM_SHARED ? 's' : 'p',
			 v->vm_file == SIM_FILE_NONE ? 0UL :
			 v->vm_pgoff << SIM_PAGE_SHIFT,
			 v->vm_file == SIM_FILE_NONE ? 0 : v->vm_file + 1);

	if (n < 0 || (size_t)n >= room)
		return 0;
	if (v->vm_file != SIM_FILE_NONE) {
		int m = snprintf(buf + len + n, room - (size_t)n,
				 "%*s/vmsim/file%d", n < 73 ? 73 - n : 0, "",
				 v->vm_file);

		if (m < 0 || (size_t)m >= room - (size_t)n)
			return 0;
		n += m;
	}
	if ((size_t)n + 1 >= room)
		return 0;
	buf[len + (size_t)n] = '\n';
	return (size_t)n + 1;
}

/* show_smap(): the header, then the VMA's page-table walk
 * (smaps_pte_range) and its counts. */
static size_t show_smap(struct sim_mm *mm, char *buf, size_t len,
			const struct sim_vma *v)
{
	static const char *const key[] = {
		"Size:", "KernelPageSize:", "MMUPageSize:", "Rss:", "Pss:",
		"Pss_Dirty:", "Shared_Clean:", "Shared_Dirty:",
		"Private_Clean:", "Private_Dirty:", "Referenced:",
		"Anonymous:", "KSM:", "LazyFree:", "AnonHugePages:",
		"ShmemPmdMapped:", "FilePmdMapped:", "Shared_Hugetlb:",
		"Private_Hugetlb:", "Swap:", "SwapPss:", "Locked:",
	};
	size_t n = show_map(buf, len, v);
	uint64_t rss = 0, wr = 0, val[sizeof(key) / sizeof(key[0])] = { 0 };
	bool anon = v->vm_file == SIM_FILE_NONE;
	int m;

	if (!n)
		return 0;
	if (mm->src->ops->walk)
		mm->src->ops->walk(mm->src, v->vm_start, v->vm_end, &rss, &wr);
	rss <<= SIM_PAGE_SHIFT - 10;
	wr <<= SIM_PAGE_SHIFT - 10;
	val[0] = (v->vm_end - v->vm_start) >> 10;
	val[1] = val[2] = SIM_PAGE_SIZE >> 10;
	val[3] = val[4] = val[10] = rss;
	val[5] = val[9] = wr;
	val[8] = rss - wr;
	val[11] = anon ? rss : 0;
	for (size_t i = 0; i < sizeof(key) / sizeof(key[0]); i++) {
		m = snprintf(buf + len + n, SIM_MAPS_BUF - len - n,
			     "%-16s%8llu kB\n", key[i], (unsigned long long)val[i]);
		if (m < 0 || (size_t)m >= SIM_MAPS_BUF - len - n)
			return 0;
		n += (size_t)m;
	}
	m = snprintf(buf + len + n, SIM_MAPS_BUF - len - n,
		     "THPeligible:    0\nVmFlags:%s%s%s%s mr mw me ac\n",
		     v->vm_flags & VM_READ ? " rd" : "",
		     v->vm_flags & VM_WRITE ? " wr" : "",
		     v->vm_flags & VM_EXEC ? " ex" : "",
		     v->vm_flags & VM_SHARED ? " sh" : "");
	if (m < 0 || (size_t)m >= SIM_MAPS_BUF - len - n)
		return 0;
	return n + (size_t)m;
}

/* The record of v into the buffer at len (nothing for a query, which
 * copies out a fixed struct): its length, 0 if it does not fit. */
static size_t show(struct sim_maps_reader *r, size_t len,
		   const struct sim_vma *v)
{
	switch (r->kind) {
	case SIM_MAPS_MAPS:
		return show_map(r->buf, len, v);
	case SIM_MAPS_SMAPS:
		return show_smap(r->mm, r->buf, len, v);
	default:
		return 1;                /* a query copies out a struct */
	}
}

/* Is there room for another VMA in this read? A query gives one. */
static bool more(const struct sim_maps_reader *r, int n)
{
	return !n || r->kind != SIM_MAPS_QUERY;
}

static void shown(struct sim_maps_reader *r, const struct sim_vma *v,
		  sim_maps_fn *fn, void *arg)
{
	struct sim_maps_vma s = { v->vm_start, v->vm_end,
				  v->vm_flags & (VM_ACCESS_FLAGS | VM_SHARED) };

	r->pos = v->vm_end;
	if (fn)
		fn(&s, arg);
}

/* Linux 6.17's maps walk (and query): one VMA's read lock at a time. */
static int read_per_vma(struct sim_maps_reader *r, sim_maps_fn *fn, void *arg)
{
	struct lock_inst *l = r->mm->lock;
	size_t len = 0;
	int n = 0;

	while (more(r, n)) {
		struct lock_handle h;
		struct sim_vma *v = l->ops->vma_read_next(l, r->pos, &h);
		size_t k;

		if (!v)
			break;
		k = show(r, len, v);
		if (k) {
			len += k;
			shown(r, v, fn, arg);
			n++;
		}
		l->ops->vma_read_end(l, &h);
		if (!k)
			break;
	}
	return n;
}

/* The end of the range a chunk from r->pos will cover: the end of the
 * last VMA whose record the buffer is expected to hold, or the end of
 * the space if the list ends first. No lock: the published tree, whose
 * VMAs are freed after a grace period (not typesafe). */
static unsigned long chunk_end(struct sim_maps_reader *r)
{
	struct sim_mm *mm = r->mm;
	unsigned long at = r->pos, hi = mm->end;
	size_t len = 0;

	sim_rcu_read_lock();
	for (;;) {
		struct sim_vma *v = vma_tree_find(&mm->tree, at);
		size_t k;

		if (!v)
			break;
		k = r->kind == SIM_MAPS_QUERY ? SIM_MAPS_BUF :
		    (v->vm_file == SIM_FILE_NONE ? MAPS_LINE_EST : MAPS_NAMED_EST) +
		    (r->kind == SIM_MAPS_SMAPS ? SMAPS_EST : 0);
		if (len && len + k > SIM_MAPS_BUF) {
			hi = at;
			break;
		}
		len += k;
		at = v->vm_end;
	}
	sim_rcu_read_unlock();
	return hi > r->pos ? hi : mm->end;
}

/* A chunk under the scheme's read side over its range. */
static int read_locked(struct sim_maps_reader *r, sim_maps_fn *fn, void *arg)
{
	struct sim_mm *mm = r->mm;
	struct lock_inst *l = mm->lock;
	/* Typesafe VMAs (rwsem, pervma, spf: each takes its mm-wide read
	 * side whatever the range) may be freed and reused under a look
	 * without the lock, which must not read them; the range schemes'
	 * are freed after a grace period, and their range is the one that
	 * matters. */
	unsigned long hi = mm->vma_typesafe ? mm->end : chunk_end(r);
	struct lock_handle h;
	size_t len = 0;
	int n = 0;

	l->ops->read_range_begin(l, r->pos, hi, 0, &h);
	sim_rcu_read_lock();
	while (more(r, n)) {
		struct sim_vma *v = vma_tree_find(&mm->tree, r->pos);
		size_t k;

		if (!v || v->vm_start >= hi || !(k = show(r, len, v)))
			break;
		len += k;
		shown(r, v, fn, arg);
		n++;
	}
	sim_rcu_read_unlock();
	l->ops->read_range_end(l, &h);
	return n;
}

int sim_maps_read(struct sim_maps_reader *r, sim_maps_fn *fn, void *arg)
{
	r->wrapped = false;
	return r->mm->be->maps_read(r, fn, arg);
}

int sim_model_maps_read(struct sim_maps_reader *r, sim_maps_fn *fn, void *arg)
{
	struct lock_inst *l = r->mm->lock;
	int n;

	if (l->ops->vma_read_next && !r->mm_lock && r->kind != SIM_MAPS_SMAPS)
		n = read_per_vma(r, fn, arg);
	else
		n = read_locked(r, fn, arg);
	if (!n) {
		r->pos = 0;              /* the end: the next read starts over */
		r->wrapped = true;
	}
	return n;
}
