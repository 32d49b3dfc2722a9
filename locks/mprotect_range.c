/* SPDX-License-Identifier: MIT */
/*
 * What a range scheme write-locks for mprotect (--mprotect-range), for
 * range and range-list alike: exactly the call's [start, end); the whole
 * space (Bueso's RFC converted mprotect, as every mmap_sem user, to the
 * full range); or the refined range of Kogan, Dice and Issa, "Scalable
 * Range Locks for Scalable Address Spaces and Beyond" (EuroSys 2020),
 * section "refining the range of mprotect".
 *
 * Refined, the speculation:
 *   seq = the layout's version; [lo, hi) = the span of the VMAs the call
 *   may change, looked up without the lock (env->mprotect_span: from the
 *   start of the VMA holding start - 1 — split there, or merged with —
 *   to the end of the VMA holding end, likewise);
 *   write-lock [lo, hi);
 *   validate: the version unchanged — go on. Else the span is looked up
 *   again, now under the lock: still inside [lo, hi) (the change was
 *   elsewhere) — go on; not (a concurrent change hit the span: a
 *   neighbour grew into it, the VMA at either end was split or merged) —
 *   let go and write-lock the whole space, which needs no validation.
 *
 * The validation's second look is ours, not the paper's (which, as we
 * read it, falls back on any change of the version): with every task's
 * mprotect changing the layout (a heap grown is a split and a merge),
 * a change elsewhere would otherwise send the other tasks to the full
 * range as often as their windows overlap. Both outcomes are counted:
 * seq_moved (the version changed) and fallback (the span did).
 *
 * What makes the result hold: under [lo, hi) no writer that locks what
 * it changes can change a VMA that meets [lo, hi), so the span looked up
 * under the lock stays the span until write_end. docs/fidelity.md says
 * which of vmsim's writers lock what they change (mmap's merge with a
 * neighbour and brk's growth do not) and why vmsim's tree is correct
 * regardless.
 */
#include "locks/lock_ops.h"

const char *const lock_mprotect_range_names[LOCK_MPROTECT_N] = {
	[LOCK_MPROTECT_EXACT] = "exact",
	[LOCK_MPROTECT_FULL] = "full",
	[LOCK_MPROTECT_REFINED] = "refined",
};

int lock_mprotect_init(struct lock_mprotect *m)
{
	return slot_array_init(&m->slots,
			       sizeof(uint64_t) * LOCK_MPROTECT_NCOUNTERS);
}

void lock_mprotect_fini(struct lock_mprotect *m)
{
	slot_array_destroy(&m->slots);
}

static void mprotect_count(struct lock_mprotect *m, enum lock_mprotect_counter k)
{
	_Atomic uint64_t *s = slot_mine(&m->slots);

	atomic_fetch_add_explicit(&s[k], 1, memory_order_relaxed);
}

void lock_mprotect_begin(struct lock_inst *l, struct lock_mprotect *m,
			 unsigned long start, unsigned long end,
			 struct lock_handle *h, lock_range_fn *lock,
			 lock_unrange_fn *unlock)
{
	const struct lock_env *env = &l->env;
	unsigned long lo, hi, lo2, hi2, seq;

	switch (env->mprotect_range) {
	case LOCK_MPROTECT_FULL:
		lock(l, env->space_start, env->space_end, h);
		return;
	case LOCK_MPROTECT_REFINED:
		break;
	default:
		lock(l, start, end, h);
		return;
	}
	mprotect_count(m, LOCK_MPROTECT_SPEC);
	seq = env->mprotect_span(env->arg, start, end, &lo, &hi);
	lock(l, lo, hi, h);
	if (env->layout_seq(env->arg) == seq)
		return;
	mprotect_count(m, LOCK_MPROTECT_SEQ_MOVED);
	env->mprotect_span(env->arg, start, end, &lo2, &hi2);
	if (lo2 >= lo && hi2 <= hi)
		return;
	mprotect_count(m, LOCK_MPROTECT_FALLBACK);
	unlock(l, h);
	lock(l, env->space_start, env->space_end, h);
}

int lock_mprotect_counters(const struct lock_inst *l,
			   const struct lock_mprotect *m, const char **names,
			   uint64_t *values)
{
	static const char *const n[LOCK_MPROTECT_NCOUNTERS] = {
		[LOCK_MPROTECT_SPEC] = "mprotect_spec",
		[LOCK_MPROTECT_SEQ_MOVED] = "mprotect_seq_moved",
		[LOCK_MPROTECT_FALLBACK] = "mprotect_fallback",
	};

	if (l->env.mprotect_range != LOCK_MPROTECT_REFINED)
		return 0;
	return lock_slot_counters(&m->slots, 0, n, LOCK_MPROTECT_NCOUNTERS,
				  names, values);
}
