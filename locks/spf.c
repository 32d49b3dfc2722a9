/* SPDX-License-Identifier: MIT */
/*
 * spf — speculative page faults, as Laurent Dufour's series (v1–v11,
 * 2017–2019) and Michel Lespinasse's (2020–2022) did them: a fault takes
 * no mm lock at all unless its speculation fails.
 *
 * State: the mm rwsem (mmap_lock); a per-mm sequence count mmap_seq that
 * every address-space writer makes odd when it takes the write side and
 * even again when it leaves it (Lespinasse: mmap_seq_write_start/_end in
 * mmap_write_lock/unlock and downgrade); page-table locks, one per 2 MiB
 * of address space (split PTLs, hashed onto SPF_NPTL locks).
 *
 * Reader path (do_handle_mm_fault with FAULT_FLAG_SPECULATIVE), per
 *   fault: read mmap_seq; if odd a writer is at work: the speculation
 *   fails at once. Otherwise, under RCU and with no lock, look the VMA
 *   up (VMAs are freed after a grace period), check the access and
 *   prepare the page. Before the commit — the resolve, or a refusal —
 *   take the page-table lock of the address (pte_map_lock) and compare
 *   mmap_seq with what was read: unchanged, the fault commits under the
 *   PTL and counts spf_success; changed (or odd), drop the PTL, count
 *   spf_abort and retry the fault the classic way, under mmap_read_lock.
 *   A fault that needs the mm lock (a VMA's first anonymous fault
 *   prepares its anon_vma) cannot speculate: spf_abort_anon, retry.
 * madvise(MADV_DONTNEED) and MAP_POPULATE take mmap_read_lock.
 * Writer path: mmap_write_lock, then mmap_seq becomes odd; the writer
 *   then takes and drops the page-table locks of its range once, so that
 *   a fault that validated before the bump has committed before the
 *   writer changes a page table (the kernel's writers take those PTLs to
 *   zap or change protection; taking them at the start gives the same
 *   order). An mmap into a gap takes none: it changes no page.
 *   mmap_write_unlock and mmap_write_downgrade make it even.
 *
 * Invariants: a fault commits only under a PTL, having seen an even
 * mmap_seq that is still current, so no address-space change overlapped
 * its lookup; a writer changes no page of its range while a fault that
 * validated against the old layout is committing there.
 *
 * Source: the SPF series (lore: "[PATCH v11 00/26] Speculative page
 * faults", "[RFC PATCH 00/37] Speculative page faults", Lespinasse
 * 2021-01; v2 2022-01): mm/memory.c (pte_map_lock, do_handle_mm_fault),
 * include/linux/mmap_lock.h (mmap_seq).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "base/container.h"
#include "locks/lock_ops.h"
#include "locks/sync/futex.h"
#include "locks/sync/rcu.h"
#include "locks/sync/rw_semaphore.h"
#include "locks/sync/spinlock.h"

/* This file's scheme (defined at its end; locks/schemes.def names it). */
extern const struct lock_ops spf_lock_ops;

#define SPF_NPTL     64                  /* page-table locks (hashed) */
#define SPF_PMD_SHIFT 21                 /* one PTL per 2 MiB */

enum { SPF_TAKEN_SPEC = 1, SPF_TAKEN_MM = 2 };
enum { SPF_SUCCESS, SPF_ABORT, SPF_ABORT_ANON, SPF_KERNEL, SPF_NCOUNTERS };

/* What a speculative attempt carries in its handle. */
struct spf_attempt {
	unsigned long seq;               /* mmap_seq when it began */
	unsigned long addr;
	int ptl;                         /* index of the PTL held, or -1 */
};

_Static_assert(sizeof(struct spf_attempt) <= sizeof(((struct lock_handle *)0)->priv),
	       "an attempt must fit in a lock handle");

struct spf_slot {
	_Atomic uint64_t n[SPF_NCOUNTERS];
} __attribute__((aligned(64)));

struct spf_lock {
	struct lock_inst base;
	struct sim_rwsem mmap_lock;
	_Atomic unsigned long mmap_seq __attribute__((aligned(64)));
	struct sim_spinlock ptl[SPF_NPTL];
	struct lockstat_class *ptl_cls;
	struct slot_array slots;         /* struct spf_slot */
} __attribute__((aligned(64)));      /* aligned_alloc: a multiple of 64 */

#define to_spf(l) container_of(l, struct spf_lock, base)

static void spf_count(struct spf_lock *s, int what)
{
	struct spf_slot *sl = slot_mine(&s->slots);

	atomic_fetch_add_explicit(&sl->n[what], 1,
				  memory_order_relaxed);
}

