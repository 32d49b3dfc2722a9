/* SPDX-License-Identifier: MIT */
/*
 * The graphs of vmsim report, as inline SVG written directly (no script,
 * nothing fetched): a line chart (one line a result, numeric or
 * categorical x, linear or log y, an optional dashed reference line) and
 * a grouped bar chart (one bar a result in each bucket).
 */
#include "cli/compare/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/compare/compare_int.h"

#define W 720
#define H 360
#define ML 78                            /* margins: room for the axes */
#define MR 16
#define MT 34
#define MB 64

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

const char *cmp_svg_colour(int i)
{
	return palette[i % (int)(sizeof(palette) / sizeof(palette[0]))];
}

/* A tick value as text: 12,345 / 1.5k-free plain digits, short. */
static void tick_text(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (a >= 1e6)
		snprintf(buf, len, "%.3gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else
		snprintf(buf, len, "%.4g", v);
}

/* A step of 1, 2 or 5 times a power of ten giving about n ticks. */
static double nice_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw))), f = raw / p;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

struct axes {
	double x0, x1, y0, y1;
	bool logy, cat;
	int ncat;
	int undrawn;                     /* values outside what can be drawn */
};

/*
 * Values come from files anyone may have written: only a finite value
 * whose magnitude leaves room for the axis arithmetic (ceilings, 8% of
 * headroom, decades) is drawn; the others are counted and said under the
 * graph. SVG_VMIN is the smallest drawn on a log axis.
 */
#define SVG_VMAX 1e300
#define SVG_VMIN 1e-300
#define SVG_MAX_TICKS 64

static bool drawable(const struct axes *a, double v)
{
	return isfinite(v) && fabs(v) <= SVG_VMAX &&
	       (!a->logy || v >= SVG_VMIN);
}

static double px(const struct axes *a, double x)
{
	if (a->cat)
		return ML + (x + 0.5) * (W - ML - MR) / a->ncat;
	if (a->x1 == a->x0)
		return ML + (W - ML - MR) / 2.0;
	return ML + (x - a->x0) * (W - ML - MR) / (a->x1 - a->x0);
}

static double py(const struct axes *a, double y)
{
	double lo = a->logy ? log10(a->y0) : a->y0,
	       hi = a->logy ? log10(a->y1) : a->y1,
	       v = a->logy ? log10(y > 0 ? y : a->y0) : y;

	return H - MB - (v - lo) * (H - MT - MB) / (hi - lo);
}

/* A y grid line at v, with its tick value. */
static void y_tick(FILE *out, const struct axes *a, double v)
{
	char t[32];

	tick_text(t, sizeof(t), v);
	fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" font-size=\"11\" "
		"text-anchor=\"end\">%s</text>", ML, W - MR, py(a, v), py(a, v),
		ML - 6, py(a, v) + 4, t);
}

static void frame(FILE *out, const struct cmp_chart *c, const struct axes *a)
{
	fprintf(out, "<figure class=\"graph\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">"
		"<title>", W, H, W, H);
	cmp_html_text(out, c->title);
	fprintf(out, "</title><rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>", W, H);
	fprintf(out, "<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\">",
		ML);
	cmp_html_text(out, c->title);
	fputs("</text>", out);
	/* y grid and ticks: decades on a log axis, else 1-2-5 steps */
	if (a->logy) {
		double v = pow(10, floor(log10(a->y0)));

		for (int k = 0; k < SVG_MAX_TICKS && v <= a->y1 * 1.0001; k++,
		     v *= 10)
			if (v >= a->y0 * 0.9999)
				y_tick(out, a, v);
	} else {
		double step = nice_step(a->y1 - a->y0, 5);

		for (int k = 0; k < SVG_MAX_TICKS; k++) {
			double v = a->y0 + k * step;

			if (v > a->y1 * 1.0001)
				break;
			y_tick(out, a, v);
		}
	}
	if (a->undrawn)
		fprintf(out, "<text class=\"undrawn\" x=\"%d\" y=\"%d\" "
			"font-size=\"11\">%d value%s not drawn: %s</text>",
			W - MR - 300, MT - 4, a->undrawn, a->undrawn == 1 ? "" : "s",
			a->logy ? "not within 1e-300 to 1e300" :
			"not finite or beyond 1e300");
	fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#000\"/>"
		"<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#000\"/>",
		ML, W - MR, H - MB, H - MB, ML, ML, MT, H - MB);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">",
		(ML + W - MR) / 2, H - 28);
	cmp_html_text(out, c->xlabel);
	fprintf(out, "</text><text x=\"14\" y=\"%d\" font-size=\"12\" "
		"text-anchor=\"middle\" transform=\"rotate(-90 14 %d)\">",
		(MT + H - MB) / 2, (MT + H - MB) / 2);
	cmp_html_text(out, c->ylabel);
	fputs("</text>", out);
}

static void x_ticks(FILE *out, const struct cmp_chart *c, const struct axes *a)
{
	for (int i = 0; i < c->nx; i++) {
		char t[32];
		double x = a->cat ? i : c->x[i];

		if (c->xnames)
			snprintf(t, sizeof(t), "%s", c->xnames[i]);
		else
			tick_text(t, sizeof(t), c->x[i]);
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
			"stroke=\"#000\"/><text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
			"text-anchor=\"middle\">%s</text>", px(a, x), px(a, x),
			H - MB, H - MB + 5, px(a, x), H - MB + 18, t);
	}
}

