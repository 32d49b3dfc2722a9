/* SPDX-License-Identifier: MIT */
/* vmsim-compare: `vmsim compare` alone, linked with nothing of the
 * simulator (analysis/ and the value parsers only). */
#include <getopt.h>

#include "cli/cmd.h"
#include "base/outstream.h"

int main(int argc, char **argv)
{
	const struct cli_ctx ctx = { .dry_run = false };

	cli_stdout_init();
	opterr = 0;      /* getopt's complaints are ours: cli_bad_option() */
	return cli_stdout_close(cmd_compare_desc.run(argc, argv, &ctx));
}
