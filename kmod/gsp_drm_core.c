// SPDX-License-Identifier: GPL-2.0
/*
 * gspace drm engine, gspace.ko's half: DRM_BIND, DRM_SUBMIT, the forward
 * and completion workers. Nothing here calls into drm.ko; gspace_drm.ko
 * registers the provider that does (kmod/gsp_drm.h).
 */

#include <linux/dma-fence.h>
#include <linux/file.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "gsp_drv.h"
#include "gsp_drm.h"

/**
 * DOC: drm engine
 *
 * A tenant's DRM_BIND makes a &struct gsp_drm_bind through the registered
 * provider, which holds a reference to the DRM file. DRM_SUBMIT copies
 * and validates the payload in the submitting task, then queues an
 * ordinary COMPUTE job carrying a &struct gsp_drm_job. When the engine
 * grants it (under &gsp_device.lock, atomic), @forward_work runs on
 * gsp_drm_wq and, in process context, hands the payload to the provider,
 * which calls the driver's ioctl. The driver's out-fence's callback runs
 * under a foreign lock, so it only queues @done_work, which ends the job
 * under &gsp_device.lock, charged from the forward to the signal. A job
 * that ends while the driver may still run it (its tenant died) leaves
 * its engine held (&gsp_dev_engine.held) until @done_work or the
 * watchdog releases it.
 *
 * Locking: gsp_drm_prov_lock (mutex) guards the provider pointer; it is
 * taken alone, never inside another gspace lock. A binding pins the
 * provider's module from bind to release.
 */

static DEFINE_MUTEX(gsp_drm_prov_lock);
/* The registered provider, or NULL. Written under gsp_drm_prov_lock. */
static const struct gsp_drm_provider *gsp_drm_prov;
/* Forwards, completions and binding releases. */
static struct workqueue_struct *gsp_drm_wq;

int gsp_drm_core_init(void)
{
	gsp_drm_wq = alloc_workqueue("gspace_drm", WQ_UNBOUND, 0);
	return gsp_drm_wq ? 0 : -ENOMEM;
}

/* No binding is left: each pins the provider, which pins gspace.ko. */
void gsp_drm_core_fini(void)
{
	destroy_workqueue(gsp_drm_wq);
}

/**
 * gsp_drm_register - offer the DRM half of the drm engine
 * @prov: the provider, static in its module
 *
 * Return: 0, or -EBUSY if another provider is registered.
 */
