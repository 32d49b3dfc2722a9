/* SPDX-License-Identifier: MIT */
/* compare: reading result files, and checking what they hold. */
#include "analysis/compare_int.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/parse.h"
#include "resfile/run_opts.h"
#include "resfile/schema.h"
#include "base/stats.h"

/* --- loading ------------------------------------------------------------- */

/* A key of object o longer than CMP_MAX_NAME bytes (names become row
 * keys: never cut short, refused), or NULL. */
static const char *long_key(json_object *o)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	json_object_object_foreach(o, key, val) {
		(void)val;
		if (strlen(key) > CMP_MAX_NAME)
			return key;
	}
	return NULL;
}

static int name_too_long(const char *where, const char *key, char *err,
			 size_t errlen)
{
	snprintf(err, errlen, "malformed: %s has a name of %zu bytes (at most "
		 "%d): '%.24s...'", where, strlen(key), CMP_MAX_NAME, key);
	return -EINVAL;
}

static int load_metrics(struct cmp_file *f, char *err, size_t errlen)
{
	json_object *ms;

	if (!json_object_object_get_ex(f->root, RK_METRICS, &ms) ||
	    !json_object_is_type(ms, json_type_object)) {
		snprintf(err, errlen, "malformed: no \"metrics\" object");
		return -EINVAL;
	}
	if (long_key(ms))
		return name_too_long("\"metrics\"", long_key(ms), err, errlen);
	json_object_object_foreach(ms, name, d) {
		json_object *better, *primary, *unit;
		struct cmp_metric *m;

		if (f->nmetrics == CMP_MAX_METRICS) {
			snprintf(err, errlen, "more than %d metrics", CMP_MAX_METRICS);
			return -EINVAL;
		}
		if (!json_object_object_get_ex(d, RK_BETTER, &better) ||
		    !json_object_is_type(better, json_type_string) ||
		    (strcmp(json_object_get_string(better), "higher") &&
		     strcmp(json_object_get_string(better), "lower"))) {
			snprintf(err, errlen, "malformed: metric \"%s\" needs "
				 "\"better\": \"higher\" or \"lower\"", name);
			return -EINVAL;
		}
		m = &f->metrics[f->nmetrics++];
		m->name = name;
		m->higher = !strcmp(json_object_get_string(better), "higher");
		m->primary = json_object_object_get_ex(d, RK_PRIMARY, &primary) &&
			     json_object_get_boolean(primary);
		m->unit = json_object_object_get_ex(d, RK_UNIT, &unit) &&
			  json_object_is_type(unit, json_type_string) &&
			  *json_object_get_string(unit) ?
			  json_object_get_string(unit) : NULL;
	}
	if (!f->nmetrics) {
		snprintf(err, errlen, "malformed: no metrics");
		return -EINVAL;
	}
	return 0;
}

static struct cmp_file *sort_file;      /* qsort has no argument */

static int cmp_by_tasks(const void *a, const void *b)
{
	int x = sort_file->tasks[*(const int *)a];
	int y = sort_file->tasks[*(const int *)b];

	return (x > y) - (x < y);
}

/* The task counts, and their order for cmp_point_of()'s binary search; a
 * count given twice is refused (which of the two would be compared?). */
static int index_tasks(struct cmp_file *f, char *err, size_t errlen)
{
	size_t n = json_object_array_length(f->results);

	f->tasks = malloc((n ? n : 1) * sizeof(*f->tasks));
	f->by_tasks = malloc((n ? n : 1) * sizeof(*f->by_tasks));
	if (!f->tasks || !f->by_tasks) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *t;

		json_object_object_get_ex(json_object_array_get_idx(f->results, i),
					  RK_TASKS, &t);
		f->tasks[i] = json_object_get_int(t);
		f->by_tasks[i] = (int)i;
	}
	f->ntasks = (int)n;
	sort_file = f;
	qsort(f->by_tasks, n, sizeof(*f->by_tasks), cmp_by_tasks);
	for (size_t i = 1; i < n; i++)
		if (f->tasks[f->by_tasks[i]] == f->tasks[f->by_tasks[i - 1]]) {
			int a = f->by_tasks[i - 1], b = f->by_tasks[i];

			snprintf(err, errlen, "malformed: results[%d] and "
				 "results[%d] are both at %d tasks",
				 a < b ? a : b, a < b ? b : a, f->tasks[a]);
			return -EINVAL;
		}
	return 0;
}

