/* SPDX-License-Identifier: MIT */
/*
 * uffd_touch — the touching thread's side of the uffd fault source: a
 * task's access is a real one, and a refused fault comes back to it as a
 * signal (UFFD_REFUSE_SIGNAL) whose handler leaves the access by
 * siglongjmp, so that the touch returns -EFAULT.
 */
#ifndef VMSIM_UFFD_TOUCH_H
#define VMSIM_UFFD_TOUCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sim/fault_source.h"

/*
 * Kernel-mode touches (FAULT_FLAG_KERNEL). A uffd message does not say
 * whether the access was the kernel's, so the touching thread says it:
 * before the access it claims a mark — its tid and the page — and clears
 * it after; the handler of a fault looks for the mark of the message's
 * thread (UFFD_FEATURE_THREAD_ID) and page. The marks are in memory
 * shared by every task process (MAP_SHARED, made before they fork), a
 * cache line each; a handler reads them only while some are held
 * (active), and then only those below the highest ever claimed.
 */
#define UFFD_KMARKS 1024                 /* kernel-mode touches at once */

struct uffd_kmark {
	_Atomic int32_t tid;             /* 0: free */
	_Atomic unsigned long page;
} __attribute__((aligned(64)));

struct uffd_kmark_table {
	_Atomic int active;              /* marks held now */
	_Atomic int hiwater;             /* marks [0, hiwater) were used */
	_Atomic uint64_t marked, found, full;
	struct uffd_kmark m[UFFD_KMARKS] __attribute__((aligned(64)));
};

/* Map and unmap a table. 0 or -errno. */
int uffd_touch_kmarks_init(struct uffd_kmark_table **t);
void uffd_touch_kmarks_destroy(struct uffd_kmark_table *t);
/* Is thread tid's access to page one it marked kernel-mode? */
bool uffd_touch_kmarks_kernel(struct uffd_kmark_table *t, pid_t tid,
			unsigned long page);

/* Install the refusal signal's handler (the process's; once). 0 or -errno. */
int uffd_touch_init_signals(void);
/* fault_source_ops.touch of the uffd source. */
int uffd_touch(struct fault_source *s, unsigned long addr, unsigned flags,
	       unsigned char *val);

#endif
