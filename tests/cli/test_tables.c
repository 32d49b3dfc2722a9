/* SPDX-License-Identifier: MIT */
/*
 * Walks every command's option table (cli/opt.h), sub-commands too:
 * each option is in the command's --help, with the bounds line the
 * table gives it; and each bound --help states is the one the parser
 * enforces — the lowest and the highest value taken, one past either
 * refused with a line that quotes the value (nothing runs: the commands'
 * dry run, as the fuzzer drives them). A bound written in a help text by
 * hand, or a parser that checks other bounds than its entry's, fails
 * here by name.
 */
#include "tests/check_util.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>

#include "cli/cli.h"
#include "cli/cmd.h"

/* What one command line said on stderr, and its exit status. */
struct said {
	int status;
	char err[4096];
};

static void dry(int argc, char **argv, struct said *s)
{
	const struct cli_ctx ctx = { .dry_run = true };
	FILE *tmp = tmpfile();
	int saved = dup(2), n;

	ck_assert_ptr_nonnull(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	/* Its --help (none here) and any table a command prints go nowhere. */
	s->status = cli_main_ctx(argc, argv, &ctx);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = (int)fread(s->err, 1, sizeof(s->err) - 1, tmp);
	s->err[n > 0 ? n : 0] = 0;
	fclose(tmp);
}

/* The commands, as cli_main_ctx sets them. */
static void load_commands(void)
{
	char *argv[] = { "vmsim", "list", "--bogus-to-load", NULL };
	struct said s;

	dry(3, argv, &s);
	ck_assert_int_gt(cli_ncommands, 5);
}

/* Every (sub-)command with its table, in order; n of them. */
static int all_commands(const struct cli_command **c, const char **parent,
			int cap)
{
	int n = 0;

	load_commands();
	for (int i = 0; i < cli_ncommands && n < cap; i++) {
		c[n] = cli_commands[i];
		parent[n++] = NULL;
		for (const struct cli_command *const *s = cli_commands[i]->subs;
		     s && *s && n < cap; s++) {
			c[n] = *s;
			parent[n++] = cli_commands[i]->name;
		}
	}
	return n;
}

START_TEST(every_option_in_its_help)
{
	const struct cli_command *c[64];
	const char *parent[64];
	int n = all_commands(c, parent, 64), checked = 0;

	for (int i = 0; i < n; i++) {
		const struct cli_opt *o = cli_cmd_opts(c[i]);
		char *help = NULL, bounds[160], want[200];
		size_t len = 0;
		FILE *f = open_memstream(&help, &len);

		cli_print_help(c[i], f);
		fclose(f);
		for (; o && o->kind != CLI_OPT_END; o++) {
			if (!o->help)    /* --help, and run's own entry of it */
				continue;
			snprintf(want, sizeof(want), "--%s", o->name);
			ck_assert_msg(strstr(help, want), "%s%s%s --help lacks %s",
				      parent[i] ? parent[i] : "", parent[i] ? " " : "",
				      c[i]->name, want);
			if (cli_opt_bounds(o, bounds, sizeof(bounds)))
				ck_assert_msg(strstr(help, bounds), "%s --help: --%s "
					      "lacks its bounds '%s'", c[i]->name,
					      o->name, bounds);
			checked++;
		}
		free(help);
	}
	ck_assert_int_gt(checked, 120);
}
END_TEST

/* vmsim [PARENT] CMD --NAME=VALUE: is VALUE refused for its bounds?
 * A refusal of an integer names the range help states ("1 to 100"). */
static bool refused(const char *parent, const struct cli_command *c,
		    const struct cli_opt *o, const char *value)
{
	char range[64];

	char opt[256], quoted[128];
	char *argv[6];
	struct said s;
	int n = 0;

	argv[n++] = "vmsim";
	if (parent)
		argv[n++] = (char *)parent;
	argv[n++] = (char *)c->name;
	snprintf(opt, sizeof(opt), "--%s=%s", o->name, value);
	argv[n++] = opt;
	argv[n] = NULL;
	dry(n, argv, &s);
	snprintf(quoted, sizeof(quoted), "'%s'", value);
	/* A refusal of the value quotes it and says what is wanted. */
	if (strstr(s.err, quoted) && strstr(s.err, "want")) {
		ck_assert_msg(s.status == EXIT_USAGE, "%s --%s=%s: refused with "
			      "exit %d", c->name, o->name, value, s.status);
		snprintf(range, sizeof(range), "%lld to %lld", o->lo, o->hi);
		ck_assert_msg(o->kind == CLI_OPT_NUM || o->kind == CLI_OPT_SIZE ||
			      strstr(s.err, range), "%s --%s=%s: the refusal "
			      "does not name %s: %s", c->name, o->name, value,
			      range, s.err);
		return true;
	}
	return false;
}

static void check_int(const char *parent, const struct cli_command *c,
		      const struct cli_opt *o, int *checked)
{
	long long v[4] = { o->lo - 1, o->lo, o->hi, o->hi + 1 };
	bool want[4] = { true, false, false, true };
	char buf[32];

	if (o->kind == CLI_OPT_SIZE) {
		v[0] = o->lo - 4096;
		v[3] = o->hi + 4096;
	}
	for (int k = 0; k < 4; k++) {
		if (v[k] < 0)            /* "-1" would be read as an option */
			continue;
		snprintf(buf, sizeof(buf), "%lld", v[k]);
		ck_assert_msg(refused(parent, c, o, buf) == want[k],
			      "%s%s%s --%s %s: %s, but its help says %lld to %lld",
			      parent ? parent : "", parent ? " " : "", c->name,
			      o->name, buf, want[k] ? "taken" : "refused",
			      o->lo, o->hi);
		(*checked)++;
	}
}

static void check_num(const char *parent, const struct cli_command *c,
		      const struct cli_opt *o, int *checked)
{
	double v[3] = { o->dlo, (o->dlo + o->dhi) / 2, o->dhi };
	bool want[3] = { !o->lo_in, false, true };
	char buf[32];

	for (int k = 0; k < 3; k++) {
		snprintf(buf, sizeof(buf), "%g", v[k]);
		ck_assert_msg(refused(parent, c, o, buf) == want[k],
			      "%s --%s %s: %s, but its help says %g%s to below %g",
			      c->name, o->name, buf, want[k] ? "taken" : "refused",
			      o->dlo, o->lo_in ? "" : " (excluded)", o->dhi);
		(*checked)++;
	}
}

START_TEST(every_bound_enforced)
{
	const struct cli_command *c[64];
	const char *parent[64];
	int n = all_commands(c, parent, 64), checked = 0;

	for (int i = 0; i < n; i++) {
		for (const struct cli_opt *o = cli_cmd_opts(c[i]);
		     o && o->kind != CLI_OPT_END; o++) {
			if (o->kind == CLI_OPT_NUM)
				check_num(parent[i], c[i], o, &checked);
			else if (o->hi && o->kind != CLI_OPT_CHOICE)
				check_int(parent[i], c[i], o, &checked);
		}
	}
	/* run's 20-odd, gate's, calibrate's, bench's, record's */
	ck_assert_int_gt(checked, 100);
}
END_TEST

/* vmsim help CMD for every command: its own help, exit 0; an unknown
 * one is one line and exit 2. */
START_TEST(help_of_every_command)
{
	char *argv[4] = { "vmsim", "help", NULL, NULL };
	struct said s;
	int saved = dup(1), null = open("/dev/null", O_WRONLY);

	load_commands();
	fflush(stdout);
	dup2(null, 1);
	for (int i = 0; i < cli_ncommands; i++) {
		argv[2] = (char *)cli_commands[i]->name;
		dry(3, argv, &s);
		ck_assert_msg(s.status == 0 && !s.err[0], "vmsim help %s: exit %d, %s",
			      argv[2], s.status, s.err);
	}
	argv[2] = "nosuch";
	dry(3, argv, &s);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(null);
	ck_assert_int_eq(s.status, EXIT_USAGE);
	ck_assert_msg(strstr(s.err, "'nosuch'"), "%s", s.err);
}
END_TEST

static Suite *tables_suite(void)
{
	Suite *s = suite_create("tables");
	TCase *tc = tcase_create("tables");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_option_in_its_help);
	tcase_add_test(tc, every_bound_enforced);
	tcase_add_test(tc, help_of_every_command);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(tables_suite(), CK_NORMAL);
}