/* Every result needs "tasks" >= 1 and numeric sample arrays. */
static int check_results(struct cmp_file *f, char *err, size_t errlen)
{
	size_t n;

	if (!json_object_object_get_ex(f->root, RK_RESULTS, &f->results) ||
	    !json_object_is_type(f->results, json_type_array)) {
		snprintf(err, errlen, "malformed: no \"results\" array");
		return -EINVAL;
	}
	n = json_object_array_length(f->results);
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(f->results, i), *t, *s;

		if (!json_object_object_get_ex(p, RK_TASKS, &t) ||
		    !json_object_is_type(t, json_type_int) ||
		    json_object_get_int(t) < 1) {
			snprintf(err, errlen, "malformed: results[%zu] has no "
				 "\"tasks\" count", i);
			return -EINVAL;
		}
		if (!json_object_object_get_ex(p, RK_SAMPLES, &s) ||
		    !json_object_is_type(s, json_type_object)) {
			snprintf(err, errlen, "malformed: results[%zu] has no "
				 "\"samples\" object", i);
			return -EINVAL;
		}
		for (int k = 0; k < 3; k++) {
			static const char *const named[] = { RK_LOCKSTAT,
				RK_SCHEME_COUNTERS, RK_SLAB };
			json_object *o;
			char where[48];

			if (json_object_object_get_ex(p, named[k], &o) &&
			    long_key(o)) {
				snprintf(where, sizeof(where), "results[%zu].%s",
					 i, named[k]);
				return name_too_long(where, long_key(o), err, errlen);
			}
		}
		json_object_object_foreach(s, name, arr) {
			size_t k;

			if (!json_object_is_type(arr, json_type_array))
				goto bad;
			k = json_object_array_length(arr);
			for (size_t j = 0; j < k; j++) {
				json_object *v = json_object_array_get_idx(arr, j);

				if (!json_object_is_type(v, json_type_double) &&
				    !json_object_is_type(v, json_type_int))
					goto bad;
			}
			continue;
bad:
			snprintf(err, errlen, "malformed: results[%zu].samples.%s "
				 "is not an array of numbers", i, name);
			return -EINVAL;
		}
	}
	return index_tasks(f, err, errlen);
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* Line and column (from 1) of byte off in buf. */
static void line_col(const char *buf, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && buf[i]; i++) {
		if (buf[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* Parse buf (n bytes) as one JSON document; NULL with err saying where
 * and why it is not one. */
static json_object *parse_json(const char *buf, size_t n, char *err,
			       size_t errlen)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o = NULL;
	enum json_tokener_error je;
	size_t end;
	int line, col;

	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, buf, (int)n);
	je = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (!o && je == json_tokener_continue) {
		line_col(buf, n, &line, &col);
		snprintf(err, errlen, "truncated: the JSON stops at line %d, "
			 "column %d before it is complete", line, col);
	} else if (!o) {
		line_col(buf, end ? end - 1 : 0, &line, &col);
		snprintf(err, errlen, "not JSON: %s at line %d, column %d",
			 json_tokener_error_desc(je), line, col);
	} else if (end + strspn(buf + end, " \t\r\n") < n) {
		end += strspn(buf + end, " \t\r\n");
		line_col(buf, end, &line, &col);
		snprintf(err, errlen, "not one JSON document: more data at line "
			 "%d, column %d", line, col);
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

int cmp_load(const char *path, struct cmp_file *f, char *err, size_t errlen)
{
	/* Never blocks: a FIFO or a device is refused, not read. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	json_object *root = NULL;
	struct stat st;
	char *buf = NULL;
	ssize_t got = 0;

	memset(f, 0, sizeof(*f));
	if (fd < 0) {
		snprintf(err, errlen, "cannot open it: %s", strerror(errno));
		return -EINVAL;
	}
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "cannot read it: %s", strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "is %s, not a result file",
			 S_ISDIR(st.st_mode) ? "a directory" :
			 S_ISFIFO(st.st_mode) ? "a FIFO" :
			 S_ISCHR(st.st_mode) ? "a character device" :
			 S_ISBLK(st.st_mode) ? "a block device" : "a socket");
	} else if (st.st_size == 0) {
		snprintf(err, errlen, "is empty, not a result file");
	} else if (st.st_size > CMP_MAX_BYTES) {
		snprintf(err, errlen, "is %lld bytes, larger than any result "
			 "file (%d MiB at most)", (long long)st.st_size,
			 CMP_MAX_BYTES >> 20);
	} else if (!(buf = malloc((size_t)st.st_size + 1))) {
		snprintf(err, errlen, "out of memory");
	} else {
		size_t want = (size_t)st.st_size;

		while ((size_t)got < want) {
			ssize_t r = read(fd, buf + got, want - (size_t)got);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += r;
		}
		buf[got] = '\0';        /* parse_json's strspn stops here */
		if ((size_t)got < want)
			snprintf(err, errlen, "cannot read it: %s", got < 0 ?
				 strerror(errno) : "it shrank while being read");
		else if (memchr(buf, 0, want))
			snprintf(err, errlen, "holds a NUL byte: not a JSON "
				 "result file");
		else
			root = parse_json(buf, want, err, errlen);
	}
	free(buf);
	close(fd);
	if (!root)
		return -EINVAL;
	return cmp_from_json(root, path, f, err, errlen);
}

int cmp_from_json(json_object *root, const char *path, struct cmp_file *f,
		  char *err, size_t errlen)
{
	json_object *ver;
	int ret;

	memset(f, 0, sizeof(*f));
	f->path = path;
	parse_printable(f->shown, sizeof(f->shown), path);
	f->root = root;
	if (!json_object_is_type(f->root, json_type_object) ||
	    !json_object_object_get_ex(f->root, RK_VMSIM_RESULT, &ver) ||
	    !json_object_is_type(ver, json_type_int)) {
		snprintf(err, errlen, "not a vmsim result (no \"vmsim_result\")");
		goto err;
	}
	/* Format 2 added sections (host, new uffd counters); 1 still reads. */
	if (json_object_get_int(ver) < 1 ||
	    json_object_get_int(ver) > RES_FORMAT_VERSION) {
		snprintf(err, errlen, "result format %d, this vmsim reads 1 to %d",
			 json_object_get_int(ver), RES_FORMAT_VERSION);
		goto err;
	}
	f->workload = get_str(f->root, RK_WORKLOAD);
	f->scheme = get_str(f->root, RK_SCHEME);
	if (!f->workload || !f->scheme) {
		snprintf(err, errlen, "malformed: no \"workload\" or \"scheme\"");
		goto err;
	}
	ret = load_metrics(f, err, errlen);
	if (!ret)
		ret = check_results(f, err, errlen);
	if (ret)
		goto err;
	if (json_object_object_get_ex(f->root, RK_COMPLETE, &ver) &&
	    !json_object_is_type(ver, json_type_boolean)) {
		snprintf(err, errlen, "malformed: \"complete\" is not true or "
			 "false");
		goto err;
	}
	/* A component variant's file is compared as the variant. */
	parse_printable(f->label, sizeof(f->label), get_str(f->root, RK_LABEL) ?
		  get_str(f->root, RK_LABEL) : f->scheme);
	parse_printable(f->workload_shown, sizeof(f->workload_shown), f->workload);
	return 0;
err:
	cmp_file_free(f);
	return -EINVAL;
}

void cmp_file_free(struct cmp_file *f)
{
	json_object_put(f->root);
	f->root = NULL;
	free(f->tasks);
	free(f->by_tasks);
	f->tasks = f->by_tasks = NULL;
	f->ntasks = 0;
}

/* --- data access ---------------------------------------------------------- */

json_object *cmp_point_of(const struct cmp_file *f, int tasks)
{
	int lo = 0, hi = f->ntasks;

	while (lo < hi) {                /* the first at or above tasks */
		int mid = lo + (hi - lo) / 2;

		if (f->tasks[f->by_tasks[mid]] < tasks)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->ntasks && f->tasks[f->by_tasks[lo]] == tasks)
		return json_object_array_get_idx(f->results,
						  (size_t)f->by_tasks[lo]);
	return NULL;
}

/* Is sample k (0-based) of point p one the run flagged? */
static bool sample_flagged(json_object *p, size_t k)
{
	json_object *fl, *e, *i;

	if (!json_object_object_get_ex(p, RK_FLAGGED, &fl) ||
	    !json_object_is_type(fl, json_type_array))
		return false;
	for (size_t j = 0; j < json_object_array_length(fl); j++) {
		e = json_object_array_get_idx(fl, j);
		if (json_object_object_get_ex(e, RK_SAMPLE, &i) &&
		    json_object_get_int(i) == (int)k + 1)
			return true;
	}
	return false;
}

/* Samples of metric at tasks in f, the flagged ones left out (they
 * measured a stopped or starved run, not the scheme): malloc'ed into
 * *out, NULL if none. */
size_t cmp_samples_of(const struct cmp_file *f, const char *metric,
			 int tasks, double **out)
{
	json_object *p = cmp_point_of(f, tasks), *s, *arr;
	size_t n, kept = 0;

	*out = NULL;
	if (!p || !json_object_object_get_ex(p, RK_SAMPLES, &s) ||
	    !json_object_object_get_ex(s, metric, &arr))
		return 0;
	n = json_object_array_length(arr);
	*out = n ? malloc(n * sizeof(double)) : NULL;
	if (!*out)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!sample_flagged(p, i))
			(*out)[kept++] = json_object_get_double(
				json_object_array_get_idx(arr, i));
	if (!kept) {
		free(*out);
		*out = NULL;
	}
	return kept;
}

int cmp_point_nflagged(const struct cmp_file *f, int tasks)
{
	json_object *p = cmp_point_of(f, tasks), *fl;

	return p && json_object_object_get_ex(p, RK_FLAGGED, &fl) &&
	       json_object_is_type(fl, json_type_array) ?
	       (int)json_object_array_length(fl) : 0;
}

const struct cmp_metric *cmp_metric_of(const struct cmp_file *f,
					  const char *name)
{
	for (int i = 0; i < f->nmetrics; i++)
		if (!strcmp(f->metrics[i].name, name))
			return &f->metrics[i];
	return NULL;
}

/* --- validation ------------------------------------------------------------ */

/* Is sample v of metric m a measurement? */
static bool sample_ok(const struct cmp_metric *m, double v)
{
	return isfinite(v) && (m->primary ? v > 0 : v >= 0);
}

bool cmp_samples_ok(const struct cmp_metric *m, const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!sample_ok(m, x[i]))
			return false;
	return true;
}

