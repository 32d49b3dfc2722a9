/* SPDX-License-Identifier: MIT */
/*
 * The graphs of vmsim report, as inline SVG written directly (no script,
 * nothing fetched): a line chart (one line a result, numeric or
 * categorical x, linear or log y, an optional dashed reference line) and
 * a grouped bar chart (one bar a result in each bucket).
 */
#include "analysis/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare_int.h"

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

/* The schemes in `vmsim list`'s order, from the list that makes them
 * (names only: vmsim compare links no simulator code). */
static const char *const scheme_order[] = {
#define LOCK_SCHEME(id, name) name,
#include "locks/schemes.def"
#undef LOCK_SCHEME
	"kernel",                        /* the host itself (-l kernel) */
};
#define NSCHEMES ((int)(sizeof(scheme_order) / sizeof(scheme_order[0])))

static int scheme_place(const char *scheme)
{
	for (int i = 0; scheme && i < NSCHEMES; i++)
		if (!strcmp(scheme_order[i], scheme))
			return i;
	return -1;
}

void cmp_svg_file_colours(const struct cmp_file *files, int n,
			  const char **out)
{
	bool by_scheme = true;

	for (int i = 0; i < n; i++) {
		by_scheme &= scheme_place(files[i].scheme) >= 0;
		for (int j = 0; j < i && by_scheme; j++)
			by_scheme = strcmp(files[i].scheme, files[j].scheme) != 0;
	}
	for (int i = 0; i < n; i++)
		out[i] = cmp_svg_colour(by_scheme ? scheme_place(files[i].scheme) : i);
}

static const char *colour(const struct cmp_chart *c, int s)
{
	return c->colours ? c->colours[s] : cmp_svg_colour(s);
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

/* Value i's place on the x axis: its category, or its x. */
static double xpos(const struct axes *a, const struct cmp_chart *c, int i)
{
	return px(a, a->cat ? i : c->x[i]);
}

/* Value i's tick label: its category's name, or its x as a number
 * (written into buf). */
static const char *x_label(const struct cmp_chart *c, int i, char *buf,
			   size_t len)
{
	if (c->xnames)
		return c->xnames[i];
	tick_text(buf, len, c->x[i]);
	return buf;
}

/* The x ticks' labels never collide: where the widest label (about
 * 6.5 px a character at 11 px) is wider than the space between ticks,
 * only every k-th tick is labelled. */
static void x_ticks(FILE *out, const struct cmp_chart *c, const struct axes *a)
{
	double space = W;
	size_t widest = 0;
	char t[32];
	int every;

	for (int i = 1; i < c->nx; i++)
		space = fmin(space, fabs(xpos(a, c, i) - xpos(a, c, i - 1)));
	for (int i = 0; i < c->nx; i++) {
		size_t w = strlen(x_label(c, i, t, sizeof(t)));

		widest = w > widest ? w : widest;
	}
	every = (int)ceil((widest * 6.5 + 6) / fmax(space, 0.5));
	for (int i = 0; i < c->nx; i++) {
		double x = xpos(a, c, i);

		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
			"stroke=\"#000\"/>", x, x, H - MB, H - MB + (i % every ? 3 : 5));
		if (i % every)
			continue;
		fprintf(out, "<text class=\"xtick\" x=\"%.1f\" y=\"%d\" "
			"font-size=\"11\" text-anchor=\"middle\">", x, H - MB + 18);
		cmp_html_text(out, x_label(c, i, t, sizeof(t)));
		fputs("</text>", out);
	}
}

/* Does series s have a value that is drawn? */
static bool series_drawn(const struct cmp_chart *c, const struct axes *a,
			 int s, bool bars)
{
	for (int i = 0; i < c->nx; i++) {
		double v = c->y[s * c->nx + i];

		if (drawable(a, v) && (!bars || v > 0))
			return true;
	}
	return false;
}

