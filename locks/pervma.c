/* SPDX-License-Identifier: MIT */
/*
 * pervma — per-VMA locks as in Linux 6.15 and later (the vm_refcnt
 * variant; 6.4–6.14 used a per-VMA rw_semaphore for the same protocol).
 *
 * State: the mm rwsem (mmap_lock) with a sequence count mm_lock_seq that
 * is odd while the mm is write-locked; in every VMA (struct vma_lock)
 * vm_refcnt (0 detached, 1 attached, +1 per reader, +VMA_LOCK_OFFSET
 * while a writer waits for readers to drain) and vm_lock_seq.
 *
 * Reader path (lock_vma_under_rcu + vma_start_read), per fault:
 *   under RCU, one walk of the tree (mas_walk); if vm_lock_seq equals
 *   mm_lock_seq the VMA is write-locked: give up. Otherwise take a
 *   reference unless the count is 0 (detached: the VMA was replaced —
 *   count vma_lock_miss and look up again) or at least VMA_REF_LIMIT (a
 *   writer is draining readers); then re-check vm_lock_seq (a writer may
 *   have locked it between the check and the reference), and check
 *   that the VMA locked still covers the address (VMAs are
 *   SLAB_TYPESAFE_BY_RCU: freed at once, the object may be a new VMA
 *   now; vma_lock_reused counts those, which fall back). Success: the
 *   fault is handled holding only the VMA's reference, and counted
 *   vma_lock_success at the end. Any failure counts vma_lock_abort and
 *   falls back to mmap_read_lock + lookup, as the kernel does.
 *   A fault that needs the mm lock (the first anonymous fault of a VMA
 *   with no anon_vma: __vmf_anon_prepare) tries mmap_read_trylock under
 *   the VMA lock; if that fails it drops the VMA lock, counts
 *   vma_lock_retry and is retried under mmap_read_lock.
 * madvise(MADV_DONTNEED) of a range inside one VMA takes that VMA's lock
 *   (Linux 6.16); MAP_POPULATE takes mmap_read_lock (__mm_populate).
 * Writer path: mmap_write_lock (mm_lock_seq becomes odd); every VMA that
 *   will be changed or removed is vma_start_write()n: add VMA_LOCK_OFFSET
 *   (new readers now fail), wait until only the writer's share is left,
 *   set vm_lock_seq = mm_lock_seq, drop the offset. Removed VMAs are
 *   detached after the change is published (refcount to 0, waiting out
 *   readers that took a reference before seeing the lock) and freed after
 *   an RCU grace period. mmap_write_unlock makes mm_lock_seq even again,
 *   which unlocks every VMA locked in that cycle at once; so does
 *   mmap_write_downgrade (vma_end_write_all, then downgrade_write).
 *
 * Invariants: a VMA being changed has no reader (vma_start_write waited);
 * a reader never holds a reference on a detached VMA; a write-locked VMA
 * stays locked until mmap_write_unlock.
 *
 * Source: include/linux/mmap_lock.h, mm/mmap_lock.c (lock_vma_under_rcu,
 * vma_start_read, __vma_start_write, vma_mark_detached), Linux 6.15.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/debug.h"
#include "locks/sync/futex.h"
#include "base/container.h"
#include "locks/lock_ops.h"
#include "locks/sync/rcu.h"
#include "locks/sync/rw_semaphore.h"

/* This file's scheme (defined at its end; locks/schemes.def names it). */
extern const struct lock_ops pervma_lock_ops;

#define VMA_LOCK_OFFSET 0x40000000
#define VMA_REF_LIMIT   (VMA_LOCK_OFFSET - 1)

enum { PV_TAKEN_VMA = 1, PV_TAKEN_MM = 2, PV_TAKEN_VMA_RETRY = 3 };
enum { PV_SUCCESS, PV_ABORT, PV_RETRY, PV_MISS, PV_REUSED, PV_KERNEL,
       /* the maps reader's walk (pv_vma_read_next) */
       PV_MAPS_OK, PV_MAPS_MISS, PV_MAPS_LOCKED, PV_MAPS_MOVED,
       PV_NCOUNTERS };
enum pv_read { PV_READ_OK, PV_READ_LOCKED, PV_READ_DETACHED };

