/* SPDX-License-Identifier: MIT */
/*
 * sim_mm — one simulated address space: the VMA tree, the lock scheme
 * that protects it, the real arena it lives in, and (in uffd mode) the
 * userfaultfd and handler pool that deliver its page faults.
 *
 * The arena is one large anonymous MAP_NORESERVE mapping, mapped once at
 * creation and never changed afterwards: the host kernel sees one VMA
 * whatever the simulated mm does, so its own mmap_lock stays out of the
 * measurement (sim/host.h counts every real memory call). Simulated
 * protection is made real without it: in uffd mode the arena is
 * registered for MISSING and WP faults — a read-only page is
 * write-protected, and a write to it arrives as a WP fault the handler
 * refuses or resolves; pages of PROT_NONE or unmapped ranges are zapped
 * and every touch of them faults and is refused. In synthetic mode the
 * present map carries the same state.
 */
#ifndef VMSIM_MM_H
#define VMSIM_MM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "locks/lock_ops.h"
#include "sim/costs.h"
#include "sim/fault_source.h"
#include "sim/mem/frames.h"
#include "sim/mem/objpool.h"
#include "sim/vma.h"
#include "sim/vma_tree.h"
#include "base/clock.h"

/* --numa: where the arena's memory and the handlers go (libnuma). */
enum sim_numa {
	SIM_NUMA_DEFAULT,                /* the kernel's policy */
	SIM_NUMA_LOCAL,                  /* this node: memory and handlers */
	SIM_NUMA_INTERLEAVE,             /* memory interleaved over all nodes */
	SIM_NUMA_N
};
/* Their names (--numa), indexed by value. */
extern const char *const sim_numa_names[SIM_NUMA_N];

/* Fault kinds, counted per mm like the kernel's fault statistics. */
enum sim_fault_kind {
	SIM_FAULT_ANON_READ,
	SIM_FAULT_ANON_WRITE,
	SIM_FAULT_FILE,
	SIM_FAULT_PROT,                  /* access the VMA forbids: SIGSEGV */
	SIM_FAULT_NOVMA,                 /* no VMA at the address: SIGSEGV */
	SIM_FAULT_NKINDS
};

struct sim_fault_slot {
	_Atomic uint64_t n[SIM_FAULT_NKINDS];
	_Atomic uint64_t pages;          /* placed by faults */
	/* The fault path's time (cycles_now() units): in the scheme's
	 * fault_begin (waiting for the lock, and the lookup a per-VMA lock
	 * does first), and from there to fault_end's return (held). */
	_Atomic uint64_t lock_wait, lock_hold;
} __attribute__((aligned(64)));

/*
 * Fault-source operations the host refused: a zap (MADV_DONTNEED: the
 * pages may still be there), a write-protect (a protection not
 * enforced), the signal that answers a refused access, a wake. The
 * kernel's own never fail; here each is counted and reported with the
 * first error, never passed over.
 */
enum sim_src_op { SIM_SRC_ZAP, SIM_SRC_PROTECT, SIM_SRC_REFUSE, SIM_SRC_WAKE,
		  SIM_SRC_NOPS };

struct sim_src_errors {
	_Atomic uint64_t n[SIM_SRC_NOPS];
	_Atomic int first[SIM_SRC_NOPS];         /* errno of the first */
};

const char *sim_src_op_name(enum sim_src_op op);

