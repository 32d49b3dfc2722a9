/* SPDX-License-Identifier: MIT */
/*
 * What compare and report are given: result files, or results directories
 * (vmsim run -o DIR/ writes one file per scheme there), and which of them
 * is the base.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/compare.h"
#include "base/parse.h"
#include "resfile/schema.h"

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/* A name in a results directory that holds a result: *.json, not hidden
 * (a temporary), not a recording's side file. */
static bool result_name(const char *name)
{
	return name[0] != '.' && ends_with(name, ".json") &&
	       !ends_with(name, ".mmap_lock.json");
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The last component of path, without a trailing '/' (into out). */
static void last_component(const char *path, char *out, size_t len)
{
	size_t n = strlen(path);
	const char *s;

	while (n > 1 && path[n - 1] == '/')
		n--;
	s = path + n;
	while (s > path && s[-1] != '/')
		s--;
	snprintf(out, len, "%.*s", (int)(path + n - s), s);
}

static int push(struct cmp_inputs *in, const char *path, const char *dir,
		int arg)
{
	if (in->n == CMP_MAX_INPUTS)
		return -E2BIG;
	in->arg[in->n] = arg;
	in->path[in->n] = strdup(path);
	in->dir[in->n] = dir ? strdup(dir) : NULL;
	if (!in->path[in->n] || (dir && !in->dir[in->n]))
		return -ENOMEM;
	in->n++;
	return 0;
}

/* Every result in directory path, by name. */
static int expand_dir(struct cmp_inputs *in, const char *path, int arg,
		      char *err, size_t errlen)
{
	char shown[256], name[256], *names[CMP_MAX_INPUTS];
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0, ret = 0;

	parse_printable(shown, sizeof(shown), path);
	if (!d) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", shown, strerror(-ret));
		return ret;
	}
	last_component(path, name, sizeof(name));
	while ((e = readdir(d)) && !ret) {
		if (!result_name(e->d_name))
			continue;
		if (n == CMP_MAX_INPUTS) {
			ret = -E2BIG;
			break;
		}
		if (!(names[n] = malloc(strlen(path) + strlen(e->d_name) + 2)))
			ret = -ENOMEM;
		else
			sprintf(names[n++], "%s%s%s", path,
				ends_with(path, "/") ? "" : "/", e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_name);
	for (int i = 0; i < n; i++) {
		if (!ret)
			ret = push(in, names[i], name, arg);
		free(names[i]);
	}
	if (ret == -E2BIG)
		snprintf(err, errlen, "%s: more than %d results in all", shown,
			 CMP_MAX_INPUTS);
	else if (ret)
		snprintf(err, errlen, "%s: %s", shown, strerror(-ret));
	else if (!n)
		snprintf(err, errlen, "%s: no result files (*.json) in this "
			 "directory", shown);
	return ret ? ret : n ? 0 : -ENOENT;
}

int cmp_inputs_expand(char *const *args, int nargs, struct cmp_inputs *in,
		      char *err, size_t errlen)
{
	char shown[256];
	int ndirs = 0;

	memset(in, 0, sizeof(*in));
	for (int i = 0; i < nargs; i++) {
		struct stat st;
		int ret;

		if (!stat(args[i], &st) && S_ISDIR(st.st_mode)) {
			ret = expand_dir(in, args[i], i, err, errlen);
			ndirs++;
		} else {
			ret = push(in, args[i], NULL, i);
			if (ret)
				snprintf(err, errlen, "%s: %s",
					 parse_printable(shown, sizeof(shown),
							 args[i]),
					 ret == -E2BIG ? "too many files" :
					 strerror(-ret));
		}
		if (ret) {
			cmp_inputs_free(in);
			return ret;
		}
	}
	in->several_dirs = ndirs > 1;
	return 0;
}

void cmp_inputs_free(struct cmp_inputs *in)
{
	for (int i = 0; i < in->n; i++) {
		free(in->path[i]);
		free(in->dir[i]);
	}
	in->n = 0;
}

/* Label the loaded files as compare shows them: with several
 * directories, a file is its directory's name (the run's name), or
 * DIR/label where the directory holds several. */
static void label_by_dir(const struct cmp_inputs *in, struct cmp_file *files)
{
	for (int i = 0; i < in->n && in->several_dirs; i++) {
		int same = 0;
		char label[sizeof(files[i].label)];

		if (!in->dir[i])
			continue;
		for (int j = 0; j < in->n; j++)
			same += in->dir[j] && !strcmp(in->dir[j], in->dir[i]);
		parse_printable(label, sizeof(label), in->dir[i]);
		if (same > 1) {
			char own[sizeof(files[i].label)];

			snprintf(own, sizeof(own), "%s", files[i].label);
			snprintf(files[i].label, sizeof(files[i].label), "%.30s/%.31s",
				 label, own);
		} else
			snprintf(files[i].label, sizeof(files[i].label), "%s", label);
	}
}

/* Does NAME name file i: its label, its scheme, its file name (with or
 * without .json) or its directory? */
static bool names_it(const struct cmp_inputs *in, const struct cmp_file *f,
		     int i, const char *name)
{
	char base[256];
	size_t n;

	if (!strcmp(f->label, name) || (f->scheme && !strcmp(f->scheme, name)))
		return true;
	last_component(in->path[i], base, sizeof(base));
	n = strlen(name);
	if (!strcmp(base, name) ||
	    (!strncmp(base, name, n) && !strcmp(base + n, ".json")))
		return true;
	return in->dir[i] && !strcmp(in->dir[i], name);
}

/* Result i to place j (j < i), the rest one on: files and their inputs. */
static void move_back(struct cmp_inputs *in, struct cmp_file *files, int i,
		      int j)
{
	struct cmp_file f = files[i];
	char *p = in->path[i], *d = in->dir[i];
	int arg = in->arg[i];

	memmove(&files[j + 1], &files[j], (size_t)(i - j) * sizeof(files[0]));
	memmove(&in->path[j + 1], &in->path[j], (size_t)(i - j) * sizeof(p));
	memmove(&in->dir[j + 1], &in->dir[j], (size_t)(i - j) * sizeof(d));
	memmove(&in->arg[j + 1], &in->arg[j], (size_t)(i - j) * sizeof(arg));
	files[j] = f;
	in->path[j] = p;
	in->dir[j] = d;
	in->arg[j] = arg;
}

static int pick_baseline(struct cmp_inputs *in, struct cmp_file *files,
			 const char *name, char *err, size_t errlen)
{
	char shown[128], list[512] = "";
	int found = -1, matches = 0;
	size_t used = 0;

	for (int i = 0; i < in->n; i++) {
		if (names_it(in, &files[i], i, name)) {
			if (found < 0)
				found = i;
			matches++;
		}
		if (used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used,
						 "%s%s", i ? ", " : "", files[i].label);
	}
	parse_printable(shown, sizeof(shown), name);
	if (!matches) {
		snprintf(err, errlen, "no result named '%s' (the results: %s)",
			 shown, list);
		return -EINVAL;
	}
	if (matches > 1) {
		snprintf(err, errlen, "'%s' names %d of the results (%s): give "
			 "one's label", shown, matches, list);
		return -EINVAL;
	}
	if (found > 0)
		move_back(in, files, found, 0);
	return 0;
}

/* The -l list in the command a result file records ("-l rwsem,pervma",
 * "--lock=rwsem", "-lrwsem"): into out, or false. */
static bool lock_list(json_object *root, char *out, size_t len)
{
	json_object *cmd;
	const char *v = NULL;
	size_t n;

	if (!json_object_object_get_ex(root, RK_COMMAND, &cmd) ||
	    !json_object_is_type(cmd, json_type_array))
		return false;
	for (size_t i = 0; !v && i < json_object_array_length(cmd); i++) {
		const char *w = json_object_get_string(
			json_object_array_get_idx(cmd, i));
		const char *next = i + 1 < json_object_array_length(cmd) ?
			json_object_get_string(json_object_array_get_idx(cmd, i + 1)) :
			NULL;

		if (!w)
			continue;
		if (!strcmp(w, "-l") || !strcmp(w, "--lock"))
			v = next;
		else if (!strncmp(w, "--lock=", 7))
			v = w + 7;
		else if (!strncmp(w, "-l", 2) && w[2])
			v = w + 2;
	}
	if (!v || !(n = strlen(v)) || n >= len)
		return false;
	snprintf(out, len, "%s", v);
	return true;
}

/* name's place in the comma-separated list, or -1. */
static int list_rank(const char *list, const char *name)
{
	size_t n = strlen(name);
	int k = 0;

	for (const char *p = list; *p; k++) {
		size_t w = strcspn(p, ",");

		if (w == n && !strncmp(p, name, n))
			return k;
		p += w + (p[w] == ',');
	}
	return -1;
}

/* No --baseline: one run's directory in the run's -l order (the base
 * the user named first, the columns as the user named them); several
 * directories (the first given is the base), a scheme in two results
 * (component variants) or a scheme the list lacks: the order stays. */
static void default_baseline(struct cmp_inputs *in, struct cmp_file *files)
{
	char list[1024];
	int rank[CMP_MAX_INPUTS];

	if (in->several_dirs || in->n < 2 || in->n > CMP_MAX_INPUTS ||
	    !lock_list(files[0].root, list, sizeof(list)))
		return;
	for (int i = 0; i < in->n; i++) {
		rank[i] = files[i].scheme ? list_rank(list, files[i].scheme) : -1;
		for (int k = 0; k < i && rank[i] >= 0; k++)
			if (rank[k] == rank[i])
				rank[i] = -1;
		if (rank[i] < 0)
			return;
	}
	/* Insertion sort by rank (stable; a handful of results). */
	for (int i = 1; i < in->n; i++) {
		int j = i, r = rank[i];

		while (j > 0 && rank[j - 1] > r)
			j--;
		if (j == i)
			continue;
		memmove(&rank[j + 1], &rank[j], (size_t)(i - j) * sizeof(int));
		rank[j] = r;
		move_back(in, files, i, j);
	}
}

int cmp_inputs_load(struct cmp_inputs *in, struct cmp_file *files,
		    const char *const *labels, int nlabels, const char *baseline,
		    char *err, size_t errlen)
{
	char why[1024], shown[256];

	for (int i = 0; i < in->n; i++) {
		parse_printable(shown, sizeof(shown), in->path[i]);
		if (cmp_load(in->path[i], &files[i], why, sizeof(why))) {
			snprintf(err, errlen, "%s: %s", shown, why);
			return -EINVAL;
		}
		if (i && strcmp(files[i].workload, files[0].workload)) {
			snprintf(err, errlen, "%s: workload '%s' does not match "
				 "'%s' of %s", shown, files[i].workload_shown,
				 files[0].workload_shown, files[0].shown);
			return -EINVAL;
		}
		if (nlabels)
			parse_printable(files[i].label, sizeof(files[i].label),
					labels[i]);
	}
	if (!nlabels)
		label_by_dir(in, files);
	if (baseline && pick_baseline(in, files, baseline, why, sizeof(why))) {
		snprintf(err, errlen, "--baseline: %s", why);
		return -EINVAL;
	}
	if (!baseline && !nlabels)
		default_baseline(in, files);
	return 0;
}

/* What a result calls its own configuration: its label, or scheme. */
static const char *own_label(const struct cmp_file *f)
{
	json_object *v;

	if (json_object_object_get_ex(f->root, RK_LABEL, &v) &&
	    json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return f->scheme ? f->scheme : "";
}

void cmp_inputs_sides(const struct cmp_inputs *in, const struct cmp_file *files,
		      int *side)
{
	for (int i = 0; i < in->n; i++) {
		side[i] = i;
		for (int j = 0; j < i && in->dir[i]; j++)
			if (in->dir[j] && in->arg[j] == in->arg[i] &&
			    !strcmp(own_label(&files[j]), own_label(&files[i]))) {
				side[i] = side[j];
				break;
			}
	}
}
