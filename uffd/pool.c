/* SPDX-License-Identifier: MIT */
#include "uffd/pool.h"
#include "base/slots.h"
#include "base/clock.h"
#include "base/cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define POOL_MAX_BATCH 64

struct uffd_handler {
	struct uffd_counters c;          /* first: owns its cache line */
	struct uffd_handler_state st;
	struct uffd_msg buf[POOL_MAX_BATCH];  /* uring mode's read buffer */
	struct io_uring ring;            /* uring mode: made at start */
	bool ring_ok;
	struct uffd_pool *pool;
	pthread_t thread;
	bool started;
	clockid_t cpu_clock;
	int cpu;                         /* -1: not pinned */
	int slot;                        /* its counter slot (base/slots.h) */
};

struct uffd_pool {
	struct uffd_pool_cfg cfg;
	_Atomic bool stop;               /* set by stop; read by handlers */
	int stop_efd;                    /* poll mode */
	long stall_at;                   /* test hook: stall on this fault */
	_Atomic long nfaults;
	int n;
	struct uffd_handler *h;
};

/* The signal that interrupts a blocking read() at stop; a no-op handler
 * installed without SA_RESTART makes read() return EINTR. */
#define POOL_KICK_SIGNAL (SIGRTMIN + 3)

static void pool_kick_handler(int sig)
{
	(void)sig;
}

static int pool_install_kick(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pool_kick_handler;
	sigemptyset(&sa.sa_mask);
	return sigaction(POOL_KICK_SIGNAL, &sa, NULL) < 0 ? -errno : 0;
}

static bool pool_wait_ready(struct uffd_pool *p)
{
	struct pollfd pfd[2] = {
		{ .fd = p->cfg.fd, .events = POLLIN },
		{ .fd = p->stop_efd, .events = POLLIN },
	};

	return poll(pfd, 2, -1) >= 0 && !(pfd[1].revents & POLLIN);
}

/*
 * Test hook (VMSIM_TEST_STALL_FAULT=N): the handler of the Nth fault
 * stalls until the pool stops, so that tests can see the watchdog find a
 * fault nobody answers.
 */
static void pool_maybe_stall(struct uffd_pool *p)
{
	if (p->stall_at <= 0 ||
	    atomic_fetch_add_explicit(&p->nfaults, 1, memory_order_relaxed) + 1 !=
	    p->stall_at)
		return;
	while (!atomic_load_explicit(&p->stop, memory_order_acquire))
		usleep(1000);
}

static void pool_handle(struct uffd_handler *h, const struct uffd_msg *m)
{
	struct uffd_pool *p = h->pool;

	atomic_store_explicit(&h->st.since_ns, coarse_ns(), memory_order_relaxed);
	atomic_store_explicit(&h->st.addr, (unsigned long)m->arg.pagefault.address,
			      memory_order_relaxed);
	pool_maybe_stall(p);
	p->cfg.fn(p->cfg.arg, p->cfg.fd, m, &h->c);
	atomic_store_explicit(&h->st.addr, 0, memory_order_relaxed);
}

/*
 * A read of the uffd failed for another reason than a stop kick or an
 * empty queue: counted, shown to the watchdog (whose diagnostic names
 * it), and retried after a millisecond — never a silent spin. A fault
 * queued meanwhile waits; one that waits too long is the watchdog's.
 */
static void pool_read_failed(struct uffd_handler *h, int err)
{
	struct timespec ms = { 0, 1000000 };

	h->c.read_errors++;
	atomic_store_explicit(&h->st.read_errno, err, memory_order_relaxed);
	nanosleep(&ms, NULL);
}

static void pool_dispatch(struct uffd_handler *h, const struct uffd_msg *msgs,
			  ssize_t n)
{
	h->c.reads++;
	atomic_store_explicit(&h->st.read_errno, 0, memory_order_relaxed);
	for (size_t i = 0; i < (size_t)n / sizeof(msgs[0]); i++) {
		h->c.messages++;
		if (msgs[i].event == UFFD_EVENT_PAGEFAULT)
			pool_handle(h, &msgs[i]);
		else
			h->c.other_events++;
	}
}

