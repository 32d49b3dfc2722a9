/* SPDX-License-Identifier: MIT */
/*
 * The per-CPU page lists (mm/page_alloc.c, 5.17): rmqueue_pcplist(),
 * rmqueue_bulk(), free_unref_page_commit(), nr_pcp_free() and the two
 * free_pcppages_bulk() designs.
 */
#include "sim/mem/frames_int.h"

#include <sched.h>

bool frames_pcp_keeps(int order)
{
	return order <= FRAMES_COSTLY_ORDER || order == FRAMES_THP_ORDER;
}

static int pindex(int order)
{
	return order <= FRAMES_COSTLY_ORDER ? order : FRAMES_COSTLY_ORDER + 1;
}

static int pindex_order(int p)
{
	return p <= FRAMES_COSTLY_ORDER ? p : FRAMES_THP_ORDER;
}

/* This CPU's lists (the thread may move on: it only picks a lock). */
static struct frames_pcp *this_pcp(struct frames *fr)
{
	int cpu = sched_getcpu();

	return &fr->pcp[cpu >= 0 ? cpu % fr->npcp : 0];
}

/* rmqueue_bulk(): up to n blocks of order from the zone onto list. */
static int rmqueue_bulk(struct frames *fr, const struct frames_stat *st,
			int order, int n, struct frames_list *list)
{
	uint64_t t = sim_spin_lock(&fr->zone_lock, st->zone);
	int got = 0;

	for (; got < n; got++) {
		uint32_t i = frames_zone_rmqueue(fr, order);

		if (i == FRAME_NIL)
			break;
		atomic_store_explicit(&fr->f[i].state, FRAME_PCP,
				      memory_order_relaxed);
		/* list_add_tail: the pages keep their order in the zone. */
		ilist_push_tail(list, ILIST_OF(fr->f, link), i);
	}
	sim_spin_unlock(&fr->zone_lock, st->zone, t);
	frames_count(fr, FRAMES_PCP_REFILL, 1);
	return got;
}

uint32_t frames_pcp_alloc(struct frames *fr, const struct frames_stat *st, int order)
{
	struct frames_pcp *pcp = this_pcp(fr);
	struct frames_list *list = &pcp->lists[pindex(order)];
	uint64_t t = sim_spin_lock(&pcp->lock, st->pcp);
	uint32_t i = FRAME_NIL;

	pcp->free_factor >>= 1;
	if (ilist_empty(list)) {
		int batch = order ? (fr->batch >> order > 2 ? fr->batch >> order
							     : 2)
				  : fr->batch;

		pcp->count += rmqueue_bulk(fr, st, order, batch, list) << order;
	}
	if (!ilist_empty(list)) {
		i = list->head;
		ilist_remove(list, ILIST_OF(fr->f, link), i);
		pcp->count -= 1 << order;
		frames_mark_alloc(fr, i, order);
	}
	sim_spin_unlock(&pcp->lock, st->pcp, t);
	return i;
}

/* nr_pcp_free(): batch, doubled for each free without an allocation
 * between, between batch and high - batch. */
static int nr_pcp_free(struct frames_pcp *pcp, int high, int batch)
{
	int min_nr = batch, max_nr = high - batch;

	if (high < batch)
		return 1;
	batch <<= pcp->free_factor;
	if (batch < max_nr)
		pcp->free_factor++;
	return batch < min_nr ? min_nr : batch > max_nr ? max_nr : batch;
}

/* The next block to free, from the tail (the coldest) of list *p until
 * it is empty, then of the next list round-robin: Gorman's selection
 * after "simplify how many pages are selected per pcp list" and "drain
 * the requested list first" (patches 3 and 4 of the 002 series), which
 * both --bulk-free settings share. 5.17-rc3's batch_free rotation (a
 * few blocks a list, more off fuller lists) is not modelled. */
