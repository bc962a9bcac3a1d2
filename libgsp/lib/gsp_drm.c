// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgsp's drm engine path (libgsp 1.2): DRM_BIND and DRM_SUBMIT of
 * uapi/gspace.h, with the adapter picked from the driver's name and the
 * out-fences handled as libdrm's syncobjs. gspace.ko only: gspaced runs
 * no driver to forward into. See Documentation/drm.rst.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xf86drm.h>

#include "libgsp_internal.h"

/* The binding as the library knows it; immutable once installed. */
struct gsp_drm {
	int fd;			/* a duplicate of the bound render node */
	uint32_t adapter;
	uint32_t channel;
};

/* drm_driver.name of each adapter's driver (kmod/gsp_drm_*.c). */
static const char *const gsp_drm_drivers[] = {
	[GSPACE_DRM_ADAPTER_TESTDRM] = "gsp-testdrm",
	[GSPACE_DRM_ADAPTER_NOUVEAU] = "nouveau",
};
#define GSP_DRM_NR_ADAPTERS \
	(sizeof(gsp_drm_drivers) / sizeof(*gsp_drm_drivers))

static void gsp_drm_release(struct gsp_drm *drm)
{
	close(drm->fd);
	free(drm);
}

GSP_API int gsp_drm_adapter_of(int drm_fd, uint32_t *adapter)
{
	int saved = errno;
	drmVersionPtr v;
	struct stat st;
	uint32_t i;
	int ret = -ENXIO;

	if (!adapter)
		return -EFAULT;
	if (drm_fd < 0)
		return -EBADF;
	if (fstat(drm_fd, &st)) {
		ret = -errno;
		errno = saved;
		return ret;
	}
	/* A DRM node is a character device; anything else answers ENOTTY. */
	if (!S_ISCHR(st.st_mode))
		return -ENOTTY;
	v = drmGetVersion(drm_fd);
	if (!v) {
		ret = errno == ENOTTY || errno == EINVAL || !errno ?
		      -ENOTTY : -errno;
		errno = saved;
		return ret;
	}
	for (i = 1; i < GSP_DRM_NR_ADAPTERS; i++) {
		if (gsp_drm_drivers[i] && v->name &&
		    !strcmp(v->name, gsp_drm_drivers[i])) {
			*adapter = i;
			ret = 0;
			break;
		}
	}
	drmFreeVersion(v);
	errno = saved;
	return ret;
}

GSP_API int gsp_drm_bind(struct gsp *g, int drm_fd, uint32_t adapter,
			 uint32_t channel)
{
	struct gspace_drm_bind b = { .size = sizeof(b) };
	struct gsp_drm *drm, *old;
	int saved = errno;
	int ret;

	if (!g)
		return -EINVAL;
	if (drm_fd < 0)
		return -EBADF;
	if (adapter >= GSP_DRM_NR_ADAPTERS)
		return -EINVAL;
	if (gspi_is_daemon(g))
		return -EOPNOTSUPP;
	if (adapter == GSP_DRM_ADAPTER_AUTO) {
		ret = gsp_drm_adapter_of(drm_fd, &adapter);
		if (ret)
			return ret;
	}
	drm = calloc(1, sizeof(*drm));
	if (!drm)
		return -ENOMEM;
	drm->fd = fcntl(drm_fd, F_DUPFD_CLOEXEC, 3);
	if (drm->fd < 0) {
		ret = -errno;
		free(drm);
		errno = saved;
		return ret;
	}
	drm->adapter = adapter;
	drm->channel = channel;
	b.drm_fd = drm_fd;
	b.adapter = adapter;
	b.channel = channel;
	ret = gspi_request(g, GSPACE_IOCTL_DRM_BIND, &b);
	if (ret) {
		gsp_drm_release(drm);
		errno = saved;
		return ret;
	}
	old = gspi_drm_swap(g, drm, gsp_drm_release);
	if (old)
		gsp_drm_release(old);
	errno = saved;
	return 0;
}

