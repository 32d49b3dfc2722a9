/* SPDX-License-Identifier: MIT */
/*
 * vmsim compare: mmtests-style comparison of result files.
 *
 * For every metric and task count of the first file (the base), rows
 * Min, Hmean or Amean, Stddev, CoeffVar, Max and the best-P% means,
 * one column per file, each value with its difference from the base:
 * higher-is-better 100*new/base - 100, lower-is-better 100 - 100*new/base,
 * Stddev and CoeffVar always in the lower form, so positive is better.
 * The mean row is marked *x.xx%* when the difference is significant under
 * the chosen rule (compare.h: Welch, Mann-Whitney, or either of mmtests'
 * rules). Higher-is-better metrics get HStddev/HCoeffVar, the spread of
 * the harmonic mean, as current mmtests prints them. Lock statistics and
 * the scheme's event counters follow, side by side.
 */
#include "report/compare.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/parse.h"
#include "report/results.h"
#include "report/stats.h"

#define CMP_MAX_FILES 32
#define CMP_MAX_BYTES (256 << 20)         /* a result is kilobytes */
#define CMP_COL 25                       /* %14.4f + " ( 123.45%)" */

enum stat_id { ST_MIN, ST_MEAN, ST_STDDEV, ST_COV, ST_MAX, ST_B50, ST_B95,
	       ST_B99, ST_N };

/* --- loading ------------------------------------------------------------- */

