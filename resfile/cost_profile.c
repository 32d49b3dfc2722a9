/* SPDX-License-Identifier: MIT */
/* A host's cost profile as JSON, read and written (resfile/cost_profile.h). */
#include "resfile/cost_profile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/parse.h"
#include "base/safefile.h"
#include "resfile/results_json.h"
#include "resfile/schema.h"

#define CP_KEY "vmsim_cost_profile"
#define CP_MAX_BYTES (64L << 20)     /* larger than any profile or result */

void cost_host_now(struct cost_host *h)
{
	struct utsname u;
	char line[4096];          /* a flags line is 1-2 KiB */
	FILE *f;

	memset(h, 0, sizeof(*h));
	if (!uname(&u))
		snprintf(h->release, sizeof(h->release), "%s", u.release);
	res_json_cpu_model(h->cpu, sizeof(h->cpu));
	/* A guest, as vmsim check says it (the CPU's hypervisor flag). */
	if (!(f = fopen("/proc/cpuinfo", "re")))
		return;
	while (!h->vm && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5))
			h->vm = strstr(line, " hypervisor") != NULL;
	fclose(f);
}

bool cost_host_matches(const struct cost_host *p, const struct cost_host *now,
		       char *why, size_t len)
{
	if (strcmp(p->release, now->release))
		snprintf(why, len, "it was measured on Linux %s, this is %s",
			 p->release, now->release);
	else if (strcmp(p->cpu, now->cpu))
		snprintf(why, len, "it was measured on a %s, this is a %s",
			 p->cpu, now->cpu);
	else if (p->vm != now->vm)
		snprintf(why, len, "it was measured %s a virtual machine, this is "
			 "%s", p->vm ? "in" : "outside", now->vm ? "one" : "not");
	else
		return true;
	return false;
}

/* --- JSON ------------------------------------------------------------------ */

static json_object *meas_json(const struct cost_meas *m, bool kernel)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "total_ns", json_object_new_double(m->total_ns));
	json_object_object_add(o, "in_ns", json_object_new_double(m->in_ns));
	json_object_object_add(o, "down_ns", json_object_new_double(m->down_ns));
	json_object_object_add(o, "spread_pct", json_object_new_double(
		isfinite(m->spread_pct) ? m->spread_pct : 0));
	if (kernel) {
		json_object_object_add(o, "events", json_object_new_double(m->events));
		json_object_object_add(o, "holds", json_object_new_double(m->holds));
		json_object_object_add(o, "event_ns", json_object_new_double(m->event_ns));
	}
	return o;
}

static json_object *ops_json(const struct cost_meas *op, bool kernel)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < SIM_COST_NOPS; i++)
		json_object_object_add(o, sim_cost_op_names[i],
				       meas_json(&op[i], kernel));
	return o;
}

json_object *cost_profile_json(const struct cost_profile *p)
{
	json_object *o = json_object_new_object(), *h = json_object_new_object();
	json_object *ms = json_object_new_array();

	json_object_object_add(o, CP_KEY, json_object_new_int(COST_PROFILE_VERSION));
	json_object_object_add(h, "release", json_object_new_string(p->host.release));
	json_object_object_add(h, "cpu", json_object_new_string(p->host.cpu));
	json_object_object_add(h, "virtual_machine", json_object_new_boolean(p->host.vm));
	json_object_object_add(h, "first_touch_us",
			       json_object_new_double(p->host.first_touch_us));
	json_object_object_add(o, "host", h);
	json_object_object_add(o, "date", json_object_new_string(p->date));
	json_object_object_add(o, "rounds", json_object_new_int(p->rounds));
	json_object_object_add(o, "calls", json_object_new_int(p->calls));
	json_object_object_add(o, "syscall_ns", json_object_new_double(p->syscall_ns));
	json_object_object_add(o, "clock_ns", json_object_new_double(p->clock_ns));
	json_object_object_add(o, "kernel", ops_json(p->kernel, true));
	for (int i = 0; i < p->nmodels; i++) {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "scheme",
				       json_object_new_string(p->models[i].scheme));
		json_object_object_add(m, "tree",
				       json_object_new_string(p->models[i].tree));
		json_object_object_add(m, "ops", ops_json(p->models[i].op, false));
		json_object_array_add(ms, m);
	}
	json_object_object_add(o, "models", ms);
	return o;
}

