/* SPDX-License-Identifier: MIT */
/* compare: the statistics of a row, significance, the regression gate. */
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
#include "base/stats.h"
#include "resfile/schema.h"

/* --- statistics per row ------------------------------------------------------ */

const char *cmp_stat_name(enum stat_id st, bool higher)
{
	static const char *const hi[ST_N] = { "Min", "Hmean", "HStddev",
		"HCoeffVar", "Max", "Median", "BHmean-50", "BHmean-95",
		"BHmean-99" };
	static const char *const lo[ST_N] = { "Min", "Amean", "Stddev",
		"CoeffVar", "Max", "Median", "BAmean-50", "BAmean-95",
		"BAmean-99" };

	return higher ? hi[st] : lo[st];
}

double cmp_stat_value(enum stat_id st, const double *x, size_t n,
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
	case ST_MEDIAN: return stats_median(x, n);
	case ST_B50: return stats_best_mean(x, n, 50, higher);
	case ST_B95: return stats_best_mean(x, n, 95, higher);
	case ST_B99: return stats_best_mean(x, n, 99, higher);
	default: return NAN;
	}
}

/* Difference from the base, positive = better; NaN when undefined. */
double cmp_pct_diff(double base, double v, bool higher)
{
	if (!isfinite(base) || !isfinite(v) || base == 0)
		return NAN;
	if (v == base)
		return 0;                /* exactly, not -0.00 by rounding */
	return higher ? 100.0 * v / base - 100.0 : 100.0 - 100.0 * v / base;
}

const char *const cmp_test_names[CMP_NTESTS] = {
	[CMP_WELCH] = "welch", [CMP_MANNWHITNEY] = "mannwhitney",
	[CMP_MMTESTS_TTEST] = "mmtests-ttest", [CMP_MMTESTS_CI] = "mmtests-ci",
};
const char *const cmp_format_names[CMP_NFORMATS] = {
	[CMP_TEXT] = "text", [CMP_MARKDOWN] = "markdown", [CMP_CSV] = "csv",
	[CMP_JSON] = "json", [CMP_GNUPLOT] = "gnuplot", [CMP_WIS] = "wis",
};

const char *cmp_test_name(enum cmp_test t)
{
	return cmp_test_names[t];
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
	ma = cmp_stat_value(ST_MEAN, a, na, higher);
	mb = cmp_stat_value(ST_MEAN, b, nb, higher);
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
		sa = cmp_stat_value(ST_STDDEV, a, na, higher);
		sb = cmp_stat_value(ST_STDDEV, b, nb, higher);
		if (na < 2 || nb < 2 || isnan(ma) || isnan(mb) || isnan(sa) ||
		    isnan(sb))
			return -1;
		return fabs(mb - ma) > 1.96 * (sa + sb);
	}
	if (isnan(*p))
		return -1;
	return *p < cmp_alpha(o);
}

/* --format gnuplot: per file, tasks and the mean, min and max of one
 * metric (the first unless --metric). */
void cmp_print_gnuplot(FILE *out, const struct cmp_file *files, int n,
			  const struct cmp_opts *o)
{
	const char *name = o->metric ? o->metric : files[0].metrics[0].name;
	const struct cmp_metric *m = cmp_metric_of(&files[0], name);

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
				files[i].results, k), RK_TASKS, &t);
			nx = cmp_samples_of(&files[i], name, json_object_get_int(t), &x);
			/* An invalid point is no point of the line. */
			if (nx && !cmp_point_valid(&files[i], m,
						   json_object_get_int(t), x, nx))
				fprintf(out, "# %d invalid\n", json_object_get_int(t));
			else if (nx)
				fprintf(out, "%d %.10g %.10g %.10g\n",
					json_object_get_int(t),
					cmp_stat_value(ST_MEAN, x, nx, m->higher),
					stats_min(x, nx), stats_max(x, nx));
			free(x);
		}
		fprintf(out, "\n\n");
	}
}
