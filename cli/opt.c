/* SPDX-License-Identifier: MIT */
/*
 * The option tables' one parser, help printer and `list --options`
 * writer (cli/opt.h). The parser is getopt_long on tables made from the
 * entries, so that abbreviations, '--' and clustered letters behave as
 * they always have; what a value must be is the entry's, and so is the
 * line that refuses it.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opt.h"
#include "cli/cmd.h"
#include "base/parse.h"

static int nopts(const struct cli_opt *opts)
{
	int n = 0;

	while (opts && opts[n].kind != CLI_OPT_END)
		n++;
	return n;
}

const struct cli_opt *cli_cmd_opts(const struct cli_command *cmd)
{
	return cmd->opts_fn ? cmd->opts_fn() : cmd->opts;
}

static bool takes_value(const struct cli_opt *o)
{
	return o->metavar != NULL;
}

/* getopt's value for entry i: past any char, so letters stay letters. */
#define OPT_VAL(i) (256 + (i))

/* getopt's tables for opts: long options, and the letters (':' first, so
 * that a missing value is told apart; '+' first when options end at the
 * first argument that is none). NULL on no memory. */
static struct option *getopt_tables(const struct cli_opt *opts, int n,
				    bool in_order, char **shortopts)
{
	struct option *lo = calloc((size_t)n + 1, sizeof(*lo));
	char *s = malloc(3 * (size_t)n + 3);
	size_t k = 0;

	if (!lo || !s) {
		free(lo);
		free(s);
		return NULL;
	}
	if (in_order)
		s[k++] = '+';
	s[k++] = ':';
	for (int i = 0; i < n; i++) {
		const struct cli_opt *o = &opts[i];

		lo[i] = (struct option){ o->name, !takes_value(o) ? no_argument :
			o->optional ? optional_argument : required_argument,
			NULL, OPT_VAL(i) };
		if (o->shrt) {
			s[k++] = o->shrt;
			if (takes_value(o))
				s[k++] = ':';
			if (takes_value(o) && o->optional)
				s[k++] = ':';
		}
	}
	s[k] = 0;
	*shortopts = s;
	return lo;
}

/* The entry getopt returned opt for, or -1. */
static int entry_of(const struct cli_opt *opts, int n, int opt)
{
	if (opt >= OPT_VAL(0) && opt < OPT_VAL(n))
		return opt - OPT_VAL(0);
	for (int i = 0; opt > 0 && opt != '?' && opt != ':' && i < n; i++)
		if (opts[i].shrt == opt)
			return i;
	return -1;
}

/* "bad --NAME 'VAL': want ..." with the bounds it was held to. */
int cli_opt_bad(const struct cli_opt *o, const char *arg)
{
	char fmt[512], b[160];

	if (!cli_opt_bounds(o, b, sizeof(b)))
		snprintf(b, sizeof(b), "%s", o->kind == CLI_OPT_SIZE ?
			 "a size such as 64M" : "a number");
	snprintf(fmt, sizeof(fmt), "bad --%s '%%s': want %s", o->name,
		 o->metavar ? b : "no value");
	return cli_bad(fmt, arg);
}

