/* SPDX-License-Identifier: MIT */
#include "sim/faults/sources.h"

#include <string.h>

const struct fault_source_ops *fault_source_find(const char *name)
{
	if (!strcmp(name, uffd_fault_source.name))
		return &uffd_fault_source;
	if (!strcmp(name, synthetic_fault_source.name))
		return &synthetic_fault_source;
	return NULL;
}