static int get_num(json_object *o, const char *key, bool need, double lo,
		   double *out, const char *where, char *err, size_t len)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v)) {
		if (!need)
			return 0;
		snprintf(err, len, "%s has no '%s'", where, key);
		return -EINVAL;
	}
	if (!json_object_is_type(v, json_type_double) &&
	    !json_object_is_type(v, json_type_int)) {
		snprintf(err, len, "%s's '%s' is not a number", where, key);
		return -EINVAL;
	}
	*out = json_object_get_double(v);
	if (!isfinite(*out) || *out < lo || *out > 1e12) {
		snprintf(err, len, "%s's '%s' (%g) is out of range", where, key,
			 *out);
		return -EINVAL;
	}
	return 0;
}

static int get_str(json_object *o, const char *key, char *out, size_t cap,
		   const char *where, char *err, size_t len)
{
	json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string)) {
		snprintf(err, len, "%s has no '%s' string", where, key);
		return -EINVAL;
	}
	s = json_object_get_string(v);
	if (strlen(s) >= cap) {
		snprintf(err, len, "%s's '%s' is longer than %zu bytes", where,
			 key, cap - 1);
		return -EINVAL;
	}
	snprintf(out, cap, "%s", s);
	return 0;
}

static int parse_ops(json_object *o, struct cost_meas *op, bool kernel,
		     const char *where, char *err, size_t len)
{
	char w[96];
	int ret = 0;

	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, len, "%s is not an object", where);
		return -EINVAL;
	}
	for (int i = 0; i < SIM_COST_NOPS && !ret; i++) {
		json_object *m;

		snprintf(w, sizeof(w), "%s.%s", where, sim_cost_op_names[i]);
		if (!json_object_object_get_ex(o, sim_cost_op_names[i], &m) ||
		    !json_object_is_type(m, json_type_object)) {
			snprintf(err, len, "%s is missing", w);
			return -EINVAL;
		}
		ret = get_num(m, "total_ns", true, 0, &op[i].total_ns, w, err, len) ?:
		      get_num(m, "in_ns", true, 0, &op[i].in_ns, w, err, len) ?:
		      get_num(m, "down_ns", true, 0, &op[i].down_ns, w, err, len) ?:
		      get_num(m, "spread_pct", false, 0, &op[i].spread_pct, w, err,
			      len);
		if (!ret && kernel)
			ret = get_num(m, "events", false, 0, &op[i].events, w, err,
				      len) ?:
			      get_num(m, "holds", false, 0, &op[i].holds, w, err,
				      len) ?:
			      get_num(m, "event_ns", false, 0, &op[i].event_ns, w,
				      err, len);
		if (!ret && op[i].in_ns + op[i].down_ns > op[i].total_ns * 1.5 + 1000) {
			snprintf(err, len, "%s holds its lock longer (%.0f ns) than "
				 "the call takes (%.0f ns)", w,
				 op[i].in_ns + op[i].down_ns, op[i].total_ns);
			ret = -EINVAL;
		}
	}
	return ret;
}

