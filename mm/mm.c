/* SPDX-License-Identifier: MIT */
#include "mm/mm.h"

#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sync/rcu.h"
#include "mm/fault.h"
#include "uffd/host.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* For pervma's lock_vma_under_rcu: one walk, the VMA containing addr. */
static bool lookup_for_lock(void *arg, unsigned long addr, struct lock_vma *out)
{
	struct sim_mm *mm = arg;
	struct sim_vma *v = vma_tree_find(&mm->tree, addr);

	if (!v || v->vm_start > addr)
		return false;
	*out = (struct lock_vma){ v, &v->vm_lock, v->vm_start, v->vm_end };
	return true;
}

unsigned char sim_mm_set_present(struct sim_mm *mm, unsigned long addr,
				 unsigned char state)
{
	size_t pg = (addr - mm->base) >> SIM_PAGE_SHIFT;
	unsigned char old = atomic_load_explicit(&mm->present[pg],
						 memory_order_relaxed);

	/* Keep the generation, set the state. Release: pairs with the
	 * acquire load in sim_touch(); in synthetic mode the page's contents
	 * are in place before a touch sees it present. */
	while (!atomic_compare_exchange_weak_explicit(&mm->present[pg], &old,
			(unsigned char)((old & ~SIM_PRESENT_STATE) | state),
			memory_order_acq_rel, memory_order_relaxed))
		;
	old &= SIM_PRESENT_STATE;
	if (!old)
		atomic_fetch_add_explicit(&mm->faults[lockstat_slot_id()].resident,
					  1, memory_order_relaxed);
	return old;
}

/*
 * Zap: forget the pages (state 0, next generation), throw the real pages
 * away, and forget them again — so that a synthetic fault that placed a
 * page between the first two steps does not leave it marked present on
 * a zapped page. A synthetic touch that overlapped any of it sees the
 * page's byte change and retries (sim_touch()).
 */
void sim_mm_zap(struct sim_mm *mm, unsigned long start, unsigned long end)
{
	sim_mm_forget(mm, start, end);
	host_madvise((void *)start, end - start, MADV_DONTNEED);
	if (mm->uffd < 0)
		sim_mm_forget(mm, start, end);
}

void sim_mm_forget(struct sim_mm *mm, unsigned long start, unsigned long end)
{
	size_t first = (start - mm->base) >> SIM_PAGE_SHIFT;
	size_t n = (end - start) >> SIM_PAGE_SHIFT;
	int64_t gone = 0;

	for (size_t i = 0; i < n; i++) {
		_Atomic unsigned char *b = &mm->present[first + i];
		unsigned char old = atomic_load_explicit(b, memory_order_relaxed);

		/* Release/acquire: a touch that reads the new byte after its
		 * access knows the access may have raced the zap. */
		while (!atomic_compare_exchange_weak_explicit(b, &old,
				(unsigned char)((old & ~SIM_PRESENT_STATE) +
						SIM_PRESENT_GEN),
				memory_order_acq_rel, memory_order_relaxed))
			;
		if (old & SIM_PRESENT_STATE)
			gone++;
	}
	atomic_fetch_sub_explicit(&mm->faults[lockstat_slot_id()].resident, gone,
				  memory_order_relaxed);
}

/* Synthetic: pages mapped writable become mapped read-only, so the next
 * write faults (and is refused). The byte changes, so a touch that was
 * writing across the change retries. */
static void present_write_protect(struct sim_mm *mm, unsigned long start,
				  unsigned long end)
{
	size_t first = (start - mm->base) >> SIM_PAGE_SHIFT;
	size_t n = (end - start) >> SIM_PAGE_SHIFT;

	for (size_t i = 0; i < n; i++) {
		_Atomic unsigned char *b = &mm->present[first + i];
		unsigned char old = atomic_load_explicit(b, memory_order_relaxed);

		while ((old & SIM_PRESENT_STATE) == 2 &&
		       !atomic_compare_exchange_weak_explicit(b, &old,
				(unsigned char)((old & ~SIM_PRESENT_STATE) | 1),
				memory_order_acq_rel, memory_order_relaxed))
			;
	}
}

void sim_mm_protect(struct sim_mm *mm, unsigned long start, unsigned long end,
		    unsigned long vm_flags)
{
	if (!(vm_flags & VM_ACCESS_FLAGS)) {
		sim_mm_zap(mm, start, end);
		return;
	}
	if (mm->uffd < 0) {
		if (!(vm_flags & VM_WRITE))
			present_write_protect(mm, start, end);
		return;                  /* writable: the next write faults */
	}
	/* change_protection(MM_CP_UFFD_WP): present pages only; absent ones
	 * fault as MISSING and are checked against the VMA then. */
	uffd_writeprotect(mm->uffd, start, end - start, !(vm_flags & VM_WRITE),
			  false);
}

