/* SPDX-License-Identifier: MIT */
/*
 * The host kernel as an mm's backend (sim/backend.h: sim_kernel_backend,
 * -l kernel): every address-space call made for real, in a window of
 * the host's address space; faults are the host's (sim/faults/kernel.c);
 * a maps reader reads the host's /proc/self/maps, smaps or asks
 * PROCMAP_QUERY. The tree stays empty.
 */
#include "sim/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sim/maps.h"
#include "sim/mm.h"
#include "sim/vma.h"
#include "sim/faults/sources.h"

/* Where the window is looked for: from 16 TiB up, far below the
 * kernel's mmap_base (near the top of the 47-bit user space) and above
 * a program's image and heap. */
#define NATIVE_WINDOW_FROM (16UL << 40)
#define NATIVE_WINDOW_TRIES 64
/* A simulated file's memfd: sized so that no page a workload maps of it
 * lies past its end (tmpfs files are sparse: the size costs nothing). */
#define NATIVE_FILE_SIZE (1UL << 40)
#define NATIVE_MAX_FILES 4096

struct sim_native {
	unsigned long brk0;              /* the host's break at the base */
	/* The workload placed its heap (a replay's, at its recorded place
	 * in the window): not the process's break, which cannot move. */
	bool placed_heap;
	pthread_mutex_t files_lock;      /* the table, at first use of a file */
	_Atomic int fd[NATIVE_MAX_FILES];   /* file id's memfd + 1; 0: none */
};

static unsigned long host_brk(unsigned long to)
{
	return (unsigned long)syscall(SYS_brk, to);
}

/* A free range of len bytes at or above NATIVE_WINDOW_FROM: mapped with
 * MAP_FIXED_NOREPLACE to prove it free, then unmapped again. */
static int native_window(struct sim_mm *mm, size_t len)
{
	size_t step = (len + (1UL << 40) - 1) & ~((1UL << 40) - 1);

	for (int i = 0; i < NATIVE_WINDOW_TRIES; i++) {
		unsigned long at = NATIVE_WINDOW_FROM + (unsigned long)i * step;
		void *p = mmap((void *)at, len, PROT_NONE, MAP_PRIVATE |
			       MAP_ANONYMOUS | MAP_NORESERVE |
			       MAP_FIXED_NOREPLACE, -1, 0);

		if (p == MAP_FAILED && errno != EEXIST)
			return -errno;
		if (p == MAP_FAILED)
			continue;
		munmap(p, len);
		if ((unsigned long)p != at)      /* a kernel before 4.17 */
			return -ENOMEM;
		mm->base = at;
		mm->end = at + len;
		return 0;
	}
	return -ENOMEM;
}

static int sim_native_init(struct sim_mm *mm)
{
	struct sim_native *n = calloc(1, sizeof(*n));
	int ret;

	if (!n)
		return -ENOMEM;
	pthread_mutex_init(&n->files_lock, NULL);
	mm->native = n;
	ret = native_window(mm, mm->cfg.arena_size);
	if (ret)
		return ret;
	mm->start_brk = mm->base;
	atomic_init(&mm->brk, mm->base);
	n->brk0 = host_brk(0);
	return 0;
}

static void sim_native_fini(struct sim_mm *mm)
{
	struct sim_native *n = mm->native;

	if (!n)
		return;
	if (mm->base)
		munmap((void *)mm->base, mm->end - mm->base);
	for (int i = 0; i < NATIVE_MAX_FILES; i++)
		if (atomic_load(&n->fd[i]))
			close(atomic_load(&n->fd[i]) - 1);
	pthread_mutex_destroy(&n->files_lock);
	free(n);
	mm->native = NULL;
}

static bool in_window(const struct sim_mm *mm, unsigned long a, size_t len)
{
	return a >= mm->base && a <= mm->end && len <= mm->end - a;
}

static void sim_native_place_heap(struct sim_mm *mm)
{
	mm->native->placed_heap = in_window(mm, mm->start_brk, 0);
}

static unsigned long page_up(unsigned long a)
{
	return (a + SIM_PAGE_SIZE - 1) & SIM_PAGE_MASK;
}

/* A heap in the window: brk(2)'s growth is an anonymous mapping at the
 * fixed address next to the heap (merged with it, as brk's expansion
 * of the heap VMA), its shrinking an unmapping, each under the write
 * side of the host's mmap_lock as brk(2) is. */