/* The profile's models into p. */
static int parse_models(json_object *o, struct cost_profile *p, char *err,
			size_t len)
{
	json_object *ms;
	int ret;

	if (!json_object_object_get_ex(o, "models", &ms) ||
	    !json_object_is_type(ms, json_type_array)) {
		snprintf(err, len, "the profile has no models");
		return -EINVAL;
	}
	if (json_object_array_length(ms) > COST_PROFILE_MAX_MODELS) {
		snprintf(err, len, "the profile has %zu models; at most %d",
			 json_object_array_length(ms), COST_PROFILE_MAX_MODELS);
		return -EINVAL;
	}
	for (size_t i = 0; i < json_object_array_length(ms); i++) {
		json_object *m = json_object_array_get_idx(ms, i), *ops;
		struct cost_model *cm = &p->models[p->nmodels];
		char w[64];

		snprintf(w, sizeof(w), "models[%zu]", i);
		if (!json_object_is_type(m, json_type_object)) {
			snprintf(err, len, "%s is not an object", w);
			return -EINVAL;
		}
		ret = get_str(m, "scheme", cm->scheme, sizeof(cm->scheme), w, err,
			      len) ?:
		      get_str(m, "tree", cm->tree, sizeof(cm->tree), w, err, len);
		if (ret)
			return ret;
		if (!json_object_object_get_ex(m, "ops", &ops)) {
			snprintf(err, len, "%s has no ops", w);
			return -EINVAL;
		}
		snprintf(w, sizeof(w), "%s/%s", cm->scheme, cm->tree);
		if ((ret = parse_ops(ops, cm->op, false, w, err, len)))
			return ret;
		p->nmodels++;
	}
	return 0;
}

int cost_profile_parse(json_object *o, struct cost_profile *p, char *err,
		       size_t len)
{
	json_object *v, *h, *k;
	double d;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, CP_KEY, &v) ||
	    !json_object_is_type(v, json_type_int)) {
		snprintf(err, len, "not a vmsim cost profile");
		return -EINVAL;
	}
	if (json_object_get_int(v) != COST_PROFILE_VERSION) {
		snprintf(err, len, "a cost profile of version %d; this vmsim reads "
			 "version %d", json_object_get_int(v), COST_PROFILE_VERSION);
		return -EINVAL;
	}
	if (!json_object_object_get_ex(o, "host", &h) ||
	    !json_object_is_type(h, json_type_object)) {
		snprintf(err, len, "the profile records no host");
		return -EINVAL;
	}
	ret = get_str(h, "release", p->host.release, sizeof(p->host.release),
		      "host", err, len) ?:
	      get_str(h, "cpu", p->host.cpu, sizeof(p->host.cpu), "host", err,
		      len) ?:
	      get_num(h, "first_touch_us", false, 0, &p->host.first_touch_us,
		      "host", err, len) ?:
	      get_str(o, "date", p->date, sizeof(p->date), "the profile", err,
		      len) ?:
	      get_num(o, "syscall_ns", true, 0, &p->syscall_ns, "the profile",
		      err, len) ?:
	      get_num(o, "clock_ns", false, 0, &p->clock_ns, "the profile", err,
		      len);
	if (ret)
		return ret;
	if (json_object_object_get_ex(h, "virtual_machine", &v))
		p->host.vm = json_object_get_boolean(v);
	if (!get_num(o, "rounds", false, 0, &d, "the profile", err, len))
		p->rounds = (int)d;
	if (!get_num(o, "calls", false, 0, &d, "the profile", err, len))
		p->calls = (int)d;
	if (!json_object_object_get_ex(o, "kernel", &k)) {
		snprintf(err, len, "the profile has no kernel costs");
		return -EINVAL;
	}
	if ((ret = parse_ops(k, p->kernel, true, "kernel", err, len)))
		return ret;
	return parse_models(o, p, err, len);
}

/* --- files ----------------------------------------------------------------- */

