/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "sim/cli.h"

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return vmsim_cli(argc, argv);
}