uint64_t sim_mm_resident(const struct sim_mm *mm)
{
	int64_t r = 0;

	for (int s = 0; s < LOCKSTAT_SLOTS; s++)
		r += atomic_load_explicit(&mm->faults[s].resident,
					  memory_order_relaxed);
	return r > 0 ? (uint64_t)r : 0;
}

/*
 * --numa: local binds the arena to this thread's node and keeps the
 * handlers on that node's CPUs (unless --pin chose CPUs); interleave
 * spreads the arena over every node. No-ops without NUMA support.
 */
static int numa_cpus[1024];

static int sim_mm_place(struct sim_mm *mm, struct uffd_pool_cfg *pc)
{
	struct bitmask *cpus;
	int node, n = 0;

	if (mm->cfg.numa == SIM_NUMA_DEFAULT || numa_available() < 0)
		return 0;
	if (mm->cfg.numa == SIM_NUMA_INTERLEAVE) {
		numa_interleave_memory((void *)mm->base, mm->end - mm->base,
				       numa_all_nodes_ptr);
		return 0;
	}
	numa_setlocal_memory((void *)mm->base, mm->end - mm->base);
	if (!pc || pc->ncpus)
		return 0;
	node = numa_node_of_cpu(sched_getcpu());
	cpus = numa_allocate_cpumask();
	if (!cpus)
		return -ENOMEM;
	if (node >= 0 && !numa_node_to_cpus(node, cpus))
		for (unsigned i = 0; i < cpus->size && n < 1024; i++)
			if (numa_bitmask_isbitset(cpus, i))
				numa_cpus[n++] = (int)i;
	numa_free_cpumask(cpus);
	pc->cpus = numa_cpus;
	pc->ncpus = n;
	return 0;
}

static int sim_mm_start_uffd(struct sim_mm *mm)
{
	struct uffd_pool_cfg pc;
	int fd, ret;

	fd = uffd_open(0, &mm->uinfo.via_dev, NULL);
	if (fd < 0)
		return fd;
	mm->uffd = fd;
	ret = uffd_api(fd, SIM_UFFD_FEATURES, &mm->uinfo);
	if (ret)
		return ret;
	if ((mm->uinfo.features & SIM_UFFD_FEATURES) != SIM_UFFD_FEATURES)
		return -EOPNOTSUPP;      /* anonymous WP needs Linux 5.7 */
	ret = uffd_register(fd, (void *)mm->base, mm->end - mm->base,
			    UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP,
			    NULL);
	if (ret)
		return ret;
	pc = (struct uffd_pool_cfg){
		.fd = fd,
		.nhandlers = mm->cfg.nhandlers > 0 ? mm->cfg.nhandlers : 1,
		.wait = mm->cfg.wait,
		.batch = mm->cfg.batch > 0 ? mm->cfg.batch : 16,
		.fn = sim_uffd_fault,
		.arg = mm,
		.cpus = mm->cfg.cpus,
		.ncpus = mm->cfg.ncpus,
		.phase_of_thread = sim_fault_phase,
	};
	ret = sim_mm_place(mm, &pc);
	return ret ? ret : uffd_pool_start(&pc, &mm->pool);
}

/*
 * process_madvise(MADV_DONTNEED) on our own pages needs Linux 6.13 (or
 * a pidfd at all: 5.10 for process_madvise, 5.3 for pidfd_open). Try it
 * on one page of the arena, which no VMA covers yet.
 */
static void probe_process_madvise(struct sim_mm *mm)
{
	struct iovec iov = { (void *)mm->base, SIM_PAGE_SIZE };

	mm->pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (mm->pidfd < 0)
		return;
	mm->process_madvise_ok = host_process_madvise(mm->pidfd, &iov, 1,
				       MADV_DONTNEED) == (long)SIM_PAGE_SIZE;
}

