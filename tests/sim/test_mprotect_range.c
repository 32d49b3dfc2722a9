/* SPDX-License-Identifier: MIT */
/*
 * --mprotect-range: what a range scheme write-locks for mprotect
 * (locks/mprotect_range.c).
 *
 * The protocol alone, against a scripted environment: exact locks the
 * call's range, full the whole space; refined locks the span it looked
 * up and keeps it when the layout did not change, or changed elsewhere
 * (the span looked up again still inside), and lets go and takes the
 * whole space when the change hit the span — each counted.
 *
 * Then the real thing, under range and range-list: an mprotect inside a
 * VMA waits (its refined span covers the whole VMA) behind a fault's
 * read lock on another page of that VMA; meanwhile an mmap of the range
 * just below the VMA — disjoint from every held range, so it goes ahead
 * — merges with it, so the VMA the span started with has grown: the
 * mprotect must fall back to the whole space. A change far away while it
 * waits moves the layout's version but not the span: no fallback. With
 * nothing in the way the speculation simply holds. The mprotect does
 * its job every time.
 */
#include "sim/faults/sources.h"
#include "tests/check_util.h"
#include "locks/schemes.h"
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "locks/sync/rcu.h"
#include "sim/fault.h"
#include "sim/mm.h"
#include "sim/vma_tree.h"
#include "tests/sim/test_tree.h"

#define P SIM_PAGE_SIZE

/* --- the protocol, scripted ---------------------------------------------- */

#define SPACE_LO 0x100000UL
#define SPACE_HI 0x900000UL

struct script {
	unsigned long span[2][2];        /* the first look's, the second's */
	int looks;
	unsigned long seq_then, seq_now;
	unsigned long locked[4][2];
	int nlocks, nunlocks;
};

static struct script sc;

static unsigned long fake_span(void *arg, unsigned long start, unsigned long end,
			       unsigned long *lo, unsigned long *hi)
{
	int k = sc.looks < 2 ? sc.looks : 1;

	(void)arg;
	ck_assert_uint_le(sc.span[k][0], start);
	ck_assert_uint_ge(sc.span[k][1], end);
	*lo = sc.span[k][0];
	*hi = sc.span[k][1];
	sc.looks++;
	return sc.seq_then;
}

static unsigned long fake_seq(void *arg)
{
	(void)arg;
	return sc.seq_now;
}

static void fake_lock(struct lock_inst *l, unsigned long start,
		      unsigned long end, struct lock_handle *h)
{
	(void)l;
	(void)h;
	ck_assert_int_eq(sc.nlocks - sc.nunlocks, 0);   /* one held at most */
	sc.locked[sc.nlocks][0] = start;
	sc.locked[sc.nlocks][1] = end;
	sc.nlocks++;
}

static void fake_unlock(struct lock_inst *l, struct lock_handle *h)
{
	(void)l;
	(void)h;
	sc.nunlocks++;
}

/* One mprotect of [0x400000, 0x401000) in mode m; the counters after. */
static void scripted(enum lock_mprotect_range m, uint64_t counts[3])
{
	struct lock_inst l = { 0 };
	struct lock_mprotect mp;
	struct lock_handle h = { 0 };
	const char *names[LOCK_MAX_COUNTERS];
	int n;

	l.env = (struct lock_env){ .space_start = SPACE_LO, .space_end = SPACE_HI,
				   .mprotect_range = m,
				   .mprotect_span = fake_span,
				   .layout_seq = fake_seq };
	ck_assert_int_eq(lock_mprotect_init(&mp), 0);
	lock_mprotect_begin(&l, &mp, 0x400000, 0x401000, &h, fake_lock,
			    fake_unlock);
	n = lock_mprotect_counters(&l, &mp, names, counts);
	ck_assert_int_eq(n, m == LOCK_MPROTECT_REFINED ? 3 : 0);
	if (n) {
		ck_assert_str_eq(names[0], "mprotect_spec");
		ck_assert_str_eq(names[1], "mprotect_seq_moved");
		ck_assert_str_eq(names[2], "mprotect_fallback");
	}
	lock_mprotect_fini(&mp);
}

static void script_reset(unsigned long lo, unsigned long hi, unsigned long lo2,
			 unsigned long hi2, bool moved)
{
	sc = (struct script){ .span = { { lo, hi }, { lo2, hi2 } },
			      .seq_then = 6, .seq_now = moved ? 8 : 6 };
}

