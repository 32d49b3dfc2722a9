/* SPDX-License-Identifier: MIT */
/* vmsim check: what this machine offers (userfaultfd, io_uring, NUMA). */
#include <liburing.h>
#include <numa.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench/bench.h"
#include "cli/cmd.h"
#include "cli/record.h"
#include "sim/faults/sources.h"
#include "sim/vma_tree.h"
#include "uffd/uffd.h"

static void check_uffd(void)
{
	struct uffd_probe u;

	uffd_probe(&u);
	if (u.open_err) {
		printf("userfaultfd:   NOT available: userfaultfd(2): %s; "
		       "/dev/userfaultfd: %s\n", strerror(-u.open_err),
		       u.dev_err ? strerror(u.dev_err) : "ioctl refused");
		printf("               vm.unprivileged_userfaultfd = %d; remedies: "
		       "sysctl vm.unprivileged_userfaultfd=1, access to "
		       "/dev/userfaultfd, or --fault-source synthetic\n", u.sysctl);
		return;
	}
	if (u.api_err) {
		printf("userfaultfd:   opened but UFFDIO_API failed: %s\n",
		       strerror(-u.api_err));
		return;
	}
	printf("userfaultfd:   available (via %s)\n",
	       u.info.via_dev ? "/dev/userfaultfd" : "the userfaultfd syscall");
	printf("uffd features:");
	for (int b = 0; b < 64; b++)
		if (u.info.features & (1ull << b)) {
			const char *n = uffd_feature_name(b);

			if (n)
				printf(" %s", n);
			else
				printf(" bit%d", b);
		}
	printf("\n");
	printf("uffd source:   %s\n",
	       (u.info.features & SIM_UFFD_FEATURES) == SIM_UFFD_FEATURES ?
	       "yes (thread ids, write-protect faults on anonymous memory)" :
	       "no (needs Linux 5.7; use --fault-source synthetic)");
}

/* A first touch of a 4 KiB anonymous page on bare-metal x86: the fault's
 * entry and exit, a zeroed page, its PTE — 0.5-1 us (issue 52 measured
 * 0.65 us). Far above it, the machine's own fault cost is in every
 * figure. */
#define CHECK_BARE_TOUCH_LO_US 0.5
#define CHECK_BARE_TOUCH_HI_US 1.0
#define CHECK_BARE_TOUCH_FAR 3.0          /* times the high end */

static void check_native_fault(double us)
{
	if (us <= 0)
		return;
	if (us < CHECK_BARE_TOUCH_HI_US * CHECK_BARE_TOUCH_FAR) {
		printf("native fault:  %.2f us: near a bare-metal x86 first touch "
		       "(%.1f-%.1f us)\n", us, CHECK_BARE_TOUCH_LO_US,
		       CHECK_BARE_TOUCH_HI_US);
		return;
	}
	printf("native fault:  %.2f us: %.0f-%.0fx a bare-metal x86 first touch "
	       "(%.1f-%.1f us). Every fault here carries that cost, the "
	       "models' (each installs a page) and the kernel column's alike: "
	       "rates are far below a bare-metal machine's, and a scheme's "
	       "lock work is a smaller share of each fault, so differences "
	       "between schemes read smaller than they would there. Compare "
	       "ratios within one run, not rates across machines\n", us,
	       us / CHECK_BARE_TOUCH_HI_US, us / CHECK_BARE_TOUCH_LO_US,
	       CHECK_BARE_TOUCH_LO_US, CHECK_BARE_TOUCH_HI_US);
}

/* The host kernel as -l kernel runs it, and what may spread identical
 * runs on it. */
static void check_host_kernel(const struct res_host_kernel *k)
{
	printf("per-VMA locks: %s (CONFIG_PER_VMA_LOCK, %s): -l kernel's "
	       "faults take %s\n", k->per_vma_lock < 0 ? "not known" :
	       k->per_vma_lock ? "yes" : "no", k->per_vma_from,
	       k->per_vma_lock == 0 ? "mmap_lock (compare with rwsem)" :
	       "a VMA's lock (compare with pervma)");
	printf("first touch:   %.2f us a page (fresh anonymous memory), %.2f us "
	       "again after MADV_DONTNEED%s%s\n", k->first_touch_us,
	       k->retouch_us, k->vm ? "; a virtual machine: " : "",
	       !k->vm ? "" : k->retouch_us < k->first_touch_us / 2 ?
	       "most of a first touch is the host backing the page" :
	       "every fault costs about this here, not only a page the host "
	       "has not backed (a guest's page-table update may trap to the "
	       "hypervisor)");
	check_native_fault(k->first_touch_us);
	/* Named as candidates for what spreads identical runs; measured
	 * here, neither did (docs/figures.md, "The host kernel as a
	 * column"): the spread is the host's, shared by the kernel column
	 * and the models of one process alike. */
	if (k->page_reporting_order >= 0)
		printf("page reporting: on (order %d): free blocks of that order "
		       "go back to the host, whose next touch of them costs it a "
		       "fault\n", k->page_reporting_order);
	if (k->damon)
		printf("DAMON:         running (kdamond): it samples the memory "
		       "of processes, and may reclaim or split their pages\n");
	if (k->vm)
		printf("spread:        identical runs on a VM can differ by more "
		       "than one run's samples do: compare schemes within one "
		       "run (interleaved), with -l kernel beside them\n");
}

