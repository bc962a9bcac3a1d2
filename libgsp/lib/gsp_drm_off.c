// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgsp's drm engine calls where libgsp was built without libdrm (no
 * libdrm-dev on the build host, as on our GPU hosts; mk/libgsp.mk): the
 * ABI is the same, and every call answers -EOPNOTSUPP. gsp_drm.c is the
 * path itself; Documentation/libgsp.rst says how to get it.
 */
#include <errno.h>

#include "libgsp_internal.h"

GSP_API int gsp_drm_adapter_of(int drm_fd, uint32_t *adapter)
{
	(void)drm_fd;
	(void)adapter;
	return -EOPNOTSUPP;
}

GSP_API int gsp_drm_bind(struct gsp *g, int drm_fd, uint32_t adapter,
			 uint32_t channel)
{
	(void)g;
	(void)drm_fd;
	(void)adapter;
	(void)channel;
	return -EOPNOTSUPP;
}

GSP_API int gsp_drm_unbind(struct gsp *g)
{
	(void)g;
	return -EOPNOTSUPP;
}

GSP_API int gsp_drm_submit(struct gsp *g, struct gspace_drm_submit *arg)
{
	(void)g;
	(void)arg;
	return -EOPNOTSUPP;
}

GSP_API int gsp_drm_syncobj_create(struct gsp *g, uint32_t *handle)
{
	(void)g;
	(void)handle;
	return -EOPNOTSUPP;
}

GSP_API int gsp_drm_syncobj_destroy(struct gsp *g, uint32_t handle)
{
	(void)g;
	(void)handle;
	return -EOPNOTSUPP;
}

GSP_API int gsp_drm_syncobj_reset(struct gsp *g, uint32_t handle)
{
	(void)g;
	(void)handle;
	return -EOPNOTSUPP;
}

GSP_API int gsp_drm_syncobj_wait(struct gsp *g, uint32_t handle,
				 uint64_t deadline_ns)
{
	(void)g;
	(void)handle;
	(void)deadline_ns;
	return -EOPNOTSUPP;
}

GSP_API int gsp_drm_syncobj_export(struct gsp *g, uint32_t handle,
				   int *sync_file_fd)
{
	(void)g;
	(void)handle;
	(void)sync_file_fd;
	return -EOPNOTSUPP;
}
