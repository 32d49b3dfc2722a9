/* SPDX-License-Identifier: MIT */
/*
 * The slab fast paths without a lock (--slab-fastpath rseq), as the
 * kernel's take none: SLUB's this_cpu_cmpxchg128 on the CPU freelist,
 * and the sheaves' local_trylock (preemption off, no atomic) around an
 * array pop or push. User space gets the same per-CPU atomicity from a
 * restartable sequence: glibc (2.35+) registers an rseq area for every
 * thread; each fast path below is one critical section that reads the
 * CPU it runs on from that area, finds that CPU's slab_cpu, and commits
 * with one instruction: SLUB's with an unlocked cmpxchg16b on the CPU's
 * (freelist, tid), as this_cpu_cmpxchg128 is on x86; the sheaves' with a
 * plain store of the sheaf's new size. If the thread is preempted, migrated or
 * signalled before the commit, the kernel restarts it at the abort
 * handler and nothing was published.
 *
 * The locked paths still take the CPU's lock (the slow paths, kfree_rcu,
 * prefill and return: the kernel takes its local_lock there). A section
 * therefore gives up when that CPU's lock is held, and a holder must
 * know no section on that CPU is half done: slab_cpu_lock() takes the
 * calling CPU's lock and then checks it still runs there — every
 * section that had begun on that CPU before then was either finished or
 * preempted (so restarted, and will see the lock); if the thread moved
 * in between, it lets go and takes the lock of the CPU it now runs on.
 * Holders on another CPU by design (the flushes of part-full rcu_free
 * sheaves and bulk arrays) touch only the fields no section touches.
 * Every process's sections are atomic against every other's on one CPU,
 * so forked task processes sharing a cache are covered too. The
 * statistics are counted in sections of their own (slab_rseq_count), on
 * every path, as x86's raw_cpu_inc is one instruction.
 *
 * x86-64 only; elsewhere, under TSan (which cannot see the sections'
 * accesses), when glibc registered no rseq area, or when a CPU number
 * could exceed the cache's CPUs, the locked paths are the fast paths.
 *
 * Each section takes the object to push (pops: unused) and returns the
 * object (pops) or 0 (pushes), with the CPU it ran on; SLAB_NIL when
 * the slow path must run (nothing to pop, no room, another slab, the
 * lock held, or a CPU out of range); SLAB_RSEQ_ABORTED when the kernel
 * restarted it (the caller tries again).
 */
#ifndef VMSIM_SLAB_RSEQ_H
#define VMSIM_SLAB_RSEQ_H

#include <stddef.h>
#include <stdint.h>

#include "sim/mem/slab.h"
#include "sim/mem/slab_int.h"

#define SLAB_RSEQ_ABORTED  (SLAB_NIL - 1)

/* clang's TSan says so through __has_feature, GCC's by a macro. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SLAB_RSEQ_TSAN 1
#endif
#endif
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && \
    !defined(SLAB_RSEQ_TSAN)
#define SLAB_RSEQ_CAN 1
#else
#define SLAB_RSEQ_CAN 0
#endif

#if SLAB_RSEQ_CAN
#include <sys/rseq.h>

_Static_assert(offsetof(struct rseq, cpu_id) == 4, "rseq ABI");
_Static_assert(offsetof(struct rseq, rseq_cs) == 8, "rseq ABI");
_Static_assert(offsetof(struct slab_cpu, lock) == 0, "lock word first");

static inline struct rseq *slab_rseq_area(void)
{
	return (struct rseq *)((char *)__builtin_thread_pointer() +
			       __rseq_offset);
}

/* Whether glibc registered an rseq area for this process's threads. */
static inline bool slab_rseq_registered(void)
{
	return __rseq_size >= 20;        /* up to and with flags */
}

/*
 * The pieces every section shares. Its descriptor (struct rseq_cs:
 * version 0, flags 0, start, length, abort) in __rseq_cs; the section
 * from 1: to 2: (the commit is the last instruction before 2:); the
 * abort handler at 4:, right after the signature (RSEQ_SIG, 0x53053053,
 * as the operand of a ud1 so that it disassembles), which sets
 * SLAB_RSEQ_ABORTED; 5: the slow path's SLAB_NIL; 6: the end. (The
 * pieces use their operands by name: every section has SLAB_RSEQ_IN's.)
 * SLAB_RSEQ_ENTER leaves cpu = the CPU it runs on (out of the cache's
 * range: 5:) and c = that CPU's offset in s->cpu.
 */