struct sim_mm_cfg {
	const struct lock_ops *lock;
	size_t arena_size;               /* bytes of simulated address space */
	const struct fault_source_ops *source;   /* sim/faults/sources.h */
	const void *source_opts;         /* its options (the uffd source's:
					  * sim/faults/uffd_source.h); NULL */
	size_t max_map_count;            /* like vm.max_map_count */
	/* An anonymous write fault places a naturally aligned folio of this
	 * size where one fits (mTHP/THP); a file read fault maps this much
	 * around the address (fault_around_bytes). Bytes, powers of two
	 * from a page to 2 MiB; 0: a page. */
	size_t folio_size, fault_around;
	/* Simulated physical memory (shared by the run's mms), or NULL:
	 * pages cost no frames. */
	struct frames *frames;
	/* Slab caches (shared by the run's mms) VMAs and tree nodes come
	 * from, or NULL: the mm's own pools (--slab malloc). */
	struct slab_cache *slab_vma, *slab_node;
	enum sim_numa numa;
	/* --hold-extra: ns of busy work added inside every critical section
	 * the scheme opens (fault, write and range-read sides), right after
	 * its begin: "what if the tree walk were slower?"; 0: none. */
	uint64_t hold_extra_ns;
	/* --costs: what each operation class pays beyond the model's own
	 * work, to cost what the host kernel's does (sim/costs.h); .on
	 * false: nothing. */
	struct sim_costs costs;
	/* --vma-free: how removed VMAs are freed — as the scheme's kernel
	 * does (typesafe where lock_ops.vma_typesafe, else after a grace
	 * period), at once from a SLAB_TYPESAFE_BY_RCU cache (6.15+; only
	 * where the scheme allows it: sim_mm_create fails with -EINVAL
	 * otherwise), or by call_rcu after a grace period (6.4-6.14). */
	enum sim_vma_free { SIM_VMA_FREE_SCHEME, SIM_VMA_FREE_TYPESAFE,
			    SIM_VMA_FREE_RCU, SIM_VMA_FREE_N } vma_free;
	/* --kfree-rcu: how SLUB frees tree nodes after a grace period —
	 * call_rcu(mt_free_rcu) a node, lazy (the kernel before the sheaves
	 * series: ma_free_rcu), kvfree_rcu's bulk arrays (batch), or a
	 * callback a node at once (each: call_rcu_hurry). */
	enum sim_kfree_rcu { SIM_KFREE_RCU_CALL, SIM_KFREE_RCU_BATCH,
			     SIM_KFREE_RCU_EACH, SIM_KFREE_RCU_N } kfree_rcu;
	/* --rcu-callbacks: where RCU callbacks run (locks/sync/rcu.h); one
	 * setting a process (sim_mm_create applies it). */
	enum sim_rcu_cbs rcu_cbs;
	/* --rcu-lazy-max, --rcu-lazy-flush: lazy RCU's count cap and time
	 * threshold for rcu_free sheaves; 0: the kernel's (RCU_LAZY_MAX,
	 * RCU_LAZY_FLUSH_NS). */
	uint32_t rcu_lazy_max;
	uint64_t rcu_lazy_flush_ms;
	/* --tree-alloc spare: tree nodes from a reserve kept across
	 * transactions, no detached tree on munmap (vma_tree.keep_spares);
	 * false: per store, as the maple tree allocates. */
	bool tree_spares;
	/* --tree: the kernel's maple tree (the default where it was built)
	 * or vmsim's own B-tree. */
	enum vma_tree_kind tree;
	/* --slab-fastpath lock: the slab fast paths under the CPU's lock,
	 * not in restartable sequences (slab_rseq.h) where those can run. */
	bool slab_fast_locked;
	/* --mprotect-range: what a range scheme write-locks for mprotect
	 * (lock_env.mprotect_range); exact (0) by default. */
	enum lock_mprotect_range mprotect_range;
	/* lock_env.anon_retry (--anon-prepare retry). */
	bool anon_retry;
};

struct sim_native;
struct sim_mm_backend;

struct sim_mm {
	struct sim_mm_cfg cfg;
	/* What backs it: the model, or the host kernel (cfg.lock->host:
	 * every call and touch goes to it and the tree stays empty);
	 * sim/backend.h. */
	const struct sim_mm_backend *be;
	struct sim_native *native;
	unsigned long base, end;         /* the arena: [base, end) */
	struct vma_tree tree;
	struct lock_inst *lock;
	struct objpool vmas;             /* where VMAs come from */
	uint64_t id;                     /* unique among live mms: pid, count */
	/* Removed VMAs are freed at once (SLAB_TYPESAFE_BY_RCU), not after
	 * a grace period: cfg.vma_free settled against the scheme. */
	bool vma_typesafe;
	struct fault_source *src;        /* where faults come from */
	int pidfd;                       /* for process_madvise on ourselves */
	bool process_madvise_ok;         /* it zaps our own pages (6.13+) */
	struct slot_array faults;        /* struct sim_fault_slot */
	/* With frames: this process's zone/pcp lock classes, and each arena
	 * page's frame + 1 (0: none). */
	struct frames_stat fstat;
	struct slab_stat sstat;          /* with slabs: their lock classes */
	_Atomic uint32_t *page_frame;
	_Atomic uint64_t map_pages;      /* pages in VMAs */
	_Atomic uint64_t populated;      /* pages placed by MAP_POPULATE */
	/* Acquisitions of the scheme's first lock class (the mm-wide one)
	 * by a workload's own teardown between passes (replay's return to
	 * an empty mm), read and write: no recorded program made them, so
	 * a comparison with the host leaves them out. */
	_Atomic uint64_t untimed_lock[2];
	struct sim_src_errors src_err;
	uint64_t hold_extra_cycles;      /* cfg.hold_extra_ns, in cycles */
	struct sim_op_ticks cost[SIM_COST_NOPS];   /* cfg.costs, in ticks */
	unsigned long start_brk;
	/* The break; changed only inside a tree transaction (the tree's
	 * mutex), read locklessly by range-locked mmap's gap search. */
	_Atomic unsigned long brk;
} __attribute__((aligned(64)));   /* aligned_alloc: a multiple of 64 */

