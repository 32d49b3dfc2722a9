/* SPDX-License-Identifier: MIT */
/* Who waited for the host's mmap_lock, and behind whom (perf_waits.h). */
#include <string.h>

#include "trace/perf_waits.h"

uint16_t perf_waits_site(struct perf_waits *w, const char *sym)
{
	size_t n = strcspn(sym, "+ \t");

	if (!n)
		return 0;
	if (n >= PERF_WAIT_SITE_LEN)
		n = PERF_WAIT_SITE_LEN - 1;
	if (!w->nsites)
		w->nsites = 1;           /* sites[0]: none */
	for (int i = 1; i < w->nsites; i++)
		if (!strncmp(w->sites[i], sym, n) && !w->sites[i][n])
			return (uint16_t)i;
	if (w->nsites == PERF_WAIT_SITES)
		return 0;
	memcpy(w->sites[w->nsites], sym, n);
	w->sites[w->nsites][n] = 0;
	return (uint16_t)w->nsites++;
}

static struct perf_wait_thread *thread_of(struct perf_waits *w, uint32_t tid,
					  bool add)
{
	uint32_t h = (tid * 2654435761u) % PERF_WAIT_THREADS;

	if (!tid)
		return NULL;
	for (int k = 0; k < PERF_WAIT_THREADS; k++,
	     h = (h + 1) % PERF_WAIT_THREADS) {
		if (w->th[h].tid == tid)
			return &w->th[h];
		if (!w->th[h].tid) {
			if (!add || w->nth >= PERF_WAIT_THREADS * 3 / 4)
				break;
			w->th[h].tid = tid;
			w->nth++;
			return &w->th[h];
		}
	}
	if (add)
		w->threads_over++;
	return NULL;
}

const struct perf_wait_thread *perf_waits_thread(const struct perf_waits *w,
						 uint32_t tid)
{
	return thread_of((struct perf_waits *)w, tid, false);
}

static struct perf_wait_mm *mm_of(struct perf_waits *w, uint64_t mm)
{
	for (int i = 0; i < w->nmm; i++)
		if (w->mm[i].mm == mm)
			return &w->mm[i];
	if (w->nmm == PERF_WAIT_MMS)
		return NULL;
	w->mm[w->nmm] = (struct perf_wait_mm){ .mm = mm };
	return &w->mm[w->nmm++];
}

void perf_waits_seen(struct perf_waits *w, uint32_t tid, uint64_t t)
{
	struct perf_wait_thread *p = thread_of(w, tid, true);

	if (!p)
		return;
	if (!p->t_first || t < p->t_first)
		p->t_first = t;
	if (t > p->t_last)
		p->t_last = t;
}

/* Who tid waits behind, asking now: the writer, or for a writer the
 * reader that has held it longest. */
static bool blocker(const struct perf_wait_mm *m, uint32_t tid, bool write,
		    struct perf_holder *out)
{
	const struct perf_holder *r = NULL;

	for (int i = 0; i < m->n; i++) {
		if (m->h[i].tid == tid)
			continue;
		if (m->h[i].write) {
			*out = m->h[i];
			return true;
		}
		if (!r || m->h[i].since < r->since)
			r = &m->h[i];
	}
	if (write && r) {
		*out = *r;
		return true;
	}
	return false;
}

void perf_waits_ask(struct perf_waits *w, uint64_t mm, uint32_t tid,
		    bool write, uint64_t t)
{
	struct perf_wait_thread *p = thread_of(w, tid, true);
	struct perf_wait_mm *m = mm_of(w, mm);

	if (!p)
		return;
	p->asking = true;
	p->ask_mm = mm;
	p->ask_t = t;
	p->have_blocker = m && blocker(m, tid, write, &p->blocker);
}

static void holder_drop(struct perf_wait_mm *m, uint32_t tid)
{
	for (int i = 0; i < m->n; i++)
		if (m->h[i].tid == tid) {
			m->h[i] = m->h[--m->n];
			return;
		}
}

/* Among the longest waits, if it is one. */
static void top_put(struct perf_waits *w, const struct perf_wait_top *e)
{
	bool full = w->ntop == PERF_WAIT_TOP;
	int i = full ? PERF_WAIT_TOP - 1 : w->ntop++;

	if (full && w->top[i].wait_ns >= e->wait_ns)
		return;
	while (i > 0 && w->top[i - 1].wait_ns < e->wait_ns) {
		w->top[i] = w->top[i - 1];
		i--;
	}
	w->top[i] = *e;
}

void perf_waits_got(struct perf_waits *w, uint64_t mm,
		    const struct perf_holder *who, bool got, uint64_t wait_ns,
		    uint64_t t, bool counted)
{
	struct perf_wait_thread *p = thread_of(w, who->tid, true);
	struct perf_wait_mm *m = mm_of(w, mm);
	struct perf_wait_top e = { .wait_ns = wait_ns, .waiter = *who };

	if (p) {
		if (counted && got) {
			p->wait_ns[who->write] += wait_ns;
			p->waits[who->write]++;
		}
		if (p->asking && p->ask_mm == mm) {
			e.t = p->ask_t;
			e.have_holder = p->have_blocker;
			e.holder = p->blocker;
			if (!e.have_holder && m && m->have_last &&
			    m->last_t >= p->ask_t) {
				e.have_holder = true;
				e.holder = m->last;
			}
		}
		p->asking = false;
	}
	if (counted && got && wait_ns && p)
		top_put(w, &e);
	if (!got || !m)
		return;
	holder_drop(m, who->tid);        /* a downgrade replaces its write */
	if (m->n < PERF_WAIT_HOLDERS) {
		m->h[m->n] = *who;
		m->h[m->n++].since = t;
	}
}

void perf_waits_release(struct perf_waits *w, uint64_t mm, uint32_t tid,
			uint64_t t)
{
	struct perf_wait_mm *m = mm_of(w, mm);

	if (!m)
		return;
	for (int i = 0; i < m->n; i++)
		if (m->h[i].tid == tid) {
			m->last = m->h[i];
			m->last_t = t;
			m->have_last = true;
			m->h[i] = m->h[--m->n];
			return;
		}
}

void perf_waits_reset(struct perf_waits *w)
{
	memset(w->th, 0, sizeof(w->th));
	w->nth = 0;
	w->threads_over = 0;
	w->ntop = 0;
}
