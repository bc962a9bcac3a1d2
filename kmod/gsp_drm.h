/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The drm engine: what gspace.ko (gsp_drm_core.c) and gspace_drm.ko
 * (gsp_drm.c and its adapters) share. gspace.ko never calls into drm.ko:
 * the module that does registers these ops (Documentation/drm.rst,
 * "Two modules").
 */
#ifndef _GSP_DRM_H
#define _GSP_DRM_H

#include <linux/types.h>

struct dma_fence;
struct file;
struct module;

/**
 * struct gsp_drm_provider - the DRM half of the drm engine
 * @owner: its module, pinned by every binding
 * @bind: checks that @file is a DRM render node of the driver that
 *	@adapter serves and that @channel is in the adapter's range, takes
 *	its own reference to @file (and to the caller's mm if the adapter
 *	needs it), and returns its binding or an ERR_PTR(): -ENOTTY, -EACCES,
 *	-ENXIO, -EINVAL (uapi struct gspace_drm_bind). Process context, in
 *	the binding task.
 * @unbind: drops what @bind took. Process context (a gspace worker).
 * @validate: checks a payload of @size bytes, copied from the submitter:
 *	its layout, its channel, its handles. Process context, in the
 *	submitting task.
 * @forward: gives the payload to the driver and returns, in @fence, a
 *	reference to the driver's out-fence for it. Process context (a
 *	gspace worker, never the submitter), with no gspace lock held.
 */
struct gsp_drm_provider {
	struct module *owner;
	void *(*bind)(struct file *file, u32 adapter, u32 channel);
	void (*unbind)(void *priv);
	int (*validate)(void *priv, void *payload, u32 size);
	int (*forward)(void *priv, void *payload, u32 size,
		       struct dma_fence **fence);
};

int gsp_drm_register(const struct gsp_drm_provider *prov);
void gsp_drm_unregister(const struct gsp_drm_provider *prov);

#endif /* _GSP_DRM_H */
