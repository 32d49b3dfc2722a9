/* SPDX-License-Identifier: MIT */
#include "sim/mem/objpool.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "locks/sync/rcu.h"
#include "sim/host.h"

static size_t objpool_objsize(size_t size, size_t align)
{
	if (size < sizeof(void *))
		size = sizeof(void *);
	return (size + align - 1) & ~(align - 1);
}

size_t objpool_reserve_bytes(size_t size, size_t align, size_t cap)
{
	return objpool_objsize(size, align) * cap;
}

int objpool_init(struct objpool *p, size_t size, size_t align, size_t cap)
{
	void *base;

	memset(p, 0, sizeof(*p));
	p->objsize = objpool_objsize(size, align);
	p->cap = cap;
	base = host_mmap(NULL, p->objsize * cap, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return -errno;
	p->base = base;
	if (slot_array_init(&p->caches, sizeof(struct objpool_cache))) {
		host_munmap(base, p->objsize * cap);
		p->base = NULL;
		return -ENOMEM;
	}
	return -pthread_mutex_init(&p->lock, NULL);
}

int objpool_init_slab(struct objpool *p, size_t size, size_t align,
		      struct slab_cache *s, const struct slab_stat *st,
		      size_t rcu_off)
{
	memset(p, 0, sizeof(*p));
	/* The objects are the cache's (its shared memory); made for them. */
	if (objpool_objsize(size, align) != s->objsize)
		return -EINVAL;
	p->objsize = s->objsize;
	p->cap = s->nobjs;
	p->base = s->objs;
	p->slab = s;
	p->st = st;
	p->rcu_off = rcu_off;
	return 0;
}

void objpool_destroy(struct objpool *p)
{
	if (!p->base)
		return;
	if (!p->slab) {                  /* a cache's objects are its own */
		host_munmap(p->base, p->objsize * p->cap);
		slot_array_destroy(&p->caches);
		pthread_mutex_destroy(&p->lock);
	}
	p->base = NULL;
}

/* Shared list held: up to OBJPOOL_BATCH objects into c. */
static void refill(struct objpool *p, struct objpool_cache *c)
{
	pthread_mutex_lock(&p->lock);
	while (c->n < OBJPOOL_BATCH) {
		void *o = p->free;

		if (o)
			p->free = *(void **)o;
		else if (p->next < p->cap)
			o = p->base + p->objsize * p->next++;
		else
			break;
		c->obj[c->n++] = o;
	}
	pthread_mutex_unlock(&p->lock);
}

/* n of c's objects back to the shared list. */
static void flush(struct objpool *p, struct objpool_cache *c, int n)
{
	pthread_mutex_lock(&p->lock);
	while (n-- > 0 && c->n) {
		void *o = c->obj[--c->n];

		*(void **)o = p->free;
		p->free = o;
	}
	pthread_mutex_unlock(&p->lock);
}

void *objpool_alloc(struct objpool *p)
{
	struct objpool_cache *c;
	void *o = NULL;

	if (p->slab) {
		o = slab_object(p->slab, slab_alloc(p->slab, p->st));
		if (!o)
			return NULL;
		atomic_fetch_add_explicit(&p->live, 1, memory_order_relaxed);
		if (!p->typesafe)
			memset(o, 0, p->objsize);
		return o;
	}
	c = slot_mine(&p->caches);
	sim_spin_lock_raw(&c->lock);
	if (!c->n)
		refill(p, c);
	if (c->n)
		o = c->obj[--c->n];
	sim_spin_unlock_raw(&c->lock);
	if (!o)
		return NULL;
	atomic_fetch_add_explicit(&p->live, 1, memory_order_relaxed);
	if (!p->typesafe)
		memset(o, 0, p->objsize);
	return o;
}

/* Every thread's cache back to the shared list (the pool ran dry). */
static void drain_caches(struct objpool *p)
{
	for (int i = 0; i < p->caches.n; i++) {
		struct objpool_cache *c = slot_at(&p->caches, i);

		sim_spin_lock_raw(&c->lock);
		flush(p, c, c->n);
		sim_spin_unlock_raw(&c->lock);
	}
}

void *objpool_alloc_reclaim(struct objpool *p)
{
	void *o = objpool_alloc(p);

	if (!o) {
		if (p->slab)
			slab_count_alloc_wait(p->slab);
		objpool_rcu_barrier(p);
		if (!p->slab)
			drain_caches(p);
		o = objpool_alloc(p);
	}
	return o;
}

void objpool_rcu_barrier(struct objpool *p)
{
	if (p && p->slab)
		slab_rcu_flush(p->slab, p->st);
	sim_rcu_barrier();
}

void objpool_free_rcu(struct objpool *p, struct sim_rcu_head *h,
		      void (*fn)(struct sim_rcu_head *h))
{
	if (p && p->slab &&
	    slab_free_rcu(p->slab, p->st, slab_index(p->slab, (char *)h - p->rcu_off))) {
		atomic_fetch_sub_explicit(&p->live, 1, memory_order_relaxed);
		return;
	}
	if (p && p->slab && p->slab->cb_lazy)
		sim_call_rcu_lazy(h, fn);
	else
		sim_call_rcu(h, fn);
}

void objpool_free(struct objpool *p, void *obj)
{
	struct objpool_cache *c;

	if (!obj)
		return;
	if (p->slab) {
		slab_free(p->slab, p->st, slab_index(p->slab, obj));
		atomic_fetch_sub_explicit(&p->live, 1, memory_order_relaxed);
		return;
	}
	c = slot_mine(&p->caches);
	sim_spin_lock_raw(&c->lock);
	if (c->n == OBJPOOL_CACHE)
		flush(p, c, OBJPOOL_BATCH);
	c->obj[c->n++] = obj;
	sim_spin_unlock_raw(&c->lock);
	atomic_fetch_sub_explicit(&p->live, 1, memory_order_relaxed);
}

bool objpool_owns(const struct objpool *p, const void *obj)
{
	const char *o = obj;

	if (p->slab)
		return o >= p->slab->objs &&
		       o < p->slab->objs + p->slab->objsize * p->slab->nobjs;
	return o >= p->base && o < p->base + p->objsize * p->cap;
}

/* kmem_cache_alloc_bulk(): n objects (zeroed) or none. With a slab
 * cache one bulk call (SLUB: the CPU's freelist under one lock; sheaves:
 * the main sheaf, alloc_from_pcs_bulk); after what RCU holds once. */
static size_t alloc_bulk_once(struct objpool *p, size_t n, void **out)
{
	uint32_t idx[OBJPOOL_PRE_MAX];
	size_t k = 0;

	if (!p->slab) {
		while (k < n && (out[k] = objpool_alloc(p)))
			k++;
		return k;
	}
	while (k < n) {
		uint32_t want = (uint32_t)(n - k < OBJPOOL_PRE_MAX ? n - k :
					   OBJPOOL_PRE_MAX);
		uint32_t got = slab_alloc_bulk(p->slab, p->st, want, idx);

		for (uint32_t j = 0; j < got; j++) {
			out[k] = slab_object(p->slab, idx[j]);
			if (!p->typesafe)
				memset(out[k], 0, p->objsize);
			k++;
		}
		atomic_fetch_add_explicit(&p->live, got, memory_order_relaxed);
		if (got < want)
			break;
	}
	return k;
}

size_t objpool_alloc_bulk(struct objpool *p, size_t n, void **out)
{
	size_t k = alloc_bulk_once(p, n, out);

	if (k < n) {
		objpool_free_bulk(p, k, out);
		objpool_rcu_barrier(p);
		k = alloc_bulk_once(p, n, out);
	}
	if (k < n) {
		objpool_free_bulk(p, k, out);
		return 0;
	}
	return n;
}

void objpool_free_bulk(struct objpool *p, size_t n, void **objs)
{
	uint32_t idx[OBJPOOL_PRE_MAX];

	if (!p->slab) {
		for (size_t k = 0; k < n; k++)
			objpool_free(p, objs[k]);
		return;
	}
	for (size_t k = 0; k < n;) {
		uint32_t m = 0;

		while (k < n && m < OBJPOOL_PRE_MAX)
			idx[m++] = slab_index(p->slab, objs[k++]);
		slab_free_bulk(p->slab, p->st, idx, m);
		atomic_fetch_sub_explicit(&p->live, m, memory_order_relaxed);
	}
}

/* --- preallocation for a store ------------------------------------------- */

int objpool_pre_count(const struct objpool *p, const struct objpool_pre *pa)
{
	int n = pa->n;

	if (pa->sheaf != SLAB_NIL)
		n += (int)slab_sheaf_size(p->slab, pa->sheaf);
	return n;
}

/* With sheaves: a prefilled sheaf for want (slab_prefill_sheaf refuses
 * more than a sheaf holds), or the one held refilled. */
static bool pre_fill_sheaf(struct objpool *p, struct objpool_pre *pa, int want)
{
	if (pa->sheaf == SLAB_NIL)
		pa->sheaf = slab_prefill_sheaf(p->slab, p->st, (uint32_t)want);
	else
		(void)slab_refill_sheaf(p->slab, p->st, pa->sheaf, (uint32_t)want);
	return pa->sheaf != SLAB_NIL &&
	       slab_sheaf_size(p->slab, pa->sheaf) >= (uint32_t)want;
}

int objpool_pre_fill_single(struct objpool *p, struct objpool_pre *pa, int want)
{
	if (want > OBJPOOL_PRE_MAX)
		return -ENOMEM;
	while (objpool_pre_count(p, pa) < want) {
		void *o;

		if (p->slab) {
			o = slab_object(p->slab, slab_alloc(p->slab, p->st));
			if (!o) {                /* what RCU holds, then once */
				slab_count_alloc_wait(p->slab);
				objpool_rcu_barrier(p);
				o = slab_object(p->slab, slab_alloc(p->slab, p->st));
			}
		} else {
			o = objpool_alloc_reclaim(p);
			if (o)           /* not live while it waits here */
				atomic_fetch_sub_explicit(&p->live, 1,
							  memory_order_relaxed);
		}
		if (!o)
			return -ENOMEM;
		pa->obj[pa->n++] = o;
	}
	return 0;
}

int objpool_pre_fill(struct objpool *p, struct objpool_pre *pa, int want)
{
	int have = objpool_pre_count(p, pa);

	if (want > pa->asked - pa->used)     /* this store's own ask */
		pa->asked = pa->used + want;
	if (have >= want)
		return 0;
	if (want > OBJPOOL_PRE_MAX)
		return -ENOMEM;
	/* mas_alloc_nodes(): one node is one allocation (from the main
	 * sheaf, or the CPU's slab); only a larger request takes a
	 * prefilled sheaf or a bulk allocation. */
	if (want - have == 1)
		return objpool_pre_fill_single(p, pa, want);
	if (p->slab && p->slab->kind == SLAB_SHEAVES && pre_fill_sheaf(p, pa, want))
		return 0;
	if (p->slab) {                   /* kmem_cache_alloc_bulk */
		uint32_t idx[OBJPOOL_PRE_MAX];
		uint32_t k = slab_alloc_bulk(p->slab, p->st, (uint32_t)(want - have), idx);

		for (uint32_t j = 0; j < k; j++)
			pa->obj[pa->n++] = slab_object(p->slab, idx[j]);
	}
	return objpool_pre_fill_single(p, pa, want);    /* what is left */
}

void *objpool_pre_take(struct objpool *p, struct objpool_pre *pa)
{
	void *o = NULL;

	if (pa->n)
		o = pa->obj[--pa->n];
	else if (pa->sheaf != SLAB_NIL)
		o = slab_object(p->slab, slab_sheaf_pop(p->slab, pa->sheaf));
	if (!o)
		return NULL;
	pa->used++;
	atomic_fetch_add_explicit(&p->live, 1, memory_order_relaxed);
	if (!p->typesafe)
		memset(o, 0, p->objsize);
	return o;
}

void objpool_pre_put(struct objpool *p, struct objpool_pre *pa, void *obj)
{
	pa->used--;
	atomic_fetch_sub_explicit(&p->live, 1, memory_order_relaxed);
	if (pa->sheaf != SLAB_NIL &&
	    slab_sheaf_push(p->slab, pa->sheaf, slab_index(p->slab, obj)))
		return;
	if (pa->n < OBJPOOL_PRE_MAX) {
		pa->obj[pa->n++] = obj;
		return;
	}
	atomic_fetch_add_explicit(&p->live, 1, memory_order_relaxed);
	objpool_free(p, obj);
}

void objpool_pre_return(struct objpool *p, struct objpool_pre *pa)
{
	uint32_t idx[OBJPOOL_PRE_MAX];

	/* What the stores asked for, and of that what they did not use. */
	if (p->slab && pa->asked) {
		slab_count(p->slab, SLAB_PREALLOC, (uint64_t)pa->asked);
		if (pa->asked > pa->used)
			slab_count(p->slab, SLAB_PREALLOC_UNUSED,
				   (uint64_t)(pa->asked - pa->used));
	}
	pa->asked = pa->used = 0;
	if (pa->sheaf != SLAB_NIL)
		slab_return_sheaf(p->slab, p->st, pa->sheaf);
	pa->sheaf = SLAB_NIL;
	for (int k = 0; k < pa->n; k++) {
		if (p->slab) {
			idx[k] = slab_index(p->slab, pa->obj[k]);
		} else {                 /* counted live while held */
			atomic_fetch_add_explicit(&p->live, 1, memory_order_relaxed);
			objpool_free(p, pa->obj[k]);
		}
	}
	if (p->slab && pa->n)
		slab_free_bulk(p->slab, p->st, idx, (uint32_t)pa->n);
	pa->n = 0;
}

size_t objpool_live(struct objpool *p)
{
	return atomic_load_explicit(&p->live, memory_order_relaxed);
}
