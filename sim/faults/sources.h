/* SPDX-License-Identifier: MIT */
/* The fault sources (sim/fault_source.h), by name. */
#ifndef VMSIM_SOURCES_H
#define VMSIM_SOURCES_H

#include <linux/userfaultfd.h>

#include "sim/fault_source.h"

/* The userfaultfd features the uffd source needs (UFFD_FEATURE_*). */
#define SIM_UFFD_FEATURES (UFFD_FEATURE_THREAD_ID | UFFD_FEATURE_PAGEFAULT_FLAG_WP)

extern const struct fault_source_ops uffd_fault_source;
extern const struct fault_source_ops synthetic_fault_source;
/* The host's own faults, for an mm whose scheme is the host kernel
 * (sim/faults/kernel.c): chosen by the mm, never by --faults. */
extern const struct fault_source_ops kernel_fault_source;

/* "uffd" or "synthetic"; NULL if neither. */
const struct fault_source_ops *fault_source_find(const char *name);

#endif
