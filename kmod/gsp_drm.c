// SPDX-License-Identifier: GPL-2.0
/*
 * gspace_drm.ko: the DRM half of gspace's drm engine. It checks that a
 * file is a render node of the driver an adapter serves, and forwards a
 * granted job's payload to that driver with drm_ioctl_kernel(). It
 * registers with gspace.ko, which schedules; gspace.ko itself never
 * links against drm.ko (Documentation/drm.rst, "Two modules").
 */

#include <linux/dma-fence.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_syncobj.h>

#include "gspace.h"
#include "gsp_drm.h"
#include "gsp_drm_adapter.h"

static const struct gsp_drm_adapter *const gsp_drm_adapters[] = {
	&gsp_drm_testdrm_adapter,
	&gsp_drm_nouveau_adapter,
};

/* The descriptor of the driver ioctl @cmd, by number; NULL if absent. */
static const struct drm_ioctl_desc *gsp_drm_find_ioctl(struct drm_device *dev,
						       unsigned int cmd)
{
	const struct drm_driver *drv = dev->driver;
	unsigned int nr = _IOC_NR(cmd);
	const struct drm_ioctl_desc *d;

	if (nr < DRM_COMMAND_BASE || nr >= DRM_COMMAND_END ||
	    nr - DRM_COMMAND_BASE >= drv->num_ioctls)
		return NULL;
	d = &drv->ioctls[nr - DRM_COMMAND_BASE];
	if (!d->func || _IOC_NR(d->cmd) != nr)
		return NULL;
	return d;
}

/**
 * gsp_drm_has_ioctl - whether the bound driver has the ioctl @cmd
 * @dev: the DRM device
 * @cmd: the ioctl, as the uapi header gspace_drm.ko was built with says
 *
 * Return: true if it exists, with the same argument size, and render
 * nodes may call it.
 */
bool gsp_drm_has_ioctl(struct drm_device *dev, unsigned int cmd)
{
	const struct drm_ioctl_desc *d = gsp_drm_find_ioctl(dev, cmd);

	return d && _IOC_SIZE(d->cmd) == _IOC_SIZE(cmd) &&
	       (d->flags & DRM_RENDER_ALLOW);
}

/**
 * gsp_drm_call - call a driver ioctl on a kernel copy of its argument
 * @b: the binding
 * @cmd: the ioctl, checked by gsp_drm_has_ioctl() at validation
 * @payload: the argument, @size bytes: the driver's own size
 * @size: _IOC_SIZE(@cmd)
 *
 * drm_ioctl_kernel() checks the render-node permission and whether the
 * device is unplugged (-ENODEV), and takes no lock of ours. Pointers in
 * the payload are read by the driver in the binder's mm, which the caller
 * has adopted if the adapter needs it.
 */
int gsp_drm_call(struct gsp_drm_binding *b, unsigned int cmd, void *payload,
		 u32 size)
{
	const struct drm_ioctl_desc *d = gsp_drm_find_ioctl(b->dev, cmd);

	if (!d || _IOC_SIZE(d->cmd) != size)
		return -ENOTTY;
	return drm_ioctl_kernel(b->file, d->func, payload, d->flags);
}

/* 0 if @handle is a syncobj of the bound file, else -ENOENT. */
int gsp_drm_syncobj_check(struct gsp_drm_binding *b, u32 handle)
{
	struct drm_syncobj *s = drm_syncobj_find(b->file_priv, handle);

	if (!s)
		return -ENOENT;
	drm_syncobj_put(s);
	return 0;
}

/* A reference to the fence in syncobj @handle, or NULL. */
struct dma_fence *gsp_drm_syncobj_fence(struct gsp_drm_binding *b,
					u32 handle)
{
	struct drm_syncobj *s = drm_syncobj_find(b->file_priv, handle);
	struct dma_fence *f;

	if (!s)
		return NULL;
	f = drm_syncobj_fence_get(s);
	drm_syncobj_put(s);
	return f;
}

static const struct gsp_drm_adapter *gsp_drm_adapter_get(u32 id)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(gsp_drm_adapters); i++)
		if (gsp_drm_adapters[i]->id == id)
			return gsp_drm_adapters[i];
	return NULL;
}

