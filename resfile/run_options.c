/* SPDX-License-Identifier: MIT */
/*
 * A run's options, both ways: what a result file records of the run that
 * made it (run_options_json: each option's RECORD in resfile/run_opts.def,
 * every option that changes what is measured or lets the run run again),
 * and the vmsim run command line that runs it again (run_rerun_args:
 * vmsim rerun and vmsim gate), whose form for each key is the table's
 * too. tests/cli/test_options.c walks the table: every keyed option set
 * to its .test value is recorded, and the rerun's options are the same.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resfile/run_options.h"
#include "resfile/schema.h"
#include "sim/mem/frames.h"
#include "sim/mem/slab.h"

/* The values the table's RECORD expressions compute (run_opts.def). */
static json_object *run_rec_tasks(const struct run_cfg *c, int target,
				  const struct run_harness_opts *h)
{
	json_object *t = json_object_new_array();

	for (int i = 0; i < c->ntasklist; i++)
		json_object_array_add(t, json_object_new_int(c->tasks[i]));
	return t;
}

static json_object *run_rec_speed(const struct run_cfg *c, int target,
				  const struct run_harness_opts *h)
{
	return c->speed > 0 ? json_object_new_double(c->speed) :
			      json_object_new_string("asap");
}

/* How VMAs are freed, as settled against the target's scheme. */
static json_object *run_rec_vma_free(const struct run_cfg *c, int target,
				     const struct run_harness_opts *h)
{
	return json_object_new_string(sim_vma_free_name(sim_vma_free_typesafe(
		c->mm.vma_free, runner_target_lock(c, target)) ?
		SIM_VMA_FREE_TYPESAFE : SIM_VMA_FREE_RCU));
}

/* The cost profile the models paid (the whole of it: vmsim rerun gives
 * it back as --costs JSON), or "none". */
static json_object *run_rec_costs(const struct run_cfg *c, int target,
				  const struct run_harness_opts *h)
{
	(void)c;
	(void)target;
	return h && h->costs ? json_object_get(h->costs) :
			       json_object_new_string("none");
}

/* Lazy RCU's limits, wherever a callback may wait lazily. */
static bool run_rec_lazy(const struct run_cfg *c, int target)
{
	return runner_target_slab(c, target) == SLAB_SHEAVES ||
	       (runner_target_slab(c, target) == SLAB_SLUB &&
		c->mm.kfree_rcu == SIM_KFREE_RCU_CALL);
}

/* Option id's value in the result of target, or NULL where the run does
 * not record it (the table's RECORD). */
static json_object *run_opt_record(enum run_opt_id id, const struct run_cfg *c,
				   int target, const struct run_harness_opts *h)
{
#define NOREC NULL
#define REC_INT(e) json_object_new_int(e)
#define REC_I64(e) json_object_new_int64((int64_t)(e))
#define REC_DBL(e) json_object_new_double(e)
#define REC_BOOL(e) json_object_new_boolean(e)
#define REC_STR(e) json_object_new_string(e)
#define REC_CHOICE(id, e) REC_STR(run_optlist[RUN_O_##id].choices[e])
#define REC_FN(fn) fn(c, target, h)
#define REC_IF(cond, rec) ((cond) ? (rec) : NULL)
	switch (id) {
#define RUN_OPT(id, bind, rec, ...) case RUN_O_##id: return rec;
#include "resfile/run_opts.def"
#undef RUN_OPT
	case RUN_NOPTS:
		break;
	}
	return NULL;
#undef REC_IF
#undef REC_FN
#undef REC_CHOICE
#undef REC_STR
#undef REC_BOOL
#undef REC_DBL
#undef REC_I64
#undef REC_INT
#undef NOREC
}

bool run_opt_scheme_has(const struct run_opt *o, const struct lock_ops *l)
{
	return !((o->needs & RUN_NEEDS_ANON_SCHEME) && !l->anon_prepare) &&
	       !((o->needs & RUN_NEEDS_MPROTECT_SCHEME) &&
		 !l->write_begin_mprotect);
}

const char *run_opt_scheme_need_text(const struct run_opt *o)
{
	return o->needs & RUN_NEEDS_MPROTECT_SCHEME ?
	       "choose an mprotect's range" :
	       "prepare an anon_vma under a VMA lock";
}

