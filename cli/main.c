/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "cli/cli.h"
#include "uffd/host.h"

int main(int argc, char **argv)
{
	host_malloc_setup();
	setvbuf(stdout, NULL, _IOLBF, 0);
	return vmsim_cli(argc, argv);
}