/* What vmsim record needs, each with its fix. */
static void check_record(void)
{
	struct record_env e;

	record_probe(&e, false);
	printf("perf:          %s\n", e.perf ? "installed" :
	       "NOT installed: vmsim record needs it (apt-get install linux-perf)");
	if (e.tracefs)
		printf("tracefs:       %s%s\n", e.tracefs,
		       e.missing ? ": but no tracepoint " : "");
	else
		printf("tracefs:       not mounted (vmsim record mounts it as root; "
		       "else: mount -t tracefs nodev /sys/kernel/tracing)\n");
	if (e.missing)
		printf("               %s: this kernel cannot be recorded\n",
		       e.missing);
	else if (e.tracefs && !e.lock_events)
		printf("               no mmap_lock:* tracepoints: record "
		       "leaves out the host's lock\n");
	printf("perf_event_paranoid: %ld%s\n", e.paranoid, e.uid_may_trace ?
	       (geteuid() == 0 ? " (root: tracepoints readable)" :
		" (tracepoints readable)") :
	       ": uid may not read tracepoints (run as root, or "
	       "sysctl kernel.perf_event_paranoid=-1)");
}

void cmd_check_tree_source(FILE *f)
{
	if (vma_tree_maple_built())
		fprintf(f, "VMA tree: the kernel's maple tree, compiled from Linux "
			"%s (%s); a binary with it is GPL-2.0 (--tree vmsim: "
			"vmsim's own B-tree beside it)\n",
			vma_tree_maple_release(), vma_tree_maple_origin());
	else
		fprintf(f, "VMA tree: vmsim's own B-tree only: built without a "
			"kernel source (install linux-source-6.12 and build "
			"again, or -DVMSIM_KERNEL_SRC=DIR)\n");
}

static const struct cli_opt check_opts[] = { CLI_HELP_OPT, CLI_END };

static int cmd_check(int argc, char **argv, const struct cli_ctx *ctx);

const struct cli_command cmd_check_desc = {
	.name = "check",
	.summary = "what this machine offers (userfaultfd, io_uring, CPUs, perf)",
	.synopsis = "check",
	.text = "What this machine offers: userfaultfd and its features, io_uring, CPUs\n"
		"and NUMA nodes, the cost of a cross-CPU wake-up.\n",
	.opts = check_opts,
	.exits = cli_exit_info,
	.run = cmd_check,
};

static int cmd_check(int argc, char **argv, const struct cli_ctx *ctx)
{
	struct io_uring ring;
	struct host_probe hp;
	struct utsname u;
	int first, ret = cli_parse(&cmd_check_desc, argc, argv, NULL, &first);

	if (ret)
		return ret == CLI_PARSED_HELP ? 0 : ret;
	if ((ret = cli_no_args(argc, argv, first)) || ctx->dry_run)
		return ret;
	uname(&u);
	printf("kernel:        %s %s\n", u.release, u.machine);
	check_uffd();
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret == 0) {
		io_uring_queue_exit(&ring);
		printf("io_uring:      available\n");
	} else {
		printf("io_uring:      not available: %s\n", strerror(-ret));
	}
	printf("CPUs:          %ld online\n", sysconf(_SC_NPROCESSORS_ONLN));
	printf("NUMA nodes:    %d\n",
	       numa_available() < 0 ? 1 : numa_num_configured_nodes());
	check_record();
	probe_host(&hp);
	if (hp.wake_us > 0)
		printf("wake-up:       %.1f us from CPU 0 to CPU 1 (futex ping-pong; "
		       "an idle vCPU's wake-up is a hypervisor exit)\n", hp.wake_us);
	if (hp.uffd_block_us > 0)
		printf("uffd fault:    %.1f us with a blocking handler, %.1f us with "
		       "a busy one (bare loop, one thread)\n", hp.uffd_block_us,
		       hp.uffd_busy_us);
	check_host_kernel(&hp.kernel);
	cmd_check_tree_source(stdout);
	return 0;
}