#define SLAB_RSEQ_ENTER                                                   \
	".pushsection __rseq_cs, \"aw\"\n\t"                              \
	".balign 32\n"                                                    \
	"3:\n\t"                                                          \
	".long 0, 0\n\t"                                                  \
	".quad 1f, 2f - 1f, 4f\n\t"                                       \
	".popsection\n\t"                                                 \
	"leaq 3b(%%rip), %q[c]\n\t"                                       \
	"movq %q[c], 8(%[rs])\n"                                          \
	"1:\n\t"                                                          \
	"movl 4(%[rs]), %k[cpu]\n\t"                                      \
	"cmpl %k[ncpus], %k[cpu]\n\t"                                     \
	"jae 5f\n\t"                                                      \
	"movl %k[cpu], %k[c]\n\t"                                         \
	"imulq %[csz], %q[c], %q[c]\n\t"

/* ... and c = the CPU's slab_cpu, whose lock must be free. */
#define SLAB_RSEQ_BEGIN                                                   \
	SLAB_RSEQ_ENTER                                                   \
	"addq %[cpus], %q[c]\n\t"                                         \
	"cmpl $0, (%q[c])\n\t"                                            \
	"jne 5f\n\t"

#define SLAB_RSEQ_END                                                     \
	"2:\n\t"                                                          \
	SLAB_RSEQ_HANDLERS

/* After the section: out past the handlers; the signature, the abort
 * handler (4:), the slow path's (5:). */
#define SLAB_RSEQ_HANDLERS                                                \
	"jmp 6f\n\t"                                                      \
	".byte 0x0f, 0xb9, 0x3d\n\t"                                      \
	".long 0x53053053\n"                                              \
	"4:\n\t"                                                          \
	"movl %[aborted], %k[ret]\n\t"                                    \
	"jmp 6f\n"                                                        \
	"5:\n\t"                                                          \
	"movl %[nil], %k[ret]\n"                                          \
	"6:\n"

#define SLAB_RSEQ_IN(s)                                                   \
	[rs] "r"(slab_rseq_area()), [ncpus] "r"((uint32_t)(s)->ncpus),    \
	[cpus] "r"((s)->cpu), [csz] "i"(sizeof(struct slab_cpu)),         \
	[nil] "i"(SLAB_NIL), [aborted] "i"(SLAB_RSEQ_ABORTED)

/*
 * SLUB's sections commit as this_cpu_cmpxchg128 does on x86: one
 * cmpxchg16b without a lock prefix on the CPU's (freelist, tid) and the
 * 8 bytes beside them, tid advanced. Inside a restartable sequence the
 * compare cannot fail (nothing else writes those bytes meanwhile); it is
 * there for the instruction's cost, the kernel's. ZF after it (checked
 * past the section) says whether it stored.
 */
_Static_assert(offsetof(struct slab_cpu, freelist) % 16 == 0 &&
	       offsetof(struct slab_cpu, tid) ==
	       offsetof(struct slab_cpu, freelist) + 4 &&
	       offsetof(struct slab_cpu, slab) ==
	       offsetof(struct slab_cpu, freelist) + 8, "the cmpxchg128 pair");

#define SLAB_RSEQ_END_CMPXCHG                                             \
	"2:\n\t"                                                          \
	"jnz 5f\n\t"                                                      \
	SLAB_RSEQ_HANDLERS

/* rbx = the new freelist (low half, set) | tid + 1 (high half, from
 * rax); rcx = rdx: the bytes beside them unchanged. */
#define SLAB_RSEQ_NEXT_TID                                                \
	"movq %%rax, %%rcx\n\t"                                           \
	"shrq $32, %%rcx\n\t"                                             \
	"addl $1, %%ecx\n\t"                                              \
	"shlq $32, %%rcx\n\t"                                             \
	"orq %%rcx, %%rbx\n\t"                                            \
	"movq %%rdx, %%rcx\n\t"

/* rax = (freelist, tid), rdx = (slab, main), as they are. */
#define SLAB_RSEQ_LOAD_PAIR                                               \
	"movq %c[fl](%q[c]), %%rax\n\t"                                    \
	"movq %c[fl]+8(%q[c]), %%rdx\n\t"

#define SLAB_RSEQ_PAIR_OUT                                                \
	[ret] "=&r"(ret), [cpu] "=&r"(cpu_), [c] "=&r"(c),                \
	"=&a"(lo), "=&d"(hi), "=&b"(nlo), "=&c"(nhi)

