/* SPDX-License-Identifier: MIT */
/*
 * ilist — a doubly linked list of elements of one array, linked by their
 * 32-bit indices (as the simulated memory's metadata lives in shared
 * mappings, where pointers would differ from process to process): the
 * buddy allocator's free lists and the per-CPU page lists of frames, the
 * slab node's partial list. Each element carries a struct ilist_link;
 * the list its head and tail. Inline: these are the allocators' fast
 * paths, under the lock of their list.
 */
#ifndef VMSIM_ILIST_H
#define VMSIM_ILIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ILIST_NIL UINT32_MAX

struct ilist_link {
	uint32_t next, prev;             /* ILIST_NIL at either end */
};

struct ilist {
	uint32_t head, tail;             /* ILIST_NIL: empty */
};

/* The array a list's elements are in: its first link, and the distance
 * from one link to the next. ILIST_OF(fr->f, link). */
struct ilist_arr {
	char *link0;
	size_t stride;
};
#define ILIST_OF(array, member) \
	((struct ilist_arr){ (char *)&(array)[0].member, sizeof((array)[0]) })

static inline struct ilist_link *ilist_at(struct ilist_arr a, uint32_t i)
{
	return (struct ilist_link *)(a.link0 + (size_t)i * a.stride);
}

static inline bool ilist_empty(const struct ilist *l)
{
	return l->head == ILIST_NIL;
}

static inline void ilist_init(struct ilist *l)
{
	l->head = l->tail = ILIST_NIL;
}

static inline void ilist_push_head(struct ilist *l, struct ilist_arr a,
				   uint32_t i)
{
	ilist_at(a, i)->prev = ILIST_NIL;
	ilist_at(a, i)->next = l->head;
	if (l->head != ILIST_NIL)
		ilist_at(a, l->head)->prev = i;
	else
		l->tail = i;
	l->head = i;
}

static inline void ilist_push_tail(struct ilist *l, struct ilist_arr a,
				   uint32_t i)
{
	ilist_at(a, i)->next = ILIST_NIL;
	ilist_at(a, i)->prev = l->tail;
	if (l->tail != ILIST_NIL)
		ilist_at(a, l->tail)->next = i;
	else
		l->head = i;
	l->tail = i;
}

static inline void ilist_remove(struct ilist *l, struct ilist_arr a, uint32_t i)
{
	struct ilist_link *e = ilist_at(a, i);

	if (e->prev != ILIST_NIL)
		ilist_at(a, e->prev)->next = e->next;
	else
		l->head = e->next;
	if (e->next != ILIST_NIL)
		ilist_at(a, e->next)->prev = e->prev;
	else
		l->tail = e->prev;
	e->next = e->prev = ILIST_NIL;
}

#endif