struct pv_slot {
	_Atomic uint64_t n[PV_NCOUNTERS];
} __attribute__((aligned(64)));

struct pervma_lock {
	struct lock_inst base;
	struct sim_rwsem mmap_lock;
	_Atomic unsigned mm_lock_seq;    /* odd while write-locked */
	struct lockstat_class *vma_cls;
	struct slot_array slots;         /* struct pv_slot */
} __attribute__((aligned(64)));      /* aligned_alloc: a multiple of 64 */

#define to_pv(l) container_of(l, struct pervma_lock, base)

/* Our layout of a VMA's opaque lock state (struct vma_lock). */
struct pv_vma {
	_Atomic int refcnt;              /* 0 detached, 1 attached, +1 a reader,
					  * +VMA_LOCK_OFFSET a writer draining */
	_Atomic unsigned lock_seq;       /* == mm_lock_seq: write-locked */
};

_Static_assert(sizeof(struct pv_vma) <= sizeof(struct vma_lock) &&
	       _Alignof(struct pv_vma) <= _Alignof(struct vma_lock),
	       "pervma's VMA state must fit in struct vma_lock");

static struct pv_vma *pvv(struct vma_lock *lk)
{
	return (struct pv_vma *)lk;
}

static void pv_count(struct pervma_lock *pv, int what)
{
	struct pv_slot *sl = slot_mine(&pv->slots);

	atomic_fetch_add_explicit(&sl->n[what], 1,
				  memory_order_relaxed);
}

/* --- reader side --------------------------------------------------------- */

static void vma_end_read(struct pv_vma *v)
{
	/* Release (seq_cst RMW): the fault's work happens-before the
	 * writer's change, which waits for this count to drop. */
	int left = atomic_fetch_sub(&v->refcnt, 1) - 1;

	SIM_WARN_ON(left < 0);           /* a reference it never took */
	if (left >= VMA_LOCK_OFFSET)     /* a writer is waiting for us */
		futex_wake(&v->refcnt, 1);
}

/* A reader's reference, unless the VMA is detached (0) or a writer holds
 * or drains it (VMA_REF_LIMIT and above): __refcount_inc_not_zero_limited. */
static enum pv_read vma_ref_get(struct pv_vma *v)
{
	int old = atomic_load_explicit(&v->refcnt, memory_order_relaxed);

	do {
		if (!old)
			return PV_READ_DETACHED;
		if (old >= VMA_REF_LIMIT)
			return PV_READ_LOCKED;
		/* Acquire: pairs with the writer's release of the offset, so
		 * the vm_lock_seq it stored is visible to the re-check. */
	} while (!atomic_compare_exchange_weak_explicit(&v->refcnt, &old, old + 1,
			memory_order_seq_cst, memory_order_relaxed));
	return PV_READ_OK;
}

static enum pv_read vma_start_read(struct pervma_lock *pv, struct pv_vma *v)
{
	unsigned seq = atomic_load_explicit(&pv->mm_lock_seq, memory_order_acquire);
	enum pv_read r;

	if (atomic_load_explicit(&v->lock_seq, memory_order_relaxed) == seq)
		return PV_READ_LOCKED;
	r = vma_ref_get(v);
	if (r != PV_READ_OK)
		return r;
	if (atomic_load(&v->lock_seq) == atomic_load(&pv->mm_lock_seq)) {
		vma_end_read(v);
		return PV_READ_LOCKED;
	}
	return PV_READ_OK;
}

/* A VMA read-locked (its reference taken): what h says from now on. */
static void pv_hold_vma(struct pervma_lock *pv, struct lock_handle *h,
			struct pv_vma *v)
{
	h->taken = PV_TAKEN_VMA;
	h->obj = v;
	h->t_acquired = lockstat_now();
	lockstat_acquired(pv->vma_cls, LS_READ, false, 0);
}

/*
 * lock_vma_under_rcu() for [start, end): the VMA holding all of it, read-
 * locked, or NULL (then the caller falls back to the mm lock). One walk
 * of the tree. A VMA found detached was replaced under us: look again
 * (vma_lock_miss when counting, as the fault path does).
 */
