/* SPDX-License-Identifier: MIT */
/* vmsim bench tree (the VMA tree's costs), vmsim bench fault (a
 * fault's cost: native, bare userfaultfd, vmsim's paths) and vmsim bench
 * slab (the slab fast paths' cost). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "cli/cmd.h"
#include "base/parse.h"

struct bench_tree_args {
	size_t sizes[16];
	int nsizes;
	long lookups;
};

/* --vmas LIST: at most 16 counts, none twice. */
static int bench_vmas(void *args, const struct cli_opt *o, const char *arg)
{
	struct bench_tree_args *a = args;
	char *save = NULL, *tok, buf[256];

	(void)o;
	if (parse_list_check(arg))
		return cli_bad("bad VMA count list '%s': want numbers separated by "
			       "commas, none empty, such as 1000,65530", arg);
	if (strlen(arg) >= sizeof(buf))
		return cli_bad("bad VMA count list '%s': too long (at most 16 "
			       "counts)", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	a->nsizes = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;

		if (a->nsizes == 16 || parse_long(tok, 1, 10000000, &v))
			return cli_bad("bad VMA count list '%s': want numbers from 1 "
				       "to 10000000 such as 1000,65530", arg);
		for (int i = 0; i < a->nsizes; i++)
			if (a->sizes[i] == (size_t)v)
				return cli_bad("VMA count %s given twice", tok);
		a->sizes[a->nsizes++] = (size_t)v;
	}
	return 0;
}

#define T struct bench_tree_args
static const struct cli_opt bench_tree_opts[] = {
	CLI_CALL(bench_vmas, 0, "vmas", "LIST",
		 "the tree sizes, VMAs (default 1000,65530,1000000;\n"
		 "at most 16, each from 1 to 10000000)"),
	CLI_LONG(T, lookups, 0, "lookups", "N", 1000, 1000000000,
		 "lookups at each size (default 2000000)"),
	CLI_HELP_OPT,
	CLI_END
};
#undef T

static int cmd_bench_tree(int argc, char **argv, const struct cli_ctx *ctx);

static const struct cli_command bench_tree_desc = {
	.name = "tree",
	.synopsis = "bench tree [--vmas LIST] [--lookups N]",
	.text = "the VMA trees' lookup and erase+insert costs at several sizes,\n"
		"vmsim's and the kernel's maple tree (where built) interleaved, against\n"
		"a sorted array, and the tree nodes an erase+insert used.\n",
	.opts = bench_tree_opts,
	.exits = cli_exit_write,
	.run = cmd_bench_tree,
};

static int cmd_bench_tree(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct bench_tree_args a = { .sizes = { 1000, 65530, 1000000 },
				     .nsizes = 3, .lookups = 2000000 };
	int first, ret = cli_parse(&bench_tree_desc, argc, argv, &a, &first);

	if (ret)
		return ret == CLI_PARSED_HELP ? 0 : ret;
	if ((ret = cli_no_args(argc, argv, first)) || ctx->dry_run)
		return ret;
	ret = bench_tree_run(stdout, a.sizes, a.nsizes, a.lookups);
	if (ret) {
		fprintf(stderr, "%s: bench tree: %s\n", prog, strerror(-ret));
		return 1;
	}
	return 0;
}

struct bench_fault_args {
	enum uffd_wait_mode waits[4];
	int nwaits, rounds;
	size_t mem, folio;
};

/* --wait LIST: block, poll, busy, uring; none twice. */
static int bench_waits(void *args, const struct cli_opt *o, const char *arg)
{
	struct bench_fault_args *a = args;
	char buf[128], *save = NULL, *tok;

	(void)o;
	if (parse_list_check(arg))
		return cli_bad("bad wait mode list '%s': want names separated by "
			   "commas, none empty, such as block,busy", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	a->nwaits = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (a->nwaits == 4 || uffd_wait_mode_parse(tok, &a->waits[a->nwaits]))
			return cli_bad("unknown wait mode '%s': want block, poll, busy "
				   "or uring", tok);
		for (int i = 0; i < a->nwaits; i++)
			if (a->waits[i] == a->waits[a->nwaits])
				return cli_bad("wait mode '%s' given twice", tok);
		a->nwaits++;
	}
	return 0;
}

