/* SPDX-License-Identifier: MIT */
/*
 * rcu — the RCU that vmsim uses: liburcu's memb flavour (read side is a
 * per-thread counter, grace periods use membarrier(2)), with automatic
 * thread registration: a thread is registered on its first read-side
 * critical section and unregistered when it exits (pthread key
 * destructor), so neither the uffd pool nor the workloads need to know.
 *
 * Under ThreadSanitizer, liburcu's ordering (inline asm, membarrier) is
 * invisible and every deferred free would be reported as a race, so the
 * TSan build maps the same three calls onto a pthread rwlock: a reader
 * holds it shared, synchronize takes it exclusive once. That has RCU's
 * guarantee (synchronize returns after every pre-existing reader) in a
 * form TSan understands; the normal build never uses it.
 *
 * Pointers published to readers use C11 release stores and acquire (or
 * dependent) loads, not liburcu's macros, for the same reason.
 */
#ifndef VMSIM_LOCKS_RCU_H
#define VMSIM_LOCKS_RCU_H

#include <stdbool.h>

void sim_rcu_read_lock(void);
void sim_rcu_read_unlock(void);
/* Wait until every read-side critical section that began before the call
 * has ended. Must not be called inside one. */
void sim_rcu_synchronize(void);

#endif