GSP_API int gsp_drm_unbind(struct gsp *g)
{
	struct gspace_drm_bind b = {
		.size = sizeof(b),
		.flags = GSPACE_DRM_BIND_UNBIND,
	};
	struct gsp_drm *old;
	int ret;

	if (!g)
		return -EINVAL;
	if (gspi_is_daemon(g))
		return -EOPNOTSUPP;
	ret = gspi_request(g, GSPACE_IOCTL_DRM_BIND, &b);
	if (ret)
		return ret;
	old = gspi_drm_swap(g, NULL, NULL);
	if (old)
		gsp_drm_release(old);
	return 0;
}

GSP_API int gsp_drm_submit(struct gsp *g, struct gspace_drm_submit *arg)
{
	if (!g)
		return -EINVAL;
	if (!arg)
		return -EFAULT;
	if (arg->size < sizeof(*arg) || !arg->payload_size)
		return -EINVAL;
	if (arg->payload_size > GSPACE_DRM_PAYLOAD_MAX)
		return -E2BIG;
	if (!arg->payload_ptr)
		return -EFAULT;
	if (gspi_is_daemon(g))
		return -EOPNOTSUPP;
	if (!gspi_drm(g))
		return -ENOLINK;
	return gspi_request(g, GSPACE_IOCTL_DRM_SUBMIT, arg);
}

/*
 * The bound render node for a syncobj call: its fd, or -errno. The
 * checks every syncobj call makes, in the order the API documents.
 */
static int gsp_drm_node(struct gsp *g)
{
	struct gsp_drm *drm;

	if (!g)
		return -EINVAL;
	if (gspi_is_daemon(g))
		return -EOPNOTSUPP;
	drm = gspi_drm(g);
	return drm ? drm->fd : -ENOLINK;
}

/* A libdrm call's result (0, or -1 or -errno with errno set): -errno. */
static int gsp_drm_ret(int ret, int saved)
{
	if (ret)
		ret = errno ? -errno : -EIO;
	errno = saved;
	return ret;
}

GSP_API int gsp_drm_syncobj_create(struct gsp *g, uint32_t *handle)
{
	int saved = errno;
	int fd;

	if (g && !handle)
		return -EFAULT;
	fd = gsp_drm_node(g);
	if (fd < 0)
		return fd;
	errno = 0;
	return gsp_drm_ret(drmSyncobjCreate(fd, 0, handle), saved);
}

GSP_API int gsp_drm_syncobj_destroy(struct gsp *g, uint32_t handle)
{
	int saved = errno;
	int fd = gsp_drm_node(g);

	if (fd < 0)
		return fd;
	errno = 0;
	return gsp_drm_ret(drmSyncobjDestroy(fd, handle), saved);
}

GSP_API int gsp_drm_syncobj_reset(struct gsp *g, uint32_t handle)
{
	int saved = errno;
	int fd = gsp_drm_node(g);

	if (fd < 0)
		return fd;
	errno = 0;
	return gsp_drm_ret(drmSyncobjReset(fd, &handle, 1), saved);
}

GSP_API int gsp_drm_syncobj_wait(struct gsp *g, uint32_t handle,
				 uint64_t deadline_ns)
{
	int saved = errno;
	int fd = gsp_drm_node(g);
	int64_t abs;

	if (fd < 0)
		return fd;
	/* The kernel's timeout is absolute on CLOCK_MONOTONIC, signed. */
	abs = deadline_ns > INT64_MAX ? INT64_MAX : (int64_t)deadline_ns;
	errno = 0;
	/*
	 * WAIT_FOR_SUBMIT: a syncobj with no fence yet (reset, or the job
	 * not forwarded) is waited for, not an EINVAL.
	 */
	return gsp_drm_ret(drmSyncobjWait(fd, &handle, 1, abs,
					  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
					  NULL), saved);
}

GSP_API int gsp_drm_syncobj_export(struct gsp *g, uint32_t handle,
				   int *sync_file_fd)
{
	int saved = errno;
	int fd;

	if (g && !sync_file_fd)
		return -EFAULT;
	fd = gsp_drm_node(g);
	if (fd < 0)
		return fd;
	errno = 0;
	return gsp_drm_ret(drmSyncobjExportSyncFile(fd, handle, sync_file_fd),
			   saved);
}
