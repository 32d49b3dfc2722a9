/* SPDX-License-Identifier: MIT */
/*
 * Which VMA tree a test runs on: VMSIM_TEST_TREE=maple | vmsim (ctest
 * registers each tree test once per tree: NAME on the default — the
 * maple tree where it was built — and NAME_vmsim on vmsim's own).
 */
#ifndef VMSIM_TEST_TREE_H
#define VMSIM_TEST_TREE_H

#include <stdlib.h>
#include <string.h>

#include "sim/vma_tree.h"

static inline enum vma_tree_kind test_tree(void)
{
	const char *e = getenv("VMSIM_TEST_TREE");

	if (e && !strcmp(e, "vmsim"))
		return VMA_TREE_VMSIM;
	if (e && !strcmp(e, "maple"))
		return VMA_TREE_MAPLE;
	return vma_tree_kind_resolve(VMA_TREE_DEFAULT);
}

static inline bool test_tree_maple(void)
{
	return test_tree() == VMA_TREE_MAPLE;
}

/* vma_tree_init(), on the test's tree. */
static inline int test_tree_init(struct vma_tree *t)
{
	if (test_tree_maple())
		return vma_tree_init_maple(t, 1UL << 18, NULL, NULL);
	return vma_tree_init(t);
}

#endif
