/* SPDX-License-Identifier: MIT */
/*
 * range_list — the list-based reader/writer range lock of Kogan, Dice
 * and Issa, "Scalable Range Locks for Scalable Address Spaces and
 * Beyond" (EuroSys 2020): the held (and being-acquired) ranges kept as a
 * linked list sorted by start, changed only by compare-and-swap — no
 * internal lock, where the interval-tree range lock (locks/range.c)
 * takes a spinlock on every acquisition and release.
 *
 * Acquire [start, end): walk the list from its head; a node entirely
 * before ours (or a reader that starts no later than ours, when we read
 * too) is passed; where ours goes entirely before the next node (or, both
 * readers, starts no later) it is linked in with one CAS; a node that
 * overlaps and conflicts is waited for. Then validate: a writer walks
 * from the head to itself and, if an overlapping node was linked in
 * before it meanwhile, releases its node and starts again; a reader waits
 * for any overlapping writer linked in after it.
 * Release: mark the node's next pointer (logical deletion); whoever walks
 * past a marked node next unlinks it (one CAS) and retires it.
 *
 * Memory: a node is malloc'd per acquisition (the paper's kmalloc) and,
 * once unlinked, freed after an RCU grace period (sim_call_rcu): a walker
 * inside sim_rcu_read_lock() never reads a freed node. A waiter spins a
 * little, then sleeps on the node's word (a futex) outside the RCU
 * section, holding a reference so the node outlives its sleep, and walks
 * again from the head. Not FIFO (as the paper's): conflicting waiters go
 * in the order their walks reach the list.
 *
 * Downgrade (not in the paper; munmap needs it): a held writer becomes a
 * reader in place and wakes its waiters, who look again.
 */
#ifndef VMSIM_LOCKS_SYNC_RANGE_LIST_H
#define VMSIM_LOCKS_SYNC_RANGE_LIST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "locks/sync/lockstat.h"
#include "locks/sync/rcu.h"
#include "base/slots.h"

/* One range, held or being acquired. */
struct srl_node {
	unsigned long start, end;        /* [start, end) */
	_Atomic bool reader;
	_Atomic uintptr_t next;          /* struct srl_node *, bit 0: released */
	_Atomic int word;                /* SRL_* bits: what a sleeper waits on */
	_Atomic int refs;                /* the list's 1, and each sleeper's */
	bool waited;                     /* its acquirer's: it waited */
	struct sim_rcu_head rcu;
};

/* The lock's own events, per thread (slots), summed by
 * sim_range_list_counters(). */
enum srl_counter {
	SRL_CAS_FAIL,                    /* a link or unlink CAS that lost */
	SRL_RESTART,                     /* a walk begun again from the head */
	SRL_WAIT,                        /* a conflicting node waited for */
	SRL_SLEEP,                       /* ... past the spin: a futex sleep */
	SRL_VALIDATE_FAIL,               /* a writer that had to let go */
	SRL_NCOUNTERS
};

struct sim_range_list {
	_Atomic uintptr_t head;          /* struct srl_node * */
	struct lockstat_class *stat;     /* NULL: not counted */
	struct slot_array slots;         /* uint64_t[SRL_NCOUNTERS] each */
};

/* An empty lock counted on cls (NULL: not counted). 0 or -ENOMEM. */
int sim_range_list_init(struct sim_range_list *l, struct lockstat_class *cls);
/* Nothing may hold it; frees the nodes still in the list. */
void sim_range_list_destroy(struct sim_range_list *l);
/* [start, end) for reading or writing; the node that holds it (for
 * unlock and downgrade), and when it was acquired into *t_acquired.
 * NULL only when out of memory. */
struct srl_node *sim_range_list_lock(struct sim_range_list *l,
				     unsigned long start, unsigned long end,
				     bool writer, uint64_t *t_acquired);
void sim_range_list_unlock(struct sim_range_list *l, struct srl_node *n,
			   uint64_t t_acquired);
/* A held writer's range, read now: returns the new t_acquired. */
uint64_t sim_range_list_downgrade(struct sim_range_list *l, struct srl_node *n,
				  uint64_t t_acquired);
/* The counters' names and sums; returns SRL_NCOUNTERS. */
int sim_range_list_counters(const struct sim_range_list *l, const char **names,
			    uint64_t *values);

#endif
