/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gspace_drm.ko: the driver adapters behind one ops table.
 */
#ifndef _GSP_DRM_ADAPTER_H
#define _GSP_DRM_ADAPTER_H

#include <linux/types.h>

struct dma_fence;
struct drm_device;
struct drm_file;
struct drm_ioctl_desc;
struct file;
struct mm_struct;

struct gsp_drm_adapter;

/**
 * struct gsp_drm_binding - a render node bound to a tenant
 * @file: the DRM file, referenced
 * @file_priv: its &struct drm_file
 * @dev: its device
 * @ad: the adapter
 * @channel: the bound channel
 * @mm: the binder's mm, grabbed, for adapters whose driver reads user
 *	pointers inside the payload; else NULL
 */
struct gsp_drm_binding {
	struct file *file;
	struct drm_file *file_priv;
	struct drm_device *dev;
	const struct gsp_drm_adapter *ad;
	u32 channel;
	struct mm_struct *mm;
};

/**
 * struct gsp_drm_adapter - what gspace knows of one DRM driver
 * @id: GSPACE_DRM_ADAPTER_*
 * @driver: the &drm_driver.name it serves
 * @nr_channels: channels 0..@nr_channels-1 may be bound
 * @needs_mm: the driver reads user memory named in the payload, so the
 *	forward runs in the binder's address space
 * @validate: checks a payload copied from the submitter, in its context:
 *	layout, channel, handles. 0 or -EINVAL, -ENOENT, -EFAULT.
 * @forward: calls the driver's ioctl on the payload (gsp_drm_call()).
 *	Process context, in the binder's mm if @needs_mm.
 * @out_fence: right after a successful @forward, in the same context: a
 *	reference to the driver's out-fence for that payload, or an
 *	ERR_PTR().
 */
struct gsp_drm_adapter {
	u32 id;
	const char *driver;
	u32 nr_channels;
	bool needs_mm;
	int (*validate)(struct gsp_drm_binding *b, void *payload, u32 size);
	int (*forward)(struct gsp_drm_binding *b, void *payload, u32 size);
	struct dma_fence *(*out_fence)(struct gsp_drm_binding *b,
				       void *payload, u32 size);
};

/* gsp_drm.c */
int gsp_drm_call(struct gsp_drm_binding *b, unsigned int cmd, void *payload,
		 u32 size);
bool gsp_drm_has_ioctl(struct drm_device *dev, unsigned int cmd);
int gsp_drm_syncobj_check(struct gsp_drm_binding *b, u32 handle);
struct dma_fence *gsp_drm_syncobj_fence(struct gsp_drm_binding *b,
					u32 handle);

/* gsp_drm_testdrm.c, gsp_drm_nouveau.c */
extern const struct gsp_drm_adapter gsp_drm_testdrm_adapter;
extern const struct gsp_drm_adapter gsp_drm_nouveau_adapter;

#endif /* _GSP_DRM_ADAPTER_H */
