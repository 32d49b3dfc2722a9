/* SPDX-License-Identifier: MIT */
/* vmsim bench tree (the VMA tree's costs), vmsim bench fault (a
 * fault's cost: native, bare userfaultfd, vmsim's paths) and vmsim bench
 * slab (the slab fast paths' cost). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "cli/cmd.h"
#include "base/parse.h"

/* The benchmarks' getopt tables (also their man page and completion:
 * cmd_bench_optsets). */
static const struct option bench_tree_opts[] = {
	{ "vmas", required_argument, NULL, 'n' },
	{ "lookups", required_argument, NULL, 'k' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};
#define BENCH_TREE_SHORT ":h"
static const struct option bench_fault_opts[] = {
	{ "mem", required_argument, NULL, 'm' },
	{ "rounds", required_argument, NULL, 'r' },
	{ "wait", required_argument, NULL, 'W' },
	{ "folio", required_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};
#define BENCH_FAULT_SHORT ":m:h"
/* slab and lock: --rounds only. */
static const struct option bench_rounds_opts_tbl[] = {
	{ "rounds", required_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};
#define BENCH_ROUNDS_SHORT ":h"

static int cmd_bench_tree(int argc, char **argv, const struct cli_ctx *ctx)
{
	size_t sizes[16] = { 1000, 65530, 1000000 };
	int nsizes = 3, opt, ret;
	long lookups = 2000000;

	optind = 0;      /* 0: glibc re-initialises getopt fully */
	while ((opt = getopt_long(argc, argv, BENCH_TREE_SHORT, bench_tree_opts,
				  NULL)) != -1) {
		char *save = NULL, *tok, buf[256];

		switch (opt) {
		case 'n':
			if (parse_list_check(optarg))
				return cli_bad("bad VMA count list '%s': want numbers "
					   "separated by commas, none empty, such as "
					   "1000,65530", optarg);
			if (strlen(optarg) >= sizeof(buf))
				return cli_bad("bad VMA count list '%s': too long (at "
					   "most 16 counts)", optarg);
			snprintf(buf, sizeof(buf), "%s", optarg);
			nsizes = 0;
			for (tok = strtok_r(buf, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				long v;

				if (nsizes == 16 || parse_long(tok, 1, 10000000, &v))
					return cli_bad("bad VMA count list '%s': want numbers "
						   "from 1 to 10000000 such as 1000,65530",
						   optarg);
				for (int i = 0; i < nsizes; i++)
					if (sizes[i] == (size_t)v)
						return cli_bad("VMA count %s given twice", tok);
				sizes[nsizes++] = (size_t)v;
			}
			break;
		case 'k':
			if (parse_long(optarg, 1000, 1000000000, &lookups))
				return cli_bad("bad lookup count '%s': want 1000 or more", optarg);
			break;
		case 'h':
			cli_help("bench");
			return 0;
		default:
			return cli_bad_option(argv, opt, bench_tree_opts);
		}
	}
	if (optind < argc)
		return cli_bad("unexpected argument '%s'", argv[optind]);
	if (ctx->dry_run)
		return 0;
	ret = bench_tree_run(stdout, sizes, nsizes, lookups);
	if (ret) {
		fprintf(stderr, "%s: bench tree: %s\n", prog, strerror(-ret));
		return 1;
	}
	return 0;
}

/* --wait LIST: block, poll, busy, uring; none twice. */
static int bench_waits(const char *arg, enum uffd_wait_mode *w, int *n)
{
	char buf[128], *save = NULL, *tok;

	if (parse_list_check(arg))
		return cli_bad("bad wait mode list '%s': want names separated by "
			   "commas, none empty, such as block,busy", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == 4 || uffd_wait_mode_parse(tok, &w[*n]))
			return cli_bad("unknown wait mode '%s': want block, poll, busy "
				   "or uring", tok);
		for (int i = 0; i < *n; i++)
			if (w[i] == w[*n])
				return cli_bad("wait mode '%s' given twice", tok);
		(*n)++;
	}
	return 0;
}

static int cmd_bench_fault(int argc, char **argv, const struct cli_ctx *ctx)
{
	enum uffd_wait_mode waits[4] = { UFFD_WAIT_BLOCK, UFFD_WAIT_BUSY };
	int nwaits = 2, opt, ret;
	size_t mem = 64UL << 20, folio = 0;
	const char *mem_arg = "64M";
	long rounds = 3;
	char err[256];

	optind = 0;      /* 0: glibc re-initialises getopt fully */
	while ((opt = getopt_long(argc, argv, BENCH_FAULT_SHORT, bench_fault_opts, NULL)) != -1) {
		if (opt == 'm')
			mem_arg = optarg;
		if (opt == 'm' && (parse_size(optarg, &mem) || mem % 4096 ||
				   mem > (16UL << 30)))
			return cli_bad("bad size '%s' for --mem: want a multiple of 4K "
				   "up to 16G", optarg);
		if (opt == 'r' && parse_long(optarg, 1, 16, &rounds))
			return cli_bad("bad round count '%s': want 1 to 16", optarg);
		if (opt == 'W' && bench_waits(optarg, waits, &nwaits))
			return EXIT_USAGE;
		if (opt == 'F' && (parse_size(optarg, &folio) || folio < 4096 ||
				   folio > (2UL << 20) || (folio & (folio - 1))))
			return cli_bad("bad size '%s' for --folio: want a power of two "
				   "from 4K to 2M", optarg);
		if (opt == 'h') {
			cli_help("bench");
			return 0;
		}
		if (opt != 'm' && opt != 'r' && opt != 'W' && opt != 'F')
			return cli_bad_option(argv, opt, bench_fault_opts);
	}
	if (optind < argc)
		return cli_bad("unexpected argument '%s'", argv[optind]);
	if (ctx->dry_run)
		return 0;
	if (folio && mem % folio)
		return cli_bad("bad size '%s' for --mem: want a multiple of --folio",
			   mem_arg);
	ret = bench_fault_run(stdout, mem, (int)rounds, waits, nwaits, folio,
			      err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: bench fault: %s\n", prog, err);
		return 1;
	}
	return 0;
}

/* The options of a bench that takes only --rounds (default 7, at most
 * 64): 0 and *rounds, 1 after --help, or EXIT_USAGE after one line. */
static int bench_rounds_opts(int argc, char **argv, long *rounds)
{
	int opt;

	_Static_assert(BENCH_SLAB_ROUNDS_MAX == 64 && BENCH_LOCK_ROUNDS_MAX == 64,
		       "the message says 64");
	*rounds = 7;
	optind = 0;      /* 0: glibc re-initialises getopt fully */
	while ((opt = getopt_long(argc, argv, BENCH_ROUNDS_SHORT, bench_rounds_opts_tbl, NULL)) != -1) {
		if (opt == 'r' && parse_long(optarg, 1, 64, rounds))
			return cli_bad("bad round count '%s': want 1 to 64", optarg);
		if (opt == 'h') {
			cli_help("bench");
			return 1;
		}
		if (opt != 'r')
			return cli_bad_option(argv, opt, bench_rounds_opts_tbl);
	}
	if (optind < argc)
		return cli_bad("unexpected argument '%s'", argv[optind]);
	return 0;
}

static int cmd_bench_slab(int argc, char **argv, const struct cli_ctx *ctx)
{
	long rounds;
	int ret = bench_rounds_opts(argc, argv, &rounds);

	if (ret || ctx->dry_run)
		return ret == 1 ? 0 : ret;
	ret = bench_slab_run(stdout, (int)rounds);
	if (ret) {
		fprintf(stderr, "%s: bench slab: cannot set up a slab cache: %s\n",
			prog, strerror(-ret));
		return 1;
	}
	return 0;
}

static int cmd_bench_lock(int argc, char **argv, const struct cli_ctx *ctx)
{
	long rounds;
	int ret = bench_rounds_opts(argc, argv, &rounds);

	if (ret || ctx->dry_run)
		return ret == 1 ? 0 : ret;
	ret = bench_lock_run(stdout, (int)rounds);
	if (ret) {
		fprintf(stderr, "%s: bench lock: cannot make a scheme's lock: %s\n",
			prog, strerror(-ret));
		return 1;
	}
	return 0;
}

/* The benchmarks: one table for dispatch and for the names a message
 * lists. */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv, const struct cli_ctx *ctx);
} benches[] = {
	{ "tree", cmd_bench_tree },
	{ "fault", cmd_bench_fault },
	{ "slab", cmd_bench_slab },
	{ "lock", cmd_bench_lock },
	{ "scale", cmd_bench_scale },
};
#define NBENCHES ((int)(sizeof(benches) / sizeof(benches[0])))

static const char *bench_name(int i)
{
	return benches[i].name;
}

int cmd_bench(int argc, char **argv, const struct cli_ctx *ctx)
{
	if (argc < 2)
		return cli_unknown("bench: which benchmark?", NULL, bench_name,
				   NBENCHES);
	if (cli_is_help(argv[1]))
		return cli_help("bench");
	for (int i = 0; i < NBENCHES; i++)
		if (!strcmp(argv[1], benches[i].name))
			return benches[i].run(argc - 1, argv + 1, ctx);
	return cli_unknown("benchmark", argv[1], bench_name, NBENCHES);
}

static void bench_values(const struct option *o, FILE *f)
{
	if (strcmp(o->name, "wait"))
		return;
	for (int i = 0; i < UFFD_WAIT_NMODES; i++)
		fprintf(f, "%s%s", i ? " " : "",
			uffd_wait_mode_name((enum uffd_wait_mode)i));
}

const struct cli_optset *cmd_bench_optsets(void)
{
	static struct cli_optset sets[NBENCHES + 1];

	_Static_assert(NBENCHES == 5, "a benchmark without its table below");
	sets[0] = (struct cli_optset){ "tree", bench_tree_opts,
				       BENCH_TREE_SHORT, NULL, NULL };
	sets[1] = (struct cli_optset){ "fault", bench_fault_opts,
				       BENCH_FAULT_SHORT, NULL, bench_values };
	sets[2] = (struct cli_optset){ "slab", bench_rounds_opts_tbl,
				       BENCH_ROUNDS_SHORT, NULL, NULL };
	sets[3] = (struct cli_optset){ "lock", bench_rounds_opts_tbl,
				       BENCH_ROUNDS_SHORT, NULL, NULL };
	sets[4] = *cmd_bench_scale_optset();
	return sets;
}
