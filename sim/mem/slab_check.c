/* SPDX-License-Identifier: MIT */
/* slab_check(): the cache's invariants, for tests (see sim/mem/slab.h). */
#include <stdlib.h>

#include "sim/mem/slab_int.h"

struct chk {
	struct slab_cache *s;
	uint8_t *obj;                    /* places each object is in */
	uint8_t *sheaf;                  /* places each sheaf is in */
	uint64_t free;                   /* objects in some free place */
};

/* Walk a freelist from i: objects of slab si only (SLAB_NIL: any);
 * returns its length, or -1 if it runs away. */
static long walk_objs(struct chk *k, uint32_t i, uint32_t si)
{
	long n = 0;

	for (; i != SLAB_NIL; i = get_freepointer(k->s, i)) {
		if (i >= k->s->nobjs || (si != SLAB_NIL && i / SLAB_OBJS != si) ||
		    ++n > SLAB_OBJS)
			return -1;
		k->obj[i]++;
		k->free++;
	}
	return n;
}

static const char *mark_sheaf(struct chk *k, uint32_t i, long want_size)
{
	struct sheaf *sh;

	if (i == SLAB_NIL)
		return NULL;
	if (i >= k->s->nsheaves || k->sheaf[i]++)
		return "a sheaf is in two places";
	sh = &k->s->sheaf[i];
	if (sh->size > SHEAF_CAPACITY ||
	    (want_size >= 0 && sh->size != (uint32_t)want_size))
		return "a sheaf has the wrong number of objects";
	for (uint32_t j = 0; j < sh->size; j++) {
		if (sh->objs[j] >= k->s->nobjs)
			return "a sheaf holds no object";
		k->obj[sh->objs[j]]++;
		k->free++;
	}
	return NULL;
}

/* A list of sheaves linked through next: each marked; the count. */
static const char *walk_sheaves(struct chk *k, uint32_t i, long want_size,
				uint32_t *count)
{
	*count = 0;
	for (; i != SLAB_NIL; i = k->s->sheaf[i].next) {
		const char *e = mark_sheaf(k, i, want_size);

		if (e)
			return e;
		if (++*count > k->s->nsheaves)
			return "a sheaf list runs away";
	}
	return NULL;
}

static const char *check_slabs(struct chk *k)
{
	struct slab_cache *s = k->s;
	uint32_t n = 0, prev = SLAB_NIL;

	for (uint32_t si = 0; si < s->nslabs; si++) {
		struct slab_page *sp = &s->slab[si];
		long len;

		if (!sp->active) {
			if (sp->frozen || sp->on_partial)
				return "a slab given back is still in use";
			continue;
		}
		len = walk_objs(k, sp->freelist, si);
		if (len < 0 || sp->inuse != SLAB_OBJS - (uint32_t)len)
			return "a slab's inuse disagrees with its freelist";
		if (!sp->frozen && (sp->inuse < SLAB_OBJS) != sp->on_partial)
			return "a slab with free objects is not on the partial list";
		if (sp->frozen && sp->on_partial)
			return "a CPU's slab is on the partial list";
	}
	for (uint32_t si = s->partial.head; si != SLAB_NIL;
	     si = s->slab[si].link.next) {
		if (s->slab[si].link.prev != prev || !s->slab[si].on_partial ||
		    ++n > s->nslabs)
			return "the partial list's links are wrong";
		prev = si;
	}
	if (n != s->nr_partial)
		return "nr_partial disagrees with the partial list";
	return NULL;
}

/* A CPU's kfree_rcu bulk array: its objects are in a free place. */
static const char *mark_krc(struct chk *k, uint32_t b)
{
	struct slab_cache *s = k->s;

	if (b >= s->nkrc || s->krc[b].n > KFREE_BULK_MAX)
		return "a CPU's bulk array is not one";
	for (uint32_t j = 0; j < s->krc[b].n; j++) {
		uint32_t i = s->krc[b].objs[j];

		if (i >= s->nobjs)
			return "a bulk array holds no object";
		k->obj[i]++;
		k->free++;
	}
	return NULL;
}

