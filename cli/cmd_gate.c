/* SPDX-License-Identifier: MIT */
/*
 * vmsim gate — the regression gate as CI runs it (docs/gate.md).
 *
 *   vmsim gate [options] -- RUN OPTIONS       the run to gate on
 *   vmsim gate [options] --recipe RESULT      the run RESULT records
 *   vmsim gate [options] --baseline RESULT    RESULT is the base: only the
 *                                             candidate runs, its options
 *
 * The base and the candidate (two vmsim binaries, by default both this
 * one) run the same options alternately — base, candidate, then
 * candidate, base, … (ABBA: neither is always the second of a pair) for
 * --rounds rounds — so that a machine whose speed drifts drifts under
 * both, and each round is a pair: the gate tests the rounds' log
 * ratios (cmp_gate_rounds: a primary metric more than PCT worse and
 * significantly so, one-sided, Holm–Bonferroni over the rows, at least
 * 3 rounds). Each side's rounds are also pooled into one result (the
 * samples of every round), which --pooled and a stored --baseline gate
 * as vmsim compare --fail-on-regression does. The last line is the
 * verdict: PASS, REGRESSION or CANNOT JUDGE (exit 0, 1, 2).
 *
 * --calibrate N measures the gate itself: N A/A gates (both sides the
 * same) and N A/B gates whose candidate runs with --hold-extra sized to
 * cost about 10% — the false-alarm and the detection rate.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/cmp_opts.h"
#include "cli/run.h"
#include "analysis/compare.h"
#include "cli/gate.h"
#include "base/parse.h"
#include "base/safefile.h"

#define GATE_MAX_ROUNDS 100
/* Identical runs here differ by about 6% a pair (one process to the
 * next); the mean of 10 pairs by about 2%, well inside the 5% minimum
 * effect (docs/gate.md). */
#define GATE_DEFAULT_ROUNDS 10
#define GATE_MIN_ROUNDS 3                /* by round: a t over the rounds */
/* A run of the gate is seconds to minutes; one that has not ended in
 * this long is hung, not slow (--run-timeout). */
#define GATE_DEFAULT_RUN_TIMEOUT 900

struct gate_args {
	const char *base_prog, *cand_prog;
	const char *recipe, *baseline;
	const char *cand_opts;
	const char *dir;
	const char *junit;               /* --junit FILE, or NULL */
	int rounds;
	int run_timeout;                 /* seconds a run may take */
	int calibrate;                   /* N A/A and N A/B gates; 0: off */
	bool aa_only;                    /* --calibrate-aa: A/A gates only */
	bool quiet, allow_mismatch;
	bool pooled;                     /* --pooled: not by round */
	double pct;
	struct cmp_opts o;
	struct run_args_vec runv;        /* the run's options */
};

/* --keep DIR: its files are DIR/candidate-N.json and the like: room. */
static int gate_keep(void *args, const struct cli_opt *o, const char *arg)
{
	(void)o;
	if (strlen(arg) > 3900)
		return cli_bad("gate: --keep directory name too long ('%s')", arg);
	((struct gate_args *)args)->dir = arg;
	return 0;
}

/* --calibrate-aa N: --calibrate N, the A/A gates only. */
static int gate_calibrate_aa(void *args, const struct cli_opt *o,
			     const char *arg)
{
	struct gate_args *a = args;
	long v;

	if (parse_long(arg, (long)o->lo, (long)o->hi, &v))
		return cli_opt_bad(o, arg);
	a->calibrate = (int)v;
	a->aa_only = true;
	return 0;
}

