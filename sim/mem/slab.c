/* SPDX-License-Identifier: MIT */
/*
 * slab: the cache's mapping and SLUB's own paths (mm/slub.c: the CPU
 * slab's freelist, ___slab_alloc's refills from the remote frees, the
 * partial list or a new slab, and __slab_free). See sim/mem/slab.h.
 */
#include "base/debug.h"
#include "sim/mem/slab.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/mem/slab_int.h"
#include "sim/mem/slab_rseq.h"
#include "sim/host.h"

static size_t align64(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

/* The cache's arrays after it in one mapping: their offsets, the size,
 * and with the mapping M (NULL: the size alone; an offset from a null
 * pointer is undefined, clang's UBSan said) the pointers. */
static void cache_layout(struct slab_cache *s, char *m)
{
	size_t cpu = align64(sizeof(*s));
	size_t slab = cpu + align64(sizeof(struct slab_cpu) * (size_t)s->ncpus);
	size_t sheaf = slab + align64(sizeof(struct slab_page) * s->nslabs);
	size_t krc = sheaf + align64(sizeof(struct sheaf) * s->nsheaves);

	s->bytes = krc + align64(sizeof(struct krc_bulk) * s->nkrc);
	if (!m)
		return;
	s->cpu = (struct slab_cpu *)(m + cpu);
	s->slab = (struct slab_page *)(m + slab);
	s->sheaf = (struct sheaf *)(m + sheaf);
	s->krc = (struct krc_bulk *)(m + krc);
}

static void cache_init_lists(struct slab_cache *s)
{
	ilist_init(&s->partial);
	s->free_pages = SLAB_NIL;
	s->barn_full = s->barn_empty = SLAB_NIL;
	s->free_sheaves = SLAB_NIL;
	for (int c = 0; c < s->ncpus; c++) {
		struct slab_cpu *p = &s->cpu[c];

		p->slab = p->freelist = SLAB_NIL;
		p->main = p->spare = p->rcu_free = SLAB_NIL;
	}
	/* Slabs are carved by new_slab(), which sets every field: a slab
	 * never carved is all zero (not active), and its memory untouched. */
	/* Sheaves are carved as they are first needed (sheaf_new): most
	 * of the room for what lazy RCU may hold is never touched. */
	s->next_sheaf = 0;
	s->free_krc = SLAB_NIL;
	for (int c = 0; c < s->ncpus; c++)
		s->cpu[c].krc = SLAB_NIL;
	for (uint32_t i = s->nkrc; i-- > 0;) {
		s->krc[i].s = s;
		s->krc[i].next = s->free_krc;
		s->free_krc = i;
	}
}

/* The rseq fast paths need an rseq area and a slab_cpu of its own for
 * every CPU a thread may run on (slab_cpu_mine's modulo would otherwise
 * give two CPUs one, and a section is atomic only on its own CPU). */
bool slab_fast_rseq_usable(int ncpus)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);

	return SLAB_RSEQ_CAN && slab_rseq_registered() && conf > 0 &&
	       conf <= ncpus;
}

bool slab_fast_rseq_built(void)
{
	return SLAB_RSEQ_CAN;
}

/* calculate_sizes(): the object's size rounded up to its alignment, and
 * the free pointer where the cache's arguments put it. */
static int cache_objects(struct slab_cache *s, const struct slab_args *a)
{
	static const struct slab_args dflt = { .size = 64, .align = 64 };

	if (!a)
		a = &dflt;
	if (!a->size || !a->align || (a->align & (a->align - 1)) ||
	    a->size > ((size_t)1 << 20))
		return -EINVAL;
	s->objsize = (a->size + a->align - 1) & ~(a->align - 1);
	if (s->objsize < sizeof(uint32_t))
		s->objsize = sizeof(uint32_t);
	s->freeptr = a->use_freeptr_offset ? a->freeptr_offset :
		     (a->size / 2) & ~(size_t)(sizeof(void *) - 1);
	if (s->freeptr % sizeof(uint32_t) ||
	    s->freeptr + sizeof(uint32_t) > s->objsize)
		return -EINVAL;
	s->objs_bytes = s->objsize * s->nobjs;
	return 0;
}

