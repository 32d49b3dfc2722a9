/* SPDX-License-Identifier: MIT */
/*
 * lock_ops — the one interface every lock scheme implements.
 *
 * In the spirit of userspace-rcu's flavor struct: the simulated mm calls
 * through a `const struct lock_ops`, so the scheme is chosen at run time
 * with `--lock NAME`. The list of schemes is locks/schemes.def.
 *
 * Three sides, as in the kernel:
 *  - fault side: fault_begin/fault_end around the handling of one page
 *    fault (lookup, access check, resolve). A scheme that finds the VMA
 *    itself (pervma: lock_vma_under_rcu) returns it; others return NULL
 *    and the caller looks it up under the lock now held. Before the
 *    resolve — which cannot be undone — the caller asks fault_validate()
 *    whether it may go ahead; a scheme may answer -EAGAIN (speculation
 *    failed, or it cannot provide what the resolve needs), and the
 *    caller then ends the attempt and begins again with LOCK_FAULT_RETRY,
 *    as the kernel retries a VM_FAULT_RETRY under mmap_lock.
 *  - write side: write_begin/write_end around an address-space change
 *    (mmap, munmap, mprotect, brk) of [start, end); write_downgrade turns
 *    it into the read side of the same range (mmap_write_downgrade), to
 *    be ended by read_range_end.
 *  - range-read side: read_range_begin/end around an operation that reads
 *    the VMA layout over [start, end) and changes no VMA (madvise,
 *    MAP_POPULATE). LOCK_RANGE_VMA says a per-VMA lock may serve it
 *    (madvise(MADV_DONTNEED) since Linux 6.16); without it the scheme
 *    takes its mm-wide read side (mm_populate() takes mmap_read_lock).
 *
 * A `struct lock_handle` travels from begin to end and records what was
 * actually taken (for pervma: the VMA lock or the mm-lock fallback), plus
 * the acquisition time for hold-time statistics.
 *
 * locks/ knows nothing of the simulated mm: the few things a scheme needs
 * from it (a VMA lookup for pervma) come through `struct lock_env`.
 */
#ifndef VMSIM_LOCK_OPS_H
#define VMSIM_LOCK_OPS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "locks/sync/lockstat.h"
#include "locks/sync/rw_semaphore.h"
#include "base/slots.h"

#define LOCK_MAX_CLASSES 8
#define LOCK_MAX_COUNTERS 24

/* fault_begin flags */
#define LOCK_FAULT_RETRY  0x1    /* a retry: take the mm-wide read side */
#define LOCK_FAULT_KERNEL 0x2    /* a kernel-mode fault (no FAULT_FLAG_USER):
				  * on x86 the per-VMA and speculative paths
				  * are not tried, the mm lock's read side is
				  * taken at once */
/* fault_validate needs */
#define LOCK_NEED_MM      0x1    /* the resolve needs the mm lock's read
				  * side (anon_vma_prepare on a VMA's
				  * first anonymous fault) */
/* read_range_begin flags */
#define LOCK_RANGE_VMA    0x1    /* a per-VMA lock may serve (madvise) */

struct lock_inst;

/*
 * Per-VMA lock state, embedded in every simulated VMA and opaque to the
 * mm: a scheme with per-VMA locks lays out its own state in it (pervma:
 * vm_refcnt and vm_lock_seq, checked by a _Static_assert there).
 */
#define LOCK_VMA_STATE_WORDS 2
struct vma_lock {
	unsigned long state[LOCK_VMA_STATE_WORDS];
};

/* What a lookup found: the VMA, its lock and its range. */
struct lock_vma {
	void *vma;
	struct vma_lock *lock;
	unsigned long start, end;        /* [start, end) */
};

