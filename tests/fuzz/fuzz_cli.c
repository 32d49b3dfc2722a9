/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the command line. The input is split at newlines
 * into arguments and given to cli_main() in dry-run mode (everything is
 * parsed and validated, nothing is run). It must never crash, hang or
 * leak, whatever the arguments.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2], *p;
	int argc = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	argv[argc++] = "vmsim";
	for (p = buf; argc <= MAX_ARGS && p && *p; ) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = 0;
		argv[argc++] = p;
		p = nl ? nl + 1 : NULL;
	}
	argv[argc] = NULL;
	static const struct cli_ctx ctx = { .dry_run = true };

	cli_main_ctx(argc, argv, &ctx);
	free(buf);
	return 0;
}

/* Silence the tool's stdout while fuzzing (libFuzzer reports on stderr). */
__attribute__((constructor)) static void fuzz_quiet(void)
{
	if (!getenv("FUZZ_VERBOSE") && !freopen("/dev/null", "w", stdout))
		perror("freopen");
}
