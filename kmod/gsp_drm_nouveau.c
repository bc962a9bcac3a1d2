// SPDX-License-Identifier: GPL-2.0
/*
 * gspace_drm.ko's adapter for nouveau. UNTESTED ON HARDWARE: the test VM
 * has no NVIDIA GPU, so this is built (W=1, both kernel series) but never
 * run; Documentation/drm.rst, "nouveau".
 *
 * - EXEC (DRM_NOUVEAU_EXEC, the VM_BIND uapi of Linux 6.6 on), where the
 *   kernel's uapi header has it: the payload is struct drm_nouveau_exec;
 *   its first signal syncobj is the out-fence.
 * - PUSHBUF (DRM_NOUVEAU_GEM_PUSHBUF), everywhere: the ioctl returns no
 *   fence, so the out-fence is every fence on the first buffer's
 *   reservation object after the push, nouveau's fence of this push
 *   among them.
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/pm_runtime.h>
#include <linux/uaccess.h>

#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/nouveau_drm.h>

#include "gspace.h"
#include "gsp_drm_adapter.h"

#ifdef DRM_IOCTL_NOUVEAU_EXEC
/* The first signal entry of an EXEC, read in the submitter's mm. */
static int gsp_drm_nouveau_exec_sig(const struct drm_nouveau_exec *e,
				    struct drm_nouveau_sync *sig)
{
	if (copy_from_user(sig, u64_to_user_ptr(e->sig_ptr), sizeof(*sig)))
		return -EFAULT;
	if ((sig->flags & DRM_NOUVEAU_SYNC_TYPE_MASK) !=
	    DRM_NOUVEAU_SYNC_SYNCOBJ || sig->timeline_value)
		return -EINVAL;
	return 0;
}

static int gsp_drm_nouveau_exec_validate(struct gsp_drm_binding *b,
					 struct drm_nouveau_exec *e)
{
	struct drm_nouveau_sync sig;
	int ret;

	if (!gsp_drm_has_ioctl(b->dev, DRM_IOCTL_NOUVEAU_EXEC))
		return -EOPNOTSUPP;
	if (e->channel != b->channel || !e->push_count || !e->sig_count)
		return -EINVAL;
	ret = gsp_drm_nouveau_exec_sig(e, &sig);
	if (ret)
		return ret;
	return gsp_drm_syncobj_check(b, sig.handle);
}

/* The first signal syncobj's fence, which EXEC has just replaced. */
static struct dma_fence *
gsp_drm_nouveau_exec_out_fence(struct gsp_drm_binding *b,
			       struct drm_nouveau_exec *e)
{
	struct drm_nouveau_sync sig;
	struct dma_fence *f;
	int ret;

	ret = gsp_drm_nouveau_exec_sig(e, &sig);
	if (ret)
		return ERR_PTR(ret);
	f = gsp_drm_syncobj_fence(b, sig.handle);
	return f ? f : ERR_PTR(-ENOENT);
}
#endif

/* The GEM handle of the push's first buffer, read in the submitter's mm. */
static int gsp_drm_nouveau_pushbuf_bo(const struct drm_nouveau_gem_pushbuf *p,
				      u32 *handle)
{
	struct drm_nouveau_gem_pushbuf_bo __user *bo =
		u64_to_user_ptr(p->buffers);

	if (get_user(*handle, &bo->handle))
		return -EFAULT;
	return 0;
}

static int gsp_drm_nouveau_pushbuf_validate(struct gsp_drm_binding *b,
					    struct drm_nouveau_gem_pushbuf *p)
{
	struct drm_gem_object *obj;
	u32 handle;
	int ret;

	if (!gsp_drm_has_ioctl(b->dev, DRM_IOCTL_NOUVEAU_GEM_PUSHBUF))
		return -EOPNOTSUPP;
	/* No push, or no buffer: nothing gspace could wait for. */
	if (p->channel != b->channel || !p->nr_push || !p->nr_buffers)
		return -EINVAL;
	ret = gsp_drm_nouveau_pushbuf_bo(p, &handle);
	if (ret)
		return ret;
	obj = drm_gem_object_lookup(b->file_priv, handle);
	if (!obj)
		return -ENOENT;
	drm_gem_object_put(obj);
	return 0;
}

/*
 * PUSHBUF returns no fence: every fence on the push's first buffer after
 * it, this push's and any other user's of that buffer.
 */
static struct dma_fence *
gsp_drm_nouveau_pushbuf_out_fence(struct gsp_drm_binding *b,
				  struct drm_nouveau_gem_pushbuf *p)
{
	struct drm_gem_object *obj;
	struct dma_fence *f = NULL;
	u32 handle;
	int ret;

	ret = gsp_drm_nouveau_pushbuf_bo(p, &handle);
	if (ret)
		return ERR_PTR(ret);
	obj = drm_gem_object_lookup(b->file_priv, handle);
	if (!obj)
		return ERR_PTR(-ENOENT);
	ret = dma_resv_get_singleton(obj->resv, DMA_RESV_USAGE_BOOKKEEP, &f);
	drm_gem_object_put(obj);
	if (ret)
		return ERR_PTR(ret);
	return f ? f : dma_fence_get_stub();	/* all done already */
}

static int gsp_drm_nouveau_validate(struct gsp_drm_binding *b, void *payload,
				    u32 size)
{
#ifdef DRM_IOCTL_NOUVEAU_EXEC
	if (size == sizeof(struct drm_nouveau_exec))
		return gsp_drm_nouveau_exec_validate(b, payload);
#endif
	if (size == sizeof(struct drm_nouveau_gem_pushbuf))
		return gsp_drm_nouveau_pushbuf_validate(b, payload);
	return -EINVAL;
}

/* As nouveau's own ioctl entry: the GPU awake while the ioctl runs. */
static int gsp_drm_nouveau_forward(struct gsp_drm_binding *b, void *payload,
				   u32 size)
{
	struct device *dev = b->dev->dev;
	int ret;

	ret = pm_runtime_get_sync(dev);
	if (ret < 0 && ret != -EACCES) {
		pm_runtime_put_autosuspend(dev);
		return ret;
	}
#ifdef DRM_IOCTL_NOUVEAU_EXEC
	if (size == sizeof(struct drm_nouveau_exec))
		ret = gsp_drm_call(b, DRM_IOCTL_NOUVEAU_EXEC, payload, size);
	else
#endif
		ret = gsp_drm_call(b, DRM_IOCTL_NOUVEAU_GEM_PUSHBUF, payload,
				   size);
	pm_runtime_mark_last_busy(dev);
	pm_runtime_put_autosuspend(dev);
	return ret;
}

static struct dma_fence *gsp_drm_nouveau_out_fence(struct gsp_drm_binding *b,
						   void *payload, u32 size)
{
#ifdef DRM_IOCTL_NOUVEAU_EXEC
	if (size == sizeof(struct drm_nouveau_exec))
		return gsp_drm_nouveau_exec_out_fence(b, payload);
#endif
	return gsp_drm_nouveau_pushbuf_out_fence(b, payload);
}

const struct gsp_drm_adapter gsp_drm_nouveau_adapter = {
	.id = GSPACE_DRM_ADAPTER_NOUVEAU,
	.driver = "nouveau",
	.nr_channels = U32_MAX,
	.needs_mm = true,
	.validate = gsp_drm_nouveau_validate,
	.forward = gsp_drm_nouveau_forward,
	.out_fence = gsp_drm_nouveau_out_fence,
};
