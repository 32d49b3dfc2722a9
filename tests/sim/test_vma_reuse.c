/* SPDX-License-Identifier: MIT */
/*
 * SLAB_TYPESAFE_BY_RCU VMAs (--vma-free typesafe) under pervma: readers
 * race the reuse of the VMAs they look up. Reader threads take pervma's
 * fault-side lock (lock_vma_under_rcu) on pages of a region whose
 * one-page VMAs a writer keeps unmapping and mapping again, with an
 * mmap elsewhere in between that takes the object just freed (a freed
 * VMA goes into the CPU's main sheaf and the next allocation on that CPU
 * pops it). Whatever the reader locked — a VMA by its reference, or the
 * mm lock after a fallback — must cover the page it asked for: a reader
 * that did not revalidate the VMA after its reference would hold a VMA
 * reused for another range (the normal build catches that), and one
 * that read the VMA before the reference races the writer's set-up of
 * the new one (the TSan build catches that; it runs this test).
 * With --vma-free rcu the freed VMA is never the next one handed out.
 */
#include "tests/check_util.h"
#include "locks/schemes.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/faults/sources.h"
#include "sim/mm.h"
#include "tests/sim/test_tree.h"

#define P       SIM_PAGE_SIZE
#define NVMAS   32
#define CYCLES  3000
#define READERS 2
#define NRING   16                       /* VMAs mapped elsewhere */

struct reuse {
	struct sim_mm *mm;
	_Atomic int next_cpu;
	unsigned long base;
	_Atomic int stop;
	_Atomic long bad, by_vma, by_mm;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
}

/* What the fault side holds must cover addr. */
static void *reader(void *arg)
{
	struct reuse *r = arg;
	const struct lock_ops *ops = r->mm->lock->ops;
	unsigned seed = (unsigned)(uintptr_t)&seed;

	/* One reader shares the writer's CPU: preempted between its lookup
	 * and its reference, it wakes to a VMA the writer freed and reused. */
	pin(atomic_fetch_add(&r->next_cpu, 1));
	while (!atomic_load(&r->stop)) {
		unsigned long addr = r->base + (unsigned long)(rand_r(&seed) % NVMAS) * P;
		struct lock_handle h = { 0 };
		struct sim_vma *v = ops->fault_begin(r->mm->lock, addr, 0, &h);

		if (v) {
			if (addr < v->vm_start || addr >= v->vm_end)
				atomic_fetch_add(&r->bad, 1);
			atomic_fetch_add(&r->by_vma, 1);
		} else {                 /* fell back: the mm lock is held */
			atomic_fetch_add(&r->by_mm, 1);
		}
		ops->fault_end(r->mm->lock, &h);
	}
	return NULL;
}

static struct sim_vma *vma_at(struct sim_mm *mm, unsigned long addr)
{
	struct sim_vma *v;

	sim_rcu_read_lock();
	v = vma_tree_find(&mm->tree, addr);
	sim_rcu_read_unlock();
	return v;
}

static uint64_t counter(struct lock_inst *l, const char *name)
{
	const char *names[LOCK_MAX_COUNTERS];
	uint64_t vals[LOCK_MAX_COUNTERS];
	int n = l->ops->counters(l, names, vals);

	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return vals[i];
	return 0;
}

static int prot_of(int k)
{
	/* Neighbours differ, so that they never merge. */
	return PROT_READ | PROT_WRITE | (k & 1 ? PROT_EXEC : 0);
}