#define SIM_DEFAULT_ARENA (16UL << 30)
#define SIM_DEFAULT_MAX_MAP_COUNT 65530
#define SIM_DEFAULT_FAULT_AROUND (64UL << 10)    /* the kernel's */

/* The address space sim_mm_create() reserves for cfg (the arena, its
 * page map, the VMA and tree-node pools), so that a run can be checked
 * against `ulimit -v` before it starts. */
size_t sim_mm_reserve_bytes(const struct sim_mm_cfg *cfg);

/* The two slab caches, in results in this order. */
enum sim_slab_cache { SIM_SLAB_VMA, SIM_SLAB_NODE, SIM_NSLABS };
/* "vm_area_struct", "vt_node": the cache's name, as results give it. */
const char *sim_mm_slab_name(enum sim_slab_cache c);
const char *sim_kfree_rcu_name(enum sim_kfree_rcu k);
/* The names of --vma-free's and --kfree-rcu's values, indexed by value. */
extern const char *const sim_vma_free_names[SIM_VMA_FREE_N];
extern const char *const sim_kfree_rcu_names[SIM_KFREE_RCU_N];
/* "scheme", "typesafe", "rcu" (--vma-free). */
const char *sim_vma_free_name(enum sim_vma_free f);
/* --vma-free f settled against the scheme: are its VMAs typesafe? */
bool sim_vma_free_typesafe(enum sim_vma_free f, const struct lock_ops *lock);

/* The slab caches for cfg's mms (kind slub or sheaves; malloc: none),
 * to be set as cfg->slab_vma and slab_node; shared by forked processes.
 * 0 or -errno. */
int sim_mm_slabs_create(const struct sim_mm_cfg *cfg, enum slab_kind kind,
			enum slab_rcu_free rf, int ncpus,
			struct slab_cache **vma, struct slab_cache **node);

/* Create an mm: arena, lock, fault source (cfg->source: in uffd mode the
 * fd and handler pool). Returns 0 and *out or -errno (-EPERM etc. from
 * userfaultfd). */
int sim_mm_create(const struct sim_mm_cfg *cfg, struct sim_mm **out);
/* Stop handlers, unmap the arena, free every VMA. Safe on NULL. */
void sim_mm_destroy(struct sim_mm *mm);
/* Stop the fault source's handlers now (their counters are final). */
void sim_mm_stop_handlers(struct sim_mm *mm);

/* Frames (sim/mm_frames.c; no-ops without them). A fault takes a block
 * of 2^order frames with its own reference (FRAME_NIL: none to be had,
 * or no frames); each page it places maps one of them; then the fault
 * drops its reference. A zap unmaps the pages of a range. */
int sim_mm_frames_init(struct sim_mm *mm);
void sim_mm_frames_fini(struct sim_mm *mm);
uint32_t sim_mm_frames_alloc(struct sim_mm *mm, int order);
void sim_mm_frames_done(struct sim_mm *mm, uint32_t frame);
void sim_mm_map_frame(struct sim_mm *mm, unsigned long addr, uint32_t frame);
void sim_mm_unmap_frames(struct sim_mm *mm, unsigned long start,
			 unsigned long end);
/* After MAP_POPULATE of private memory: a frame for every page of
 * [start, end) that has none. */
