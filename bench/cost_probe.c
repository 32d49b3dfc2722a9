/* SPDX-License-Identifier: MIT */
/*
 * The cost probe behind `vmsim calibrate --profile` (bench/bench.h): each
 * operation class of sim/costs.h, one call at a time at one task, on the
 * host kernel (through the kernel column's own backend, sim/backend.h) and
 * on every model with each VMA tree — its time per call, and the part of
 * it spent holding the mm-wide lock.
 *
 * The kernel's hold time comes from its mmap_lock tracepoints, read by
 * this thread's own perf events (perf_event_open on the calling thread,
 * CLOCK_MONOTONIC timestamps, one ring): a hold is from an
 * acquire_returned to the released (or to the next acquire_returned: a
 * downgrade), and belongs to the timed call whose window it starts in;
 * its first hold is the call's "in", any after a downgrade its "down".
 * Tracing costs time itself, and part of it lands inside every hold: an
 * event's cost c is measured as (traced time per call - untraced time
 * per call) / events per call, rounds interleaved, and one c is taken
 * off each hold (the tail of the event that opens it and the head of the
 * one that closes it add up to about one event). The call's total is
 * the untraced one.
 *
 * A model's hold time is its own lock statistics (the mm-wide class: the
 * write side for a write operation, the read side after a downgrade and
 * for madvise), read around each call.
 *
 * Rounds rotate the order of the cases (kernel untraced, kernel traced,
 * each model); each figure is the median of the rounds' means.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench/bench.h"
#include "base/clock.h"
#include "base/stats.h"
#include "base/tracefs.h"
#include "locks/lock_ops.h"
#include "sim/backend.h"
#include "sim/faults/sources.h"
#include "sim/mm.h"
#include "sim/vma.h"

#define PROBE_PAGES 4                /* an mmap's, a madvise's length */
#define PROBE_MPROTECT_PAGES 16      /* the region mprotect splits */
#define PROBE_RING_PAGES 512         /* 2 MiB of events a round */

/* --- the operations -------------------------------------------------------- */

struct probe_ctx {
	struct sim_mm *mm;
	unsigned long a, brk0;
};

static int probe_setup(struct probe_ctx *x, enum sim_cost_op op)
{
	int rw = PROT_READ | PROT_WRITE, fl = MAP_PRIVATE | MAP_ANONYMOUS;

	switch (op) {
	case SIM_COST_MPROTECT:
		return sim_do_mmap(x->mm, 0, PROBE_MPROTECT_PAGES * SIM_PAGE_SIZE,
				   rw, fl, SIM_FILE_NONE, 0, &x->a);
	case SIM_COST_MADVISE:
		return sim_do_mmap(x->mm, 0, PROBE_PAGES * SIM_PAGE_SIZE, rw, fl,
				   SIM_FILE_NONE, 0, &x->a);
	case SIM_COST_BRK:
		return sim_do_brk(x->mm, 0, &x->brk0);
	default:
		return 0;
	}
}

static void probe_teardown(struct probe_ctx *x, enum sim_cost_op op)
{
	unsigned long cur;

	if (op == SIM_COST_MPROTECT)
		sim_do_munmap(x->mm, x->a, PROBE_MPROTECT_PAGES * SIM_PAGE_SIZE);
	else if (op == SIM_COST_MADVISE)
		sim_do_munmap(x->mm, x->a, PROBE_PAGES * SIM_PAGE_SIZE);
	else if (op == SIM_COST_BRK)
		sim_do_brk(x->mm, x->brk0, &cur);
}

/* The untimed call before call i (munmap: its mapping). */
static int probe_pre(struct probe_ctx *x, enum sim_cost_op op)
{
	if (op != SIM_COST_MUNMAP)
		return 0;
	return sim_do_mmap(x->mm, 0, PROBE_PAGES * SIM_PAGE_SIZE,
			   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   SIM_FILE_NONE, 0, &x->a);
}

