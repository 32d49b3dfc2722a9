/* SPDX-License-Identifier: MIT */
/* The operation costs an mm pays (sim/costs.h). */
#include "sim/costs.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "base/clock.h"

const char *const sim_cost_op_names[SIM_COST_NOPS] = {
	[SIM_COST_MMAP] = "mmap", [SIM_COST_MUNMAP] = "munmap",
	[SIM_COST_MPROTECT] = "mprotect", [SIM_COST_MADVISE] = "madvise",
	[SIM_COST_BRK] = "brk",
};

static uint64_t ns_ticks(uint64_t ns)
{
	return ns ? (uint64_t)((double)ns / clock_ns_per_cycle() + 0.5) : 0;
}

void sim_costs_ticks(const struct sim_costs *c,
		     struct sim_op_ticks t[SIM_COST_NOPS])
{
	for (int i = 0; i < SIM_COST_NOPS; i++) {
		const struct sim_op_cost *o = &c->op[i];
		bool sys = c->syscall_ns && o->out_ns >= c->syscall_ns;

		t[i] = (struct sim_op_ticks){ 0 };
		if (!c->on)
			continue;
		t[i].syscall = sys;
		t[i].out = ns_ticks(sys ? o->out_ns - c->syscall_ns : o->out_ns);
		t[i].in = ns_ticks(o->in_ns);
		t[i].down = ns_ticks(o->down_ns);
	}
}

void sim_cost_syscall(void)
{
	/* getppid: an entry and an exit, no lock of the mm taken. */
	(void)syscall(SYS_getppid);
}
