/* SPDX-License-Identifier: MIT */
/*
 * uffd integration with real faults: threads touch pages of a uffd-
 * registered arena and the handler pool resolves them against the
 * simulated mm. Checks that every page reads back what was written (and
 * file pages their file contents), that a touch outside any VMA or a
 * write to a read-only VMA is refused (a signal -> -EFAULT) and counted,
 * that munmap really zaps, and that shutdown leaves no thread or fd.
 * Skips (77) only when userfaultfd is truly unavailable.
 */
#include "sim/faults/sources.h"
#include "tests/check_util.h"
#include "tests/uffd/uffd_util.h"
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/faults/uffd_source.h"
#include "sim/faults/uffd_source_int.h"
#include "sim/fault.h"
#include "sim/mm.h"
#include "tests/sim/test_tree.h"

#define P SIM_PAGE_SIZE
#define NPAGES 512
#define NTHR 4

static int count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static struct sim_mm *mk(enum uffd_wait_mode wait, int handlers)
{
	/* Read only while the mm is made. */
	const struct uffd_source_opts opts = { .nhandlers = handlers,
					       .wait = wait, .batch = 8 };
	struct sim_mm_cfg cfg = { .tree = test_tree(),
		.lock = &rwsem_lock_ops, .arena_size = 4096 * P,
		.source = &uffd_fault_source, .source_opts = &opts,
	};
	struct sim_mm *mm;
	int ret = sim_mm_create(&cfg, &mm);

	ck_assert_msg(ret == 0, "sim_mm_create: %s", strerror(-ret));
	return mm;
}

struct writer_arg {
	struct sim_mm *mm;
	unsigned long base;
	int id;
	int errors;
};

static unsigned char page_val(int pg)
{
	return (unsigned char)(pg * 7 + 1);
}

static void *writer(void *p)
{
	struct writer_arg *a = p;

	for (int pg = a->id; pg < NPAGES; pg += NTHR) {
		unsigned char v = page_val(pg);

		if (sim_touch(a->mm, a->base + (unsigned long)pg * P, true, &v))
			a->errors++;
	}
	return NULL;
}

static void contents_roundtrip(enum uffd_wait_mode wait)
{
	struct sim_mm *mm = mk(wait, 2);
	struct writer_arg a[NTHR];
	pthread_t t[NTHR];
	unsigned long base;

	ck_assert_int_eq(sim_do_mmap(mm, 0, NPAGES * P, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE, SIM_FILE_NONE, 0, &base), 0);
	for (int i = 0; i < NTHR; i++) {
		a[i] = (struct writer_arg){ mm, base, i, 0 };
		pthread_create(&t[i], NULL, writer, &a[i]);
	}
	for (int i = 0; i < NTHR; i++) {
		pthread_join(t[i], NULL);
		ck_assert_int_eq(a[i].errors, 0);
	}
	for (int pg = 0; pg < NPAGES; pg++) {
		unsigned char v;

		ck_assert_int_eq(sim_touch(mm, base + (unsigned long)pg * P,
					   false, &v), 0);
		ck_assert_int_eq(v, page_val(pg));
	}
	sim_mm_stop_handlers(mm);
	/* Every first touch was a fault answered through userfaultfd. */
	ck_assert_uint_eq(sim_mm_source_counter(mm, "copy"), NPAGES);
	ck_assert_uint_eq(sim_mm_source_counter(mm, "messages"), NPAGES);
	ck_assert_uint_eq(sim_mm_source_counter(mm, "refused"), 0);
	ck_assert_uint_eq(sim_mm_source_counter(mm, "errors"), 0);
	sim_mm_destroy(mm);
}

START_TEST(test_roundtrip_block) { contents_roundtrip(UFFD_WAIT_BLOCK); }
END_TEST
START_TEST(test_roundtrip_poll) { contents_roundtrip(UFFD_WAIT_POLL); }
END_TEST
START_TEST(test_roundtrip_busy) { contents_roundtrip(UFFD_WAIT_BUSY); }
END_TEST
START_TEST(test_roundtrip_uring) { contents_roundtrip(UFFD_WAIT_URING); }
END_TEST

