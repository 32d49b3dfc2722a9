/* SPDX-License-Identifier: MIT */
/* WARN_ON and friends for the kernel's maple tree: vmsim's sim_warn()
 * (counted, reported at the end of a run, fatal under VMSIM_WARN_FATAL),
 * as SIM_WARN_ON is. */
#ifndef VMSIM_KMAPLE_ASM_BUG_H
#define VMSIM_KMAPLE_ASM_BUG_H

void sim_warn(const char *file, int line, const char *cond);

#define WARN(cond, ...) ({						\
	int __w = !!(cond);						\
	if (__builtin_expect(__w, 0))					\
		sim_warn(__FILE__, __LINE__, #cond);			\
	__w;								\
})
#define WARN_ON(cond)            WARN(cond, "")
#define WARN_ON_ONCE(cond)       WARN(cond, "")
#define WARN_ONCE(cond, ...)     WARN(cond, "")

#endif
