/* SPDX-License-Identifier: MIT */
#include "tests/sim/recording_scheme.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/vma_tree.h"
#include "locks/sync/rcu.h"

#define REC_MAX 4096

struct rec_vma {
	const struct sim_vma *v;
	unsigned long start, end, flags, pgoff;
};

struct rec_lock {
	struct lock_inst base;
	struct lock_inst *inner;         /* rwsem does the locking */
	struct sim_mm *mm;
	bool open;                       /* inside a write section */
	struct rec_vma before[REC_MAX];
	int nbefore;
	const struct vma_lock *started[REC_MAX], *inited[REC_MAX];
	int nstarted, ninited;
	long sections, breaches;
	char why[256];
};

#define to_rec(l) ((struct rec_lock *)(l))

static int rec_create(const struct lock_env *env, struct lock_inst **out)
{
	struct rec_lock *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	ret = rwsem_lock_ops.create(env, &r->inner);
	if (ret) {
		free(r);
		return ret;
	}
	r->base = *r->inner;
	r->base.ops = &recording_lock_ops;
	*out = &r->base;
	return 0;
}

static void rec_destroy(struct lock_inst *l)
{
	to_rec(l)->inner->ops->destroy(to_rec(l)->inner);
	free(l);
}

static int snap_one(struct sim_vma *v, void *arg)
{
	struct rec_lock *r = arg;

	if (r->nbefore < REC_MAX)
		r->before[r->nbefore++] = (struct rec_vma){ v, v->vm_start,
			v->vm_end, v->vm_flags, v->vm_pgoff };
	return 0;
}

static bool in(const struct vma_lock *const *set, int n, const struct vma_lock *x)
{
	for (int i = 0; i < n; i++)
		if (set[i] == x)
			return true;
	return false;
}

static void breach(struct rec_lock *r, const char *what, const struct rec_vma *b)
{
	if (!r->breaches++)
		snprintf(r->why, sizeof(r->why), "VMA [%#lx, %#lx) %s without "
			 "vma_start_write", b->start - r->mm->base,
			 b->end - r->mm->base, what);
}

struct check_ctx {
	struct rec_lock *r;
	bool *seen;
};

/* A VMA in the tree now: new (vma_init'ed), or one of the snapshot's,
 * changed only if write-started. */
static int check_one(struct sim_vma *v, void *arg)
{
	struct check_ctx *c = arg;
	struct rec_lock *r = c->r;

	for (int i = 0; i < r->nbefore; i++) {
		const struct rec_vma *b = &r->before[i];

		if (b->v != v)
			continue;
		c->seen[i] = true;
		if ((b->start != v->vm_start || b->end != v->vm_end ||
		     b->flags != v->vm_flags || b->pgoff != v->vm_pgoff) &&
		    !in(r->started, r->nstarted, &v->vm_lock))
			breach(r, "changed", b);
		return 0;
	}
	if (!in(r->inited, r->ninited, &v->vm_lock) && !r->breaches++)
		snprintf(r->why, sizeof(r->why), "VMA [%#lx, %#lx) appeared "
			 "without vma_init", v->vm_start - r->mm->base,
			 v->vm_end - r->mm->base);
	return 0;
}

static void rec_check(struct rec_lock *r)
{
	bool seen[REC_MAX] = { false };
	struct check_ctx c = { r, seen };

	if (!r->open || !r->mm)
		return;
	r->open = false;
	r->sections++;
	sim_rcu_read_lock();
	vma_tree_for_each(&r->mm->tree, r->mm->base, r->mm->end, check_one, &c);
	sim_rcu_read_unlock();
	for (int i = 0; i < r->nbefore; i++)
		if (!seen[i] && !in(r->started, r->nstarted, &r->before[i].v->vm_lock))
			breach(r, "removed", &r->before[i]);
}

static void rec_write_begin(struct lock_inst *l, unsigned long start,
			    unsigned long end, struct lock_handle *h)
{
	struct rec_lock *r = to_rec(l);

	r->inner->ops->write_begin(r->inner, start, end, h);
	r->nbefore = r->nstarted = r->ninited = 0;
	if (r->mm) {
		sim_rcu_read_lock();
		vma_tree_for_each(&r->mm->tree, r->mm->base, r->mm->end,
				  snap_one, r);
		sim_rcu_read_unlock();
	}
	r->open = true;
}

static void rec_write_end(struct lock_inst *l, struct lock_handle *h)
{
	rec_check(to_rec(l));
	to_rec(l)->inner->ops->write_end(to_rec(l)->inner, h);
}

static void rec_write_downgrade(struct lock_inst *l, struct lock_handle *h)
{
	rec_check(to_rec(l));
	to_rec(l)->inner->ops->write_downgrade(to_rec(l)->inner, h);
}

static void *rec_fault_begin(struct lock_inst *l, unsigned long addr,
			     unsigned flags, struct lock_handle *h)
{
	return to_rec(l)->inner->ops->fault_begin(to_rec(l)->inner, addr, flags, h);
}

static void rec_read_end(struct lock_inst *l, struct lock_handle *h)
{
	to_rec(l)->inner->ops->fault_end(to_rec(l)->inner, h);
}

static void rec_read_range_begin(struct lock_inst *l, unsigned long start,
				 unsigned long end, unsigned flags,
				 struct lock_handle *h)
{
	to_rec(l)->inner->ops->read_range_begin(to_rec(l)->inner, start, end,
						flags, h);
}

static void rec_vma_init(struct lock_inst *l, struct vma_lock *v)
{
	struct rec_lock *r = to_rec(l);

	if (r->ninited < REC_MAX)
		r->inited[r->ninited++] = v;
}

static void rec_vma_start_write(struct lock_inst *l, struct vma_lock *v)
{
	struct rec_lock *r = to_rec(l);

	if (r->nstarted < REC_MAX)
		r->started[r->nstarted++] = v;
}

void recording_attach(struct lock_inst *l, struct sim_mm *mm)
{
	to_rec(l)->mm = mm;
}

void recording_result(struct lock_inst *l, long *sections, long *breaches,
		      char *why, size_t len)
{
	*sections = to_rec(l)->sections;
	*breaches = to_rec(l)->breaches;
	snprintf(why, len, "%s", to_rec(l)->why);
}

const struct lock_ops recording_lock_ops = {
	.name = "recording",
	.desc = "tests: rwsem that checks every changed VMA was write-started",
	.excludes = true,
	.serialises_writers = true,
	.create = rec_create,
	.destroy = rec_destroy,
	.fault_begin = rec_fault_begin,
	.fault_end = rec_read_end,
	.write_begin = rec_write_begin,
	.write_end = rec_write_end,
	.write_downgrade = rec_write_downgrade,
	.read_range_begin = rec_read_range_begin,
	.read_range_end = rec_read_end,
	.vma_init = rec_vma_init,
	.vma_start_write = rec_vma_start_write,
};