#define STR_(x) #x
#define STR(x) STR_(x)
#define T struct gate_args
static const struct cli_opt gate_opts[] = {
	CLI_STR(T, base_prog, 0, "base", "PROG",
		"the base vmsim binary (default: this one)"),
	CLI_STR(T, cand_prog, 0, "candidate", "PROG",
		"the candidate vmsim binary (default: this one)"),
	CLI_STR(T, cand_opts, 0, "candidate-opts", "OPTS",
		"run options for the candidate only\n(e.g. \"--hold-extra 500\")"),
	CLI_STR(T, recipe, 0, "recipe", "RESULT",
		"run what RESULT records (its options)"),
	CLI_STR(T, baseline, 0, "baseline", "RESULT",
		"RESULT is the base; only the candidate runs"),
	CLI_INT(T, rounds, 0, "rounds", "N", 1, GATE_MAX_ROUNDS,
		"base and candidate rounds (default " STR(GATE_DEFAULT_ROUNDS)
		"; by\nround at least " STR(GATE_MIN_ROUNDS) ")"),
	CLI_INT(T, run_timeout, 0, "run-timeout", "SECS", 1, 86400,
		"end a run (its whole process group) that\nhas not ended in SECS "
		"(default " STR(GATE_DEFAULT_RUN_TIMEOUT) ")"),
	CMP_OPT_FAIL(T, .shrt = 0),
	CMP_OPT_ALPHA(T),
	CLI_FLAG(T, pooled, 0, "pooled",
		 "pool each side's samples and test them with\n--significance "
		 "instead of by round (the\nonly way with --baseline)"),
	CMP_OPT_SIGNIFICANCE(T),
	CMP_OPT_ALLOW_MISMATCH(T),
	CMP_OPT_ALLOW_DISTURBED(T),
	CLI_CALL(gate_keep, 0, "keep", "DIR",
		 "keep every run and the pooled files in DIR\n(a new directory)"),
	CLI_STR(T, junit, 0, "junit", "FILE",
		"also write the verdict as a JUnit XML test\nresult: a testcase "
		"per workload and task\ncount, a failure on a regression (FILE is\n"
		"new, or a JUnit file of vmsim gate's)"),
	CLI_INT(T, calibrate, 0, "calibrate", "N", 1, 1000,
		"N A/A and N A/B gates (the candidate with\n--hold-extra costing "
		"about 10%): the gate's\nfalse-alarm and detection rates"),
	{ .kind = CLI_OPT_CALL, .name = "calibrate-aa", .metavar = "N",
	  .help = "N A/A gates only: the false-alarm rate",
	  .call = gate_calibrate_aa, .lo = 1, .hi = 1000 },
	CLI_FLAG(T, quiet, 'q', "quiet", "no line per round"),
	CLI_HELP_OPT,
	CLI_END
};
#undef T

static int cmd_gate(int argc, char **argv, const struct cli_ctx *ctx);

const struct cli_command cmd_gate_desc = {
	.name = "gate",
	.summary = "the CI gate: base and candidate run alternately, judged by\n"
		   "round; the last line is PASS, REGRESSION or CANNOT JUDGE",
	.synopsis = "gate [options] -- RUN OPTIONS\n"
		    "gate [options] --recipe RESULT.json\n"
		    "gate [options] --baseline RESULT.json",
	.text = "Runs the base and the candidate alternately with the same options and gates\n"
		"by round: each round's pair gives the ratio of the two means, and a\n"
		"one-sided t over the rounds' log ratios, with Holm over the rows, decides.\n"
		"The last line is the verdict (PASS, REGRESSION, CANNOT JUDGE; exit 0, 1, 2).\n",
	.opts = gate_opts,
	.after = "\n--significance is the test of --pooled and --baseline: a rule with a\n"
		 "p-value (not mmtests-ci).\n",
	.exits = "\nexit status: 0 PASS; 1 REGRESSION, or the --junit file could not be\n"
		 "  written; 2 bad input, or CANNOT JUDGE (a run failed or hung, a result\n"
		 "  not to be trusted); 128+N stopped by signal N (SIGINT, SIGTERM, SIGHUP:\n"
		 "  the run's process group with it).\n",
	.in_order = true,
	.run = cmd_gate,
};

/* One refusal of gate_words_check: "gate: WHOSE: 'VAL' WHY" (whose and
 * why are the code's own words, without '%'). */
static int words_refuse(const char *whose, const char *why, const char *val)
{
	char fmt[256];

	snprintf(fmt, sizeof(fmt), "gate: %s: '%%s' %s", whose, why);
	return cli_bad(fmt, val);
}

