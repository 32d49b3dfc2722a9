/* SPDX-License-Identifier: MIT */
/*
 * slab: the per-CPU sheaves, the barn and kfree_rcu()'s rcu_free sheaves
 * (mm/slub.c of the percpu sheaves series: alloc_from_pcs,
 * __pcs_replace_empty_main, free_to_pcs, __pcs_replace_full_main,
 * __kfree_rcu_sheaf, rcu_free_sheaf), in front of SLUB (slab.c); SLUB's
 * kfree_rcu() bulk arrays (kernel/rcu/tree.c's kvfree_rcu); and the
 * cache's entry points. See sim/mem/slab.h.
 */
#include <stddef.h>

#include "sim/mem/slab_int.h"
#include "sim/mem/slab_rseq.h"
#include "base/clock.h"

/* --- sheaves from and back to the unused ones (alloc_empty_sheaf) ------- */

static uint32_t sheaf_new(struct slab_cache *s)
{
	uint32_t i;

	sim_spin_lock_raw(&s->sheaf_lock);
	i = s->free_sheaves;
	if (i != SLAB_NIL) {
		s->free_sheaves = s->sheaf[i].next;
	} else if (s->next_sheaf < s->nsheaves) {
		i = s->next_sheaf++;
		s->sheaf[i].s = s;
	}
	sim_spin_unlock_raw(&s->sheaf_lock);
	if (i != SLAB_NIL) {
		s->sheaf[i].size = 0;
		s->sheaf[i].next = SLAB_NIL;
	}
	return i;
}

static void sheaf_release(struct slab_cache *s, uint32_t i)
{
	sim_spin_lock_raw(&s->sheaf_lock);
	s->sheaf[i].next = s->free_sheaves;
	s->free_sheaves = i;
	sim_spin_unlock_raw(&s->sheaf_lock);
}

/* Every object of sheaf i back to its slab (sheaf_flush_*), under the
 * CPU lock c (held). */
static void sheaf_flush(struct slab_cache *s, const struct slab_stat *st,
			struct slab_cpu *c, uint32_t i)
{
	struct sheaf *sh = &s->sheaf[i];

	slab_slub_free_bulk(s, st, c, sh->objs, sh->size);
	sh->size = 0;
	slab_stat_inc(s, c, SLAB_SHEAF_FLUSH, 1);
}

/* --- the barn ------------------------------------------------------------- */

static void barn_push(struct slab_cache *s, uint32_t i, bool full)
{
	uint32_t *head = full ? &s->barn_full : &s->barn_empty;
	_Atomic uint32_t *nr = full ? &s->nr_full : &s->nr_empty;

	s->sheaf[i].next = *head;
	*head = i;
	atomic_fetch_add_explicit(nr, 1, memory_order_relaxed);
}

static uint32_t barn_pop(struct slab_cache *s, bool full)
{
	uint32_t *head = full ? &s->barn_full : &s->barn_empty;
	_Atomic uint32_t *nr = full ? &s->nr_full : &s->nr_empty;
	uint32_t i = *head;

	if (i != SLAB_NIL) {
		*head = s->sheaf[i].next;
		atomic_fetch_sub_explicit(nr, 1, memory_order_relaxed);
	}
	return i;
}

/* barn_get_empty_sheaf(), or a new one. */
static uint32_t get_empty(struct slab_cache *s, const struct slab_stat *st)
{
	uint32_t i = SLAB_NIL;

	if (atomic_load_explicit(&s->nr_empty, memory_order_relaxed)) {
		uint64_t t = sim_spin_lock(&s->barn_lock, st->barn_lock);

		i = barn_pop(s, false);
		sim_spin_unlock(&s->barn_lock, st->barn_lock, t);
	}
	return i != SLAB_NIL ? i : sheaf_new(s);
}

/* barn_replace_empty_sheaf(): a full sheaf for the empty one, if any. */
static uint32_t barn_replace_empty(struct slab_cache *s,
				   const struct slab_stat *st, uint32_t empty)
{
	uint32_t full = SLAB_NIL;
	uint64_t t;

	if (!atomic_load_explicit(&s->nr_full, memory_order_relaxed))
		return SLAB_NIL;
	t = sim_spin_lock(&s->barn_lock, st->barn_lock);
	full = barn_pop(s, true);
	if (full != SLAB_NIL)
		barn_push(s, empty, false);
	sim_spin_unlock(&s->barn_lock, st->barn_lock, t);
	return full;
}