static void bench_wait_names(const struct cli_opt *o, FILE *f)
{
	(void)o;
	for (int i = 0; i < UFFD_WAIT_NMODES; i++)
		fprintf(f, "%s%s", i ? " " : "",
			uffd_wait_mode_name((enum uffd_wait_mode)i));
}

/* --folio SIZE: a power of two from 4K to 2M. */
static int bench_folio(void *args, const struct cli_opt *o, const char *arg)
{
	size_t *folio = &((struct bench_fault_args *)args)->folio;

	(void)o;
	if (parse_size(arg, folio) || *folio < 4096 || *folio > (2UL << 20) ||
	    (*folio & (*folio - 1)))
		return cli_bad("bad size '%s' for --folio: want a power of two "
			       "from 4K to 2M", arg);
	return 0;
}

#define T struct bench_fault_args
static const struct cli_opt bench_fault_opts[] = {
	CLI_SIZE(T, mem, 'm', "mem", "SIZE", 4096, 16LL << 30,
		 "what each case writes (default 64M)"),
	CLI_INT(T, rounds, 0, "rounds", "N", 1, 16,
		"interleaved rounds (default 3)"),
	{ .kind = CLI_OPT_CALL, .name = "wait", .metavar = "LIST",
	  .help = "the bare loop's wait modes (default block,busy):\n"
		  "block | poll | busy | uring",
	  .call = bench_waits, .values = bench_wait_names },
	CLI_CALL(bench_folio, 0, "folio", "SIZE",
		 "the uffd cases again with folios of SIZE (4K to 2M,\n"
		 "a power of two)"),
	CLI_HELP_OPT,
	CLI_END
};
#undef T

static int cmd_bench_fault(int argc, char **argv, const struct cli_ctx *ctx);

static const struct cli_command bench_fault_desc = {
	.name = "fault",
	.synopsis = "bench fault [--mem SIZE] [--rounds N] [--wait LIST] [--folio SIZE]",
	.text = "what a fault costs: one thread writes --mem (64M) once per case:\n"
		"the native kernel, a bare uffd loop per wait mode (default block,busy),\n"
		"vmsim's uffd and synthetic paths per scheme, in interleaved rounds\n"
		"(default 3); median rates, and each vmsim case's rate divided by its\n"
		"floor's (the bare loop of its wait mode; native for synthetic).\n",
	.opts = bench_fault_opts,
	.exits = cli_exit_write,
	.run = cmd_bench_fault,
};

static int cmd_bench_fault(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct bench_fault_args a = { .waits = { UFFD_WAIT_BLOCK, UFFD_WAIT_BUSY },
				      .nwaits = 2, .rounds = 3, .mem = 64UL << 20 };
	char err[256];
	int first, ret = cli_parse(&bench_fault_desc, argc, argv, &a, &first);

	if (ret)
		return ret == CLI_PARSED_HELP ? 0 : ret;
	if ((ret = cli_no_args(argc, argv, first)) || ctx->dry_run)
		return ret;
	if (a.folio && a.mem % a.folio) {
		char m[32], fo[32];

		snprintf(err, sizeof(err), "bad --mem: %s is not a multiple of "
			 "--folio (%s)", parse_size_str(m, sizeof(m), a.mem),
			 parse_size_str(fo, sizeof(fo), a.folio));
		return cli_bad("%s", err);
	}
	ret = bench_fault_run(stdout, a.mem, a.rounds, a.waits, a.nwaits, a.folio,
			      err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: bench fault: %s\n", prog, err);
		return 1;
	}
	return 0;
}

/* slab and lock: --rounds only (default 7). */
struct bench_rounds_args {
	int rounds;
};

_Static_assert(BENCH_SLAB_ROUNDS_MAX == 64 && BENCH_LOCK_ROUNDS_MAX == 64,
	       "the table says 64");
static const struct cli_opt bench_rounds_opts[] = {
	CLI_INT(struct bench_rounds_args, rounds, 0, "rounds", "N", 1, 64,
		"interleaved rounds (default 7)"),
	CLI_HELP_OPT,
	CLI_END
};

static int cmd_bench_slab(int argc, char **argv, const struct cli_ctx *ctx);
static int cmd_bench_lock(int argc, char **argv, const struct cli_ctx *ctx);

