/* SPDX-License-Identifier: MIT */
/*
 * The mm components' part of a result (results_mm.c): the page
 * allocator's and the slab caches' lock classes, after the scheme's, and
 * the slab counters' JSON.
 */
#ifndef VMSIM_RESULTS_INT_H
#define VMSIM_RESULTS_INT_H

#include "report/results.h"

void res_frames_classes(struct res_counters *c, const struct sim_mm *mm);
void res_slab_classes(struct res_counters *c, const struct sim_mm *mm);
json_object *res_slab_json(const struct res_point *p);

#endif
