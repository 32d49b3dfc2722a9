/* SPDX-License-Identifier: MIT */
/*
 * slots — per-thread counter slots, so that no cache line written on
 * every fault is shared by two threads (the statistics must not become a
 * lock of their own).
 *
 * A run says how many threads it will have at once (its tasks, its
 * handlers and a few others) with slots_set_count() before it creates
 * anything with slots; each task and handler binds its own slot
 * (slots_bind), every other thread gets one from the top down. An array made by
 * slot_array_init() has the count of the moment: a thread whose slot lies
 * beyond it (a later, larger run in the same process) shares, still
 * correctly — every update is an atomic RMW.
 */
#ifndef VMSIM_SLOTS_H
#define VMSIM_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#define SLOTS_DEFAULT 32

/* The count arrays are made with from now on (at least 1). */
void slots_set_count(int n);
int slots_count(void);
/* The calling thread uses slot id from now on. */
void slots_bind(int id);
/* The calling thread's slot (bound, or assigned on first use). */
int slot_id(void);

struct slot_array {
	void *base;
	int n;
	size_t each;                     /* bytes a slot, a multiple of 64 */
};

/* Zeroed, cache-line aligned, slots_count() slots of each bytes (rounded
 * up to 64). 0 or -ENOMEM. */
int slot_array_init(struct slot_array *a, size_t each);
void slot_array_destroy(struct slot_array *a);

static inline void *slot_at(const struct slot_array *a, int i)
{
	return (char *)a->base + (size_t)i * a->each;
}

/* The sum over a's slots of the _Atomic uint64_t at byte offset off of
 * each (relaxed: counters). */
uint64_t slot_array_sum(const struct slot_array *a, size_t off);

/* The calling thread's slot of a. */
static inline void *slot_mine(const struct slot_array *a)
{
	int id = slot_id();

	return slot_at(a, id < a->n ? id : id % a->n);
}

#endif
