/* SPDX-License-Identifier: MIT */
#include "sim/mm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/fault.h"

static void *lookup_for_lock(void *arg, unsigned long addr)
{
	struct sim_mm *mm = arg;

	return vma_tree_find(&mm->tree, addr);
}

static int sim_mm_start_uffd(struct sim_mm *mm)
{
	struct uffd_pool_cfg pc;
	int fd, ret;

	fd = uffd_open(0, &mm->uinfo.via_dev, NULL);
	if (fd < 0)
		return fd;
	mm->uffd = fd;
	ret = uffd_api(fd, UFFD_FEATURE_POISON, &mm->uinfo);
	if (ret)
		return ret;
	if (!(mm->uinfo.features & UFFD_FEATURE_POISON))
		return -EOPNOTSUPP;      /* UFFDIO_POISON needs Linux 6.6 */
	ret = uffd_register_missing(fd, (void *)mm->base, mm->end - mm->base,
				    NULL);
	if (ret)
		return ret;
	pc = (struct uffd_pool_cfg){
		.fd = fd,
		.nhandlers = mm->cfg.nhandlers > 0 ? mm->cfg.nhandlers : 1,
		.wait = mm->cfg.wait,
		.batch = mm->cfg.batch > 0 ? mm->cfg.batch : 16,
		.fn = sim_uffd_fault,
		.arg = mm,
	};
	return uffd_pool_start(&pc, &mm->pool);
}

int sim_mm_create(const struct sim_mm_cfg *cfg, struct sim_mm **out)
{
	struct lock_env env;
	struct sim_mm *mm;
	void *arena;
	int ret;

	if (!cfg->lock || cfg->arena_size < SIM_PAGE_SIZE ||
	    cfg->arena_size % SIM_PAGE_SIZE)
		return -EINVAL;
	mm = aligned_alloc(64, sizeof(*mm));
	if (!mm)
		return -ENOMEM;
	memset(mm, 0, sizeof(*mm));
	mm->cfg = *cfg;
	if (!mm->cfg.max_map_count)
		mm->cfg.max_map_count = SIM_DEFAULT_MAX_MAP_COUNT;
	mm->uffd = -1;
	vma_tree_init(&mm->tree);

	arena = mmap(NULL, cfg->arena_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (arena == MAP_FAILED) {
		ret = -errno;
		free(mm);
		return ret;
	}
	mm->base = (unsigned long)arena;
	mm->end = mm->base + cfg->arena_size;

	env = (struct lock_env){
		.space_start = mm->base, .space_end = mm->end,
		.vma_lookup = lookup_for_lock, .arg = mm,
	};
	ret = cfg->lock->create(&env, &mm->lock);
	if (ret)
		goto err;
	if (cfg->source == FAULT_SRC_SYNTHETIC) {
		void *p = mmap(NULL, cfg->arena_size >> SIM_PAGE_SHIFT,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED) {
			ret = -errno;
			goto err;
		}
		mm->present = p;
	} else {
		ret = sim_mm_start_uffd(mm);
		if (ret)
			goto err;
	}
	ret = sim_fault_init_signals();
	if (ret)
		goto err;
	*out = mm;
	return 0;
err:
	sim_mm_destroy(mm);
	return ret;
}

void sim_mm_stop_handlers(struct sim_mm *mm)
{
	if (mm->pool) {
		uffd_pool_stop(mm->pool, &mm->uffd_final);
		mm->pool = NULL;
	}
}

void sim_mm_destroy(struct sim_mm *mm)
{
	if (!mm)
		return;
	sim_mm_stop_handlers(mm);
	if (mm->uffd >= 0)
		close(mm->uffd);
	for (size_t i = 0; i < mm->tree.n; i++)
		free(mm->tree.v[i]);
	vma_tree_destroy(&mm->tree);
	if (mm->lock)
		mm->lock->ops->destroy(mm->lock);
	if (mm->present)
		munmap((void *)mm->present, mm->cfg.arena_size >> SIM_PAGE_SHIFT);
	munmap((void *)mm->base, mm->end - mm->base);
	free(mm);
}

void sim_mm_fault_counts(const struct sim_mm *mm, uint64_t out[SIM_FAULT_NKINDS])
{
	memset(out, 0, sizeof(uint64_t) * SIM_FAULT_NKINDS);
	for (int s = 0; s < LOCKSTAT_SLOTS; s++)
		for (int k = 0; k < SIM_FAULT_NKINDS; k++)
			out[k] += atomic_load_explicit(&mm->faults[s].n[k],
						       memory_order_relaxed);
}

const char *sim_fault_kind_name(enum sim_fault_kind k)
{
	static const char *const names[SIM_FAULT_NKINDS] = {
		"anon_read", "anon_write", "file", "prot", "novma",
	};

	return names[k];
}