/* What the gate gives each run itself (its output), and one scheme at a
 * time: refused in words (the run's options or --candidate-opts). */
static int gate_words_check(const struct run_args_vec *v, const char *whose)
{
	static const char output[] = "is the gate's to give: leave the run's "
		"output out (--keep DIR keeps it)";
	static const char several[] = "names several schemes: the gate "
		"compares a base and a candidate of one scheme";

	for (int i = 0; i < v->n; i++) {
		const char *s = v->argv[i];

		if (!strcmp(s, "-o") || !strncmp(s, "--json", 6) ||
		    !strcmp(s, "-f") || !strcmp(s, "--force") ||
		    (s[0] == '-' && s[1] == 'o'))
			return words_refuse(whose, output, s);
		if ((!strcmp(s, "-l") || !strcmp(s, "--lock")) && i + 1 < v->n &&
		    strchr(v->argv[i + 1], ','))
			return words_refuse(whose, several, v->argv[i + 1]);
		if ((!strncmp(s, "--lock=", 7) && strchr(s, ',')) ||
		    (!strncmp(s, "-l", 2) && s[2] && strchr(s, ',')))
			return words_refuse(whose, several, s);
	}
	return 0;
}

/* --candidate-opts: the words alone first (their own complaints), then
 * after the run's options through run's parser, a complaint naming them. */
static int gate_cand_check(const struct gate_args *a,
			   struct run_args_vec *check, const struct cli_ctx *dry)
{
	struct run_args_vec words = { 0 };
	int ret = gate_split_words(&words, a->cand_opts);

	if (ret) {
		run_args_free(&words);
		return fprintf(stderr, "%s: gate: out of memory\n", prog), 1;
	}
	ret = gate_words_check(&words, "--candidate-opts") ? EXIT_USAGE : 0;
	/* Another candidate binary may know other options: its words are
	 * checked for what the gate itself forbids, not parsed by this one. */
	if (a->cand_prog) {
		run_args_free(&words);
		return ret;
	}
	for (int i = 0; i < words.n && !ret; i++)
		ret = run_args_add(check, words.argv[i]) ? 1 : 0;
	run_args_free(&words);
	if (ret)
		return ret;
	cli_set_help_context("--candidate-opts");
	ret = cmd_run_desc.run(check->n, check->argv, dry) ? EXIT_USAGE : 0;
	cli_set_help_context(NULL);
	return ret;
}

/* The run's options: after --, or from a result (its first word "run"
 * dropped). Checked by vmsim run's own parser, without running. */
static int gate_recipe(struct gate_args *a, int argc, char **argv, int first)
{
	const char *from = a->recipe ? a->recipe : a->baseline;
	const struct cli_ctx dry = { .dry_run = true };
	struct run_args_vec check = { 0 };
	char err[512];
	int given = argc - first, ret = 0;

	if (from && given)
		return cli_bad("gate: give the run's options after -- or %s, not "
			   "both", a->recipe ? "--recipe" : "--baseline");
	if (a->recipe && a->baseline)
		return cli_bad("gate: %s", "--recipe or --baseline, not both");
	if (!from && !given)
		return cli_bad("gate: %s", "nothing to gate: want '-- RUN OPTIONS', "
			   "--recipe RESULT or --baseline RESULT");
	if (from) {
		struct cmp_file f;

		if (cmp_load(from, &f, err, sizeof(err))) {
			char shown[256];

			fprintf(stderr, "%s: gate: %s: %s\n", prog,
				parse_printable(shown, sizeof(shown), from), err);
			return EXIT_USAGE;
		}
		ret = run_rerun_args(f.root, &check, err, sizeof(err));
		if (ret)
			fprintf(stderr, "%s: gate: %s: cannot run it again: %s\n",
				prog, f.shown, err);
		cmp_file_free(&f);
		if (ret)
			return EXIT_USAGE;
		for (int i = 1; i < check.n && !ret; i++)
			ret = run_args_add(&a->runv, check.argv[i]);
		run_args_free(&check);
	} else {
		for (int i = first; i < argc && !ret; i++)
			ret = run_args_add(&a->runv, argv[i]);
	}
	if (ret)
		return fprintf(stderr, "%s: gate: out of memory\n", prog), 1;
	if (gate_words_check(&a->runv, "the run's options"))
		return EXIT_USAGE;
	ret = run_args_add(&check, "run");
	for (int i = 0; i < a->runv.n && !ret; i++)
		ret = run_args_add(&check, a->runv.argv[i]);
	if (ret) {
		run_args_free(&check);
		return fprintf(stderr, "%s: gate: out of memory\n", prog), 1;
	}
	ret = cmd_run_desc.run(check.n, check.argv, &dry) ? EXIT_USAGE : 0;
	/* The candidate's own options go through the same checks, said as
	 * theirs (of this vmsim: another candidate binary may know others). */
	if (!ret && a->cand_opts)
		ret = gate_cand_check(a, &check, &dry);
	run_args_free(&check);
	return ret;
}