/* Call i of op: the one timed. Calls alternate where the operation
 * undoes itself (mprotect splits, then merges; brk grows, then shrinks). */
static int probe_call(struct probe_ctx *x, enum sim_cost_op op, int i)
{
	unsigned long cur;

	switch (op) {
	case SIM_COST_MMAP:
		return sim_do_mmap(x->mm, 0, PROBE_PAGES * SIM_PAGE_SIZE,
				   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				   SIM_FILE_NONE, 0, &x->a);
	case SIM_COST_MUNMAP:
		return sim_do_munmap(x->mm, x->a, PROBE_PAGES * SIM_PAGE_SIZE);
	case SIM_COST_MPROTECT:
		return sim_do_mprotect(x->mm, x->a, SIM_PAGE_SIZE, i & 1 ?
				       PROT_READ | PROT_WRITE : PROT_READ);
	case SIM_COST_MADVISE:
		return sim_do_madvise(x->mm, x->a, PROBE_PAGES * SIM_PAGE_SIZE,
				      MADV_DONTNEED);
	case SIM_COST_BRK:
		return sim_do_brk(x->mm, i & 1 ? x->brk0 : x->brk0 + SIM_PAGE_SIZE,
				  &cur);
	default:
		return -EINVAL;
	}
}

/* The untimed call after call i (mmap: its munmap). */
static int probe_post(struct probe_ctx *x, enum sim_cost_op op)
{
	if (op != SIM_COST_MMAP)
		return 0;
	return sim_do_munmap(x->mm, x->a, PROBE_PAGES * SIM_PAGE_SIZE);
}

/* --- the kernel's mmap_lock, traced ------------------------------------------ */

enum { EV_START, EV_ACQUIRED, EV_RELEASED, EV_N };
static const char *const ev_names[EV_N] = {
	"mmap_lock_start_locking", "mmap_lock_acquire_returned",
	"mmap_lock_released",
};

struct lock_trace {
	int fd[EV_N];
	uint64_t id[EV_N];
	int write_off;                   /* the raw record's "bool write" */
	char *ring;
	size_t ring_len;
};

/* The tracepoint's id and its write field's offset, from tracefs's
 * events folder. */
static int tp_format(const char *events, const char *ev, int *id,
		     int *write_off)
{
	char path[256], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/mmap_lock/%s/format", events, ev);
	if (!(f = fopen(path, "r")))
		return -ENOENT;
	*id = -1;
	*write_off = -1;
	while (fgets(line, sizeof(line), f)) {
		char *o;

		if (!strncmp(line, "ID:", 3))
			*id = atoi(line + 3);
		if (strstr(line, " write;") && (o = strstr(line, "offset:")))
			*write_off = atoi(o + 7);
	}
	fclose(f);
	return *id >= 0 && *write_off >= 0 ? 0 : -ENOENT;
}

static void trace_close(struct lock_trace *t)
{
	if (t->ring && t->ring != MAP_FAILED)
		munmap(t->ring, t->ring_len);
	for (int i = 0; i < EV_N; i++)
		if (t->fd[i] >= 0)
			close(t->fd[i]);
}

