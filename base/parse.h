/* SPDX-License-Identifier: MIT */
/* Command-line value parsers. Each returns 0 or -EINVAL/-ERANGE and never
 * prints; the CLI names the bad value. */
#ifndef VMSIM_PARSE_H
#define VMSIM_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* "s" unless n is 1: "%d sample%s", n, PLURAL(n). */
#define PLURAL(n) ((n) == 1 ? "" : "s")

/* "64M", "2g", "4096", "1GiB": binary K/M/G/T suffixes; > 0. */
int parse_size(const char *s, size_t *out);
/* A decimal integer in [min, max]. */
int parse_long(const char *s, long min, long max, long *out);
/* The rule of every comma-separated list option (--lock, --tasks, bench
 * --vmas): at least one element, and no empty one (no leading, trailing
 * or doubled comma): 0 or -EINVAL. An element given twice is refused by
 * each option, after expanding ranges and "max". */
int parse_list_check(const char *s);
/* Index of the first element of v[0..n-1] equal to an earlier one, or
 * -1. */
int parse_first_duplicate(const long *v, int n);
/* "1,2,4", "1-8", "max", or a mix ("1,4-8"): task counts in [1, limit],
 * ascending order kept as given; at most cap entries. "max" is ncpus. */
int parse_tasks(const char *s, int ncpus, int limit, int *out, int cap,
		int *n);

/* The index of s among names[0..n-1], or -EINVAL. */
int parse_choice(const char *s, const char *const *names, int n);

/* s as it may be shown on a terminal: control characters and bytes that
 * are not valid UTF-8 become \xNN, so that a value echoed in a message
 * cannot move the cursor, change colours or end the line. Returns out
 * (always terminated; truncated to len). */
char *parse_printable(char *out, size_t len, const char *s);
/* parse_printable(), but a value too long for out is cut at a word (a space)
 * and ends in an ellipsis, not in the middle of a word. */
char *parse_printable_words(char *out, size_t len, const char *s);

/* bytes for a message: "4 KiB", "116.3 MiB", "16 GiB". Returns out. */
char *parse_size_str(char *out, size_t len, uint64_t bytes);

#endif
