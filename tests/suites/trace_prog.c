/* SPDX-License-Identifier: MIT */
/*
 * trace_prog — a program whose address-space activity is known, for the
 * record/replay test (tests/suites/record.sh). In a window at WINDOW it does a
 * fixed sequence on two threads (the second runs while the first waits
 * for it): mmaps, mprotects, munmaps, a madvise and page touches, each on
 * a fresh page, one in every 64 KiB (no folio covers two). After every
 * call it counts the VMAs in the window from /proc/self/maps.
 *
 *   trace_prog EXPECTED   writes, one line per event, what `vmsim trace
 *                         show` must print for the window (without the
 *                         time column), and "vmas N" after each call
 *   trace_prog --loop S   for S seconds, every 5 ms: mmap 64 KiB, write
 *                         two of its pages, munmap (for `record -p`)
 *   trace_prog --fork     maps 16 pages at WINDOW (one in every 64 KiB
 *                         written), forks without exec; the child writes
 *                         the 16 inherited pages, maps 4 of its own and
 *                         writes them (for `record --follow fork:N`)
 *
 * It allocates nothing itself (static buffers, no stdio) so that the
 * window's events are only these.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 0x300000000000UL
#define WINDOW_END (WINDOW + (1UL << 30))
#define K64 0x10000UL

static char out[1 << 16];
static size_t outn;
static char maps[1 << 20];

static void say(const char *fmt, unsigned long a, unsigned long b,
		unsigned long c)
{
	outn += (size_t)snprintf(out + outn, sizeof(out) - outn, fmt, a, b, c);
}

/* VMAs inside the window, from /proc/self/maps. */
static int window_vmas(void)
{
	int fd = open("/proc/self/maps", O_RDONLY), n = 0;
	size_t len = 0;
	ssize_t r;

	while (fd >= 0 && (r = read(fd, maps + len, sizeof(maps) - 1 - len)) > 0)
		len += (size_t)r;
	if (fd >= 0)
		close(fd);
	maps[len] = 0;
	for (char *l = maps; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		unsigned long s, e;

		if (sscanf(l, "%lx-%lx", &s, &e) == 2 && s >= WINDOW &&
		    e <= WINDOW_END)
			n++;
	}
	return n;
}

static void vmas(int th)
{
	say("%lu vmas %lu\n", (unsigned long)th, (unsigned long)window_vmas(), 0);
}

static void *map(int th, unsigned long a, unsigned long len)
{
	void *p = mmap((void *)a, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	say("%lu mmap 0x%lx len ", (unsigned long)th, a, 0);
	say("0x%lx rw- flags 0x100022 fd -1 off 0x0 = 0x%lx\n", len,
	    (unsigned long)p, 0);
	vmas(th);
	return p;
}

static void touch(int th, unsigned long a, int write)
{
	if (write)
		*(volatile char *)a = 1;
	else
		(void)*(volatile char *)a;
	say("%lu fault 0x%lx %s\n", (unsigned long)th, a,
	    (unsigned long)(write ? "write" : "read"));
}

static void prot(int th, unsigned long a, unsigned long len, int p)
{
	int r = mprotect((void *)a, len, p);

	say("%lu mprotect 0x%lx len 0x%lx ", (unsigned long)th, a, len);
	say("%s = 0x%lx\n", (unsigned long)(p == PROT_READ ? "r--" :
		p == PROT_NONE ? "---" : "rw-"), (unsigned long)r, 0);
	vmas(th);
}

static void unmap(int th, unsigned long a, unsigned long len)
{
	int r = munmap((void *)a, len);

	say("%lu munmap 0x%lx len 0x%lx", (unsigned long)th, a, len);
	say(" = 0x%lx\n", (unsigned long)r, 0, 0);
	vmas(th);
}

static void *worker(void *arg)
{
	unsigned long c = WINDOW + (8UL << 20);

	map(1, c, 4 * K64);
	for (int i = 0; i < 4; i++)
		touch(1, c + i * K64, i != 2);
	prot(1, c, K64, PROT_NONE);
	prot(1, c + 2 * K64, K64, PROT_READ);
	unmap(1, c + K64, K64);
	unmap(1, c, 4 * K64);
	return arg;
}

/* Until secs have passed: map, touch twice, unmap, pause. */
static int loop(int secs)
{
	time_t end = time(NULL) + secs;

	while (time(NULL) < end) {
		char *p = mmap(NULL, K64, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		p[0] = 1;
		p[K64 / 2] = 2;
		munmap(p, K64);
		usleep(5000);
	}
	return 0;
}

/* The parent's mapping, the child's writes to it and its own. */
static int forked(void)
{
	char *p = mmap((void *)WINDOW, 16 * K64, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	pid_t child;
	int st;

	if (p == MAP_FAILED)
		return 1;
	for (int i = 0; i < 16; i++)
		p[i * K64] = 1;
	if ((child = fork()) < 0)
		return 1;
	if (!child) {
		char *q;

		for (int i = 0; i < 16; i++)
			p[i * K64] = 2;
		q = mmap((void *)(WINDOW + (16UL << 20)), 4 * K64,
			 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED_NOREPLACE, -1, 0);
		if (q == MAP_FAILED)
			_exit(1);
		for (int i = 0; i < 4; i++)
			q[i * K64] = 3;
		_exit(0);
	}
	return waitpid(child, &st, 0) == child && WIFEXITED(st) &&
	       !WEXITSTATUS(st) ? 0 : 1;
}

int main(int argc, char **argv)
{
	unsigned long a = WINDOW, b = WINDOW + (16UL << 20);
	pthread_t t;
	int fd, r;

	if (argc == 3 && !strcmp(argv[1], "--loop"))
		return loop(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "--fork"))
		return forked();
	if (argc != 2)
		return 2;
	map(0, a, 16 * K64);
	touch(0, a, 1);
	touch(0, a + 4 * K64, 1);
	touch(0, a + 8 * K64, 0);
	prot(0, a + 8 * K64, 4 * K64, PROT_READ);
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	unmap(0, a + 4 * K64, 2 * K64);
	map(0, b, 8 * K64);
	touch(0, b, 1);
	touch(0, b + 3 * K64, 1);
	r = madvise((void *)b, 8 * K64, MADV_DONTNEED);
	say("0 madvise 0x%lx len 0x%lx advice 4 = 0x%lx\n", b, 8 * K64,
	    (unsigned long)r);
	vmas(0);
	touch(0, b, 1);
	prot(0, b + K64, K64, PROT_READ);
	unmap(0, b, 8 * K64);
	unmap(0, a, 16 * K64);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, out, outn) != (ssize_t)outn)
		return 1;
	close(fd);
	return 0;
}
