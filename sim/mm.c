/* SPDX-License-Identifier: MIT */
#include "sim/mm.h"

#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <stddef.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "locks/sync/rcu.h"
#include "sim/host.h"
#include "sim/backend.h"
#include "sim/faults/sources.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* For pervma's lock_vma_under_rcu: one walk, the VMA containing addr,
 * its range from the tree (the VMA is not read before its reference). */
static bool lookup_for_lock(void *arg, unsigned long addr, struct lock_vma *out)
{
	struct sim_mm *mm = arg;
	unsigned long s, e;
	struct sim_vma *v = vma_tree_find_range(&mm->tree, addr, &s, &e);

	if (!v)
		return false;
	*out = (struct lock_vma){ v, &v->vm_lock, s, e };
	return true;
}

/* The reference is held: the VMA's fields are its own now. It belongs
 * to this mm — the vm_mm check: the object may have been reused by
 * another mm (with --slab, another task process's: the cache and its
 * objects are shared, and that mm may sit at the same address). */
static bool covers_for_lock(void *arg, void *vma, unsigned long start,
			    unsigned long end)
{
	struct sim_mm *mm = arg;
	const struct sim_vma *v = vma;

	return v->vm_mm == mm->id && v->vm_start <= start && end <= v->vm_end;
}

/* The first VMA ending after addr, for the maps reader's per-VMA walk.
 * Its range is left 0: the VMA may not be read before its reference is
 * taken (typesafe VMAs), and the walk reads it then, through
 * vma_bounds. */
static bool next_for_lock(void *arg, unsigned long addr, struct lock_vma *out)
{
	struct sim_mm *mm = arg;
	struct sim_vma *v = vma_tree_find(&mm->tree, addr);

	if (!v)
		return false;
	*out = (struct lock_vma){ v, &v->vm_lock, 0, 0 };
	return true;
}

static bool bounds_for_lock(void *arg, void *vma, unsigned long *start,
			    unsigned long *end)
{
	struct sim_mm *mm = arg;
	const struct sim_vma *v = vma;

	if (v->vm_mm != mm->id)
		return false;
	*start = v->vm_start;
	*end = v->vm_end;
	return true;
}

/* The source acts on the real pages; the write side (or the read-range
 * side that zaps) is held. */
void sim_mm_zap(struct sim_mm *mm, unsigned long start, unsigned long end)
{
	sim_mm_src_failed(mm, SIM_SRC_ZAP, mm->src->ops->zap(mm->src, start, end));
}

void sim_mm_forget(struct sim_mm *mm, unsigned long start, unsigned long end)
{
	mm->src->ops->forget(mm->src, start, end);
}

void sim_mm_protect(struct sim_mm *mm, unsigned long start, unsigned long end,
		    unsigned long vm_flags)
{
	sim_mm_src_failed(mm, SIM_SRC_PROTECT,
			  mm->src->ops->protect(mm->src, start, end, vm_flags));
}

const char *sim_src_op_name(enum sim_src_op op)
{
	static const char *const names[SIM_SRC_NOPS] = {
		[SIM_SRC_ZAP] = "zap", [SIM_SRC_PROTECT] = "protect",
		[SIM_SRC_REFUSE] = "refuse", [SIM_SRC_WAKE] = "wake",
	};

	return names[op];
}

uint64_t sim_mm_source_counter(const struct sim_mm *mm, const char *name)
{
	const char *names[FAULT_SOURCE_MAX_COUNTERS];
	uint64_t v[FAULT_SOURCE_MAX_COUNTERS];
	int n = mm->src->ops->counters ?
		mm->src->ops->counters(mm->src, names, v) : 0;

	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return v[i];
	return 0;
}

uint64_t sim_mm_resident(const struct sim_mm *mm)
{
	return mm->src->ops->resident(mm->src);
}

/*
 * --numa: local binds the arena to this thread's node (the uffd source
 * keeps the handlers on that node's CPUs); interleave spreads the arena
 * over every node. No-ops without NUMA support.
 */
static void sim_mm_place(struct sim_mm *mm)
{
	if (mm->cfg.numa == SIM_NUMA_DEFAULT || numa_available() < 0)
		return;
	if (mm->cfg.numa == SIM_NUMA_INTERLEAVE)
		numa_interleave_memory((void *)mm->base, mm->end - mm->base,
				       numa_all_nodes_ptr);
	else
		numa_setlocal_memory((void *)mm->base, mm->end - mm->base);
}