/* barn_put_full_sheaf() where there is room: true if it went in. */
static bool barn_put_full(struct slab_cache *s, const struct slab_stat *st,
			  uint32_t i)
{
	uint64_t t = sim_spin_lock(&s->barn_lock, st->barn_lock);
	bool room = atomic_load_explicit(&s->nr_full, memory_order_relaxed) <
		    MAX_FULL_SHEAVES;

	if (room)
		barn_push(s, i, true);
	sim_spin_unlock(&s->barn_lock, st->barn_lock, t);
	return room;
}

/* Count where an RCU callback runs against where it was queued. */
static void slab_count_cb(struct slab_cache *s, struct slab_cpu *c, int queued)
{
	slab_stat_inc(s, c, c - s->cpu == queued ? SLAB_RCU_CB_LOCAL :
		      SLAB_RCU_CB_REMOTE, 1);
}

/* --- allocation and immediate free ---------------------------------------- */

/* One of slab_rseq.h's sections, tried again while the kernel restarts
 * it (preempted, migrated, signalled) — at most a few times, then the
 * locked path; counted in slot k (SLAB_ALLOC_ or SLAB_FREE_FAST_RSEQ:
 * a fast path, and one without a lock) when it commits. SLAB_NIL: take
 * the locked path. */
static inline uint32_t rseq_fast(struct slab_cache *s,
		uint32_t (*section)(struct slab_cache *, uint32_t, int *),
		uint32_t arg, enum slab_counter k)
{
	for (int tries = 0; tries < 4; tries++) {
		int cpu;
		uint32_t r = section(s, arg, &cpu);

		if (r == SLAB_RSEQ_ABORTED) {
			slab_stat_inc(s, NULL, SLAB_RSEQ_ABORT, 1);
			continue;
		}
		if (r != SLAB_NIL)
			slab_stat_inc(s, &s->cpu[cpu], k, 1);
		return r;
	}
	return SLAB_NIL;
}

static void swap_main_spare(struct slab_cpu *c)
{
	uint32_t m = c->main;

	c->main = c->spare;
	c->spare = m;
}

/* __pcs_replace_empty_main(): main is empty. The spare if it has
 * objects; else a full sheaf from the barn; else main refilled from the
 * slabs in bulk. */
static void replace_empty_main(struct slab_cache *s, const struct slab_stat *st,
			       struct slab_cpu *c)
{
	struct sheaf *sp = sheaf_at(s, c->spare), *m;
	uint32_t full, i;

	if (sp && sp->size) {
		swap_main_spare(c);
		return;
	}
	full = barn_replace_empty(s, st, c->main);
	if (full != SLAB_NIL) {
		c->main = full;
		slab_stat_inc(s, c, SLAB_BARN_GET, 1);
		return;
	}
	slab_stat_inc(s, c, SLAB_BARN_GET_FAIL, 1);
	m = &s->sheaf[c->main];
	while (m->size < SHEAF_CAPACITY &&
	       (i = slab_slub_alloc_locked(s, st, c)) != SLAB_NIL)
		m->objs[m->size++] = i;
	slab_stat_inc(s, c, SLAB_SHEAF_REFILL, 1);
}

static uint32_t sheaves_alloc(struct slab_cache *s, const struct slab_stat *st)
{
	struct slab_cpu *c;
	struct sheaf *m;
	uint32_t i;

	if (s->fast_rseq && (i = rseq_fast(s, slab_rseq_sheaf_pop, 0,
					   SLAB_ALLOC_FAST_RSEQ)) != SLAB_NIL)
		return i;
	c = slab_cpu_lock(s);
	if (c->main == SLAB_NIL)
		c->main = get_empty(s, st);
	m = sheaf_at(s, c->main);
	if (m && !m->size) {
		slab_stat_inc(s, c, SLAB_ALLOC_SLOWPATH, 1);
		replace_empty_main(s, st, c);
		m = &s->sheaf[c->main];
	} else if (m) {
		slab_stat_inc(s, c, SLAB_ALLOC_FASTPATH, 1);
	}
	if (m && m->size)
		i = m->objs[--m->size];
	else                             /* no sheaf, or the slabs are out */
		i = slab_slub_alloc_locked(s, st, c);
	sim_spin_unlock_raw(&c->lock);
	return i;
}

