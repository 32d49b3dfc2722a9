/* SPDX-License-Identifier: MIT */
/*
 * Lazy RCU (locks/sync/rcu_lazy.c): a CPU's lazy callbacks wait until
 * lazy_max of them are there, then go to a grace period together — and
 * the count is the CPU's, not the process's: callbacks queued on one CPU
 * by two processes (the task processes of a run) make one count, and
 * when it reaches the limit both processes' lists go, as the kernel's
 * per-CPU bypass list holds every process's callbacks. Before, each
 * process counted alone and could hold lazy_max a CPU by itself.
 */
#include "tests/check_util.h"
#include <stdatomic.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "locks/sync/rcu.h"

#define MAX 100

static _Atomic int *ran;                 /* shared: [0] parent, [1] child */
static int who;
static struct sim_rcu_head heads[2 * MAX];

static void count_cb(struct sim_rcu_head *h)
{
	(void)h;
	atomic_fetch_add(&ran[who], 1);
}

static void queue(int from, int n)
{
	for (int k = 0; k < n; k++)
		sim_call_rcu_lazy(&heads[from + k], count_cb);
}

static void setup(void)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	ran = mmap(NULL, 2 * sizeof(*ran), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(ran, MAP_FAILED);
	sim_rcu_lazy_set(MAX, 1000ULL * 1000000000ULL);     /* no aging */
}

/* One process: MAX - 1 wait past a barrier of what was queued; the
 * MAX-th sends them all. */
START_TEST(test_limit)
{
	setup();
	queue(0, MAX - 1);
	sim_rcu_barrier_queued();
	ck_assert_int_eq(ran[0], 0);
	queue(MAX - 1, 1);
	sim_rcu_barrier_queued();
	ck_assert_int_eq(ran[0], MAX);
}
END_TEST

/* Two processes on one CPU: the child queues 60 and waits; the parent's
 * 40th makes the CPU's count MAX, so the parent's 40 go; the child's 60
 * go when it next queues (the CPU's generation moved). */
START_TEST(test_shared_count)
{
	int to_child[2], to_parent[2], status;
	char c = 0;
	pid_t pid;

	setup();
	ck_assert_int_eq(pipe(to_child), 0);
	ck_assert_int_eq(pipe(to_parent), 0);
	sim_rcu_before_fork();
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		sim_rcu_after_fork_child();
		who = 1;
		queue(0, 60);
		if (write(to_parent[1], &c, 1) != 1 ||
		    read(to_child[0], &c, 1) != 1)
			_exit(2);
		queue(60, 1);
		sim_rcu_barrier_queued();
		_exit(ran[1] == 60 ? 0 : 1);
	}
	sim_rcu_after_fork_parent();
	ck_assert_int_eq(read(to_parent[0], &c, 1), 1);
	queue(0, 39);
	sim_rcu_barrier_queued();
	ck_assert_int_eq(ran[0], 0);             /* 99 on the CPU */
	queue(39, 1);
	sim_rcu_barrier_queued();
	ck_assert_int_eq(ran[0], 40);
	ck_assert_int_eq(write(to_child[1], &c, 1), 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
		      "the child's 60 did not go with the CPU's flush "
		      "(status %d)", status);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rcu_lazy");
	TCase *tc = tcase_create("rcu_lazy");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_limit);
	tcase_add_test(tc, test_shared_count);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
