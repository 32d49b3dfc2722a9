/* SPDX-License-Identifier: MIT */
/*
 * --costs as an mm pays it (sim/costs.h): under every model scheme with
 * an mm-wide lock class, an mmap that pays IN ns inside its lock holds
 * that lock IN ns longer per call than the same mmap without costs (the
 * lock's own statistics, at one task: never less, to the clock's
 * resolution); one that pays OUT ns outside holds it no longer; a munmap
 * that pays DOWN ns after its downgrade holds its lock that much longer.
 * The spins are on the cycle counter, so each lower bound is exact; the
 * upper bounds only say the time went where it was asked to (a loose
 * bound, no claim of speed).
 */
#include "tests/check_util.h"

#include <sys/mman.h>

#include "locks/lock_ops.h"
#include "sim/faults/sources.h"
#include "sim/mm.h"
#include "sim/vma.h"
#include "tests/sim/test_tree.h"

#define P SIM_PAGE_SIZE
#define N 64
#define COST_NS 20000

static struct sim_mm *mk_mm(const struct lock_ops *ops, const struct sim_costs *c)
{
	struct sim_mm_cfg cfg = { .tree = test_tree(), .lock = ops,
				  .arena_size = 4096 * P,
				  .source = &synthetic_fault_source };
	struct sim_mm *mm;

	if (c)
		cfg.costs = *c;
	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	return mm;
}

/* The mm-wide class's hold time, both sides, in ns. */
static uint64_t held(const struct sim_mm *mm)
{
	struct lockstat_totals t;
	uint64_t sum = 0;

	for (int s = 0; s < LS_NSIDES; s++) {
		lockstat_sum(mm->lock->classes[0], s, &t);
		sum += t.hold_total;
	}
	return sum;
}

/* N mmaps (then N munmaps) of mm: the hold time of the mmaps and of the
 * munmaps, ns. */
static void cycle(struct sim_mm *mm, uint64_t *mmap_held, uint64_t *munmap_held)
{
	unsigned long a[N];
	uint64_t h0 = held(mm), h1;

	for (int i = 0; i < N; i++)
		ck_assert_int_eq(sim_do_mmap(mm, 0, P, PROT_READ | PROT_WRITE |
					     (i & 1 ? PROT_EXEC : 0),
					     MAP_PRIVATE | MAP_ANONYMOUS,
					     SIM_FILE_NONE, 0, &a[i]), 0);
	h1 = held(mm);
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(sim_do_munmap(mm, a[i], P), 0);
	*mmap_held = h1 - h0;
	*munmap_held = held(mm) - h1;
}

/* Clock resolution: a tick of the cycle counter, a ns at most on x86;
 * the spin ends at the first tick past its length. */
#define SLACK_NS 100

START_TEST(test_costs_move_hold)
{
	const struct lock_ops *ops = lock_schemes[_i];
	struct sim_costs in = { .on = true }, out = { .on = true },
			 down = { .on = true };
	uint64_t base_mm, base_mu, in_mm, in_mu, out_mm, out_mu, dn_mm, dn_mu;
	struct sim_mm *b, *i, *o, *d;

	in.op[SIM_COST_MMAP].in_ns = COST_NS;
	out.op[SIM_COST_MMAP].out_ns = COST_NS;
	down.op[SIM_COST_MUNMAP].down_ns = COST_NS;
	if (ops == &none_lock_ops)       /* no lock held: nothing to see */
		return;
	b = mk_mm(ops, NULL);
	i = mk_mm(ops, &in);
	o = mk_mm(ops, &out);
	d = mk_mm(ops, &down);
	/* Interleaved, so that the machine's drift lands on all four. */
	cycle(b, &base_mm, &base_mu);
	cycle(i, &in_mm, &in_mu);
	cycle(o, &out_mm, &out_mu);
	cycle(d, &dn_mm, &dn_mu);
	/* Paid inside: every mmap held its lock COST_NS longer, at least. */
	ck_assert_msg(in_mm >= N * (uint64_t)(COST_NS - SLACK_NS),
		      "%s: %d mmaps paying %d ns inside held %llu ns in all",
		      ops->name, N, COST_NS, (unsigned long long)in_mm);
	/* Paid outside: not inside (less than half of it there, on
	 * average). A holder preempted on a busy machine (a sanitizer
	 * suite beside it) holds for milliseconds: such a cycle is taken
	 * again, up to 5 times; a cost paid inside adds N * COST_NS to
	 * every one of them. */
	for (int k = 0; k < 5 && !(out_mm < base_mm + N * (uint64_t)COST_NS / 2 &&
				   dn_mm < base_mm + N * (uint64_t)COST_NS / 2); k++) {
		cycle(b, &base_mm, &base_mu);
		cycle(o, &out_mm, &out_mu);
		cycle(d, &dn_mm, &dn_mu);
	}
	ck_assert_msg(out_mm < base_mm + N * (uint64_t)COST_NS / 2,
		      "%s: paid outside, the lock was held %llu ns (without: "
		      "%llu)", ops->name, (unsigned long long)out_mm,
		      (unsigned long long)base_mm);
	/* Paid after munmap's downgrade: inside its lock too. */
	ck_assert_msg(dn_mu >= N * (uint64_t)(COST_NS - SLACK_NS),
		      "%s: %d munmaps paying %d ns after the downgrade held "
		      "%llu ns", ops->name, N, COST_NS, (unsigned long long)dn_mu);
	ck_assert_msg(dn_mm < base_mm + N * (uint64_t)COST_NS / 2,
		      "%s: the munmap's cost landed in the mmaps", ops->name);
	sim_mm_destroy(b);
	sim_mm_destroy(i);
	sim_mm_destroy(o);
	sim_mm_destroy(d);
}
END_TEST

/* Costs off (the default) pays nothing anywhere: the ticks are 0. */
START_TEST(test_costs_off_pay_nothing)
{
	struct sim_costs c = { .on = false, .syscall_ns = 100 };
	struct sim_op_ticks t[SIM_COST_NOPS];

	c.op[SIM_COST_MMAP].in_ns = 5000;
	sim_costs_ticks(&c, t);
	for (int op = 0; op < SIM_COST_NOPS; op++)
		ck_assert(!t[op].in && !t[op].out && !t[op].down && !t[op].syscall);
	/* On: the real call only where the outside cost holds one. */
	c.on = true;
	c.op[SIM_COST_MMAP].out_ns = 50;
	c.op[SIM_COST_BRK].out_ns = 300;
	sim_costs_ticks(&c, t);
	ck_assert(!t[SIM_COST_MMAP].syscall && t[SIM_COST_MMAP].in > 0);
	ck_assert(t[SIM_COST_BRK].syscall);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("costs");
	TCase *tc = tcase_create("costs");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_costs_move_hold, 0, lock_nschemes);
	tcase_add_test(tc, test_costs_off_pay_nothing);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