/* SLUB's fast allocation: pop the CPU freelist. */
static inline uint32_t slab_rseq_freelist_pop(struct slab_cache *s,
					      uint32_t unused, int *cpu)
{
	uint64_t c, lo, hi, nlo, nhi;
	uint32_t ret, cpu_;

	__asm__ __volatile__(
		SLAB_RSEQ_BEGIN
		SLAB_RSEQ_LOAD_PAIR
		"cmpl %[nil], %%eax\n\t"
		"je 5f\n\t"
		"movl %%eax, %k[ret]\n\t"
		"movq %q[ret], %%rbx\n\t"               /* get_freepointer */
		"imulq %[osz], %%rbx\n\t"
		"movl (%[fp], %%rbx), %%ebx\n\t"
		SLAB_RSEQ_NEXT_TID
		"cmpxchg16b %c[fl](%q[c])\n"             /* commit */
		SLAB_RSEQ_END_CMPXCHG
		: SLAB_RSEQ_PAIR_OUT
		: SLAB_RSEQ_IN(s), [fp] "r"(s->objs + s->freeptr),
		  [osz] "rm"((uint64_t)s->objsize),
		  [fl] "i"(offsetof(struct slab_cpu, freelist))
		: "memory", "cc");
	*cpu = (int)cpu_;
	return ret;
}

/* SLUB's fast free: push object i onto the CPU freelist if it belongs
 * to the CPU's slab. */
static inline uint32_t slab_rseq_freelist_push(struct slab_cache *s,
					       uint32_t i, int *cpu)
{
	uint64_t c, lo, hi, nlo, nhi;
	uint32_t ret, cpu_;

	__asm__ __volatile__(
		SLAB_RSEQ_BEGIN
		SLAB_RSEQ_LOAD_PAIR
		"cmpl %k[si], %%edx\n\t"
		"jne 5f\n\t"
		"movl %%eax, (%[fp])\n\t"                 /* set_freepointer */
		"movl %k[i], %%ebx\n\t"
		SLAB_RSEQ_NEXT_TID
		"xorl %k[ret], %k[ret]\n\t"
		"cmpxchg16b %c[fl](%q[c])\n"             /* commit */
		SLAB_RSEQ_END_CMPXCHG
		: SLAB_RSEQ_PAIR_OUT
		: SLAB_RSEQ_IN(s), [fp] "r"(slab_freeptr(s, i)),
		  [i] "r"((uint64_t)i),
		  [si] "r"(i / SLAB_OBJS),
		  [fl] "i"(offsetof(struct slab_cpu, freelist))
		: "memory", "cc");
	*cpu = (int)cpu_;
	return ret;
}

/* The sheaves' sections: c = the CPU's main sheaf (none: the slow
 * path), n = its size. */
#define SLAB_RSEQ_MAIN_SHEAF                                              \
	"movl %c[main](%q[c]), %k[n]\n\t"                                  \
	"cmpl %[nil], %k[n]\n\t"                                          \
	"je 5f\n\t"                                                       \
	"imulq %[shsz], %q[n], %q[c]\n\t"                                  \
	"addq %[sheaf], %q[c]\n\t"                                         \
	"movl %c[size](%q[c]), %k[n]\n\t"

#define SLAB_RSEQ_SHEAF_IN(s)                                             \
	[sheaf] "r"((s)->sheaf), [shsz] "i"(sizeof(struct sheaf)),        \
	[main] "i"(offsetof(struct slab_cpu, main)),                      \
	[size] "i"(offsetof(struct sheaf, size)),                         \
	[objs] "i"(offsetof(struct sheaf, objs))

/* The sheaves' fast allocation: pop the main sheaf. */
static inline uint32_t slab_rseq_sheaf_pop(struct slab_cache *s,
					   uint32_t unused, int *cpu)
{
	uint32_t ret, cpu_, n;
	uint64_t c;

	__asm__ __volatile__(
		SLAB_RSEQ_BEGIN
		SLAB_RSEQ_MAIN_SHEAF
		"testl %k[n], %k[n]\n\t"
		"je 5f\n\t"
		"subl $1, %k[n]\n\t"
		"movl %c[objs](%q[c], %q[n], 4), %k[ret]\n\t"
		"movl %k[n], %c[size](%q[c])\n"          /* commit */
		SLAB_RSEQ_END
		: [ret] "=&r"(ret), [cpu] "=&r"(cpu_), [c] "=&r"(c), [n] "=&r"(n)
		: SLAB_RSEQ_IN(s), SLAB_RSEQ_SHEAF_IN(s)
		: "memory", "cc");
	*cpu = (int)cpu_;
	return ret;
}

