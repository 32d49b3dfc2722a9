/* SPDX-License-Identifier: MIT */
#include "uffd/uffd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int uffd_open(int extra_flags, bool *via_dev, int *dev_errno)
{
	int fd, sys_err, dfd;

	if (via_dev)
		*via_dev = false;
	if (dev_errno)
		*dev_errno = 0;
	fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | extra_flags);
	if (fd >= 0)
		return fd;
	sys_err = errno;

	/* Since 6.1 /dev/userfaultfd hands out descriptors to whoever may
	 * open the node, whatever vm.unprivileged_userfaultfd says. */
	dfd = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	if (dfd < 0) {
		if (dev_errno)
			*dev_errno = errno;
		return -sys_err;
	}
	fd = ioctl(dfd, USERFAULTFD_IOC_NEW, O_CLOEXEC | extra_flags);
	if (fd < 0 && dev_errno)
		*dev_errno = errno;
	close(dfd);
	if (fd < 0)
		return -sys_err;
	if (via_dev)
		*via_dev = true;
	return fd;
}

int uffd_api(int fd, uint64_t want, struct uffd_info *info)
{
	struct uffdio_api api = { .api = UFFD_API, .features = 0 };

	/* First ask for nothing, to learn what the kernel has; a second
	 * handshake on the same fd is refused, so probe on a scratch fd. */
	int probe = uffd_open(0, NULL, NULL);

	if (probe >= 0) {
		if (ioctl(probe, UFFDIO_API, &api) == 0)
			want &= api.features;
		close(probe);
	}
	api.api = UFFD_API;
	api.features = want;
	api.ioctls = 0;
	if (ioctl(fd, UFFDIO_API, &api) < 0)
		return -errno;
	info->features = api.features;
	info->ioctls = api.ioctls;
	return 0;
}

int uffd_register(int fd, void *addr, size_t len, uint64_t mode,
		  uint64_t *range_ioctls)
{
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)addr, .len = len },
		.mode = mode,
	};

	if (ioctl(fd, UFFDIO_REGISTER, &reg) < 0)
		return -errno;
	if (range_ioctls)
		*range_ioctls = reg.ioctls;
	return 0;
}

int uffd_unregister(int fd, void *addr, size_t len)
{
	struct uffdio_range r = { .start = (uintptr_t)addr, .len = len };

	return ioctl(fd, UFFDIO_UNREGISTER, &r) < 0 ? -errno : 0;
}

const char *uffd_feature_name(int bit)
{
	static const char *const names[] = {
		"PAGEFAULT_FLAG_WP", "EVENT_FORK", "EVENT_REMAP",
		"EVENT_REMOVE", "MISSING_HUGETLBFS", "MISSING_SHMEM",
		"EVENT_UNMAP", "SIGBUS", "THREAD_ID", "MINOR_HUGETLBFS",
		"MINOR_SHMEM", "EXACT_ADDRESS", "WP_HUGETLBFS_SHMEM",
		"WP_UNPOPULATED", "POISON", "WP_ASYNC", "MOVE",
	};

	if (bit < 0 || bit >= (int)(sizeof(names) / sizeof(names[0])))
		return NULL;
	return names[bit];
}

static int unprivileged_sysctl(void)
{
	FILE *f = fopen("/proc/sys/vm/unprivileged_userfaultfd", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

void uffd_probe(struct uffd_probe *p)
{
	int fd;

	memset(p, 0, sizeof(*p));
	p->sysctl = unprivileged_sysctl();
	fd = uffd_open(0, &p->info.via_dev, &p->dev_err);
	if (fd < 0) {
		p->open_err = fd;
		return;
	}
	p->api_err = uffd_api(fd, ~0ull, &p->info);
	close(fd);
}
