/* SPDX-License-Identifier: MIT */
#include "locks/lock_ops.h"

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
	return NULL;
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
