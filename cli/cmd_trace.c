/* SPDX-License-Identifier: MIT */
/*
 * vmsim trace info FILE   what a trace holds: threads, events by kind,
 *                         the span of addresses, the duration
 * vmsim trace show FILE   the events as text, one a line
 *
 * A trace that is not whole or not a trace ends in one line and exit 2.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "cli/run.h"
#include "trace/perf_conv.h"
#include "trace/trace.h"
#include "base/parse.h"

static int trace_bad(const char *path, const char *err)
{
	char p[256];

	fprintf(stderr, "%s: trace %s: %s\n", prog,
		parse_printable(p, sizeof(p), path), err);
	return EXIT_USAGE;
}

/* The host's mmap_lock in the recording, by cause, when vmsim record
 * left its side file beside the trace (a warning when it cannot be
 * read; nothing when there is none). */
static void host_lock_table(const char *trace)
{
	struct res_host_lock h;
	char path[PATH_MAX], shown[PATH_MAX];
	const char *why = NULL;
	int ret = run_host_lock_read(trace, &h, path, sizeof(path), &why);

	if (ret > 0)
		return;
	if (ret < 0) {
		fprintf(stderr, "%s: warning: %s: %s\n", prog,
			parse_printable(shown, sizeof(shown), path), why);
		return;
	}
	printf("host mmap_lock in the recording (%s)\n",
	       parse_printable(shown, sizeof(shown), path));
	printf("  %-18s %10s %10s\n", "cause", "read", "write");
	for (int k = 0; h.have_causes && k < PC_NCAUSES; k++)
		printf("  %-18s %10" PRIu64 " %10" PRIu64 "%s\n",
		       perf_conv_cause_names[k], h.cause[k][0], h.cause[k][1],
		       perf_conv_replayable((enum perf_cause)k) ? "" :
		       "   (not replayable: left out)");
	if (h.have_causes)
		printf("  %-18s %10" PRIu64 " %10" PRIu64 "\n", "replayable",
		       h.replayable[0], h.replayable[1]);
	else
		printf("  (a version 1 lock file: no causes recorded)\n");
	printf("  %-18s %10" PRIu64 " %10" PRIu64 "  (trylocks failed %"
	       PRIu64 "/%" PRIu64 ")\n", "total", h.acquired[0], h.acquired[1],
	       h.failed[0], h.failed[1]);
}

static int trace_info(const char *path)
{
	struct trace_reader r;
	struct trace_summary s;
	char err[256], shown[PATH_MAX], cmd[4 * TRACE_MAX_COMMENT + 1];
	struct stat st;

	if (trace_open(&r, path, err, sizeof(err)))
		return trace_bad(path, err);
	if (trace_summarize(&r, &s, err, sizeof(err))) {
		trace_close(&r);
		return trace_bad(path, err);
	}
	printf("trace     %s (version %u, %.1f KiB)\n",
	       parse_printable(shown, sizeof(shown), path), r.version,
	       stat(path, &st) ? 0.0 : st.st_size / 1024.0);
	printf("command   %s\n", r.comment[0] ?
	       parse_printable(cmd, sizeof(cmd), r.comment) : "(none)");
	printf("threads   %u\n", s.threads);
	printf("events    %" PRIu64 " over %.6f s\n", s.events, s.span_ns / 1e9);
	for (int k = TR_FAULT; k < TR_END; k++) {
		printf("  %-9s %" PRIu64, trace_kind_name((enum trace_kind)k),
		       s.by_kind[k]);
		if (k == TR_FAULT)
			printf(" (write %" PRIu64 ", on a present page %"
			       PRIu64 ", kernel-mode %" PRIu64 ")", s.fault_write,
			       s.fault_present, s.fault_kernel);
		printf("\n");
	}
	printf("failed    %" PRIu64 " calls returned an error\n", s.failed);
	if (s.addr_lo <= s.addr_hi)
		printf("addresses 0x%" PRIx64 " - 0x%" PRIx64 " (%s)\n",
		       s.addr_lo, s.addr_hi, parse_size_str(err, sizeof(err),
						      s.addr_hi - s.addr_lo));
	trace_close(&r);
	host_lock_table(path);
	return 0;
}

static void prot_str(uint64_t prot, char out[4])
{
	out[0] = prot & PROT_READ ? 'r' : '-';
	out[1] = prot & PROT_WRITE ? 'w' : '-';
	out[2] = prot & PROT_EXEC ? 'x' : '-';
	out[3] = 0;
}

