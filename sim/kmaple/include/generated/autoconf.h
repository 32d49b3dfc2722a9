/* SPDX-License-Identifier: MIT */
/* The kernel configuration <linux/kconfig.h> reads: nothing beyond what
 * kmaple_lib.c defines itself (CONFIG_64BIT, first). */