/* Does option o apply to some of the run's schemes and not others? */
static bool opt_mixed(const struct run_cfg *c, const struct run_opt *o)
{
	int n = 0;

	for (int k = 0; k < runner_ntargets(c); k++)
		n += run_opt_scheme_has(o, runner_target_lock(c, k));
	return n && n < runner_ntargets(c);
}

json_object *run_by_scheme_json(const struct run_cfg *c)
{
	json_object *a = json_object_new_array();

	if (c->mm.vma_free == SIM_VMA_FREE_SCHEME)
		json_object_array_add(a, json_object_new_string("vma_free"));
	if (runner_varies(c, RUN_VARY_SLAB))
		json_object_array_add(a, json_object_new_string("slab"));
	if (runner_varies(c, RUN_VARY_RCU_FREE))
		json_object_array_add(a, json_object_new_string("rcu_free"));
	if (runner_varies(c, RUN_VARY_TREE))
		json_object_array_add(a, json_object_new_string("tree"));
	/* Varied (under one scheme), or recorded by some schemes only (the
	 * table's options that some schemes have and some not). */
	for (int i = 0; i < RUN_NOPTS; i++)
		if (run_optlist[i].key && (opt_mixed(c, &run_optlist[i]) ||
		    (i == RUN_O_MPROTECT_RANGE &&
		     runner_varies(c, RUN_VARY_MPROTECT))))
			json_object_array_add(a, json_object_new_string(
				run_optlist[i].key));
	return a;
}

/* Every keyed option of the table whose RECORD gives a value, in the
 * table's order; only where it applies (the table's needs): what a run
 * of another source or mode, or the target's scheme, does not have, it
 * does not record. */
json_object *run_options_json(const struct run_cfg *c, int target,
			  const struct run_harness_opts *h)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < RUN_NOPTS; i++) {
		const struct run_opt *opt = &run_optlist[i];
		json_object *v;

		if (!opt->key || !run_opt_applies(opt, c->mm.source->name,
						  c->processes) ||
		    !run_opt_scheme_has(opt, runner_target_lock(c, target)))
			continue;
		v = run_opt_record((enum run_opt_id)i, c, target, h);
		if (v)
			json_object_object_add(o, opt->key, v);
	}
	return o;
}

/* --- the other way: a result's options as run arguments --------------- */

int run_args_add(struct run_args_vec *v, const char *s)
{
	if (v->n + 2 > v->cap) {
		int cap = v->cap ? 2 * v->cap : 32;
		char **a = realloc(v->argv, sizeof(*a) * (size_t)cap);

		if (!a)
			return -ENOMEM;
		v->argv = a;
		v->cap = cap;
	}
	if (!(v->argv[v->n] = strdup(s)))
		return -ENOMEM;
	v->argv[++v->n] = NULL;
	return 0;
}

/* A task list as vmsim run takes it, runs of consecutive counts as
 * ranges: 1-64, or 1,2,4-8. A list as long as the result's. */
static int add_tasks(struct run_args_vec *v, json_object *val, char *err,
		     size_t len)
{
	size_t n = json_object_is_type(val, json_type_array) ?
		   json_object_array_length(val) : 0, cap = 16 * n + 1, at = 0;
	char *buf = malloc(cap);
	int ret;

	if (!buf)
		return -ENOMEM;
	buf[0] = 0;
	for (size_t i = 0; i < n;) {
		json_object *e = json_object_array_get_idx(val, i);
		int64_t lo = json_object_get_int64(e), hi = lo;
		size_t j = i + 1;

		if (!json_object_is_type(e, json_type_int) || lo < 1 ||
		    lo > INT32_MAX) {
			free(buf);
			snprintf(err, len, "its task list is not a list of "
				 "task counts");
			return -EINVAL;
		}
		for (; j < n && json_object_is_type(json_object_array_get_idx(
			     val, j), json_type_int) && json_object_get_int64(
			     json_object_array_get_idx(val, j)) == hi + 1; j++)
			hi++;
		at += (size_t)snprintf(buf + at, cap - at, hi > lo + 1 ?
				       "%s%lld-%lld" : hi > lo ? "%s%lld,%lld" :
				       "%s%lld", i ? "," : "", (long long)lo,
				       (long long)hi);
		i = j;
	}
	if (!n) {
		free(buf);
		snprintf(err, len, "its task list is empty");
		return -EINVAL;
	}
	ret = run_args_add(v, "--tasks") ?: run_args_add(v, buf);
	free(buf);
	return ret;
}

