/* SPDX-License-Identifier: MIT */
/* What a run prints (banner, summary, comparison) and records of its
 * options. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "resfile/results_json.h"
#include "cli/run.h"
#include "base/parse.h"
#include "sim/faults/sources.h"
#include "analysis/compare.h"
#include "base/stats.h"

/* A replay beside its recording: the mm lock's acquisitions an
 * iteration against the host kernel's own in the recorded run. */
static void print_host_lock(const struct res_point *p,
			    const struct res_host_lock *h, const char *scheme)
{
	struct res_host_cmp hc;

	if (!res_host_compare(p, h, &hc))
		return;
	for (int s = 0; s < LS_NSIDES; s++) {
		printf("  %s %-5s %.1f acquired an iteration (%.1f contended); "
		       "the host kernel's mmap_lock in the recording: %llu "
		       "(%.3f ms waited)", hc.cls, s == LS_READ ? "read" : "write",
		       hc.acquired[s], hc.contended[s],
		       (unsigned long long)h->acquired[s], h->wait_ns[s] / 1e6);
		if (h->have_causes) {
			printf(", of which a replay can make %llu",
			       (unsigned long long)h->replayable[s]);
			if (isfinite(hc.ratio_rep[s]))
				printf(": %.2fx that", hc.ratio_rep[s]);
		} else if (isfinite(hc.ratio[s])) {
			printf(", %.2fx the host's", hc.ratio[s]);
		}
		if (isfinite(h->have_causes ? hc.ratio_rep[s] : hc.ratio[s])) {
			char meaning[320];

			cmp_host_lock_meaning(meaning, sizeof(meaning), scheme,
					      s == LS_WRITE, h->have_causes ?
					      hc.ratio_rep[s] : hc.ratio[s]);
			printf(" (%s)", meaning);
		}
		printf("\n");
	}
	if (h->have_causes) {
		char in[512], out[512];

		res_json_host_causes(h, true, in, sizeof(in));
		res_json_host_causes(h, false, out, sizeof(out));
		printf("  the host's by cause (read/write): %s; left out (a "
		       "replay cannot make them): %s\n", in, out);
	}
}

/* One task count's lock classes, as /proc/lock_stat shows them. */
static void print_lockstat(const struct res_point *p)
{
	printf("  %-15s %-5s %12s %12s %12s %12s %12s %12s\n",
	       "lock class", "side", "acquired", "contended", "wait-total",
	       "wait-max", "hold-avg", "hold-max");
	for (int k = 0; k < p->c.nclasses; k++)
		for (int s = 0; s < LS_NSIDES; s++) {
			const struct lockstat_totals *t = &p->c.classes[k].side[s];

			if (!t->acquisitions)
				continue;
			printf("  %-15s %-5s %12llu %12llu %10.3fms %10.3fus "
			       "%10.3fus %10.3fus\n", p->c.classes[k].name,
			       s == LS_READ ? "read" : "write",
			       (unsigned long long)t->acquisitions,
			       (unsigned long long)t->contentions,
			       (double)t->wait_total / 1e6,
			       (double)t->wait_max / 1e3,
			       (double)t->hold_total / 1e3 / (double)t->acquisitions,
			       (double)t->hold_max / 1e3);
		}
	for (int k = 0; k < p->c.nclasses; k++) {
		const struct lockstat_totals *t = p->c.classes[k].side;
		uint64_t n = t[LS_READ].long_holds + t[LS_WRITE].long_holds;

		if (n)
			printf("  %s: %llu hold%s over %d us: the holder was "
			       "preempted, which a kernel spinlock's never is; "
			       "its waiters' time is vmsim's, not the lock's\n",
			       p->c.classes[k].name, (unsigned long long)n,
			       PLURAL(n), LOCKSTAT_LONG_HOLD_NS / 1000);
	}
}