/* One entry's value into args: 0 or EXIT_USAGE. */
static int bind(const struct cli_opt *o, void *args, const char *arg)
{
	char *p = (char *)args + o->off, *end;
	long v;
	size_t sz;
	double d;
	int k;

	if (o->given_off)
		*(bool *)((char *)args + o->given_off - 1) = true;
	switch (o->kind) {
	case CLI_OPT_FLAG:
		*(bool *)p = true;
		return 0;
	case CLI_OPT_INT:
		if (parse_long(arg, (long)o->lo, (long)o->hi, &v))
			return cli_opt_bad(o, arg);
		*(int *)p = (int)v;
		return 0;
	case CLI_OPT_LONG:
		if (parse_long(arg, (long)o->lo, (long)o->hi, &v))
			return cli_opt_bad(o, arg);
		*(long *)p = v;
		return 0;
	case CLI_OPT_NUM:
		if (!arg)
			return 0;        /* --name alone: the default stays */
		errno = 0;
		d = strtod(arg, &end);
		if (!*arg || *end || errno || isnan(d) ||
		    !(o->lo_in ? d >= o->dlo : d > o->dlo) || !(d < o->dhi))
			return cli_opt_bad(o, arg);
		*(double *)p = d;
		return 0;
	case CLI_OPT_CHOICE: {
		char what[128];

		snprintf(what, sizeof(what), "--%s", o->name);
		if ((k = cli_pick(what, arg, o->choices, o->nchoices)) < 0)
			return EXIT_USAGE;
		*(int *)p = k;
		return 0;
	}
	case CLI_OPT_STRING:
		*(const char **)p = arg;
		return 0;
	case CLI_OPT_SIZE:
		if (parse_size(arg, &sz) || sz % 4096 ||
		    sz < (size_t)o->lo || sz > (size_t)o->hi)
			return cli_opt_bad(o, arg);
		*(size_t *)p = sz;
		return 0;
	case CLI_OPT_CALL:
		return o->call(args, o, arg);
	case CLI_OPT_HELP:
	case CLI_OPT_END:
		break;
	}
	return 0;
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv,
	      void *args, int *first)
{
	const struct cli_opt *opts = cli_cmd_opts(cmd);
	int n = nopts(opts), opt, i, ret = 0;
	char *shortopts;
	struct option *lo = getopt_tables(opts, n, cmd->in_order, &shortopts);

	if (!lo)
		return cli_bad("%s", "out of memory");
	optind = 0;      /* 0: glibc re-initialises getopt fully */
	while ((opt = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		i = entry_of(opts, n, opt);
		if (i < 0) {
			ret = cli_bad_option(argv, opt, lo);
			break;
		}
		if (opts[i].kind == CLI_OPT_HELP) {
			cli_print_help(cmd, stdout);
			ret = CLI_PARSED_HELP;
			break;
		}
		if ((ret = bind(&opts[i], args, optarg)))
			break;
	}
	*first = optind;
	free(lo);
	free(shortopts);
	return ret;
}

int cli_no_args(int argc, char **argv, int first)
{
	if (first < argc)
		return cli_bad("unexpected argument '%s'", argv[first]);
	return 0;
}

bool cli_opt_bounds(const struct cli_opt *o, char *buf, size_t len)
{
	char a[32], b[32];

	switch (o->kind) {
	case CLI_OPT_NUM:
		snprintf(buf, len, "%s %s %g, below %g", o->metavar,
			 o->lo_in ? "from" : "above", o->dlo, o->dhi);
		return true;
	case CLI_OPT_SIZE:
		snprintf(buf, len, "%s from %s to %s, a multiple of 4K",
			 o->metavar, parse_size_str(a, sizeof(a), (uint64_t)o->lo),
			 parse_size_str(b, sizeof(b), (uint64_t)o->hi));
		return true;
	default:
		if (!o->hi)
			return false;
		snprintf(buf, len, "%s from %lld to %lld", o->metavar, o->lo, o->hi);
		return true;
	}
}

void cli_print_opt(const struct cli_opt *o, FILE *f)
{
	const char *s = o->help, *nl;
	char b[160];
	int w;

	if (!s)
		return;
	w = o->shrt ? fprintf(f, "  -%c, --%s", o->shrt, o->name) :
		      fprintf(f, "      --%s", o->name);
	if (o->metavar)
		w += fprintf(f, o->optional ? "[=%s]" : " %s", o->metavar);
	if (w >= CLI_HELP_COL - 1)
		fprintf(f, "\n%*s", CLI_HELP_COL, "");
	else
		fprintf(f, "%*s", CLI_HELP_COL - w, "");
	for (; (nl = strchr(s, '\n')); s = nl + 1)
		fprintf(f, "%.*s\n%*s", (int)(nl - s), s, CLI_HELP_COL, "");
	fprintf(f, "%s\n", s);
	/* The bounds the parser holds it to, from the same fields. */
	if (cli_opt_bounds(o, b, sizeof(b)))
		fprintf(f, "%*s%s\n", CLI_HELP_COL, "", b);
}

/* "usage: vmsim LINE", the next lines under it. */
static void print_synopsis(const char *syn, FILE *f, bool *firstline)
{
	const char *nl;

	for (; syn && *syn; syn = nl ? nl + 1 : syn + strlen(syn)) {
		nl = strchr(syn, '\n');
		fprintf(f, "%svmsim %.*s\n", *firstline ? "usage: " : "       ",
			nl ? (int)(nl - syn) : (int)strlen(syn), syn);
		*firstline = false;
		if (!nl)
			break;
	}
}

/* One table's option lines. */
static void print_opts(const struct cli_opt *opts, FILE *f)
{
	for (int i = 0; opts && opts[i].kind != CLI_OPT_END; i++)
		cli_print_opt(&opts[i], f);
}

void cli_print_help(const struct cli_command *cmd, FILE *f)
{
	const struct cli_opt *opts = cli_cmd_opts(cmd);
	bool firstline = true;

	print_synopsis(cmd->synopsis, f, &firstline);
	for (const struct cli_command *const *s = cmd->subs; s && *s; s++)
		print_synopsis((*s)->synopsis, f, &firstline);
	if (cmd->text)
		fputs(cmd->text, f);
	if (opts && nopts(opts) > (opts[0].kind == CLI_OPT_HELP))
		fputc('\n', f);
	print_opts(opts, f);
	for (const struct cli_command *const *s = cmd->subs; s && *s; s++) {
		fprintf(f, "\n%s: ", (*s)->name);
		fputs((*s)->text ? (*s)->text : "\n", f);
		/* A table borrowed from another command is said there
		 * (bench scale's is run's: 'vmsim bench scale --help'). */
		if (!(*s)->opts_fn)
			print_opts(cli_cmd_opts(*s), f);
		if ((*s)->after)
			fputs((*s)->after, f);
	}
	if (cmd->after)
		fputs(cmd->after, f);
	if (cmd->more_help)
		cmd->more_help(f);
	if (cmd->exits)
		fputs(cmd->exits, f);
}

void cli_opt_values(const struct cli_opt *o, FILE *f)
{
	if (o->values) {
		o->values(o, f);
		return;
	}
	for (int i = 0; i < o->nchoices; i++)
		fprintf(f, "%s%s", i ? " " : "", o->choices[i]);
}

/* A text of the table, one field: its newlines as "\n", its tabs as
 * spaces (the line's fields are tab-separated), "-" if it is empty (so
 * that no field is, and a shell's read splits the line as written). */
static void put_field(const char *s, FILE *f)
{
	if (!s || !*s)
		fputc('-', f);
	for (; s && *s; s++) {
		if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\\')
			fputs("\\\\", f);
		else
			fputc(*s == '\t' ? ' ' : *s, f);
	}
}

/* The names o takes as one field. */
static void put_values(const struct cli_opt *o, FILE *f)
{
	char *v = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&v, &len);

	if (m) {
		cli_opt_values(o, m);
		fclose(m);
	}
	put_field(v, f);
	free(v);
}