static void *lock_vma_under_rcu(struct pervma_lock *pv, unsigned long start,
				unsigned long end, struct lock_handle *h,
				bool count)
{
	struct lock_inst *l = &pv->base;

	for (;;) {
		enum pv_read r = PV_READ_LOCKED;
		struct lock_vma f;

		sim_rcu_read_lock();
		if (l->env.vma_lookup(l->env.arg, start, &f) && end <= f.end)
			r = vma_start_read(pv, pvv(f.lock));
		/* The VMA we locked must be the one we looked up: with typesafe
		 * VMAs it may have been freed and reused since (6.15: "Check if
		 * the vma we locked is the right one"; a miss falls back). */
		if (r == PV_READ_OK &&
		    !l->env.vma_covers(l->env.arg, f.vma, start, end)) {
			vma_end_read(pvv(f.lock));
			pv_count(pv, PV_REUSED);
			r = PV_READ_LOCKED;
		}
		sim_rcu_read_unlock();
		if (r == PV_READ_OK) {
			pv_hold_vma(pv, h, pvv(f.lock));
			return f.vma;
		}
		if (r != PV_READ_DETACHED)
			return NULL;
		if (count)
			pv_count(pv, PV_MISS);
	}
}

/* Release what lock_vma_under_rcu() or the fallback took. */
static void pv_read_end(struct pervma_lock *pv, struct lock_handle *h)
{
	if (h->taken == PV_TAKEN_VMA || h->taken == PV_TAKEN_VMA_RETRY) {
		lockstat_released(pv->vma_cls, LS_READ,
				  lockstat_now() - h->t_acquired);
		vma_end_read(h->obj);
	} else {
		sim_up_read(&pv->mmap_lock, h->t_acquired);
	}
}

static void *pv_fault_begin(struct lock_inst *l, unsigned long addr,
			    unsigned flags, struct lock_handle *h)
{
	struct pervma_lock *pv = to_pv(l);
	void *vma = NULL;

	/* A retry goes straight to mmap_read_lock (lock_mm_and_find_vma);
	 * so does a kernel-mode fault, never tried under a VMA lock on x86
	 * (do_user_addr_fault: no FAULT_FLAG_USER, "goto lock_mmap"). */
	if (!(flags & (LOCK_FAULT_RETRY | LOCK_FAULT_KERNEL))) {
		vma = lock_vma_under_rcu(pv, addr, addr + 1, h, true);
		if (vma)
			return vma;
		pv_count(pv, PV_ABORT);
	} else if (!(flags & LOCK_FAULT_RETRY)) {
		pv_count(pv, PV_KERNEL);
	}
	h->taken = PV_TAKEN_MM;
	h->t_acquired = sim_down_read(&pv->mmap_lock);
	return NULL;
}

/*
 * __vmf_anon_prepare() under the VMA lock: the mm lock's read side is
 * needed, by trylock only; if it cannot be had, VM_FAULT_RETRY. With
 * env.anon_retry (--anon-prepare retry), vmf_anon_prepare() as 6.7
 * introduced it: VM_FAULT_RETRY without trying.
 */
static int pv_fault_validate(struct lock_inst *l, struct lock_handle *h,
			     unsigned need)
{
	struct pervma_lock *pv = to_pv(l);
	uint64_t t;

	if (h->taken != PV_TAKEN_VMA || !(need & LOCK_NEED_MM))
		return 0;
	if (!l->env.anon_retry && sim_down_read_trylock(&pv->mmap_lock, &t)) {
		sim_up_read(&pv->mmap_lock, t);
		return 0;
	}
	h->taken = PV_TAKEN_VMA_RETRY;
	pv_count(pv, PV_RETRY);
	return -EAGAIN;
}

static void pv_fault_end(struct lock_inst *l, struct lock_handle *h)
{
	struct pervma_lock *pv = to_pv(l);

	if (h->taken == PV_TAKEN_VMA)
		pv_count(pv, PV_SUCCESS);
	pv_read_end(pv, h);
}

/* --- writer side --------------------------------------------------------- */