static int placed_brk(struct sim_mm *mm, unsigned long newbrk,
		      unsigned long *out)
{
	unsigned long old = atomic_load(&mm->brk), o = page_up(old),
		      n = page_up(newbrk);

	*out = old;
	if (!newbrk)
		return 0;
	if (newbrk < mm->start_brk || !in_window(mm, n, 0))
		return -ENOMEM;
	if (n > o && mmap((void *)o, n - o, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			  -1, 0) == MAP_FAILED)
		return -ENOMEM;
	if (n < o)
		munmap((void *)n, o - n);
	atomic_store(&mm->brk, newbrk);
	*out = newbrk;
	return 0;
}

/* File id's memfd, made at its first use; -errno. */
static int native_file(struct sim_mm *mm, int file)
{
	struct sim_native *n = mm->native;
	int fd;

	if (file < 0 || file >= NATIVE_MAX_FILES)
		return -EINVAL;
	fd = atomic_load_explicit(&n->fd[file], memory_order_acquire);
	if (fd)
		return fd - 1;
	pthread_mutex_lock(&n->files_lock);
	fd = atomic_load(&n->fd[file]);
	if (!fd) {
		int f = (int)syscall(SYS_memfd_create, "vmsim-file", 1U /* CLOEXEC */);

		if (f >= 0 && ftruncate(f, (off_t)NATIVE_FILE_SIZE) < 0) {
			close(f);
			f = -1;
		}
		fd = f < 0 ? -errno : f + 1;
		if (f >= 0)
			atomic_store_explicit(&n->fd[file], fd, memory_order_release);
	}
	pthread_mutex_unlock(&n->files_lock);
	return fd < 0 ? fd : fd - 1;
}


static int sim_native_mmap(struct sim_mm *mm, unsigned long addr, size_t len,
		    int prot, int flags, int file, unsigned long pgoff,
		    unsigned long *out)
{
	int fd = -1;
	void *p;

	if (!len)
		return -EINVAL;
	if ((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) &&
	    !in_window(mm, addr, len))
		return -ENOMEM;
	if (file != SIM_FILE_NONE) {
		fd = native_file(mm, file);
		if (fd < 0)
			return fd;
		flags &= ~MAP_ANONYMOUS;
	} else {
		flags |= MAP_ANONYMOUS;
	}
	p = mmap((void *)addr, len, prot, flags, fd,
		 fd < 0 ? 0 : (off_t)(pgoff << SIM_PAGE_SHIFT));
	if (p == MAP_FAILED)
		return -errno;
	*out = (unsigned long)p;
	return 0;
}

static int sim_native_munmap(struct sim_mm *mm, unsigned long start, size_t len)
{
	(void)mm;
	return munmap((void *)start, len) ? -errno : 0;
}

static int sim_native_mprotect(struct sim_mm *mm, unsigned long start, size_t len,
			int prot)
{
	(void)mm;
	return mprotect((void *)start, len, prot) ? -errno : 0;
}

static int sim_native_madvise(struct sim_mm *mm, unsigned long start, size_t len,
		       int advice)
{
	(void)mm;
	return madvise((void *)start, len, advice) ? -errno : 0;
}

static size_t sim_native_madvise_batch(struct sim_mm *mm, const struct iovec *iov,
				int n, int advice, bool one_syscall, int *err)
{
	size_t done = 0;
	long r;

	*err = 0;
	if (one_syscall) {
		if (advice != MADV_DONTNEED || !mm->process_madvise_ok) {
			*err = -EOPNOTSUPP;
			return 0;
		}
		r = syscall(SYS_process_madvise, mm->pidfd, iov, (size_t)n,
			    advice, 0U);
		if (r < 0)
			*err = -errno;
		return r < 0 ? 0 : (size_t)r;
	}
	for (int i = 0; i < n; i++) {
		if (madvise(iov[i].iov_base, iov[i].iov_len, advice)) {
			*err = -errno;
			break;
		}
		done += iov[i].iov_len;
	}
	return done;
}

/* The workload's break b as the host's, and back. */
static int sim_native_brk(struct sim_mm *mm, unsigned long newbrk,
		   unsigned long *out)
{
	unsigned long b0 = mm->native->brk0, want, got;

	if (mm->native->placed_heap)
		return placed_brk(mm, newbrk, out);
	if (!newbrk) {
		got = host_brk(0);
		*out = mm->start_brk + (got - b0);
		return 0;
	}
	if (newbrk < mm->start_brk) {
		*out = mm->start_brk + (host_brk(0) - b0);
		return -ENOMEM;
	}
	want = b0 + (newbrk - mm->start_brk);
	got = host_brk(want);
	*out = mm->start_brk + (got - b0);
	return got == want ? 0 : -ENOMEM;
}

/* PROCMAP_QUERY (Linux 6.11, <linux/fs.h>); the headers here are 6.1. */
#ifndef PROCMAP_QUERY
struct procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)
#define PROCMAP_QUERY_COVERING_OR_NEXT_VMA 0x10
#endif