START_TEST(test_protocol)
{
	uint64_t c[3];

	script_reset(0x3f0000, 0x420000, 0, 0, false);
	scripted(LOCK_MPROTECT_EXACT, c);
	ck_assert_int_eq(sc.nlocks, 1);
	ck_assert_int_eq(sc.looks, 0);
	ck_assert_uint_eq(sc.locked[0][0], 0x400000);
	ck_assert_uint_eq(sc.locked[0][1], 0x401000);

	script_reset(0x3f0000, 0x420000, 0, 0, false);
	scripted(LOCK_MPROTECT_FULL, c);
	ck_assert_int_eq(sc.nlocks, 1);
	ck_assert_uint_eq(sc.locked[0][0], SPACE_LO);
	ck_assert_uint_eq(sc.locked[0][1], SPACE_HI);

	/* Refined, nothing changed: the span looked up, held. */
	script_reset(0x3f0000, 0x420000, 0, 0, false);
	scripted(LOCK_MPROTECT_REFINED, c);
	ck_assert_int_eq(sc.nlocks, 1);
	ck_assert_int_eq(sc.nunlocks, 0);
	ck_assert_int_eq(sc.looks, 1);
	ck_assert_uint_eq(sc.locked[0][0], 0x3f0000);
	ck_assert_uint_eq(sc.locked[0][1], 0x420000);
	ck_assert_uint_eq(c[0], 1);
	ck_assert_uint_eq(c[1], 0);
	ck_assert_uint_eq(c[2], 0);

	/* Changed elsewhere: looked at again, still inside: held. */
	script_reset(0x3f0000, 0x420000, 0x3f8000, 0x420000, true);
	scripted(LOCK_MPROTECT_REFINED, c);
	ck_assert_int_eq(sc.nlocks, 1);
	ck_assert_int_eq(sc.nunlocks, 0);
	ck_assert_int_eq(sc.looks, 2);
	ck_assert_uint_eq(c[1], 1);
	ck_assert_uint_eq(c[2], 0);

	/* The change hit the span (it grew at either end): the whole space. */
	for (int end = 0; end < 2; end++) {
		script_reset(0x3f0000, 0x420000, end ? 0x3f0000 : 0x3e0000,
			     end ? 0x430000 : 0x420000, true);
		scripted(LOCK_MPROTECT_REFINED, c);
		ck_assert_int_eq(sc.nlocks, 2);
		ck_assert_int_eq(sc.nunlocks, 1);
		ck_assert_uint_eq(sc.locked[1][0], SPACE_LO);
		ck_assert_uint_eq(sc.locked[1][1], SPACE_HI);
		ck_assert_uint_eq(c[0], 1);
		ck_assert_uint_eq(c[1], 1);
		ck_assert_uint_eq(c[2], 1);
	}
}
END_TEST

/* --- the real thing -------------------------------------------------------- */

static struct sim_mm *mk_mm(const struct lock_ops *ops)
{
	struct sim_mm_cfg cfg = { .tree = test_tree(),
		.lock = ops, .arena_size = 4096 * P,
				  .source = &synthetic_fault_source,
				  .mprotect_range = LOCK_MPROTECT_REFINED };
	struct sim_mm *mm;

	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	return mm;
}

/* The scheme's counter called name (0 if it has none). */
static uint64_t counter(struct sim_mm *mm, const char *name)
{
	const char *names[LOCK_MAX_COUNTERS];
	uint64_t v[LOCK_MAX_COUNTERS];
	int n = mm->lock->ops->counters(mm->lock, names, v);

	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return v[i];
	return 0;
}

/* Acquisitions that found their range held: range's and range-list's. */
static uint64_t waits(struct sim_mm *mm)
{
	return counter(mm, "range_queued") + counter(mm, "rlist_wait");
}

/* [start, end) and flags of the VMA holding addr (0s if none). */
static unsigned long vma_at(struct sim_mm *mm, unsigned long addr,
			    unsigned long *start, unsigned long *end)
{
	unsigned long f = 0;
	struct sim_vma *v;

	*start = *end = 0;
	sim_rcu_read_lock();
	v = vma_tree_find(&mm->tree, addr);
	if (v && v->vm_start <= addr) {
		*start = v->vm_start;
		*end = v->vm_end;
		f = v->vm_flags & VM_ACCESS_FLAGS;
	}
	sim_rcu_read_unlock();
	return f;
}

/* The speculation's counters are spec, moved and fallback. */
static void expect_counts(struct sim_mm *mm, uint64_t spec, uint64_t moved,
			  uint64_t fallback)
{
	ck_assert_uint_eq(counter(mm, "mprotect_spec"), spec);
	ck_assert_uint_eq(counter(mm, "mprotect_seq_moved"), moved);
	ck_assert_uint_eq(counter(mm, "mprotect_fallback"), fallback);
}

/* addr lies in a VMA [start, end) with access flags. */
static void expect_vma(struct sim_mm *mm, unsigned long addr,
		       unsigned long flags, unsigned long start,
		       unsigned long end)
{
	unsigned long s, e;

	ck_assert_uint_eq(vma_at(mm, addr, &s, &e), flags);
	ck_assert_uint_eq(s, start);
	ck_assert_uint_eq(e, end);
}