static void pv_write_begin(struct lock_inst *l, unsigned long start,
			   unsigned long end, struct lock_handle *h)
{
	struct pervma_lock *pv = to_pv(l);

	h->t_acquired = sim_down_write(&pv->mmap_lock);
	/* mmap_write_lock: the sequence turns odd. */
	atomic_fetch_add_explicit(&pv->mm_lock_seq, 1, memory_order_seq_cst);
}

static void pv_write_end(struct lock_inst *l, struct lock_handle *h)
{
	struct pervma_lock *pv = to_pv(l);

	/* vma_end_write_all: even again; every VMA write-locked in this
	 * cycle is unlocked at once. Release: our changes happen-before a
	 * reader that sees the new sequence. */
	atomic_fetch_add_explicit(&pv->mm_lock_seq, 1, memory_order_release);
	sim_up_write(&pv->mmap_lock, h->t_acquired);
}

/* mmap_write_downgrade(): vma_end_write_all(), then downgrade_write(). */
static void pv_write_downgrade(struct lock_inst *l, struct lock_handle *h)
{
	struct pervma_lock *pv = to_pv(l);

	/* Release: as in pv_write_end(). */
	atomic_fetch_add_explicit(&pv->mm_lock_seq, 1, memory_order_release);
	h->t_acquired = sim_downgrade_write(&pv->mmap_lock, h->t_acquired);
	h->taken = PV_TAKEN_MM;
}

/*
 * The read side: for madvise (LOCK_RANGE_VMA), as Linux 6.16 does for
 * MADV_DONTNEED (try_vma_read_lock()), a range inside one VMA is handled
 * under that VMA's read lock; anything else, and MAP_POPULATE
 * (__mm_populate), takes mmap_read_lock.
 */
static void pv_read_range_begin(struct lock_inst *l, unsigned long start,
				unsigned long end, unsigned flags,
				struct lock_handle *h)
{
	struct pervma_lock *pv = to_pv(l);

	if ((flags & LOCK_RANGE_VMA) &&
	    lock_vma_under_rcu(pv, start, end, h, false))
		return;
	h->taken = PV_TAKEN_MM;
	h->t_acquired = sim_down_read(&pv->mmap_lock);
}

static void pv_read_range_end(struct lock_inst *l, struct lock_handle *h)
{
	pv_read_end(to_pv(l), h);
}

/*
 * lock_next_vma() as Linux 6.17 has it (mm/mmap_lock.c), for the
 * /proc/PID/maps reader and PROCMAP_QUERY: the first VMA ending after
 * from, read-locked. Under RCU: note whether the mm is write-locked and
 * its sequence (mmap_lock_speculate_try_begin), find the VMA, take its
 * read lock — a detached VMA was replaced: look again (maps_vma_miss).
 * Then fall back to the mm lock (maps_fallback_locked) if the VMA is
 * write-locked, and (maps_fallback_moved) if the VMA locked ends at or
 * before from (it shrank), or starts after from while the layout may
 * have changed since the lookup and a second lookup does not find it
 * again (another VMA was put before it: the walk would show a gap that
 * never was). The fallback (lock_next_vma_under_mmap_lock) takes
 * mmap_read_lock, finds the VMA again, takes its read lock — no writer
 * can hold it now — and drops mmap_read_lock at once.
 */
static void *pv_vma_read_next(struct lock_inst *l, unsigned long from,
			      struct lock_handle *h)
{
	struct pervma_lock *pv = to_pv(l);
	enum pv_read r;
	struct lock_vma f;
	unsigned long s = 0, e = 0;
	unsigned seq;
	void *vma = NULL;
	uint64_t t;
	int cause = PV_MAPS_MOVED;