static const char *const kind_names[] = {
	[CLI_OPT_END] = "-", [CLI_OPT_FLAG] = "flag", [CLI_OPT_INT] = "int",
	[CLI_OPT_LONG] = "int",
	[CLI_OPT_NUM] = "number", [CLI_OPT_CHOICE] = "choice",
	[CLI_OPT_STRING] = "string", [CLI_OPT_SIZE] = "size",
	[CLI_OPT_CALL] = "parsed", [CLI_OPT_HELP] = "help",
};

static void list_one(const char *cmd, const struct cli_command *c,
		     const char *sub, FILE *f)
{
	char b[160];

	for (const char *s = c->synopsis, *nl; s && *s; s = nl + 1) {
		nl = strchr(s, '\n');
		fprintf(f, "synopsis\t%s\t%s\t%.*s\n", cmd, sub,
			nl ? (int)(nl - s) : (int)strlen(s), s);
		if (!nl)
			break;
	}
	fprintf(f, "text\t%s\t%s\t", cmd, sub);
	put_field(c->text, f);
	fputc('\n', f);
	for (const struct cli_opt *o = cli_cmd_opts(c); o && o->kind != CLI_OPT_END;
	     o++) {
		fprintf(f, "option\t%s\t%s\t--%s\t", cmd, sub, o->name);
		if (o->shrt)
			fprintf(f, "-%c", o->shrt);
		else
			fputc('-', f);
		fprintf(f, "\t%d\t", !takes_value(o) ? 0 : o->optional ? 2 : 1);
		put_values(o, f);
		fprintf(f, "\t%s\t%s\t", o->metavar ? o->metavar : "-",
			kind_names[o->kind]);
		put_field(cli_opt_bounds(o, b, sizeof(b)) ? b : NULL, f);
		fputc('\t', f);
		put_field(o->help, f);
		fputc('\n', f);
	}
	fprintf(f, "after\t%s\t%s\t", cmd, sub);
	put_field(c->after, f);
	fputc('\n', f);
}

void cli_list_options(const struct cli_command *cmd, FILE *f)
{
	fprintf(f, "command\t%s\t", cmd->name);
	put_field(cmd->summary, f);
	fputc('\n', f);
	list_one(cmd->name, cmd, "-", f);
	for (const struct cli_command *const *s = cmd->subs; s && *s; s++) {
		fprintf(f, "sub\t%s\t%s\n", cmd->name, (*s)->name);
		list_one(cmd->name, *s, (*s)->name, f);
	}
	fprintf(f, "exits\t%s\t", cmd->name);
	put_field(cmd->exits, f);
	fputc('\n', f);
}
