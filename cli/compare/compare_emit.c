/* SPDX-License-Identifier: MIT */
/* vmsim compare: one row in each output format (text, markdown, csv,
 * json). See report/compare.c. */
#include "cli/compare/compare_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
	else if (sig == CMP_WITHIN)
		snprintf(buf, len, " (~%6.2f%%)", p);
	else
		snprintf(buf, len, " (%7.2f%%)", p);
}

void cmp_print_header_text(struct printer *pr)
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

static void emit_text(struct printer *pr, const struct row *r)
{
	char v[64], p[64];

	if (!pr->section || strcmp(pr->section, r->section)) {
		if (pr->section)
			fprintf(pr->out, "\n");
		if (!strcmp(r->section, "lock"))
			fprintf(pr->out, "Lock statistics and counters\n");
		if (!strcmp(r->section, "noise"))
			fprintf(pr->out, "The machine meanwhile: steal (%% of all "
				"CPUs), other processes (CPUs), vmsim's "
				"involuntary switches a second; samples far "
				"out, two groups (1)\n");
		if (!strcmp(r->section, "latency"))
			fprintf(pr->out, "Latency of a touch (us: the fault's, when "
				"it faulted); the mean fault split (us, and the "
				"lock's share in %%)\n");
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
}

static void emit_markdown(struct printer *pr, const struct row *r)
{
	char v[64];

	fprintf(pr->out, "| %s | %s |", r->stat, r->key);
	for (int i = 0; i < pr->n; i++) {
		fmt_value(v, sizeof(v), r->v[i], r->integer, r->invalid[i]);
		if (!isfinite(r->pct[i]))
			fprintf(pr->out, " %s |", v + strspn(v, " "));
		else
			fprintf(pr->out, r->sig[i] == 1 ? " %s (**%.2f%%**) |" :
				r->sig[i] == CMP_WITHIN ? " %s (~%.2f%%) |" :
				" %s (%.2f%%) |", v + strspn(v, " "), r->pct[i]);
	}
	fprintf(pr->out, "\n");
}

static void emit_csv(struct printer *pr, const struct row *r)
{
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
			r->sig[i] == CMP_WITHIN ? "within-spread" :
			r->sig[i] ? "yes" : "no");
	}
}

static void emit_json(struct printer *pr, const struct row *r)
{
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
			json_object_new_boolean(r->sig[i] == 1));
	}
	json_object_object_add(o, "values", a);
	json_object_object_add(o, "diff_pct", b);
	json_object_object_add(o, "significant", c);
	for (int i = 0; i < pr->n; i++)
		if (r->sig[i] == CMP_WITHIN) {
			a = json_object_new_array();
			for (int k = 0; k < pr->n; k++)
				json_object_array_add(a, json_object_new_boolean(
					r->sig[k] == CMP_WITHIN));
			json_object_object_add(o, "within_spread", a);
			break;
		}
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
}

void cmp_emit_row(struct printer *pr, const struct row *r)
{
	switch (pr->o->format) {
	case CMP_TEXT: emit_text(pr, r); break;
	case CMP_MARKDOWN: emit_markdown(pr, r); break;
	case CMP_CSV: emit_csv(pr, r); break;
	case CMP_JSON: emit_json(pr, r); break;
	default: break;
	}
}

