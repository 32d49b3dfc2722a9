/* SPDX-License-Identifier: MIT */
/*
 * What the kernel's lib/maple_tree.c gets for <linux/rcupdate.h>:
 * vmsim's RCU (locks/sync/rcu.h) instead of the user-space test
 * harness's liburcu mapping, so that the tree's nodes are freed by the
 * same callback machinery as everything else vmsim frees (its per-CPU
 * callback threads, its TSan emulation). The callback frees a node by
 * its address alone (kmem_cache_free: the pool that holds it, as the
 * kernel finds a slab's cache from the object). Published pointers use C11
 * acquire/release, which is what rcu_dereference/rcu_assign_pointer
 * order on x86 and what ThreadSanitizer understands.
 */
#ifndef VMSIM_KMAPLE_RCUPDATE_H
#define VMSIM_KMAPLE_RCUPDATE_H

#include "locks/sync/rcu.h"

/* The kernel's two words (the maple node's layout depends on them:
 * its destroy walk keeps its own fields right after the head). */
struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

#define kmaple_call_rcu(head, fn)					\
	sim_call_rcu_raw((struct sim_rcu_raw *)(head),			\
			 (void (*)(struct sim_rcu_raw *))(fn))

#define rcu_read_lock()               sim_rcu_read_lock()
#define rcu_read_unlock()             sim_rcu_read_unlock()
#define call_rcu(head, func)          kmaple_call_rcu(head, func)
#define rcu_dereference(p)            __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_dereference_raw(p)        rcu_dereference(p)
#define rcu_dereference_check(p, c)   rcu_dereference(p)
#define rcu_dereference_protected(p, c) rcu_dereference(p)
#define rcu_assign_pointer(p, v)      __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define RCU_INIT_POINTER(p, v)        __atomic_store_n(&(p), (v), __ATOMIC_RELAXED)

#endif