/* One point's details: faults, uffd, latency, host calls, lockstat. */
/* One line a slab cache: its counters that are not 0. */
static void print_slab(const struct res_point *p)
{
	for (int i = 0; p->has_slab && i < SIM_NSLABS; i++) {
		const char *sep = ": ";

		printf("  slab %s", sim_mm_slab_name(i));
		for (int k = 0; k < SLAB_NCOUNTERS; k++) {
			if (!p->slab[i][k])
				continue;
			printf("%s%s %llu", sep, slab_counter_name(k),
			       (unsigned long long)p->slab[i][k]);
			sep = ", ";
		}
		printf("\n");
	}
}
/* "  WHAT latency: mean …, p50 …, … max …" and tail. */
static void print_latency(const char *what, const struct lat_hist *h,
			  const char *tail)
{
	printf("  %s latency: mean %.1f us, p50 %.1f, p90 %.1f, p99 %.1f, "
	       "p99.9 %.1f, max %.1f%s", what, hist_mean(h) / 1e3,
	       hist_quantile(h, 0.5) / 1e3, hist_quantile(h, 0.9) / 1e3,
	       hist_quantile(h, 0.99) / 1e3, hist_quantile(h, 0.999) / 1e3,
	       (double)h->max_ns / 1e3, tail);
}


/* "tasks N: S samples of P passes (+W warm-up); over the R passes": a
 * point's first words (the counters after them cover every pass). */
static void print_point_head(const struct res_point *p)
{
	printf("\ntasks %d: %d sample%s", p->tasks, p->nsamples,
	       PLURAL(p->nsamples));
	if (p->passes > 0)
		printf(" of %d pass%s (+%d warm-up); over the %d pass%s",
		       p->passes, p->passes == 1 ? "" : "es", p->warmup,
		       p->runs, p->runs == 1 ? "" : "es");
}

/* Every touch's latency, and a replay's calls'. */
static void print_latencies(const struct res_point *p)
{
	if (p->lat)
		print_latency("touch", p->lat, "\n");
	if (p->call_lat) {
		char n[48];

		snprintf(n, sizeof(n), " (%llu calls)\n",
			 (unsigned long long)p->call_lat->count);
		print_latency("call", p->call_lat, n);
	}
}

/* A point of the host kernel's: what the host counted, not a model's
 * counters (it has none). */
static void print_host_point(const struct res_point *p)
{
	print_point_head(p);
	printf(", %llu page%s touched, %llu host fault%s taken by the tasks, "
	       "%llu SIGSEGV\n", (unsigned long long)p->touches,
	       PLURAL(p->touches), (unsigned long long)p->host_faults,
	       PLURAL(p->host_faults), (unsigned long long)p->segv);
	print_latencies(p);
	/* System-wide, over the timed passes (set-up and teardown in). */
	for (int k = 0; k < p->vmstat.n; k++)
		printf("%s%s %llu%s", k ? "" : "  /proc/vmstat (timed passes, "
		       "whole machine): ", p->vmstat.name[k],
		       (unsigned long long)p->vmstat.v[k],
		       k + 1 < p->vmstat.n ? ", " : "\n");
}

static void print_point(const struct res_point *p, const struct run_cfg *c,
			const char *scheme)
{
	struct res_fault_split split;

	print_point_head(p);
	printf(", %llu page%s touched, %llu fault%s placed %llu page%s, "
	       "%llu SIGSEGV\n",
	       (unsigned long long)p->touches, PLURAL(p->touches),
	       (unsigned long long)res_faults(&p->c), PLURAL(res_faults(&p->c)),
	       (unsigned long long)p->c.fault_pages, PLURAL(p->c.fault_pages),
	       (unsigned long long)p->segv);
	if (p->c.nsrc) {
		/* The source's own counters, as the result names them. */
		printf("  %s:", c->mm.source->name);
		for (int k = 0; k < p->c.nsrc; k++)
			printf("%s %s %llu", k ? "," : "", p->c.src_names[k],
			       (unsigned long long)p->c.src_values[k]);
		printf("\n");
	}
	print_latencies(p);
	if (res_fault_split(p, &split))
		printf("  mean fault %.2f us = lock wait %.2f + lock hold "
		       "%.2f + the rest %.2f (the lock's share %.0f%%)\n",
		       split.mean / 1e3, split.lock_wait / 1e3,
		       split.lock_hold / 1e3, split.rest / 1e3,
		       100 * split.lock_share);
	if (p->has_frames)
		for (int k = 0; k < FRAMES_NCOUNTERS; k++)
			printf("%s%s %llu%s", k ? "" : "  frames: ",
			       frames_counter_name(k),
			       (unsigned long long)p->frames[k],
			       k + 1 < FRAMES_NCOUNTERS ? ", " : "\n");
	print_slab(p);
	printf("  host (timed phase): mmap %llu, munmap %llu, mprotect "
	       "%llu, mremap %llu, brk %llu, madvise %llu\n",
	       (unsigned long long)p->host_calls[HOST_MMAP],
	       (unsigned long long)p->host_calls[HOST_MUNMAP],
	       (unsigned long long)p->host_calls[HOST_MPROTECT],
	       (unsigned long long)p->host_calls[HOST_MREMAP],
	       (unsigned long long)p->host_calls[HOST_BRK],
	       (unsigned long long)p->host_calls[HOST_MADVISE]);
	for (int k = 0; k < p->c.ncounters; k++)
		printf("%s%s %llu%s", k ? "" : "  ", p->c.counter_names[k],
		       (unsigned long long)p->c.counters[k],
		       k + 1 < p->c.ncounters ? ", " : "\n");
	print_lockstat(p);
	print_host_lock(p, &c->host_lock, scheme);
}

