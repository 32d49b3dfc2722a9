/* SPDX-License-Identifier: MIT */
/* frames_check(): the allocator's invariants, for the tests. */
#include "sim/mem/frames_int.h"

#include <stdio.h>
#include <stdlib.h>

struct walk {
	struct frames *fr;
	uint8_t *seen;                   /* frames covered by a block */
	char msg[200];
};

/* Block [i, i + 2^order): inside the zone, its tails tails, seen once. */
static bool cover(struct walk *w, uint32_t i, int order, const char *where)
{
	struct frames *fr = w->fr;

	if (order >= FRAMES_NR_ORDERS || (i & ((1u << order) - 1)) ||
	    i + (1u << order) > fr->nframes) {
		snprintf(w->msg, sizeof(w->msg), "%s: block %u of order %d is "
			 "not an aligned block of the zone", where, i, order);
		return false;
	}
	for (uint32_t k = i; k < i + (1u << order); k++) {
		if (w->seen[k]++ || (k > i && fr->f[k].state != FRAME_TAIL)) {
			snprintf(w->msg, sizeof(w->msg), "%s: frame %u (in block "
				 "%u, order %d) is in two blocks", where, k, i,
				 order);
			return false;
		}
	}
	return true;
}

static bool walk_list(struct walk *w, const struct frames_list *l,
		      enum frame_state st, int order, uint64_t *pages,
		      const char *where)
{
	uint32_t prev = FRAME_NIL, n = 0;

	for (uint32_t i = l->head; i != FRAME_NIL; i = w->fr->f[i].link.next) {
		const struct frame *f = &w->fr->f[i];

		if (f->state != st || f->order != order || f->link.prev != prev ||
		    ++n > w->fr->nframes) {
			snprintf(w->msg, sizeof(w->msg), "%s: frame %u on the "
				 "list of order %d has state %d order %d", where,
				 i, order, f->state, f->order);
			return false;
		}
		if (!cover(w, i, order, where))
			return false;
		*pages += 1u << order;
		prev = i;
	}
	if (l->tail != prev) {
		snprintf(w->msg, sizeof(w->msg), "%s: list of order %d: tail %u, "
			 "last %u", where, order, l->tail, prev);
		return false;
	}
	return true;
}

static bool check_buddy(struct walk *w)
{
	struct frames *fr = w->fr;

	for (int o = 0; o < FRAMES_NR_ORDERS; o++) {
		uint64_t pages = 0;

		if (!walk_list(w, &fr->free_area[o], FRAME_FREE, o, &pages, "zone"))
			return false;
		if (pages != fr->nr_free[o] << o) {
			snprintf(w->msg, sizeof(w->msg), "zone: order %d counts "
				 "%lu blocks, its list holds %lu", o,
				 (unsigned long)fr->nr_free[o],
				 (unsigned long)(pages >> o));
			return false;
		}
		for (uint32_t i = fr->free_area[o].head; i != FRAME_NIL;
		     i = fr->f[i].link.next) {
			uint32_t b = i ^ (1u << o);

			if (o < FRAMES_NR_ORDERS - 1 && b < fr->nframes &&
			    fr->f[b].state == FRAME_FREE && fr->f[b].order == o) {
				snprintf(w->msg, sizeof(w->msg), "zone: free "
					 "buddies %u and %u of order %d left "
					 "unmerged", i, b, o);
				return false;
			}
		}
	}
	return true;
}

static bool check_pcp(struct walk *w)
{
	struct frames *fr = w->fr;

	for (int c = 0; c < fr->npcp; c++) {
		uint64_t pages = 0;

		for (int p = 0; p < FRAMES_NR_PCP_LISTS; p++)
			if (!walk_list(w, &fr->pcp[c].lists[p], FRAME_PCP,
				       p <= FRAMES_COSTLY_ORDER ? p : FRAMES_THP_ORDER,
				       &pages, "pcp"))
				return false;
		if (pages != (uint64_t)fr->pcp[c].count) {
			snprintf(w->msg, sizeof(w->msg), "pcp %d: count %d, lists "
				 "hold %lu pages", c, fr->pcp[c].count,
				 (unsigned long)pages);
			return false;
		}
	}
	return true;
}

static bool check_alloc(struct walk *w, const uint16_t *refs)
{
	struct frames *fr = w->fr;

	for (uint32_t i = 0; i < fr->nframes; i++) {
		if (fr->f[i].state != FRAME_ALLOC)
			continue;
		if (!cover(w, i, fr->f[i].order, "allocated"))
			return false;
		if (refs && fr->f[i].ref != refs[i]) {
			snprintf(w->msg, sizeof(w->msg), "folio %u (order %d) "
				 "holds %u references, its pages say %u", i,
				 fr->f[i].order, fr->f[i].ref, refs[i]);
			return false;
		}
	}
	for (uint32_t i = 0; i < fr->nframes; i++)
		if (!w->seen[i]) {
			snprintf(w->msg, sizeof(w->msg), "frame %u is in no "
				 "block: neither free nor allocated", i);
			return false;
		}
	return true;
}

const char *frames_check(struct frames *fr, const uint16_t *refs)
{
	static _Thread_local char msg[200];
	struct walk w = { .fr = fr, .seen = calloc(fr->nframes, 1) };
	bool ok;

	uint64_t t[FRAMES_MAX_CPUS + 1];

	if (!w.seen)
		return "out of memory";
	/* The locks, in the allocator's order (a CPU's lists, then the
	 * zone): a check never reads a list a handler is changing, and sees
	 * everything done under them before. */
	for (int c = 0; c < fr->npcp; c++)
		t[c] = sim_spin_lock(&fr->pcp[c].lock, NULL);
	t[fr->npcp] = sim_spin_lock(&fr->zone_lock, NULL);
	ok = check_buddy(&w) && check_pcp(&w) && check_alloc(&w, refs);
	sim_spin_unlock(&fr->zone_lock, NULL, t[fr->npcp]);
	for (int c = fr->npcp - 1; c >= 0; c--)
		sim_spin_unlock(&fr->pcp[c].lock, NULL, t[c]);
	free(w.seen);
	if (ok)
		return NULL;
	snprintf(msg, sizeof(msg), "%s", w.msg);
	return msg;
}
