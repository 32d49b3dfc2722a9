/* SPDX-License-Identifier: MIT */
/*
 * A command's options as one table, as perf's parse-options.h has them
 * (tools/lib/subcmd/parse-options.h): each entry says its names, its
 * value's kind and bounds, the member of the command's arguments it
 * binds (type-checked at compile time), and its --help text. From the
 * table alone come the parser (cli_parse, on getopt_long), --help and
 * `vmsim help CMD` (cli_print_help), and `vmsim list --options`
 * (cli_list_options), which the man pages, the bash completion and
 * docs/usage.md's option tables are made from at build time
 * (scripts/gen-cli-docs.py). An option is stated once: its entry, and
 * the code that uses its value.
 *
 *   static const struct cli_opt gate_opts[] = {
 *       CLI_INT(struct gate_args, rounds, 0, "rounds", "N", 1, 100,
 *               "base and candidate rounds (default 10)"),
 *       CLI_FLAG(struct gate_args, quiet, 'q', "quiet", "no line per round"),
 *       CLI_HELP_OPT,
 *       CLI_END
 *   };
 */
#ifndef VMSIM_CLI_OPT_H
#define VMSIM_CLI_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct cli_ctx;

enum cli_opt_kind {
	CLI_OPT_END,
	CLI_OPT_FLAG,            /* bool, set true */
	CLI_OPT_INT,             /* int from lo to hi */
	CLI_OPT_LONG,            /* long from lo to hi */
	CLI_OPT_NUM,             /* double, lo < (or <=) value < hi */
	CLI_OPT_CHOICE,          /* int: the index of one of choices */
	CLI_OPT_STRING,          /* const char *, as given */
	CLI_OPT_SIZE,            /* size_t: K/M/G/T, a multiple of 4K, lo to hi */
	CLI_OPT_CALL,            /* call() parses it */
	CLI_OPT_HELP,            /* -h, --help: the command's help */
};

struct cli_opt {
	enum cli_opt_kind kind;
	char shrt;               /* its one-letter form, or 0 */
	const char *name;        /* --name */
	const char *metavar;     /* its value in --help; NULL: takes none */
	const char *help;        /* --help's text ("\n": the next line) */
	bool optional;           /* --name[=VALUE]: the value only after '=' */
	size_t off;              /* the member it binds (CLI_AT) */
	size_t given_off;        /* a bool member set when it is given, + 1
				  * (0: none) */
	long long lo, hi;        /* INT and SIZE: the bounds, both included */
	double dlo, dhi;         /* NUM: above dlo (at dlo if lo_in), below dhi */
	bool lo_in;
	const char *const *choices;      /* CHOICE: its names, indexed */
	int nchoices;
	/* The names it takes when they are not its choices (a lower
	 * layer's: the workloads), space-separated, for completion. */
	void (*values)(const struct cli_opt *o, FILE *f);
	/* CALL: parses arg (NULL: no value) into args; 0 or EXIT_USAGE. */
	int (*call)(void *args, const struct cli_opt *o, const char *arg);
	int id;                  /* CALL: which of the caller's options */
};

/*
 * A command, or a sub-command of one (bench tree): everything its help,
 * its man page and its completion say, and what runs it.
 */
struct cli_command {
	const char *name;
	const char *summary;     /* its line in vmsim --help ("\n" goes on) */
	const char *synopsis;    /* its usage lines ("\n"-separated, each
				  * without "vmsim ") */
	const char *text;        /* what it does, before the options */
	const struct cli_opt *opts;      /* CLI_END-ended; NULL: none */
	/* Or a table made when first asked (run's, from resfile's). */
	const struct cli_opt *(*opts_fn)(void);
	const char *after;       /* after the options, or NULL */
	const char *exits;       /* its exit statuses */
	bool in_order;           /* options end at the first argument that is
				  * none (what follows is another command's) */
	int (*run)(int argc, char **argv, const struct cli_ctx *ctx);
	const struct cli_command *const *subs;   /* NULL-ended, or NULL */
	void (*more_help)(FILE *f);      /* after the options (run: the names
					  * -l and -w take) */
};

