/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The drm engine's selftest helpers: the DRM core uapi they need,
 * gsp-testdrm's render node and syncobjs, DRM_BIND and DRM_SUBMIT. The
 * drm tests' fixture is gsp_drm.h; the ioctl fuzzer and fail-nth use
 * these alone.
 */
#ifndef GSP_DRM_UTIL_H
#define GSP_DRM_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "gsp_util.h"
#include "../kmod/gsp_testdrm.h"

/* The DRM core uapi this test needs (the build host has no <drm/drm.h>). */
struct t_drm_version {
	int version_major;
	int version_minor;
	int version_patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};

struct t_drm_syncobj_create {
	uint32_t handle;
	uint32_t flags;
};

struct t_drm_syncobj_destroy {
	uint32_t handle;
	uint32_t pad;
};

struct t_drm_syncobj_wait {
	uint64_t handles;
	int64_t timeout_nsec;
	uint32_t count_handles;
	uint32_t flags;
	uint32_t first_signaled;
	uint32_t pad;
};

#define T_DRM_IOCTL_VERSION	_IOWR('d', 0x00, struct t_drm_version)
#define T_DRM_IOCTL_SYNCOBJ_CREATE \
	_IOWR('d', 0xBF, struct t_drm_syncobj_create)
#define T_DRM_IOCTL_SYNCOBJ_DESTROY \
	_IOWR('d', 0xC0, struct t_drm_syncobj_destroy)
#define T_DRM_IOCTL_SYNCOBJ_WAIT _IOWR('d', 0xC3, struct t_drm_syncobj_wait)

/* The tolerance of the BAND test, in percentage points of a window. */
#define DRM_FAIR_TOL_PP	2.0
/* Where tools/vm/mkinitramfs.sh packs gspace_drm.ko. */
#define DRM_KO_DEFAULT	"/lib/gspace-vm/gspace_drm.ko"

#define MS	NSEC_PER_MSEC

/* The driver name of a DRM fd, or "" if it has none. */
static inline void drm_name(int fd, char *name, size_t len)
{
	struct t_drm_version v;

	memset(&v, 0, sizeof(v));
	memset(name, 0, len);
	v.name = name;
	v.name_len = len - 1;
	if (ioctl(fd, T_DRM_IOCTL_VERSION, &v))
		name[0] = 0;
}

/* Opens the node of gsp-testdrm named PREFIX%d, or -1 (errno). */
static inline int open_testdrm(const char *prefix, int first, int last)
{
	char path[64], name[64];
	int i, fd, err = ENOENT;

	for (i = first; i <= last; i++) {
		snprintf(path, sizeof(path), "%s%d", prefix, i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			if (errno != ENOENT)
				err = errno;
			continue;
		}
		drm_name(fd, name, sizeof(name));
		if (!strcmp(name, GSP_TESTDRM_NAME))
			return fd;
		close(fd);
	}
	errno = err;
	return -1;
}

static inline int open_render(void)
{
	return open_testdrm("/dev/dri/renderD", 128, 191);
}

static inline uint32_t syncobj_new(struct __test_meta *_metadata, int drm)
{
	struct t_drm_syncobj_create c = { 0 };

	ASSERT_OK(ioctl(drm, T_DRM_IOCTL_SYNCOBJ_CREATE, &c));
	return c.handle;
}

static inline int syncobj_destroy(int drm, uint32_t h)
{
	struct t_drm_syncobj_destroy d = { .handle = h };

	return ioctl(drm, T_DRM_IOCTL_SYNCOBJ_DESTROY, &d);
}

/* 0 if @h has a signalled fence, else -1 (ETIME if pending). */
static inline int syncobj_signalled(int drm, uint32_t h)
{
	struct t_drm_syncobj_wait w = {
		.handles = (uintptr_t)&h,
		.timeout_nsec = 0,
		.count_handles = 1,
	};

	return ioctl(drm, T_DRM_IOCTL_SYNCOBJ_WAIT, &w);
}

static inline void testdrm_info(struct __test_meta *_metadata, int drm,
			 struct drm_gsp_testdrm_info *i, uint32_t flags)
{
	memset(i, 0, sizeof(*i));
	i->size = sizeof(*i);
	i->flags = flags;
	ASSERT_OK(ioctl(drm, DRM_IOCTL_GSP_TESTDRM_INFO, i));
}

/*
 * Waits until the driver has no job and has taken none for 100 ms: a job
 * of the test before, whose forward had begun when its tenant died, may
 * reach the driver after that test ended (Documentation/drm.rst).
 */
static inline void testdrm_quiesce(struct __test_meta *_metadata, int drm)
{
	struct drm_gsp_testdrm_info a, b;
	uint64_t end = now_ns() + 10 * NSEC_PER_SEC;

	do {
		testdrm_info(_metadata, drm, &a, 0);
		sleep_ms(100);
		testdrm_info(_metadata, drm, &b, 0);
		if (!b.inflight && a.submitted == b.submitted)
			return;
	} while (now_ns() < end);
	gsp_diag("gsp-testdrm still busy after 10 s: %u in flight",
		 b.inflight);
	ASSERT_TRUE(0);
}

static inline int bind_raw(int fd, int drm_fd, uint32_t adapter, uint32_t channel)
{
	struct gspace_drm_bind b;

	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.drm_fd = drm_fd;
	b.adapter = adapter;
	b.channel = channel;
	return gsp_ioctl(fd, GSPACE_IOCTL_DRM_BIND, &b);
}

static inline int unbind_raw(int fd)
{
	struct gspace_drm_bind b;

	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.flags = GSPACE_DRM_BIND_UNBIND;
	return gsp_ioctl(fd, GSPACE_IOCTL_DRM_BIND, &b);
}

static inline void payload_init(struct drm_gsp_testdrm_submit *p, uint32_t context,
			 uint32_t syncobj, uint64_t us, uint64_t tag)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->context = context;
	p->out_syncobj = syncobj;
	p->duration_us = us;
	p->tag = tag;
}

static inline void dsubmit_init(struct gspace_drm_submit *s, const void *payload,
			 uint32_t size, uint64_t cost_ns)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->payload_ptr = (uintptr_t)payload;
	s->payload_size = size;
	s->cost_ns = cost_ns;
}

static inline int dsubmit_raw(int fd, struct gspace_drm_submit *s)
{
	return gsp_ioctl(fd, GSPACE_IOCTL_DRM_SUBMIT, s);
}

/* Queues a gsp-testdrm job of @us on the bound channel; its handle. */
static inline uint64_t t_dsubmit(struct __test_meta *_metadata, int fd,
			  uint32_t context, uint32_t syncobj, uint64_t us,
			  uint64_t tag)
{
	struct drm_gsp_testdrm_submit p;
	struct gspace_drm_submit s;

	payload_init(&p, context, syncobj, us, tag);
	dsubmit_init(&s, &p, sizeof(p), us * 1000);
	ASSERT_OK(dsubmit_raw(fd, &s));
	ASSERT_NE(0, s.handle);
	ASSERT_EQ(-1, s.out_fence_fd);
	return s.handle;
}

#endif /* GSP_DRM_UTIL_H */