static char *read_small(const char *path, char *err, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *buf = NULL;
	ssize_t got;

	if (fd < 0) {
		snprintf(err, len, "cannot open it: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > CP_MAX_BYTES) {
		snprintf(err, len, "not a regular file of at most %ld MiB",
			 CP_MAX_BYTES >> 20);
		close(fd);
		return NULL;
	}
	if (!(buf = malloc((size_t)st.st_size + 1))) {
		snprintf(err, len, "out of memory");
		close(fd);
		return NULL;
	}
	got = pread(fd, buf, (size_t)st.st_size, 0);
	close(fd);
	if (got != st.st_size) {
		snprintf(err, len, "cannot read it");
		free(buf);
		return NULL;
	}
	buf[got] = 0;
	return buf;
}

int cost_profile_load(const char *arg, struct cost_profile *p,
		      json_object **raw, char *err, size_t len)
{
	char why[400], shown[256];
	char *text = NULL;
	json_object *o, *opts, *c;
	int ret;

	*raw = NULL;
	parse_printable(shown, sizeof(shown), arg);
	if (arg[0] != '{' && !(text = read_small(arg, why, sizeof(why)))) {
		snprintf(err, len, "cannot read the cost profile '%s': %s", shown,
			 why);
		return -EINVAL;
	}
	o = json_tokener_parse(text ? text : arg);
	free(text);
	if (!o) {
		snprintf(err, len, "the cost profile '%s' is not JSON", shown);
		return -EINVAL;
	}
	/* A result made with --costs: the profile its options record. */
	if (json_object_object_get_ex(o, RK_VMSIM_RESULT, &c) &&
	    json_object_object_get_ex(o, RK_OPTIONS, &opts)) {
		if (!json_object_object_get_ex(opts, "costs", &c) ||
		    !json_object_is_type(c, json_type_object)) {
			snprintf(err, len, "the result '%s' was made without "
				 "--costs: it records no cost profile", shown);
			json_object_put(o);
			return -EINVAL;
		}
		json_object_get(c);
		json_object_put(o);
		o = c;
	}
	ret = cost_profile_parse(o, p, why, sizeof(why));
	if (ret) {
		snprintf(err, len, "the cost profile '%s': %s", shown, why);
		json_object_put(o);
		return ret;
	}
	*raw = o;
	return 0;
}

static bool is_profile(int fd)
{
	char head[256];

	sf_head(fd, head, sizeof(head));
	return strstr(head, "\"" CP_KEY "\"") != NULL;
}

static int emit_json(FILE *f, void *arg)
{
	fputs(json_object_to_json_string_ext(arg, JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE), f);
	putc('\n', f);
	return ferror(f) ? -EIO : 0;
}

int cost_profile_write(const struct cost_profile *p, const char *path,
		       bool force, char *err, size_t len)
{
	const struct sf_spec spec = { .what = "cost profile", .force = force,
				      .ours = is_profile };
	json_object *o = cost_profile_json(p);
	struct sf_out out;
	char where[PATH_MAX], note[PATH_MAX + 256];
	int ret;

	err[0] = 0;
	if (!o) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	if ((ret = sf_open(&out, path, &spec, err, len))) {
		json_object_put(o);
		return ret;
	}
	note[0] = 0;
	ret = sf_emit(&out, emit_json, o);
	if (ret >= 0)
		ret = sf_commit(&out, true, where, sizeof(where), note, sizeof(note));
	else
		snprintf(err, len, "cannot write it anywhere: %s", strerror(-ret));
	/* Beside it, under $TMPDIR, or lost: the note says which. */
	if (ret && note[0])
		snprintf(err, len, "%s", note);
	sf_abort(&out);
	json_object_put(o);
	return ret;
}

/* --- what a model pays ------------------------------------------------------- */

const struct cost_model *cost_profile_model(const struct cost_profile *p,
					    const char *scheme, const char *tree)
{
	for (int i = 0; i < p->nmodels; i++)
		if (!strcmp(p->models[i].scheme, scheme) &&
		    !strcmp(p->models[i].tree, tree))
			return &p->models[i];
	return NULL;
}

static uint64_t above(double k, double m)
{
	return k > m ? (uint64_t)(k - m + 0.5) : 0;
}

void cost_profile_paid(const struct cost_profile *p, const struct cost_model *m,
		       struct sim_costs *out)
{
	memset(out, 0, sizeof(*out));
	out->on = true;
	out->syscall_ns = (uint64_t)(p->syscall_ns + 0.5);
	for (int i = 0; i < SIM_COST_NOPS; i++) {
		const struct cost_meas *k = &p->kernel[i], *o = &m->op[i];
		double kout = k->total_ns - k->in_ns - k->down_ns;
		double mout = o->total_ns - o->in_ns - o->down_ns;

		out->op[i].in_ns = above(k->in_ns, o->in_ns);
		out->op[i].down_ns = above(k->down_ns, o->down_ns);
		out->op[i].out_ns = above(kout, mout);
	}
}