static int emit_json(FILE *f, void *arg)
{
	fputs(json_object_to_json_string_ext(arg, JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE), f);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

/* The pooled side, written through the safe-write layer, and loaded. */
static int pool_side(const char *dir, const char *name, struct cmp_file *runs,
		     int n, struct cmp_file *out, char *why, size_t len)
{
	struct sf_spec spec = { .what = "pooled result" };
	char path[PATH_MAX], where[PATH_MAX + 64], note[PATH_MAX + 256] = "";
	json_object *j = cmp_pool(runs, n);
	struct sf_out o;
	int ret;

	if (!j) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "%.3900s/%s.json", dir, name);
	ret = sf_open(&o, path, &spec, why, len);
	if (ret) {                       /* why says it */
		json_object_put(j);
		return ret < 0 ? ret : -EIO;
	}
	if ((ret = sf_emit(&o, emit_json, j)) >= 0)
		ret = sf_commit(&o, true, where, sizeof(where), note, sizeof(note));
	else
		snprintf(note, sizeof(note), "cannot write '%s': %s", o.shown,
			 strerror(-ret));
	sf_abort(&o);
	if (ret) {
		json_object_put(j);
		snprintf(why, len, "%.*s", (int)len - 1, note);
		return ret < 0 ? ret : -EIO;
	}
	return cmp_from_json(j, name, out, why, len) ? -EINVAL : 0;
}

/* The rounds, ABBA (only the candidate's with a stored base), each
 * run's result loaded into runs[side][]. 0, or -errno with line. */
static int run_rounds(const struct gate_args *a, const char *dir,
		      const char *cand_extra, bool verbose,
		      const struct cmp_file *stored,
		      struct cmp_file *runs[2], int nruns[2], char *line,
		      size_t len)
{
	static const char *const side[2] = { "base", "candidate" };
	char why[1024], out[PATH_MAX], log[PATH_MAX];
	bool stored_base = a->baseline != NULL;
	int ret;
	/* What each result must be like: the stored base, or the first. */
	const struct cmp_file *ref = stored;

	for (int r = 0; r < a->rounds; r++) {
		/* A line as each round ends, so that a gate stopped early
		 * shows how far it got (a round is seconds: warm-up passes
		 * and samples of at least --min-sample each). */
		if (r && verbose)
			fprintf(stderr, "%s: gate: round %d of %d run\n", prog, r,
				a->rounds);
		for (int k = stored_base; k < 2; k++) {
			/* ABBA: the second run of a pair is not always the
			 * candidate's (a run after a run is warmer). */
			int s = stored_base || r % 2 == 0 ? k : 1 - k;
			const char *pp = s ? a->cand_prog : a->base_prog;

			if (gate_signal())
				return msg_fail(line, len, -EINTR, "CANNOT JUDGE: "
						"interrupted by signal %d",
						gate_signal());
			snprintf(out, sizeof(out), "%.3900s/%s-%d.json", dir,
				 side[s], r + 1);
			snprintf(log, sizeof(log), "%.3900s/%s-%d.log", dir,
				 side[s], r + 1);
			ret = gate_run_one(&a->runv, pp, s ? cand_extra : NULL,
					   out, log, a->run_timeout, why,
					   sizeof(why));
			if (!ret && cmp_load(out, &runs[s][nruns[s]], why,
					     sizeof(why)))
				ret = -EINVAL;
			if (ret) {
				snprintf(line, len, "CANNOT JUDGE: the %s run of "
					 "round %d failed: %.800s", side[s], r + 1,
					 why);
				return ret;
			}
			if (!ref)
				ref = &runs[s][nruns[s]];
			nruns[s]++;
			if (ref && cmp_gate_unlike(ref, &runs[s][nruns[s] - 1], why,
					  sizeof(why)))
				return msg_fail(line, len, -EINVAL, "CANNOT JUDGE: "
						"the %s result of round %d is "
						"unlike the recipe's: %.800s",
						side[s], r + 1, why);
		}
	}
	return 0;
}

