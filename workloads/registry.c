/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "workloads/workload.h"

const struct workload *const wl_workloads[] = {
#define WORKLOAD(id) &id##_workload,
#include "workloads/workloads.def"
#undef WORKLOAD
};
const int wl_nworkloads = sizeof(wl_workloads) / sizeof(wl_workloads[0]);

const struct workload *wl_find(const char *name)
{
	for (int i = 0; i < wl_nworkloads; i++)
		if (!strcmp(wl_workloads[i]->name, name))
			return wl_workloads[i];
	return NULL;
}
