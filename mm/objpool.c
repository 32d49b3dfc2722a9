/* SPDX-License-Identifier: MIT */
#include "mm/objpool.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "sync/rcu.h"
#include "uffd/host.h"

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
	return -pthread_mutex_init(&p->lock, NULL);
}

void objpool_destroy(struct objpool *p)
{
	if (!p->base)
		return;
	host_munmap(p->base, p->objsize * p->cap);
	pthread_mutex_destroy(&p->lock);
	p->base = NULL;
}

void *objpool_alloc(struct objpool *p)
{
	void *o = NULL;

	pthread_mutex_lock(&p->lock);
	if (p->free) {
		o = p->free;
		p->free = *(void **)o;
	} else if (p->next < p->cap) {
		o = p->base + p->objsize * p->next++;
	}
	if (o)
		p->live++;
	pthread_mutex_unlock(&p->lock);
	if (o)
		memset(o, 0, p->objsize);
	return o;
}

void *objpool_alloc_reclaim(struct objpool *p)
{
	void *o = objpool_alloc(p);

	if (!o) {
		sim_rcu_barrier();
		o = objpool_alloc(p);
	}
	return o;
}

void objpool_free(struct objpool *p, void *obj)
{
	if (!obj)
		return;
	pthread_mutex_lock(&p->lock);
	*(void **)obj = p->free;
	p->free = obj;
	p->live--;
	pthread_mutex_unlock(&p->lock);
}

size_t objpool_live(struct objpool *p)
{
	size_t n;

	pthread_mutex_lock(&p->lock);
	n = p->live;
	pthread_mutex_unlock(&p->lock);
	return n;
}
