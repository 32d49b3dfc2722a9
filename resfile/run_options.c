/* SPDX-License-Identifier: MIT */
/*
 * A run's options, both ways: what a result file records of the run that
 * made it (run_options_json: every option that changes what is measured),
 * and the vmsim run command line that runs it again (run_rerun_args:
 * vmsim rerun and vmsim gate), whose form for each key is resfile/run_opts.def's.
 * A key written here that the table lacks is caught where it is written
 * (SIM_WARN_ON) and by tests/suites/cli.sh, which runs a result again and checks
 * the new result's options are the old ones.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/complain.h"
#include "resfile/run_options.h"
#include "base/debug.h"
#include "sim/mem/frames.h"
#include "sim/mem/slab.h"

/* The slab caches, how VMAs and tree nodes are freed, and RCU. */
static void run_options_mem_json(json_object *o, const struct run_cfg *c,
				 int target)
{
	json_object_object_add(o, "slab", json_object_new_string(
		slab_kind_name(runner_target_slab(c, target))));
	if (runner_target_slab(c, target) == SLAB_SHEAVES)
		json_object_object_add(o, "rcu_free", json_object_new_string(
			slab_rcu_free_name(runner_target_rcu_free(c, target))));
	/* How VMAs are freed, as settled against the target's scheme. */
	json_object_object_add(o, "vma_free", json_object_new_string(
		sim_vma_free_name(sim_vma_free_typesafe(c->mm.vma_free,
			runner_target_lock(c, target)) ? SIM_VMA_FREE_TYPESAFE :
			SIM_VMA_FREE_RCU)));
	if (runner_target_slab(c, target) == SLAB_SLUB)
		json_object_object_add(o, "kfree_rcu", json_object_new_string(
			sim_kfree_rcu_name(c->mm.kfree_rcu)));
	/* Lazy RCU's limits, wherever a callback may wait lazily. */
	if (runner_target_slab(c, target) == SLAB_SHEAVES ||
	    (runner_target_slab(c, target) == SLAB_SLUB &&
	     c->mm.kfree_rcu == SIM_KFREE_RCU_CALL)) {
		json_object_object_add(o, "rcu_lazy_max", json_object_new_int(
			(int)(c->mm.rcu_lazy_max ? c->mm.rcu_lazy_max : RCU_LAZY_MAX)));
		json_object_object_add(o, "rcu_lazy_flush_ms", json_object_new_int64(
			(int64_t)(c->mm.rcu_lazy_flush_ms ? c->mm.rcu_lazy_flush_ms :
				  RCU_LAZY_FLUSH_NS / 1000000)));
	}
	if (runner_target_slab(c, target) != SLAB_MALLOC)
		json_object_object_add(o, "slab_fastpath", json_object_new_string(
			run_optlist[RUN_O_SLAB_FASTPATH].choices[
				!runner_slab_fast_rseq(c)]));
	/* What mprotect locks, where the scheme has a choice. */
	if (runner_target_lock(c, target)->write_begin_mprotect)
		json_object_object_add(o, "mprotect_range", json_object_new_string(
			lock_mprotect_range_names[runner_target_mprotect(c, target)]));
	json_object_object_add(o, "tree", json_object_new_string(
		vma_tree_kind_name(runner_target_tree(c, target))));
	json_object_object_add(o, "tree_alloc", json_object_new_string(
		run_optlist[RUN_O_TREE_ALLOC].choices[c->mm.tree_spares]));
	json_object_object_add(o, "rcu_cbs", json_object_new_string(
		sim_rcu_cbs_names[c->mm.rcu_cbs]));
}

/* How it ran: put back by rerun so that the run runs again (a
 * --max-tasks 400 run was refused), never a difference. */
static void run_options_harness_json(json_object *o, const struct run_cfg *c,
				     const struct run_harness_opts *h)
{
	json_object_object_add(o, "handlers", json_object_new_int(h->nhandlers));
	json_object_object_add(o, "max_tasks", json_object_new_int(h->max_tasks));
	json_object_object_add(o, "ceiling", json_object_new_string(
		run_optlist[RUN_O_CEILING].choices[h->ceiling]));
	json_object_object_add(o, "fault_timeout",
			       json_object_new_double(c->fault_timeout));
}

/* Do some of the run's schemes choose an mprotect's range and some not? */
static bool mprotect_mixed(const struct run_cfg *c)
{
	int n = 0;

	for (int k = 0; k < runner_ntargets(c); k++)
		n += runner_target_lock(c, k)->write_begin_mprotect != NULL;
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
	/* Varied, or recorded by some schemes (those with a choice) only. */
	if (runner_varies(c, RUN_VARY_MPROTECT) || mprotect_mixed(c))
		json_object_array_add(a, json_object_new_string("mprotect_range"));
	return a;
}

/* Is every key of o in resfile/run_opts.def (so vmsim rerun can put it
 * back, and compare knows what its absence meant)? */
static bool keys_known(json_object *o)
{
	json_object_object_foreach(o, key, val) {
		(void)val;
		if (!run_opt_by_key(key))
			return false;
	}
	return true;
}

