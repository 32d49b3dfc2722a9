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

/* A node freed whole after a grace period (ma_free_rcu's mt_free_rcu)
 * is freed as vmsim frees tree nodes: kfree_rcu into its pool (an
 * rcu_free sheaf under sheaves; --kfree-rcu's way under SLUB; call_rcu
 * otherwise) — the sheaves series' "maple_tree: use kfree_rcu in
 * ma_free_rcu", and the same path vmsim's tree takes, so that --tree
 * compares trees, not frees. Any other callback (a subtree a store in
 * RCU mode cut out: mt_free_walk, which needs the fields after the
 * head) is call_rcu with the kernel's two-word head; its frees name no
 * tree, and go to the allocator's free_found (kmaple.h). */
void kmaple_free_rcu(void *node);
#define kmaple_call_rcu(head, fn)					\
	((fn) == mt_free_rcu ? kmaple_free_rcu(container_of(head,	\
				struct maple_node, rcu)) :		\
	 sim_call_rcu_raw((struct sim_rcu_raw *)(head),			\
			  (void (*)(struct sim_rcu_raw *))(fn)))

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
