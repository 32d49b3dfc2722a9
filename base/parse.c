/* SPDX-License-Identifier: MIT */
#include "base/parse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	switch (toupper((unsigned char)*end)) {
	case 0:
		break;
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	case 'T': shift = 40; end++; break;
	default:
		return -EINVAL;
	}
	if (shift && *end && strcasecmp(end, "B") && strcasecmp(end, "iB"))
		return -EINVAL;
	if (!shift && *end && strcasecmp(end, "B"))
		return -EINVAL;
	if (!v)
		return -ERANGE;
	if (v > (SIZE_MAX >> shift))
		return -ERANGE;
	*out = (size_t)(v << shift);
	return 0;
}

static int parse_one_task(const char *s, size_t len, int ncpus, int limit,
			  int *out)
{
	char buf[32];
	long v;
	int ret;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (!strcmp(buf, "max")) {
		*out = ncpus;
		return 0;
	}
	ret = parse_long(buf, 1, limit, &v);
	if (ret)
		return ret;
	*out = (int)v;
	return 0;
}

int parse_list_check(const char *s)
{
	size_t n;

	if (!s || !*s)
		return -EINVAL;
	n = strlen(s);
	if (s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,"))
		return -EINVAL;
	return 0;
}

int parse_first_duplicate(const long *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = 0; j < i; j++)
			if (v[i] == v[j])
				return i;
	return -1;
}

int parse_tasks(const char *s, int ncpus, int limit, int *out, int cap,
		int *n)
{
	const char *p = s;

	*n = 0;
	if (parse_list_check(s))
		return -EINVAL;
	for (;;) {
		size_t len = strcspn(p, ",");
		const char *dash = memchr(p, '-', len);
		int lo, hi, ret;

		if (dash) {
			ret = parse_one_task(p, (size_t)(dash - p), ncpus, limit, &lo);
			if (!ret)
				ret = parse_one_task(dash + 1, len - (size_t)(dash - p) - 1,
						     ncpus, limit, &hi);
			if (!ret && hi < lo)
				ret = -EINVAL;
		} else {
			ret = parse_one_task(p, len, ncpus, limit, &lo);
			hi = lo;
		}
		if (ret)
			return ret;
		for (int v = lo; v <= hi; v++) {
			if (*n >= cap)
				return -ERANGE;
			out[(*n)++] = v;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

int parse_choice(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -EINVAL;
}

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0. Overlong
 * forms, surrogates and code points above U+10FFFF are not valid. */
static int utf8_len(const unsigned char *s)
{
	int n;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* parse_printable() into out; true when all of s fitted. */
static bool printable_fit(char *out, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;

	if (!len)
		return !*p;
	while (*p) {
		int n = utf8_len(p);
		bool escape = !n || (n == 1 && (*p < 0x20 || *p == 0x7f)) ||
			      (n == 2 && p[0] == 0xc2 && p[1] < 0xa0); /* C1 */

		if (escape) {
			if (o + 4 >= len)
				break;
			snprintf(out + o, len - o, "\\x%02x", *p);
			o += 4;
			p++;
			continue;
		}
		if (o + (size_t)n >= len)
			break;
		memcpy(out + o, p, (size_t)n);
		o += (size_t)n;
		p += n;
	}
	out[o] = 0;
	return !*p;
}

char *parse_printable(char *out, size_t len, const char *s)
{
	/* Never cut silently: what does not fit ends in an ellipsis
	 * (whole characters and escapes before it). */
	if (!printable_fit(out, len, s) && len >= 8) {
		printable_fit(out, len - 3, s);
		strcat(out, "\xe2\x80\xa6");
	}
	return out;
}

char *parse_printable_words(char *out, size_t len, const char *s)
{
	char *cut;

	if (len < 16 || printable_fit(out, len, s))
		return out;
	/* Room for " ..." (an ellipsis, 3 bytes), at the last space. */
	out[len - 5] = 0;
	cut = strrchr(out, ' ');
	if (!cut || cut - out < (ptrdiff_t)len / 2) {
		char *lead;

		cut = lead = out + strlen(out);
		/* Not inside a UTF-8 sequence the truncation cut short. */
		while (lead > out && ((unsigned char)lead[-1] & 0xc0) == 0x80)
			lead--;
		if (lead > out && (unsigned char)lead[-1] >= 0xc0 &&
		    !utf8_len((const unsigned char *)lead - 1))
			cut = lead - 1;
	}
	memcpy(cut, " \xe2\x80\xa6", 5);
	return out;
}

char *parse_size_str(char *out, size_t len, uint64_t bytes)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (v == (double)(uint64_t)v)
		snprintf(out, len, "%llu %s", (unsigned long long)v, unit[u]);
	else
		snprintf(out, len, "%.1f %s", v, unit[u]);
	return out;
}