/* --- /proc/self/maps, smaps and PROCMAP_QUERY: the host's own --------------- */

/* A complete line of maps or smaps: a VMA's header (its first word a
 * range: "start-end", no colon), shown to fn. */
static int host_line(const char *s, sim_maps_fn *fn, void *arg)
{
	const char *sp = strchr(s, ' ');
	const char *dash = strchr(s, '-');
	struct sim_maps_vma v = { 0 };
	char *e;

	if (!sp || !dash || dash > sp || memchr(s, ':', (size_t)(sp - s)))
		return 0;
	if (fn) {
		v.start = strtoul(s, &e, 16);
		v.end = strtoul(dash + 1, &e, 16);
		if (sp[1] == 'r')
			v.flags |= VM_READ;
		if (sp[1] && sp[2] == 'w')
			v.flags |= VM_WRITE;
		if (sp[1] && sp[2] && sp[3] == 'x')
			v.flags |= VM_EXEC;
		if (sp[1] && sp[2] && sp[3] && sp[4] == 's')
			v.flags |= VM_SHARED;
		fn(&v, arg);
	}
	return 1;
}

static int host_read(struct sim_maps_reader *r, sim_maps_fn *fn, void *arg)
{
	ssize_t got = read(r->fd, r->buf, sizeof(r->buf));
	int n = 0;

	if (got < 0)
		return -errno;
	if (!got) {
		r->wrapped = true;
		r->part = 0;
		return lseek(r->fd, 0, SEEK_SET) < 0 ? -errno : 0;
	}
	for (size_t at = 0; at < (size_t)got;) {
		const char *nl = memchr(r->buf + at, '\n', (size_t)got - at);
		size_t end = nl ? (size_t)(nl - r->buf) : (size_t)got;
		/* Only a line's start matters (its range and permissions):
		 * the rest of a long line is passed over. */
		size_t take = end - at;

		if (take > sizeof(r->line) - 1 - r->part)
			take = sizeof(r->line) - 1 - r->part;
		memcpy(r->line + r->part, r->buf + at, take);
		r->part += take;
		if (!nl)
			break;
		r->line[r->part] = '\0';
		n += host_line(r->line, fn, arg);
		r->part = 0;
		at = end + 1;
	}
	return n;
}

static int host_query(struct sim_maps_reader *r, sim_maps_fn *fn, void *arg)
{
	struct procmap_query q = {
		.size = sizeof(q),
		.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA,
		.query_addr = r->pos,
	};
	struct sim_maps_vma v;

	if (ioctl(r->fd, PROCMAP_QUERY, &q) < 0) {
		if (errno != ENOENT)
			return -errno;
		r->pos = 0;              /* past the last VMA: start again */
		r->wrapped = true;
		return 0;
	}
	/* Its flags' bits are VM_READ, VM_WRITE, VM_EXEC and VM_SHARED's. */
	v = (struct sim_maps_vma){ q.vma_start, q.vma_end, q.vma_flags & 0xf };
	r->pos = q.vma_end;
	if (fn)
		fn(&v, arg);
	return 1;
}

static int native_maps_open(struct sim_maps_reader *r)
{
	r->fd = open(r->kind == SIM_MAPS_SMAPS ? "/proc/self/smaps" :
		     "/proc/self/maps", O_RDONLY | O_CLOEXEC);
	return r->fd < 0 ? -errno : 0;
}

static int native_maps_read(struct sim_maps_reader *r, sim_maps_fn *fn,
			    void *arg)
{
	return r->kind == SIM_MAPS_QUERY ? host_query(r, fn, arg) :
	       host_read(r, fn, arg);
}

/* After the lock: nothing to place (the host binds its own memory). */
static void native_place(struct sim_mm *mm)
{
	(void)mm;
}

static int native_source(struct sim_mm *mm)
{
	return kernel_fault_source.create(mm, NULL, &mm->src);
}

/* The window is unmapped: try a page of the host's own. */
static bool native_process_madvise_ok(struct sim_mm *mm)
{
	(void)mm;
	return sim_process_madvise_self_ok();
}

const struct sim_mm_backend sim_kernel_backend = {
	.name = "kernel",
	.arena = false,
	.init = sim_native_init,
	.fini = sim_native_fini,
	.place = native_place,
	.place_heap = sim_native_place_heap,
	.source = native_source,
	.process_madvise_ok = native_process_madvise_ok,
	.mmap = sim_native_mmap,
	.munmap = sim_native_munmap,
	.mprotect = sim_native_mprotect,
	.madvise = sim_native_madvise,
	.madvise_batch = sim_native_madvise_batch,
	.brk = sim_native_brk,
	.maps_open = native_maps_open,
	.maps_read = native_maps_read,
};