static void show_ev(const struct trace_ev *e)
{
	char p[4];

	printf("%.9f %4u %-8s ", e->t_ns / 1e9, e->thread,
	       trace_kind_name(e->kind));
	switch (e->kind) {
	case TR_THREAD:
		printf("tid %u\n", e->tid);
		return;
	case TR_FAULT:
		printf("0x%" PRIx64 "%s%s%s%s\n", e->addr,
		       e->arg & TRACE_FAULT_WRITE ? " write" : " read",
		       e->arg & TRACE_FAULT_PRESENT ? " present" : "",
		       e->arg & TRACE_FAULT_EXEC ? " exec" : "",
		       e->arg & TRACE_FAULT_KERNEL ? " kernel" : "");
		return;
	case TR_MMAP:
		prot_str(e->arg, p);
		printf("0x%" PRIx64 " len 0x%" PRIx64 " %s flags 0x%" PRIx64
		       " fd %" PRId64 " off 0x%" PRIx64, e->addr, e->len, p,
		       e->arg2, e->fd, e->arg3);
		break;
	case TR_MPROTECT:
		prot_str(e->arg, p);
		printf("0x%" PRIx64 " len 0x%" PRIx64 " %s", e->addr, e->len, p);
		break;
	case TR_MADVISE:
		printf("0x%" PRIx64 " len 0x%" PRIx64 " advice %" PRIu64,
		       e->addr, e->len, e->arg);
		break;
	case TR_MREMAP:
		printf("0x%" PRIx64 " len 0x%" PRIx64 " to len 0x%" PRIx64
		       " flags 0x%" PRIx64 " at 0x%" PRIx64, e->addr, e->len,
		       e->arg, e->arg2, e->arg3);
		break;
	case TR_BRK:
		printf("0x%" PRIx64, e->addr);
		break;
	default:
		printf("0x%" PRIx64 " len 0x%" PRIx64, e->addr, e->len);
		break;
	}
	if (e->ret < 0)
		printf(" = -%s\n", strerrorname_np((int)-e->ret) ?
		       strerrorname_np((int)-e->ret) : "?");
	else
		printf(" = 0x%" PRIx64 "\n", (uint64_t)e->ret);
}

static int trace_show(const char *path)
{
	struct trace_reader r;
	struct trace_ev ev;
	char err[256], shown[PATH_MAX], cmd[4 * TRACE_MAX_COMMENT + 1];
	int ret;

	if (trace_open(&r, path, err, sizeof(err)))
		return trace_bad(path, err);
	printf("# %s: %s\n", parse_printable(shown, sizeof(shown), path),
	       parse_printable(cmd, sizeof(cmd), r.comment));
	printf("# seconds thread kind arguments = result\n");
	while ((ret = trace_next(&r, &ev, err, sizeof(err))) > 0)
		show_ev(&ev);
	trace_close(&r);
	if (ret < 0) {
		fflush(stdout);
		return trace_bad(path, err);
	}
	return 0;
}

static const struct cli_opt trace_opts[] = { CLI_HELP_OPT, CLI_END };

static int cmd_trace(int argc, char **argv, const struct cli_ctx *ctx);

static const struct cli_command trace_info_desc = {
	.name = "info",
	.synopsis = "trace info FILE",
	.text = "what a trace holds (its command, threads, events by kind,\n"
		"addresses, span).\n",
	.opts = trace_opts,
	.exits = cli_exit_write,
	.run = cmd_trace,
};

static const struct cli_command trace_show_desc = {
	.name = "show",
	.synopsis = "trace show FILE",
	.text = "its events as text, one a line.\n",
	.opts = trace_opts,
	.exits = cli_exit_write,
	.run = cmd_trace,
};

static const struct cli_command *const trace_subs[] = {
	&trace_info_desc, &trace_show_desc, NULL
};

const struct cli_command cmd_trace_desc = {
	.name = "trace",
	.summary = "what a trace holds (info), or its events (show)",
	.exits = cli_exit_write,
	.run = cmd_trace,
	.subs = trace_subs,
};

static int cmd_trace(int argc, char **argv, const struct cli_ctx *ctx)
{
	const struct cli_command *sub = NULL;
	int first, ret;

	if (argc > 1 && cli_is_help(argv[1]))
		return cli_help("trace");
	if (argc < 2)
		return cli_bad("trace: %s", "want 'trace info FILE' or 'trace show "
			   "FILE'");
	for (int i = 0; trace_subs[i]; i++)
		if (!strcmp(argv[1], trace_subs[i]->name))
			sub = trace_subs[i];
	if (!sub)
		return cli_bad("trace: unknown subcommand '%s': want info or show",
			   argv[1]);
	ret = cli_parse(sub, argc - 1, argv + 1, NULL, &first);
	if (ret == CLI_PARSED_HELP)
		return 0;
	if (ret)
		return ret;
	if (argc - 1 - first != 1)
		return cli_bad("trace %s: want exactly one FILE", argv[1]);
	if (ctx->dry_run)
		return 0;
	return !strcmp(argv[1], "info") ? trace_info(argv[first + 1])
					: trace_show(argv[first + 1]);
}
