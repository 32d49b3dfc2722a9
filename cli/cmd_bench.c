/* SPDX-License-Identifier: MIT */
/* vmsim bench tree: the VMA tree's lookup and update costs. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/bench.h"
#include "cli/cmd.h"
#include "util/parse.h"

int cmd_bench(int argc, char **argv, const struct cli_ctx *ctx)
{
	static const struct option opts[] = {
		{ "vmas", required_argument, NULL, 'n' },
		{ "lookups", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	size_t sizes[16] = { 1000, 65530, 1000000 };
	int nsizes = 3, opt, ret;
	long lookups = 2000000;

	if (argc < 2 || strcmp(argv[1], "tree"))
		return bad("unknown benchmark '%s' (want: vmsim bench tree)",
			   argc < 2 ? "" : argv[1]);
	argc--;          /* from here argv[0] is "tree" */
	argv++;
	optind = 0;      /* 0: glibc re-initialises getopt fully */
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		char *save = NULL, *tok, buf[256];

		switch (opt) {
		case 'n':
			if (parse_list_check(optarg))
				return bad("bad VMA count list '%s': want numbers "
					   "separated by commas, none empty, such as "
					   "1000,65530", optarg);
			snprintf(buf, sizeof(buf), "%s", optarg);
			nsizes = 0;
			for (tok = strtok_r(buf, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				long v;

				if (nsizes == 16 || parse_long(tok, 1, 10000000, &v))
					return bad("bad VMA count list '%s': want numbers "
						   "from 1 to 10000000 such as 1000,65530",
						   optarg);
				for (int i = 0; i < nsizes; i++)
					if (sizes[i] == (size_t)v)
						return bad("VMA count %s given twice", tok);
				sizes[nsizes++] = (size_t)v;
			}
			break;
		case 'k':
			if (parse_long(optarg, 1000, 1000000000, &lookups))
				return bad("bad lookup count '%s': want 1000 or more", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return bad_option(argv, opt, opts);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (ctx->dry_run)
		return 0;
	ret = sim_bench_tree(stdout, sizes, nsizes, lookups);
	if (ret) {
		fprintf(stderr, "%s: bench tree: %s\n", prog, strerror(-ret));
		return 1;
	}
	return 0;
}
