/* SPDX-License-Identifier: MIT */
/* vmsim compare: one row in each output format (text, markdown, csv,
 * json). See analysis/compare.c. */
#include "analysis/compare_int.h"

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
	else if (sig == CMP_DISTURBED)
		snprintf(buf, len, " (!%6.2f%%)", p);
	else
		snprintf(buf, len, " (%7.2f%%)", p);
}

/* The columns are as wide as the widest label or file name (at least
 * CMP_COL), so that no header is cut. */
void cmp_print_header_text(struct printer *pr)
{
	char base[256];
	bool same = true;

	pr->colw = CMP_COL;
	for (int i = 0; i < pr->n; i++) {
		int w = (int)strlen(pr->files[i].label);

		snprintf(base, sizeof(base), "%s", pr->files[i].shown);
		if ((int)strlen(basename(base)) > w)
			w = (int)strlen(basename(base));
		if (w > pr->colw)
			pr->colw = w;
	}
	fprintf(pr->out, "%-*s", 10 + pr->keyw, "");
	for (int i = 0; i < pr->n; i++) {
		fprintf(pr->out, " %*s", pr->colw, pr->files[i].label);
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
		fprintf(pr->out, " %*s", pr->colw, basename(base));
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
		fprintf(pr->out, " %*s%s", pr->colw - CMP_COL + 14, v, p);
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
				r->sig[i] == CMP_DISTURBED ? " %s (!%.2f%%) |" :
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
			r->sig[i] == CMP_DISTURBED ? "disturbed" :
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
		if (r->sig[i] == CMP_DISTURBED) {
			a = json_object_new_array();
			for (int k = 0; k < pr->n; k++)
				json_object_array_add(a, json_object_new_boolean(
					r->sig[k] == CMP_DISTURBED));
			json_object_object_add(o, "disturbed", a);
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

/* --- HTML (vmsim report) ------------------------------------------------- */

void cmp_html_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

static const char *section_title(const char *section)
{
	return !strcmp(section, "metric") ? "The metrics" :
	       !strcmp(section, "latency") ?
	       "Latency of a touch (us), and the mean fault split" :
	       !strcmp(section, "noise") ?
	       "The machine meanwhile (steal: % of all CPUs; others: CPUs other "
	       "processes kept busy; vmsim's involuntary switches a second)" :
	       "Lock statistics and counters";
}

void cmp_html_begin(struct printer *pr)
{
	pr->section = NULL;
}

static void html_open_table(struct printer *pr, const char *section)
{
	fprintf(pr->out, "<h3>%s</h3>\n<table class=\"cmp\" data-section=\"%s\">"
		"<thead><tr><th>stat</th><th>row</th>",
		section_title(section), section);
	for (int i = 0; i < pr->n; i++) {
		fputs("<th>", pr->out);
		cmp_html_text(pr->out, pr->files[i].label);
		fputs("</th>", pr->out);
	}
	fputs("</tr></thead><tbody>\n", pr->out);
}

void cmp_html_end(struct printer *pr)
{
	if (pr->section)
		fputs("</tbody></table>\n", pr->out);
	pr->section = NULL;
}

enum cmp_role cmp_file_role(const struct cmp_file *f)
{
	if (f->scheme && !strcmp(f->scheme, "none"))
		return CMP_ROLE_HARNESS;
	if (f->scheme && !strcmp(f->scheme, "kernel"))
		return CMP_ROLE_HOST;
	return CMP_ROLE_SCHEME;
}

/* Column i's difference with its own qualifier: what its mark supports. */
static void finding_diff(FILE *f, const struct printer *pr,
			 const struct row *r, int i)
{
	cmp_html_text(f, pr->files[i].label);
	if (r->invalid[i] || !isfinite(r->pct[i])) {
		fputs(" invalid (a flagged sample: no figure)", f);
		return;
	}
	fprintf(f, " %+.1f%% (%s)", r->pct[i], r->sig[i] == 1 ? "significant" :
		r->sig[i] == CMP_WITHIN ? "within the spread: not a finding" :
		r->sig[i] == CMP_DISTURBED ? "disturbed, not a finding" :
		"not significant: not a finding");
	if (r->sig[i] == CMP_DISTURBED && r->why[i][0]) {
		fputs(" (", f);
		cmp_html_text(f, r->why[i]);
		fputs(")", f);
	}
}

/* The sentences a mean row of a primary metric supports: each scheme's
 * difference from the base with its qualifier; the harness without a
 * lock and the host kernel said as what they are. */
static void html_finding(struct printer *pr, const struct row *r)
{
	static const char *const lead[] = {
		[CMP_ROLE_SCHEME] = "", [CMP_ROLE_HARNESS] = ("the harness without a lock "
		"(what the base's locking costs, not a competitor): "),
		[CMP_ROLE_HOST] = "the host kernel (the reference, not a model): ",
	};
	FILE *f = pr->o->findings;
	const char *dash = strrchr(r->key, '-');

	if (!f || !dash || pr->n < 2)
		return;
	fprintf(f, "<li><b>%s ", r->stat);
	cmp_html_text(f, r->key);
	fprintf(f, "</b> (%s task%s) against ", dash + 1,
		strcmp(dash + 1, "1") ? "s" : "");
	cmp_html_text(f, pr->files[0].label);
	fputs(":", f);
	for (int role = CMP_ROLE_SCHEME; role <= CMP_ROLE_HOST; role++) {
		int k = 0;

		for (int i = 1; i < pr->n; i++) {
			if ((int)cmp_file_role(&pr->files[i]) != role)
				continue;
			fputs(k++ ? ", " : role == CMP_ROLE_SCHEME ? " " : "; ", f);
			if (k == 1)
				fputs(lead[role], f);
			finding_diff(f, pr, r, i);
		}
	}
	fputs(".</li>\n", f);
}

static void emit_html(struct printer *pr, const struct row *r)
{
	char v[64];

	if (!pr->section || strcmp(pr->section, r->section)) {
		cmp_html_end(pr);
		html_open_table(pr, r->section);
		pr->section = r->section;
	}
	fprintf(pr->out, "<tr%s><td>%s</td><td>",
		r->primary ? " class=\"primary\"" : "", r->stat);
	cmp_html_text(pr->out, r->key);
	fputs("</td>", pr->out);
	for (int i = 0; i < pr->n; i++) {
		fmt_value(v, sizeof(v), r->v[i], r->integer, r->invalid[i]);
		fprintf(pr->out, "<td class=\"%s\">%s", r->invalid[i] ? "invalid" :
			r->sig[i] == 1 ? "sig" : r->sig[i] == CMP_WITHIN ||
			r->sig[i] == CMP_DISTURBED ? "within" : "v",
			v + strspn(v, " "));
		if (!r->nopct && !r->invalid[i] && isfinite(r->pct[i]))
			fprintf(pr->out, r->sig[i] == 1 ? " <em>*%.2f%%*</em>" :
				r->sig[i] == CMP_WITHIN ? " <span>(~%.2f%%)</span>" :
				r->sig[i] == CMP_DISTURBED ? " <span>(!%.2f%%)</span>" :
				" <span>(%.2f%%)</span>", r->pct[i]);
		fputs("</td>", pr->out);
	}
	fputs("</tr>\n", pr->out);
	if (r->primary)
		html_finding(pr, r);
}

void cmp_emit_row(struct printer *pr, const struct row *r)
{
	switch (pr->o->format) {
	case CMP_TEXT: emit_text(pr, r); break;
	case CMP_MARKDOWN: emit_markdown(pr, r); break;
	case CMP_CSV: emit_csv(pr, r); break;
	case CMP_JSON: emit_json(pr, r); break;
	case CMP_HTML: emit_html(pr, r); break;
	default: break;
	}
}