/* Every bulk array is a CPU's or unused: none in flight. */
static const char *check_krc(struct chk *k)
{
	struct slab_cache *s = k->s;
	uint32_t n = 0;

	for (uint32_t i = s->free_krc; i != SLAB_NIL && n <= s->nkrc;
	     i = s->krc[i].next)
		n++;
	for (int c = 0; c < s->ncpus; c++)
		n += s->cpu[c].krc != SLAB_NIL;
	return n == s->nkrc ? NULL : "a bulk array is nowhere (in flight?)";
}

static const char *check_cpus(struct chk *k)
{
	struct slab_cache *s = k->s;
	uint32_t *owner = calloc(s->nslabs, sizeof(*owner));
	const char *e = NULL;

	if (!owner)
		return "out of memory";
	for (int c = 0; c < s->ncpus && !e; c++) {
		struct slab_cpu *p = &s->cpu[c];

		if (p->slab != SLAB_NIL) {
			if (p->slab >= s->nslabs || !s->slab[p->slab].frozen ||
			    owner[p->slab]++)
				e = "a CPU's slab is not frozen, or is two CPUs'";
			else if (walk_objs(k, p->freelist, p->slab) < 0)
				e = "a CPU freelist holds objects of another slab";
		} else if (p->freelist != SLAB_NIL) {
			e = "a CPU freelist without a slab";
		}
		if (!e)
			e = mark_sheaf(k, p->main, -1);
		if (!e)
			e = mark_sheaf(k, p->spare, -1);
		if (!e)
			e = mark_sheaf(k, p->rcu_free, -1);
		if (!e && p->krc != SLAB_NIL)
			e = mark_krc(k, p->krc);
	}
	for (uint32_t si = 0; si < s->nslabs && !e; si++)
		if (s->slab[si].frozen && !owner[si])
			e = "a frozen slab belongs to no CPU";
	free(owner);
	return e;
}

static const char *check_sheaves(struct chk *k)
{
	struct slab_cache *s = k->s;
	uint32_t n;
	const char *e = walk_sheaves(k, s->barn_full, SHEAF_CAPACITY, &n);

	if (!e && n != s->nr_full)
		e = "nr_full disagrees with the barn";
	if (!e && !(e = walk_sheaves(k, s->barn_empty, 0, &n)) &&
	    n != s->nr_empty)
		e = "nr_empty disagrees with the barn";
	if (!e)
		e = walk_sheaves(k, s->free_sheaves, -1, &n);
	for (uint32_t i = 0; !e && i < s->next_sheaf; i++)
		if (!k->sheaf[i])
			e = "a sheaf is nowhere (in flight?)";
	return e;
}

static const char *check_objects(struct chk *k, const uint8_t *live,
				 uint64_t nlive)
{
	struct slab_cache *s = k->s;
	uint64_t active = 0;

	for (uint32_t i = 0; i < s->nobjs; i++) {
		unsigned places = k->obj[i] + (live && live[i] ? 1 : 0);

		if (!s->slab[i / SLAB_OBJS].active) {
			if (places)
				return "an object of a slab given back is in use";
			continue;
		}
		active++;
		if (places > 1)
			return "an object is in two places (freed twice?)";
		if (live && !places)
			return "an object is nowhere (leaked)";
	}
	if (k->free + nlive != active)
		return "free and live objects do not add up to the slabs";
	return NULL;
}

const char *slab_check(struct slab_cache *s, const uint8_t *live,
		       uint64_t nlive)
{
	struct chk k = { .s = s };
	const char *e;

	k.obj = calloc(s->nobjs, 1);
	k.sheaf = calloc(s->nsheaves + 1, 1);
	if (!k.obj || !k.sheaf)
		e = "out of memory";
	else if (atomic_load(&s->inflight))
		e = "sheaves are in flight";
	else if (!(e = check_slabs(&k)) && !(e = check_cpus(&k)) &&
		 !(e = check_sheaves(&k)) && !(e = check_krc(&k)))
		e = check_objects(&k, live, nlive);
	free(k.obj);
	free(k.sheaf);
	return e;
}