static void reuse_run(enum sim_vma_free how)
{
	struct sim_mm_cfg cfg = { .tree = test_tree(),
		.lock = &pervma_lock_ops, .arena_size = 4096 * P,
		.source = &synthetic_fault_source, .vma_free = how,
	};
	struct reuse r = { 0 };
	pthread_t t[READERS];
	long same = 0;
	unsigned seed = 5;
	unsigned long a, ring[NRING], ring0;

	ck_assert_int_eq(sim_mm_slabs_create(&cfg, SLAB_SHEAVES, RCU_FREE_CALL_RCU,
					     2, &cfg.slab_vma, &cfg.slab_node), 0);
	ck_assert_int_eq(sim_mm_create(&cfg, &r.mm), 0);
	ck_assert_int_eq(r.mm->vma_typesafe, how != SIM_VMA_FREE_RCU);
	ck_assert_int_eq(sim_do_mmap(r.mm, 0, NVMAS * P, PROT_READ, MAP_PRIVATE,
				     SIM_FILE_NONE, 0, &r.base), 0);
	for (int k = 0; k < NVMAS; k++)
		ck_assert_int_eq(sim_do_mmap(r.mm, r.base + (unsigned long)k * P, P,
					     prot_of(k), MAP_PRIVATE | MAP_FIXED,
					     SIM_FILE_NONE, 0, &a), 0);
	/* The ring's slots, a page apart: they never merge. */
	ring0 = r.base - (2 * NRING + 2) * P;
	pin(0);
	alarm(240);
	for (int i = 0; i < READERS; i++)
		pthread_create(&t[i], NULL, reader, &r);
	for (int c = 0; c < CYCLES; c++) {
		int k = (int)((unsigned)rand_r(&seed) % NVMAS);
		unsigned long at = r.base + (unsigned long)k * P;
		struct sim_vma *old = vma_at(r.mm, at);

		/* The ring's oldest goes; then elsewhere, the allocation right
		 * after the free, which stays there for NRING cycles. */
		if (c >= NRING)
			ck_assert_int_eq(sim_do_munmap(r.mm, ring[c % NRING], P), 0);
		ck_assert_int_eq(sim_do_munmap(r.mm, at, P), 0);
		ck_assert_int_eq(sim_do_mmap(r.mm, ring0 + (unsigned long)(c % NRING) * 2 * P,
					     P, PROT_READ, MAP_PRIVATE | MAP_FIXED,
					     SIM_FILE_NONE, 0, &ring[c % NRING]), 0);
		same += vma_at(r.mm, ring[c % NRING]) == old;
		ck_assert_int_eq(sim_do_mmap(r.mm, at, P, prot_of(k),
					     MAP_PRIVATE | MAP_FIXED,
					     SIM_FILE_NONE, 0, &a), 0);
	}
	atomic_store(&r.stop, 1);
	for (int i = 0; i < READERS; i++)
		pthread_join(t[i], NULL);
	alarm(0);
	printf("vma-free %-8s: reads %ld by VMA lock, %ld by mm lock; freed VMA "
	       "reused by the next mmap %ld of %d; vma_lock_reused %lu, "
	       "vma_lock_miss %lu\n", sim_vma_free_name(how),
	       atomic_load(&r.by_vma), atomic_load(&r.by_mm), same, CYCLES,
	       (unsigned long)counter(r.mm->lock, "vma_lock_reused"),
	       (unsigned long)counter(r.mm->lock, "vma_lock_miss"));
	ck_assert_msg(atomic_load(&r.bad) == 0, "%ld locks held a VMA not "
		      "covering the page asked for", atomic_load(&r.bad));
	ck_assert_int_gt(atomic_load(&r.by_vma), 0);
	/* Typesafe: the freed VMA went to this CPU's main sheaf and the next
	 * allocation on it (the writer is pinned) took it back. RCU: it is
	 * not free before a grace period, which outlasts the next mmap. */
	if (how == SIM_VMA_FREE_RCU)
		ck_assert_int_lt(same, CYCLES / 10);
	else
		ck_assert_int_gt(same, CYCLES / 2);
	sim_mm_destroy(r.mm);
	slab_cache_destroy(cfg.slab_vma);
	slab_cache_destroy(cfg.slab_node);
}

START_TEST(test_typesafe)
{
	reuse_run(SIM_VMA_FREE_SCHEME);          /* pervma's: typesafe */
}
END_TEST

START_TEST(test_rcu)
{
	reuse_run(SIM_VMA_FREE_RCU);
}
END_TEST

/* Two task processes share the slab caches (as they share the kernel's):
 * a typesafe VMA one process frees is the next the other allocates on
 * that CPU. The first process's pervma reader, holding its stale
 * pointer, must not take it for its own — the vm_mm check — even where
 * both processes' mm structures lie at the same address. */
START_TEST(test_other_process_reuse)
{
	struct sim_mm_cfg cfg = { .tree = test_tree(),
		.lock = &pervma_lock_ops, .arena_size = 64 * P,
		.source = &synthetic_fault_source,
	};
	int to_b[2], to_a[2], status;
	struct sim_mm *mm;
	struct sim_vma *v, *got;
	unsigned long at, b_at;
	pid_t pid;

	ck_assert_int_eq(sim_mm_slabs_create(&cfg, SLAB_SHEAVES, RCU_FREE_CALL_RCU,
					     2, &cfg.slab_vma, &cfg.slab_node), 0);
	ck_assert_int_eq(pipe(to_b), 0);
	ck_assert_int_eq(pipe(to_a), 0);
	pin(0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {                      /* B: maps once A has unmapped */
		char go;

		if (sim_mm_create(&cfg, &mm) || read(to_b[0], &go, 1) != 1 ||
		    sim_do_mmap(mm, 0, P, PROT_READ, MAP_PRIVATE, SIM_FILE_NONE,
				0, &b_at))
			_exit(2);
		got = vma_at(mm, b_at);
		if (write(to_a[1], &got, sizeof(got)) != sizeof(got))
			_exit(2);
		_exit(read(to_b[0], &go, 1) == 1 ? 0 : 2);    /* keep it */
	}
	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	ck_assert_int_eq(sim_do_mmap(mm, 0, P, PROT_READ, MAP_PRIVATE,
				     SIM_FILE_NONE, 0, &at), 0);
	v = vma_at(mm, at);
	ck_assert(mm->lock->env.vma_covers(mm->lock->env.arg, v, at, at + P));
	ck_assert_int_eq(sim_do_munmap(mm, at, P), 0);        /* freed */
	ck_assert_int_eq(write(to_b[1], "g", 1), 1);
	ck_assert_int_eq(read(to_a[0], &got, sizeof(got)), sizeof(got));
	ck_assert_ptr_eq(got, v);        /* B's new VMA is A's old object */
	ck_assert_msg(!mm->lock->env.vma_covers(mm->lock->env.arg, v, at, at + P),
		      "another process's VMA taken for this mm's (pool %s)",
		      v->pool == &mm->vmas ? "at the same address" : "differs");
	ck_assert_int_eq(write(to_b[1], "g", 1), 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && !WEXITSTATUS(status));
	sim_mm_destroy(mm);
	slab_cache_destroy(cfg.slab_vma);
	slab_cache_destroy(cfg.slab_node);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vma_reuse");
	TCase *tc = tcase_create("vma_reuse");

	tcase_set_timeout(tc, 280);
	tcase_add_test(tc, test_typesafe);
	tcase_add_test(tc, test_rcu);
	tcase_add_test(tc, test_other_process_reuse);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