/* A round one of whose runs has a flagged sample (stopped or starved:
 * not a measurement) is left out whole, both sides (with a stored base,
 * the candidate's run alone), and said; no[] keeps the rounds' numbers. */
static void drop_flagged(const struct gate_args *a, struct cmp_file *runs[2],
			 int nruns[2], int *no)
{
	int first = a->baseline != NULL, kept = 0;

	for (int r = 0; r < nruns[1]; r++) {
		int bad = -1;

		for (int s = first; s < 2 && bad < 0; s++)
			for (int t = 0; t < runs[s][r].ntasks && bad < 0; t++)
				if (cmp_point_flagged(&runs[s][r], runs[s][r].tasks[t]))
					bad = s;
		if (bad >= 0) {
			if (!a->quiet)
				printf("round %d: left out: its %s run has a flagged "
				       "sample (stopped or starved)\n", r + 1,
				       bad ? "candidate" : "base");
			for (int s = first; s < 2; s++)
				cmp_file_free(&runs[s][r]);
			continue;
		}
		for (int s = first; s < 2; s++)
			runs[s][kept] = runs[s][r];
		no[kept++] = r + 1;
	}
	nruns[first] = nruns[1] = kept;
}

/* Each side pooled (a stored base is its own), checked valid and, with
 * a stored base, alike. 0, or -errno with line. */
static int pool_both(const struct gate_args *a, const char *dir,
		     struct cmp_file *runs[2], const int nruns[2],
		     struct cmp_file pooled[2], char *line, size_t len)
{
	static const char *const side[2] = { "base", "candidate" };
	char why[1024];
	int ret;

	for (int s = a->baseline != NULL; s < 2; s++)
		if ((ret = pool_side(dir, side[s], runs[s], nruns[s], &pooled[s],
				     why, sizeof(why))))
			return msg_fail(line, len, ret, "CANNOT JUDGE: pooling "
					"the %s: %.800s", side[s], why);
	snprintf(pooled[0].label, sizeof(pooled[0].label), "base");
	snprintf(pooled[1].label, sizeof(pooled[1].label), "candidate");
	for (int s = 0; s < 2; s++)
		if (cmp_validate(&pooled[s], s ? &pooled[0] : NULL, why,
				 sizeof(why)))
			return msg_fail(line, len, -EINVAL, "CANNOT JUDGE: the %s "
					"is not a valid measurement: %.800s",
					side[s], why);
	/* A stored base must have been run as the candidate is: the same
	 * options (it repeats them), but also the same machine and kernel. */
	if (a->baseline && cmp_mismatch(&pooled[0], &pooled[1], why, sizeof(why))) {
		if (!a->allow_mismatch)
			return msg_fail(line, len, -EINVAL, "CANNOT JUDGE: the "
					"candidate was run differently from "
					"%.200s: %.500s (--allow-mismatch to gate "
					"anyway)", a->baseline, why);
		fprintf(stderr, "%s: gate: warning: the candidate was run "
			"differently from %s: %s\n", prog, a->baseline, why);
	}
	return 0;
}

/* One gate: rounds, pooling, verdict. *effect gets the first row's
 * change (%, positive better) for calibration. Returns enum cmp_verdict;
 * line holds the verdict. */
