/* SPDX-License-Identifier: MIT */
/*
 * vmsim run's options as one table (resfile/run_opts.def, the table in
 * resfile/run_optlist.c). Names and numbers only: vmsim-compare, which links
 * no simulator, reads the result keys and the "before it existed" values
 * from it; vmsim's parser, --help, `vmsim list` and vmsim rerun read the
 * rest.
 */
#ifndef VMSIM_RUN_OPTS_H
#define VMSIM_RUN_OPTS_H

/* -t and --max-tasks: task counts from 1 to this. */
#define MAX_TASKS_LIMIT 1024

#include <stdbool.h>
#include <stdio.h>

/* Which code parses an option's value. */
enum run_opt_parse {
	RUN_PARSE_HERE,          /* bound (BIND), or cmd_run.c's switch */
	RUN_PARSE_MEM,           /* run_mem_opt (cli/run_mem.c) */
	RUN_PARSE_REPLAY,        /* run_replay_opt (cli/run_replay.c) */
};

/* How a result's recorded value goes back on the command line. */
enum run_opt_redo {
	RUN_REDO_NONE,           /* not recorded */
	RUN_REDO_INT,            /* --name N */
	RUN_REDO_STR,            /* --name VALUE (a number as %.17g) */
	RUN_REDO_FLAG,           /* --name when true */
	RUN_REDO_LIST,           /* the task list, as ranges */
	RUN_REDO_JSON,           /* --name 'JSON' (an object), or a string */
};

struct run_opt {
	char shrt;               /* its one-letter form, or 0 */
	const char *name;        /* --name */
	const char *metavar;     /* its value in --help; NULL: takes none */
	const char *help;        /* --help's text ("\n": the next line); NULL:
				  * not listed (--help itself) */
	const char *list;        /* `vmsim list`'s components line, or NULL */
	enum run_opt_parse parse;
	const char *what;        /* what a complaint calls its value */
	long lo, hi;             /* an INT(...) option's range (hi > 0) */
	/* A value that is one of two or three names of its own (an enum
	 * of a lower layer has its names there: frames_mode_names...). */
	const char *const *choices;
	int nchoices;
	const char *key;         /* its key in a result's options, or NULL */
	enum run_opt_redo redo;
	const char *skip;        /* a recorded value that is the default and
				  * has no flag ("auto", "default") */
	bool samples;            /* says how many or how long the samples are,
				  * not what a sample measures: compare does
				  * not call a difference a mismatch */
	unsigned needs;          /* RUN_NEEDS_*: where it applies; given
				  * elsewhere it is refused, and a result
				  * records it only where it applies */
	bool scale;              /* vmsim bench scale takes it too */
	bool harness;            /* how vmsim runs, not what it measures
				  * (a limit, a watchdog, a check before the
				  * run): recorded and put back, never a
				  * mismatch */
	bool model;              /* a part of the models (their fault source,
				  * allocators, lock options): the host
				  * kernel's target (-l kernel) runs the
				  * host's own, so it is said not to apply
				  * there */
	bool background;         /* put back only where the workload has
				  * background writers */
	bool has_before;         /* a result without the key (written before
				  * the option existed) meant: */
	const char *before_str;
	long long before_num;
	/* A value other than the default, and the options it needs beside
	 * ("--slab sheaves"): tests/cli/test_options.c sets it and checks it
	 * is recorded and that vmsim rerun reproduces it. "" for a flag;
	 * "@trace" stands for a shipped trace. */
	const char *test, *test_with;
};
#define RUN_NEEDS_UFFD    0x1    /* the uffd fault source */
#define RUN_NEEDS_THREADS 0x2    /* --mode threads */
/* A choice only some schemes have: some target's scheme must have it
 * (else refused), and only their results record it
 * (run_opt_scheme_has, resfile/run_options.h). */
#define RUN_NEEDS_ANON_SCHEME     0x4    /* lock_ops.anon_prepare */
#define RUN_NEEDS_MPROTECT_SCHEME 0x8    /* lock_ops.write_begin_mprotect */
#define BEFORE_STR(s) .has_before = true, .before_str = (s)
#define BEFORE_NUM(n) .has_before = true, .before_num = (n)
#define CHOICES(...) .choices = (const char *const[]){ __VA_ARGS__ }, \
	.nchoices = (int)(sizeof((const char *const[]){ __VA_ARGS__ }) / \
			  sizeof(char *))

enum run_opt_id {
#define RUN_OPT(id, bind, rec, ...) RUN_O_##id,
#include "resfile/run_opts.def"
#undef RUN_OPT
	RUN_NOPTS
};

/* Indexed by enum run_opt_id. */
extern const struct run_opt run_optlist[RUN_NOPTS];
/* getopt's value for an option without a letter (past any char). */
#define RUN_OPT_VAL(id) (256 + (int)(id))

/* The option recorded under key, or NULL. */
const struct run_opt *run_opt_by_key(const char *key);
/* Does o apply to a run with this fault source ("uffd", "synthetic")
 * and mode? */
bool run_opt_applies(const struct run_opt *o, const char *source,
		     bool processes);
/* Where o applies, for a refusal: "with the uffd fault source". */
const char *run_opt_needs_text(const struct run_opt *o);

#endif