static const char *get_string(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
	       json_object_is_type(v, json_type_string) ?
	       json_object_get_string(v) : NULL;
}

/* One recorded option onto v: 0, -ENOMEM, or -EINVAL (why in err). */
static int add_option(struct run_args_vec *v, const struct run_opt *o,
		      json_object *val, const struct workload *wl,
		      const char *src, bool processes, char *err, size_t len)
{
	char buf[64];                    /* a number: %lld or %.17g */
	char flag[64];                   /* --name: the table's names fit */
	const char *s = buf;

	snprintf(flag, sizeof(flag), "--%s", o->name);
	/* --writers only where the workload has writers (else 0); what
	 * an older vmsim recorded where it does not apply (--wait of a
	 * synthetic run), not at all. */
	if ((o->background && !wl->background) ||
	    !run_opt_applies(o, src, processes))
		return 0;
	switch (o->redo) {
	case RUN_REDO_NONE:              /* recorded, never put back */
		return 0;
	case RUN_REDO_FLAG:
		return json_object_get_boolean(val) ? run_args_add(v, flag) : 0;
	case RUN_REDO_LIST:
		return add_tasks(v, val, err, len);
	case RUN_REDO_INT:
		if (!json_object_is_type(val, json_type_int))
			goto bad;
		snprintf(buf, sizeof(buf), "%lld",
			 (long long)json_object_get_int64(val));
		break;
	case RUN_REDO_JSON:
		if (json_object_is_type(val, json_type_object))
			s = json_object_to_json_string_ext(val,
				JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
		else if (json_object_is_type(val, json_type_string))
			s = json_object_get_string(val);
		else
			goto bad;
		break;
	case RUN_REDO_STR:
		if (json_object_is_type(val, json_type_double))
			snprintf(buf, sizeof(buf), "%.17g",
				 json_object_get_double(val));
		else if (json_object_is_type(val, json_type_string))
			s = json_object_get_string(val);
		else
			goto bad;
		break;
	}
	if (o->skip && !strcmp(s, o->skip))
		return 0;
	return run_args_add(v, flag) ?: run_args_add(v, s);
bad:
	snprintf(err, len, "its option '%s' is not what this vmsim records",
		 o->key);
	return -EINVAL;
}

int run_rerun_args(json_object *root, struct run_args_vec *v, char *err,
		   size_t len)
{
	const char *scheme = get_string(root, RK_SCHEME);
	const char *wname = get_string(root, RK_WORKLOAD);
	const char *src = get_string(root, RK_FAULT_SOURCE);
	const struct workload *wl = wname ? wl_find(wname) : NULL;
	json_object *opts, *mode;
	bool processes;
	int ret;

	memset(v, 0, sizeof(*v));
	if (!scheme || !wname || !src ||
	    !json_object_object_get_ex(root, RK_OPTIONS, &opts) ||
	    !json_object_is_type(opts, json_type_object)) {
		snprintf(err, len, "it does not record its scheme, workload, "
			 "fault source and options");
		return -EINVAL;
	}
	if (!wl) {
		snprintf(err, len, "its workload '%s' is not one this vmsim has",
			 wname);
		return -EINVAL;
	}
	processes = json_object_object_get_ex(opts, "mode", &mode) &&
		    json_object_is_type(mode, json_type_string) &&
		    !strcmp(json_object_get_string(mode), "processes");
	ret = run_args_add(v, "run") ?: run_args_add(v, "--lock") ?:
	      run_args_add(v, scheme) ?: run_args_add(v, "--workload") ?:
	      run_args_add(v, wname) ?: run_args_add(v, "--fault-source") ?:
	      run_args_add(v, src);
	json_object_object_foreach(opts, key, val) {
		const struct run_opt *o;

		if (ret)
			break;
		if (!(o = run_opt_by_key(key))) {
			snprintf(err, len, "it was made with an option this vmsim "
				 "does not know ('%s'): a newer vmsim made it",
				 key);
			ret = -EINVAL;
			break;
		}
		ret = add_option(v, o, val, wl, src, processes, err, len);
	}
	if (ret == -ENOMEM)
		snprintf(err, len, "out of memory");
	if (ret)
		run_args_free(v);
	return ret;
}

void run_args_free(struct run_args_vec *v)
{
	for (int i = 0; i < v->n; i++)
		free(v->argv[i]);
	free(v->argv);
	memset(v, 0, sizeof(*v));
}
