/* SPDX-License-Identifier: MIT */
/* Thin wrappers around futex(2) on a 32-bit atomic word (private futexes). */
#ifndef VMSIM_FUTEX_H
#define VMSIM_FUTEX_H

#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleep while *word == val; returns on wake, signal or mismatch. */
static inline void futex_wait(_Atomic int *word, int val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

/* The same, for at most 10 ms: a waiter that must also see a stop. */
static inline void futex_wait_tick(_Atomic int *word, int val)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };

	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, &tick, NULL, 0);
}

static inline void futex_wake(_Atomic int *word, int nr)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, nr, NULL, NULL, 0);
}

/* The same on memory shared between processes (MAP_SHARED): the futex
 * is keyed by the page, not by this process's mm. */
static inline void futex_wait_shared(_Atomic int *word, int val,
				     const struct timespec *timeout)
{
	syscall(SYS_futex, word, FUTEX_WAIT, val, timeout, NULL, 0);
}

static inline void futex_wake_shared(_Atomic int *word, int nr)
{
	syscall(SYS_futex, word, FUTEX_WAKE, nr, NULL, NULL, 0);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/*
 * Wait until *word != 0. The waker stores non-zero (release) and then calls
 * futex_wake(); the acquire load here pairs with that store.
 */
static inline void futex_wait_nonzero(_Atomic int *word)
{
	while (atomic_load_explicit(word, memory_order_acquire) == 0)
		futex_wait(word, 0);
}

#endif
