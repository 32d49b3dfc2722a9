/* SPDX-License-Identifier: MIT */
/*
 * vmsim gate --junit FILE: the gate's verdict as a JUnit XML test result,
 * the format CI systems show (Jenkins, GitLab's junit reports:
 * <testsuites>, <testsuite>, <testcase>, <failure>, <error>): a testcase
 * a row the gate judged (a primary metric at a task count), through the
 * safe-write layer.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "base/safefile.h"
#include "cli/cmd.h"
#include "cli/gate.h"

#define JUNIT_MARK "<testsuites name=\"vmsim gate\""

/* A file --junit may replace: one vmsim gate wrote. */
static bool is_junit(int fd)
{
	char head[256];

	return sf_head(fd, head, sizeof(head)) && strstr(head, JUNIT_MARK);
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* XML 1.0 has no other control characters. */
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
}

static void xml_attr(FILE *f, const char *name, const char *v)
{
	fprintf(f, " %s=\"", name);
	xml_text(f, v);
	fputc('"', f);
}

/* <tag type="type" message="msg">verdict</tag> */
static void junit_outcome(FILE *f, const char *tag, const char *type,
			  const char *msg, const char *verdict)
{
	fprintf(f, "      <%s type=\"%s\"", tag, type);
	xml_attr(f, "message", msg);
	fputc('>', f);
	xml_text(f, verdict);
	fprintf(f, "</%s>\n", tag);
}

static void junit_case(FILE *f, const struct gate_junit *j,
		       const struct cmp_gate_row *r)
{
	char buf[1024], name[160];

	snprintf(name, sizeof(name), "vmsim.gate.%s", r->workload);
	fputs("    <testcase", f);
	xml_attr(f, "classname", name);
	snprintf(name, sizeof(name), "%s-%d", r->metric, r->tasks);
	xml_attr(f, "name", name);
	fputs(" time=\"0\">\n", f);
	if (r->regression) {
		snprintf(buf, sizeof(buf), "%s-%d %.2f%% worse than the base (p = "
			 "%.3g, Holm threshold %.3g; minimum effect %g%%)",
			 r->metric, r->tasks, -r->effect, r->p, r->threshold,
			 j->pct);
		junit_outcome(f, "failure", "regression", buf, j->line);
	} else if (j->verdict == CMP_CANNOT_JUDGE && r->blind) {
		snprintf(buf, sizeof(buf), "the smallest worsening this row could "
			 "have detected is %.2f%%, more than the %g%% the gate "
			 "guards (change %+.2f%%)", r->mde, j->pct, r->effect);
		junit_outcome(f, "error", "cannot-judge", buf, j->line);
	}
	snprintf(buf, sizeof(buf), "%s-%d of %s: %+.2f%% (one-sided p = %.3g)\n",
		 r->metric, r->tasks, r->candidate, r->effect, r->p);
	fputs("      <system-out>", f);
	xml_text(f, buf);
	fputs("</system-out>\n    </testcase>\n", f);
}

static void junit_property(FILE *f, const char *name, const char *v)
{
	fprintf(f, "      <property name=\"%s\"", name);
	xml_attr(f, "value", v);
	fputs("/>\n", f);
}

static int emit_junit(FILE *f, void *arg)
{
	const struct gate_junit *j = arg;
	const struct cmp_gate_rows *rows = j->rows;
	int n = rows->n ? rows->n : 1, failures = 0, errors = 0;
	char ts[32], num[96], host[256] = "";
	struct tm tm;

	for (int i = 0; i < rows->n; i++) {
		failures += rows->row[i].regression;
		errors += !rows->row[i].regression &&
			  j->verdict == CMP_CANNOT_JUDGE && rows->row[i].blind;
	}
	if (!rows->n && j->verdict != CMP_PASS)
		errors = 1;
	gmtime_r(&j->start, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		JUNIT_MARK " tests=\"%d\" failures=\"%d\" errors=\"%d\" "
		"time=\"%.3f\">\n", n, failures, errors, j->seconds);
	fputs("  <testsuite", f);
	snprintf(num, sizeof(num), "vmsim gate: %s", rows->n ?
		 rows->row[0].workload : "the run");
	xml_attr(f, "name", num);
	fprintf(f, " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\" "
		"time=\"%.3f\" timestamp=\"%s\"", n, failures, errors,
		j->seconds, ts);
	if (gethostname(host, sizeof(host) - 1) == 0) {
		host[sizeof(host) - 1] = 0;
		xml_attr(f, "hostname", host);
	}
	fputs(">\n    <properties>\n", f);
	junit_property(f, "verdict", j->line);
	snprintf(num, sizeof(num), "%g", j->pct);
	junit_property(f, "minimum_effect_pct", num);
	snprintf(num, sizeof(num), "%g", j->alpha);
	junit_property(f, "alpha", num);
	snprintf(num, sizeof(num), "%d", j->rounds);
	junit_property(f, "rounds", num);
	fputs("    </properties>\n", f);
	for (int i = 0; i < rows->n; i++)
		junit_case(f, j, &rows->row[i]);
	if (!rows->n) {
		/* Nothing was judged: the gate itself is the test case. */
		fputs("    <testcase classname=\"vmsim.gate\" name=\"gate\" "
		      "time=\"0\">\n", f);
		if (j->verdict != CMP_PASS)
			junit_outcome(f, "error", "cannot-judge", j->line, j->line);
		fputs("    </testcase>\n", f);
	}
	fputs("    <system-out>", f);
	xml_text(f, j->line);
	fputs("\n</system-out>\n  </testsuite>\n</testsuites>\n", f);
	return ferror(f) ? -EIO : 0;
}

/* Never a file the gate reads; only a JUnit file of the gate's is
 * replaced. */
static struct sf_spec junit_spec(const char **inputs, const char *input)
{
	inputs[0] = input;
	inputs[1] = NULL;
	return (struct sf_spec){ .what = "JUnit file", .force = true,
				 .ours = is_junit, .inputs = inputs };
}

int gate_junit_check(const char *path, const char *input, char *err,
		     size_t len)
{
	const char *inputs[2];
	struct sf_spec spec = junit_spec(inputs, input);

	return sf_check(path, &spec, err, len);
}

int gate_junit_write(const struct gate_junit *j)
{
	char err[PATH_MAX + 256], where[PATH_MAX], note[PATH_MAX + 256];
	const char *inputs[2];
	struct sf_spec spec = junit_spec(inputs, j->input);
	struct sf_out o;
	int ret = sf_open(&o, j->path, &spec, err, sizeof(err));

	if (ret) {
		fprintf(stderr, "%s: gate: %s\n", prog, err);
		return 1;
	}
	ret = sf_emit(&o, emit_junit, (void *)j);
	if (ret >= 0)
		ret = sf_commit(&o, true, where, sizeof(where), note, sizeof(note));
	sf_abort(&o);
	if (ret < 0) {
		fprintf(stderr, "%s: gate: the JUnit file could not be written: "
			"%s\n", prog, ret == -EIO ? "a write failed" :
			strerror(-ret));
		return 1;
	}
	if (ret != SF_AT_PATH) {
		fprintf(stderr, "%s: gate: %s\n", prog, note);
		return 1;
	}
	return 0;
}