/*
 * What a range scheme write-locks for an mprotect of [start, end)
 * (--mprotect-range; lock_mprotect_begin, locks/mprotect_range.c):
 * exactly [start, end); the whole space, as Bueso's RFC converted
 * mprotect; or the refined range of Kogan, Dice and Issa (EuroSys 2020):
 * every VMA the call may change — those it covers, the one it splits at
 * either end, the neighbours it may merge with — found without the lock,
 * locked, validated with the layout's sequence count, and the whole
 * space if a change hit it meanwhile.
 */
enum lock_mprotect_range {
	LOCK_MPROTECT_EXACT,
	LOCK_MPROTECT_FULL,
	LOCK_MPROTECT_REFINED,
	LOCK_MPROTECT_N
};
extern const char *const lock_mprotect_range_names[LOCK_MPROTECT_N];

struct lock_env {
	unsigned long space_start, space_end;   /* the whole address space */
	enum lock_mprotect_range mprotect_range; /* range schemes' mprotect */
	/* A first private write fault's anon_vma under a VMA lock
	 * (lock_ops.anon_prepare): false, __vmf_anon_prepare() as 6.12
	 * has it tries the mm lock's read side and retries only if it
	 * cannot have it; true, vmf_anon_prepare() as 6.7 introduced it
	 * always retries under the mm lock (--anon-prepare trylock |
	 * retry). */
	bool anon_retry;
	/*
	 * For schemes that look the VMA up themselves (pervma): one walk of
	 * the published tree for the VMA containing addr; false if none.
	 * Called inside an RCU read-side section.
	 */
	bool (*vma_lookup)(void *arg, unsigned long addr, struct lock_vma *out);
	/*
	 * For schemes that lock an mmap's range before it is placed: where
	 * a mapping of len bytes with this hint would go, found in the
	 * published tree without any lock (0 and *out, or -errno).
	 */
	int (*mmap_guess)(void *arg, unsigned long hint, unsigned long len,
			  unsigned long *out);
	/*
	 * After a reference is taken on what vma_lookup found (pervma): does
	 * that VMA still cover [start, end)? lock_vma_under_rcu's check of
	 * vm_start/vm_end once the VMA is locked: with SLAB_TYPESAFE_BY_RCU
	 * VMAs (lock_ops.vma_typesafe) the object may have been freed and
	 * reused for another VMA between the lookup and the reference.
	 */
	bool (*vma_covers)(void *arg, void *vma, unsigned long start,
			   unsigned long end);
	/*
	 * For a refined mprotect of [start, end): [*lo, *hi), the span of
	 * the VMAs it may change (the VMA holding start - 1 and the one
	 * holding end included: split or merged), read from the published
	 * tree without any lock; returns the layout's version it read it
	 * from (as layout_seq, loaded before the walk).
	 */
	unsigned long (*mprotect_span)(void *arg, unsigned long start,
				       unsigned long end, unsigned long *lo,
				       unsigned long *hi);
	/* The layout's version now: it changes with every published change
	 * of the VMA tree (acquire: a reader that sees a version sees the
	 * tree of that version or later). */
	unsigned long (*layout_seq)(void *arg);
	/* For the /proc/PID/maps reader's per-VMA walk (vma_read_next): the
	 * first VMA ending after addr (vma_next(), find_vma()), as
	 * vma_lookup gives one; false if none. Inside an RCU read-side
	 * section, or under the mm lock's read side. */
	bool (*vma_next)(void *arg, unsigned long addr, struct lock_vma *out);
	/* A reference is held on vma: its [*start, *end), or false if the
	 * object is not this mm's VMA (reused by another mm: vma->vm_mm). */
	bool (*vma_bounds)(void *arg, void *vma, unsigned long *start,
			   unsigned long *end);
	void *arg;
};

/* What a begin call took; passed back to the matching end call. The
 * private area holds a scheme's per-acquisition state (a range lock's
 * tree node) so that the fault path need not allocate; range-list does
 * (its list node, one malloc an acquisition, as the series' list-based
 * range lock kmallocs one: docs/fidelity.md). */
