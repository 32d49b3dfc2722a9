/* SPDX-License-Identifier: MIT */
/*
 * Every scheme's ops by name, from locks/schemes.def: for the registry
 * (locks/schemes.c) and what names a particular scheme (the tests of one
 * scheme). Everything else finds a scheme through lock_schemes[] and
 * lock_scheme_find() (locks/lock_ops.h), and is not rebuilt when a scheme
 * is added.
 */
#ifndef VMSIM_SCHEMES_H
#define VMSIM_SCHEMES_H

#include "locks/lock_ops.h"

#define LOCK_SCHEME(id, name) extern const struct lock_ops id##_lock_ops;
#include "locks/schemes.def"
#undef LOCK_SCHEME

#endif
