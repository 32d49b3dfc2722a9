/* SPDX-License-Identifier: MIT */
#include "base/slots.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static _Atomic int slots_n = SLOTS_DEFAULT;
static _Atomic int slots_next;           /* round-robin for unbound threads */
static _Thread_local int slots_mine = -1;

void slots_set_count(int n)
{
	atomic_store(&slots_n, n > 0 ? n : 1);
}

int slots_count(void)
{
	return atomic_load_explicit(&slots_n, memory_order_relaxed);
}

void slots_bind(int id)
{
	slots_mine = id >= 0 ? id : 0;
}

/* A thread that binds no slot (the main thread, the agent, the RCU
 * callback thread, a test's threads) takes one from the top down, so
 * that it shares none with the tasks and handlers that bind theirs from
 * the bottom (a run counts a few slots for such threads). */
int slot_id(void)
{
	if (slots_mine < 0) {
		int n = slots_count();

		slots_mine = n - 1 - atomic_fetch_add_explicit(&slots_next, 1,
				memory_order_relaxed) % n;
	}
	return slots_mine;
}

int slot_array_init(struct slot_array *a, size_t each)
{
	size_t sz;

	a->n = slots_count();
	a->each = (each + 63) & ~(size_t)63;
	sz = a->each * (size_t)a->n;
	a->base = aligned_alloc(64, sz);
	if (!a->base)
		return -ENOMEM;
	memset(a->base, 0, sz);
	return 0;
}

uint64_t slot_array_sum(const struct slot_array *a, size_t off)
{
	uint64_t n = 0;

	for (int i = 0; i < a->n; i++)
		n += atomic_load_explicit((_Atomic uint64_t *)
					  ((char *)slot_at(a, i) + off),
					  memory_order_relaxed);
	return n;
}

void slot_array_destroy(struct slot_array *a)
{
	free(a->base);
	a->base = NULL;
}
