/* SPDX-License-Identifier: MIT */
/* The kmaple API where the build found no kernel source: no maple tree
 * can be made (--tree maple is refused in one line, --tree vmsim runs). */
#include "sim/kmaple/kmaple.h"

#include <errno.h>

bool kmaple_built(void) { return false; }
size_t kmaple_node_size(void) { return 256; }
const char *kmaple_release(void) { return NULL; }
const char *kmaple_origin(void) { return NULL; }
size_t kmaple_node_rcu_offset(void) { return 8; }
struct kmaple *kmaple_new(unsigned flags, const struct kmaple_alloc *a,
			  void *ctx) { return NULL; }
struct kmaple *kmaple_init_in(struct kmaple_buf *buf, unsigned flags,
			      const struct kmaple_alloc *a,
			      void *ctx) { return NULL; }
void kmaple_delete(struct kmaple *t) { }
void kmaple_clear(struct kmaple *t) { }
void kmaple_lock(struct kmaple *t) { }
void kmaple_unlock(struct kmaple *t) { }
void *kmaple_walk(struct kmaple *t, unsigned long addr, unsigned long *first,
		  unsigned long *last) { return NULL; }
void *kmaple_find(struct kmaple *t, unsigned long from, unsigned long max,
		  unsigned long *first, unsigned long *last) { return NULL; }
void *kmaple_find_rev(struct kmaple *t, unsigned long from, unsigned long min,
		      unsigned long *first, unsigned long *last) { return NULL; }
int kmaple_store(struct kmaple *t, unsigned long first, unsigned long last,
		 void *entry) { return -ENOSYS; }
int kmaple_store_gfp(struct kmaple *t, unsigned long first, unsigned long last,
		     void *entry) { return -ENOSYS; }
int kmaple_empty_area(struct kmaple *t, unsigned long min, unsigned long max,
		      unsigned long size, unsigned long *first) { return -ENOSYS; }
int kmaple_empty_area_rev(struct kmaple *t, unsigned long min,
			  unsigned long max, unsigned long size,
			  unsigned long *first) { return -ENOSYS; }
int kmaple_rcu_gap_rev(struct kmaple *t, unsigned long lo, unsigned long hi,
		       unsigned long len, unsigned long align,
		       unsigned long *out) { return -ENOMEM; }
int kmaple_height(struct kmaple *t) { return 0; }
