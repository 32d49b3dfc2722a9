/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "cli/cli.h"
#include "base/outstream.h"
#include "sim/host.h"

int main(int argc, char **argv)
{
	host_malloc_setup();
	cli_stdout_init();
	return cli_stdout_close(cli_main(argc, argv));
}