/*
 * uring mode: one read in flight on the handler's own ring; submit and
 * wait are one io_uring_enter. The wait times out every 50 ms to look at
 * the stop flag. The buffer is the handler's (not the stack), since a
 * read still in flight at exit is cancelled only when the ring goes.
 */
static void pool_uring_loop(struct uffd_handler *h, size_t want)
{
	struct uffd_pool *p = h->pool;
	struct io_uring *ring = &h->ring;
	bool pending = false;

	while (!atomic_load_explicit(&p->stop, memory_order_acquire)) {
		struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 50000000 };
		struct io_uring_cqe *cqe;
		int ret, res;

		if (!pending) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

			io_uring_prep_read(sqe, p->cfg.fd, h->buf, (unsigned)want, 0);
			pending = true;
		}
		ret = io_uring_submit_and_wait_timeout(ring, &cqe, 1, &ts, NULL);
		if (ret == -ETIME || ret == -EINTR)
			continue;        /* look at stop */
		if (ret < 0) {
			pool_read_failed(h, -ret);
			continue;
		}
		res = cqe->res;
		io_uring_cqe_seen(ring, cqe);
		pending = false;
		if (res > 0)
			pool_dispatch(h, h->buf, res);
		else if (res < 0 && res != -EINTR && res != -EAGAIN &&
			 res != -ECANCELED)
			pool_read_failed(h, -res);
	}
}

static void *pool_handler_main(void *arg)
{
	struct uffd_handler *h = arg;
	struct uffd_pool *p = h->pool;
	struct uffd_msg msgs[POOL_MAX_BATCH];
	size_t want = sizeof(msgs[0]) * (size_t)p->cfg.batch;

	/* Release: pairs with the watchdog's acquire load of the pointer. */
	if (p->cfg.phase_of_thread)
		atomic_store_explicit(&h->st.phase, p->cfg.phase_of_thread(),
				      memory_order_release);

	pin_self(h->cpu);
	slots_bind(h->slot);
	if (p->cfg.wait == UFFD_WAIT_URING) {
		pool_uring_loop(h, want);
		return NULL;
	}
	/* Acquire: pairs with the release store in uffd_pool_stop(). */
	while (!atomic_load_explicit(&p->stop, memory_order_acquire)) {
		ssize_t n;

		if (p->cfg.wait == UFFD_WAIT_POLL && !pool_wait_ready(p))
			continue;
		n = read(p->cfg.fd, msgs, want);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			pool_read_failed(h, errno);
		if (n <= 0) {
			if (n < 0 && errno == EAGAIN && p->cfg.wait == UFFD_WAIT_BUSY)
				sched_yield();
			continue;        /* EINTR (stop kick), EAGAIN */
		}
		pool_dispatch(h, msgs, n);
	}
	return NULL;
}

const char *const uffd_wait_mode_names[UFFD_WAIT_NMODES] = {
	[UFFD_WAIT_BLOCK] = "block", [UFFD_WAIT_POLL] = "poll",
	[UFFD_WAIT_BUSY] = "busy", [UFFD_WAIT_URING] = "uring",
};

int uffd_wait_mode_parse(const char *s, enum uffd_wait_mode *out)
{
	for (int i = 0; i < UFFD_WAIT_NMODES; i++)
		if (!strcmp(s, uffd_wait_mode_names[i])) {
			*out = (enum uffd_wait_mode)i;
			return 0;
		}
	return -EINVAL;
}

const char *uffd_wait_mode_name(enum uffd_wait_mode m)
{
	return uffd_wait_mode_names[m];
}

static int pool_set_blocking(int fd, bool blocking)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = blocking ? (fl & ~O_NONBLOCK) : (fl | O_NONBLOCK);
	return fcntl(fd, F_SETFL, fl) < 0 ? -errno : 0;
}

