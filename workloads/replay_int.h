/* SPDX-License-Identifier: MIT */
/* What the replay plan's files share (workloads/replay_*.c). */
#ifndef VMSIM_REPLAY_INT_H
#define VMSIM_REPLAY_INT_H

#include <stddef.h>

#include "workloads/replay.h"

/* Pass 2: every event into an operation of its thread. 0 or -1 (err). */
int rp_pass_ops(struct rp_plan *p, char *err, size_t len);
/* Grow *v (of *cap elements of size) to hold need. 0 or -ENOMEM. */
int rp_grow(void **v, size_t *cap, size_t need, size_t size);

#endif