struct mprotector {
	struct sim_mm *mm;
	unsigned long start;
	int ret;
};

static void *mprotector_main(void *arg)
{
	struct mprotector *m = arg;

	m->ret = sim_do_mprotect(m->mm, m->start, P, PROT_READ);
	return NULL;
}

/* Until the mprotector waits for a range (bounded: a broken build must
 * not hang the suite). */
static void wait_queued(struct sim_mm *mm, uint64_t before)
{
	struct timespec t0, now, nap = { 0, 200 * 1000 };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (waits(mm) == before && now.tv_sec - t0.tv_sec < 60);
	ck_assert_msg(waits(mm) > before, "the mprotect never waited");
}

/*
 * An mprotect of [a + P, a + 2P) in the VMA [a, a + 4P), made to wait
 * behind a fault on a + 3P while change() runs; returns when it is done.
 */
static void held_up(struct sim_mm *mm, unsigned long a,
		    void (*change)(struct sim_mm *, unsigned long))
{
	const struct lock_ops *ops = mm->lock->ops;
	struct mprotector m = { .mm = mm, .start = a + P };
	struct lock_handle fh = { 0 };
	uint64_t before = waits(mm);
	pthread_t th;

	ops->fault_begin(mm->lock, a + 3 * P, 0, &fh);
	ck_assert_int_eq(pthread_create(&th, NULL, mprotector_main, &m), 0);
	wait_queued(mm, before);
	change(mm, a);
	ops->fault_end(mm->lock, &fh);
	pthread_join(th, NULL);
	ck_assert_int_eq(m.ret, 0);
}

/* A VMA mapped just below [a, ...), merging with it. */
static void grow_below(struct sim_mm *mm, unsigned long a)
{
	unsigned long got;

	ck_assert_int_eq(sim_do_mmap(mm, a - 4 * P, 4 * P, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_FIXED, SIM_FILE_NONE, 0,
				     &got), 0);
}

/* A VMA mapped far away. */
static void map_far(struct sim_mm *mm, unsigned long a)
{
	unsigned long got;

	ck_assert_int_eq(sim_do_mmap(mm, a + 512 * P, P, PROT_READ,
				     MAP_PRIVATE | MAP_FIXED, SIM_FILE_NONE, 0,
				     &got), 0);
}

START_TEST(test_fallback)
{
	const struct lock_ops *ops = _i ? &range_list_lock_ops : &range_lock_ops;
	struct sim_mm *mm = mk_mm(ops);
	unsigned long a = mm->base + 64 * P, got;
	unsigned char v = 1;

	ck_assert_int_eq(sim_do_mmap(mm, a, 4 * P, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_FIXED, SIM_FILE_NONE, 0,
				     &got), 0);
	ck_assert_int_eq(sim_touch(mm, a, true, &v), 0);

	/* A change far away while it waits: the version moves, the span
	 * does not. */
	held_up(mm, a, map_far);
	expect_counts(mm, 1, 1, 0);
	expect_vma(mm, a + P, VM_READ, a + P, a + 2 * P);

	/* Back to read-write: nothing in the way, the speculation holds (and
	 * the pieces merge again). */
	ck_assert_int_eq(sim_do_mprotect(mm, a + P, P, PROT_READ | PROT_WRITE), 0);
	expect_counts(mm, 2, 1, 0);
	expect_vma(mm, a + P, VM_READ | VM_WRITE, a, a + 4 * P);

	/* The VMA the span began with grows below while it waits: the whole
	 * space. */
	held_up(mm, a, grow_below);
	expect_counts(mm, 3, 2, 1);
	expect_vma(mm, a + P, VM_READ, a + P, a + 2 * P);
	expect_vma(mm, a - 4 * P, VM_READ | VM_WRITE, a - 4 * P, a + P);
	v = 0;
	ck_assert_int_eq(sim_touch(mm, a, false, &v), 0);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(sim_touch(mm, a + P, true, &v), -EFAULT);
	sim_mm_destroy(mm);
}
END_TEST

/* range-full locks the whole space whatever was asked: no choice, no
 * counters. */
START_TEST(test_full_scheme)
{
	struct sim_mm *mm = mk_mm(&range_full_lock_ops);
	unsigned long a;

	ck_assert_ptr_null(range_full_lock_ops.write_begin_mprotect);
	ck_assert_int_eq(sim_do_mmap(mm, 0, 4 * P, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE, SIM_FILE_NONE, 0, &a), 0);
	ck_assert_int_eq(sim_do_mprotect(mm, a + P, P, PROT_READ), 0);
	ck_assert_uint_eq(counter(mm, "mprotect_spec"), 0);
	sim_mm_destroy(mm);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mprotect_range");
	TCase *tc = tcase_create("mprotect_range");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_protocol);
	tcase_add_loop_test(tc, test_fallback, 0, 2);
	tcase_add_test(tc, test_full_scheme);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
