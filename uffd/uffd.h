/* SPDX-License-Identifier: MIT */
/*
 * uffd — userfaultfd plumbing: open, API handshake, register.
 *
 * The system headers are Linux 6.1; newer constants are defined here behind
 * #ifndef and every feature is decided at run time from UFFDIO_API.
 * All functions return 0 (or a non-negative value) on success and -errno on
 * failure; none of them prints.
 */
#ifndef VMSIM_UFFD_H
#define VMSIM_UFFD_H

#include <linux/userfaultfd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED     (1 << 13)
#endif
#ifndef UFFD_FEATURE_POISON
#define UFFD_FEATURE_POISON             (1 << 14)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC           (1 << 15)
#endif
#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE               (1 << 16)
#endif
#ifndef _UFFDIO_MOVE
#define _UFFDIO_MOVE                    (0x05)
#endif
#ifndef _UFFDIO_POISON
#define _UFFDIO_POISON                  (0x08)
struct uffdio_poison {
	struct uffdio_range range;
#define UFFDIO_POISON_MODE_DONTWAKE     ((__u64)1 << 0)
	__u64 mode;
	__s64 updated;
};
#define UFFDIO_POISON _IOWR(UFFDIO, _UFFDIO_POISON, struct uffdio_poison)
#endif
#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC_NEW             _IO(0xAA, 0x00)
#endif

/* How the descriptor was obtained, and what the kernel offers. */
struct uffd_info {
	bool via_dev;            /* /dev/userfaultfd rather than the syscall */
	uint64_t features;       /* UFFD_FEATURE_* the kernel reported */
	uint64_t ioctls;         /* 1 << _UFFDIO_* the API allows */
};

/*
 * Open a userfaultfd (O_CLOEXEC | extra_flags): the syscall first, then
 * /dev/userfaultfd. Returns the fd or -errno of the syscall when both fail
 * (with *dev_errno set to the device's errno, if dev_errno is not NULL).
 */
int uffd_open(int extra_flags, bool *via_dev, int *dev_errno);

/* UFFDIO_API handshake asking for the features in want (those the kernel
 * lacks are dropped and not requested). Fills info. Returns 0 or -errno. */
int uffd_api(int fd, uint64_t want, struct uffd_info *info);

/* Register [addr, addr+len) in mode (UFFDIO_REGISTER_MODE_*);
 * *range_ioctls gets the ioctls allowed on it. Returns 0 or -errno. */
int uffd_register(int fd, void *addr, size_t len, uint64_t mode,
		  uint64_t *range_ioctls);
int uffd_unregister(int fd, void *addr, size_t len);

/* What a userfaultfd can be here: how it opened (or why not), and what
 * UFFDIO_API offered. */
struct uffd_probe {
	int open_err;            /* -errno of the syscall, 0 if it opened */
	int dev_err;             /* errno of /dev/userfaultfd, 0 if none */
	int api_err;             /* -errno of UFFDIO_API, 0 if it worked */
	int sysctl;              /* vm.unprivileged_userfaultfd, -1 unknown */
	struct uffd_info info;
};

/* Open a userfaultfd, ask for every feature, close it. */
void uffd_probe(struct uffd_probe *p);

/* Name of feature bit `bit` ("POISON", "MOVE", ...), or NULL. */
const char *uffd_feature_name(int bit);

#endif