void sim_mm_populate_frames(struct sim_mm *mm, unsigned long start,
			    unsigned long end);

/* Set-up only: [start, end), not yet populated, is task's own (its
 * faults reach task's uffd where each task has one). 0 or -errno. */
int sim_mm_claim(struct sim_mm *mm, unsigned long start, unsigned long end,
		 int task);

/* Set-up only: the heap starts at addr (page-aligned, inside the arena,
 * no VMA there yet), as a program's break starts after its image. */
void sim_mm_set_brk_base(struct sim_mm *mm, unsigned long addr);

/* Can this kernel process_madvise(MADV_DONTNEED) our own pages? (6.13+) */
bool sim_process_madvise_self_ok(void);

/* Sum of the per-slot fault counters. */
void sim_mm_fault_counts(const struct sim_mm *mm, uint64_t out[SIM_FAULT_NKINDS]);
/* Pages placed by faults (a folio's or fault-around's: several a fault). */
uint64_t sim_mm_fault_pages(const struct sim_mm *mm);
/* Sum of the fault path's lock wait and hold (cycles_now() units). */
void sim_mm_fault_lock_time(const struct sim_mm *mm, uint64_t *wait,
			    uint64_t *hold);
/* The fault source's counter called name (exact once stopped), or 0
 * where it has none. */
uint64_t sim_mm_source_counter(const struct sim_mm *mm, const char *name);
/* --hold-extra's busy work, inside the section just begun: the CPU spins
 * (no sleep, no syscall) as a longer tree walk would. */
static inline void sim_mm_hold_extra(const struct sim_mm *mm)
{
	sim_cost_spin(mm->hold_extra_cycles);
}

/* --costs: what operation class op pays outside its lock (before it),
 * inside the section it just opened, and after its downgrade. */
static inline void sim_mm_cost_out(const struct sim_mm *mm, enum sim_cost_op op)
{
	if (mm->cost[op].syscall)
		sim_cost_syscall();
	sim_cost_spin(mm->cost[op].out);
}

static inline void sim_mm_cost_in(const struct sim_mm *mm, enum sim_cost_op op)
{
	sim_cost_spin(mm->cost[op].in);
}

static inline void sim_mm_cost_down(const struct sim_mm *mm, enum sim_cost_op op)
{
	sim_cost_spin(mm->cost[op].down);
}

/* A fault-source operation failed with -err (err < 0; 0: nothing). */
static inline void sim_mm_src_failed(struct sim_mm *mm, enum sim_src_op op,
				     int err)
{
	int none = 0;

	if (!err)
		return;
	atomic_fetch_add_explicit(&mm->src_err.n[op], 1, memory_order_relaxed);
	atomic_compare_exchange_strong_explicit(&mm->src_err.first[op], &none,
						-err, memory_order_relaxed,
						memory_order_relaxed);
}

/* Resident pages (placed by faults, not yet zapped). */
uint64_t sim_mm_resident(const struct sim_mm *mm);
/* Zap the real pages of [start, end) and forget them. */
void sim_mm_zap(struct sim_mm *mm, unsigned long start, unsigned long end);
/* Make the pages of [start, end) obey vm_flags' access bits (a changed
 * protection; the caller holds the write side): no access zaps them,
 * read-only write-protects them, writable lifts that. */
void sim_mm_protect(struct sim_mm *mm, unsigned long start, unsigned long end,
		    unsigned long vm_flags);
/* Forget the pages of [start, end) (their real zap is done by the caller,
 * e.g. one process_madvise for many ranges). */
void sim_mm_forget(struct sim_mm *mm, unsigned long start, unsigned long end);
const char *sim_fault_kind_name(enum sim_fault_kind k);

/* One fault, done: its kind, the pages it placed, its time waiting for
 * and holding the fault-side lock — one slot, one cache line. */
static inline void sim_mm_count_fault(struct sim_mm *mm, enum sim_fault_kind k,
				      unsigned pages, uint64_t wait,
				      uint64_t hold)
{
	struct sim_fault_slot *s = slot_mine(&mm->faults);

	atomic_fetch_add_explicit(&s->n[k], 1, memory_order_relaxed);
	if (pages)
		atomic_fetch_add_explicit(&s->pages, pages, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->lock_wait, wait, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->lock_hold, hold, memory_order_relaxed);
}

#endif
