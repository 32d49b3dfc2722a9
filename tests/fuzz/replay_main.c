/* SPDX-License-Identifier: MIT */
/*
 * A fuzz target without libFuzzer: each file named (a folder: each file
 * in it) is read whole and given to LLVMFuzzerTestOneInput() once. Linked
 * with fuzz_*.c into fuzz_*_replay, which any compiler builds: the suite
 * replays the corpus under gcc's ASan+UBSan (a crash, a leak or an
 * undefined operation ends the program there), and a developer replays a
 * crash file a fuzzing run left with the plain build. scripts/fuzz.sh
 * does the fuzzing itself (clang, libFuzzer).
 *   fuzz_X_replay FILE|DIR...
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input, read whole: 0 or -1 (said). */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;
	int ret = -1;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap ? cap * 2 : 4096);

			if (!nb) {
				fprintf(stderr, "replay: %s: out of memory\n", path);
				goto out;
			}
			buf = nb;
			cap = cap ? cap * 2 : 4096;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		goto out;
	}
	LLVMFuzzerTestOneInput(buf, len);
	ret = 0;
out:
	free(buf);
	fclose(f);
	return ret;
}

/* A file, or each regular file of a folder: the number replayed, or -1. */
static int replay_path(const char *path)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int n = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path) ? -1 : 1;
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		char *p = malloc(len);
		int r = 0;

		if (!p) {
			n = -1;
			break;
		}
		snprintf(p, len, "%s/%s", path, e->d_name);
		if (!stat(p, &st) && S_ISREG(st.st_mode))
			r = replay_file(p) ? -1 : 1;
		free(p);
		if (r < 0) {
			n = -1;
			break;
		}
		n += r;
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	int total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		int n = replay_path(argv[i]);

		if (n < 0)
			return 1;
		total += n;
	}
	if (!total) {
		fprintf(stderr, "replay: no input in %s%s\n", argv[1],
			argc > 2 ? " and the rest" : "");
		return 1;
	}
	fprintf(stderr, "replay: %d inputs, none crashed\n", total);
	return 0;
}
