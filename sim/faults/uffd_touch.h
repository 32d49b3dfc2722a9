/* SPDX-License-Identifier: MIT */
/*
 * uffd_touch — the touching thread's side of the uffd fault source: a
 * task's access is a real one, and a refused fault comes back to it as a
 * signal (UFFD_REFUSE_SIGNAL) whose handler leaves the access by
 * siglongjmp, so that the touch returns -EFAULT.
 */
#ifndef VMSIM_UFFD_TOUCH_H
#define VMSIM_UFFD_TOUCH_H

#include <stdbool.h>

#include "sim/fault_source.h"

/* Install the refusal signal's handler (the process's; once). 0 or -errno. */
int uffd_touch_init_signals(void);
/* fault_source_ops.touch of the uffd source. */
int uffd_touch(struct fault_source *s, unsigned long addr, bool write,
	       unsigned char *val);

#endif