/* The sheaves' fast free: push object i into the main sheaf. */
static inline uint32_t slab_rseq_sheaf_push(struct slab_cache *s, uint32_t i,
					    int *cpu)
{
	uint32_t ret, cpu_, n;
	uint64_t c;

	__asm__ __volatile__(
		SLAB_RSEQ_BEGIN
		SLAB_RSEQ_MAIN_SHEAF
		"cmpl %[cap], %k[n]\n\t"
		"jae 5f\n\t"
		"movl %k[i], %c[objs](%q[c], %q[n], 4)\n\t"
		"addl $1, %k[n]\n\t"
		"xorl %k[ret], %k[ret]\n\t"
		"movl %k[n], %c[size](%q[c])\n"          /* commit */
		SLAB_RSEQ_END
		: [ret] "=&r"(ret), [cpu] "=&r"(cpu_), [c] "=&r"(c), [n] "=&r"(n)
		: SLAB_RSEQ_IN(s), SLAB_RSEQ_SHEAF_IN(s), [i] "r"(i),
		  [cap] "i"(SHEAF_CAPACITY)
		: "memory", "cc");
	*cpu = (int)cpu_;
	return ret;
}

/*
 * this_cpu_add() as x86 makes it: one add without a lock prefix to the
 * counter of the CPU the thread runs on — here the commit of a section,
 * so a thread preempted or migrated before it adds nothing and tries
 * again where it then runs. Every count of a cache that counts this way
 * (s->count_rseq) is made by a thread on that CPU inside a section, so
 * none is lost, whatever the lock or path. False: the CPU is out of the
 * cache's range (the caller counts with an atomic add).
 */
static inline bool slab_rseq_count(struct slab_cache *s, enum slab_counter k,
				   uint64_t n)
{
	uint32_t ret, cpu_;
	uint64_t c;

	do {
		__asm__ __volatile__(
			SLAB_RSEQ_ENTER
			"addq %[ctr], %q[c]\n\t"
			"xorl %k[ret], %k[ret]\n\t"
			"addq %[n], (%q[c])\n"          /* commit */
			SLAB_RSEQ_END
			: [ret] "=&r"(ret), [cpu] "=&r"(cpu_), [c] "=&r"(c)
			: SLAB_RSEQ_IN(s), [ctr] "r"(&s->cpu[0].counters[k]),
			  [n] "r"(n)
			: "memory", "cc");
	} while (ret == SLAB_RSEQ_ABORTED);
	return ret == 0;
}

#else

static inline bool slab_rseq_registered(void)
{
	return false;
}

static inline uint32_t slab_rseq_freelist_pop(struct slab_cache *s,
					      uint32_t unused, int *cpu)
{
	*cpu = 0;
	return SLAB_NIL;
}

static inline uint32_t slab_rseq_freelist_push(struct slab_cache *s,
					       uint32_t i, int *cpu)
{
	*cpu = 0;
	return SLAB_NIL;
}

static inline uint32_t slab_rseq_sheaf_pop(struct slab_cache *s,
					   uint32_t unused, int *cpu)
{
	*cpu = 0;
	return SLAB_NIL;
}

static inline uint32_t slab_rseq_sheaf_push(struct slab_cache *s, uint32_t i,
					    int *cpu)
{
	*cpu = 0;
	return SLAB_NIL;
}

static inline bool slab_rseq_count(struct slab_cache *s, enum slab_counter k,
				   uint64_t n)
{
	return false;
}

#endif

/*
 * stat(): SLUB_STATS' raw_cpu_inc(), which on x86 is one incq on the
 * running CPU's counter and loses no count. Where sections run
 * (s->count_rseq) a count is that instruction in a section
 * (slab_rseq_count); elsewhere (TSan, no rseq area, more CPUs than the
 * cache has) an atomic add to c's — NULL: the CPU the caller runs on,
 * looked up only then. Either way a fast path pays no locked
 * instruction for its statistics where sections run.
 */
static inline void slab_stat_inc(struct slab_cache *s, struct slab_cpu *c,
				 enum slab_counter k, uint64_t n)
{
	if (s->count_rseq && slab_rseq_count(s, k, n))
		return;
	if (!c)
		c = slab_cpu_mine(s);
	atomic_fetch_add_explicit(&c->counters[k], n, memory_order_relaxed);
}

#endif