/*
 * process_madvise(MADV_DONTNEED) on our own pages needs Linux 6.13 (or
 * a pidfd at all: 5.10 for process_madvise, 5.3 for pidfd_open). Try it
 * on one page of the arena, which no VMA covers yet.
 */
static bool model_process_madvise_ok(struct sim_mm *mm)
{
	struct iovec iov = { (void *)mm->base, SIM_PAGE_SIZE };

	return host_process_madvise(mm->pidfd, &iov, 1, MADV_DONTNEED) ==
	       (long)SIM_PAGE_SIZE;
}

static void probe_process_madvise(struct sim_mm *mm)
{
	mm->pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (mm->pidfd >= 0)
		mm->process_madvise_ok = mm->be->process_madvise_ok(mm);
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

/* The arena: the only real mapping of an mm (with the source's page
 * map), made once, here. The heap starts at its bottom; mmap places
 * top-down (a replay moves it: sim_mm_set_brk_base). */
static int sim_mm_map_arena(struct sim_mm *mm)
{
	void *p = host_mmap(NULL, mm->cfg.arena_size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	mm->base = (unsigned long)p;
	mm->end = mm->base + mm->cfg.arena_size;
	mm->start_brk = mm->base;
	atomic_init(&mm->brk, mm->base);
	return 0;
}

static void sim_mm_unmap_arena(struct sim_mm *mm)
{
	if (mm->base)
		host_munmap((void *)mm->base, mm->end - mm->base);
}

/* Room for the live VMAs and for those waiting for a grace period;
 * the tree's nodes likewise, and, for a slab cache, everything lazy RCU
 * may hold back (slab_rcu_headroom): the kernel's cache grows by
 * new_slab() while the callbacks wait, so no allocation ever waits for
 * a grace period; a fixed cache that ran dry made the allocating mmap
 * wait for rcu_barrier() (issue 35). The room is address space only
 * (MAP_NORESERVE): memory is taken as nodes are first used. */
static size_t max_nodes(size_t max_map_count, size_t headroom)
{
	return max_map_count + 65536 + headroom;
}

static size_t node_headroom(const struct sim_mm_cfg *cfg, int ncpus)
{
	return slab_rcu_headroom(cfg->rcu_lazy_max ? cfg->rcu_lazy_max :
				 RCU_LAZY_MAX, ncpus);
}

/* The slab caches' lock classes, for this process's statistics. */
static int sim_mm_slab_stat_init(struct sim_mm *mm)
{
	if (!mm->cfg.slab_vma && !mm->cfg.slab_node)
		return 0;
	mm->sstat.list_lock = lockstat_class_new("slab_list_lock");
	mm->sstat.barn_lock = lockstat_class_new("barn_lock");
	lockstat_class_spins(mm->sstat.list_lock);
	lockstat_class_spins(mm->sstat.barn_lock);
	return mm->sstat.list_lock && mm->sstat.barn_lock ? 0 : -ENOMEM;
}

static void sim_mm_slab_stat_fini(struct sim_mm *mm)
{
	lockstat_class_free(mm->sstat.list_lock);
	lockstat_class_free(mm->sstat.barn_lock);
	mm->sstat = (struct slab_stat){ 0 };
}

static size_t max_vmas(size_t max_map_count)
{
	return 4 * max_map_count + 65536;
}

const char *const sim_numa_names[SIM_NUMA_N] = {
	[SIM_NUMA_DEFAULT] = "default", [SIM_NUMA_LOCAL] = "local",
	[SIM_NUMA_INTERLEAVE] = "interleave",
};
const char *const sim_vma_free_names[SIM_VMA_FREE_N] = {
	[SIM_VMA_FREE_SCHEME] = "scheme", [SIM_VMA_FREE_TYPESAFE] = "typesafe",
	[SIM_VMA_FREE_RCU] = "rcu",
};
const char *const sim_kfree_rcu_names[SIM_KFREE_RCU_N] = {
	[SIM_KFREE_RCU_CALL] = "call_rcu", [SIM_KFREE_RCU_BATCH] = "batch",
	[SIM_KFREE_RCU_EACH] = "each",
};

const char *sim_vma_free_name(enum sim_vma_free f)
{
	return sim_vma_free_names[f];
}

bool sim_vma_free_typesafe(enum sim_vma_free f, const struct lock_ops *lock)
{
	return f == SIM_VMA_FREE_TYPESAFE ||
	       (f == SIM_VMA_FREE_SCHEME && lock->vma_typesafe);
}

const char *sim_kfree_rcu_name(enum sim_kfree_rcu k)
{
	return sim_kfree_rcu_names[k];
}

const char *sim_mm_slab_name(enum sim_slab_cache c)
{
	return c == SIM_SLAB_VMA ? "vm_area_struct" : "vt_node";
}

int sim_mm_slabs_create(const struct sim_mm_cfg *cfg, enum slab_kind kind,
			enum slab_rcu_free rf, int ncpus,
			struct slab_cache **vma, struct slab_cache **node)
{
	size_t maps = cfg->max_map_count ? cfg->max_map_count :
		      SIM_DEFAULT_MAX_MAP_COUNT;
	int ret;

	struct slab_args va = { .size = sizeof(struct sim_vma),
				.align = _Alignof(struct sim_vma) }, na;

	*vma = *node = NULL;
	if (kind == SLAB_MALLOC)
		return 0;
	/* SLAB_TYPESAFE_BY_RCU: the free pointer in a field no reader of a
	 * freed VMA reads (vm_freeptr's role); else in its middle. */
	if (cfg->lock && sim_vma_free_typesafe(cfg->vma_free, cfg->lock)) {
		va.use_freeptr_offset = true;
		va.freeptr_offset = offsetof(struct sim_vma, txn_added);
	}
	vma_tree_slab_args(cfg->tree, &na);
	/* Lazy RCU's limits (one lazy list a CPU for every lazy callback,
	 * locks/sync/rcu_lazy.c), before the caches are sized for them. */
	sim_rcu_lazy_set(cfg->rcu_lazy_max ? cfg->rcu_lazy_max : RCU_LAZY_MAX,
			 cfg->rcu_lazy_flush_ms ? cfg->rcu_lazy_flush_ms * 1000000ULL :
			 RCU_LAZY_FLUSH_NS);
	ret = slab_cache_create(kind, rf, sim_mm_slab_name(SIM_SLAB_VMA),
				(uint32_t)max_vmas(maps), &va, ncpus, vma);
	if (!ret)
		ret = slab_cache_create(kind, rf, sim_mm_slab_name(SIM_SLAB_NODE),
					(uint32_t)max_nodes(maps, node_headroom(cfg,
					ncpus)), &na, ncpus, node);
	/* Tree nodes are kfree_rcu()'d (VMAs are not: typesafe, or call_rcu
	 * of their own callback). */
	if (!ret)
		(*node)->kfree_batch = cfg->kfree_rcu == SIM_KFREE_RCU_BATCH;
	for (int k = 0; !ret && k < 2; k++) {
		struct slab_cache *c = k ? *node : *vma;

		/* call_rcu is lazy under CONFIG_RCU_LAZY, but for SLUB's
		 * --kfree-rcu each (call_rcu_hurry). */
		if (kind == SLAB_SLUB)
			c->cb_lazy = cfg->kfree_rcu != SIM_KFREE_RCU_EACH;
		if (cfg->slab_fast_locked)
			c->fast_rseq = false;
	}
	if (ret) {
		slab_cache_destroy(*vma);
		*vma = NULL;
	}
	return ret;
}

size_t sim_mm_reserve_bytes(const struct sim_mm_cfg *cfg)
{
	size_t maps = cfg->max_map_count ? cfg->max_map_count :
		      SIM_DEFAULT_MAX_MAP_COUNT;

	return cfg->arena_size + (cfg->arena_size >> SIM_PAGE_SHIFT) +
	       vma_tree_reserve_bytes(cfg->tree, max_nodes(maps, node_headroom(cfg,
			(int)sysconf(_SC_NPROCESSORS_CONF)))) +
	       objpool_reserve_bytes(sizeof(struct sim_vma),
				     _Alignof(struct sim_vma), max_vmas(maps));
}

/* Where VMAs come from, and how they are freed (--vma-free). */
static int sim_mm_vmas_init(struct sim_mm *mm)
{
	const struct sim_mm_cfg *cfg = &mm->cfg;
	int ret;

	if (cfg->slab_vma)
		ret = objpool_init_slab(&mm->vmas, sizeof(struct sim_vma),
					_Alignof(struct sim_vma), cfg->slab_vma,
					&mm->sstat, offsetof(struct sim_vma, rcu));
	else
		ret = objpool_init(&mm->vmas, sizeof(struct sim_vma),
				   _Alignof(struct sim_vma),
				   max_vmas(cfg->max_map_count));
	/* SLAB_TYPESAFE_BY_RCU: no zeroing at allocation (a reader with a
	 * stale pointer may be reading the lock words); txn_new sets every
	 * field, as vma_init() does. */
	mm->vma_typesafe = sim_vma_free_typesafe(cfg->vma_free, cfg->lock);
	mm->vmas.typesafe = mm->vma_typesafe;
	return ret;
}

/* The VMA tree (--tree), its nodes from the node cache or a pool. */
static int sim_mm_tree_init(struct sim_mm *mm)
{
	size_t n = max_nodes(mm->cfg.max_map_count, 0);

	mm->cfg.tree = vma_tree_kind_resolve(mm->cfg.tree);
	if (mm->cfg.tree == VMA_TREE_MAPLE)
		return vma_tree_init_maple(&mm->tree, n, mm->cfg.slab_node,
					   &mm->sstat);
	return vma_tree_init_slab(&mm->tree, n, mm->cfg.slab_node, &mm->sstat);
}

static _Atomic uint32_t sim_mm_count = 1;

int sim_mm_create(const struct sim_mm_cfg *cfg, struct sim_mm **out)
{
	struct lock_env env;
	struct sim_mm *mm;
	int ret;

	if (!cfg->lock || !cfg->source || cfg->arena_size < SIM_PAGE_SIZE ||
	    cfg->arena_size % SIM_PAGE_SIZE ||
	    (cfg->vma_free == SIM_VMA_FREE_TYPESAFE && !cfg->lock->vma_typesafe))
		return -EINVAL;
	mm = aligned_alloc(64, sizeof(*mm));
	if (!mm)
		return -ENOMEM;
	memset(mm, 0, sizeof(*mm));
	mm->cfg = *cfg;
	mm->id = ((uint64_t)getpid() << 32) |
		 atomic_fetch_add_explicit(&sim_mm_count, 1, memory_order_relaxed);
	mm->hold_extra_cycles = cfg->hold_extra_ns ?
		(uint64_t)((double)cfg->hold_extra_ns / clock_ns_per_cycle()) : 0;
	sim_costs_ticks(&cfg->costs, mm->cost);
	if (!mm->cfg.max_map_count)
		mm->cfg.max_map_count = SIM_DEFAULT_MAX_MAP_COUNT;
	mm->pidfd = -1;
	ret = slot_array_init(&mm->faults, sizeof(struct sim_fault_slot));
	if (ret) {
		free(mm);
		return ret;
	}
	ret = sim_mm_slab_stat_init(mm);
	if (!ret)
		ret = sim_mm_tree_init(mm);
	if (ret) {
		sim_mm_slab_stat_fini(mm);
		slot_array_destroy(&mm->faults);
		free(mm);
		return ret;
	}
	/* The scheme's policy: who serialises the tree's writers. */
	vma_tree_set_external_lock(&mm->tree, cfg->lock->serialises_writers);
	mm->tree.keep_spares = cfg->tree_spares;
	/* -l kernel: the host does it all; every other scheme: the model. */
	mm->be = cfg->lock->host ? &sim_kernel_backend : &sim_model_backend;
	ret = sim_mm_vmas_init(mm);
	if (!ret)
		ret = mm->be->init(mm);
	if (!ret)
		ret = sim_mm_frames_init(mm);
	if (ret)
		goto err;
	env = (struct lock_env){
		.space_start = mm->base, .space_end = mm->end,
		.mprotect_range = cfg->mprotect_range,
		.anon_retry = cfg->anon_retry,
		.vma_lookup = lookup_for_lock, .vma_covers = covers_for_lock,
		.mmap_guess = sim_mmap_guess,
		.mprotect_span = sim_mprotect_span, .layout_seq = sim_layout_seq,
		.vma_next = next_for_lock, .vma_bounds = bounds_for_lock,
		.arg = mm,
	};
	ret = cfg->lock->create(&env, &mm->lock);
	if (ret)
		goto err;
	mm->be->place(mm);
	ret = mm->be->source(mm);
	if (ret)
		goto err;
	probe_process_madvise(mm);
	/* The RCU callback threads, now rather than in a timed phase. */
	sim_rcu_set_callbacks(cfg->rcu_cbs);
	sim_rcu_prepare();
	*out = mm;
	return 0;
err:
	sim_mm_destroy(mm);
	return ret;
}

void sim_mm_stop_handlers(struct sim_mm *mm)
{
	if (mm->src)
		mm->src->ops->stop(mm->src);
}

void sim_mm_destroy(struct sim_mm *mm)
{
	if (!mm)
		return;
	if (mm->src)
		mm->src->ops->destroy(mm->src);
	if (mm->pidfd >= 0)
		close(mm->pidfd);
	/* Waits for RCU callbacks, which free into our pools. A shared slab
	 * cache gets every VMA back; the mm's own pool goes whole. */
	objpool_rcu_barrier(&mm->vmas);
	vma_tree_destroy(&mm->tree, mm->vmas.slab ? sim_vma_free : NULL);
	objpool_destroy(&mm->vmas);
	sim_mm_slab_stat_fini(mm);
	sim_mm_frames_fini(mm);
	slot_array_destroy(&mm->faults);
	if (mm->lock)
		mm->lock->ops->destroy(mm->lock);
	if (mm->be)
		mm->be->fini(mm);
	free(mm);
}

void sim_mm_fault_counts(const struct sim_mm *mm, uint64_t out[SIM_FAULT_NKINDS])
{
	for (int k = 0; k < SIM_FAULT_NKINDS; k++)
		out[k] = slot_array_sum(&mm->faults, offsetof(struct sim_fault_slot,
							      n) + sizeof(uint64_t) * k);
}

int sim_mm_claim(struct sim_mm *mm, unsigned long start, unsigned long end,
		 int task)
{
	if (!mm->src->ops->claim)
		return 0;
	return mm->src->ops->claim(mm->src, start, end, task);
}

uint64_t sim_mm_fault_pages(const struct sim_mm *mm)
{
	return slot_array_sum(&mm->faults, offsetof(struct sim_fault_slot, pages));
}

void sim_mm_fault_lock_time(const struct sim_mm *mm, uint64_t *wait,
			    uint64_t *hold)
{
	*wait = slot_array_sum(&mm->faults, offsetof(struct sim_fault_slot,
						     lock_wait));
	*hold = slot_array_sum(&mm->faults, offsetof(struct sim_fault_slot,
						     lock_hold));
}

const char *sim_fault_kind_name(enum sim_fault_kind k)
{
	static const char *const names[SIM_FAULT_NKINDS] = {
		"anon_read", "anon_write", "file", "prot", "novma",
	};

	return names[k];
}

void sim_mm_set_brk_base(struct sim_mm *mm, unsigned long addr)
{
	mm->start_brk = addr;
	atomic_store(&mm->brk, addr);
	mm->be->place_heap(mm);
}

static void model_place_heap(struct sim_mm *mm)
{
	(void)mm;                        /* its brk starts from start_brk */
}

static int model_source(struct sim_mm *mm)
{
	return mm->cfg.source->create(mm, mm->cfg.source_opts, &mm->src);
}

/* The model: the VMA tree, the scheme and the fault source, in one arena. */
const struct sim_mm_backend sim_model_backend = {
	.name = "model",
	.arena = true,
	.init = sim_mm_map_arena,
	.fini = sim_mm_unmap_arena,
	.place = sim_mm_place,
	.place_heap = model_place_heap,
	.source = model_source,
	.process_madvise_ok = model_process_madvise_ok,
	.mmap = sim_model_mmap,
	.munmap = sim_model_munmap,
	.mprotect = sim_model_mprotect,
	.madvise = sim_model_madvise,
	.madvise_batch = sim_model_madvise_batch,
	.brk = sim_model_brk,
	.maps_read = sim_model_maps_read,
};