/* The legend: only the series drawn. */
static void legend(FILE *out, const struct cmp_chart *c, const struct axes *a,
		   bool bars)
{
	int x = ML + 8;

	for (int s = 0; s < c->nseries; s++) {
		if (!series_drawn(c, a, s, bars))
			continue;
		fprintf(out, "<rect class=\"key\" x=\"%d\" y=\"%d\" width=\"12\" "
			"height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" "
			"font-size=\"12\">", x, H - 16, colour(c, s), x + 16, H - 6);
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

/* The y range of the chart's values (with whiskers and reference). */
static void y_range(const struct cmp_chart *c, struct axes *a)
{
	double lo = INFINITY, hi = -INFINITY;

	for (int i = 0; c->hi && i < c->nseries * c->nx; i++)
		if (drawable(a, c->hi[i]) && drawable(a, c->y[i]))
			hi = fmax(hi, c->hi[i]);

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

/* A chart with nothing to draw is one line: 1 if it was. */
static int nothing_drawn(FILE *out, const struct cmp_chart *c,
			 const struct axes *a, bool bars)
{
	for (int s = 0; s < c->nseries; s++)
		if (series_drawn(c, a, s, bars))
			return 0;
	fputs("<p class=\"note nograph\">", out);
	cmp_html_text(out, c->title);
	if (a->undrawn)
		fprintf(out, ": no value to draw (%d value%s not drawn: %s).</p>\n",
			a->undrawn, a->undrawn == 1 ? "" : "s", a->logy ?
			"not within 1e-300 to 1e300" : "not finite or beyond 1e300");
	else
		fputs(": no value to draw.</p>\n", out);
	return 1;
}

/* Value k's whisker, from lo to hi, centred on x. */
static void whisker(FILE *out, const struct cmp_chart *c,
		    const struct axes *a, int k, double x)
{
	double lo, hi;

	if (!c->lo || !c->hi || !drawable(a, c->lo[k]) || !drawable(a, c->hi[k]))
		return;
	lo = py(a, fmax(c->lo[k], a->y0));
	hi = py(a, c->hi[k]);
	fprintf(out, "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1f"
		"M%.1f %.1fH%.1f\" stroke=\"#000\" fill=\"none\"><title>%.4g to "
		"%.4g</title></path>", x, lo, hi, x - 5, lo, x + 5, x - 5, hi, x + 5,
		c->lo[k], c->hi[k]);
}

void cmp_svg_lines(FILE *out, const struct cmp_chart *c)
{
	struct axes a = { .logy = c->logy, .cat = c->xnames != NULL, .ncat = c->nx };

	a.x0 = c->nx && !a.cat ? c->x[0] : 0;
	a.x1 = c->nx && !a.cat ? c->x[c->nx - 1] : 1;
	y_range(c, &a);
	if (nothing_drawn(out, c, &a, false))
		return;
	frame(out, c, &a);
	x_ticks(out, c, &a);
	if (c->ref) {
		fputs("<polyline class=\"ref\" fill=\"none\" stroke=\"#555\" "
		      "stroke-dasharray=\"5,4\" points=\"", out);
		for (int i = 0; i < c->nx; i++)
			if (drawable(&a, c->ref[i]))
				fprintf(out, "%.1f,%.1f ", xpos(&a, c, i), py(&a, c->ref[i]));
		fputs("\"/>", out);
	}
	for (int s = 0; s < c->nseries; s++) {
		fprintf(out, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"2\" points=\"", colour(c, s));
		for (int i = 0; i < c->nx; i++) {
			double v = c->y[s * c->nx + i];

			if (drawable(&a, v))
				fprintf(out, "%.1f,%.1f ", xpos(&a, c, i),
					py(&a, v));
		}
		fputs("\"/>", out);
		for (int i = 0; i < c->nx; i++) {
			double v = c->y[s * c->nx + i];

			if (!drawable(&a, v))
				continue;
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
				"fill=\"%s\"><title>%.6g</title></circle>",
				xpos(&a, c, i), py(&a, v), colour(c, s), v);
			/* Its samples' range, the series side by side. */
			whisker(out, c, &a, s * c->nx + i, xpos(&a, c, i) +
				4.0 * (s - (c->nseries - 1) / 2.0));
		}
	}
	legend(out, c, &a, false);
	fputs("</svg></figure>\n", out);
}

void cmp_svg_bars(FILE *out, const struct cmp_chart *c)
{
	struct axes a = { .cat = true, .ncat = c->nx };
	double slot = (double)(W - ML - MR) / (c->nx ? c->nx : 1),
	       bw = slot * 0.8 / (c->nseries ? c->nseries : 1);

	y_range(c, &a);
	if (nothing_drawn(out, c, &a, true))
		return;
	if (bw > 90)                     /* one bar a slot: not a wall */
		bw = 90;
	frame(out, c, &a);
	x_ticks(out, c, &a);
	for (int s = 0; s < c->nseries; s++)
		for (int i = 0; i < c->nx; i++) {
			int k = s * c->nx + i;
			double v = c->y[k], x0;

			if (!drawable(&a, v) || v <= 0)
				continue;
			x0 = ML + i * slot + (slot - bw * c->nseries) / 2 + s * bw;
			fprintf(out, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" "
				"width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>"
				"%.4g", x0, py(&a, v), bw - 1,
				(H - MB) - py(&a, v), colour(c, s), v);
			if (c->count)
				fprintf(out, "%% (%.0f)", c->count[k]);
			fputs("</title></rect>", out);
			whisker(out, c, &a, k, x0 + (bw - 1) / 2);
		}
	legend(out, c, &a, true);
	fputs("</svg></figure>\n", out);
}
