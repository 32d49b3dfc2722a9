/* SPDX-License-Identifier: MIT */
/*
 * The uffd fault source's insides, shared by its fault path
 * (uffd_source.c) and its set-up (uffd_setup.c): the userfaultfds, their
 * handler pools, and which uffd each page of the arena is registered on.
 */
#ifndef VMSIM_UFFD_SOURCE_INT_H
#define VMSIM_UFFD_SOURCE_INT_H

#include <stdint.h>

#include "sim/faults/present.h"
#include "sim/fault_source.h"
#include "sim/faults/uffd_source.h"
#include "sim/faults/uffd_touch.h"
#include "uffd/uffd.h"

#define UFFD_STRIPE (2UL << 20)          /* per-task uffds: the arena's deal */

/* One userfaultfd and the handlers that read it. */
struct uffd_chan {
	int fd;
	struct uffd_pool *pool;
	struct uffd_counters final;      /* filled when the pool stops */
	int cpus[UFFD_SOURCE_MAX_HANDLERS];     /* where its handlers go */
};

struct uffd_source {
	struct fault_source base;
	struct present_map present;
	int nchan;
	struct uffd_chan *chan;
	int nhandlers;                   /* started, over all channels */
	struct uffd_info info;
	int *node_cpus;                  /* --numa local: this node's CPUs */
	/* Per page: 1 + the uffd a claim registered it on; 0: its stripe's
	 * (mapped on the first claim). */
	uint16_t *owner;
	struct uffd_kmark_table *kmarks; /* kernel-mode touches (uffd_touch.h) */
};

static inline struct uffd_source *us(const struct fault_source *s)
{
	return (struct uffd_source *)s;
}

/* The pool's callback: one fault message through the mm's fault path. */
void uffd_source_fault(void *arg, int fd, const struct uffd_msg *msg,
		       struct uffd_counters *c);
/* Open the uffds, register the arena, start the handlers. 0 or -errno. */
int uffd_source_start(struct uffd_source *u, const struct uffd_source_opts *cfg);
/* The uffd the page at a is registered on, and the end of the run of
 * pages from a (below end) registered on the same one. */
int uffd_source_owner(const struct uffd_source *u, unsigned long a);
unsigned long uffd_source_run_end(const struct uffd_source *u, unsigned long a,
				  unsigned long end);
/* fault_source_ops.claim. */
int uffd_source_claim(struct fault_source *s, unsigned long start,
		      unsigned long end, int task);

#endif