/* __pcs_replace_full_main(): main is full. An empty spare; else an empty
 * sheaf for main (the full one becomes the spare); else main goes to the
 * barn for an empty one; with the barn full, main is flushed. */
static void replace_full_main(struct slab_cache *s, const struct slab_stat *st,
			      struct slab_cpu *c)
{
	struct sheaf *sp = sheaf_at(s, c->spare);
	uint32_t e;

	if (sp && !sp->size) {
		swap_main_spare(c);
		return;
	}
	if (!sp) {
		e = get_empty(s, st);
		if (e != SLAB_NIL) {
			c->spare = c->main;
			c->main = e;
			return;
		}
	} else if (atomic_load_explicit(&s->nr_full, memory_order_relaxed) <
		   MAX_FULL_SHEAVES && (e = get_empty(s, st)) != SLAB_NIL) {
		if (barn_put_full(s, st, c->main)) {
			slab_stat_inc(s, c, SLAB_BARN_PUT, 1);
			c->main = e;
			return;
		}
		sheaf_release(s, e);
	}
	slab_stat_inc(s, c, SLAB_BARN_PUT_FAIL, 1);
	sheaf_flush(s, st, c, c->main);
}

static void sheaves_free(struct slab_cache *s, const struct slab_stat *st,
			 uint32_t i)
{
	struct slab_cpu *c;
	struct sheaf *m;

	if (s->fast_rseq && rseq_fast(s, slab_rseq_sheaf_push, i,
				      SLAB_FREE_FAST_RSEQ) != SLAB_NIL)
		return;
	c = slab_cpu_lock(s);
	if (c->main == SLAB_NIL)
		c->main = get_empty(s, st);
	m = sheaf_at(s, c->main);
	if (m && m->size == SHEAF_CAPACITY) {
		slab_stat_inc(s, c, SLAB_FREE_SLOWPATH, 1);
		replace_full_main(s, st, c);
		m = &s->sheaf[c->main];
	} else if (m) {
		slab_stat_inc(s, c, SLAB_FREE_FASTPATH, 1);
	}
	if (m && m->size < SHEAF_CAPACITY)
		m->objs[m->size++] = i;
	else
		slab_slub_free(s, st, c, i);
	sim_spin_unlock_raw(&c->lock);
}

/* --- kfree_rcu() into sheaves ----------------------------------------------- */

/* rcu_free_sheaf(): after the grace period, into the barn as a full
 * sheaf; with the barn full, its objects go back to the slabs. */
static void rcu_free_sheaf(struct sim_rcu_head *h)
{
	struct sheaf *sh = (struct sheaf *)((char *)h - offsetof(struct sheaf, rcu));
	struct slab_cache *s = sh->s;
	const struct slab_stat *st = sh->st;
	struct slab_cpu *c = slab_cpu_mine(s);
	uint32_t i = (uint32_t)(sh - s->sheaf);
	int64_t left = atomic_load_explicit(&s->barrier_left, memory_order_relaxed);

	slab_count_cb(s, c, sh->cpu);
	atomic_fetch_sub_explicit(&s->inflight, 1, memory_order_relaxed);
	/* One of those a pending barrier waits for (callbacks run in the
	 * order they were queued). */
	while (left > 0 &&
	       !atomic_compare_exchange_weak_explicit(&s->barrier_left, &left,
			left - 1, memory_order_relaxed, memory_order_relaxed))
		;
	if (sh->size == SHEAF_CAPACITY &&
	    atomic_load_explicit(&s->nr_full, memory_order_relaxed) <
	    MAX_FULL_SHEAVES && barn_put_full(s, st, i)) {
		slab_stat_inc(s, c, SLAB_BARN_PUT, 1);
		return;
	}
	if (sh->size == SHEAF_CAPACITY) {
		slab_stat_inc(s, c, SLAB_BARN_PUT_FAIL, 1);
		slab_stat_inc(s, c, SLAB_RCU_SHEAF_DESTROYED, 1);
	}
	c = slab_cpu_lock(s);
	sheaf_flush(s, st, c, i);
	sim_spin_unlock_raw(&c->lock);
	if (atomic_load_explicit(&s->nr_empty, memory_order_relaxed) <
	    MAX_EMPTY_SHEAVES) {
		uint64_t t = sim_spin_lock(&s->barn_lock, st->barn_lock);

		barn_push(s, i, false);
		sim_spin_unlock(&s->barn_lock, st->barn_lock, t);
	} else {
		sheaf_release(s, i);
	}
}