static int gate_once(const struct gate_args *a, const char *dir,
		     const char *cand_extra, bool verbose, double *effect,
		     char *line, size_t len)
{
	struct cmp_file *runs[2], pooled[2] = { { 0 } };
	int nruns[2] = { 0, 0 }, verdict = CMP_CANNOT_JUDGE, no[GATE_MAX_ROUNDS];
	char why[1024];

	*effect = NAN;
	runs[0] = calloc((size_t)a->rounds, sizeof(struct cmp_file));
	runs[1] = calloc((size_t)a->rounds, sizeof(struct cmp_file));
	if (!runs[0] || !runs[1]) {
		snprintf(line, len, "CANNOT JUDGE: out of memory");
		goto out;
	}
	if (a->baseline) {
		if (cmp_load(a->baseline, &pooled[0], why, sizeof(why))) {
			snprintf(line, len, "CANNOT JUDGE: %.200s: %.700s",
				 a->baseline, why);
			goto out;
		}
		if (cmp_gate_check_stored(&pooled[0], a->baseline, &a->o, a->pct,
					  line, len) != CMP_PASS)
			goto out;
	}
	if (run_rounds(a, dir, cand_extra, verbose, a->baseline ? &pooled[0] :
		       NULL, runs, nruns, line, len))
		goto out;
	drop_flagged(a, runs, nruns, no);
	if (!nruns[1]) {
		snprintf(line, len, "CANNOT JUDGE: every round has a flagged "
			 "sample (stopped or starved): a quieter machine");
		goto out;
	}
	if (pool_both(a, dir, runs, nruns, pooled, line, len))
		goto out;
	/* A line a round: every row the gate judges (each task count). */
	for (int r = 0; verbose && r < nruns[1]; r++) {
		const struct cmp_metric *m = cmp_primary_metric(&pooled[0]);

		printf("round %d:", no[r]);
		for (int t = 0; t < pooled[0].ntasks; t++)
			printf("%s %s-%d %+.2f%%", t ? "," : "", m->name,
			       pooled[0].tasks[t], cmp_change(a->baseline ?
			       &pooled[0] : &runs[0][r], &runs[1][r], m,
			       pooled[0].tasks[t]));
		printf(" (the candidate against %s)\n", a->baseline ?
		       "the stored base" : "this round's base");
	}
	if (a->baseline)
		verdict = cmp_gate_stored(&pooled[0], runs[1], nruns[1], &a->o,
					  a->pct, line, len);
	else if (a->pooled)
		verdict = cmp_gate(stdout, pooled, 2, &a->o, a->pct, line, len);
	else
		verdict = cmp_gate_rounds(stdout, (const struct cmp_file *const[]){
			runs[0], runs[1] }, nruns[1], pooled, &a->o, a->pct,
			line, len);
	*effect = cmp_change(&pooled[0], &pooled[1],
			     cmp_primary_metric(&pooled[0]), pooled[0].tasks[0]);
out:
	for (int s = 0; s < 2; s++) {
		for (int r = 0; runs[s] && r < nruns[s]; r++)
			cmp_file_free(&runs[s][r]);
		free(runs[s]);
		cmp_file_free(&pooled[s]);
	}
	return verdict;
}

/* A directory of the gate's own: DIR (new), or a fresh one under
 * $TMPDIR that is removed afterwards. 0, or -errno with why. */
static int gate_dir(const struct gate_args *a, char *dir, size_t len,
		    bool *temp, char *why, size_t wlen)
{
	char shown[PATH_MAX];
	int e;

	*temp = !a->dir;
	if (a->dir) {
		snprintf(dir, len, "%s", a->dir);
		if ((e = sf_mkdir_new(dir, 0700)))
			return msg_fail(why, wlen, e, "cannot make the directory "
					"'%s' for --keep: %s%s",
					parse_printable(shown, sizeof(shown), dir),
					strerror(-e), e == -ELOOP ? " (no symbolic "
					"link is followed)" : "");
		return 0;
	}
	if ((e = sf_mkdtemp(dir, len, "vmsim-gate")))
		return msg_fail(why, wlen, e, "cannot make a directory in %s: %s",
				parse_printable(shown, sizeof(shown), sf_tmpdir()),
				strerror(-e));
	return 0;
}