bool cmp_point_flagged(const struct cmp_file *f, int tasks)
{
	return cmp_point_nflagged(f, tasks) > 0;
}

/* The good samples a point needs to be compared when some were left
 * out: three (a mean, a spread, and one to tell them apart), or all of
 * a run made with fewer. */
#define CMP_MIN_GOOD 3

static bool enough_good(size_t good, int flagged)
{
	size_t all = good + (size_t)flagged;

	return good > 0 && good >= (all < CMP_MIN_GOOD ? all : CMP_MIN_GOOD);
}

bool cmp_point_valid(const struct cmp_file *f, const struct cmp_metric *m,
		     int tasks, const double *x, size_t n)
{
	return cmp_samples_ok(m, x, n) &&
	       enough_good(n, cmp_point_nflagged(f, tasks));
}

int cmp_flag_notes(const struct cmp_file *f, char *out, size_t len)
{
	int count = 0;

	if (len)
		out[0] = '\0';
	for (int t = 0; t < f->ntasks && f->nmetrics; t++) {
		json_object *p = cmp_point_of(f, f->tasks[t]), *fl, *e, *i, *r;
		size_t used = strlen(out), good;
		char reason[256];
		double *x;
		int nfl = cmp_point_nflagged(f, f->tasks[t]);

		if (!nfl)
			continue;
		good = cmp_samples_of(f, f->metrics[0].name, f->tasks[t], &x);
		free(x);
		if (!enough_good(good, nfl))
			continue;               /* cmp_validate says it */
		json_object_object_get_ex(p, RK_FLAGGED, &fl);
		e = json_object_array_get_idx(fl, 0);
		parse_printable(reason, sizeof(reason),
			  json_object_object_get_ex(e, RK_REASON, &r) ?
			  json_object_get_string(r) : "");
		if (used < len)
			snprintf(out + used, len - used, "%stasks %d: %d sample%s "
				 "left out (sample %d: %s), %zu of %zu remain",
				 count ? "; " : "", f->tasks[t], nfl,
				 nfl == 1 ? "" : "s",
				 json_object_object_get_ex(e, RK_SAMPLE, &i) ?
				 json_object_get_int(i) : 0, reason, good,
				 good + (size_t)nfl);
		count++;
	}
	return count;
}