	sim_rcu_read_lock();
	for (;;) {
		seq = atomic_load_explicit(&pv->mm_lock_seq, memory_order_acquire);
		if (!l->env.vma_next(l->env.arg, from, &f)) {
			sim_rcu_read_unlock();
			return NULL;
		}
		r = vma_start_read(pv, pvv(f.lock));
		if (r != PV_READ_DETACHED)
			break;
		pv_count(pv, PV_MAPS_MISS);
	}
	if (r != PV_READ_OK) {
		cause = PV_MAPS_LOCKED;
		goto fallback;
	}
	/* vma_start_read()'s vm_mm check: a typesafe VMA reused by another
	 * mm is let go, and the walk falls back. */
	if (!l->env.vma_bounds(l->env.arg, f.vma, &s, &e)) {
		cause = PV_MAPS_LOCKED;
		goto fallback_unlock;
	}
	if (from >= e)
		goto fallback_unlock;
	if (from < s && ((seq & 1) ||
	    seq != atomic_load_explicit(&pv->mm_lock_seq, memory_order_acquire))) {
		struct lock_vma g;

		if (!l->env.vma_next(l->env.arg, from, &g) || g.vma != f.vma)
			goto fallback_unlock;
	}
	sim_rcu_read_unlock();
	pv_count(pv, PV_MAPS_OK);
	pv_hold_vma(pv, h, pvv(f.lock));
	return f.vma;

fallback_unlock:
	vma_end_read(pvv(f.lock));
fallback:
	sim_rcu_read_unlock();
	pv_count(pv, cause);
	t = sim_down_read(&pv->mmap_lock);
	sim_rcu_read_lock();
	/* vma_start_read_locked(): no writer can hold it now; only a count
	 * at its limit refuses (the kernel then reads on under mmap_lock;
	 * vmsim's counts never come near it: docs/fidelity.md). */
	if (l->env.vma_next(l->env.arg, from, &f) &&
	    vma_ref_get(pvv(f.lock)) == PV_READ_OK)
		vma = f.vma;
	sim_rcu_read_unlock();
	sim_up_read(&pv->mmap_lock, t);
	if (vma)
		pv_hold_vma(pv, h, pvv(f.lock));
	return vma;
}

static void pv_vma_read_end(struct lock_inst *l, struct lock_handle *h)
{
	pv_read_end(to_pv(l), h);
}

/* Wait until the reference count is exactly want (readers drained). */
static bool pv_wait_refs(struct pv_vma *v, int want)
{
	bool waited = false;
	int c;

	while ((c = atomic_load(&v->refcnt)) != want) {
		futex_wait(&v->refcnt, c);
		waited = true;
	}
	return waited;
}

static void pv_vma_init(struct lock_inst *l, struct vma_lock *lk)
{
	struct pv_vma *v = pvv(lk);

	/* A new VMA is attached and write-locked until mmap_write_unlock.
	 * Atomic stores, the count last and with release (vma_mark_attached's
	 * refcount_set_release): with typesafe VMAs a reader holding a stale
	 * pointer may be reading both, and one whose reference succeeds must
	 * see the new VMA's fields, written before this. */
	atomic_store_explicit(&v->lock_seq,
		atomic_load_explicit(&to_pv(l)->mm_lock_seq, memory_order_relaxed),
		memory_order_relaxed);
	atomic_store_explicit(&v->refcnt, 1, memory_order_release);
}

static void pv_vma_start_write(struct lock_inst *l, struct vma_lock *lk)
{
	struct pv_vma *v = pvv(lk);
	struct pervma_lock *pv = to_pv(l);
	unsigned seq = atomic_load_explicit(&pv->mm_lock_seq, memory_order_relaxed);
	uint64_t t0, t1;
	bool waited;

	/* __vma_start_write: mmap_assert_write_locked(vma->vm_mm) */
	SIM_WARN_ON(!sim_rwsem_is_write_locked(&pv->mmap_lock));
	if (atomic_load_explicit(&v->lock_seq, memory_order_relaxed) == seq)
		return;                  /* already locked in this cycle */
	t0 = lockstat_now();
	atomic_fetch_add(&v->refcnt, VMA_LOCK_OFFSET);
	waited = pv_wait_refs(v, VMA_LOCK_OFFSET + 1);
	atomic_store_explicit(&v->lock_seq, seq, memory_order_relaxed);
	/* Release (seq_cst RMW): the lock_seq store is visible to a reader
	 * whose reference RMW comes after this one. */
	atomic_fetch_sub(&v->refcnt, VMA_LOCK_OFFSET);
	t1 = lockstat_now();
	lockstat_acquired(pv->vma_cls, LS_WRITE, waited, t1 - t0);
	lockstat_released(pv->vma_cls, LS_WRITE, 0);
}

