/* SPDX-License-Identifier: MIT */
/*
 * The command line's one-line complaints (cli/complain.h), shared by
 * vmsim and vmsim-compare: what a bad value is called and which --help
 * it points at.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/complain.h"
#include "base/parse.h"

bool cli_is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

/* The command whose --help a complaint points at (NULL: vmsim's). */
static const char *help_cmd;

void cli_set_help_command(const char *cmd)
{
	help_cmd = cmd;
}

/* The words a complaint is about, when not the command's own (the
 * gate's --candidate-opts), or NULL. */
static const char *help_context;

void cli_set_help_context(const char *ctx)
{
	help_context = ctx;
}

void cli_see_help(void)
{
	fprintf(stderr, " (%s%s%ssee 'vmsim %s%s--help')\n",
		help_context ? "in " : "", help_context ? help_context : "",
		help_context ? "; " : "", help_cmd ? help_cmd : "",
		help_cmd ? " " : "");
}

int cli_bad(const char *fmt, const char *val)
{
	char shown[256];

	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, parse_printable(shown, sizeof(shown), val));
	cli_see_help();
	return EXIT_USAGE;
}

/*
 * getopt's complaint as one line of ours (opterr is 0, and the option
 * strings start with ':' so that a missing value is told apart).
 */
int cli_bad_option(char **argv, int opt, const struct option *opts)
{
	const char *arg = argv[optind - 1];
	char name[PATH_MAX], shown[256];
	int matches = 0;

	/* The option as given, up to its '=' (refused whole: a name too
	 * long for this is unknown, and shown with an ellipsis). */
	if (optopt > 0 && optopt < 256 && arg[0] == '-' && arg[1] != '-')
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	parse_printable(shown, sizeof(shown), name);
	if (strcspn(arg, "=") >= sizeof(name))
		return cli_bad("unknown option '%s'", shown);
	if (opt == ':')
		return cli_bad("option '%s' needs a value", shown);
	for (int i = 0; name[0] == '-' && name[1] == '-' && opts[i].name; i++)
		matches += !strncmp(opts[i].name, name + 2, strlen(name + 2));
	if (matches > 1)
		return cli_bad("ambiguous option '%s': give more of its name", shown);
	return cli_bad("unknown option '%s'", shown);
}

/*
 * arg as one of names: its index, or -1 after one line naming the bad
 * value and the choices ("unknown WHAT 'x': want a, b or c").
 */
int cli_pick(const char *what, const char *arg, const char *const *names,
		int n)
{
	int i = parse_choice(arg, names, n);
	char shown[256];

	if (i >= 0)
		return i;
	fprintf(stderr, "%s: unknown %s '%s': want ", prog, what,
		parse_printable(shown, sizeof(shown), arg));
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%s", names[i], i == n - 1 ? "" :
			i == n - 2 ? " or " : ", ");
	cli_see_help();
	return -1;
}

int cli_unknown(const char *what, const char *arg, const char *(*name)(int i),
		int n)
{
	char shown[256];

	if (arg)
		fprintf(stderr, "%s: unknown %s '%s' (one of:", prog, what,
			parse_printable(shown, sizeof(shown), arg));
	else
		fprintf(stderr, "%s: %s (one of:", prog, what);
	for (int i = 0; i < n; i++)
		fprintf(stderr, "%s %s", i ? "," : "", name(i));
	fputs(")", stderr);
	cli_see_help();
	return EXIT_USAGE;
}