void cmp_say_flags(FILE *err, const struct cmp_file *f, bool invalid)
{
	char notes[2048];
	bool any = false;

	if (cmp_flag_notes(f, notes, sizeof(notes)))
		fprintf(err, "vmsim: note: %s: %s\n", f->shown, notes);
	for (int t = 0; t < f->ntasks && !any; t++)
		any = cmp_point_flagged(f, f->tasks[t]);
	if (invalid && any)
		fprintf(err, "vmsim: to measure it again: vmsim rerun %s -o "
			"%.*s-rerun.json\n", f->shown,
			(int)(strlen(f->shown) > 5 &&
			      !strcmp(f->shown + strlen(f->shown) - 5, ".json") ?
			      strlen(f->shown) - 5 : strlen(f->shown)), f->shown);
}

static int point_tasks(json_object *p)
{
	json_object *t;

	return json_object_object_get_ex(p, RK_TASKS, &t) ?
	       json_object_get_int(t) : 0;
}

static int validate_point(const struct cmp_file *f, json_object *p,
			  char *why, size_t len)
{
	int tasks = point_tasks(p);
	json_object *fl;
	size_t want = 0;

	/* What the run itself knew was wrong comes first: it says why. A
	 * flagged sample is left out; too few left is no measurement. */
	if (json_object_object_get_ex(p, RK_FLAGGED, &fl) &&
	    json_object_is_type(fl, json_type_array) &&
	    json_object_array_length(fl) && f->nmetrics) {
		json_object *e = json_object_array_get_idx(fl, 0), *i, *r;
		int nfl = (int)json_object_array_length(fl);
		char reason[256];
		double *x;
		size_t good = cmp_samples_of(f, f->metrics[0].name, tasks, &x);

		free(x);
		if (!enough_good(good, nfl)) {
			parse_printable(reason, sizeof(reason),
				  json_object_object_get_ex(e, RK_REASON, &r) ?
				  json_object_get_string(r) : "");
			snprintf(why, len, "tasks %d: %d flagged sample(s), %zu "
				 "good left (%d needed); sample %d: %s", tasks,
				 nfl, good, CMP_MIN_GOOD, json_object_object_get_ex(
				 e, RK_SAMPLE, &i) ? json_object_get_int(i) : 0,
				 reason);
			return -EINVAL;
		}
	}
	for (int m = 0; m < f->nmetrics; m++) {
		const struct cmp_metric *mt = &f->metrics[m];
		double *x;
		size_t n = cmp_samples_of(f, mt->name, tasks, &x);

		for (size_t i = 0; i < n; i++)
			if (!sample_ok(mt, x[i])) {
				snprintf(why, len, "%s-%d sample %zu is %g, not a "
					 "measurement (want a finite number %s 0)",
					 mt->name, tasks, i + 1, x[i],
					 mt->primary ? ">" : ">=");
				free(x);
				return -EINVAL;
			}
		free(x);
		if (!n) {
			snprintf(why, len, "%s-%d has no samples", mt->name, tasks);
			return -EINVAL;
		}
		if (m && n != want) {
			snprintf(why, len, "%s-%d has %zu samples, %s-%d has %zu "
				 "(every sample measures every metric)", mt->name,
				 tasks, n, f->metrics[0].name, tasks, want);
			return -EINVAL;
		}
		want = n;
	}
	return 0;
}