static int load_metrics(struct cmp_file *f, char *err, size_t errlen)
{
	json_object *ms;

	if (!json_object_object_get_ex(f->root, "metrics", &ms) ||
	    !json_object_is_type(ms, json_type_object)) {
		snprintf(err, errlen, "malformed: no \"metrics\" object");
		return -EINVAL;
	}
	json_object_object_foreach(ms, name, d) {
		json_object *better, *primary;
		struct cmp_metric *m;

		if (f->nmetrics == CMP_MAX_METRICS) {
			snprintf(err, errlen, "more than %d metrics", CMP_MAX_METRICS);
			return -EINVAL;
		}
		if (!json_object_object_get_ex(d, "better", &better) ||
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
		m->primary = json_object_object_get_ex(d, "primary", &primary) &&
			     json_object_get_boolean(primary);
	}
	if (!f->nmetrics) {
		snprintf(err, errlen, "malformed: no metrics");
		return -EINVAL;
	}
	return 0;
}

/* Every result needs "tasks" >= 1 and numeric sample arrays. */
static int check_results(struct cmp_file *f, char *err, size_t errlen)
{
	size_t n;

	if (!json_object_object_get_ex(f->root, "results", &f->results) ||
	    !json_object_is_type(f->results, json_type_array)) {
		snprintf(err, errlen, "malformed: no \"results\" array");
		return -EINVAL;
	}
	n = json_object_array_length(f->results);
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(f->results, i), *t, *s;

		if (!json_object_object_get_ex(p, "tasks", &t) ||
		    !json_object_is_type(t, json_type_int) ||
		    json_object_get_int(t) < 1) {
			snprintf(err, errlen, "malformed: results[%zu] has no "
				 "\"tasks\" count", i);
			return -EINVAL;
		}
		if (!json_object_object_get_ex(p, "samples", &s) ||
		    !json_object_is_type(s, json_type_object)) {
			snprintf(err, errlen, "malformed: results[%zu] has no "
				 "\"samples\" object", i);
			return -EINVAL;
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
	return 0;
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
	printable(f->shown, sizeof(f->shown), path);
	f->root = root;
	if (!json_object_is_type(f->root, json_type_object) ||
	    !json_object_object_get_ex(f->root, "vmsim_result", &ver) ||
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
	f->workload = get_str(f->root, "workload");
	f->scheme = get_str(f->root, "scheme");
	if (!f->workload || !f->scheme) {
		snprintf(err, errlen, "malformed: no \"workload\" or \"scheme\"");
		goto err;
	}
	ret = load_metrics(f, err, errlen);
	if (!ret)
		ret = check_results(f, err, errlen);
	if (ret)
		goto err;
	printable(f->label, sizeof(f->label), f->scheme);
	printable(f->workload_shown, sizeof(f->workload_shown), f->workload);
	return 0;
err:
	json_object_put(f->root);
	f->root = NULL;
	return -EINVAL;
}

void cmp_file_free(struct cmp_file *f)
{
	json_object_put(f->root);
	f->root = NULL;
}

/* --- data access ---------------------------------------------------------- */

static json_object *point_of(const struct cmp_file *f, int tasks)
{
	size_t n = json_object_array_length(f->results);

	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(f->results, i), *t;

		if (json_object_object_get_ex(p, "tasks", &t) &&
		    json_object_get_int(t) == tasks)
			return p;
	}
	return NULL;
}

/* Samples of metric at tasks in f (malloc'ed into *out; NULL if none). */
static size_t samples_of(const struct cmp_file *f, const char *metric,
			 int tasks, double **out)
{
	json_object *p = point_of(f, tasks), *s, *arr;
	size_t n;

	*out = NULL;
	if (!p || !json_object_object_get_ex(p, "samples", &s) ||
	    !json_object_object_get_ex(s, metric, &arr))
		return 0;
	n = json_object_array_length(arr);
	*out = n ? malloc(n * sizeof(double)) : NULL;
	if (!*out)
		return 0;
	for (size_t i = 0; i < n; i++)
		(*out)[i] = json_object_get_double(json_object_array_get_idx(arr, i));
	return n;
}

static const struct cmp_metric *metric_of(const struct cmp_file *f,
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

static bool samples_ok(const struct cmp_metric *m, const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!sample_ok(m, x[i]))
			return false;
	return true;
}

static int point_tasks(json_object *p)
{
	json_object *t;

	return json_object_object_get_ex(p, "tasks", &t) ?
	       json_object_get_int(t) : 0;
}

static int validate_point(const struct cmp_file *f, json_object *p,
			  char *why, size_t len)
{
	int tasks = point_tasks(p);
	json_object *fl;
	size_t want = 0;

	/* What the run itself knew was wrong comes first: it says why. */
	if (json_object_object_get_ex(p, "flagged", &fl) &&
	    json_object_is_type(fl, json_type_array) &&
	    json_object_array_length(fl)) {
		json_object *e = json_object_array_get_idx(fl, 0), *i, *r;
		char reason[256];

		printable(reason, sizeof(reason),
			  json_object_object_get_ex(e, "reason", &r) ?
			  json_object_get_string(r) : "");
		snprintf(why, len, "tasks %d: %zu flagged sample(s); sample %d: %s",
			 tasks, json_object_array_length(fl),
			 json_object_object_get_ex(e, "sample", &i) ?
			 json_object_get_int(i) : 0, reason);
		return -EINVAL;
	}
	for (int m = 0; m < f->nmetrics; m++) {
		const struct cmp_metric *mt = &f->metrics[m];
		double *x;
		size_t n = samples_of(f, mt->name, tasks, &x);

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

	if (!json_object_object_get_ex(f->root, "complete", &cpl) ||
	    !json_object_get_boolean(cpl)) {
		snprintf(why, len, "an incomplete run (%s)",
			 json_object_object_get_ex(f->root, "stopped", &st) ?
			 printable(tmp, sizeof(tmp), json_object_get_string(st)) :
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
		if (!metric_of(f, base->metrics[m].name)) {
			snprintf(why, len, "no metric '%s' (the base has it)",
				 printable(tmp, sizeof(tmp), base->metrics[m].name));
			return -EINVAL;
		}
	for (size_t i = 0; i < json_object_array_length(base->results); i++) {
		int t = point_tasks(json_object_array_get_idx(base->results, i));

		if (!point_of(f, t)) {
			snprintf(why, len, "no result at %d tasks (the base has one)",
				 t);
			return -EINVAL;
		}
	}
	return 0;
}

static void mismatch_add(char *out, size_t len, int *count, const char *key,
			 json_object *a, json_object *b)
{
	char va[96], vb[96];
	size_t used = strlen(out);

	if (!a || !b || json_object_equal(a, b))
		return;
	printable(va, sizeof(va), json_object_is_type(a, json_type_string) ?
		  json_object_get_string(a) : json_object_to_json_string(a));
	printable(vb, sizeof(vb), json_object_is_type(b, json_type_string) ?
		  json_object_get_string(b) : json_object_to_json_string(b));
	if (used < len)
		snprintf(out + used, len - used, "%s%s %s vs %s",
			 *count ? ", " : "", key, va, vb);
	(*count)++;
}

int cmp_mismatch(const struct cmp_file *a, const struct cmp_file *b,
		 char *out, size_t len)
{
	static const char *const samples_only[] = { "iterations", "duration",
						    "tasks" };
	static const char *const machine[] = { "kernel", "machine", "cpu_model",
					       "cpus", "numa_nodes" };
	json_object *oa, *ob, *ma, *mb, *x, *y;
	int count = 0;

	out[0] = 0;
	if (json_object_object_get_ex(a->root, "options", &oa) &&
	    json_object_object_get_ex(b->root, "options", &ob) &&
	    json_object_is_type(oa, json_type_object) &&
	    json_object_is_type(ob, json_type_object)) {
		json_object_object_foreach(oa, key, va) {
			size_t k;

			for (k = 0; k < sizeof(samples_only) / sizeof(*samples_only) &&
				    strcmp(key, samples_only[k]); k++)
				;
			if (k == sizeof(samples_only) / sizeof(*samples_only) &&
			    json_object_object_get_ex(ob, key, &y))
				mismatch_add(out, len, &count, key, va, y);
		}
	}
	if (json_object_object_get_ex(a->root, "fault_source", &x) &&
	    json_object_object_get_ex(b->root, "fault_source", &y))
		mismatch_add(out, len, &count, "fault_source", x, y);
	if (json_object_object_get_ex(a->root, "meta", &ma) &&
	    json_object_object_get_ex(b->root, "meta", &mb))
		for (size_t k = 0; k < sizeof(machine) / sizeof(*machine); k++)
			if (json_object_object_get_ex(ma, machine[k], &x) &&
			    json_object_object_get_ex(mb, machine[k], &y))
				mismatch_add(out, len, &count, machine[k], x, y);
	return count;
}

/* --- statistics per row ------------------------------------------------------ */

static const char *stat_name(enum stat_id st, bool higher)
{
	static const char *const hi[ST_N] = { "Min", "Hmean", "HStddev",
		"HCoeffVar", "Max", "BHmean-50", "BHmean-95", "BHmean-99" };
	static const char *const lo[ST_N] = { "Min", "Amean", "Stddev",
		"CoeffVar", "Max", "BAmean-50", "BAmean-95", "BAmean-99" };

	return higher ? hi[st] : lo[st];
}

static double stat_value(enum stat_id st, const double *x, size_t n,
			 bool higher)
{
	if (!n)
		return NAN;
	switch (st) {
	case ST_MIN: return stats_min(x, n);
	case ST_MEAN: return higher ? stats_hmean(x, n) : stats_amean(x, n);
	case ST_STDDEV: return higher ? stats_hstddev(x, n) : stats_stddev(x, n);
	case ST_COV: return higher ? stats_hcoeffvar(x, n) : stats_coeffvar(x, n);
	case ST_MAX: return stats_max(x, n);
	case ST_B50: return stats_best_mean(x, n, 50, higher);
	case ST_B95: return stats_best_mean(x, n, 95, higher);
	case ST_B99: return stats_best_mean(x, n, 99, higher);
	default: return NAN;
	}
}

/* Difference from the base, positive = better; NaN when undefined. */
static double pct_diff(double base, double v, bool higher)
{
	if (!isfinite(base) || !isfinite(v) || base == 0)
		return NAN;
	if (v == base)
		return 0;                /* exactly, not -0.00 by rounding */
	return higher ? 100.0 * v / base - 100.0 : 100.0 - 100.0 * v / base;
}

const char *cmp_test_name(enum cmp_test t)
{
	static const char *const names[] = { "welch", "mannwhitney",
					     "mmtests-ttest", "mmtests-ci" };

	return names[t];
}

double cmp_alpha(const struct cmp_opts *o)
{
	if (o->test == CMP_MMTESTS_CI)
		return NAN;
	if (o->alpha > 0)
		return o->alpha;
	return o->test == CMP_MMTESTS_TTEST ? 0.10 : 0.05;
}

int cmp_significant(const struct cmp_opts *o, const double *a, size_t na,
		    const double *b, size_t nb, bool higher, double *p)
{
	double ma, mb, sa, sb;

	*p = NAN;
	if (!na || !nb)
		return -1;
	ma = stat_value(ST_MEAN, a, na, higher);
	mb = stat_value(ST_MEAN, b, nb, higher);
	switch (o->test) {
	case CMP_WELCH:
		*p = stats_welch_p(a, na, b, nb);
		break;
	case CMP_MANNWHITNEY:
		*p = stats_mannwhitney_p(a, na, b, nb);
		break;
	case CMP_MMTESTS_TTEST:
		*p = stats_student_p(ma, stats_stddev(a, na), na, mb,
				     stats_stddev(b, nb), nb);
		break;
	case CMP_MMTESTS_CI:
		sa = stat_value(ST_STDDEV, a, na, higher);
		sb = stat_value(ST_STDDEV, b, nb, higher);
		if (na < 2 || nb < 2 || isnan(ma) || isnan(mb) || isnan(sa) ||
		    isnan(sb))
			return -1;
		return fabs(mb - ma) > 1.96 * (sa + sb);
	}
	if (isnan(*p))
		return -1;
	return *p < cmp_alpha(o);
}

/* --- output --------------------------------------------------------------- */

struct row {
	const char *section;             /* "metric" or "lock" */
	const char *stat;
	char key[96];                    /* e.g. "faults/sec-2" */
	bool integer;
	bool nopct;                      /* a count with no better/worse */
	double v[CMP_MAX_FILES];
	double pct[CMP_MAX_FILES];
	int sig[CMP_MAX_FILES];          /* -1 not tested, 0 no, 1 yes */
	bool invalid[CMP_MAX_FILES];     /* samples that are not measurements */
};

struct printer {
	FILE *out;
	const struct cmp_opts *o;
	const struct cmp_file *files;
	int n;
	int keyw;
	json_object *rows;               /* --format json */
	const char *section;             /* text: last section header */
};

static void fmt_value(char *buf, size_t len, double v, bool integer,
		      bool invalid)
{
	if (invalid)
		snprintf(buf, len, "%14s", "invalid");
	else if (!isfinite(v))
		snprintf(buf, len, "%14s", "-");
	else
		snprintf(buf, len, integer ? "%14.0f" : "%14.4f", v);
}

static void fmt_pct(char *buf, size_t len, double p, int sig)
{
	if (!isfinite(p))
		snprintf(buf, len, " (    n/a)");
	else if (sig == 1)
		snprintf(buf, len, " *%7.2f%%*", p);
	else
		snprintf(buf, len, " (%7.2f%%)", p);
}

static void print_header_text(struct printer *pr)
{
	char base[256];
	bool same = true;

	fprintf(pr->out, "%-*s", 10 + pr->keyw, "");
	for (int i = 0; i < pr->n; i++) {
		fprintf(pr->out, " %*s", CMP_COL, pr->files[i].label);
		snprintf(base, sizeof(base), "%s", pr->files[i].shown);
		same &= !strcmp(basename(base), pr->files[i].label);
	}
	if (same) {                      /* no file names to add */
		fprintf(pr->out, "\n");
		return;
	}
	fprintf(pr->out, "\n%-*s", 10 + pr->keyw, "");
	for (int i = 0; i < pr->n; i++) {
		snprintf(base, sizeof(base), "%s", pr->files[i].shown);
		fprintf(pr->out, " %*.*s", CMP_COL, CMP_COL, basename(base));
	}
	fprintf(pr->out, "\n");
}

static void emit_row(struct printer *pr, const struct row *r)
{
	char v[64], p[64];

	switch (pr->o->format) {
	case CMP_TEXT:
		if (!pr->section || strcmp(pr->section, r->section)) {
			if (pr->section)
				fprintf(pr->out, "\n");
			if (!strcmp(r->section, "lock"))
				fprintf(pr->out, "Lock statistics and counters\n");
			pr->section = r->section;
		}
		fprintf(pr->out, "%-9s %-*s", r->stat, pr->keyw, r->key);
		for (int i = 0; i < pr->n; i++) {
			fmt_value(v, sizeof(v), r->v[i], r->integer, r->invalid[i]);
			if (r->nopct)
				snprintf(p, sizeof(p), "%10s", "");
			else
				fmt_pct(p, sizeof(p), r->pct[i], r->sig[i]);
			fprintf(pr->out, " %s%s", v, p);
		}
		fprintf(pr->out, "\n");
		break;
	case CMP_MARKDOWN:
		fprintf(pr->out, "| %s | %s |", r->stat, r->key);
		for (int i = 0; i < pr->n; i++) {
			fmt_value(v, sizeof(v), r->v[i], r->integer, r->invalid[i]);
			if (!isfinite(r->pct[i]))
				fprintf(pr->out, " %s |", v + strspn(v, " "));
			else
				fprintf(pr->out, r->sig[i] == 1 ? " %s (**%.2f%%**) |" :
					" %s (%.2f%%) |", v + strspn(v, " "), r->pct[i]);
		}
		fprintf(pr->out, "\n");
		break;
	case CMP_CSV:
		for (int i = 0; i < pr->n; i++) {
			fprintf(pr->out, "%s,%s,%s,%s,", r->section, r->stat, r->key,
				pr->files[i].label);
			if (r->invalid[i])
				fprintf(pr->out, "invalid");
			else if (isfinite(r->v[i]))
				fprintf(pr->out, "%.10g", r->v[i]);
			fprintf(pr->out, ",");
			if (isfinite(r->pct[i]))
				fprintf(pr->out, "%.6f", r->pct[i]);
			fprintf(pr->out, ",%s\n", r->sig[i] < 0 ? "" :
				r->sig[i] ? "yes" : "no");
		}
		break;
	case CMP_JSON: {
		json_object *o = json_object_new_object(), *a, *b, *c;

		json_object_object_add(o, "section", json_object_new_string(r->section));
		json_object_object_add(o, "stat", json_object_new_string(r->stat));
		json_object_object_add(o, "key", json_object_new_string(r->key));
		a = json_object_new_array();
		b = json_object_new_array();
		c = json_object_new_array();
		for (int i = 0; i < pr->n; i++) {
			json_object_array_add(a, isfinite(r->v[i]) ?
				json_object_new_double(r->v[i]) : NULL);
			json_object_array_add(b, isfinite(r->pct[i]) ?
				json_object_new_double(r->pct[i]) : NULL);
			json_object_array_add(c, r->sig[i] < 0 ? NULL :
				json_object_new_boolean(r->sig[i]));
		}
		json_object_object_add(o, "values", a);
		json_object_object_add(o, "diff_pct", b);
		json_object_object_add(o, "significant", c);
		for (int i = 0; i < pr->n; i++)
			if (r->invalid[i]) {
				a = json_object_new_array();
				for (int k = 0; k < pr->n; k++)
					json_object_array_add(a,
						json_object_new_boolean(r->invalid[k]));
				json_object_object_add(o, "invalid", a);
				break;
			}
		json_object_array_add(pr->rows, o);
		break;
	}
	default:
		break;
	}
}

/* All rows of one metric at one task count. */
static void metric_rows(struct printer *pr, const struct cmp_metric *m,
			int tasks)
{
	double *x[CMP_MAX_FILES];
	size_t nx[CMP_MAX_FILES];
	struct row r = { .section = "metric" };

	for (int i = 0; i < pr->n; i++) {
		nx[i] = samples_of(&pr->files[i], m->name, tasks, &x[i]);
		/* Not a number to compute with, nor to compare against. */
		r.invalid[i] = !samples_ok(m, x[i], nx[i]);
		if (r.invalid[i])
			nx[i] = 0;
	}
	snprintf(r.key, sizeof(r.key), "%s-%d", m->name, tasks);
	for (int st = 0; st < ST_N; st++) {
		bool lower_form = st == ST_STDDEV || st == ST_COV;

		r.stat = stat_name(st, m->higher);
		for (int i = 0; i < pr->n; i++) {
			double p;

			r.v[i] = stat_value(st, x[i], nx[i], m->higher);
			r.pct[i] = pct_diff(r.v[0], r.v[i],
					    lower_form ? false : m->higher);
			r.sig[i] = -1;
			if (st != ST_MEAN || i == 0 || !nx[i])
				continue;
			r.sig[i] = cmp_significant(pr->o, x[0], nx[0], x[i], nx[i],
						   m->higher, &p) == 1 &&
				   isfinite(r.pct[i]) && r.pct[i] != 0;
		}
		emit_row(pr, &r);
	}
	for (int i = 0; i < pr->n; i++)
		free(x[i]);
}

/* The number at p.<a>.<b>.<c>.<d> (NULL ends the path early), or NaN. */
static double int_at(json_object *p, const char *a, const char *b,
		     const char *c, const char *d)
{
	json_object *o = p;
	const char *keys[4] = { a, b, c, d };

	for (int i = 0; i < 4 && keys[i]; i++)
		if (!o || !json_object_object_get_ex(o, keys[i], &o))
			return NAN;
	return o && (json_object_is_type(o, json_type_int) ||
		     json_object_is_type(o, json_type_double)) ?
	       json_object_get_double(o) : NAN;
}

static void counter_row(struct printer *pr, const char *stat, const char *key,
			int tasks, const char *const path[4], double scale,
			bool lower_better)
{
	struct row r = { .section = "lock", .stat = stat, .integer = scale == 1,
			 .nopct = !lower_better };

	snprintf(r.key, sizeof(r.key), "%s-%d", key, tasks);
	for (int i = 0; i < pr->n; i++) {
		json_object *p = point_of(&pr->files[i], tasks);

		r.v[i] = p ? int_at(p, path[0], path[1], path[2], path[3]) / scale
			   : NAN;
		r.pct[i] = lower_better ? pct_diff(r.v[0], r.v[i], false) : NAN;
		r.sig[i] = -1;
	}
	emit_row(pr, &r);
}

/* Union of the keys of object p.<field> across the files at tasks. */
static int key_union(struct printer *pr, int tasks, const char *field,
		     const char **keys, int max)
{
	int n = 0;

	for (int i = 0; i < pr->n; i++) {
		json_object *p = point_of(&pr->files[i], tasks), *o;

		if (!p || !json_object_object_get_ex(p, field, &o) ||
		    !json_object_is_type(o, json_type_object))
			continue;
		json_object_object_foreach(o, k, v) {
			int j;

			(void)v;
			for (j = 0; j < n && strcmp(keys[j], k); j++)
				;
			if (j == n && n < max)
				keys[n++] = k;
		}
	}
	return n;
}

static void lock_rows(struct printer *pr, int tasks)
{
	const char *classes[16], *counters[16];
	int nc = key_union(pr, tasks, "lockstat", classes, 16);
	int nk = key_union(pr, tasks, "scheme_counters", counters, 16);
	char key[96];

	for (int c = 0; c < nc; c++)
		for (int side = 0; side < 2; side++) {
			const char *s = side ? "write" : "read";

			const char *path[4] = { "lockstat", classes[c], s,
						"acquisitions" };

			snprintf(key, sizeof(key), "%s-%s", classes[c], s);
			counter_row(pr, "acquired", key, tasks, path, 1, false);
		}
	for (int c = 0; c < nc; c++)
		for (int side = 0; side < 2; side++) {
			const char *s = side ? "write" : "read";

			const char *path[4] = { "lockstat", classes[c], s,
						"contentions" };

			snprintf(key, sizeof(key), "%s-%s", classes[c], s);
			counter_row(pr, "contended", key, tasks, path, 1, true);
		}
	for (int c = 0; c < nc; c++)
		for (int side = 0; side < 2; side++) {
			const char *s = side ? "write" : "read";
			const char *path[4] = { "lockstat", classes[c], s,
						"wait_ns_total" };

			snprintf(key, sizeof(key), "%s-%s", classes[c], s);
			counter_row(pr, "wait-ms", key, tasks, path, 1e6, true);
		}
	for (int k = 0; k < nk; k++) {
		const char *path[4] = { "scheme_counters", counters[k], NULL, NULL };

		counter_row(pr, "counter", counters[k], tasks, path, 1, false);
	}
	{
		const char *msgs[4] = { "uffd", "messages", NULL, NULL };
		const char *refused[4] = { "uffd", "refused", NULL, NULL };

		counter_row(pr, "uffd", "messages", tasks, msgs, 1, false);
		counter_row(pr, "uffd", "refused", tasks, refused, 1, false);
	}
}

static int base_tasks(const struct cmp_file *b, int *tasks, int max)
{
	size_t n = json_object_array_length(b->results);
	int k = 0;

	for (size_t i = 0; i < n && k < max; i++) {
		json_object *t;

		json_object_object_get_ex(json_object_array_get_idx(b->results, i),
					  "tasks", &t);
		tasks[k++] = json_object_get_int(t);
	}
	return k;
}

static void print_gnuplot(FILE *out, const struct cmp_file *files, int n,
			  const struct cmp_opts *o)
{
	const char *name = o->metric ? o->metric : files[0].metrics[0].name;
	const struct cmp_metric *m = metric_of(&files[0], name);

	if (!m)
		return;
	for (int i = 0; i < n; i++) {
		size_t np = json_object_array_length(files[i].results);

		fprintf(out, "# %s (%s)\n# metric: %s, %s is better; columns: "
			"tasks %s min max\n\"%s\"\n", files[i].label, files[i].shown,
			name, m->higher ? "higher" : "lower",
			m->higher ? "hmean" : "amean", files[i].label);
		for (size_t k = 0; k < np; k++) {
			json_object *t;
			double *x;
			size_t nx;

			json_object_object_get_ex(json_object_array_get_idx(
				files[i].results, k), "tasks", &t);
			nx = samples_of(&files[i], name, json_object_get_int(t), &x);
			if (nx)
				fprintf(out, "%d %.10g %.10g %.10g\n",
					json_object_get_int(t),
					stat_value(ST_MEAN, x, nx, m->higher),
					stats_min(x, nx), stats_max(x, nx));
			free(x);
		}
		fprintf(out, "\n\n");
	}
}

void cmp_print(FILE *out, const struct cmp_file *files, int n,
	       const struct cmp_opts *o)
{
	struct printer pr = { out, o, files, n, 0, NULL, NULL };
	int tasks[256], nt = base_tasks(&files[0], tasks, 256);
	static const char *const rule[] = {
		"Welch's t-test (Welch-Satterthwaite df, two-sided)",
		"Mann-Whitney U test (two-sided)",
		"Student's t-test on the mean, n1+n2-2 df (mmtests 2018 to Nov 2024)",
		"|difference| > 1.96 * (sd_base + sd_new), HStddev for Hmean rows "
		"(mmtests since Nov 2024)",
	};
	const char *test = rule[o->test];
	char level[64] = "";

	if (n > CMP_MAX_FILES)
		n = pr.n = CMP_MAX_FILES;
	if (o->format == CMP_GNUPLOT) {
		print_gnuplot(out, files, n, o);
		return;
	}
	for (int m = 0; m < files[0].nmetrics; m++) {
		int w = (int)strlen(files[0].metrics[m].name) + 6;

		if (w > pr.keyw)
			pr.keyw = w;
	}
	if (pr.keyw < 28)
		pr.keyw = 28;
	if (o->format == CMP_TEXT) {
		fprintf(out, "vmsim compare: workload %s\n\n", files[0].workload_shown);
		print_header_text(&pr);
	} else if (o->format == CMP_MARKDOWN) {
		fprintf(out, "| Stat | Metric |");
		for (int i = 0; i < n; i++)
			fprintf(out, " %s |", files[i].label);
		fprintf(out, "\n|---|---|");
		for (int i = 0; i < n; i++)
			fprintf(out, "---:|");
		fprintf(out, "\n");
	} else if (o->format == CMP_CSV) {
		fprintf(out, "section,stat,key,label,value,diff_pct,significant\n");
	} else {
		pr.rows = json_object_new_array();
	}
	for (int m = 0; m < files[0].nmetrics; m++)
		for (int t = 0; t < nt; t++)
			metric_rows(&pr, &files[0].metrics[m], tasks[t]);
	for (int t = 0; t < nt; t++)
		lock_rows(&pr, tasks[t]);
	if (o->test != CMP_MMTESTS_CI)
		snprintf(level, sizeof(level), " at alpha = %g", cmp_alpha(o));
	if (o->format == CMP_TEXT || o->format == CMP_MARKDOWN) {
		fprintf(out, "\n%s*x.xx%%* on a mean row: significant by %s%s "
			"against the first column; positive is better.\n",
			o->format == CMP_MARKDOWN ? "**x.xx%** / " : "", test,
			level);
	} else if (o->format == CMP_JSON) {
		json_object *top = json_object_new_object(), *cols;

		json_object_object_add(top, "workload",
				       json_object_new_string(files[0].workload));
		json_object_object_add(top, "test", json_object_new_string(
			cmp_test_name(o->test)));
		json_object_object_add(top, "alpha", isnan(cmp_alpha(o)) ? NULL :
				       json_object_new_double(cmp_alpha(o)));
		cols = json_object_new_array();
		for (int i = 0; i < n; i++) {
			json_object *c = json_object_new_object();

			json_object_object_add(c, "label",
				json_object_new_string(files[i].label));
			json_object_object_add(c, "file",
				json_object_new_string(files[i].path));
			json_object_object_add(c, "scheme",
				json_object_new_string(files[i].scheme));
			json_object_array_add(cols, c);
		}
		json_object_object_add(top, "columns", cols);
		json_object_object_add(top, "rows", pr.rows);
		fprintf(out, "%s\n", json_object_to_json_string_ext(top,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(top);
	}
}

int cmp_regressions(FILE *msg, const struct cmp_file *files, int n,
		    const struct cmp_opts *o, double pct)
{
	int tasks[256], nt = base_tasks(&files[0], tasks, 256), found = 0;

	for (int m = 0; m < files[0].nmetrics; m++) {
		const struct cmp_metric *mt = &files[0].metrics[m];

		if (!mt->primary)
			continue;
		for (int t = 0; t < nt; t++) {
			double *b;
			size_t nb = samples_of(&files[0], mt->name, tasks[t], &b);
			double bm = stat_value(ST_MEAN, b, nb, mt->higher);

			for (int i = 1; i < n; i++) {
				double *x, d, p;
				size_t nx = samples_of(&files[i], mt->name, tasks[t], &x);

				d = pct_diff(bm, stat_value(ST_MEAN, x, nx, mt->higher),
					     mt->higher);
				if (isfinite(d) && d < -pct &&
				    cmp_significant(o, b, nb, x, nx, mt->higher, &p) == 1) {
					fprintf(msg, "regression: %s-%d in %s (%s) is "
						"%.2f%% worse than %s (%s", mt->name,
						tasks[t], files[i].shown, files[i].label,
						-d, files[0].shown, cmp_test_name(o->test));
					if (!isnan(p))
						fprintf(msg, ", p = %.3g", p);
					fprintf(msg, ")\n");
					found++;
				}
				free(x);
			}
			free(b);
		}
	}
	return found;
}
