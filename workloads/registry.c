/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "workloads/workload.h"

const struct workload *const workloads[] = {
#define WORKLOAD(id) &id##_workload,
#include "workloads/workloads.def"
#undef WORKLOAD
};
const int nworkloads = sizeof(workloads) / sizeof(workloads[0]);

const struct workload *workload_find(const char *name)
{
	for (int i = 0; i < nworkloads; i++)
		if (!strcmp(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}
