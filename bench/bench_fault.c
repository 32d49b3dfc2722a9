/* SPDX-License-Identifier: MIT */
/*
 * vmsim bench fault: what one page fault costs on this host, and how much
 * of it is vmsim's. Every case writes each page of --mem once from one
 * thread and is timed from the first touch to the last:
 *
 *   native            the host kernel's anonymous faults, no userfaultfd
 *   bare-WAIT         userfaultfd with the smallest handler there is: one
 *                     thread reading one message at a time (WAIT: a
 *                     blocking read, a non-blocking read in a loop, or
 *                     one io_uring read submitted and waited for in one
 *                     io_uring_enter) and answering with UFFDIO_COPY of a
 *                     zero page — the floor of any uffd fault path
 *   uffd-WAIT SCHEME  vmsim's own path (handler pool, fault path, lock)
 *                     with one handler in that wait mode
 *   synthetic SCHEME  vmsim's fault path on the faulting thread
 *
 * With --folio SIZE, bare-WAIT and uffd-WAIT run again with anonymous
 * folios of that size (one fault places a folio, one UFFDIO_COPY);
 * rates are pages per second throughout, and every case is also given
 * as a ratio to the native kernel's page rate.
 *
 * The cases run interleaved, round after round (this VM's rate moves
 * with what the other vCPU does), and each rate is given as the median of
 * the rounds with its ratio to its floor (native for synthetic, bare-WAIT
 * for uffd-WAIT), also a median of per-round ratios.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench/bench.h"
#include "base/parse.h"
#include "sim/faults/present.h"
#include "sim/faults/sources.h"
#include "sim/faults/uffd_source.h"
#include "sim/fault.h"
#include "base/stats.h"
#include "sim/host.h"
#include "uffd/resolve.h"
#include "uffd/uffd.h"
#include "base/clock.h"

#define BF_MAX_ROUNDS 16
#define BF_MAX_CASES  64

enum bf_kind { BF_NATIVE, BF_BARE, BF_SIM };

struct bf_case {
	char name[48];
	enum bf_kind kind;
	enum uffd_wait_mode wait;
	const struct lock_ops *lock;
	const struct fault_source_ops *src;
	size_t folio;                    /* bytes one fault places */
	int base;                        /* index of the floor case, or -1 */
	double rate[BF_MAX_ROUNDS];
};

/* Write each page of [a, a + len) once; faults per second. */
static double touch_all(unsigned long a, size_t len)
{
	uint64_t t0 = mono_ns();

	for (unsigned long p = a; p < a + len; p += SIM_PAGE_SIZE)
		*(volatile char *)p = 1;
	return (double)(len / SIM_PAGE_SIZE) * 1e9 / (double)(mono_ns() - t0);
}

static int bf_native(size_t len, double *rate)
{
	void *a = host_mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (a == MAP_FAILED)
		return -errno;
	*rate = touch_all((unsigned long)a, len);
	host_munmap(a, len);
	return 0;
}

/* [*a, *a + len) aligned to folio inside a mapping of len + folio. */
static unsigned long folio_align(unsigned long a, size_t folio)
{
	return (a + folio - 1) & ~(unsigned long)(folio - 1);
}

struct bare {
	int fd;
	size_t folio;                    /* bytes a fault places */
	long want;                       /* faults to answer, then leave */
	bool busy;
	struct io_uring *ring;           /* uring: reads through it */
	int err;
};

/* One message: read(2), or one io_uring read waited for in the same
 * io_uring_enter that submits it. The size read, or -errno. */
static ssize_t bare_read(struct bare *b, struct uffd_msg *m)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int ret;

	if (!b->ring)
		return read(b->fd, m, sizeof(*m)) < 0 ? -errno : (ssize_t)sizeof(*m);
	sqe = io_uring_get_sqe(b->ring);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_read(sqe, b->fd, m, sizeof(*m), 0);
	ret = io_uring_submit_and_wait(b->ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_peek_cqe(b->ring, &cqe);
	if (ret < 0)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(b->ring, cqe);
	return ret;
}

/* The smallest handler: one message a read, one UFFDIO_COPY a fault
 * (of the folio around the address). */