/* A full rcu_free sheaf to RCU: lazy (call_rcu under CONFIG_RCU_LAZY:
 * onto the CPU's lazy list with every other lazy callback), or at once
 * (call_rcu_hurry). */
static void queue_sheaf(struct slab_cache *s, const struct slab_stat *st,
			uint32_t i, bool lazy)
{
	struct sheaf *sh = &s->sheaf[i];

	sh->st = st;
	sh->cpu = slab_cpu_index(s);
	if (lazy)
		sim_call_rcu_lazy(&sh->rcu, rcu_free_sheaf);
	else
		sim_call_rcu(&sh->rcu, rcu_free_sheaf);
}

/* A full rcu_free sheaf: call_rcu (lazy), call_rcu_hurry, or lazy with
 * the patch's rcu_barrier() once in-flight sheaves reach the barn's free
 * slots (and those are at least half of them): the barrier's first step
 * flushes the lazy lists (rcu_barrier_entrain's bypass flush), which is
 * all it changes for the sheaves — nobody waits in it. */
static void rcu_submit(struct slab_cache *s, const struct slab_stat *st,
		       struct slab_cpu *c, uint32_t i)
{
	int64_t n = atomic_fetch_add_explicit(&s->inflight, 1,
					      memory_order_relaxed) + 1;
	uint64_t most = atomic_load_explicit(&s->inflight_max, memory_order_relaxed);

	while ((uint64_t)n > most &&
	       !atomic_compare_exchange_weak_explicit(&s->inflight_max, &most,
			(uint64_t)n, memory_order_relaxed, memory_order_relaxed))
		;
	if (s->rcu_free == RCU_FREE_HURRY) {
		queue_sheaf(s, st, i, false);
		return;
	}
	queue_sheaf(s, st, i, true);
	if (s->rcu_free == RCU_FREE_BARRIER) {
		int64_t slots = MAX_FULL_SHEAVES -
			(int64_t)atomic_load_explicit(&s->nr_full, memory_order_relaxed);
		int64_t zero = 0;

		if (slots >= MAX_FULL_SHEAVES / 2 && n >= slots &&
		    atomic_compare_exchange_strong_explicit(&s->barrier_left,
				&zero, n, memory_order_relaxed,
				memory_order_relaxed)) {
			slab_stat_inc(s, c, SLAB_RCU_BARRIER, 1);
			sim_rcu_lazy_flush();
		}
	}
}

/* --- kfree_rcu() without sheaves: kvfree_rcu's bulk arrays ---------------- */

/* kfree_rcu_work(): after the grace period, the array's objects back in
 * one kmem_cache_free_bulk() on the CPU the callback runs on. */
static void krc_bulk_free(struct sim_rcu_head *h)
{
	struct krc_bulk *b = (struct krc_bulk *)((char *)h -
						 offsetof(struct krc_bulk, rcu));
	struct slab_cache *s = b->s;
	struct slab_cpu *c = slab_cpu_lock(s);
	uint32_t i = (uint32_t)(b - s->krc);

	slab_count_cb(s, c, b->cpu);
	slab_slub_free_detached(s, b->st, c, b->objs, b->n);
	slab_stat_inc(s, c, SLAB_KFREE_RCU_BULK_FREED, 1);
	sim_spin_unlock_raw(&c->lock);
	b->n = 0;
	sim_spin_lock_raw(&s->krc_lock);
	b->next = s->free_krc;
	s->free_krc = i;
	sim_spin_unlock_raw(&s->krc_lock);
}