/* "noise tasks 1: steal 0.0% (max 0.1%), others 0.02 CPUs (max 0.05),
 * 130 involuntary switches/s; faults/sec: sample 3 an outlier, bimodal". */
static void print_noise(const struct res_file *r, const struct res_point *p)
{
	double st = 0, stmax = 0, ot = 0, otmax = 0, iv = 0;
	int n = 0, m = 0;
	struct stats_shape sh;

	for (int i = 0; i < p->nsamples; i++) {
		const struct res_noise *z = &p->noise[i];

		if (!isfinite(z->steal) || !isfinite(z->others))
			continue;
		st += z->steal;
		ot += z->others;
		iv += isfinite(z->ivcsw) ? z->ivcsw : 0;
		stmax = fmax(stmax, z->steal);
		otmax = fmax(otmax, z->others);
		n++;
	}
	while (m < r->nmetrics - 1 && !r->metrics[m].primary)
		m++;
	stats_shape(p->samples[m], p->nsamples, &sh);
	printf("noise tasks %d: ", p->tasks);
	if (n)
		printf("steal %.1f%% (max %.1f%%), others %.2f CPUs (max %.2f), "
		       "%.0f involuntary switches/s", 100 * st / n, 100 * stmax,
		       ot / n, otmax, iv / n);
	else
		printf("not measured");
	if (sh.noutliers || sh.bimodal) {
		int k = 0;

		printf("; %s:", r->metrics[m].name);
		if (sh.noutliers)
			printf(" sample%s", sh.noutliers == 1 ? "" : "s");
		for (int i = 0; i < p->nsamples && i < 64; i++)
			if (sh.outlier[i])
				printf("%s %d", k++ ? "," : "", i + 1);
		if (sh.noutliers)
			printf(" far out");
		if (sh.bimodal)
			printf("%s in two groups (bimodal)", sh.noutliers ? ";" : "");
	}
	printf("\n");
}

/* The mean of metric m's samples at p that the run did not flag (as
 * compare computes it): 0 when none is left. */
static double good_mean(const struct res_point *p, int m, bool higher)
{
	double *x = malloc((size_t)(p->nsamples ? p->nsamples : 1) * sizeof(*x)), v;
	size_t n = 0;

	if (!x)
		return 0;
	for (int k = 0; k < p->nsamples; k++)
		if (p->flag[k] == RES_FLAG_NONE)
			x[n++] = p->samples[m][k];
	v = higher ? stats_hmean(x, n) : stats_amean(x, n);
	free(x);
	return isnan(v) ? 0.0 : v;
}

