/* SPDX-License-Identifier: MIT */
/*
 * The userfaultfd fault source's options: what its handler pool is made
 * of. Given to sim_mm_create() as sim_mm_cfg.source_opts when
 * sim_mm_cfg.source is &uffd_fault_source (NULL: one uffd, one blocking
 * handler, batches of 16).
 */
#ifndef VMSIM_UFFD_SOURCE_H
#define VMSIM_UFFD_SOURCE_H

#include "uffd/pool.h"

/* Handler threads a uffd takes when the arena is dealt out to several
 * (one per task); one uffd takes any number. */
#define UFFD_SOURCE_MAX_HANDLERS 16

struct uffd_source_opts {
	int nhandlers;                   /* handler threads a uffd (0: 1) */
	int nuffds;                      /* uffds the arena is dealt out to
					  * (one per task); 0, 1: one */
	enum uffd_wait_mode wait;
	int batch;                       /* uffd messages per read (0: 16) */
	const int *cpus;                 /* pin handler i to cpus[i % ncpus]; */
	int ncpus;                       /* read only at creation. 0: no */
	int slot_base;                   /* handler i's counter slot: +i */
	long test_stall_at;              /* tests: the handler of this fault
					  * stalls (VMSIM_TEST_STALL_FAULT) */
};

#endif
