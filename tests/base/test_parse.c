/* SPDX-License-Identifier: MIT */
/* Tests the command-line value parsers: sizes, integers, task lists. */
#include "tests/check_util.h"
#include <errno.h>
#include <stdlib.h>

#include "base/parse.h"

START_TEST(test_size)
{
	size_t v;

	ck_assert_int_eq(parse_size("4096", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(parse_size("64M", &v), 0);
	ck_assert_uint_eq(v, 64UL << 20);
	ck_assert_int_eq(parse_size("2g", &v), 0);
	ck_assert_uint_eq(v, 2UL << 30);
	ck_assert_int_eq(parse_size("1GiB", &v), 0);
	ck_assert_uint_eq(v, 1UL << 30);
	ck_assert_int_eq(parse_size("8KB", &v), 0);
	ck_assert_uint_eq(v, 8192);
	ck_assert_int_eq(parse_size("12Q", &v), -EINVAL);
	ck_assert_int_eq(parse_size("", &v), -EINVAL);
	ck_assert_int_eq(parse_size("-1M", &v), -EINVAL);
	ck_assert_int_eq(parse_size("M", &v), -EINVAL);
	ck_assert_int_eq(parse_size("1MM", &v), -EINVAL);
	ck_assert_int_eq(parse_size("0", &v), -ERANGE);
	ck_assert_int_eq(parse_size("99999999999999999999", &v), -ERANGE);
	ck_assert_int_eq(parse_size("17179869184T", &v), -ERANGE);
}
END_TEST

START_TEST(test_long)
{
	long v;

	ck_assert_int_eq(parse_long("5", 1, 10, &v), 0);
	ck_assert_int_eq(v, 5);
	ck_assert_int_eq(parse_long("0", 1, 10, &v), -ERANGE);
	ck_assert_int_eq(parse_long("11", 1, 10, &v), -ERANGE);
	ck_assert_int_eq(parse_long("5x", 1, 10, &v), -EINVAL);
	ck_assert_int_eq(parse_long(" 5", 1, 10, &v), -EINVAL);
	ck_assert_int_eq(parse_long("", 1, 10, &v), -EINVAL);
}
END_TEST

START_TEST(test_tasks)
{
	int t[64], n;

	ck_assert_int_eq(parse_tasks("1,2,4", 8, 1024, t, 64, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(t[2], 4);
	ck_assert_int_eq(parse_tasks("1-8", 8, 1024, t, 64, &n), 0);
	ck_assert_int_eq(n, 8);
	ck_assert_int_eq(t[7], 8);
	ck_assert_int_eq(parse_tasks("max", 6, 1024, t, 64, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(t[0], 6);
	ck_assert_int_eq(parse_tasks("1,3-4", 8, 1024, t, 64, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(t[1], 3);
	ck_assert_int_eq(parse_tasks("0", 8, 1024, t, 64, &n), -ERANGE);
	ck_assert_int_eq(parse_tasks("4-2", 8, 1024, t, 64, &n), -EINVAL);
	ck_assert_int_eq(parse_tasks("1,,2", 8, 1024, t, 64, &n), -EINVAL);
	ck_assert_int_eq(parse_tasks("1,", 8, 1024, t, 64, &n), -EINVAL);
	ck_assert_int_eq(parse_tasks("a", 8, 1024, t, 64, &n), -EINVAL);
	ck_assert_int_eq(parse_tasks("1-100", 8, 1024, t, 64, &n), -ERANGE);
	ck_assert_int_eq(parse_tasks("2000", 8, 1024, t, 64, &n), -ERANGE);
}
END_TEST

START_TEST(test_choice)
{
	static const char *const names[] = { "text", "json", "csv" };

	ck_assert_int_eq(parse_choice("text", names, 3), 0);
	ck_assert_int_eq(parse_choice("csv", names, 3), 2);
	ck_assert_int_eq(parse_choice("CSV", names, 3), -EINVAL);
	ck_assert_int_eq(parse_choice("", names, 3), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("core");

	/* Generous: a sanitizer build on a busy machine runs many times slower. */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_size);
	tcase_add_test(tc, test_long);
	tcase_add_test(tc, test_tasks);
	tcase_add_test(tc, test_choice);
	suite_add_tcase(s, tc);
	return check_run(s, CK_NORMAL);
}