START_TEST(test_read_zero_and_file)
{
	struct sim_mm *mm = mk(UFFD_WAIT_BLOCK, 1);
	unsigned long anon, file;
	unsigned char v = 0xff;

	ck_assert_int_eq(sim_do_mmap(mm, 0, 4 * P, PROT_READ, MAP_PRIVATE,
				     SIM_FILE_NONE, 0, &anon), 0);
	ck_assert_int_eq(sim_touch(mm, anon + P + 5, false, &v), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(sim_do_mmap(mm, 0, 4 * P, PROT_READ, MAP_PRIVATE,
				     7, 3, &file), 0);
	for (int pg = 0; pg < 4; pg++) {
		uint64_t got, want = sim_file_word(7, (unsigned long)(pg + 3) * P + 64);

		ck_assert_int_eq(sim_touch(mm, file + (unsigned long)pg * P, false,
					   &v), 0);
		memcpy(&got, (void *)(file + (unsigned long)pg * P + 64), 8);
		ck_assert_uint_eq(got, want);
	}
	sim_mm_stop_handlers(mm);
	/* A read-only VMA's pages are mapped write-protected (so that a
	 * write faults although the host VMA is writable): a copy, not the
	 * zero page. */
	ck_assert_uint_eq(sim_mm_source_counter(mm, "zeropage"), 0);
	ck_assert_uint_eq(sim_mm_source_counter(mm, "copy"), 5);
	sim_mm_destroy(mm);
}
END_TEST

/* Refused accesses are answered with a signal the touch turns into
 * -EFAULT; the page is left alone (a refused write does not spoil later
 * reads), and the thread goes on. */
START_TEST(test_refused_access)
{
	struct sim_mm *mm = mk(UFFD_WAIT_BLOCK, 1);
	uint64_t f[SIM_FAULT_NKINDS];
	unsigned long ro;
	unsigned char v = 1;

	/* No VMA at the bottom of the arena. */
	ck_assert_int_eq(sim_touch(mm, mm->base + 10 * P, true, &v), -EFAULT);
	ck_assert_int_eq(sim_do_mmap(mm, 0, 2 * P, PROT_READ, MAP_PRIVATE,
				     SIM_FILE_NONE, 0, &ro), 0);
	ck_assert_int_eq(sim_touch(mm, ro, true, &v), -EFAULT);
	/* The thread is still fine and can fault normally afterwards, the
	 * refused page included. */
	ck_assert_int_eq(sim_touch(mm, ro + P, false, &v), 0);
	ck_assert_int_eq(sim_touch(mm, ro, false, &v), 0);
	ck_assert_int_eq(v, 0);
	sim_mm_stop_handlers(mm);
	sim_mm_fault_counts(mm, f);
	ck_assert_uint_eq(f[SIM_FAULT_NOVMA], 1);
	ck_assert_uint_eq(f[SIM_FAULT_PROT], 1);
	ck_assert_uint_eq(sim_mm_source_counter(mm, "refused"), 2);
	sim_mm_destroy(mm);
}
END_TEST

START_TEST(test_munmap_zaps)
{
	struct sim_mm *mm = mk(UFFD_WAIT_BLOCK, 1);
	unsigned long a, b;
	unsigned char v = 42;

	ck_assert_int_eq(sim_do_mmap(mm, 0, 2 * P, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE, SIM_FILE_NONE, 0, &a), 0);
	ck_assert_int_eq(sim_touch(mm, a, true, &v), 0);
	ck_assert_int_eq(sim_do_munmap(mm, a, 2 * P), 0);
	/* Gone from the simulated mm: the touch is refused. */
	ck_assert_int_eq(sim_touch(mm, a, false, &v), -EFAULT);
	ck_assert_int_eq(sim_do_mmap(mm, a, 2 * P, PROT_READ | PROT_WRITE,
				     MAP_FIXED, SIM_FILE_NONE, 0, &b), 0);
	ck_assert_uint_eq(a, b);
	ck_assert_int_eq(sim_touch(mm, a, false, &v), 0);
	ck_assert_int_eq(v, 0);                  /* a fresh page */
	sim_mm_destroy(mm);
}
END_TEST

/* One uffd per task: the arena dealt out in 2 MiB stripes, and a claimed
 * range answered by the claiming task's uffd alone. */
START_TEST(test_per_task_uffds)
{
	static const struct uffd_source_opts four = { .nhandlers = 1,
						      .nuffds = 4 };
	struct sim_mm_cfg cfg = { .tree = test_tree(),
		.lock = &rwsem_lock_ops, .arena_size = 64UL << 20,
				  .source = &uffd_fault_source,
				  .source_opts = &four };
	struct sim_mm *mm;
	struct uffd_source *u;
	unsigned long a, b;
	unsigned char v = 5;

	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	u = us(mm->src);
	ck_assert_int_eq(u->nchan, 4);
	/* 3 MiB across two stripes (0 and 1) claimed by task 2 (6 mod 4),
	 * before any page of it is there. */
	b = (mm->base + (2UL << 20) - 1) & ~((2UL << 20) - 1);
	ck_assert_int_eq(sim_do_mmap(mm, b, 8UL << 20, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_FIXED, SIM_FILE_NONE, 0,
				     &a), 0);
	ck_assert_int_eq(sim_mm_claim(mm, b + P, b + P + (3UL << 20), 6), 0);
	/* The first page of each stripe: stripe k on uffd k, but stripe 1's
	 * first page is claimed. */
	for (int k = 0; k < 4; k++)
		ck_assert_int_eq(sim_touch(mm, b + ((unsigned long)k << 21), true,
					   &v), 0);
	for (unsigned long x = b + P; x < b + P + (3UL << 20); x += 64 * P)
		ck_assert_int_eq(sim_touch(mm, x, true, &v), 0);     /* 12 */
	/* A page is there: refused. */
	ck_assert_int_eq(sim_mm_claim(mm, b, b + P, 1), -EBUSY);
	/* mprotect across stripes 2 and 3 (uffds 2 and 3): enforced on
	 * both, and nothing the host refused. */
	ck_assert_int_eq(sim_do_mprotect(mm, b + (4UL << 20), 4UL << 20,
					 PROT_READ), 0);
	ck_assert_int_eq(sim_touch(mm, b + (4UL << 20), true, &v), -EFAULT);
	ck_assert_int_eq(sim_touch(mm, b + (6UL << 20), true, &v), -EFAULT);
	ck_assert_int_eq(sim_touch(mm, b + (6UL << 20), false, &v), 0);
	for (int k = 0; k < SIM_SRC_NOPS; k++)
		ck_assert_msg(!mm->src_err.n[k], "%s failed: %s",
			      sim_src_op_name(k), strerror(mm->src_err.first[k]));
	/* MAP_POPULATE over four stripes: every page placed, no fault. */
	ck_assert_int_eq(sim_do_mmap(mm, b + (16UL << 20), 8UL << 20,
				     PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_FIXED | MAP_POPULATE,
				     SIM_FILE_NONE, 0, &a), 0);
	ck_assert_uint_eq(mm->populated, (8UL << 20) / P);
	sim_mm_stop_handlers(mm);
	{
		/* + the two refused writes, on uffds 2 and 3 */
		const uint64_t want[4] = { 1, 0, 2 + 12 + 1, 1 + 1 };

		for (int k = 0; k < 4; k++)
			ck_assert_msg(u->chan[k].final.messages == want[k],
				      "uffd %d: %lu messages, want %lu", k,
				      (unsigned long)u->chan[k].final.messages,
				      (unsigned long)want[k]);
	}
	sim_mm_destroy(mm);
}
END_TEST

/* A read of the uffd that fails (here: the fd is no uffd and not
 * readable) is counted and retried after a pause, never spun on. */
START_TEST(test_read_errors_counted)
{
	struct uffd_counters sum;
	struct uffd_pool *p;
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	for (int m = UFFD_WAIT_BLOCK; m <= UFFD_WAIT_URING; m++) {
		struct uffd_pool_cfg cfg = {
			.fd = fds[1], .nhandlers = 1, .batch = 4,
			.wait = (enum uffd_wait_mode)m, .fn = NULL,
		};

		if (m == UFFD_WAIT_POLL)
			continue;        /* poll() never says a write end is readable */
		ck_assert_int_eq(uffd_pool_start(&cfg, &p), 0);
		usleep(100000);
		ck_assert_int_ne(atomic_load(&uffd_pool_state(p, 0)->read_errno), 0);
		uffd_pool_stop(p, &sum);
		/* ~100 in 100 ms (a 1 ms pause each), not millions. */
		ck_assert_msg(sum.read_errors >= 5 && sum.read_errors <= 200,
			      "mode %d: %lu read errors in 100 ms", m,
			      (unsigned long)sum.read_errors);
	}
	close(fds[0]);
	close(fds[1]);
}
END_TEST

START_TEST(test_shutdown_leaves_nothing)
{
	int fds, thr;

	/* One cycle first: runtimes (TSan, liburcu) start helper threads
	 * lazily, and those are not ours to count. */
	sim_mm_destroy(mk(UFFD_WAIT_BLOCK, 1));
	fds = count_dir("/proc/self/fd");
	thr = count_dir("/proc/self/task");
	for (int m = UFFD_WAIT_BLOCK; m <= UFFD_WAIT_URING; m++) {
		struct sim_mm *mm = mk((enum uffd_wait_mode)m, 3);
		unsigned long a;
		unsigned char v = 1;

		ck_assert_int_eq(count_dir("/proc/self/task"), thr + 3);
		ck_assert_int_eq(sim_do_mmap(mm, 0, P, PROT_READ | PROT_WRITE,
					     MAP_PRIVATE, SIM_FILE_NONE, 0, &a), 0);
		ck_assert_int_eq(sim_touch(mm, a, true, &v), 0);
		sim_mm_destroy(mm);
		ck_assert_int_eq(count_dir("/proc/self/fd"), fds);
		ck_assert_int_eq(count_dir("/proc/self/task"), thr);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uffd");
	TCase *tc = tcase_create("real-faults");

	skip_without_uffd();
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_roundtrip_block);
	tcase_add_test(tc, test_roundtrip_poll);
	tcase_add_test(tc, test_roundtrip_busy);
	tcase_add_test(tc, test_roundtrip_uring);
	tcase_add_test(tc, test_read_zero_and_file);
	tcase_add_test(tc, test_refused_access);
	tcase_add_test(tc, test_munmap_zaps);
	tcase_add_test(tc, test_per_task_uffds);
	tcase_add_test(tc, test_read_errors_counted);
	tcase_add_test(tc, test_shutdown_leaves_nothing);
	suite_add_tcase(s, tc);
	return check_run(s, CK_VERBOSE);
}
