/* SPDX-License-Identifier: MIT */
#include "locks/schemes.h"

#include <errno.h>
#include <string.h>

const struct lock_ops *const lock_schemes[] = {
#define LOCK_SCHEME(id, name) &id##_lock_ops,
#include "locks/schemes.def"
#undef LOCK_SCHEME
};
const int lock_nschemes = sizeof(lock_schemes) / sizeof(lock_schemes[0]);

const struct lock_ops *lock_scheme_find(const char *name)
{
	for (int i = 0; i < lock_nschemes; i++)
		if (!strcmp(lock_schemes[i]->name, name))
			return lock_schemes[i];
	return !strcmp(kernel_lock_ops.name, name) ? &kernel_lock_ops : NULL;
}

int lock_inst_add_class(struct lock_inst *l, const char *name,
			struct lockstat_class **out)
{
	struct lockstat_class *c;

	if (l->nclasses == LOCK_MAX_CLASSES)
		return -ENOSPC;
	c = lockstat_class_new(name);
	if (!c)
		return -ENOMEM;
	l->classes[l->nclasses++] = c;
	*out = c;
	return 0;
}

void lock_inst_free_classes(struct lock_inst *l)
{
	for (int i = 0; i < l->nclasses; i++)
		lockstat_class_free(l->classes[i]);
	l->nclasses = 0;
}

int lock_inst_init(struct lock_inst *l, const struct lock_ops *ops,
		   const struct lock_env *env, const char *const *names,
		   struct lockstat_class **cls, int n)
{
	int ret = 0;

	l->ops = ops;
	l->env = *env;
	for (int i = 0; i < n && !ret; i++)
		ret = lock_inst_add_class(l, names[i], &cls[i]);
	if (ret)
		lock_inst_free_classes(l);
	return ret;
}

void lock_inst_fini(struct lock_inst *l)
{
	lock_inst_free_classes(l);
}

int lock_mm_init(struct lock_inst *l, const struct lock_ops *ops,
		 const struct lock_env *env, struct sim_rwsem *mmap_lock,
		 struct slot_array *slots, size_t slot_size)
{
	static const char *const names[] = { "mmap_lock" };
	struct lockstat_class *cls;
	int ret = 0;

	if (slot_size)
		ret = slot_array_init(slots, slot_size);
	if (!ret)
		ret = lock_inst_init(l, ops, env, names, &cls, 1);
	if (!ret)
		ret = sim_rwsem_init(mmap_lock, cls);
	if (ret) {
		lock_inst_free_classes(l);
		if (slot_size)
			slot_array_destroy(slots);
	}
	return ret;
}

void lock_mm_fini(struct lock_inst *l, struct sim_rwsem *mmap_lock,
		  struct slot_array *slots)
{
	sim_rwsem_destroy(mmap_lock);
	lock_inst_free_classes(l);
	if (slots)
		slot_array_destroy(slots);
}

int lock_slot_counters(const struct slot_array *slots, size_t off,
		       const char *const *names_in, int n, const char **names,
		       uint64_t *values)
{
	for (int i = 0; i < n; i++) {
		names[i] = names_in[i];
		values[i] = slot_array_sum(slots, off + sizeof(uint64_t) * (size_t)i);
	}
	return n;
}

void lock_unplaced_range(const struct lock_env *env, unsigned long hint,
			 unsigned long len, unsigned long *guess,
			 unsigned long *start, unsigned long *end)
{
	if (env->mmap_guess(env->arg, hint, len, guess)) {
		*guess = 0;
		*start = env->space_start;
		*end = env->space_end;
		return;
	}
	*start = *guess;
	*end = *guess + len;
}