static int trace_open(struct lock_trace *t, char *err, size_t len)
{
	const char *events = tracefs_events(true);  /* as perf mounts it */
	long pg = sysconf(_SC_PAGESIZE);

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < EV_N; i++)
		t->fd[i] = -1;
	for (int i = 0; i < EV_N; i++) {
		struct perf_event_attr a = { .size = sizeof(a) };
		int id, woff;

		if (!events || tp_format(events, ev_names[i], &id, &woff)) {
			snprintf(err, len, "no mmap_lock:%s tracepoint in tracefs "
				 "(mounted? CONFIG_TRACING?)", ev_names[i]);
			trace_close(t);
			return -ENOENT;
		}
		t->write_off = woff;
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = (uint64_t)id;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME |
				PERF_SAMPLE_RAW;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		a.disabled = 1;
		t->fd[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1,
					i ? t->fd[0] : -1, 0);
		if (t->fd[i] < 0) {
			int e = errno;

			snprintf(err, len, "perf_event_open(mmap_lock:%s): %s "
				 "(root, or kernel.perf_event_paranoid -1)",
				 ev_names[i], strerror(e));
			trace_close(t);
			return -e;
		}
		if (ioctl(t->fd[i], PERF_EVENT_IOC_ID, &t->id[i]) < 0) {
			snprintf(err, len, "PERF_EVENT_IOC_ID: %s", strerror(errno));
			trace_close(t);
			return -EIO;
		}
	}
	t->ring_len = (size_t)pg * (PROBE_RING_PAGES + 1);
	t->ring = mmap(NULL, t->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       t->fd[0], 0);
	if (t->ring == MAP_FAILED) {
		snprintf(err, len, "cannot map the perf ring: %s", strerror(errno));
		trace_close(t);
		return -ENOMEM;
	}
	for (int i = 1; i < EV_N; i++)
		if (ioctl(t->fd[i], PERF_EVENT_IOC_SET_OUTPUT, t->fd[0]) < 0) {
			snprintf(err, len, "PERF_EVENT_IOC_SET_OUTPUT: %s",
				 strerror(errno));
			trace_close(t);
			return -EIO;
		}
	return 0;
}

static void trace_enable(struct lock_trace *t, bool on)
{
	ioctl(t->fd[0], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
	      PERF_IOC_FLAG_GROUP);
}

/* One event, as read from the ring. */
struct lock_event {
	int kind;                        /* EV_*, -1: lost records */
	bool write;
	uint64_t t;
};

/* The events in the ring into ev[] (at most cap), the ring emptied.
 * Returns their count, or -EOVERFLOW where records were lost. */