int gsp_drm_register(const struct gsp_drm_provider *prov)
{
	int ret = 0;

	mutex_lock(&gsp_drm_prov_lock);
	if (gsp_drm_prov)
		ret = -EBUSY;
	else
		WRITE_ONCE(gsp_drm_prov, prov);
	mutex_unlock(&gsp_drm_prov_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(gsp_drm_register);

/**
 * gsp_drm_unregister - withdraw the provider, from its module's exit
 * @prov: the provider
 *
 * Every binding pins the provider's module, so none is left here.
 */
void gsp_drm_unregister(const struct gsp_drm_provider *prov)
{
	mutex_lock(&gsp_drm_prov_lock);
	if (gsp_drm_prov == prov)
		WRITE_ONCE(gsp_drm_prov, NULL);
	mutex_unlock(&gsp_drm_prov_lock);
}
EXPORT_SYMBOL_GPL(gsp_drm_unregister);

bool gsp_drm_available(void)
{
	return READ_ONCE(gsp_drm_prov);
}

static void gsp_drm_bind_release_work(struct work_struct *work)
{
	struct gsp_drm_bind *b = container_of(work, struct gsp_drm_bind,
					      release_work);
	struct module *owner = b->prov->owner;

	b->prov->unbind(b->priv);
	kfree(b);
	module_put(owner);
}

static void gsp_drm_bind_release(struct kref *ref)
{
	struct gsp_drm_bind *b = container_of(ref, struct gsp_drm_bind, ref);

	queue_work(gsp_drm_wq, &b->release_work);
}

/* May run in atomic context, from the last job's release. */
static void gsp_drm_bind_put(struct gsp_drm_bind *b)
{
	kref_put(&b->ref, gsp_drm_bind_release);
}

/* A new binding of @drm_fd, or an ERR_PTR(). */
static struct gsp_drm_bind *gsp_drm_bind_new(int drm_fd, u32 adapter,
					     u32 channel)
{
	const struct gsp_drm_provider *prov;
	struct gsp_drm_bind *b;
	struct file *file;
	void *priv;
	int ret;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return ERR_PTR(-ENOMEM);
	file = fget(drm_fd);
	if (!file) {
		ret = -EBADF;
		goto err_free_bind;
	}

	mutex_lock(&gsp_drm_prov_lock);
	prov = gsp_drm_prov;
	if (!prov || !try_module_get(prov->owner))
		prov = NULL;
	mutex_unlock(&gsp_drm_prov_lock);
	if (!prov) {
		ret = -EOPNOTSUPP;
		goto err_put_file;
	}

	priv = prov->bind(file, adapter, channel);
	if (IS_ERR(priv)) {
		ret = PTR_ERR(priv);
		goto err_put_module;
	}
	fput(file);	/* the provider holds its own */
	kref_init(&b->ref);
	b->prov = prov;
	b->priv = priv;
	INIT_WORK(&b->release_work, gsp_drm_bind_release_work);
	return b;

err_put_module:
	module_put(prov->owner);
err_put_file:
	fput(file);
err_free_bind:
	kfree(b);
	return ERR_PTR(ret);
}

/* Ends @ctx's binding, if any: jobs not yet forwarded end with ENOLINK. */
static void gsp_drm_ctx_unbind(struct gsp_ctx *ctx)
{
	struct gsp_drm_bind *old = ctx->drm_bind;

	lockdep_assert_held(&ctx->lock);

	if (!old)
		return;
	WRITE_ONCE(old->dead, true);
	ctx->drm_bind = NULL;
	gsp_drm_bind_put(old);
}

/**
 * gsp_drm_ioctl_bind - GSPACE_IOCTL_DRM_BIND
 * @ctx: the tenant
 * @args: the argument, copied in
 *
 * Binds the render node (replacing any binding), or unbinds.
 */
int gsp_drm_ioctl_bind(struct gsp_ctx *ctx, struct gspace_drm_bind *args)
{
	struct gsp_drm_bind *b = NULL;

	if (args->flags & ~GSPACE_DRM_BIND_FLAGS || args->pad)
		return -EINVAL;
	if (args->flags & GSPACE_DRM_BIND_UNBIND) {
		if (args->drm_fd || args->adapter || args->channel)
			return -EINVAL;
	} else {
		b = gsp_drm_bind_new(args->drm_fd, args->adapter,
				     args->channel);
		if (IS_ERR(b))
			return PTR_ERR(b);
	}

	mutex_lock(&ctx->lock);
	gsp_drm_ctx_unbind(ctx);
	ctx->drm_bind = b;
	mutex_unlock(&ctx->lock);
	return 0;
}

/* The tenant's file is released: its jobs have been cancelled. */
void gsp_drm_ctx_release(struct gsp_ctx *ctx)
{
	mutex_lock(&ctx->lock);
	gsp_drm_ctx_unbind(ctx);
	mutex_unlock(&ctx->lock);
}

/* With its job, or by DRM_SUBMIT before the job took it over. */
void gsp_drm_job_free(struct gsp_drm_job *dj)
{
	if (dj->fence)
		dma_fence_put(dj->fence);
	if (dj->bind)
		gsp_drm_bind_put(dj->bind);
	kfree(dj);
}

/*
 * The driver is done with @job's payload (@status: its fence's error, or
 * the forward's), having run it for @gpu_ns: end the job, or release the
 * engine it held after its tenant died.
 */
static void gsp_drm_job_finish(struct gsp_kjob *job, int status, u64 gpu_ns)
{
	struct gsp_device *gdev = job->gdev;
	struct gsp_dev_engine *eng = &gdev->eng[job->base.engine];
	u64 now;

	spin_lock_bh(&gdev->lock);
	now = ktime_get_ns();
	job->drm->done = true;
	if (job->state == GSP_AJOB_RUNNING && !job->drm->timed_out) {
		gsp_job_end_locked(job, status, gpu_ns, now);
	} else if (eng->held == job) {
		eng->held = NULL;
		hrtimer_try_to_cancel(&eng->timer);
		gsp_engine_kick_locked(eng, now);
		gsp_job_put(job);	/* the engine's */
	}
	spin_unlock_bh(&gdev->lock);
}

static void gsp_drm_done_work(struct work_struct *work)
{
	struct gsp_drm_job *dj = container_of(work, struct gsp_drm_job,
					      done_work);
	struct gsp_kjob *job = dj->job;

	gsp_drm_job_finish(job, dj->fence->error,
			   dj->signal_ns - dj->forward_ns);
	gsp_job_put(job);	/* the callback's */
}

/* Under the driver's fence lock: note the time, defer the rest. */
static void gsp_drm_fence_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct gsp_drm_job *dj = container_of(cb, struct gsp_drm_job, cb);

	dj->signal_ns = ktime_get_ns();
	queue_work(gsp_drm_wq, &dj->done_work);
}

static void gsp_drm_forward_work(struct work_struct *work)
{
	struct gsp_drm_job *dj = container_of(work, struct gsp_drm_job,
					      forward_work);
	struct gsp_kjob *job = dj->job;
	struct gsp_device *gdev = job->gdev;
	struct dma_fence *fence = NULL;
	bool granted;
	int ret;

	spin_lock_bh(&gdev->lock);
	granted = job->state == GSP_AJOB_RUNNING;
	if (granted)
		dj->forwarding = true;
	spin_unlock_bh(&gdev->lock);
	if (!granted)
		goto out_put_job;	/* cancelled, or timed out, meanwhile */

	dj->forward_ns = ktime_get_ns();
	if (READ_ONCE(dj->bind->dead))
		ret = -ENOLINK;
	else
		ret = dj->bind->prov->forward(dj->bind->priv, dj->payload,
					      dj->size, &fence);
	if (ret) {
		gsp_drm_job_finish(job, ret, ktime_get_ns() - dj->forward_ns);
		goto out_put_job;
	}

	dj->fence = fence;
	kref_get(&job->ref);	/* the callback's */
	if (dma_fence_add_callback(fence, &dj->cb, gsp_drm_fence_cb)) {
		/* Signalled already. */
		dj->signal_ns = ktime_get_ns();
		gsp_drm_job_finish(job, fence->error,
				   dj->signal_ns - dj->forward_ns);
		gsp_job_put(job);
	}
out_put_job:
	gsp_job_put(job);	/* the grant's */
}

/**
 * gsp_drm_job_granted_locked - the engine granted a drm job
 * @job: the job, now running
 *
 * Forwarding may sleep: a worker does it.
 */
void gsp_drm_job_granted_locked(struct gsp_kjob *job)
{
	lockdep_assert_held(&job->gdev->lock);

	kref_get(&job->ref);	/* the grant's */
	queue_work(gsp_drm_wq, &job->drm->forward_work);
}

/*
 * Whether a running drm job that ends now leaves its engine held: the
 * driver may be running its payload, and will say when it is done.
 */
bool gsp_drm_job_holds_locked(struct gsp_kjob *job)
{
	struct gsp_drm_job *dj = job->drm;

	lockdep_assert_held(&job->gdev->lock);

	return dj->forwarding && !dj->done && !dj->timed_out;
}

/* As SUBMIT's: @handle and @out_fence_fd are out, ignored on the way in. */
static int gsp_drm_submit_validate(const struct gspace_drm_submit *args)
{
	if (args->flags & ~GSPACE_DRM_SUBMIT_FLAGS || args->pad)
		return -EINVAL;
	if (!(args->flags & GSPACE_SUBMIT_FENCE_IN) && args->in_fence_fd)
		return -EINVAL;
	if (!args->payload_size)
		return -EINVAL;
	if (args->payload_size > GSPACE_DRM_PAYLOAD_MAX)
		return -E2BIG;
	if (args->cost_ns > GSPACE_COST_MAX_NS)
		return -EINVAL;
	return 0;
}

/**
 * gsp_drm_ioctl_submit - GSPACE_IOCTL_DRM_SUBMIT
 * @ctx: the tenant
 * @args: the argument, copied in
 * @ubuf: userspace argument, for the answer
 * @user_size: its size
 */
int gsp_drm_ioctl_submit(struct gsp_ctx *ctx, struct gspace_drm_submit *args,
			 void __user *ubuf, u32 user_size)
{
	const struct gsp_submit_answer ans = {
		.args = args, .args_size = sizeof(*args),
		.handle = &args->handle, .out_fence_fd = &args->out_fence_fd,
		.ubuf = ubuf, .user_size = user_size,
	};
	struct gspace_submit s = {
		.size = sizeof(s),
		.flags = args->flags,
		.engine = GSPACE_ENGINE_COMPUTE,
		.in_fence_fd = args->in_fence_fd,
		.cost_ns = args->cost_ns,
		.user_tag = args->user_tag,
	};
	struct gsp_drm_job *dj;
	int ret;

	ret = gsp_drm_submit_validate(args);
	if (ret)
		return ret;
	if (!gsp_drm_available())
		return -EOPNOTSUPP;

	dj = kzalloc(sizeof(*dj), GFP_KERNEL);
	if (!dj)
		return -ENOMEM;
	INIT_WORK(&dj->forward_work, gsp_drm_forward_work);
	INIT_WORK(&dj->done_work, gsp_drm_done_work);
	dj->size = args->payload_size;
	if (copy_from_user(dj->payload, u64_to_user_ptr(args->payload_ptr),
			   dj->size)) {
		ret = -EFAULT;
		goto err_free_job;
	}

	mutex_lock(&ctx->lock);
	dj->bind = ctx->drm_bind;
	if (dj->bind)
		kref_get(&dj->bind->ref);
	mutex_unlock(&ctx->lock);
	if (!dj->bind) {
		ret = -ENOLINK;
		goto err_free_job;
	}
	ret = dj->bind->prov->validate(dj->bind->priv, dj->payload, dj->size);
	if (ret)
		goto err_free_job;

	/* Takes @dj over. */
	return gsp_job_submit_common(ctx, &s, dj, &ans);

err_free_job:
	gsp_drm_job_free(dj);
	return ret;
}