/* --- page-table locks ------------------------------------------------------ */

static int ptl_of(unsigned long addr)
{
	return (int)((addr >> SPF_PMD_SHIFT) % SPF_NPTL);
}

/* The kernel's PTL: a spinlock (locks/sync/spinlock.h). */
static uint64_t ptl_lock(struct spf_lock *s, int i)
{
	return sim_spin_lock(&s->ptl[i], s->ptl_cls);
}

static void ptl_unlock(struct spf_lock *s, int i, uint64_t t_acquired)
{
	sim_spin_unlock(&s->ptl[i], s->ptl_cls, t_acquired);
}

/* The writer's pass over the PTLs of [start, end): every fault that
 * validated before mmap_seq turned odd has committed after it. */
static void ptl_barrier(struct spf_lock *s, unsigned long start,
			unsigned long end)
{
	unsigned long first = start >> SPF_PMD_SHIFT;
	unsigned long last = (end - 1) >> SPF_PMD_SHIFT;

	if (end <= start)
		return;
	if (last - first >= SPF_NPTL) {
		first = 0;
		last = SPF_NPTL - 1;
	}
	for (unsigned long p = first; p <= last; p++) {
		int i = (int)(p % SPF_NPTL);

		ptl_unlock(s, i, ptl_lock(s, i));
	}
}

/* --- set-up ---------------------------------------------------------------- */