void run_print_summary(const struct res_file *r, const struct run_cfg *c,
			  bool brief)
{
	printf("\n%-6s", "tasks");
	for (int m = 0; m < r->nmetrics; m++) {
		char h[48];

		snprintf(h, sizeof(h), "%s %s", r->metrics[m].higher_better ?
			 "Hmean" : "Amean", r->metrics[m].name);
		printf(" %18s", h);
	}
	printf("\n");
	for (int i = 0; i < r->npoints; i++) {
		const struct res_point *p = &r->points[i];

		printf("%-6d", p->tasks);
		for (int m = 0; m < r->nmetrics; m++)
			printf(" %18.4f", good_mean(p, m,
						    r->metrics[m].higher_better));
		if (res_point_nflagged(p))
			printf("  [%d of %d sample%s flagged, left out]",
			       res_point_nflagged(p), p->nsamples,
			       PLURAL(p->nsamples));
		printf("\n");
	}
	/* Samples that are not measurements, said where the numbers are. */
	for (int i = 0; i < r->npoints; i++) {
		const struct res_point *p = &r->points[i];

		for (int k = 0; k < p->nsamples; k++)
			if (p->flag[k])
				printf("flagged: tasks %d, sample %d (wall %.2f s): %s\n",
				       p->tasks, k + 1, p->wall[k],
				       res_flag_reason(p->flag[k]));
	}
	for (int i = 0; i < r->npoints && !brief; i++)
		print_noise(r, &r->points[i]);
	for (int i = 0; i < r->npoints && !brief; i++)
		if (!strcmp(r->scheme, kernel_lock_ops.name))
			print_host_point(&r->points[i]);
		else
			print_point(&r->points[i], c, r->scheme);
}

void run_print_source_errors(const struct res_file *r, const char *label)
{
	static const char *const what[SIM_SRC_NOPS] = {
		[SIM_SRC_ZAP] = "zaps (MADV_DONTNEED) failed: pages may have "
			"stayed mapped after munmap or madvise, so later "
			"touches of them did not fault",
		[SIM_SRC_PROTECT] = "write-protects failed: a protection "
			"mprotect set was not enforced",
		[SIM_SRC_REFUSE] = "refusals of a bad access could not be sent "
			"(the watchdog answered those faults)",
		[SIM_SRC_WAKE] = "wakes of a resolved fault failed (the "
			"watchdog answered those faults)",
	};
	uint64_t reads = 0;

	for (int k = 0; k < SIM_SRC_NOPS; k++) {
		uint64_t n = 0;
		int e = 0;

		for (int i = 0; i < r->npoints; i++) {
			n += r->points[i].c.src_err[k];
			if (!e)
				e = r->points[i].c.src_errno[k];
		}
		if (n)
			fprintf(stderr, "%s: warning: %s%s%llu %s (first: %s)\n",
				prog, label ? label : "", label ? ": " : "",
				(unsigned long long)n, what[k], strerror(e));
	}
	for (int i = 0; i < r->npoints; i++)
		reads += res_source_counter(&r->points[i].c, "read_errors");
	if (reads)
		fprintf(stderr, "%s: warning: %s%s%llu reads of the userfaultfd "
			"failed and were retried (the faults behind them waited)\n",
			prog, label ? label : "", label ? ": " : "",
			(unsigned long long)reads);
}

/* FILE for one scheme, FILE-<scheme>.json (FILE without .json) for many. */
int run_result_path(char *out, size_t len, const char *json,
		    const char *scheme)
{
	size_t n = strlen(json);

	if (!scheme)
		return (size_t)snprintf(out, len, "%s", json) < len ? 0 :
		       -ENAMETOOLONG;
	if (n > 5 && !strcmp(json + n - 5, ".json"))
		n -= 5;
	return (size_t)snprintf(out, len, "%.*s-%s.json", (int)n, json,
				scheme) < len ? 0 : -ENAMETOOLONG;
}

/* DIR/<scheme>.json in a results directory. */
int run_dir_result_path(char *out, size_t len, const char *dir,
			const char *scheme)
{
	size_t n = strlen(dir);

	return (size_t)snprintf(out, len, "%s%s%s.json", dir, n &&
				dir[n - 1] == '/' ? "" : "/", scheme) < len ? 0 :
	       -ENAMETOOLONG;
}

/* What the schemes of the run chose differently themselves (not the
 * user: compare does not warn of it), said once. */
static void print_scheme_choices(const struct run_cfg *c)
{
	int n = runner_ntargets(c), ntype = 0, nmodel = 0;

	if (c->mm.vma_free != SIM_VMA_FREE_SCHEME || !runner_varies(c, RUN_VARY_SCHEME))
		return;
	/* The host kernel frees its own VMAs: not a choice of the models. */
	for (int k = 0; k < n; k++)
		if (!runner_target_lock(c, k)->host) {
			nmodel++;
			ntype += sim_vma_free_typesafe(c->mm.vma_free,
						       runner_target_lock(c, k));
		}
	if (!ntype || ntype == nmodel)
		return;
	for (int t = 1; t >= 0; t--) {
		printf(t ? ";\n  VMAs freed as each scheme frees them: typesafe ("
		       : ") and by RCU (");
		for (int k = 0, first = 1; k < n; k++)
			if (!runner_target_lock(c, k)->host &&
			    sim_vma_free_typesafe(c->mm.vma_free,
						  runner_target_lock(c, k)) == t) {
				printf("%s%s", first ? "" : ", ",
				       runner_target_label(c, k));
				first = 0;
			}
	}
	printf(")");
}

