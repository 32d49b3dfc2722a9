/* SPDX-License-Identifier: MIT */
/*
 * Tests the userfaultfd transport alone (uffd/), linked with nothing of
 * the simulation: open and the API handshake, register, a thread's
 * missing faults answered by UFFDIO_COPY and UFFDIO_ZEROPAGE through
 * uffd/resolve.c with their counters, an answer to a page already there
 * (EEXIST: woken, not lost), and write-protection resolved by
 * UFFDIO_WRITEPROTECT where the kernel has it.
 */
#include "tests/check_util.h"
#include "tests/uffd/uffd_util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "uffd/resolve.h"
#include "uffd/uffd.h"

#define PAGE 4096UL
#define NPAGES 8

struct toucher {
	unsigned char *base;
	int npages;
	bool write;
	unsigned sum;                    /* what the reads saw */
	atomic_bool done;
};

static void *touch(void *arg)
{
	struct toucher *t = arg;

	for (int i = 0; i < t->npages; i++) {
		volatile unsigned char *p = t->base + (size_t)i * PAGE;

		if (t->write)
			*p = (unsigned char)(i + 1);
		else
			t->sum += *p;
	}
	atomic_store(&t->done, true);
	return NULL;
}

/* One uffd_msg, waiting at most 10 s (a fault never delivered fails the
 * test instead of hanging it). */
static void read_msg(int fd, struct uffd_msg *m)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	ck_assert_int_eq(poll(&p, 1, 10000), 1);
	ck_assert_int_eq(read(fd, m, sizeof(*m)), (ssize_t)sizeof(*m));
}

static int open_api(uint64_t want, struct uffd_info *info)
{
	bool via_dev;
	int fd = uffd_open(O_NONBLOCK, &via_dev, NULL);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(uffd_api(fd, want, info), 0);
	return fd;
}

static unsigned char *map_registered(int fd, uint64_t mode)
{
	unsigned char *m = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t ioctls = 0;

	ck_assert_ptr_ne(m, MAP_FAILED);
	ck_assert_int_eq(uffd_register(fd, m, NPAGES * PAGE, mode, &ioctls), 0);
	ck_assert(ioctls & (1ULL << _UFFDIO_COPY));
	return m;
}

/* The next fault: a page fault at page i of m, a write or a read; its
 * page's address. */
static unsigned long next_fault(int fd, const unsigned char *m, int i,
				bool write)
{
	struct uffd_msg msg;
	unsigned long a;

	read_msg(fd, &msg);
	ck_assert_int_eq(msg.event, UFFD_EVENT_PAGEFAULT);
	a = (unsigned long)msg.arg.pagefault.address & ~(PAGE - 1);
	ck_assert_uint_eq(a, (unsigned long)m + (unsigned long)i * PAGE);
	ck_assert(!(msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE) ==
		  !write);
	return a;
}

/* Every page's first write faults once; the answer is a copy of a page
 * filled with its index, then the write lands on it. */
START_TEST(test_copy_answers_writes)
{
	struct uffd_info info;
	int fd = open_api(0, &info);
	unsigned char *m = map_registered(fd, UFFDIO_REGISTER_MODE_MISSING);
	struct uffd_counters c = { 0 };
	struct toucher t = { .base = m, .npages = NPAGES, .write = true };
	unsigned char src[PAGE];
	pthread_t th;

	ck_assert_int_eq(pthread_create(&th, NULL, touch, &t), 0);
	for (int i = 0; i < NPAGES; i++) {
		unsigned long a = next_fault(fd, m, i, true);

		memset(src, 0xa0 + i, PAGE);
		ck_assert_int_eq(uffd_resolve_copy(fd, a, src, PAGE, false, false,
						   &c), 0);
	}
	pthread_join(th, NULL);
	ck_assert(atomic_load(&t.done));
	for (int i = 0; i < NPAGES; i++) {
		ck_assert_uint_eq(m[i * PAGE], (unsigned)(i + 1));   /* the write */
		ck_assert_uint_eq(m[i * PAGE + 1], 0xa0u + i);       /* the copy */
	}
	ck_assert_uint_eq(c.copies, NPAGES);
	ck_assert_uint_eq(c.errors, 0);
	ck_assert_int_eq(uffd_unregister(fd, m, NPAGES * PAGE), 0);
	munmap(m, NPAGES * PAGE);
	close(fd);
}
END_TEST