/* A sub-directory for one gate of a calibration (or dir itself). */
static int sub_dir(const char *dir, const char *name, int i, char *out,
		   size_t len)
{
	snprintf(out, len, "%.3900s/%s-%d", dir, name, i);
	return sf_mkdir_new(out, 0700);
}

/* --calibrate: the --hold-extra that costs about 10%, by two probes (a
 * cost is close to linear in the busy work added); then N A/A and N A/B
 * gates, interleaved. */
static int gate_calibrate(const struct gate_args *a, const char *dir)
{
	char line[1024], sub[PATH_MAX], extra[64];
	double effect, cost = 0, sum_ab = 0;
	long hold = 1000;
	int aa = 0, ab = 0, aa_cj = 0, ab_cj = 0;

	for (int probe = 0; probe < 3 && !a->aa_only; probe++) {
		snprintf(extra, sizeof(extra), "--hold-extra %ld", hold);
		if (sub_dir(dir, "probe", probe + 1, sub, sizeof(sub)))
			return 1;
		/* As many rounds as a gate: a one-round cost is as noisy as
		 * one pair of runs. */
		gate_once(a, sub, extra, false, &effect, line, sizeof(line));
		if (!isfinite(effect) || effect >= 0) {
			printf("calibrate: --hold-extra %ld ns: %+.2f%% (no cost "
			       "seen); four times as much\n", hold, effect);
			hold *= 4;
			continue;
		}
		cost = -effect;
		printf("calibrate: --hold-extra %ld ns costs %.2f%%\n", hold, cost);
		if (cost > 8 && cost < 12)
			break;
		hold = (long)((double)hold * 10.0 / cost);
		if (hold < 10)
			hold = 10;
		if (hold > 1000000)
			hold = 1000000;
	}
	snprintf(extra, sizeof(extra), "--hold-extra %ld", hold);
	if (!a->aa_only)
		printf("calibrate: A/B gates run the candidate with %s\n", extra);
	for (int i = 0; i < a->calibrate && !gate_signal(); i++) {
		int v;

		if (sub_dir(dir, "aa", i + 1, sub, sizeof(sub)))
			return 1;
		v = gate_once(a, sub, a->cand_opts, false, &effect, line,
			      sizeof(line));
		aa += v == CMP_REGRESSION;
		aa_cj += v == CMP_CANNOT_JUDGE;
		printf("A/A %d: %+.2f%% %s\n", i + 1, effect, line);
		if (a->aa_only)
			continue;
		if (sub_dir(dir, "ab", i + 1, sub, sizeof(sub)))
			return 1;
		v = gate_once(a, sub, extra, false, &effect, line, sizeof(line));
		ab += v == CMP_REGRESSION;
		ab_cj += v == CMP_CANNOT_JUDGE;
		sum_ab += isfinite(effect) ? effect : 0;
		printf("A/B %d: %+.2f%% %s\n", i + 1, effect, line);
	}
	if (gate_signal())
		return 128 + gate_signal();
	printf("false alarms: %d of %d A/A gates (%d could not judge)", aa,
	       a->calibrate, aa_cj);
	if (!a->aa_only)
		printf("; detected: %d of %d A/B gates (%d could not judge; %s: "
		       "%.2f%% slower on average)", ab, a->calibrate, ab_cj,
		       extra, -sum_ab / a->calibrate);
	printf("; %d round%s a gate, minimum effect %g%%, family-wise alpha "
	       "%g\n", a->rounds, PLURAL(a->rounds), a->pct,
	       cmp_gate_alpha(&a->o));
	return 0;
}

/* One gate, its verdict printed last (and written to --junit's file):
 * the exit status. */