static long trace_drain(struct lock_trace *t, struct lock_event *ev, long cap)
{
	struct perf_event_mmap_page *mp = (void *)t->ring;
	char *data = t->ring + mp->data_offset;
	uint64_t size = mp->data_size, head, tail = mp->data_tail;
	long n = 0;
	bool lost = false;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	while (tail < head) {
		struct perf_event_header h;
		unsigned char rec[256];

		for (size_t k = 0; k < sizeof(h); k++)
			((unsigned char *)&h)[k] = (unsigned char)data[(tail + k) % size];
		if (!h.size)
			break;
		for (size_t k = 0; k < h.size && k < sizeof(rec); k++)
			rec[k] = (unsigned char)data[(tail + k) % size];
		if (h.type == PERF_RECORD_LOST)
			lost = true;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= 28 && n < cap) {
			uint64_t id, ts;
			uint32_t rs;

			memcpy(&id, rec + 8, 8);
			memcpy(&ts, rec + 16, 8);
			memcpy(&rs, rec + 24, 4);
			ev[n].kind = -1;
			for (int i = 0; i < EV_N; i++)
				if (id == t->id[i])
					ev[n].kind = i;
			ev[n].t = ts;
			ev[n].write = (int)rs > t->write_off &&
				      28 + (size_t)t->write_off < sizeof(rec) &&
				      rec[28 + t->write_off];
			n += ev[n].kind >= 0;
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return lost || n >= cap ? -EOVERFLOW : n;
}

/* --- one round of one case ------------------------------------------------ */

struct probe_round {
	double total_ns, in_ns, down_ns; /* per call */
	double events;                   /* traced: events per timed call */
	double first, later;             /* traced: holds per timed call, the
					  * first of its call and those after */
};

struct probe_set {
	int calls;
	double clock_ns;                 /* a mono_ns() pair's own cost */
	uint64_t *t0, *t1;
	struct lock_event *ev;
	long evcap;
};

/* The model's mm-wide class, read side and write side, held (ns). */
static void model_held(const struct sim_mm *mm, uint64_t held[LS_NSIDES])
{
	struct lockstat_totals s;

	for (int side = 0; side < LS_NSIDES; side++) {
		held[side] = 0;
		if (mm->lock->nclasses > 0) {
			lockstat_sum(mm->lock->classes[0], side, &s);
			held[side] = s.hold_total;
		}
	}
}

/* The kernel's holds of the traced round, attributed to the timed calls:
 * a hold belongs to the call it starts in; the first of a call is its
 * in, those after (a downgrade's read side) its down. */
static void attribute(const struct probe_set *s, const struct lock_event *ev,
		      long n, struct probe_round *r)
{
	double in = 0, down = 0, evs = 0, first = 0, later = 0;
	int call = 0, open_call = -1, last = -1;
	bool open = false, is_first = false;
	uint64_t open_t = 0;

	for (long i = 0; i < n; i++) {
		uint64_t t = ev[i].t;
		int c = -1;

		while (call < s->calls && s->t1[call] < t)
			call++;
		if (call < s->calls && s->t0[call] <= t)
			c = call;
		evs += c >= 0;
		if (ev[i].kind == EV_START)
			continue;
		/* A hold ends here: released, or downgraded by a new
		 * acquire_returned while one is open. */
		if (open && open_call >= 0) {
			double d = (double)(t - open_t);

			if (is_first) {
				in += d;
				first++;
			} else {
				down += d;
				later++;
			}
		}
		open = ev[i].kind == EV_ACQUIRED;
		if (open) {
			open_t = t;
			open_call = c;
			is_first = c >= 0 && c != last;
			if (c >= 0)
				last = c;
		}
	}
	r->in_ns = in / s->calls;
	r->down_ns = down / s->calls;
	r->events = evs / s->calls;
	r->first = first / s->calls;
	r->later = later / s->calls;
}

/* One round of op on mm: traced (t non-NULL) or not. */
static int probe_round(struct probe_set *s, struct sim_mm *mm,
		       struct lock_trace *t, enum sim_cost_op op,
		       struct probe_round *r, char *err, size_t len)
{
	struct probe_ctx x = { .mm = mm };
	double total = 0, in = 0, down = 0;
	int ret = probe_setup(&x, op), side = op == SIM_COST_MADVISE ? LS_READ :
							      LS_WRITE;

	memset(r, 0, sizeof(*r));
	if (ret) {
		snprintf(err, len, "%s: setting up: %s", sim_cost_op_names[op],
			 strerror(-ret));
		return ret;
	}
	if (t) {
		trace_drain(t, s->ev, s->evcap);
		trace_enable(t, true);
	}
	for (int i = 0; i < s->calls && !ret; i++) {
		uint64_t h0[LS_NSIDES], h1[LS_NSIDES];

		ret = probe_pre(&x, op);
		if (ret)
			break;
		if (mm->be == &sim_model_backend)
			model_held(mm, h0);
		s->t0[i] = mono_ns();
		ret = probe_call(&x, op, i);
		s->t1[i] = mono_ns();
		if (mm->be == &sim_model_backend) {
			model_held(mm, h1);
			in += (double)(h1[side] - h0[side]);
			down += (double)(h1[!side] - h0[!side]);
		}
		total += (double)(s->t1[i] - s->t0[i]) - s->clock_ns;
		if (!ret)
			ret = probe_post(&x, op);
	}
	if (t)
		trace_enable(t, false);
	probe_teardown(&x, op);
	if (ret) {
		snprintf(err, len, "%s: %s", sim_cost_op_names[op], strerror(-ret));
		return ret;
	}
	r->total_ns = total / s->calls;
	if (t) {
		long n = trace_drain(t, s->ev, s->evcap);

		if (n < 0) {
			snprintf(err, len, "%s: the perf ring lost events",
				 sim_cost_op_names[op]);
			return -EOVERFLOW;
		}
		attribute(s, s->ev, n, r);
	} else if (mm->be == &sim_model_backend) {
		r->in_ns = in / s->calls;
		r->down_ns = op == SIM_COST_MADVISE ? 0 : down / s->calls;
	}
	return 0;
}

/* --- the whole probe ---------------------------------------------------------- */

static double median(double *v, int n)
{
	return stats_median(v, (size_t)n);
}

static double clock_pair_ns(void)
{
	double best = 1e9;

	for (int r = 0; r < 5; r++) {
		uint64_t t0 = mono_ns(), t1 = 0;

		for (int i = 0; i < 1000; i++)
			t1 = mono_ns();
		double d = (double)(t1 - t0) / 1000;

		if (d < best)
			best = d;
	}
	return best;
}

static double syscall_ns(void)
{
	double v[7];

	for (int r = 0; r < 7; r++) {
		uint64_t t0 = mono_ns();

		for (int i = 0; i < 2000; i++)
			sim_cost_syscall();
		v[r] = (double)(mono_ns() - t0) / 2000;
	}
	return median(v, 7);
}

static int probe_mm(const struct lock_ops *lock, enum vma_tree_kind tree,
		    struct sim_mm **out)
{
	struct sim_mm_cfg cfg = {
		.lock = lock, .tree = tree, .arena_size = 256UL << 20,
		.source = lock->host ? &kernel_fault_source :
			  &synthetic_fault_source,
	};

	return sim_mm_create(&cfg, out);
}

/* The kernel's figures of op from its rounds (untraced rr[0..], traced
 * rr[rounds..]). */
static void kernel_figures(const struct probe_round *rr, int rounds, double *v,
			   struct cost_meas *k)
{
	double evs[COST_PROBE_MAX_ROUNDS], holds[COST_PROBE_MAX_ROUNDS];
	double traced;

	for (int r = 0; r < rounds; r++) {
		v[r] = rr[r].total_ns;
		v[rounds + r] = rr[rounds + r].total_ns;
		evs[r] = rr[rounds + r].events;
		holds[r] = rr[rounds + r].first + rr[rounds + r].later;
	}
	k->total_ns = median(v, rounds);
	k->spread_pct = stats_coeffvar(v, (size_t)rounds);
	traced = median(v + rounds, rounds);
	k->events = median(evs, rounds);
	k->holds = median(holds, rounds);
	k->event_ns = k->events > 0 && traced > k->total_ns ?
		      (traced - k->total_ns) / k->events : 0;
	for (int r = 0; r < rounds; r++) {
		const struct probe_round *q = &rr[rounds + r];

		v[r] = q->in_ns - k->event_ns * q->first;
		v[rounds + r] = q->down_ns - k->event_ns * q->later;
	}
	k->in_ns = median(v, rounds);
	k->down_ns = median(v + rounds, rounds);
	k->in_ns = k->in_ns > 0 ? k->in_ns : 0;
	k->down_ns = k->down_ns > 0 ? k->down_ns : 0;
}

static void model_figures(const struct probe_round *rr, int rounds, double *v,
			  struct cost_meas *m)
{
	for (int r = 0; r < rounds; r++) {
		v[r] = rr[r].total_ns;
		v[rounds + r] = rr[r].in_ns;
		v[2 * rounds + r] = rr[r].down_ns;
	}
	m->total_ns = median(v, rounds);
	m->spread_pct = stats_coeffvar(v, (size_t)rounds);
	m->in_ns = median(v + rounds, rounds);
	m->down_ns = median(v + 2 * rounds, rounds);
}

/* Every case's rounds of op (cases 0 and 1: the kernel untraced and
 * traced, on one mm; then the models), into p. */
static int probe_op(struct probe_set *s, struct sim_mm **mm, int ncases,
		    struct lock_trace *tr, enum sim_cost_op op,
		    const struct cost_probe_opts *o, struct probe_round *rr,
		    double *v, struct cost_profile *p, char *err, size_t len)
{
	int rounds = o->rounds, ret = 0;

	/* Every case once a round, the order rotated round by round, after
	 * a round of each not kept (warm caches, the trees' first nodes,
	 * the perf ring's pages). */
	for (int r = -1; r < rounds && !ret; r++)
		for (int k = 0; k < ncases && !ret; k++) {
			int c = (k + (r < 0 ? 0 : r)) % ncases;
			struct probe_round warm;

			ret = probe_round(s, mm[c], c == 1 ? tr : NULL, op,
					  r < 0 ? &warm : &rr[c * rounds + r],
					  err, len);
		}
	if (ret)
		return ret;
	kernel_figures(rr, rounds, v, &p->kernel[op]);
	for (int m = 0; m < o->nmodels; m++)
		model_figures(&rr[(2 + m) * rounds], rounds, v, &p->models[m].op[op]);
	return 0;
}

int cost_probe_run(const struct cost_probe_opts *o, struct cost_profile *p,
		   char *err, size_t len)
{
	int ncases = 2 + o->nmodels, rounds = o->rounds;
	struct probe_set s = { .calls = o->calls };
	struct sim_mm **mm;
	double *v;
	struct probe_round *rr;
	struct lock_trace tr;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	if (rounds < 1 || rounds > COST_PROBE_MAX_ROUNDS || s.calls < 2 ||
	    o->nmodels > COST_PROFILE_MAX_MODELS) {
		snprintf(err, len, "the probe takes 1 to %d rounds, 2 calls or "
			 "more, at most %d models", COST_PROBE_MAX_ROUNDS,
			 COST_PROFILE_MAX_MODELS);
		return -EINVAL;
	}
	s.calls &= ~1;                   /* alternating calls end where
					  * they began */
	mm = calloc((size_t)ncases, sizeof(*mm));
	v = calloc((size_t)rounds * 3, sizeof(double));
	rr = calloc((size_t)ncases * (size_t)rounds, sizeof(*rr));
	s.t0 = calloc((size_t)s.calls, sizeof(uint64_t));
	s.t1 = calloc((size_t)s.calls, sizeof(uint64_t));
	s.evcap = (long)s.calls * 16 + 1024;
	s.ev = calloc((size_t)s.evcap, sizeof(*s.ev));
	if (!mm || !v || !rr || !s.t0 || !s.t1 || !s.ev) {
		snprintf(err, len, "out of memory");
		ret = -ENOMEM;
		goto out_free;
	}
	if ((ret = trace_open(&tr, err, len)))
		goto out_free;
	p->rounds = rounds;
	p->calls = s.calls;
	s.clock_ns = p->clock_ns = clock_pair_ns();
	p->syscall_ns = syscall_ns();
	ret = probe_mm(&kernel_lock_ops, VMA_TREE_VMSIM, &mm[0]);
	for (int m = 0; !ret && m < o->nmodels; m++)
		ret = probe_mm(o->models[m].lock, o->models[m].tree, &mm[2 + m]);
	if (ret) {
		snprintf(err, len, "cannot make a probe's mm: %s", strerror(-ret));
		goto out;
	}
	mm[1] = mm[0];
	for (int op = 0; op < SIM_COST_NOPS && !ret; op++)
		ret = probe_op(&s, mm, ncases, &tr, (enum sim_cost_op)op, o, rr, v,
			       p, err, len);
	for (int m = 0; m < o->nmodels; m++) {
		snprintf(p->models[m].scheme, sizeof(p->models[m].scheme), "%s",
			 o->models[m].lock->name);
		snprintf(p->models[m].tree, sizeof(p->models[m].tree), "%s",
			 vma_tree_kind_name(o->models[m].tree));
	}
	p->nmodels = ret ? 0 : o->nmodels;
out:
	for (int k = 0; k < ncases; k++)
		if (k != 1)
			sim_mm_destroy(mm[k]);
	trace_close(&tr);
out_free:
	free(mm);
	free(v);
	free(rr);
	free(s.t0);
	free(s.t1);
	free(s.ev);
	return ret;
}