/* Reads answered with the zero page read zeros; a second answer to a
 * page already placed is EEXIST, answered with a wake and counted. */
START_TEST(test_zeropage_and_eexist)
{
	struct uffd_info info;
	int fd = open_api(0, &info);
	unsigned char *m = map_registered(fd, UFFDIO_REGISTER_MODE_MISSING);
	struct uffd_counters c = { 0 };
	struct toucher t = { .base = m, .npages = NPAGES, .write = false };
	unsigned char src[PAGE];
	pthread_t th;

	ck_assert_int_eq(pthread_create(&th, NULL, touch, &t), 0);
	for (int i = 0; i < NPAGES; i++)
		ck_assert_int_eq(uffd_resolve_zeropage(fd, next_fault(fd, m, i,
			false), PAGE, false, &c), 0);
	pthread_join(th, NULL);
	ck_assert_uint_eq(t.sum, 0);
	ck_assert_uint_eq(c.zeropages, NPAGES);
	/* The page is there: the copy finds it, wakes, and is no error. */
	memset(src, 1, PAGE);
	ck_assert_int_eq(uffd_resolve_copy(fd, (unsigned long)m, src, PAGE,
					   false, false, &c), 0);
	ck_assert_uint_eq(c.wakes, 1);
	ck_assert_uint_eq(c.copies, 0);
	ck_assert_uint_eq(m[0], 0);
	munmap(m, NPAGES * PAGE);
	close(fd);
}
END_TEST

/* A page copied write-protected: its read goes through, its write faults
 * as a WP fault, and UFFDIO_WRITEPROTECT lets it land. */
START_TEST(test_writeprotect)
{
	struct uffd_info info;
	int fd = open_api(UFFD_FEATURE_PAGEFAULT_FLAG_WP, &info);
	unsigned char *m, src[PAGE];
	struct uffd_counters c = { 0 };
	struct toucher t = { .npages = 1, .write = true };
	struct uffd_msg msg;
	pthread_t th;

	if (!(info.features & UFFD_FEATURE_PAGEFAULT_FLAG_WP) ||
	    !(info.ioctls & (1ULL << _UFFDIO_WRITEPROTECT))) {
		printf("SKIP: no write-protect faults here: test_writeprotect "
		       "not run\n");
		close(fd);
		return;
	}
	m = map_registered(fd, UFFDIO_REGISTER_MODE_MISSING |
			       UFFDIO_REGISTER_MODE_WP);
	memset(src, 7, PAGE);
	ck_assert_int_eq(uffd_resolve_copy(fd, (unsigned long)m, src, PAGE,
					   false, true, &c), 0);
	ck_assert_uint_eq(m[0], 7);                      /* a read: no fault */
	t.base = m;
	ck_assert_int_eq(pthread_create(&th, NULL, touch, &t), 0);
	read_msg(fd, &msg);
	ck_assert(msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP);
	ck_assert(!atomic_load(&t.done));
	ck_assert_int_eq(uffd_writeprotect(fd, (unsigned long)m, PAGE, false,
					   false), 0);
	pthread_join(th, NULL);
	ck_assert_uint_eq(m[0], 1);
	munmap(m, NPAGES * PAGE);
	close(fd);
}
END_TEST

/* The probe says what vmsim check prints: the features UFFDIO_API gave. */
START_TEST(test_probe)
{
	struct uffd_probe p;

	uffd_probe(&p);
	ck_assert_int_eq(p.open_err, 0);
	ck_assert_int_eq(p.api_err, 0);
	ck_assert(p.info.ioctls & (1ULL << _UFFDIO_REGISTER));
	ck_assert_ptr_nonnull(uffd_feature_name(0));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uffd");
	TCase *tc = tcase_create("transport");

	skip_without_uffd();
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_copy_answers_writes);
	tcase_add_test(tc, test_zeropage_and_eexist);
	tcase_add_test(tc, test_writeprotect);
	tcase_add_test(tc, test_probe);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