struct lock_handle {
	unsigned int taken;              /* scheme-defined: which lock/side */
	void *obj;                       /* scheme-defined: e.g. locked VMA */
	uint64_t t_acquired;             /* ns, for hold time */
	unsigned long priv[12] __attribute__((aligned(16)));
};

struct lock_ops {
	const char *name;
	const char *desc;                /* one line, for `vmsim list` */
	/* Every write side excludes every other (one mm-wide writer at a
	 * time): the VMA tree then takes no lock of its own, as the maple
	 * tree under mmap_lock; schemes whose writers of disjoint ranges run
	 * at once (range) leave the tree its own mutex. */
	bool serialises_writers;
	bool excludes;                   /* provides exclusion (all but none):
					  * the CLI refuses to run a workload
					  * whose writers need it without */
	/*
	 * The fault side never uses a VMA that a writer may free under it:
	 * its readers hold a lock that excludes the writer (rwsem,
	 * range-full), or take the VMA's reference and then revalidate it
	 * (pervma: 6.15's lock_vma_under_rcu). Then VMAs may come from a
	 * SLAB_TYPESAFE_BY_RCU cache, as vm_area_cachep is since 6.15: a
	 * removed VMA is freed at once and may be reused before a grace
	 * period. false (spf: Lespinasse's RCU-freed VMAs; range: a fault's
	 * VMA may be replaced by a writer of another range): VMAs are
	 * freed after a grace period.
	 */
	bool vma_typesafe;
	/* Does the scheme prepare a VMA's anon_vma under the VMA lock
	 * alone (lock_env.anon_retry says how: --anon-prepare)? */
	bool anon_prepare;
	/*
	 * Not a model but the host kernel itself (kernel_lock_ops, `-l
	 * kernel`): the mm hands every address-space call and every touch
	 * to the host (sim/backend.h), whose own mmap_lock and per-VMA locks
	 * are what contends. The scheme's instance has no lock class and
	 * only create and destroy; nothing else of it is ever called.
	 */
	bool host;

	/* Returns 0 and *out, or -errno. */
	int (*create)(const struct lock_env *env, struct lock_inst **out);
	void (*destroy)(struct lock_inst *l);

	/* Returns the VMA when the scheme looked it up, else NULL. flags:
	 * LOCK_FAULT_*. */
	void *(*fault_begin)(struct lock_inst *l, unsigned long addr,
			     unsigned flags, struct lock_handle *h);
	/* May the fault resolve now, given what it needs (LOCK_NEED_*)?
	 * 0, or -EAGAIN to retry with LOCK_FAULT_RETRY. NULL: always 0. */
	int (*fault_validate)(struct lock_inst *l, struct lock_handle *h,
			      unsigned need);
	void (*fault_end)(struct lock_inst *l, struct lock_handle *h);

	void (*write_begin)(struct lock_inst *l, unsigned long start,
			    unsigned long end, struct lock_handle *h);
	void (*write_end)(struct lock_inst *l, struct lock_handle *h);
	/*
	 * The write side for an mmap whose address is not fixed, so not
	 * known before the lock is held. NULL: write_begin over the whole
	 * space, and the mm places the mapping under it. Otherwise the
	 * scheme locks where it expects the mapping (env->mmap_guess) and
	 * returns that address in *guess; the mm places the mapping under
	 * the lock, and if it did not land at *guess, ends the write side
	 * and calls again (a range-locked mmap's revalidation).
	 */
	void (*write_begin_unplaced)(struct lock_inst *l, unsigned long hint,
				     unsigned long len, struct lock_handle *h,
				     unsigned long *guess);
	/* The write side for an mprotect of [start, end), ended by
	 * write_end. NULL: write_begin(start, end). A range scheme locks
	 * what env->mprotect_range says (lock_mprotect_begin). */
	void (*write_begin_mprotect)(struct lock_inst *l, unsigned long start,
				     unsigned long end, struct lock_handle *h);
	/* The write side becomes the read side of the same range; end it
	 * with read_range_end. */
	void (*write_downgrade)(struct lock_inst *l, struct lock_handle *h);