int cmp_validate(const struct cmp_file *f, const struct cmp_file *base,
		 char *why, size_t len)
{
	size_t n = json_object_array_length(f->results);
	json_object *cpl, *st;
	char tmp[256];

	if (!json_object_object_get_ex(f->root, RK_COMPLETE, &cpl) ||
	    !json_object_is_type(cpl, json_type_boolean) ||
	    !json_object_get_boolean(cpl)) {
		snprintf(why, len, "an incomplete run (%s)",
			 json_object_object_get_ex(f->root, RK_STOPPED, &st) ?
			 parse_printable(tmp, sizeof(tmp), json_object_get_string(st)) :
			 "it was stopped early");
		return -EINVAL;
	}
	if (!n) {
		snprintf(why, len, "no results");
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (validate_point(f, json_object_array_get_idx(f->results, i),
				   why, len))
			return -EINVAL;
	if (!base)
		return 0;
	for (int m = 0; m < base->nmetrics; m++)
		if (!cmp_metric_of(f, base->metrics[m].name)) {
			snprintf(why, len, "no metric '%s' (the base has it)",
				 parse_printable(tmp, sizeof(tmp), base->metrics[m].name));
			return -EINVAL;
		}
	for (size_t i = 0; i < json_object_array_length(base->results); i++) {
		int t = point_tasks(json_object_array_get_idx(base->results, i));

		if (!cmp_point_of(f, t)) {
			snprintf(why, len, "no result at %d tasks (the base has one)",
				 t);
			return -EINVAL;
		}
	}
	return 0;
}

/* A recorded value as a mismatch line shows it: a cost profile (--costs)
 * by its date, not its whole text. */
static const char *shown_value(json_object *v, char *buf, size_t len)
{
	json_object *d;

	if (!v)
		return "(not recorded)";
	if (json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	if (json_object_is_type(v, json_type_object) &&
	    json_object_object_get_ex(v, "vmsim_cost_profile", &d) &&
	    json_object_object_get_ex(v, "date", &d)) {
		snprintf(buf, len, "the cost profile of %s",
			 json_object_get_string(d));
		return buf;
	}
	return json_object_to_json_string(v);
}

static void mismatch_add(char *out, size_t len, int *count, const char *key,
			 json_object *a, json_object *b)
{
	char va[96], vb[96], ba[96], bb[96];
	size_t used = strlen(out);

	if (a && b && json_object_equal(a, b))
		return;
	parse_printable(va, sizeof(va), shown_value(a, ba, sizeof(ba)));
	parse_printable(vb, sizeof(vb), shown_value(b, bb, sizeof(bb)));
	if (used < len)
		snprintf(out + used, len - used, "%s%s %s vs %s",
			 *count ? ", " : "", key, va, vb);
	(*count)++;
}

/* What a file written before an option existed meant by its absence:
 * the behaviour vmsim had then (resfile/run_opts.def's BEFORE_*). An option
 * without one has no such meaning (or is only written where it applies),
 * so its absence on one side is a difference. */
static json_object *option_before_it_existed(const char *key)
{
	const struct run_opt *o = run_opt_by_key(key);

	if (!o || !o->has_before)
		return NULL;
	return o->before_str ? json_object_new_string(o->before_str) :
			       json_object_new_int64(o->before_num);
}

/* How many samples, and how long each: the spread, not what a sample
 * means; or how vmsim ran (its limits and checks). */
static bool samples_only(const char *key)
{
	const struct run_opt *o = run_opt_by_key(key);

	return o && (o->samples || o->harness);
}

/* Does key's option apply to f's run (its fault source and mode)? A
 * file of an older vmsim may record one where it does not (--wait of a
 * synthetic run): no difference then. */
static bool applies_to(const struct cmp_file *f, const char *key)
{
	const struct run_opt *o = run_opt_by_key(key);
	json_object *src = NULL, *opts = NULL, *mode = NULL;

	if (!o || !o->needs)
		return true;
	json_object_object_get_ex(f->root, RK_FAULT_SOURCE, &src);
	if (json_object_object_get_ex(f->root, RK_OPTIONS, &opts))
		json_object_object_get_ex(opts, "mode", &mode);
	return run_opt_applies(o, json_object_is_type(src, json_type_string) ?
			       json_object_get_string(src) : "uffd",
			       json_object_is_type(mode, json_type_string) &&
			       !strcmp(json_object_get_string(mode), "processes"));
}

/* Does f's run say its scheme chose key's value (its by_scheme)? */
static bool chosen_by_scheme(const struct cmp_file *f, const char *key)
{
	json_object *a;

	if (!json_object_object_get_ex(f->root, RK_BY_SCHEME, &a) ||
	    !json_object_is_type(a, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(a, i)),
			    key))
			return true;
	return false;
}

/* Key of one side's options against the other's (absent: what an older
 * format meant, if anything). */
static void option_mismatch(char *out, size_t len, int *count, const char *key,
			    json_object *va, json_object *ob, bool a_first)
{
	json_object *vb = NULL, *dflt = NULL;

	if (samples_only(key))
		return;
	if (!json_object_object_get_ex(ob, key, &vb))
		vb = dflt = option_before_it_existed(key);
	if (a_first)
		mismatch_add(out, len, count, key, va, vb);
	else
		mismatch_add(out, len, count, key, vb, va);
	json_object_put(dflt);
}

/* Did f's models pay a cost profile (--costs)? */
static bool costed(const struct cmp_file *f)
{
	json_object *o, *c;

	return json_object_object_get_ex(f->root, RK_OPTIONS, &o) &&
	       json_object_object_get_ex(o, "costs", &c) &&
	       json_object_is_type(c, json_type_object);
}

bool cmp_costs_differ(const struct cmp_file *a, const struct cmp_file *b)
{
	return costed(a) != costed(b);
}

int cmp_mismatch(const struct cmp_file *a, const struct cmp_file *b,
		 char *out, size_t len)
{
	static const char *const machine[] = { RK_KERNEL, RK_MACHINE, RK_CPU_MODEL,
					       RK_CPUS, RK_NUMA_NODES };
	json_object *oa = NULL, *ob = NULL, *ma, *mb, *x = NULL, *y = NULL, *y2;
	int count = 0;

	out[0] = 0;
	json_object_object_get_ex(a->root, RK_OPTIONS, &oa);
	json_object_object_get_ex(b->root, RK_OPTIONS, &ob);
	if (!json_object_is_type(oa, json_type_object) ||
	    !json_object_is_type(ob, json_type_object)) {
		json_object *sa = json_object_new_string(oa ? "recorded" : "(none)");
		json_object *sb = json_object_new_string(ob ? "recorded" : "(none)");

		mismatch_add(out, len, &count, "options", sa, sb);
		json_object_put(sa);
		json_object_put(sb);
	} else {
		/* A value both schemes chose is theirs to differ in. */
		json_object_object_foreach(oa, key, va)
			if ((!chosen_by_scheme(a, key) || !chosen_by_scheme(b, key)) &&
			    applies_to(a, key) && applies_to(b, key))
				option_mismatch(out, len, &count, key, va, ob, true);
		json_object_object_foreach(ob, keyb, vb)
			if (!json_object_object_get_ex(oa, keyb, &y2) &&
			    (!chosen_by_scheme(a, keyb) || !chosen_by_scheme(b, keyb)) &&
			    applies_to(a, keyb) && applies_to(b, keyb))
				option_mismatch(out, len, &count, keyb, vb, oa,
						false);
	}
	json_object_object_get_ex(a->root, RK_FAULT_SOURCE, &x);
	json_object_object_get_ex(b->root, RK_FAULT_SOURCE, &y);
	mismatch_add(out, len, &count, "fault_source", x, y);
	if (json_object_object_get_ex(a->root, RK_META, &ma) &&
	    json_object_object_get_ex(b->root, RK_META, &mb))
		for (size_t k = 0; k < sizeof(machine) / sizeof(*machine); k++)
			if (json_object_object_get_ex(ma, machine[k], &x) &&
			    json_object_object_get_ex(mb, machine[k], &y))
				mismatch_add(out, len, &count, machine[k], x, y);
	return count;
}