/*
 * A DRM file: a character device of DRM_MAJOR, whose open gave it a
 * struct drm_file. (Drivers wrap drm_ioctl() in their own unlocked_ioctl,
 * nouveau among them, so comparing it with drm_ioctl cannot tell; the
 * caller then checks that the file has its driver's fops.) The accel
 * nodes of newer kernels have another major.
 */
static bool gsp_drm_is_drm_file(struct file *file)
{
	struct inode *inode = file_inode(file);

	return S_ISCHR(inode->i_mode) && imajor(inode) == DRM_MAJOR &&
	       file->private_data;
}

static void *gsp_drm_bind(struct file *file, u32 adapter, u32 channel)
{
	const struct gsp_drm_adapter *ad = gsp_drm_adapter_get(adapter);
	struct gsp_drm_binding *b;
	struct drm_file *file_priv;

	if (!ad || channel >= ad->nr_channels)
		return ERR_PTR(-EINVAL);
	if (!gsp_drm_is_drm_file(file))
		return ERR_PTR(-ENOTTY);
	file_priv = file->private_data;
	/* drm_stub_open() gave every DRM file its driver's fops. */
	if (file->f_op != file_priv->minor->dev->driver->fops)
		return ERR_PTR(-ENOTTY);
	if (!drm_is_render_client(file_priv))
		return ERR_PTR(-EACCES);
	if (strcmp(file_priv->minor->dev->driver->name, ad->driver))
		return ERR_PTR(-ENXIO);
	if (ad->needs_mm && !current->mm)
		return ERR_PTR(-EINVAL);

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return ERR_PTR(-ENOMEM);
	b->file = get_file(file);
	b->file_priv = file_priv;
	b->dev = file_priv->minor->dev;
	b->ad = ad;
	b->channel = channel;
	if (ad->needs_mm) {
		mmgrab(current->mm);
		b->mm = current->mm;
	}
	return b;
}

static void gsp_drm_unbind(void *priv)
{
	struct gsp_drm_binding *b = priv;

	if (b->mm)
		mmdrop(b->mm);
	fput(b->file);
	kfree(b);
}

static int gsp_drm_validate(void *priv, void *payload, u32 size)
{
	struct gsp_drm_binding *b = priv;

	return b->ad->validate(b, payload, size);
}

/* The adapter's forward, then its out-fence. */
static int gsp_drm_forward_fence(struct gsp_drm_binding *b, void *payload,
				 u32 size, struct dma_fence **fence)
{
	struct dma_fence *f;
	int ret;

	ret = b->ad->forward(b, payload, size);
	if (ret)
		return ret;
	f = b->ad->out_fence(b, payload, size);
	if (IS_ERR(f))
		return PTR_ERR(f);
	*fence = f;
	return 0;
}

static int gsp_drm_forward(void *priv, void *payload, u32 size,
			   struct dma_fence **fence)
{
	struct gsp_drm_binding *b = priv;
	int ret;

	if (!b->mm)
		return gsp_drm_forward_fence(b, payload, size, fence);

	/* The binder's address space, if it still has one. */
	if (!mmget_not_zero(b->mm))
		return -ESRCH;
	kthread_use_mm(b->mm);
	ret = gsp_drm_forward_fence(b, payload, size, fence);
	kthread_unuse_mm(b->mm);
	mmput(b->mm);
	return ret;
}

static const struct gsp_drm_provider gsp_drm_provider = {
	.owner = THIS_MODULE,
	.bind = gsp_drm_bind,
	.unbind = gsp_drm_unbind,
	.validate = gsp_drm_validate,
	.forward = gsp_drm_forward,
};

static int __init gsp_drm_init(void)
{
	return gsp_drm_register(&gsp_drm_provider);
}

/* Every binding pins this module: none is left. */
static void __exit gsp_drm_exit(void)
{
	gsp_drm_unregister(&gsp_drm_provider);
}

module_init(gsp_drm_init);
module_exit(gsp_drm_exit);

MODULE_DESCRIPTION("gspace drm engine: forwards scheduled submissions to DRM drivers");
MODULE_LICENSE("GPL");