int uffd_pool_start(const struct uffd_pool_cfg *cfg, struct uffd_pool **out)
{
	struct uffd_pool *p;
	int ret;

	if (cfg->nhandlers < 1 || cfg->batch < 1 || cfg->batch > POOL_MAX_BATCH)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cfg = *cfg;
	p->stop_efd = -1;
	p->stall_at = cfg->stall_at;
	p->h = aligned_alloc(64, sizeof(*p->h) * (size_t)cfg->nhandlers);
	if (!p->h) {
		ret = -ENOMEM;
		goto err;
	}
	memset(p->h, 0, sizeof(*p->h) * (size_t)cfg->nhandlers);
	/* io_uring arms a poll on a blocking pollable file when it would
	 * block, rather than failing the read with EAGAIN. */
	ret = pool_set_blocking(cfg->fd, cfg->wait == UFFD_WAIT_BLOCK ||
				cfg->wait == UFFD_WAIT_URING);
	if (ret)
		goto err;
	if (cfg->wait == UFFD_WAIT_BLOCK) {
		ret = pool_install_kick();
		if (ret)
			goto err;
	}
	if (cfg->wait == UFFD_WAIT_POLL) {
		p->stop_efd = eventfd(0, EFD_CLOEXEC);
		if (p->stop_efd < 0) {
			ret = -errno;
			goto err;
		}
	}
	for (int i = 0; i < cfg->nhandlers; i++) {
		struct uffd_handler *h = &p->h[i];

		h->pool = p;
		h->cpu = cfg->ncpus ? cfg->cpus[i % cfg->ncpus] : -1;
		h->slot = cfg->slot_base + i;
		/* A ring that cannot be made fails the start, not a handler
		 * later (whose faults would then wait for the watchdog). */
		if (cfg->wait == UFFD_WAIT_URING) {
			ret = io_uring_queue_init(4, &h->ring, 0);
			if (ret)
				goto err;
			h->ring_ok = true;
		}
		ret = -pthread_create(&h->thread, NULL, pool_handler_main, h);
		if (ret)
			goto err;
		h->started = true;
		p->n++;
		if (pthread_getcpuclockid(h->thread, &h->cpu_clock))
			h->cpu_clock = (clockid_t)-1;
	}
	*out = p;
	return 0;
err:
	uffd_pool_stop(p, NULL);
	return ret;
}

static void pool_join(struct uffd_pool *p, struct uffd_handler *h)
{
	struct timespec ts;

	if (p->cfg.wait != UFFD_WAIT_BLOCK) {
		pthread_join(h->thread, NULL);
		return;
	}
	/* The kick can land before the handler enters read(); kick again
	 * until it has really gone. */
	for (;;) {
		pthread_kill(h->thread, POOL_KICK_SIGNAL);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 5 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (pthread_timedjoin_np(h->thread, NULL, &ts) == 0)
			return;
	}
}

void uffd_pool_stop(struct uffd_pool *p, struct uffd_counters *sum)
{
	if (sum)
		memset(sum, 0, sizeof(*sum));
	if (!p)
		return;
	/* Release: pairs with the acquire load in pool_handler_main(). */
	atomic_store_explicit(&p->stop, true, memory_order_release);
	if (p->stop_efd >= 0) {
		uint64_t one = 1;

		if (write(p->stop_efd, &one, sizeof(one)) < 0)
			(void)0;         /* eventfd write cannot fail here */
	}
	for (int i = 0; i < p->n; i++)
		if (p->h[i].started)
			pool_join(p, &p->h[i]);
	for (int i = 0; p->h && i < p->cfg.nhandlers; i++)
		if (p->h[i].ring_ok)
			io_uring_queue_exit(&p->h[i].ring);
	if (p->stop_efd >= 0)
		close(p->stop_efd);
	for (int i = 0; sum && i < p->n; i++)
		uffd_counters_add(sum, &p->h[i].c);
	free(p->h);
	free(p);
}

int uffd_pool_size(struct uffd_pool *p)
{
	return p->n;
}

const struct uffd_handler_state *uffd_pool_state(struct uffd_pool *p, int i)
{
	return &p->h[i].st;
}

uint64_t uffd_pool_cpu_ns(struct uffd_pool *p)
{
	uint64_t total = 0;

	for (int i = 0; i < p->n; i++) {
		struct timespec ts;

		if (p->h[i].cpu_clock == (clockid_t)-1 ||
		    clock_gettime(p->h[i].cpu_clock, &ts))
			continue;
		total += (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	return total;
}