static void legend(FILE *out, const struct cmp_chart *c)
{
	int x = ML + 8;

	for (int s = 0; s < c->nseries; s++) {
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
			"fill=\"%s\"/><text x=\"%d\" y=\"%d\" font-size=\"12\">",
			x, H - 16, cmp_svg_colour(s), x + 16, H - 6);
		cmp_html_text(out, c->names[s]);
		fputs("</text>", out);
		x += 28 + 7 * (int)strlen(c->names[s]);
	}
	if (c->ref) {
		fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" "
			"stroke=\"#555\" stroke-dasharray=\"5,4\"/><text x=\"%d\" "
			"y=\"%d\" font-size=\"12\">", x, x + 24, H - 10, H - 10,
			x + 28, H - 6);
		cmp_html_text(out, c->ref_name);
		fputs("</text>", out);
	}
}

/* The y range of the chart's values (and reference). */
static void y_range(const struct cmp_chart *c, struct axes *a)
{
	double lo = INFINITY, hi = -INFINITY;

	for (int s = 0; s < c->nseries; s++)
		for (int i = 0; i < c->nx; i++) {
			double v = c->y[s * c->nx + i];

			if (drawable(a, v)) {
				lo = fmin(lo, v);
				hi = fmax(hi, v);
			} else if (!isnan(v) && (!c->logy || v > 0)) {
				/* NaN is no value, and 0 none on a log
				 * axis: neither is a bad one */
				a->undrawn++;
			}
		}
	for (int i = 0; c->ref && i < c->nx; i++)
		if (drawable(a, c->ref[i]))
			hi = fmax(hi, c->ref[i]);
	if (!isfinite(lo)) {
		lo = c->logy ? 1 : 0;
		hi = 1;
	}
	if (c->logy) {
		a->y0 = pow(10, floor(log10(lo)));
		a->y1 = pow(10, ceil(log10(hi * 1.05)));
	} else {
		double step;

		a->y0 = 0;
		step = nice_step(hi > 0 ? hi : 1, 5);
		a->y1 = ceil(hi * 1.08 / step) * step;
		if (a->y1 <= 0)
			a->y1 = 1;
	}
}

void cmp_svg_lines(FILE *out, const struct cmp_chart *c)
{
	struct axes a = { .logy = c->logy, .cat = c->xnames != NULL, .ncat = c->nx };

	a.x0 = c->nx && !a.cat ? c->x[0] : 0;
	a.x1 = c->nx && !a.cat ? c->x[c->nx - 1] : 1;
	y_range(c, &a);
	frame(out, c, &a);
	x_ticks(out, c, &a);
	if (c->ref) {
		fputs("<polyline class=\"ref\" fill=\"none\" stroke=\"#555\" "
		      "stroke-dasharray=\"5,4\" points=\"", out);
		for (int i = 0; i < c->nx; i++)
			if (drawable(&a, c->ref[i]))
				fprintf(out, "%.1f,%.1f ", px(&a, a.cat ? i :
					c->x[i]), py(&a, c->ref[i]));
		fputs("\"/>", out);
	}
	for (int s = 0; s < c->nseries; s++) {
		fprintf(out, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"2\" points=\"", cmp_svg_colour(s));
		for (int i = 0; i < c->nx; i++) {
			double v = c->y[s * c->nx + i];

			if (drawable(&a, v))
				fprintf(out, "%.1f,%.1f ", px(&a, a.cat ? i : c->x[i]),
					py(&a, v));
		}
		fputs("\"/>", out);
		for (int i = 0; i < c->nx; i++) {
			double v = c->y[s * c->nx + i];

			if (drawable(&a, v))
				fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
					"fill=\"%s\"><title>%.6g</title></circle>",
					px(&a, a.cat ? i : c->x[i]), py(&a, v),
					cmp_svg_colour(s), v);
		}
	}
	legend(out, c);
	fputs("</svg></figure>\n", out);
}

void cmp_svg_bars(FILE *out, const struct cmp_chart *c)
{
	struct axes a = { .cat = true, .ncat = c->nx };
	double slot = (double)(W - ML - MR) / (c->nx ? c->nx : 1),
	       bw = slot * 0.8 / (c->nseries ? c->nseries : 1);

	y_range(c, &a);
	frame(out, c, &a);
	x_ticks(out, c, &a);
	for (int s = 0; s < c->nseries; s++)
		for (int i = 0; i < c->nx; i++) {
			double v = c->y[s * c->nx + i], x0;

			if (!drawable(&a, v) || v <= 0)
				continue;
			x0 = ML + i * slot + slot * 0.1 + s * bw;
			fprintf(out, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" "
				"width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>"
				"%.4g</title></rect>", x0, py(&a, v), bw - 1,
				(H - MB) - py(&a, v), cmp_svg_colour(s), v);
		}
	legend(out, c);
	fputs("</svg></figure>\n", out);
}