int slab_cache_create(enum slab_kind kind, enum slab_rcu_free rf,
		      const char *name, uint32_t nobjs,
		      const struct slab_args *a, int ncpus,
		      struct slab_cache **out)
{
	struct slab_cache probe = { .kind = kind, .ncpus = ncpus };
	void *m, *objs;
	int ret;

	if ((kind != SLAB_SLUB && kind != SLAB_SHEAVES) || ncpus < 1 ||
	    !nobjs || nobjs > UINT32_MAX - 2 * SLAB_OBJS)
		return -EINVAL;
	probe.nslabs = (nobjs + SLAB_OBJS - 1) / SLAB_OBJS;
	probe.nobjs = probe.nslabs * SLAB_OBJS;
	ret = cache_objects(&probe, a);
	if (ret)
		return ret;
	/* Carved as needed; past them kfree_rcu falls back as the kernel's
	 * does when it cannot allocate a sheaf. */
	if (kind == SLAB_SHEAVES) {
		size_t n = slab_rcu_sheaves(sim_rcu_lazy_limit(), ncpus);

		if (n >= SLAB_NIL)
			return -EINVAL;
		probe.nsheaves = (uint32_t)n;
	}
	/* SLUB's bulk arrays: every object in one, and a spare a CPU. */
	else
		probe.nkrc = probe.nobjs / KFREE_BULK_MAX + 2 * (uint32_t)ncpus;
	cache_layout(&probe, NULL);
	m = host_mmap(NULL, probe.bytes, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	/* The objects: shared too (the slab pages), taken as first used. */
	objs = host_mmap(NULL, probe.objs_bytes, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (objs == MAP_FAILED) {
		ret = -errno;
		host_munmap(m, probe.bytes);
		return ret;
	}
	probe.objs = objs;
	*(struct slab_cache *)m = probe;
	*out = m;
	(*out)->rcu_free = rf;
	(*out)->cb_lazy = rf != RCU_FREE_HURRY;
	(*out)->fast_rseq = slab_fast_rseq_usable(ncpus);
	(*out)->count_rseq = (*out)->fast_rseq;
	snprintf((*out)->name, sizeof((*out)->name), "%s", name);
	cache_layout(*out, m);
	cache_init_lists(*out);
	return 0;
}

void slab_cache_destroy(struct slab_cache *s)
{
	if (s) {
		host_munmap(s->objs, s->objs_bytes);
		host_munmap(s, s->bytes);
	}
}

/* --- the node's partial list (list_lock held) ----------------------------- */

static void add_partial(struct slab_cache *s, uint32_t si)
{
	ilist_push_head(&s->partial, ILIST_OF(s->slab, link), si);
	s->slab[si].on_partial = 1;
	__atomic_store_n(&s->nr_partial, s->nr_partial + 1, __ATOMIC_RELAXED);
}

static void remove_partial(struct slab_cache *s, uint32_t si)
{
	ilist_remove(&s->partial, ILIST_OF(s->slab, link), si);
	s->slab[si].on_partial = 0;
	__atomic_store_n(&s->nr_partial, s->nr_partial - 1, __ATOMIC_RELAXED);
}

/* --- slabs from and back to the pages ------------------------------------- */

static bool new_slab(struct slab_cache *s, struct slab_cpu *c)
{
	uint32_t si, base;
	struct slab_page *sp;

	sim_spin_lock_raw(&s->page_lock);
	si = s->free_pages;
	if (si != SLAB_NIL)
		s->free_pages = s->slab[si].link.next;
	else if (s->next_page < s->nslabs)
		si = s->next_page++;
	sim_spin_unlock_raw(&s->page_lock);
	if (si == SLAB_NIL)
		return false;
	/* allocate_slab(): every object's free pointer written, in order
	 * (no CONFIG_SLAB_FREELIST_RANDOM). */
	base = si * SLAB_OBJS;
	for (uint32_t k = 0; k < SLAB_OBJS; k++)
		set_freepointer(s, base + k,
				k + 1 < SLAB_OBJS ? base + k + 1 : SLAB_NIL);
	sp = &s->slab[si];
	sim_spin_lock_raw(&sp->lock);
	sp->freelist = SLAB_NIL;
	sp->inuse = SLAB_OBJS;
	sp->frozen = sp->active = 1;
	sp->link = (struct ilist_link){ SLAB_NIL, SLAB_NIL };
	sim_spin_unlock_raw(&sp->lock);
	c->slab = si;
	c->freelist = base;
	slab_stat_inc(s, c, SLAB_NEW, 1);
	return true;
}

static void discard_slab(struct slab_cache *s, struct slab_cpu *c, uint32_t si)
{
	sim_spin_lock_raw(&s->page_lock);
	s->slab[si].link.next = s->free_pages;
	s->free_pages = si;
	sim_spin_unlock_raw(&s->page_lock);
	slab_stat_inc(s, c, SLAB_DISCARD, 1);
}

/* --- allocation ----------------------------------------------------------- */

/* get_partial(): the first partial slab becomes c's, its freelist c's. */
static bool get_partial(struct slab_cache *s, const struct slab_stat *st,
			struct slab_cpu *c)
{
	struct slab_page *sp;
	uint64_t t;
	uint32_t si;

	/* Unlocked peek, as get_partial_node() does. */
	if (!__atomic_load_n(&s->nr_partial, __ATOMIC_RELAXED))
		return false;
	t = sim_spin_lock(&s->list_lock, st->list_lock);
	si = s->partial.head;
	if (si != SLAB_NIL) {
		remove_partial(s, si);
		sp = &s->slab[si];
		sim_spin_lock_raw(&sp->lock);
		c->freelist = sp->freelist;
		sp->freelist = SLAB_NIL;
		sp->inuse = SLAB_OBJS;
		sp->frozen = 1;
		sim_spin_unlock_raw(&sp->lock);
		c->slab = si;
	}
	sim_spin_unlock(&s->list_lock, st->list_lock, t);
	return si != SLAB_NIL;
}

/* The CPU slab's remote frees, or (none) it is unfrozen: full, it goes
 * on no list, and a later free puts it on the partial list. */
static bool refill_from_slab(struct slab_cache *s, struct slab_cpu *c)
{
	struct slab_page *sp = &s->slab[c->slab];
	bool got;

	sim_spin_lock_raw(&sp->lock);
	got = sp->freelist != SLAB_NIL;
	if (got) {
		c->freelist = sp->freelist;
		sp->freelist = SLAB_NIL;
		sp->inuse = SLAB_OBJS;
	} else {
		sp->frozen = 0;
	}
	sim_spin_unlock_raw(&sp->lock);
	if (!got)
		c->slab = SLAB_NIL;
	return got;
}

uint32_t slab_slub_alloc_locked(struct slab_cache *s, const struct slab_stat *st,
			   struct slab_cpu *c)
{
	uint32_t i = c->freelist;

	SIM_WARN_ON(!sim_spin_is_locked(&c->lock));   /* lockdep_assert_held */

	if (i == SLAB_NIL) {
		if (!(c->slab != SLAB_NIL && refill_from_slab(s, c)) &&
		    !get_partial(s, st, c) && !new_slab(s, c))
			return SLAB_NIL;
		i = c->freelist;
	}
	c->freelist = get_freepointer(s, i);
	return i;
}

/* --- freeing -------------------------------------------------------------- */

/* __slab_free(): the cnt objects from head to tail (linked by their free pointers, all
 * of one slab, which is not c's) back to their slab. The node's list_lock
 * is taken (first, then the slab's) when the slab will need a list
 * change: it was full, or this empties it. */
static void slab_free_remote(struct slab_cache *s, const struct slab_stat *st,
			     struct slab_cpu *c, uint32_t head, uint32_t tail,
			     uint32_t cnt)
{
	uint32_t si = head / SLAB_OBJS;
	struct slab_page *sp = &s->slab[si];
	bool listed = false, discard = false;
	uint64_t t = 0;

	for (;;) {
		sim_spin_lock_raw(&sp->lock);
		if (listed || sp->frozen ||
		    (sp->inuse > cnt && sp->freelist != SLAB_NIL))
			break;
		sim_spin_unlock_raw(&sp->lock);
		t = sim_spin_lock(&s->list_lock, st->list_lock);
		listed = true;
	}
	set_freepointer(s, tail, sp->freelist);
	sp->freelist = head;
	sp->inuse -= cnt;
	if (listed && !sp->frozen) {
		if (!sp->inuse && s->nr_partial >= SLAB_MIN_PARTIAL) {
			if (sp->on_partial)
				remove_partial(s, si);
			sp->active = 0;
			discard = true;
		} else if (!sp->on_partial) {
			add_partial(s, si);
		}
	}
	sim_spin_unlock_raw(&sp->lock);
	if (listed)
		sim_spin_unlock(&s->list_lock, st->list_lock, t);
	if (discard)
		discard_slab(s, c, si);
}

void slab_slub_free(struct slab_cache *s, const struct slab_stat *st,
	       struct slab_cpu *c, uint32_t i)
{
	SIM_WARN_ON(!sim_spin_is_locked(&c->lock));
	if (c->slab == i / SLAB_OBJS) {
		set_freepointer(s, i, c->freelist);
		c->freelist = i;
		slab_stat_inc(s, c, SLAB_FREE_FASTPATH, 1);
		return;
	}
	slab_stat_inc(s, c, SLAB_FREE_SLOWPATH, 1);
	slab_free_remote(s, st, c, i, i, 1);
}

/* kmem_cache_free_bulk(): build_detached_freelist() gathers the objects
 * of one slab into one list, freed by one __slab_free (one slab lock, at
 * most one list change) — or, for c's own slab, onto c's freelist. The
 * objects are sorted by slab first (n is a sheaf's, at most 32). */
void slab_slub_free_bulk(struct slab_cache *s, const struct slab_stat *st,
		    struct slab_cpu *c, uint32_t *objs, uint32_t n)
{
	SIM_WARN_ON(!sim_spin_is_locked(&c->lock));
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j && objs[j - 1] > objs[j]; j--) {
			uint32_t x = objs[j];

			objs[j] = objs[j - 1];
			objs[j - 1] = x;
		}
	for (uint32_t i = 0, k; i < n; i = k) {
		uint32_t si = objs[i] / SLAB_OBJS;

		for (k = i + 1; k < n && objs[k] / SLAB_OBJS == si; k++)
			set_freepointer(s, objs[k - 1], objs[k]);
		if (si == c->slab) {
			set_freepointer(s, objs[k - 1], c->freelist);
			c->freelist = objs[i];
			slab_stat_inc(s, c, SLAB_FREE_FASTPATH, k - i);
			continue;
		}
		slab_stat_inc(s, c, SLAB_FREE_SLOWPATH, k - i);
		slab_free_remote(s, st, c, objs[i], objs[k - 1], k - i);
	}
}

/* kmem_cache_free_bulk() of a long array, as build_detached_freelist()
 * goes through it: from the end, the last unprocessed object's slab, and
 * every object of that slab found before three others in a row; those
 * freed in one go (c's freelist, or one __slab_free); again from the
 * first one skipped. objs is consumed (entries set to SLAB_NIL). */
void slab_slub_free_detached(struct slab_cache *s, const struct slab_stat *st,
			     struct slab_cpu *c, uint32_t *objs, uint32_t n)
{
	while (n) {
		uint32_t head = objs[--n], tail = head, cnt = 1, skipped = 0;
		uint32_t si = head / SLAB_OBJS;
		int lookahead = 3;

		for (uint32_t k = n; k-- > 0;) {
			uint32_t o = objs[k];

			if (o == SLAB_NIL)
				continue;
			if (o / SLAB_OBJS == si) {
				set_freepointer(s, o, head);
				head = o;
				cnt++;
				objs[k] = SLAB_NIL;
				continue;
			}
			if (!--lookahead)
				break;
			if (!skipped)
				skipped = k + 1;
		}
		if (si == c->slab) {
			set_freepointer(s, tail, c->freelist);
			c->freelist = head;
			slab_stat_inc(s, c, SLAB_FREE_FASTPATH, cnt);
		} else {
			slab_stat_inc(s, c, SLAB_FREE_SLOWPATH, cnt);
			slab_free_remote(s, st, c, head, tail, cnt);
		}
		n = skipped;
		while (n && objs[n - 1] == SLAB_NIL)
			n--;
	}
}

static uint64_t slot_sum(const struct slab_cache *s, enum slab_counter k)
{
	uint64_t sum = 0;

	for (int c = 0; c < s->ncpus; c++)
		sum += atomic_load_explicit(&s->cpu[c].counters[k],
					    memory_order_relaxed);
	return sum;
}

uint64_t slab_counter(const struct slab_cache *s, enum slab_counter k)
{
	switch (k) {
	case SLAB_RCU_INFLIGHT_MAX:
		return atomic_load_explicit(&s->inflight_max, memory_order_relaxed);
	case SLAB_ALLOC_FASTPATH:
		return slot_sum(s, k) + slot_sum(s, SLAB_ALLOC_FAST_RSEQ);
	case SLAB_FREE_FASTPATH:
		return slot_sum(s, k) + slot_sum(s, SLAB_FREE_FAST_RSEQ);
	case SLAB_FAST_RSEQ:
		return slot_sum(s, SLAB_ALLOC_FAST_RSEQ) +
		       slot_sum(s, SLAB_FREE_FAST_RSEQ);
	default:
		return slot_sum(s, k);
	}
}

void slab_count_alloc_wait(struct slab_cache *s)
{
	struct slab_cpu *c = slab_cpu_lock(s);

	slab_stat_inc(s, c, SLAB_ALLOC_WAIT_RCU, 1);
	sim_spin_unlock_raw(&c->lock);
}

/* Every CPU's three, the barn's, and on every CPU what lazy RCU may
 * hold back (lazy_max callbacks, each an rcu_free sheaf at most) twice:
 * a CPU fills its lazy list again while the one it flushed still waits
 * for its grace period and callbacks. */
size_t slab_rcu_sheaves(uint32_t lazy_max, int ncpus)
{
	return (size_t)ncpus * (2 * (size_t)lazy_max + 3) + MAX_FULL_SHEAVES +
	       MAX_EMPTY_SHEAVES + 16;
}

size_t slab_rcu_headroom(uint32_t lazy_max, int ncpus)
{
	return slab_rcu_sheaves(lazy_max, ncpus) * SHEAF_CAPACITY;
}

const char *slab_counter_name(enum slab_counter k)
{
	static const char *const names[SLAB_NCOUNTERS] = {
		"alloc_fastpath", "alloc_slowpath", "free_fastpath",
		"free_slowpath", "slab_new", "slab_discard", "sheaf_refill",
		"sheaf_flush", "barn_get", "barn_get_fail", "barn_put",
		"barn_put_fail", "free_rcu_sheaf", "free_rcu_sheaf_fail",
		"rcu_sheaf_destroyed", "rcu_barrier", "rcu_inflight_max",
		"alloc_wait_rcu", "kfree_rcu_bulk", "kfree_rcu_bulk_freed", "sheaf_prefill_fast",
		"sheaf_prefill_slow", "sheaf_return_fast", "sheaf_return_slow",
		"prealloc", "prealloc_unused", "rcu_cb_local", "rcu_cb_remote",
		"fast_rseq", "rseq_abort",
	};

	return (unsigned)k < SLAB_NCOUNTERS ? names[k] : "?";
}

const char *const slab_kind_names[SLAB_NKINDS] = {
	[SLAB_MALLOC] = "malloc", [SLAB_SLUB] = "slub",
	[SLAB_SHEAVES] = "sheaves",
};
const char *const slab_rcu_free_names[RCU_FREE_NVARIANTS] = {
	[RCU_FREE_CALL_RCU] = "call_rcu", [RCU_FREE_HURRY] = "hurry",
	[RCU_FREE_BARRIER] = "barrier",
};

const char *slab_kind_name(enum slab_kind k)
{
	return slab_kind_names[k];
}

const char *slab_rcu_free_name(enum slab_rcu_free r)
{
	return slab_rcu_free_names[r];
}
