/* SPDX-License-Identifier: MIT */
/* The host kernel's side of an mm (see native.h). */
#include "sim/native.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sim/mm.h"
#include "sim/vma.h"

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

int sim_native_init(struct sim_mm *mm)
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

void sim_native_fini(struct sim_mm *mm)
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

void sim_native_place_heap(struct sim_mm *mm)
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


int sim_native_mmap(struct sim_mm *mm, unsigned long addr, size_t len,
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

int sim_native_munmap(struct sim_mm *mm, unsigned long start, size_t len)
{
	(void)mm;
	return munmap((void *)start, len) ? -errno : 0;
}

int sim_native_mprotect(struct sim_mm *mm, unsigned long start, size_t len,
			int prot)
{
	(void)mm;
	return mprotect((void *)start, len, prot) ? -errno : 0;
}

int sim_native_madvise(struct sim_mm *mm, unsigned long start, size_t len,
		       int advice)
{
	(void)mm;
	return madvise((void *)start, len, advice) ? -errno : 0;
}

size_t sim_native_madvise_batch(struct sim_mm *mm, const struct iovec *iov,
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
int sim_native_brk(struct sim_mm *mm, unsigned long newbrk,
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