static uint32_t krc_new(struct slab_cache *s)
{
	uint32_t i;

	sim_spin_lock_raw(&s->krc_lock);
	i = s->free_krc;
	if (i != SLAB_NIL)
		s->free_krc = s->krc[i].next;
	sim_spin_unlock_raw(&s->krc_lock);
	if (i != SLAB_NIL)
		s->krc[i].n = 0;
	return i;
}

static void krc_queue(struct slab_cache *s, const struct slab_stat *st,
		      uint32_t i)
{
	s->krc[i].st = st;
	s->krc[i].cpu = slab_cpu_index(s);
	sim_call_rcu(&s->krc[i].rcu, krc_bulk_free);
}

/* kvfree_call_rcu(): into this CPU's bulk array; a full one goes to RCU
 * (the monitor's drain a jiffy later: at once here). */
static bool krc_free_rcu(struct slab_cache *s, const struct slab_stat *st,
			 uint32_t i)
{
	struct slab_cpu *c;
	uint32_t full = SLAB_NIL;

	c = slab_cpu_lock(s);
	if (c->krc == SLAB_NIL)
		c->krc = krc_new(s);
	if (c->krc == SLAB_NIL) {
		sim_spin_unlock_raw(&c->lock);
		return false;
	}
	s->krc[c->krc].objs[s->krc[c->krc].n++] = i;
	if (s->krc[c->krc].n == KFREE_BULK_MAX) {
		full = c->krc;
		c->krc = SLAB_NIL;
	}
	slab_stat_inc(s, c, SLAB_KFREE_RCU_BULK, 1);
	sim_spin_unlock_raw(&c->lock);
	if (full != SLAB_NIL)
		krc_queue(s, st, full);
	return true;
}

/* CPU c's part-filled bulk array (krc) or rcu_free sheaf, taken from it
 * under its lock if it holds anything; else SLAB_NIL. */
static uint32_t take_part_full(struct slab_cache *s, struct slab_cpu *c,
			       bool krc)
{
	uint32_t *slot = krc ? &c->krc : &c->rcu_free, i;

	sim_spin_lock_raw(&c->lock);
	i = *slot;
	if (i != SLAB_NIL && (krc ? s->krc[i].n : s->sheaf[i].size))
		*slot = SLAB_NIL;
	else
		i = SLAB_NIL;
	sim_spin_unlock_raw(&c->lock);
	return i;
}

/* Every CPU's part-full array to RCU (the monitor's timed drain). */
static void krc_flush(struct slab_cache *s, const struct slab_stat *st)
{
	for (int k = 0; k < s->ncpus; k++) {
		uint32_t b = take_part_full(s, &s->cpu[k], true);

		if (b != SLAB_NIL)
			krc_queue(s, st, b);
	}
}

bool slab_free_rcu(struct slab_cache *s, const struct slab_stat *st, uint32_t i)
{
	struct slab_cpu *c;
	uint32_t full = SLAB_NIL;
	struct sheaf *r;

	if (s->kind != SLAB_SHEAVES)
		return s->kfree_batch && krc_free_rcu(s, st, i);
	c = slab_cpu_lock(s);
	if (c->rcu_free == SLAB_NIL)
		c->rcu_free = get_empty(s, st);
	r = sheaf_at(s, c->rcu_free);
	if (!r) {
		sim_spin_unlock_raw(&c->lock);
		slab_stat_inc(s, c, SLAB_FREE_RCU_SHEAF_FAIL, 1);
		return false;
	}
	r->objs[r->size++] = i;
	if (r->size == SHEAF_CAPACITY) {
		full = c->rcu_free;
		c->rcu_free = SLAB_NIL;
	}
	sim_spin_unlock_raw(&c->lock);
	slab_stat_inc(s, c, SLAB_FREE_RCU_SHEAF, 1);
	if (full != SLAB_NIL)
		rcu_submit(s, st, c, full);
	return true;
}

