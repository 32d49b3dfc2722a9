/* SPDX-License-Identifier: MIT */
/* Tests the runner's order of targets over rounds (workloads/runner.c). */
#include "tests/check_util.h"

#include "workloads/runner.h"

/* The runner's order of targets over rounds is a Williams design: every
 * round a permutation, every target first equally often, and every
 * ordered pair adjacent equally often (n rounds for even n, 2n for odd). */
START_TEST(test_round_order)
{
	for (int n = 1; n <= 8; n++) {
		int rows = n == 1 ? 1 : n % 2 ? 2 * n : n;
		int first[8] = { 0 }, pair[8][8] = { { 0 } };

		for (int i = 0; i < rows; i++) {
			int seen = 0;

			for (int k = 0; k < n; k++) {
				int s = runner_round_order(n, i, k);

				ck_assert_int_ge(s, 0);
				ck_assert_int_lt(s, n);
				ck_assert(!(seen & (1 << s)));
				seen |= 1 << s;
				if (!k)
					first[s]++;
				else
					pair[runner_round_order(n, i, k - 1)][s]++;
			}
			/* Round i + rows repeats round i. */
			for (int k = 0; k < n; k++)
				ck_assert_int_eq(runner_round_order(n, i, k),
						 runner_round_order(n, i + rows, k));
		}
		for (int s = 0; s < n; s++) {
			ck_assert_int_eq(first[s], rows / n);
			for (int t = 0; t < n; t++)
				if (s != t)
					ck_assert_int_eq(pair[s][t], (rows * (n - 1) / n) /
							 (n - 1));
		}
	}
}
END_TEST

static Suite *runner_suite(void)
{
	Suite *s = suite_create("runner");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_round_order);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(runner_suite(), CK_NORMAL);
}