/* The banner's simulated components, where not the defaults: slabs,
 * RCU, how VMAs are freed, what mprotect locks, tree nodes. */
static void print_components(const struct run_cfg *c)
{
	for (int i = 0; runner_varies(c, RUN_VARY_SLAB) && i < c->ntargets; i++)
		printf("%s%s", i ? "," : ", slabs ",
		       slab_kind_name(c->targets[i].slab));
	if (!runner_varies(c, RUN_VARY_SLAB) && c->targets[0].slab != SLAB_MALLOC)
		printf(", %s slab", slab_kind_name(c->targets[0].slab));
	for (int i = 0; runner_varies(c, RUN_VARY_RCU_FREE) && i < c->ntargets; i++)
		printf("%s%s", i ? "," : ", rcu_free by ",
		       slab_rcu_free_name(c->targets[i].rcu_free));
	if (!runner_varies(c, RUN_VARY_RCU_FREE) &&
	    (c->targets[0].slab == SLAB_SHEAVES || c->rcu_free_given))
		printf(", rcu_free by %s",
		       slab_rcu_free_name(c->targets[0].rcu_free));
	if (c->mm.vma_free != SIM_VMA_FREE_SCHEME)
		printf(", %s VMAs", sim_vma_free_name(c->mm.vma_free));
	for (int i = 0; runner_varies(c, RUN_VARY_MPROTECT) && i < c->ntargets; i++)
		printf("%s%s", i ? "," : ", mprotect ranges ",
		       lock_mprotect_range_names[c->targets[i].mprotect]);
	if (!runner_varies(c, RUN_VARY_MPROTECT) && c->mprotect_given)
		printf(", mprotect range %s",
		       lock_mprotect_range_names[c->targets[0].mprotect]);
	if (c->kfree_rcu_given)
		printf(", kfree_rcu %s", sim_kfree_rcu_name(c->mm.kfree_rcu));
	if (c->rcu_lazy_given)
		printf(", lazy RCU %u sheaves or %llu ms",
		       c->mm.rcu_lazy_max ? c->mm.rcu_lazy_max : RCU_LAZY_MAX,
		       (unsigned long long)(c->mm.rcu_lazy_flush_ms ?
			c->mm.rcu_lazy_flush_ms : RCU_LAZY_FLUSH_NS / 1000000));
	for (int i = 0; runner_varies(c, RUN_VARY_TREE) && i < c->ntargets; i++)
		printf("%s%s", i ? "," : ", VMA trees ",
		       vma_tree_kind_name(c->targets[i].tree));
	if (!runner_varies(c, RUN_VARY_TREE))
		printf(", %s VMA tree",
		       vma_tree_kind_name(c->targets[0].tree));
	if (c->mm.tree_spares)
		printf(", tree nodes from kept spares");
	if ((c->targets[0].slab != SLAB_MALLOC || runner_varies(c, RUN_VARY_SLAB)) &&
	    !runner_slab_fast_rseq(c))
		printf(", slab fast paths locked");
	if (c->mm.rcu_cbs == SIM_RCU_CBS_ONE)
		printf(", one RCU callback thread");
}

void run_print_host_kernel(const struct run_cfg *c,
			   const struct res_host_kernel *k)
{
	bool host = false;

	for (int i = 0; i < c->ntargets; i++)
		host |= c->targets[i].lock->host;
	if (!host || !k->have)
		return;
	printf("kernel column: the host, Linux %s, %s; %s %.1f us a page\n",
	       k->release, k->per_vma_lock > 0 ? "per-VMA locks (its faults: "
	       "pervma's design)" : k->per_vma_lock == 0 ? "no per-VMA locks "
	       "(its faults: rwsem's design)" : "per-VMA locks not known",
	       k->vm ? "a virtual machine whose first touch costs" :
	       "a first touch costs", k->first_touch_us);
}