static void *bare_handler(void *arg)
{
	struct bare *b = arg;
	struct uffd_counters c = { 0 };
	struct uffd_msg m;

	for (long done = 0; done < b->want;) {
		ssize_t n = bare_read(b, &m);

		if (n == -EAGAIN || n == -EINTR)
			continue;        /* busy: spin */
		if (n != (ssize_t)sizeof(m)) {
			b->err = n < 0 ? (int)n : -EIO;
			return NULL;
		}
		if (m.event != UFFD_EVENT_PAGEFAULT)
			continue;
		b->err = uffd_resolve_copy(b->fd, m.arg.pagefault.address &
					   ~(unsigned long)(b->folio - 1),
					   present_zero_page, b->folio, false,
					   false, &c);
		if (b->err)
			return NULL;
		done++;
	}
	return NULL;
}

int bench_bare_uffd_rate(size_t len, enum uffd_wait_mode wait, size_t folio,
		       double *rate)
{
	struct bare b = { .want = (long)(len / folio), .folio = folio,
			  .busy = wait == UFFD_WAIT_BUSY };
	struct io_uring ring;
	struct uffd_info info;
	pthread_t th;
	void *a;
	int ret;

	b.fd = uffd_open(b.busy ? O_NONBLOCK : 0, NULL, NULL);
	if (b.fd < 0)
		return b.fd;
	if (wait == UFFD_WAIT_URING) {
		ret = io_uring_queue_init(4, &ring, 0);
		if (ret < 0) {
			close(b.fd);
			return ret;
		}
		b.ring = &ring;
	}
	a = host_mmap(NULL, len + folio, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ret = a == MAP_FAILED ? -errno : uffd_api(b.fd, 0, &info);
	if (!ret)
		ret = uffd_register(b.fd, a, len + folio,
				    UFFDIO_REGISTER_MODE_MISSING, NULL);
	if (!ret)
		ret = -pthread_create(&th, NULL, bare_handler, &b);
	if (!ret) {
		*rate = touch_all(folio_align((unsigned long)a, folio), len);
		pthread_join(th, NULL);
		ret = b.err;
	}
	if (a != MAP_FAILED)
		host_munmap(a, len + folio);
	if (b.ring)
		io_uring_queue_exit(b.ring);
	close(b.fd);
	return ret;
}

static int bf_sim(const struct bf_case *k, size_t len, double *rate)
{
	const struct uffd_source_opts uo = { .nhandlers = 1, .wait = k->wait,
					     .batch = 16 };
	struct sim_mm_cfg cfg = {
		.lock = k->lock, .arena_size = 2 * len + (16UL << 20),
		.source = k->src, .folio_size = k->folio,
		.source_opts = k->src == &uffd_fault_source ? &uo : NULL,
	};
	struct sim_mm *mm;
	unsigned long a;
	unsigned char v = 1;
	uint64_t t0;
	int ret = sim_mm_create(&cfg, &mm);

	if (ret)
		return ret;
	ret = sim_do_mmap(mm, 0, len + k->folio, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, SIM_FILE_NONE, 0, &a);
	a = folio_align(a, k->folio);
	t0 = mono_ns();
	for (unsigned long p = a; !ret && p < a + len; p += SIM_PAGE_SIZE)
		ret = sim_touch(mm, p, true, &v);
	*rate = (double)(len / SIM_PAGE_SIZE) * 1e9 / (double)(mono_ns() - t0);
	sim_mm_destroy(mm);
	return ret;
}

static int bf_run(const struct bf_case *k, size_t len, double *rate)
{
	switch (k->kind) {
	case BF_NATIVE: return bf_native(len, rate);
	case BF_BARE: return bench_bare_uffd_rate(len, k->wait, k->folio, rate);
	default: return bf_sim(k, len, rate);
	}
}

static int add_case(struct bf_case *c, int *n, enum bf_kind kind,
		    enum uffd_wait_mode wait, const struct lock_ops *lock,
		    const struct fault_source_ops *src, size_t folio, int base)
{
	struct bf_case *k = &c[*n];
	char f[24] = "";

	if (*n == BF_MAX_CASES)
		return -1;
	*k = (struct bf_case){ .kind = kind, .wait = wait, .lock = lock,
			       .src = src, .folio = folio, .base = base };
	if (folio > SIM_PAGE_SIZE)
		snprintf(f, sizeof(f), "-%zuK", folio >> 10);
	if (kind == BF_NATIVE)
		snprintf(k->name, sizeof(k->name), "native");
	else if (kind == BF_BARE)
		snprintf(k->name, sizeof(k->name), "bare-%s%s",
			 uffd_wait_mode_name(wait), f);
	else if (src == &synthetic_fault_source)
		snprintf(k->name, sizeof(k->name), "synthetic %s", lock->name);
	else
		snprintf(k->name, sizeof(k->name), "uffd-%s%s %s",
			 uffd_wait_mode_name(wait), f, lock->name);
	return (*n)++;
}

/* A wait mode's floor and every scheme through uffd, with folio. */
static int add_wait_cases(struct bf_case *c, int *n, enum uffd_wait_mode w,
			  size_t folio)
{
	int bare = add_case(c, n, BF_BARE, w, NULL, NULL, folio, -1);

	for (int s = 0; s < lock_nschemes; s++)
		if (add_case(c, n, BF_SIM, w, lock_schemes[s],
			     &uffd_fault_source, folio, bare) < 0)
			return -1;
	return bare < 0 ? -1 : 0;
}

/* native, then per wait mode its floor and every scheme through uffd
 * (again with folios), then every scheme through the synthetic source. */
static int build_cases(struct bf_case *c, const enum uffd_wait_mode *waits,
		       int nwaits, size_t folio)
{
	int n = 0, native = add_case(c, &n, BF_NATIVE, 0, NULL, NULL,
				     SIM_PAGE_SIZE, -1);

	for (int w = 0; w < nwaits; w++) {
		if (add_wait_cases(c, &n, waits[w], SIM_PAGE_SIZE) ||
		    (folio > SIM_PAGE_SIZE &&
		     add_wait_cases(c, &n, waits[w], folio)))
			return -1;
	}
	for (int s = 0; s < lock_nschemes; s++)
		if (add_case(c, &n, BF_SIM, UFFD_WAIT_BLOCK, lock_schemes[s],
			     &synthetic_fault_source, SIM_PAGE_SIZE, native) < 0)
			return -1;
	return n;
}

/* The median over the rounds of case i's rate over case b's. */
static double median_ratio(const struct bf_case *c, int i, int b, int rounds)
{
	double r[BF_MAX_ROUNDS];

	for (int k = 0; k < rounds; k++)
		r[k] = c[i].rate[k] / c[b].rate[k];
	return stats_median(r, (size_t)rounds);
}

/* Case 0 is native. */
static void print_cases(FILE *out, const struct bf_case *c, int n, int rounds)
{
	fprintf(out, "%-26s %14s %11s %11s   %s\n", "case", "pages/s",
		"/ native", "/ floor", "floor");
	for (int i = 0; i < n; i++) {
		fprintf(out, "%-26s %14.0f %10.2fx", c[i].name,
			stats_median(c[i].rate, (size_t)rounds),
			median_ratio(c, i, 0, rounds));
		if (c[i].base < 0)
			fprintf(out, "\n");
		else
			fprintf(out, " %10.2fx   %s\n",
				median_ratio(c, i, c[i].base, rounds),
				c[c[i].base].name);
	}
	fprintf(out, "\npages/s: the median over the rounds. / native, / floor: "
		"this case's pages/s divided by native's, or by its floor's (the "
		"bare uffd loop of its wait mode; native for synthetic), in each "
		"round, and the median of those ratios (which need not be the "
		"ratio of the two medians).\n");
}

int bench_fault_run(FILE *out, size_t len, int rounds,
		    const enum uffd_wait_mode *waits, int nwaits, size_t folio,
		    char *err, size_t errlen)
{
	struct bf_case c[BF_MAX_CASES];
	int n = build_cases(c, waits, nwaits, folio), ret;

	if (n < 0 || rounds < 1 || rounds > BF_MAX_ROUNDS)
		return -EINVAL;
	fprintf(out, "vmsim bench fault: %zu pages written once per case, one "
		"thread; %d interleaved round%s, medians (of rates, and of "
		"per-round ratios)\n\n", len / SIM_PAGE_SIZE, rounds,
		PLURAL(rounds));
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++) {
			ret = bf_run(&c[i], len, &c[i].rate[r]);
			if (ret) {
				snprintf(err, errlen, "%s: %s", c[i].name,
					 strerror(-ret));
				return ret;
			}
		}
	print_cases(out, c, n, rounds);
	return 0;
}