json_object *run_options_json(const struct run_cfg *c, int target,
			  const struct run_harness_opts *h)
{
	json_object *o = json_object_new_object(), *t = json_object_new_array();

	for (int i = 0; i < c->ntasklist; i++)
		json_object_array_add(t, json_object_new_int(c->tasks[i]));
	json_object_object_add(o, "tasks", t);
	json_object_object_add(o, "iterations", json_object_new_int(c->wo.iterations));
	if (c->wl->min_mem)              /* only where the workload uses it */
		json_object_object_add(o, "mem", json_object_new_int64((int64_t)c->wo.mem));
	json_object_object_add(o, "arena", json_object_new_int64((int64_t)c->mm.arena_size));
	run_options_harness_json(o, c, h);
	json_object_object_add(o, "wait", json_object_new_string(
		uffd_wait_mode_name(c->uffd.wait)));
	json_object_object_add(o, "batch", json_object_new_int(c->uffd.batch));
	json_object_object_add(o, "writers", json_object_new_int(c->wo.writers));
	json_object_object_add(o, "mode", json_object_new_string(
		run_optlist[RUN_O_MODE].choices[c->processes]));
	json_object_object_add(o, "pin", json_object_new_boolean(c->pin));
	json_object_object_add(o, "folio", json_object_new_int64(
		(int64_t)(c->mm.folio_size ? c->mm.folio_size : SIM_PAGE_SIZE)));
	json_object_object_add(o, "fault_around", json_object_new_int64(
		(int64_t)(c->mm.fault_around ? c->mm.fault_around : SIM_PAGE_SIZE)));
	json_object_object_add(o, "frames", json_object_new_string(
		frames_mode_name(c->frames)));
	run_options_mem_json(o, c, target);
	if (c->frames != FRAMES_NONE) {
		json_object_object_add(o, "phys", json_object_new_int64(
			(int64_t)c->phys));
		json_object_object_add(o, "bulk_free", json_object_new_string(
			frames_bulk_names[c->bulk_free]));
	}
	/* The default is per-task (one uffd at one task either way); an
	 * older file's "auto" meant shared up to 4 tasks: a difference. */
	json_object_object_add(o, "uffd", json_object_new_string(
		runner_uffd_split_names[c->uffd_split == UFFD_SPLIT_SHARED ?
			UFFD_SPLIT_SHARED : UFFD_SPLIT_PER_TASK]));
	json_object_object_add(o, "handler_cpu", json_object_new_string(
		runner_handler_cpu_names[c->handler_cpu]));
	json_object_object_add(o, "max_map_count", json_object_new_int64(
		(int64_t)(c->mm.max_map_count ? c->mm.max_map_count :
			  SIM_DEFAULT_MAX_MAP_COUNT)));
	json_object_object_add(o, "hold_extra_ns", json_object_new_int64(
		(int64_t)c->mm.hold_extra_ns));
	json_object_object_add(o, "numa", json_object_new_string(
		sim_numa_names[c->mm.numa]));
	json_object_object_add(o, "warmup", json_object_new_int(c->wo.warmup));
	if (!c->wl->loop) {
		json_object_object_add(o, "min_sample_ms",
				       json_object_new_int(c->min_sample_ms));
		json_object_object_add(o, "passes", json_object_new_int(c->passes));
	}
	if (c->wl->loop) {
		json_object_object_add(o, "duration", json_object_new_int(c->wo.duration));
		json_object_object_add(o, "interval_ms", json_object_new_int(c->wo.interval_ms));
	}
	if (c->wl->options & WL_OPT_CYCLES)
		json_object_object_add(o, "cycles", json_object_new_int64(c->wo.cycles));
	if (c->wl->options & WL_OPT_ZAP)
		json_object_object_add(o, "zap", json_object_new_string(
			run_optlist[RUN_O_ZAP].choices[c->wo.zap_per_range]));
	if (c->wl->options & WL_OPT_TRACE) {
		json_object_object_add(o, "trace", json_object_new_string(
			c->trace ? c->trace : ""));
		if (c->speed > 0)
			json_object_object_add(o, "speed",
					       json_object_new_double(c->speed));
		else
			json_object_object_add(o, "speed",
					       json_object_new_string("asap"));
	}
	/* Only where it applies (the table's needs): what a run of another
	 * source or mode does not have, it does not record. */
	for (int i = 0; i < RUN_NOPTS; i++)
		if (run_optlist[i].key && !run_opt_applies(&run_optlist[i],
				c->mm.source->name, c->processes))
			json_object_object_del(o, run_optlist[i].key);
	SIM_WARN_ON(!keys_known(o));
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
	case RUN_REDO_NONE:
		break;
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
	const char *scheme = get_string(root, "scheme");
	const char *wname = get_string(root, "workload");
	const char *src = get_string(root, "fault_source");
	const struct workload *wl = wname ? wl_find(wname) : NULL;
	json_object *opts, *mode;
	bool processes;
	int ret;

	memset(v, 0, sizeof(*v));
	if (!scheme || !wname || !src ||
	    !json_object_object_get_ex(root, "options", &opts) ||
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
