/* SPDX-License-Identifier: MIT */
/*
 * The uffd fault source's set-up: the userfaultfds (one, or one per
 * task), the arena's registration on them, their handler pools, and
 * claims — a range a workload gives to one task at set-up, re-registered
 * on that task's uffd.
 */
#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/faults/sources.h"
#include "sim/faults/uffd_source_int.h"
#include "sim/faults/uffd_touch.h"
#include "sim/fault.h"
#include "sim/host.h"

/* --numa local without --pin: the handlers on this node's CPUs. */
static int node_cpus(struct uffd_source *u, struct uffd_pool_cfg *pc)
{
	struct bitmask *cpus;
	int node, n = 0;

	if (numa_available() < 0)
		return 0;
	node = numa_node_of_cpu(sched_getcpu());
	cpus = numa_allocate_cpumask();
	u->node_cpus = calloc(cpus ? cpus->size : 1, sizeof(int));
	if (!cpus || !u->node_cpus) {
		if (cpus)
			numa_free_cpumask(cpus);
		return -ENOMEM;
	}
	if (node >= 0 && !numa_node_to_cpus(node, cpus))
		for (unsigned i = 0; i < cpus->size; i++)
			if (numa_bitmask_isbitset(cpus, i))
				u->node_cpus[n++] = (int)i;
	numa_free_cpumask(cpus);
	pc->cpus = u->node_cpus;
	pc->ncpus = n;
	return 0;
}

/* Register the arena: all on one uffd, or stripe k on uffd k % nchan. */
static int uf_register(struct uffd_source *u)
{
	struct sim_mm *mm = u->base.mm;
	const uint64_t mode = UFFDIO_REGISTER_MODE_MISSING |
			      UFFDIO_REGISTER_MODE_WP;
	unsigned long a;
	int ret = 0;

	if (u->nchan == 1)
		return uffd_register(u->chan[0].fd, (void *)mm->base,
				     mm->end - mm->base, mode, NULL);
	for (a = mm->base; a < mm->end && !ret; a += UFFD_STRIPE) {
		size_t k = ((a - mm->base) / UFFD_STRIPE) % (size_t)u->nchan;
		size_t len = mm->end - a < UFFD_STRIPE ? mm->end - a : UFFD_STRIPE;

		ret = uffd_register(u->chan[k].fd, (void *)a, len, mode, NULL);
	}
	return ret;
}

/* Channel k's handlers: their CPUs (handler i of k on the CPU list's
 * entry k * nh + i: with one handler a uffd, uffd k's beside task k). */
static int uf_start_pool(struct uffd_source *u, int k,
			 const struct uffd_pool_cfg *tmpl)
{
	struct uffd_chan *ch = &u->chan[k];
	struct uffd_pool_cfg pc = *tmpl;

	pc.fd = ch->fd;
	pc.slot_base = tmpl->slot_base + k * tmpl->nhandlers;
	/* One uffd: its handlers take the CPU list as it is (they may be
	 * more than ch->cpus holds); several: each its share of it. */
	if (tmpl->ncpus && u->nchan > 1) {
		for (int i = 0; i < tmpl->nhandlers; i++)
			ch->cpus[i] = tmpl->cpus[(k * tmpl->nhandlers + i) %
						 tmpl->ncpus];
		pc.cpus = ch->cpus;
		pc.ncpus = tmpl->nhandlers;
	}
	return uffd_pool_start(&pc, &ch->pool);
}