static uint32_t bulk_pick(struct frames *fr, struct frames_pcp *pcp, int *p)
{
	for (int k = 0; k < FRAMES_NR_PCP_LISTS; k++) {
		struct frames_list *l = &pcp->lists[*p];

		if (!ilist_empty(l)) {
			uint32_t i = l->tail;

			ilist_remove(l, ILIST_OF(fr->f, link), i);
			pcp->count -= 1 << pindex_order(*p);
			return i;
		}
		*p = (*p + 1) % FRAMES_NR_PCP_LISTS;
	}
	return FRAME_NIL;
}

static void zone_free_block(struct frames *fr, uint32_t i)
{
	atomic_store_explicit(&fr->f[i].state, FRAME_TAIL, memory_order_relaxed);
	frames_zone_free_one(fr, i, fr->f[i].order);
}

/*
 * free_pcppages_bulk(): give count pages of pcp back to the zone, from
 * the list freed to first (bulk_pick()). twopass (the series before its
 * patch 5/6): pick the blocks off the lists onto a private list, then
 * take the zone lock and free them; onepass (patch 5/6, "free pages in
 * a single pass"): take the zone lock and free each block as it is
 * picked. The selection is the same for both, so the switch isolates
 * the one change patch 5/6 makes.
 */
static void free_pcppages_bulk(struct frames *fr, const struct frames_stat *st,
			       struct frames_pcp *pcp, int count, int p)
{
	struct frames_list head = { FRAME_NIL, FRAME_NIL };
	uint64_t t = 0;
	uint32_t i;

	if (count > pcp->count)
		count = pcp->count;
	frames_count(fr, FRAMES_PCP_DRAIN, 1);
	if (fr->bulk == FRAMES_ONEPASS)
		t = sim_spin_lock(&fr->zone_lock, st->zone);
	while (count > 0 && (i = bulk_pick(fr, pcp, &p)) != FRAME_NIL) {
		count -= 1 << fr->f[i].order;
		if (fr->bulk == FRAMES_ONEPASS)
			zone_free_block(fr, i);
		else
			ilist_push_head(&head, ILIST_OF(fr->f, link), i);
	}
	if (fr->bulk == FRAMES_TWOPASS) {
		t = sim_spin_lock(&fr->zone_lock, st->zone);
		while ((i = head.head) != FRAME_NIL) {
			ilist_remove(&head, ILIST_OF(fr->f, link), i);
			zone_free_block(fr, i);
		}
	}
	sim_spin_unlock(&fr->zone_lock, st->zone, t);
}

/* free_unref_page_commit(), this CPU's lock held: onto its list; past
 * high, a bulk free. */
static void pcp_commit(struct frames *fr, const struct frames_stat *st,
		       struct frames_pcp *pcp, uint32_t i, int order)
{
	atomic_store_explicit(&fr->f[i].state, FRAME_PCP, memory_order_relaxed);
	ilist_push_head(&pcp->lists[pindex(order)], ILIST_OF(fr->f, link), i);
	pcp->count += 1 << order;
	if (pcp->count >= fr->high)
		free_pcppages_bulk(fr, st, pcp,
				   nr_pcp_free(pcp, fr->high, fr->batch),
				   pindex(order));
}

void frames_pcp_free(struct frames *fr, const struct frames_stat *st, uint32_t i,
	      int order)
{
	struct frames_pcp *pcp = this_pcp(fr);
	uint64_t t = sim_spin_lock(&pcp->lock, st->pcp);

	pcp_commit(fr, st, pcp, i, order);
	sim_spin_unlock(&pcp->lock, st->pcp, t);
}

/* free_unref_page_list(): the lock taken once for the list (5.17 drops
 * it every SWAP_CLUSTER_MAX pages; a pagevec is 15). */
void frames_pcp_free_list(struct frames *fr, const struct frames_stat *st,
		   const uint32_t *blocks, int n)
{
	struct frames_pcp *pcp = this_pcp(fr);
	uint64_t t = sim_spin_lock(&pcp->lock, st->pcp);

	for (int k = 0; k < n; k++)
		pcp_commit(fr, st, pcp, blocks[k], 0);
	sim_spin_unlock(&pcp->lock, st->pcp, t);
}
