/* SPDX-License-Identifier: MIT */
/*
 * Pooling result files: several runs of one configuration (the rounds of
 * vmsim gate) as one result, whose samples at each task count are every
 * run's samples one after another — so that drift over the rounds lands
 * in the spread the gate sees, on both sides alike.
 */
#include "analysis/compare_int.h"

#include <string.h>

#include "resfile/schema.h"

/* dst.<key> (an array) += src.<key>'s elements (deep copies). */
static void append_array(json_object *dst, json_object *src, const char *key)
{
	json_object *a, *b;

	if (!json_object_object_get_ex(src, key, &b) ||
	    !json_object_is_type(b, json_type_array))
		return;
	if (!json_object_object_get_ex(dst, key, &a) ||
	    !json_object_is_type(a, json_type_array)) {
		a = json_object_new_array();
		json_object_object_add(dst, key, a);
	}
	for (size_t i = 0; i < json_object_array_length(b); i++) {
		json_object *c = NULL;

		json_object_deep_copy(json_object_array_get_idx(b, i), &c, NULL);
		json_object_array_add(a, c);
	}
}

/* The samples (and their flags and noise) of point src after dst's. */
static void pool_point(json_object *dst, json_object *src)
{
	json_object *ds, *ss, *dn, *sn, *fl, *sfl;
	int offset = 0;

	if (json_object_object_get_ex(dst, RK_SAMPLES, &ds) &&
	    json_object_object_get_ex(src, RK_SAMPLES, &ss)) {
		json_object_object_foreach(ds, metric, arr) {
			if (!offset)
				offset = (int)json_object_array_length(arr);
			append_array(ds, ss, metric);
		}
	}
	if (json_object_object_get_ex(dst, RK_NOISE, &dn) &&
	    json_object_object_get_ex(src, RK_NOISE, &sn)) {
		append_array(dn, sn, RK_STEAL);
		append_array(dn, sn, RK_OTHERS_CPUS);
		append_array(dn, sn, RK_IVCSW_PER_S);
		append_array(dn, sn, RK_VMSIM_CPUS);
		/* Outliers and bimodality belong to one run's samples. */
		json_object_object_del(dn, RK_OUTLIERS);
		json_object_object_del(dn, RK_BIMODAL);
	}
	/* A flagged sample stays flagged, numbered in the pooled order. */
	if (json_object_object_get_ex(src, RK_FLAGGED, &sfl) &&
	    json_object_is_type(sfl, json_type_array)) {
		if (!json_object_object_get_ex(dst, RK_FLAGGED, &fl)) {
			fl = json_object_new_array();
			json_object_object_add(dst, RK_FLAGGED, fl);
		}
		for (size_t i = 0; i < json_object_array_length(sfl); i++) {
			json_object *e = NULL, *k;

			json_object_deep_copy(json_object_array_get_idx(sfl, i),
					      &e, NULL);
			if (json_object_object_get_ex(e, RK_SAMPLE, &k))
				json_object_object_add(e, RK_SAMPLE,
					json_object_new_int(json_object_get_int(k) +
							    offset));
			json_object_array_add(fl, e);
		}
	}
}

json_object *cmp_pool(const struct cmp_file *files, int n)
{
	json_object *out = NULL, *res;

	if (n < 1 || json_object_deep_copy(files[0].root, &out, NULL))
		return NULL;
	json_object_object_get_ex(out, RK_RESULTS, &res);
	for (int i = 1; i < n; i++) {
		if (!json_object_get_boolean(json_object_object_get(
		    files[i].root, RK_COMPLETE)))
			json_object_object_add(out, RK_COMPLETE,
					       json_object_new_boolean(false));
		for (size_t k = 0; k < json_object_array_length(res); k++) {
			json_object *p = json_object_array_get_idx(res, k), *t, *q;

			json_object_object_get_ex(p, RK_TASKS, &t);
			q = cmp_point_of(&files[i], json_object_get_int(t));
			if (q)
				pool_point(p, q);
		}
	}
	json_object_object_add(out, "pooled_runs", json_object_new_int(n));
	return out;
}