void slab_rcu_flush(struct slab_cache *s, const struct slab_stat *st)
{
	if (s->kind != SLAB_SHEAVES) {
		krc_flush(s, st);
		sim_rcu_lazy_flush();
		return;
	}
	/* Every CPU's part-filled rcu_free sheaf too (flush_all_rcu_sheaves). */
	for (int k = 0; k < s->ncpus; k++) {
		uint32_t r = take_part_full(s, &s->cpu[k], false);

		if (r != SLAB_NIL) {
			atomic_fetch_add_explicit(&s->inflight, 1, memory_order_relaxed);
			queue_sheaf(s, st, r, false);
		}
	}
	sim_rcu_lazy_flush();
}

/* --- the maple tree's prefilled sheaves, bulk alloc and free -------------- */

/* refill_sheaf(): to capacity from the slabs, under c's lock (held). */
static void sheaf_fill(struct slab_cache *s, const struct slab_stat *st,
		       struct slab_cpu *c, struct sheaf *sh)
{
	uint32_t i;

	while (sh->size < SHEAF_CAPACITY &&
	       (i = slab_slub_alloc_locked(s, st, c)) != SLAB_NIL)
		sh->objs[sh->size++] = i;
	slab_stat_inc(s, c, SLAB_SHEAF_REFILL, 1);
}

/* barn_get_full_or_empty_sheaf(). */
static uint32_t barn_get_any(struct slab_cache *s, const struct slab_stat *st,
			     struct slab_cpu *c)
{
	uint32_t i = SLAB_NIL;
	uint64_t t;

	if (!atomic_load_explicit(&s->nr_full, memory_order_relaxed) &&
	    !atomic_load_explicit(&s->nr_empty, memory_order_relaxed))
		return SLAB_NIL;
	t = sim_spin_lock(&s->barn_lock, st->barn_lock);
	i = barn_pop(s, true);
	if (i == SLAB_NIL)
		i = barn_pop(s, false);
	sim_spin_unlock(&s->barn_lock, st->barn_lock, t);
	slab_stat_inc(s, c, i != SLAB_NIL && s->sheaf[i].size ? SLAB_BARN_GET :
		      SLAB_BARN_GET_FAIL, 1);
	return i;
}

bool slab_refill_sheaf(struct slab_cache *s, const struct slab_stat *st,
		       uint32_t i, uint32_t size)
{
	struct slab_cpu *c;

	c = slab_cpu_lock(s);
	sheaf_fill(s, st, c, &s->sheaf[i]);
	sim_spin_unlock_raw(&c->lock);
	return s->sheaf[i].size >= size;
}

uint32_t slab_prefill_sheaf(struct slab_cache *s, const struct slab_stat *st,
			    uint32_t size)
{
	struct slab_cpu *c;
	uint32_t i;

	if (s->kind != SLAB_SHEAVES || size > SHEAF_CAPACITY)
		return SLAB_NIL;
	c = slab_cpu_lock(s);
	i = c->spare;
	if (i != SLAB_NIL) {
		c->spare = SLAB_NIL;
		slab_stat_inc(s, c, SLAB_SHEAF_PREFILL_FAST, 1);
	} else {
		slab_stat_inc(s, c, SLAB_SHEAF_PREFILL_SLOW, 1);
		i = barn_get_any(s, st, c);
	}
	sim_spin_unlock_raw(&c->lock);
	if (i == SLAB_NIL)
		i = sheaf_new(s);
	if (i != SLAB_NIL && s->sheaf[i].size < size &&
	    !slab_refill_sheaf(s, st, i, size)) {
		slab_return_sheaf(s, st, i);
		return SLAB_NIL;
	}
	return i;
}

uint32_t slab_sheaf_pop(struct slab_cache *s, uint32_t i)
{
	struct sheaf *sh = &s->sheaf[i];

	return sh->size ? sh->objs[--sh->size] : SLAB_NIL;
}

bool slab_sheaf_push(struct slab_cache *s, uint32_t i, uint32_t obj)
{
	struct sheaf *sh = &s->sheaf[i];

	if (sh->size == SHEAF_CAPACITY)
		return false;
	sh->objs[sh->size++] = obj;
	return true;
}

uint32_t slab_sheaf_size(const struct slab_cache *s, uint32_t i)
{
	return s->sheaf[i].size;
}

