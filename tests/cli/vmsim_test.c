/* SPDX-License-Identifier: MIT */
/*
 * vmsim-test: vmsim with the test hooks the suites need, which vmsim
 * itself does not have (no production path reads them):
 *   VMSIM_TEST_STALL_FAULT=N   the N-th fault is left unanswered (the
 *                              watchdog's test: "a fault nobody answers")
 *   VMSIM_TEST_PHYS=BYTES      the simulated zone is this small (a run
 *                              that runs out of frames mid-run)
 */
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "base/outstream.h"
#include "sim/host.h"

static void test_hooks(struct run_cfg *c)
{
	const char *stall = getenv("VMSIM_TEST_STALL_FAULT");
	const char *phys = getenv("VMSIM_TEST_PHYS");

	if (stall)
		c->uffd.test_stall_at = atol(stall);
	if (phys && c->frames != FRAMES_NONE)
		c->phys = (size_t)atol(phys);
}

int main(int argc, char **argv)
{
	host_malloc_setup();
	cli_stdout_init();
	cmd_run_test_hooks = test_hooks;
	return cli_stdout_close(cli_main(argc, argv));
}
