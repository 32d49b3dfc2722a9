/* SPDX-License-Identifier: MIT */
/*
 * container_of, as the kernel's: the structure that embeds the member
 * ptr points at. ptr's type is checked against the member's (a GNU
 * statement expression; vmsim is built as gnu11). A scheme's instance
 * embeds its struct lock_inst, and the mm hands the scheme that back.
 */
#ifndef VMSIM_CONTAINER_H
#define VMSIM_CONTAINER_H

#include <stddef.h>

#ifndef container_of
#define container_of(ptr, type, member) ({				\
	const __typeof__(((type *)0)->member) *container_mptr_ = (ptr);	\
	(type *)((char *)container_mptr_ - offsetof(type, member)); })
#endif

#endif