	/* flags: LOCK_RANGE_*. */
	void (*read_range_begin)(struct lock_inst *l, unsigned long start,
				 unsigned long end, unsigned flags,
				 struct lock_handle *h);
	void (*read_range_end)(struct lock_inst *l, struct lock_handle *h);

	/*
	 * The /proc/PID/maps reader's per-VMA walk, as Linux 6.17 reads
	 * maps and answers PROCMAP_QUERY (lock_next_vma(), mm/mmap_lock.c):
	 * the first VMA ending after from, read-locked alone — found under
	 * RCU and locked, or, when that fails, found and locked under the
	 * mm lock's read side, which is dropped at once. Returns the VMA
	 * (end it with vma_read_end) or NULL: no VMA after from. NULL ops:
	 * the scheme has no per-VMA locks, and its readers take the read
	 * side (read_range_begin) a chunk of output at a time, as every
	 * kernel before 6.17 did.
	 */
	void *(*vma_read_next)(struct lock_inst *l, unsigned long from,
			       struct lock_handle *h);
	void (*vma_read_end)(struct lock_inst *l, struct lock_handle *h);

	/*
	 * Per-VMA hooks, called by the simulated mm with the write side
	 * held; NULL for schemes without per-VMA state.
	 * vma_init: a new VMA (attached, write-locked until write_end).
	 * vma_start_write: before a VMA is changed or removed (waits for
	 * its readers). vma_mark_detached: after the removal is published.
	 */
	void (*vma_init)(struct lock_inst *l, struct vma_lock *v);
	void (*vma_start_write)(struct lock_inst *l, struct vma_lock *v);
	void (*vma_mark_detached)(struct lock_inst *l, struct vma_lock *v);

	/* Scheme event counters (e.g. vma_lock_success); returns how many
	 * were filled (at most LOCK_MAX_COUNTERS). May be NULL. */
	int (*counters)(struct lock_inst *l, const char **names,
			uint64_t *values);
	/*
	 * For a scheme whose faults are attempts (a speculative or per-VMA
	 * path that may fail over): the counters that count each attempt
	 * exactly once, as a success (attempt_ok), as a failure retried
	 * under a stronger lock (attempt_retried), or as one that fell back
	 * without a retry (attempt_other). NULL-terminated lists of counter
	 * names; NULL where the scheme has none. The tests check that every
	 * fault handled is one attempt.
	 */
	const char *const *attempt_ok, *const *attempt_retried,
		*const *attempt_other;
};

/* The part of every scheme's instance that the rest of vmsim may read. */
struct lock_inst {
	const struct lock_ops *ops;
	struct lock_env env;
	int nclasses;
	struct lockstat_class *classes[LOCK_MAX_CLASSES];
	/* Faults whose attempt the scheme turned into a retry (validation
	 * failed): counted by the fault path, reported as fault_retry. */
	_Atomic uint64_t fault_retries;
};

static inline void lock_inst_count_retry(struct lock_inst *l)
{
	atomic_fetch_add_explicit(&l->fault_retries, 1, memory_order_relaxed);
}

/* Registry (schemes.c). Each scheme's ops are named in locks/schemes.h,
 * which only what names a particular scheme includes: a new scheme's
 * line in schemes.def rebuilds those, not every user of this header.
 * Named here: the default scheme and the harness's own (vmsim run's
 * defaults, the ceiling's runs). */
extern const struct lock_ops rwsem_lock_ops;
extern const struct lock_ops none_lock_ops;

extern const struct lock_ops *const lock_schemes[];
extern const int lock_nschemes;
/* The host kernel (lock_ops.host): not among lock_schemes, which are the
 * models (every model's test and benchmark iterates them), but a target
 * of a run like them. */
extern const struct lock_ops kernel_lock_ops;

/* Returns the scheme called name (a model, or "kernel"), or NULL. */
const struct lock_ops *lock_scheme_find(const char *name);