static void pv_vma_mark_detached(struct lock_inst *l, struct vma_lock *lk)
{
	struct pv_vma *v = pvv(lk);

	/* vma_assert_write_locked() (its mmap_assert_write_locked first),
	 * vma_assert_attached() */
	SIM_WARN_ON(!sim_rwsem_is_write_locked(&to_pv(l)->mmap_lock));
	SIM_WARN_ON(atomic_load_explicit(&v->lock_seq, memory_order_relaxed) !=
		    atomic_load_explicit(&to_pv(l)->mm_lock_seq,
					 memory_order_relaxed));
	SIM_WARN_ON(atomic_load_explicit(&v->refcnt, memory_order_relaxed) < 1);
	/* Write-locked, so no new reader gets in; one that took a reference
	 * before seeing the lock is about to drop it: wait it out. */
	if (atomic_fetch_sub(&v->refcnt, 1) == 1)
		return;
	atomic_fetch_add(&v->refcnt, VMA_LOCK_OFFSET);
	pv_wait_refs(v, VMA_LOCK_OFFSET);
	atomic_fetch_sub(&v->refcnt, VMA_LOCK_OFFSET);
}

/* --- instance -------------------------------------------------------------- */

static int pv_create(const struct lock_env *env, struct lock_inst **out)
{
	struct pervma_lock *pv = aligned_alloc(64, sizeof(*pv));
	int ret;

	if (!pv)
		return -ENOMEM;
	memset(pv, 0, sizeof(*pv));
	ret = lock_mm_init(&pv->base, &pervma_lock_ops, env, &pv->mmap_lock,
			   &pv->slots, sizeof(struct pv_slot));
	if (ret) {
		free(pv);
		return ret;
	}
	ret = lock_inst_add_class(&pv->base, "vma_lock", &pv->vma_cls);
	if (ret) {
		lock_mm_fini(&pv->base, &pv->mmap_lock, &pv->slots);
		free(pv);
		return ret;
	}
	*out = &pv->base;
	return 0;
}

static void pv_destroy(struct lock_inst *l)
{
	lock_mm_fini(l, &to_pv(l)->mmap_lock, &to_pv(l)->slots);
	free(l);
}

static int pv_counters(struct lock_inst *l, const char **names, uint64_t *values)
{
	static const char *const n[PV_NCOUNTERS] = {
		"vma_lock_success", "vma_lock_abort", "vma_lock_retry",
		"vma_lock_miss", "vma_lock_reused", "vma_lock_kernel",
		"maps_vma_lock", "maps_vma_miss", "maps_fallback_locked",
		"maps_fallback_moved",
	};
	struct pervma_lock *pv = to_pv(l);

	lock_slot_counters(&pv->slots, offsetof(struct pv_slot, n), n,
			   PV_NCOUNTERS, names, values);
	return PV_NCOUNTERS + sim_rwsem_counters(&pv->mmap_lock,
			names + PV_NCOUNTERS, values + PV_NCOUNTERS);
}

const struct lock_ops pervma_lock_ops = {
	.name = "pervma",
	.desc = "per-VMA locks (Linux 6.15 vm_refcnt): RCU lookup + VMA read lock, mm rwsem fallback",
	.excludes = true,
	.serialises_writers = true,
	.vma_typesafe = true,            /* lock_vma_under_rcu revalidates */
	.anon_prepare = true,
	.create = pv_create,
	.destroy = pv_destroy,
	.fault_begin = pv_fault_begin,
	.fault_validate = pv_fault_validate,
	.fault_end = pv_fault_end,
	.write_begin = pv_write_begin,
	.write_end = pv_write_end,
	.write_downgrade = pv_write_downgrade,
	.read_range_begin = pv_read_range_begin,
	.read_range_end = pv_read_range_end,
	.vma_read_next = pv_vma_read_next,
	.vma_read_end = pv_vma_read_end,
	.vma_init = pv_vma_init,
	.vma_start_write = pv_vma_start_write,
	.vma_mark_detached = pv_vma_mark_detached,
	.counters = pv_counters,
	.attempt_ok = (const char *const[]){ "vma_lock_success", NULL },
	.attempt_retried = (const char *const[]){ "vma_lock_retry", NULL },
	.attempt_other = (const char *const[]){ "vma_lock_abort",
						"vma_lock_kernel", NULL },
};