static int spf_create(const struct lock_env *env, struct lock_inst **out)
{
	struct spf_lock *s = aligned_alloc(64, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	memset(s, 0, sizeof(*s));
	ret = lock_mm_init(&s->base, &spf_lock_ops, env, &s->mmap_lock,
			   &s->slots, sizeof(struct spf_slot));
	if (ret) {
		free(s);
		return ret;
	}
	ret = lock_inst_add_class(&s->base, "ptl", &s->ptl_cls);
	lockstat_class_spins(s->ptl_cls);
	if (ret) {
		lock_mm_fini(&s->base, &s->mmap_lock, &s->slots);
		free(s);
		return ret;
	}
	*out = &s->base;
	return 0;
}

static void spf_destroy(struct lock_inst *l)
{
	lock_mm_fini(l, &to_spf(l)->mmap_lock, &to_spf(l)->slots);
	free(l);
}

/* --- fault side ------------------------------------------------------------ */

static void *spf_fault_begin(struct lock_inst *l, unsigned long addr,
			     unsigned flags, struct lock_handle *h)
{
	struct spf_lock *s = to_spf(l);
	struct spf_attempt *a = (struct spf_attempt *)h->priv;
	struct lock_vma lv;

	/* A kernel-mode fault does not speculate (the x86 patch of the
	 * series: "if (!(flags & FAULT_FLAG_USER)) goto no_spf"). */
	if (flags & (LOCK_FAULT_RETRY | LOCK_FAULT_KERNEL)) {
		if (!(flags & LOCK_FAULT_RETRY))
			spf_count(s, SPF_KERNEL);
		h->taken = SPF_TAKEN_MM;
		h->t_acquired = sim_down_read(&s->mmap_lock);
		return NULL;
	}
	h->taken = SPF_TAKEN_SPEC;
	*a = (struct spf_attempt){ .addr = addr, .ptl = -1 };
	/* Acquire: the layout read below is at least as new as seq. */
	a->seq = atomic_load_explicit(&s->mmap_seq, memory_order_acquire);
	/* Held to fault_end: the VMA found stays allocated. */
	sim_rcu_read_lock();
	if (a->seq & 1)
		return NULL;             /* a writer is at work: will abort */
	if (l->env.vma_lookup(l->env.arg, addr, &lv))
		return lv.vma;
	return NULL;                     /* looked up again by the caller */
}

/* pte_map_lock: commit only if no writer began since the lookup. */
static int spf_fault_validate(struct lock_inst *l, struct lock_handle *h,
			      unsigned need)
{
	struct spf_lock *s = to_spf(l);
	struct spf_attempt *a = (struct spf_attempt *)h->priv;
	uint64_t t;

	if (h->taken != SPF_TAKEN_SPEC)
		return 0;
	if (need & LOCK_NEED_MM) {
		spf_count(s, SPF_ABORT_ANON);
		return -EAGAIN;
	}
	t = ptl_lock(s, ptl_of(a->addr));
	if (!(a->seq & 1) &&
	    atomic_load_explicit(&s->mmap_seq, memory_order_acquire) == a->seq) {
		a->ptl = ptl_of(a->addr);
		h->t_acquired = t;
		spf_count(s, SPF_SUCCESS);
		return 0;
	}
	ptl_unlock(s, ptl_of(a->addr), t);
	spf_count(s, SPF_ABORT);
	return -EAGAIN;
}

static void spf_fault_end(struct lock_inst *l, struct lock_handle *h)
{
	struct spf_lock *s = to_spf(l);
	struct spf_attempt *a = (struct spf_attempt *)h->priv;

	if (h->taken == SPF_TAKEN_MM) {
		sim_up_read(&s->mmap_lock, h->t_acquired);
		return;
	}
	if (a->ptl >= 0)
		ptl_unlock(s, a->ptl, h->t_acquired);
	sim_rcu_read_unlock();
}

/* --- write side ------------------------------------------------------------ */

static void spf_write_begin(struct lock_inst *l, unsigned long start,
			    unsigned long end, struct lock_handle *h)
{
	struct spf_lock *s = to_spf(l);

	h->t_acquired = sim_down_write(&s->mmap_lock);
	/* Odd: speculation fails from here. Seq_cst: the bump is visible
	 * before the PTL pass below, and so to every fault that takes a
	 * PTL after it. */
	atomic_fetch_add_explicit(&s->mmap_seq, 1, memory_order_seq_cst);
	ptl_barrier(s, start, end);
}

/* An mmap not yet placed goes into a gap: no VMA, so no page the writer
 * could change and no PTL to take (the kernel's mmap of a new range takes
 * none). The mm places it under the write side over the whole space. */
static void spf_write_begin_unplaced(struct lock_inst *l, unsigned long hint,
				     unsigned long len, struct lock_handle *h,
				     unsigned long *guess)
{
	struct spf_lock *s = to_spf(l);

	h->t_acquired = sim_down_write(&s->mmap_lock);
	atomic_fetch_add_explicit(&s->mmap_seq, 1, memory_order_seq_cst);
	*guess = 0;
}

/* Even again: release, after every change of the write section. */
static void seq_write_end(struct spf_lock *s)
{
	atomic_fetch_add_explicit(&s->mmap_seq, 1, memory_order_release);
}

static void spf_write_end(struct lock_inst *l, struct lock_handle *h)
{
	seq_write_end(to_spf(l));
	sim_up_write(&to_spf(l)->mmap_lock, h->t_acquired);
}

static void spf_write_downgrade(struct lock_inst *l, struct lock_handle *h)
{
	seq_write_end(to_spf(l));
	h->t_acquired = sim_downgrade_write(&to_spf(l)->mmap_lock, h->t_acquired);
}

static void spf_read_range_begin(struct lock_inst *l, unsigned long start,
				 unsigned long end, unsigned flags,
				 struct lock_handle *h)
{
	h->t_acquired = sim_down_read(&to_spf(l)->mmap_lock);
}

static void spf_read_range_end(struct lock_inst *l, struct lock_handle *h)
{
	sim_up_read(&to_spf(l)->mmap_lock, h->t_acquired);
}

static int spf_counters(struct lock_inst *l, const char **names,
			uint64_t *values)
{
	static const char *const n[SPF_NCOUNTERS] = {
		"spf_success", "spf_abort", "spf_abort_anon", "spf_kernel",
	};
	return lock_slot_counters(&to_spf(l)->slots, offsetof(struct spf_slot, n),
				  n, SPF_NCOUNTERS, names, values);
}

const struct lock_ops spf_lock_ops = {
	.name = "spf",
	.desc = "speculative page faults (Dufour/Lespinasse): faults look up under RCU with no mm lock and commit under the PTL if mmap_seq is unchanged, else retry under mmap_lock",
	.excludes = true,
	.serialises_writers = true,
	.create = spf_create,
	.destroy = spf_destroy,
	.fault_begin = spf_fault_begin,
	.fault_validate = spf_fault_validate,
	.fault_end = spf_fault_end,
	.write_begin = spf_write_begin,
	.write_begin_unplaced = spf_write_begin_unplaced,
	.write_end = spf_write_end,
	.write_downgrade = spf_write_downgrade,
	.read_range_begin = spf_read_range_begin,
	.read_range_end = spf_read_range_end,
	.counters = spf_counters,
	.attempt_ok = (const char *const[]){ "spf_success", NULL },
	.attempt_retried = (const char *const[]){ "spf_abort", "spf_abort_anon",
						  NULL },
	.attempt_other = (const char *const[]){ "spf_kernel", NULL },
};