static const struct cli_command bench_slab_desc = {
	.name = "slab",
	.synopsis = "bench slab [--rounds N]",
	.text = "ns per allocation + free on the slab fast paths, one thread:\n"
		"slub and sheaves, each in restartable sequences and under the CPU's\n"
		"lock (--slab-fastpath), in interleaved rounds; medians.\n",
	.opts = bench_rounds_opts,
	.exits = cli_exit_write,
	.run = cmd_bench_slab,
};

static const struct cli_command bench_lock_desc = {
	.name = "lock",
	.synopsis = "bench lock [--rounds N]",
	.text = "ns per uncontended acquisition + release of a page's range, one\n"
		"thread, read side and write side, every scheme, in interleaved rounds;\n"
		"medians, and ratios to rwsem.\n",
	.opts = bench_rounds_opts,
	.exits = cli_exit_write,
	.run = cmd_bench_lock,
};

/* The rounds of slab or lock: 0 and *rounds, or the parse's status. */
static int bench_rounds(const struct cli_command *d, int argc, char **argv,
			int *rounds)
{
	struct bench_rounds_args a = { .rounds = 7 };
	int first, ret = cli_parse(d, argc, argv, &a, &first);

	*rounds = a.rounds;
	return ret ? ret : cli_no_args(argc, argv, first);
}

static int cmd_bench_slab(int argc, char **argv, const struct cli_ctx *ctx)
{
	int rounds, ret = bench_rounds(&bench_slab_desc, argc, argv, &rounds);

	if (ret || ctx->dry_run)
		return ret == CLI_PARSED_HELP ? 0 : ret;
	ret = bench_slab_run(stdout, rounds);
	if (ret) {
		fprintf(stderr, "%s: bench slab: cannot set up a slab cache: %s\n",
			prog, strerror(-ret));
		return 1;
	}
	return 0;
}

static int cmd_bench_lock(int argc, char **argv, const struct cli_ctx *ctx)
{
	int rounds, ret = bench_rounds(&bench_lock_desc, argc, argv, &rounds);

	if (ret || ctx->dry_run)
		return ret == CLI_PARSED_HELP ? 0 : ret;
	ret = bench_lock_run(stdout, rounds);
	if (ret) {
		fprintf(stderr, "%s: bench lock: cannot make a scheme's lock: %s\n",
			prog, strerror(-ret));
		return 1;
	}
	return 0;
}

const struct cli_command cmd_bench_scale_desc = {
	.name = "scale",
	.synopsis = "bench scale [RUN OPTIONS]",
	.text = "the harness's own ceiling: pft under the none scheme at 1 and\n"
		"-t's task counts, with vmsim run's fault source, mode, uffd and handler\n"
		"options, -i samples each (default 5) of at least --min-sample; each\n"
		"count's Hmean faults/sec and its efficiency against linear (the 1-task\n"
		"rate times min(tasks, CPUs)), and one warning line under 0.8x. Its\n"
		"options are vmsim run's that say how the harness runs\n"
		"('vmsim bench scale --help' lists them).\n",
	.opts_fn = cmd_bench_scale_opts,
	.exits = cli_exit_write,
	.run = cmd_bench_scale,
};

/* The benchmarks: one table for dispatch, help and the names a message
 * lists. */
static const struct cli_command *const benches[] = {
	&bench_tree_desc, &bench_fault_desc, &bench_slab_desc, &bench_lock_desc,
	&cmd_bench_scale_desc, NULL
};
#define NBENCHES ((int)(sizeof(benches) / sizeof(benches[0])) - 1)

static const char *bench_name(int i)
{
	return benches[i]->name;
}

static int cmd_bench(int argc, char **argv, const struct cli_ctx *ctx)
{
	if (argc < 2)
		return cli_unknown("bench: which benchmark?", NULL, bench_name,
				   NBENCHES);
	if (cli_is_help(argv[1]))
		return cli_help("bench");
	for (int i = 0; i < NBENCHES; i++)
		if (!strcmp(argv[1], benches[i]->name))
			return benches[i]->run(argc - 1, argv + 1, ctx);
	return cli_unknown("benchmark", argv[1], bench_name, NBENCHES);
}

const struct cli_command cmd_bench_desc = {
	.name = "bench",
	.summary = "tree: the VMA tree's costs; fault: what a fault costs;\n"
		   "slab: the slab fast paths' costs; scale: the harness's scaling",
	.exits = cli_exit_write,
	.run = cmd_bench,
	.subs = benches,
};
