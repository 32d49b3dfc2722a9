/* SPDX-License-Identifier: MIT */
/*
 * Large folios and fault-around, under every scheme and both fault
 * sources, with exact counts:
 *  - an anonymous write fault places the --folio size (64K here), aligned,
 *    where it lies inside the VMA and no page of it is present: one
 *    fault, 16 pages, and the other 15 pages no longer fault;
 *  - where a page of it is present already, or the VMA is too small, the
 *    fault places one page (alloc_anon_folio's fallback);
 *  - a file read fault maps fault-around's window (64K) of absent pages,
 *    clamped to the VMA, each page with the file's contents;
 *  - munmap gives every page back.
 */
#include "sim/faults/sources.h"
#include "tests/check_util.h"
#include "tests/uffd/uffd_util.h"
#include <errno.h>

#include "sim/fault.h"
#include "sim/mm.h"
#include "tests/sim/test_tree.h"

#define P SIM_PAGE_SIZE
#define F (64UL << 10)

static struct sim_mm *mk_mm(const struct lock_ops *ops,
			    const struct fault_source_ops *src)
{
	struct sim_mm_cfg cfg = { .tree = test_tree(),
		.lock = ops, .arena_size = 4096 * P,
				  .source = src,
				  .folio_size = F, .fault_around = F };
	struct sim_mm *mm;

	ck_assert_int_eq(sim_mm_create(&cfg, &mm), 0);
	return mm;
}

static uint64_t nfaults(struct sim_mm *mm)
{
	uint64_t f[SIM_FAULT_NKINDS], n = 0;

	sim_mm_fault_counts(mm, f);
	for (int k = 0; k < SIM_FAULT_NKINDS; k++)
		n += f[k];
	return n;
}

static void touch(struct sim_mm *mm, unsigned long a, bool write)
{
	unsigned char v = 7;

	ck_assert_int_eq(sim_touch(mm, a, write, &v), 0);
}

static void expect(struct sim_mm *mm, uint64_t faults, uint64_t pages,
		   const char *what)
{
	ck_assert_msg(nfaults(mm) == faults, "%s: %s: %lu faults, want %lu",
		      mm->lock->ops->name, what, (unsigned long)nfaults(mm),
		      (unsigned long)faults);
	ck_assert_msg(sim_mm_fault_pages(mm) == pages,
		      "%s: %s: %lu pages placed, want %lu", mm->lock->ops->name,
		      what, (unsigned long)sim_mm_fault_pages(mm),
		      (unsigned long)pages);
}

static void anon_folios(const struct lock_ops *ops,
			const struct fault_source_ops *src)
{
	struct sim_mm *mm = mk_mm(ops, src);
	unsigned long b = (mm->base + 1024 * P + F - 1) & ~(F - 1), a;

	ck_assert_int_eq(sim_do_mmap(mm, b, 4 * F, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_FIXED, SIM_FILE_NONE, 0,
				     &a), 0);
	touch(mm, b + 3 * P, true);
	expect(mm, 1, 16, "a write places the folio");
	for (unsigned long x = b; x < b + F; x += P)
		touch(mm, x, true);
	expect(mm, 1, 16, "the folio's other pages do not fault");
	ck_assert_uint_eq(sim_mm_resident(mm), 16);

	touch(mm, b + F + P, false);         /* the zero page: one page */
	expect(mm, 2, 17, "a read maps one page");
	touch(mm, b + F + 2 * P, true);      /* a page of it is present */
	expect(mm, 3, 18, "a folio with a present page falls back");

	/* A VMA smaller than a folio: pages. */
	ck_assert_int_eq(sim_do_mmap(mm, b + 8 * F, 3 * P, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_FIXED, SIM_FILE_NONE, 0,
				     &a), 0);
	touch(mm, b + 8 * F, true);
	expect(mm, 4, 19, "a folio that does not fit the VMA falls back");

	ck_assert_int_eq(sim_do_munmap(mm, b, 4 * F), 0);
	ck_assert_uint_eq(sim_mm_resident(mm), 1);
	sim_mm_stop_handlers(mm);
	sim_mm_destroy(mm);
}

/* 8 bytes of the file page at x, read through the mm. */
static uint64_t read_word(struct sim_mm *mm, unsigned long x)
{
	uint64_t w = 0;

	for (int i = 0; i < 8; i++) {
		unsigned char v;

		ck_assert_int_eq(sim_touch(mm, x + 64 + (unsigned long)i, false,
					   &v), 0);
		w |= (uint64_t)v << (8 * i);
	}
	return w;
}

static void fault_around(const struct lock_ops *ops,
			 const struct fault_source_ops *src)
{
	struct sim_mm *mm = mk_mm(ops, src);
	unsigned long b = (mm->base + 1024 * P + F - 1) & ~(F - 1), a, c;

	ck_assert_int_eq(sim_do_mmap(mm, b, 4 * F, PROT_READ,
				     MAP_PRIVATE | MAP_FIXED, 5, 0, &a), 0);
	touch(mm, b + 5 * P, false);
	expect(mm, 1, 16, "a file read maps its aligned window");
	for (unsigned long x = b; x < b + F; x += P)
		ck_assert_uint_eq(read_word(mm, x),
				  sim_file_word(5, x - b + 64));
	expect(mm, 1, 16, "the window's pages hold the file and do not fault");
	touch(mm, b + F + 9 * P, false);
	expect(mm, 2, 32, "the next window");

	/* A VMA starting 3 pages into a window: from the VMA's start, the
	 * window's length (do_fault_around's clamp). */
	c = b + 8 * F + 3 * P;
	ck_assert_int_eq(sim_do_mmap(mm, c, 2 * F, PROT_READ,
				     MAP_PRIVATE | MAP_FIXED, 6, 0, &a), 0);
	touch(mm, c + P, false);
	expect(mm, 3, 48, "the window clamped to the VMA's start");
	touch(mm, c + 15 * P, false);
	expect(mm, 3, 48, "the clamped window's last page is mapped");
	touch(mm, c + 16 * P, false);
	expect(mm, 4, 61, "the next window: the 13 pages left in it");
	sim_mm_stop_handlers(mm);
	sim_mm_destroy(mm);
}

START_TEST(test_folio_uffd)
{
	anon_folios(lock_schemes[_i], &uffd_fault_source);
	fault_around(lock_schemes[_i], &uffd_fault_source);
}
END_TEST

START_TEST(test_folio_synthetic)
{
	anon_folios(lock_schemes[_i], &synthetic_fault_source);
	fault_around(lock_schemes[_i], &synthetic_fault_source);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("folio");
	TCase *tc = tcase_create("folio");

	/* Generous: a sanitizer build on a busy machine runs many times slower. */
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_folio_synthetic, 0, lock_nschemes);
	ADD_UFFD_TESTS(tc, test_folio_uffd, lock_nschemes);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