/* The table's kinds, each checking that field of T has the kind's type. */
#define CLI_AT(T, f, type) (offsetof(T, f) + 0 * sizeof(struct {	\
	_Static_assert(__builtin_types_compatible_p(			\
		__typeof__(((T *)0)->f), type),				\
		"cli option: " #f " is not " #type); int x; }))
/* An enum member: of an int's size, an int or unsigned once promoted. */
#define CLI_AT_ENUM(T, f) (offsetof(T, f) + 0 * sizeof(struct {	\
	_Static_assert(sizeof(((T *)0)->f) == sizeof(int) &&		\
		       (__builtin_types_compatible_p(			\
			__typeof__(+((T *)0)->f), int) ||		\
			__builtin_types_compatible_p(			\
			__typeof__(+((T *)0)->f), unsigned int)),	\
		       "cli option: " #f " is not an enum"); int x; }))
#define CLI_GIVEN(T, f) .given_off = CLI_AT(T, f, bool) + 1
#define CLI_FLAG(T, f, s, n, h) { .kind = CLI_OPT_FLAG, .shrt = (s),	\
	.name = (n), .help = (h), .off = CLI_AT(T, f, bool) }
#define CLI_INT(T, f, s, n, mv, l, u, h) { .kind = CLI_OPT_INT,		\
	.shrt = (s), .name = (n), .metavar = (mv), .help = (h),		\
	.off = CLI_AT(T, f, int), .lo = (l), .hi = (u) }
#define CLI_LONG(T, f, s, n, mv, l, u, h) { .kind = CLI_OPT_LONG,	\
	.shrt = (s), .name = (n), .metavar = (mv), .help = (h),		\
	.off = CLI_AT(T, f, long), .lo = (l), .hi = (u) }
#define CLI_NUM(T, f, s, n, mv, l, in, u, h) { .kind = CLI_OPT_NUM,	\
	.shrt = (s), .name = (n), .metavar = (mv), .help = (h),		\
	.off = CLI_AT(T, f, double), .dlo = (l), .lo_in = (in), .dhi = (u) }
#define CLI_STR(T, f, s, n, mv, h) { .kind = CLI_OPT_STRING, .shrt = (s), \
	.name = (n), .metavar = (mv), .help = (h),			\
	.off = CLI_AT(T, f, const char *) }
#define CLI_SIZE(T, f, s, n, mv, l, u, h) { .kind = CLI_OPT_SIZE,	\
	.shrt = (s), .name = (n), .metavar = (mv), .help = (h),		\
	.off = CLI_AT(T, f, size_t), .lo = (l), .hi = (u) }
/* A choice of names (an array and how many of it the option takes). */
#define CLI_CHOICE(T, f, s, n, mv, names, count, h) {			\
	.kind = CLI_OPT_CHOICE, .shrt = (s), .name = (n), .metavar = (mv), \
	.help = (h), .off = CLI_AT(T, f, int), .choices = (names),	\
	.nchoices = (count) }
/* The same, into an enum member (written as an int). */
#define CLI_ENUM(T, f, s, n, mv, names, count, h) {			\
	.kind = CLI_OPT_CHOICE, .shrt = (s), .name = (n), .metavar = (mv), \
	.help = (h), .off = CLI_AT_ENUM(T, f), .choices = (names),	\
	.nchoices = (count) }
#define CLI_CALL(fn, s, n, mv, h) { .kind = CLI_OPT_CALL, .shrt = (s),	\
	.name = (n), .metavar = (mv), .help = (h), .call = (fn) }
#define CLI_HELP_OPT { .kind = CLI_OPT_HELP, .shrt = 'h', .name = "help", \
	.help = NULL }
#define CLI_END { .kind = CLI_OPT_END }

/* Where --help's text column starts. */
#define CLI_HELP_COL 27

/* cli_parse's result besides 0 and EXIT_USAGE: --help was asked and
 * printed (the command returns 0). */
#define CLI_PARSED_HELP (-1)

/*
 * argv's options by cmd's table into args; *first: the index of the
 * first argument that is no option. 0, EXIT_USAGE after one line, or
 * CLI_PARSED_HELP.
 */
int cli_parse(const struct cli_command *cmd, int argc, char **argv,
	      void *args, int *first);
/* "bad --NAME 'ARG': want <o's bounds>" in one line: EXIT_USAGE (for a
 * CALL entry whose bounds are its lo and hi). */
int cli_opt_bad(const struct cli_opt *o, const char *arg);
/* No argument may follow the options (cli_parse's first): 0 or
 * EXIT_USAGE after one line. */
int cli_no_args(int argc, char **argv, int first);
/* cmd's --help: its synopsis, text, option lines, the rest. */
void cli_print_help(const struct cli_command *cmd, FILE *f);
/* One option's --help lines. */
void cli_print_opt(const struct cli_opt *o, FILE *f);
/* The bounds line --help prints under an INT, SIZE or NUM option
 * ("N from 1 to 100"), into buf; false if it has none. */
bool cli_opt_bounds(const struct cli_opt *o, char *buf, size_t len);
/* cmd's table. */
const struct cli_opt *cli_cmd_opts(const struct cli_command *cmd);
/* cmd's lines of `vmsim list --options` (cli/cmd_list.c says the form). */
void cli_list_options(const struct cli_command *cmd, FILE *f);
/* The names o takes, space-separated (none: nothing). */
void cli_opt_values(const struct cli_opt *o, FILE *f);

#endif