int uffd_source_start(struct uffd_source *u, const struct uffd_source_opts *cfg)
{
	struct sim_mm *mm = u->base.mm;
	struct uffd_pool_cfg pc;
	int ret;

	for (int k = 0; k < u->nchan; k++) {
		struct uffd_info info;

		u->chan[k].fd = uffd_open(0, &info.via_dev, NULL);
		if (u->chan[k].fd < 0)
			return u->chan[k].fd;
		ret = uffd_api(u->chan[k].fd, SIM_UFFD_FEATURES, &info);
		if (ret)
			return ret;
		if ((info.features & SIM_UFFD_FEATURES) != SIM_UFFD_FEATURES)
			return -EOPNOTSUPP;      /* anonymous WP needs Linux 5.7 */
		if (!k)
			u->info = info;
	}
	ret = uf_register(u);
	if (ret)
		return ret;
	pc = (struct uffd_pool_cfg){
		.nhandlers = cfg->nhandlers > 0 ? cfg->nhandlers : 1,
		.wait = cfg->wait,
		.batch = cfg->batch > 0 ? cfg->batch : 16,
		.fn = uffd_source_fault,
		.arg = u,
		.cpus = cfg->cpus,
		.ncpus = cfg->ncpus,
		.phase_of_thread = sim_fault_phase,
		.stall_at = cfg->test_stall_at,
		.slot_base = cfg->slot_base,
	};
	if (u->nchan > 1 && pc.nhandlers > UFFD_SOURCE_MAX_HANDLERS)
		return -EINVAL;
	if (mm->cfg.numa == SIM_NUMA_LOCAL && !cfg->ncpus &&
	    (ret = node_cpus(u, &pc)))
		return ret;
	ret = uffd_touch_init_signals();
	for (int k = 0; k < u->nchan && !ret; k++) {
		ret = uf_start_pool(u, k, &pc);
		if (!ret)
			u->nhandlers += pc.nhandlers;
	}
	return ret;
}


/* --- claims ------------------------------------------------------------ */

int uffd_source_owner(const struct uffd_source *u, unsigned long a)
{
	const struct sim_mm *mm = u->base.mm;
	size_t i = (a - mm->base) >> SIM_PAGE_SHIFT;

	if (u->nchan <= 1)
		return 0;
	if (u->owner && u->owner[i])
		return u->owner[i] - 1;
	return (int)(((a - mm->base) / UFFD_STRIPE) % (size_t)u->nchan);
}

unsigned long uffd_source_run_end(const struct uffd_source *u, unsigned long a,
				  unsigned long end)
{
	int k = uffd_source_owner(u, a);

	if (u->nchan <= 1)
		return end;
	if (!u->owner) {                 /* no claims: to the stripe's end */
		unsigned long off = (a - u->base.mm->base) % UFFD_STRIPE;

		a += UFFD_STRIPE - off;
		return a < end ? a : end;
	}
	for (a += SIM_PAGE_SIZE; a < end && uffd_source_owner(u, a) == k;
	     a += SIM_PAGE_SIZE)
		;
	return a < end ? a : end;
}

/* Move [a, e) (one owner now: from) to uffd to. */
static int move_run(struct uffd_source *u, unsigned long a, unsigned long e,
		    int from, int to)
{
	const uint64_t mode = UFFDIO_REGISTER_MODE_MISSING |
			      UFFDIO_REGISTER_MODE_WP;
	int ret = uffd_unregister(u->chan[from].fd, (void *)a, e - a);

	return ret ? ret : uffd_register(u->chan[to].fd, (void *)a, e - a,
					 mode, NULL);
}

/*
 * A workload gives [start, end) to one task (pft: each task's slice), at
 * set-up, over pages not yet there: its faults then reach that task's
 * uffd and handler. Unregistering would lose the write-protection of
 * present pages, so a range with any is refused (-EBUSY). One uffd: 0.
 */
int uffd_source_claim(struct fault_source *s, unsigned long start,
		      unsigned long end, int task)
{
	struct uffd_source *u = us(s);
	const struct sim_mm *mm = s->mm;
	size_t npages = (mm->end - mm->base) >> SIM_PAGE_SHIFT;
	int to = task % (u->nchan > 0 ? u->nchan : 1), ret = 0;

	if (u->nchan <= 1)
		return 0;
	if (!present_absent(&u->present, start, end))
		return -EBUSY;
	if (!u->owner) {
		void *m = host_mmap(NULL, npages * sizeof(*u->owner),
				    PROT_READ | PROT_WRITE, MAP_PRIVATE |
				    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (m == MAP_FAILED)
			return -errno;
		u->owner = m;
	}
	for (unsigned long a = start, e; a < end && !ret; a = e) {
		int from = uffd_source_owner(u, a);

		for (e = a + SIM_PAGE_SIZE; e < end && uffd_source_owner(u, e) == from;)
			e += SIM_PAGE_SIZE;
		if (from != to)
			ret = move_run(u, a, e, from, to);
		for (unsigned long x = a; x < e && !ret; x += SIM_PAGE_SIZE)
			u->owner[(x - mm->base) >> SIM_PAGE_SHIFT] =
				(uint16_t)(to + 1);
	}
	return ret;
}