bool sim_process_madvise_self_ok(void)
{
	void *p = host_mmap(NULL, SIM_PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct iovec iov = { p, SIM_PAGE_SIZE };
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	bool ok = p != MAP_FAILED && fd >= 0 &&
		  host_process_madvise(fd, &iov, 1, MADV_DONTNEED) ==
		  (long)SIM_PAGE_SIZE;

	if (fd >= 0)
		close(fd);
	if (p != MAP_FAILED)
		host_munmap(p, SIM_PAGE_SIZE);
	return ok;
}

/* The arena and the present map: the only real mappings of an mm, made
 * once, here. */
static int sim_mm_map_arena(struct sim_mm *mm)
{
	void *p = host_mmap(NULL, mm->cfg.arena_size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	mm->base = (unsigned long)p;
	mm->end = mm->base + mm->cfg.arena_size;
	p = host_mmap(NULL, mm->cfg.arena_size >> SIM_PAGE_SHIFT,
		      PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	mm->present = p;
	return 0;
}

/* Room for the live VMAs and for those waiting for a grace period;
 * the tree's nodes likewise. */
static size_t max_nodes(size_t max_map_count)
{
	return max_map_count + 65536;
}

static size_t max_vmas(size_t max_map_count)
{
	return 4 * max_map_count + 65536;
}

size_t sim_mm_reserve_bytes(const struct sim_mm_cfg *cfg)
{
	size_t maps = cfg->max_map_count ? cfg->max_map_count :
		      SIM_DEFAULT_MAX_MAP_COUNT;

	return cfg->arena_size + (cfg->arena_size >> SIM_PAGE_SHIFT) +
	       vma_tree_reserve_bytes(max_nodes(maps)) +
	       objpool_reserve_bytes(sizeof(struct sim_vma),
				     _Alignof(struct sim_vma), max_vmas(maps));
}

int sim_mm_create(const struct sim_mm_cfg *cfg, struct sim_mm **out)
{
	struct lock_env env;
	struct sim_mm *mm;
	int ret;

	if (!cfg->lock || cfg->arena_size < SIM_PAGE_SIZE ||
	    cfg->arena_size % SIM_PAGE_SIZE)
		return -EINVAL;
	mm = aligned_alloc(64, sizeof(*mm));
	if (!mm)
		return -ENOMEM;
	memset(mm, 0, sizeof(*mm));
	mm->cfg = *cfg;
	if (!mm->cfg.max_map_count)
		mm->cfg.max_map_count = SIM_DEFAULT_MAX_MAP_COUNT;
	mm->uffd = -1;
	mm->pidfd = -1;
	ret = vma_tree_init_cap(&mm->tree, max_nodes(mm->cfg.max_map_count));
	if (ret) {
		free(mm);
		return ret;
	}
	ret = objpool_init(&mm->vmas, sizeof(struct sim_vma),
			   _Alignof(struct sim_vma),
			   max_vmas(mm->cfg.max_map_count));
	if (!ret)
		ret = sim_mm_map_arena(mm);
	if (ret)
		goto err;
	/* The heap starts at the bottom; mmap places top-down. */
	mm->start_brk = mm->base;
	atomic_init(&mm->brk, mm->base);
	env = (struct lock_env){
		.space_start = mm->base, .space_end = mm->end,
		.vma_lookup = lookup_for_lock, .arg = mm,
	};
	ret = cfg->lock->create(&env, &mm->lock);
	if (ret)
		goto err;
	if (cfg->source == FAULT_SRC_SYNTHETIC)
		ret = sim_mm_place(mm, NULL);
	else
		ret = sim_mm_start_uffd(mm);
	if (!ret)
		ret = sim_fault_init_signals();
	if (ret)
		goto err;
	probe_process_madvise(mm);
	/* The RCU callback thread, now rather than in a timed phase. */
	sim_rcu_prepare();
	*out = mm;
	return 0;
err:
	sim_mm_destroy(mm);
	return ret;
}

void sim_mm_stop_handlers(struct sim_mm *mm)
{
	if (mm->pool) {
		uffd_pool_stop(mm->pool, &mm->uffd_final);
		mm->pool = NULL;
	}
}

void sim_mm_destroy(struct sim_mm *mm)
{
	if (!mm)
		return;
	sim_mm_stop_handlers(mm);
	if (mm->uffd >= 0)
		close(mm->uffd);
	if (mm->pidfd >= 0)
		close(mm->pidfd);
	/* Waits for RCU callbacks, which free into our pools. */
	vma_tree_destroy(&mm->tree, NULL);
	objpool_destroy(&mm->vmas);
	if (mm->lock)
		mm->lock->ops->destroy(mm->lock);
	if (mm->present)
		host_munmap((void *)mm->present, mm->cfg.arena_size >> SIM_PAGE_SHIFT);
	if (mm->base)
		host_munmap((void *)mm->base, mm->end - mm->base);
	free(mm);
}

void sim_mm_fault_counts(const struct sim_mm *mm, uint64_t out[SIM_FAULT_NKINDS])
{
	memset(out, 0, sizeof(uint64_t) * SIM_FAULT_NKINDS);
	for (int s = 0; s < LOCKSTAT_SLOTS; s++)
		for (int k = 0; k < SIM_FAULT_NKINDS; k++)
			out[k] += atomic_load_explicit(&mm->faults[s].n[k],
						       memory_order_relaxed);
}

const char *sim_fault_kind_name(enum sim_fault_kind k)
{
	static const char *const names[SIM_FAULT_NKINDS] = {
		"anon_read", "anon_write", "file", "prot", "novma",
	};

	return names[k];
}
