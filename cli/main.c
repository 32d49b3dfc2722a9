/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "cli/cli.h"
#include "sim/host.h"

int main(int argc, char **argv)
{
	host_malloc_setup();
	setvbuf(stdout, NULL, _IOLBF, 0);
	return cli_main(argc, argv);
}