void slab_return_sheaf(struct slab_cache *s, const struct slab_stat *st,
		       uint32_t i)
{
	struct slab_cpu *c;
	bool kept = false;

	c = slab_cpu_lock(s);
	if (c->spare == SLAB_NIL) {
		c->spare = i;
		kept = true;
		slab_stat_inc(s, c, SLAB_SHEAF_RETURN_FAST, 1);
	} else {
		slab_stat_inc(s, c, SLAB_SHEAF_RETURN_SLOW, 1);
	}
	sim_spin_unlock_raw(&c->lock);
	if (kept)
		return;
	/* Too many full sheaves in the barn, or the slabs out: flushed and
	 * the sheaf freed; else refilled and put in the barn. */
	if (atomic_load_explicit(&s->nr_full, memory_order_relaxed) <
	    MAX_FULL_SHEAVES && slab_refill_sheaf(s, st, i, SHEAF_CAPACITY) &&
	    barn_put_full(s, st, i)) {
		slab_stat_inc(s, c, SLAB_BARN_PUT, 1);
		return;
	}
	c = slab_cpu_lock(s);
	sheaf_flush(s, st, c, i);
	sim_spin_unlock_raw(&c->lock);
	sheaf_release(s, i);
}

uint32_t slab_alloc_bulk(struct slab_cache *s, const struct slab_stat *st,
			 uint32_t n, uint32_t *out)
{
	struct slab_cpu *c;
	uint32_t k = 0;

	if (s->kind == SLAB_SHEAVES) {
		while (k < n && (out[k] = sheaves_alloc(s, st)) != SLAB_NIL)
			k++;
		return k;
	}
	c = slab_cpu_lock(s);
	for (; k < n; k++) {
		slab_stat_inc(s, c, c->freelist != SLAB_NIL ? SLAB_ALLOC_FASTPATH :
			      SLAB_ALLOC_SLOWPATH, 1);
		if ((out[k] = slab_slub_alloc_locked(s, st, c)) == SLAB_NIL)
			break;
	}
	sim_spin_unlock_raw(&c->lock);
	return k;
}

void slab_free_bulk(struct slab_cache *s, const struct slab_stat *st,
		    uint32_t *objs, uint32_t n)
{
	struct slab_cpu *c;

	if (s->kind == SLAB_SHEAVES) {
		for (uint32_t k = 0; k < n; k++)
			sheaves_free(s, st, objs[k]);
		return;
	}
	c = slab_cpu_lock(s);
	slab_slub_free_bulk(s, st, c, objs, n);
	sim_spin_unlock_raw(&c->lock);
}

void slab_count(struct slab_cache *s, enum slab_counter k, uint64_t n)
{
	slab_stat_inc(s, NULL, k, n);
}

/* --- the entry points: sheaves in front, or SLUB alone ------------------- */

uint32_t slab_alloc(struct slab_cache *s, const struct slab_stat *st)
{
	struct slab_cpu *c;
	uint32_t i;

	if (s->kind == SLAB_SHEAVES)
		return sheaves_alloc(s, st);
	if (s->fast_rseq && (i = rseq_fast(s, slab_rseq_freelist_pop, 0,
					   SLAB_ALLOC_FAST_RSEQ)) != SLAB_NIL)
		return i;
	c = slab_cpu_lock(s);
	slab_stat_inc(s, c, c->freelist != SLAB_NIL ? SLAB_ALLOC_FASTPATH :
		      SLAB_ALLOC_SLOWPATH, 1);
	i = slab_slub_alloc_locked(s, st, c);
	sim_spin_unlock_raw(&c->lock);
	return i;
}

void slab_free(struct slab_cache *s, const struct slab_stat *st, uint32_t i)
{
	struct slab_cpu *c;

	if (s->kind == SLAB_SHEAVES) {
		sheaves_free(s, st, i);
		return;
	}
	if (s->fast_rseq && rseq_fast(s, slab_rseq_freelist_push, i,
				      SLAB_FREE_FAST_RSEQ) != SLAB_NIL)
		return;
	c = slab_cpu_lock(s);
	slab_slub_free(s, st, c, i);
	sim_spin_unlock_raw(&c->lock);
}