void run_print_banner(const struct run_cfg *c)
{
	printf("vmsim %s: workload %s, lock ", VMSIM_VERSION, c->wl->name);
	for (int i = 0; i < (runner_varies(c, RUN_VARY_SCHEME) ? c->ntargets : 1); i++)
		printf("%s%s", i ? "," : "", c->targets[i].lock->name);
	printf(", fault source %s",
	       c->mm.source == &uffd_fault_source ? "uffd" : "synthetic");
	if (c->mm.source == &uffd_fault_source) {
		bool split = !c->processes && c->uffd_split != UFFD_SPLIT_SHARED;

		printf(" (%s wait, ", uffd_wait_mode_name(c->uffd.wait));
		if (c->uffd.nhandlers)
			printf("%d handler%s%s", c->uffd.nhandlers,
			       c->uffd.nhandlers == 1 ? "" : "s",
			       split ? " a uffd" : "");
		else
			printf("one handler per task");
		if (split)
			printf(", one uffd per task%s",
			       c->uffd_split == UFFD_SPLIT_AUTO ? " with 2 or more" : "");
		printf(")");
	}
	printf(",\n  %s mode%s", c->processes ? "processes" : "threads",
	       c->pin ? " (pinned)" : "");
	if (c->mm.source == &uffd_fault_source && c->handler_cpu != HANDLER_CPU_ANY)
		printf(", handlers on %s CPU",
		       c->handler_cpu == HANDLER_CPU_SAME ? "the task's" : "the next");
	if (c->mm.folio_size > SIM_PAGE_SIZE)
		printf(", %zuK folios", c->mm.folio_size >> 10);
	if (c->frames != FRAMES_NONE)
		printf(", %s frames (%zu MiB%s)", frames_mode_name(c->frames),
		       c->phys >> 20, c->frames == FRAMES_PCP ?
		       (c->bulk_free == FRAMES_ONEPASS ? ", one-pass bulk free" :
			", two-pass bulk free") : "");
	print_components(c);
	if (c->wl->min_mem && c->wo.mem % (1UL << 20))
		printf(", mem %zu KiB", c->wo.mem >> 10);
	else if (c->wl->min_mem)
		printf(", mem %zu MiB", c->wo.mem >> 20);
	if (c->wl->min_mem && (c->processes || c->wl->loop))
		printf(" per task");
	printf(", %d iteration%s", c->wo.iterations, PLURAL(c->wo.iterations));
	if (c->wl->background)
		printf(", %d writer%s", c->wo.writers, c->wo.writers == 1 ? "" : "s");
	if (c->wl->options & WL_OPT_MAPS)
		printf(", %d reader%s of %s (%s)", c->wo.readers,
		       PLURAL(c->wo.readers),
		       run_optlist[RUN_O_MAPS_READ].choices[c->wo.maps_read],
		       c->wo.maps_mm_lock ? "mmap_read_lock" : "per-VMA where the scheme has it");
	if (runner_ntargets(c) > 1)
		printf(";\n  %s interleaved iteration by iteration",
		       runner_vary_name(c->vary));
	print_scheme_choices(c);
	printf("\n");
	fflush(stdout);
}

/* Several schemes in one run: the comparison table, rwsem-first order as
 * given (the first is the base). */
void run_print_comparison(struct res_file *r, int n, bool brief,
			  bool verdicts_only)
{
	struct cmp_file f[RUNNER_MAX_SCHEMES];
	struct cmp_opts o = { .format = CMP_TEXT, .test = CMP_WELCH,
			      .brief = brief, .verdicts = true,
			      .verdicts_only = verdicts_only };
	char err[256];
	int ok = 0;

	for (int i = 0; i < n; i++) {
		if (cmp_from_json(res_json_of(&r[i], NULL, NULL, NULL), r[i].label ? r[i].label :
				  r[i].scheme, &f[ok], err,
				  sizeof(err)))
			break;
		ok++;
	}
	if (ok == n) {
		if (!verdicts_only)
			printf("\n");
		cmp_print(stdout, f, n, &o);
	}
	for (int i = 0; i < ok; i++)
		cmp_file_free(&f[i]);
}
