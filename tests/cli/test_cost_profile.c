/* SPDX-License-Identifier: MIT */
/*
 * The cost profile behind --costs (resfile/cost_profile.h,
 * cli/run_costs.c): written and read back the same; a profile of another
 * host (release, CPU, VM or not) refused in one line; what a model pays
 * is the kernel's time over its own, place by place, and never below 0;
 * a run given the profile of this host gives each model target its
 * scheme's costs and the kernel's target none; a result made with
 * --costs, or the profile's JSON text, read as the profile; a profile
 * without a target's scheme refused.
 */
#include "tests/check_util.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "cli/complain.h"
#include "cli/run.h"
#include "tests/cli/profile_util.h"

static char dir[256];

static void mkscratch(void)
{
	snprintf(dir, sizeof(dir), "/tmp/vmsim-test-cost-profile-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void rmscratch(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* p written to dir/name: its path. */
static const char *put(const struct cost_profile *p, const char *name)
{
	static char path[PATH_MAX];
	char err[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_msg(!cost_profile_write(p, path, false, err, sizeof(err)),
		      "%s", err);
	return path;
}

/* run_costs_load with its complaint out of the test's output. */
static int quiet_load(const char *arg, struct cost_profile **p, json_object **raw)
{
	int saved = dup(2), null = open("/dev/null", O_WRONLY), ret;

	fflush(stderr);
	dup2(null, 2);
	ret = run_costs_load(arg, p, raw);
	fflush(stderr);
	dup2(saved, 2);
	close(null);
	close(saved);
	return ret;
}

START_TEST(test_round_trip)
{
	struct cost_profile p, q;
	json_object *raw;
	char err[512];

	mkscratch();
	test_profile_fill(&p, NULL);
	p.kernel[SIM_COST_BRK].event_ns = 700;
	ck_assert_int_eq(cost_profile_load(put(&p, "p.json"), &q, &raw, err,
					   sizeof(err)), 0);
	ck_assert_str_eq(q.host.release, p.host.release);
	ck_assert_str_eq(q.host.cpu, p.host.cpu);
	ck_assert_int_eq(q.nmodels, p.nmodels);
	ck_assert_str_eq(q.models[3].scheme, p.models[3].scheme);
	ck_assert_double_eq(q.kernel[SIM_COST_BRK].event_ns, 700);
	ck_assert_double_eq(q.models[0].op[SIM_COST_MMAP].in_ns, 600);
	/* Its JSON text is a profile too (what vmsim rerun passes). */
	{
		struct cost_profile r;
		json_object *raw2;

		ck_assert_int_eq(cost_profile_load(json_object_to_json_string(raw),
						   &r, &raw2, err, sizeof(err)), 0);
		ck_assert_int_eq(r.nmodels, p.nmodels);
		json_object_put(raw2);
	}
	json_object_put(raw);
	/* Not written over without force; with it, a profile is. */
	{
		char path[PATH_MAX], e2[512];

		snprintf(path, sizeof(path), "%s/p.json", dir);
		ck_assert_int_lt(cost_profile_write(&p, path, false, e2,
						    sizeof(e2)), 0);
		ck_assert_int_eq(cost_profile_write(&p, path, true, e2,
						    sizeof(e2)), 0);
	}
	rmscratch();
}
END_TEST

START_TEST(test_paid)
{
	struct cost_profile p;
	struct sim_costs c;

	test_profile_fill(&p, NULL);
	cost_profile_paid(&p, &p.models[0], &c);
	ck_assert(c.on);
	ck_assert_uint_eq(c.syscall_ns, 100);
	/* Kernel 3000 in, 1000 down, 1000 out; model 600 in, 0 down, 400 out. */
	ck_assert_uint_eq(c.op[SIM_COST_MMAP].in_ns, 2400);
	ck_assert_uint_eq(c.op[SIM_COST_MMAP].down_ns, 1000);
	ck_assert_uint_eq(c.op[SIM_COST_MMAP].out_ns, 600);
	/* A model slower than the kernel somewhere pays nothing there. */
	p.models[0].op[SIM_COST_BRK] = (struct cost_meas){ .total_ns = 9000,
							   .in_ns = 4000 };
	cost_profile_paid(&p, &p.models[0], &c);
	ck_assert_uint_eq(c.op[SIM_COST_BRK].in_ns, 0);
	ck_assert_uint_eq(c.op[SIM_COST_BRK].out_ns, 0);
	ck_assert_uint_eq(c.op[SIM_COST_BRK].down_ns, 1000);
}
END_TEST

START_TEST(test_other_host_refused)
{
	struct cost_profile p, *q;
	json_object *raw;

	mkscratch();
	test_profile_fill(&p, "1.2.3-not-this-one");
	ck_assert_int_eq(quiet_load(put(&p, "other.json"), &q, &raw), EXIT_USAGE);
	ck_assert_ptr_null(q);
	ck_assert_ptr_null(raw);
	test_profile_fill(&p, NULL);
	snprintf(p.host.cpu, sizeof(p.host.cpu), "a CPU no machine has");
	ck_assert_int_eq(quiet_load(put(&p, "cpu.json"), &q, &raw), EXIT_USAGE);
	test_profile_fill(&p, NULL);
	p.host.vm = !p.host.vm;
	ck_assert_int_eq(quiet_load(put(&p, "vm.json"), &q, &raw), EXIT_USAGE);
	/* This host's: taken. */
	test_profile_fill(&p, NULL);
	ck_assert_int_eq(quiet_load(put(&p, "here.json"), &q, &raw), 0);
	ck_assert_ptr_nonnull(q);
	free(q);
	json_object_put(raw);
	/* none: nothing. */
	ck_assert_int_eq(quiet_load("none", &q, &raw), 0);
	ck_assert_ptr_null(q);
	/* Not a profile, not there. */
	ck_assert_int_eq(quiet_load("/nonexistent/p.json", &q, &raw), EXIT_USAGE);
	ck_assert_int_eq(quiet_load("{\"x\": 1}", &q, &raw), EXIT_USAGE);
	rmscratch();
}
END_TEST

/* A run's targets: each model its scheme's costs, the kernel none. */
START_TEST(test_settle_targets)
{
	struct cost_profile p;
	struct run_cfg c = { .ntargets = 2 };

	test_profile_fill(&p, NULL);
	c.targets[0].lock = &kernel_lock_ops;
	c.targets[1].lock = lock_scheme_find("pervma");
	c.targets[1].tree = VMA_TREE_VMSIM;
	ck_assert_int_eq(run_costs_settle(&c, &p), 0);
	ck_assert(!c.targets[0].costs.on);
	ck_assert(c.targets[1].costs.on);
	ck_assert_uint_eq(c.targets[1].costs.op[SIM_COST_MUNMAP].in_ns, 2400);
	/* A profile without the target's scheme: refused. */
	p.nmodels = 0;
	{
		int saved = dup(2), null = open("/dev/null", O_WRONLY);

		fflush(stderr);
		dup2(null, 2);
		ck_assert_int_eq(run_costs_settle(&c, &p), EXIT_USAGE);
		dup2(saved, 2);
		close(null);
		close(saved);
	}
	/* No profile: nothing paid. */
	ck_assert_int_eq(run_costs_settle(&c, NULL), 0);
	ck_assert(!c.targets[1].costs.on);
}
END_TEST

/* A result whose options record the profile reads as that profile; one
 * made without --costs is refused. */
START_TEST(test_from_result)
{
	struct cost_profile p, q;
	json_object *res = json_object_new_object(), *opts = json_object_new_object();
	json_object *raw;
	char path[PATH_MAX], err[512];
	FILE *f;

	mkscratch();
	test_profile_fill(&p, NULL);
	json_object_object_add(res, "vmsim_result", json_object_new_int(1));
	json_object_object_add(opts, "costs", cost_profile_json(&p));
	json_object_object_add(res, "options", opts);
	snprintf(path, sizeof(path), "%s/r.json", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(json_object_to_json_string(res), f);
	fclose(f);
	ck_assert_int_eq(cost_profile_load(path, &q, &raw, err, sizeof(err)), 0);
	ck_assert_int_eq(q.nmodels, p.nmodels);
	json_object_put(raw);
	json_object_object_add(opts, "costs", json_object_new_string("none"));
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(json_object_to_json_string(res), f);
	fclose(f);
	ck_assert_int_ne(cost_profile_load(path, &q, &raw, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "without --costs"));
	json_object_put(res);
	rmscratch();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cost_profile");
	TCase *tc = tcase_create("profile");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_paid);
	tcase_add_test(tc, test_other_host_refused);
	tcase_add_test(tc, test_settle_targets);
	tcase_add_test(tc, test_from_result);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
