/* SPDX-License-Identifier: MIT */
/* The mm components' part of a result (see report/results_int.h). */
#include <stdio.h>

#include "report/results_int.h"

/* The slab caches' counters, per cache. */
json_object *res_slab_json(const struct res_point *p)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < SIM_NSLABS; i++) {
		json_object *c = json_object_new_object();

		for (int k = 0; k < SLAB_NCOUNTERS; k++)
			json_object_object_add(c, slab_counter_name(k),
				json_object_new_int64((int64_t)p->slab[i][k]));
		json_object_object_add(o, sim_mm_slab_name(i), c);
	}
	return o;
}

/* The page allocator's locks, after the scheme's. */
void res_frames_classes(struct res_counters *c, const struct sim_mm *mm)
{
	struct lockstat_class *fc[2] = { mm->fstat.zone, mm->fstat.pcp };
	int n = mm->cfg.frames && mm->cfg.frames->mode == FRAMES_PCP ? 2 : 1;

	for (int k = 0; mm->cfg.frames && k < n && c->nclasses < LOCK_MAX_CLASSES;
	     k++) {
		struct res_lockclass *rc = &c->classes[c->nclasses++];

		snprintf(rc->name, sizeof(rc->name), "%s", fc[k]->name);
		for (int s = 0; s < LS_NSIDES; s++)
			lockstat_sum(fc[k], s, &rc->side[s]);
	}
}

/* The slab caches' locks, after those. */
void res_slab_classes(struct res_counters *c, const struct sim_mm *mm)
{
	struct lockstat_class *sc[2] = { mm->sstat.list_lock, mm->sstat.barn_lock };
	int n = !mm->cfg.slab_vma ? 0 : mm->cfg.slab_vma->kind == SLAB_SHEAVES ? 2 : 1;

	for (int k = 0; k < n && c->nclasses < LOCK_MAX_CLASSES; k++) {
		struct res_lockclass *rc = &c->classes[c->nclasses++];

		snprintf(rc->name, sizeof(rc->name), "%s", sc[k]->name);
		for (int s = 0; s < LS_NSIDES; s++)
			lockstat_sum(sc[k], s, &rc->side[s]);
	}
}