/* Helpers for scheme implementations: add a stat class to l; -ENOMEM. */
int lock_inst_add_class(struct lock_inst *l, const char *name,
			struct lockstat_class **out);
void lock_inst_free_classes(struct lock_inst *l);

/*
 * Every scheme's start: l made an instance of ops over env, with n lock
 * classes named names[] (cls[i] each; n 0: none yet). 0, or -ENOMEM with
 * nothing left to undo; lock_inst_fini undoes it (then the scheme frees
 * l). A scheme on the mm-wide rwsem uses lock_mm_init instead.
 */
int lock_inst_init(struct lock_inst *l, const struct lock_ops *ops,
		   const struct lock_env *env, const char *const *names,
		   struct lockstat_class **cls, int n);
void lock_inst_fini(struct lock_inst *l);

/*
 * For the schemes built on the mm-wide rwsem (rwsem, pervma, spf): l
 * made an instance of ops over env, its first lock class "mmap_lock",
 * mmap_lock initialised under it and, with slot_size > 0, one counter
 * slot of slot_size bytes per thread. 0, or -errno with nothing left to
 * undo; lock_mm_fini undoes a success (then the scheme frees l).
 */
int lock_mm_init(struct lock_inst *l, const struct lock_ops *ops,
		 const struct lock_env *env, struct sim_rwsem *mmap_lock,
		 struct slot_array *slots, size_t slot_size);
void lock_mm_fini(struct lock_inst *l, struct sim_rwsem *mmap_lock,
		  struct slot_array *slots);
/* A range scheme's write_begin_unplaced: the range to lock for an mmap
 * of len bytes with hint — where env->mmap_guess expects it (into
 * *guess), or, with no room, the whole space (*guess 0): the mm
 * revalidates under the lock either way. */
void lock_unplaced_range(const struct lock_env *env, unsigned long hint,
			 unsigned long len, unsigned long *guess,
			 unsigned long *start, unsigned long *end);
/*
 * A range scheme's mprotect (its write_begin_mprotect): [start, end)
 * write-locked with lock() as l->env.mprotect_range says — for refined,
 * speculated, validated and, if a concurrent change hit the span, let go
 * with unlock() and the whole space locked instead; counted in m's
 * per-thread slots (no line shared by writers of disjoint ranges).
 */
enum lock_mprotect_counter {
	LOCK_MPROTECT_SPEC,              /* refined attempts */
	LOCK_MPROTECT_SEQ_MOVED,         /* validations that failed: the
					  * layout changed meanwhile */
	LOCK_MPROTECT_FALLBACK,          /* ... and the change hit the span:
					  * the whole space taken */
	LOCK_MPROTECT_NCOUNTERS
};
struct lock_mprotect {
	struct slot_array slots;         /* uint64_t[LOCK_MPROTECT_NCOUNTERS] */
};
typedef void lock_range_fn(struct lock_inst *l, unsigned long start,
			   unsigned long end, struct lock_handle *h);
typedef void lock_unrange_fn(struct lock_inst *l, struct lock_handle *h);
/* 0 or -ENOMEM. */
int lock_mprotect_init(struct lock_mprotect *m);
void lock_mprotect_fini(struct lock_mprotect *m);
void lock_mprotect_begin(struct lock_inst *l, struct lock_mprotect *m,
			 unsigned long start, unsigned long end,
			 struct lock_handle *h, lock_range_fn *lock,
			 lock_unrange_fn *unlock);
/* Its counters into names/values, only where refined (else 0): how
 * many. */
int lock_mprotect_counters(const struct lock_inst *l,
			   const struct lock_mprotect *m, const char **names,
			   uint64_t *values);

/* A scheme's per-thread event counters: n uint64_t from offset off of
 * each slot, summed, named names_in[] — into names/values; returns n. */
int lock_slot_counters(const struct slot_array *slots, size_t off,
		       const char *const *names_in, int n, const char **names,
		       uint64_t *values);

#endif
