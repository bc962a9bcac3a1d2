// SPDX-License-Identifier: GPL-2.0
/*
 * gspace_drm.ko's adapter for gsp-testdrm, the TEST DEVICE of the
 * selftests (kmod/testdrm/): no hardware, a simulated engine.
 */

#include <linux/dma-fence.h>
#include <linux/err.h>
#include <linux/errno.h>

#include "gspace.h"
#include "gsp_drm_adapter.h"
#include "gsp_testdrm.h"

static int gsp_drm_testdrm_validate(struct gsp_drm_binding *b, void *payload,
				    u32 size)
{
	struct drm_gsp_testdrm_submit *s = payload;

	if (size != sizeof(*s) || s->size != sizeof(*s))
		return -EINVAL;
	if (s->flags & ~GSP_TESTDRM_SUBMIT_FLAGS || s->seqno)
		return -EINVAL;
	if (s->context != b->channel || s->duration_us > GSP_TESTDRM_MAX_US)
		return -EINVAL;
	if (!gsp_drm_has_ioctl(b->dev, DRM_IOCTL_GSP_TESTDRM_SUBMIT))
		return -ENXIO;
	return gsp_drm_syncobj_check(b, s->out_syncobj);
}

static int gsp_drm_testdrm_forward(struct gsp_drm_binding *b, void *payload,
				   u32 size)
{
	return gsp_drm_call(b, DRM_IOCTL_GSP_TESTDRM_SUBMIT, payload, size);
}

/* The syncobj now holds the job's fence (unless its owner raced). */
static struct dma_fence *gsp_drm_testdrm_out_fence(struct gsp_drm_binding *b,
						   void *payload, u32 size)
{
	struct drm_gsp_testdrm_submit *s = payload;
	struct dma_fence *f = gsp_drm_syncobj_fence(b, s->out_syncobj);

	return f ? f : ERR_PTR(-ENOENT);
}

const struct gsp_drm_adapter gsp_drm_testdrm_adapter = {
	.id = GSPACE_DRM_ADAPTER_TESTDRM,
	.driver = GSP_TESTDRM_NAME,
	.nr_channels = GSP_TESTDRM_CONTEXTS,
	.needs_mm = false,
	.validate = gsp_drm_testdrm_validate,
	.forward = gsp_drm_testdrm_forward,
	.out_fence = gsp_drm_testdrm_out_fence,
};
