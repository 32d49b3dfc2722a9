/* SPDX-License-Identifier: MIT */
/*
 * Walks vmsim run's option table (resfile/run_opts.def): every option
 * with a result key, set to its .test value (with its .test_with), under
 * the first workload that takes it, must be recorded — present, and not
 * the value the same run records without it — and the command line vmsim
 * rerun makes of that record must record the same options again. An
 * option given a key and no RECORD, a RECORD that writes the default, or
 * a rerun form that loses the value fails here, by name. Nothing runs:
 * cmd_run_preview parses and settles as vmsim run does.
 */
#include "tests/check_util.h"

#include <fcntl.h>
#include <limits.h>
#include <json-c/json.h>

#include "cli/run.h"
#include "tests/cli/profile_util.h"
#include "workloads/workload.h"

#ifndef DATA_DIR
#define DATA_DIR "."
#endif
#define TRACE DATA_DIR "/traces/sort.trace"
#define MAX_WORDS 32

/* "@profile": a cost profile of this host, made in a scratch folder. */
static char profile_path[PATH_MAX];

static const char *test_word(const char *t)
{
	return !strcmp(t, "@trace") ? TRACE : !strcmp(t, "@profile") ?
	       profile_path : t;
}

/* words: "run", then the option's own, then "-w" wl; "@trace" replaced. */
static int build_argv(char **w, char *buf, size_t len, const char *with,
		      const struct run_opt *o, bool set, const char *wl)
{
	int n = 0;
	char *save, *t;

	w[n++] = "run";
	snprintf(buf, len, "%s", with ? with : "");
	for (t = strtok_r(buf, " ", &save); t && n < MAX_WORDS - 6;
	     t = strtok_r(NULL, " ", &save))
		w[n++] = (char *)test_word(t);
	if (set) {
		static char flag[64];

		snprintf(flag, sizeof(flag), "--%s", o->name);
		w[n++] = flag;
		if (o->test[0])
			w[n++] = (char *)test_word(o->test);
	}
	w[n++] = "-w";
	w[n++] = (char *)wl;
	w[n] = NULL;
	return n;
}

/* cmd_run_preview with its complaints out of the test's output. */
static json_object *quiet_preview(int argc, char **argv)
{
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	json_object *r;

	fflush(stderr);
	dup2(null, 2);
	r = cmd_run_preview(argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(null);
	close(saved);
	return r;
}

static json_object *opt_of(json_object *root, const char *key)
{
	json_object *opts, *v;

	return json_object_object_get_ex(root, "options", &opts) &&
	       json_object_object_get_ex(opts, key, &v) ? v : NULL;
}

/* The rerun of root records the same options: NULL, or why not. */
static const char *rerun_differs(json_object *root, char *why, size_t len)
{
	struct run_args_vec v;
	json_object *again, *a, *b;
	char err[256];
	bool same;

	if (run_rerun_args(root, &v, err, sizeof(err))) {
		snprintf(why, len, "rerun refused: %s", err);
		return why;
	}
	again = quiet_preview(v.n, v.argv);
	run_args_free(&v);
	if (!again) {
		snprintf(why, len, "the rerun's command line was refused");
		return why;
	}
	json_object_object_get_ex(root, "options", &a);
	json_object_object_get_ex(again, "options", &b);
	same = json_object_equal(a, b);
	if (!same) {
		size_t at = (size_t)snprintf(why, len, "its rerun differs:");

		json_object_object_foreach(a, key, va) {
			json_object *vb = NULL;

			if (json_object_object_get_ex(b, key, &vb) &&
			    json_object_equal(va, vb))
				continue;
			if (at < len)
				at += (size_t)snprintf(why + at, len - at,
					" %s %s, now %s", key,
					json_object_to_json_string(va),
					vb ? json_object_to_json_string(vb) :
					"absent");
		}
	}
	json_object_put(again);
	return same ? NULL : why;
}

/* One keyed option: NULL when it passes, or why it fails. */
static const char *check_option(const struct run_opt *o, char *why, size_t len)
{
	char *w[MAX_WORDS], buf[256];
	bool accepted = false;

	if (!o->test) {
		snprintf(why, len, "it has a key and no .test value");
		return why;
	}
	for (int i = 0; i < wl_nworkloads; i++) {
		const char *wl = wl_workloads[i]->name;
		int n = build_argv(w, buf, sizeof(buf), o->test_with, o, true, wl);
		json_object *with = quiet_preview(n, w), *base;
		const char *bad = NULL;

		if (!with)
			continue;
		accepted = true;
		if (!opt_of(with, o->key)) {
			json_object_put(with);
			continue;
		}
		n = build_argv(w, buf, sizeof(buf), o->test_with, o, false, wl);
		base = quiet_preview(n, w);
		/* Refused without it: the workload needs it (--trace). */
		if (base && opt_of(base, o->key) &&
			   json_object_equal(opt_of(base, o->key),
					     opt_of(with, o->key))) {
			snprintf(why, len, "-w %s: recorded %s, the default", wl,
				 json_object_to_json_string(opt_of(with, o->key)));
			bad = why;
		} else {
			bad = rerun_differs(with, why, len);
		}
		json_object_put(base);
		json_object_put(with);
		return bad;
	}
	snprintf(why, len, accepted ? "taken, but recorded under no workload" :
		 "refused under every workload");
	return why;
}

START_TEST(test_every_keyed_option)
{
	int checked = 0, failed = 0;

	for (int i = 0; i < RUN_NOPTS; i++) {
		const struct run_opt *o = &run_optlist[i];
		char why[1024];
		const char *bad;

		if (!o->key)
			continue;
		bad = check_option(o, why, sizeof(why));
		checked++;
		if (bad) {
			printf("FAIL --%s (key %s): %s\n", o->name, o->key, bad);
			fflush(stdout);
			failed++;
		}
	}
	printf("%d keyed options: %d recorded and rerun\n", checked,
	       checked - failed);
	fflush(stdout);
	ck_assert_int_gt(checked, 40);
	ck_assert_int_eq(failed, 0);
}
END_TEST

/* An option without a key is never written into a result. */
START_TEST(test_unkeyed_not_recorded)
{
	char *w[] = { "run", "-w", "pft", "--brief", "-q", NULL };
	json_object *r = quiet_preview(5, w), *opts;

	ck_assert_ptr_nonnull(r);
	ck_assert(json_object_object_get_ex(r, "options", &opts));
	json_object_object_foreach(opts, key, val) {
		(void)val;
		ck_assert_msg(run_opt_by_key(key), "%s: not in the table", key);
	}
	json_object_put(r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("table");
	static struct cost_profile prof;
	char dir[] = "/tmp/vmsim-test-options-XXXXXX", err[512];
	int ret;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	snprintf(profile_path, sizeof(profile_path), "%s/p.json", dir);
	test_profile_fill(&prof, NULL);
	if (cost_profile_write(&prof, profile_path, false, err, sizeof(err))) {
		fprintf(stderr, "cannot write %s: %s\n", profile_path, err);
		return EXIT_FAILURE;
	}

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_every_keyed_option);
	tcase_add_test(tc, test_unkeyed_not_recorded);
	suite_add_tcase(s, tc);
	ret = check_run(s, CK_NORMAL);
	unlink(profile_path);
	rmdir(dir);
	return ret;
}