static int gate_verdict(struct gate_args *a, const char *dir)
{
	struct cmp_gate_rows rows = { 0 };
	struct gate_junit j = { .path = a->junit, .input = a->recipe ?
				a->recipe : a->baseline, .pct = a->pct,
				.alpha = cmp_gate_alpha(&a->o), .rounds = a->rounds,
				.rows = &rows, .start = time(NULL) };
	struct timespec t0, t1;
	char line[1024];
	double effect;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	a->o.rows = a->junit ? &rows : NULL;
	ret = gate_once(a, dir, a->cand_opts, !a->quiet, &effect, line,
			sizeof(line));
	printf("%s\n", line);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	j.verdict = ret;
	j.line = line;
	j.seconds = (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ret = ret == CMP_PASS ? 0 : ret == CMP_REGRESSION ? 1 :
	      gate_signal() ? 128 + gate_signal() : EXIT_USAGE;
	/* A verdict that did not reach its file fails the gate. */
	if (a->junit && gate_junit_write(&j) && !ret)
		ret = 1;
	free(rows.row);
	a->o.rows = NULL;
	return ret;
}

static int cmd_gate(int argc, char **argv, const struct cli_ctx *ctx)
{
	static char self[PATH_MAX];
	struct gate_args a = { .rounds = GATE_DEFAULT_ROUNDS,
			       .run_timeout = GATE_DEFAULT_RUN_TIMEOUT,
			       .pct = CMP_GATE_DEFAULT_PCT,
			       .o = { .test = CMP_WELCH } };
	struct sigaction old[3];
	char dir[PATH_MAX], line[1024];
	int first, ret;
	bool temp;

	ret = cli_parse(&cmd_gate_desc, argc, argv, &a, &first);
	if (ret)
		return ret == CLI_PARSED_HELP ? 0 : ret;
	/* The rules with a p-value (mmtests-ci has none). */
	if (a.o.test == CMP_MMTESTS_CI)
		return cli_bad("gate: --significance '%s' has no p-value to gate "
			       "on: want welch, mannwhitney or mmtests-ttest",
			       cmp_test_names[a.o.test]);
	ret = gate_recipe(&a, argc, argv, first);
	if (ret || ctx->dry_run)
		goto done;
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0)
		snprintf(self, sizeof(self), "%s", argv[0]);
	/* Its runs skip the harness's ceiling check: a gate runs the same
	 * recipe over and over (and a base binary may predate --ceiling),
	 * and judges by rounds, not by one run's efficiency. */
	setenv("VMSIM_NO_CEILING", "1", 1);
	if (!a.base_prog)
		a.base_prog = self;
	if (!a.cand_prog)
		a.cand_prog = self;
	if (a.rounds < GATE_MIN_ROUNDS && !a.pooled && !a.baseline) {
		fprintf(stderr, "%s: gate: --rounds %d: judging by round needs at "
			"least %d rounds (or --pooled)\n", prog, a.rounds,
			GATE_MIN_ROUNDS);
		ret = EXIT_USAGE;
		goto done;
	}
	if (a.junit && a.calibrate) {
		ret = cli_bad("gate: %s", "--junit writes one gate's verdict: "
			  "not with --calibrate");
		goto done;
	}
	if (a.junit && gate_junit_check(a.junit, a.recipe ? a.recipe :
					 a.baseline, line, sizeof(line))) {
		fprintf(stderr, "%s: gate: --junit: %s\n", prog, line);
		ret = EXIT_USAGE;
		goto done;
	}
	if (a.calibrate && a.baseline) {
		ret = cli_bad("gate: %s", "--calibrate runs both sides: give the run "
			  "with -- or --recipe, not --baseline");
		goto done;
	}
	if (gate_dir(&a, dir, sizeof(dir), &temp, line, sizeof(line))) {
		/* --keep DIR is the user's value; $TMPDIR's is the machine's. */
		fprintf(stderr, "%s: gate: %s\n", prog, line);
		ret = a.dir ? EXIT_USAGE : 1;
		goto done;
	}
	gate_signals_install(old);
	if (a.calibrate) {
		ret = gate_calibrate(&a, dir);
	} else {
		ret = gate_verdict(&a, dir);
	}
	gate_signals_restore(old);
	if (temp)
		sf_remove_tree(dir);
	else
		fprintf(stderr, "%s: gate: the runs and the pooled base.json and "
			"candidate.json are in %s\n", prog, dir);
done:
	run_args_free(&a.runv);
	return ret;
}
