// SPDX-License-Identifier: GPL-2.0
/*
 * gspace ioctls. Each handler validates first, then looks things up, then
 * acts; the dispatcher has already checked the size and the tail.
 */

#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/uaccess.h>

#include "gsp_drv.h"

struct gsp_ucmd {
	void __user *ubuf;
	u32 user_size;
};

/* Copies the answer back: at most what userspace passed. */
static int gsp_ucmd_respond(const struct gsp_ucmd *ucmd, const void *cmd,
			    size_t size)
{
	if (copy_to_user(ucmd->ubuf, cmd, min_t(size_t, ucmd->user_size, size)))
		return -EFAULT;
	return 0;
}

/*
 * Fences are sync_files and the board an mmap of /dev/gspace; the drm
 * engine is there while gspace_drm.ko is.
 */
#define GSP_FEATURES	(GSP_ARBITER_FEATURES | GSPACE_FEAT_SYNC_FILE | \
			 GSPACE_FEAT_BOARD)

/*
 * gsp_ioctl_version (GSPACE_IOCTL_VERSION): the ABI version, features, the
 * number of devices and whether the caller may become LC.
 */
static int gsp_ioctl_version(struct gsp_ctx *ctx, void *cmd,
			     const struct gsp_ucmd *ucmd)
{
	struct gspace_version *args = cmd;
	struct gspace *gsp = gsp_drv;

	if (args->flags)
		return -EINVAL;
	args->abi_major = GSPACE_ABI_MAJOR;
	args->abi_minor = GSPACE_ABI_MINOR;
	args->features = GSP_FEATURES;
	if (gsp_drm_available())
		args->features |= GSPACE_FEAT_DRM;
	down_read(&gsp->cfg_rwsem);
	args->num_devices = gsp_nr_devices(gsp);
	up_read(&gsp->cfg_rwsem);
	args->lc_allowed = gsp_lc_allowed(gsp);
	return gsp_ucmd_respond(ucmd, args, sizeof(*args));
}

/* Moves @ctx to @gdev; it has no live job. */
static void gsp_ctx_rebind(struct gsp_ctx *ctx, struct gsp_device *gdev)
{
	struct gsp_device *old = ctx->gdev;
	u64 now = ktime_get_ns();

	spin_lock_bh(&old->lock);
	gsp_sched_detach(&old->sched, &ctx->ent, now);
	spin_unlock_bh(&old->lock);

	spin_lock_bh(&gdev->lock);
	gsp_entity_init(&ctx->ent, ctx->weight,
			ctx->class == GSPACE_CLASS_LC);
	gsp_sched_attach(&gdev->sched, &ctx->ent, now);
	ctx->gdev = gdev;
	spin_unlock_bh(&gdev->lock);
}

/*
 * gsp_ioctl_ctx_set (GSPACE_IOCTL_CTX_SET): device, class, weight and LC
 * target of this file's tenant. EPERM for LC without privilege, ENODEV for
 * a device that does not exist, EBUSY to change device with live jobs.
 */
static int gsp_ioctl_ctx_set(struct gsp_ctx *ctx, void *cmd,
			     const struct gsp_ucmd *ucmd)
{
	struct gspace_ctx_set *args = cmd;
	struct gspace *gsp = gsp_drv;
	struct gsp_device *gdev;
	u32 live;
	int ret;

	ret = gsp_ctx_set_validate(args);
	if (ret)
		return ret;
	if (args->class == GSPACE_CLASS_LC && !gsp_lc_allowed(gsp))
		return -EPERM;

	down_read(&gsp->cfg_rwsem);
	if (args->device >= gsp_nr_devices(gsp)) {
		ret = -ENODEV;
		goto out_unlock_cfg;
	}
	mutex_lock(&ctx->lock);
	gdev = &gsp->dev[args->device];
	if (gdev != ctx->gdev) {
		spin_lock_bh(&ctx->gdev->lock);
		live = ctx->acct.nr_live;
		spin_unlock_bh(&ctx->gdev->lock);
		if (live) {
			ret = -EBUSY;
			goto out_unlock_ctx;
		}
		gsp_ctx_rebind(ctx, gdev);
	}
	WRITE_ONCE(ctx->class, args->class);
	ctx->weight = args->weight;
	ctx->lc_target_ns = args->lc_target_ns;
	gsp_board_update_slot(ctx);
	spin_lock_bh(&gdev->lock);
	gsp_sched_set_entity(&gdev->sched, &ctx->ent, ctx->weight,
			     ctx->class == GSPACE_CLASS_LC, ktime_get_ns());
	gsp_device_kick_locked(gdev, ktime_get_ns());
	spin_unlock_bh(&gdev->lock);
out_unlock_ctx:
	mutex_unlock(&ctx->lock);
out_unlock_cfg:
	up_read(&gsp->cfg_rwsem);
	return ret;
}

static int gsp_ioctl_submit(struct gsp_ctx *ctx, void *cmd,
			    const struct gsp_ucmd *ucmd)
{
	return gsp_job_submit(ctx, cmd, ucmd->ubuf, ucmd->user_size);
}

static bool gsp_kjob_wait_done(struct gsp_kjob *job, u32 flags)
{
	/* Pairs with the release in gsp_job_end_locked(). */
	return gsp_wait_done(smp_load_acquire(&job->state), flags);
}

/*
 * gsp_ioctl_wait (GSPACE_IOCTL_WAIT): sleep until the job ends (or runs,
 * with GSPACE_WAIT_GRANTED) or the absolute deadline passes (ETIME).
 * Interruptible; the absolute deadline makes the restart exact. EAGAIN
 * when the tenant has tenant_max_waits WAITs asleep already.
 */
static int gsp_ioctl_wait(struct gsp_ctx *ctx, void *cmd,
			  const struct gsp_ucmd *ucmd)
{
	struct gspace_wait *args = cmd;
	struct gsp_kjob *job;
	s64 left;
	int ret;

	ret = gsp_wait_validate(args);
	if (ret)
		return ret;
	job = gsp_job_lookup(ctx, args->handle);
	if (!job)
		return -ENOENT;

	left = (s64)(args->deadline_ns - ktime_get_ns());
	if (gsp_kjob_wait_done(job, args->flags)) {
		ret = 0;
	} else if (!args->deadline_ns || left <= 0) {
		ret = -ETIME;
	} else if (atomic_inc_return(&ctx->nr_waits) >
		   READ_ONCE(gsp_drv->max_waits)) {
		/* tenant_max_waits: parked WAITs, not answered at once. */
		atomic_dec(&ctx->nr_waits);
		ret = -EAGAIN;
	} else {
		ret = wait_event_interruptible_hrtimeout(ctx->wq,
							 gsp_kjob_wait_done(job, args->flags),
							 ns_to_ktime(left));
		atomic_dec(&ctx->nr_waits);
	}
	if (ret)
		goto out_put_job;

	/* Acquire: the results were written before the state. */
	gsp_wait_answer(&job->acct, smp_load_acquire(&job->state), args);
	ret = gsp_ucmd_respond(ucmd, args, sizeof(*args));
	if (!ret && !(args->flags & GSPACE_WAIT_GRANTED))
		gsp_job_reap(ctx, job);
out_put_job:
	gsp_job_put(job);
	return ret;
}

/*
 * gsp_ioctl_complete (GSPACE_IOCTL_COMPLETE): the lease holder ran the job
 * and charges the GPU time it measured, or, with GSPACE_COMPLETE_PROGRESS,
 * charges the time so far and renews the lease. EINVAL if the job is not
 * leased, EBUSY if it was not granted yet, EALREADY if it has already
 * ended.
 */
static int gsp_ioctl_complete(struct gsp_ctx *ctx, void *cmd,
			      const struct gsp_ucmd *ucmd)
{
	struct gspace_complete *args = cmd;
	bool progress = args->flags & GSPACE_COMPLETE_PROGRESS;
	struct gsp_device *gdev;
	struct gsp_kjob *job;
	int ret;

	ret = gsp_complete_validate(args);
	if (ret)
		return ret;
	job = gsp_job_lookup(ctx, args->handle);
	if (!job)
		return -ENOENT;

	gdev = job->gdev;
	spin_lock_bh(&gdev->lock);
	if (gdev->backend != GSP_BACKEND_LEASE || job->drm)
		ret = -EINVAL;
	else if (job->state == GSP_AJOB_DONE)
		ret = -EALREADY;
	else if (job->state != GSP_AJOB_RUNNING)
		ret = -EBUSY;
	else if (progress)
		gsp_job_progress_locked(job, args->gpu_ns, ktime_get_ns());
	else
		gsp_job_end_locked(job, args->error, args->gpu_ns,
				   ktime_get_ns());
	spin_unlock_bh(&gdev->lock);

	if (!ret && !progress)
		gsp_job_reap(ctx, job);
	gsp_job_put(job);
	return ret;
}

/*
 * gsp_ioctl_cancel (GSPACE_IOCTL_CANCEL): a job that has not started ends
 * with ECANCELED. EBUSY if it runs (no preemption), EALREADY if it ended.
 */
static int gsp_ioctl_cancel(struct gsp_ctx *ctx, void *cmd,
			    const struct gsp_ucmd *ucmd)
{
	struct gspace_cancel *args = cmd;
	struct gsp_device *gdev;
	struct gsp_kjob *job;
	int ret;

	ret = gsp_cancel_validate(args);
	if (ret)
		return ret;
	job = gsp_job_lookup(ctx, args->handle);
	if (!job)
		return -ENOENT;

	gdev = job->gdev;
	spin_lock_bh(&gdev->lock);
	switch (job->state) {
	case GSP_AJOB_PENDING:
	case GSP_AJOB_QUEUED:
		gsp_job_end_locked(job, -ECANCELED, 0, ktime_get_ns());
		break;
	case GSP_AJOB_RUNNING:
		ret = -EBUSY;
		break;
	case GSP_AJOB_DONE:
		ret = -EALREADY;
		break;
	}
	spin_unlock_bh(&gdev->lock);
	gsp_job_put(job);
	return ret;
}

/* gsp_ioctl_stats (GSPACE_IOCTL_STATS): this tenant's counters. */
static int gsp_ioctl_stats(struct gsp_ctx *ctx, void *cmd,
			   const struct gsp_ucmd *ucmd)
{
	struct gspace_stats *args = cmd;
	struct gsp_device *gdev;
	int ret;

	ret = gsp_stats_validate(args);
	if (ret)
		return ret;

	mutex_lock(&ctx->lock);
	gdev = ctx->gdev;
	args->device = gdev->index;
	args->class = ctx->class;
	args->weight = ctx->weight;
	args->lc_slot = ctx->lc_slot;
	args->pad = 0;
	spin_lock_bh(&gdev->lock);
	args->ctx_flags = ctx->hung ? GSPACE_CTX_F_HUNG : 0;
	gsp_tenant_stats(&ctx->acct, &ctx->ent, args);
	spin_unlock_bh(&gdev->lock);
	mutex_unlock(&ctx->lock);
	return gsp_ucmd_respond(ucmd, args, sizeof(*args));
}

/* gsp_ioctl_drm_bind (GSPACE_IOCTL_DRM_BIND): see gsp_drm_core.c. */
static int gsp_ioctl_drm_bind(struct gsp_ctx *ctx, void *cmd,
			      const struct gsp_ucmd *ucmd)
{
	return gsp_drm_ioctl_bind(ctx, cmd);
}

/* gsp_ioctl_drm_submit (GSPACE_IOCTL_DRM_SUBMIT): see gsp_drm_core.c. */
static int gsp_ioctl_drm_submit(struct gsp_ctx *ctx, void *cmd,
				const struct gsp_ucmd *ucmd)
{
	return gsp_drm_ioctl_submit(ctx, cmd, ucmd->ubuf, ucmd->user_size);
}

union gsp_ucmd_buffer {
	struct gspace_version version;
	struct gspace_ctx_set ctx_set;
	struct gspace_submit submit;
	struct gspace_wait wait;
	struct gspace_complete complete;
	struct gspace_cancel cancel;
	struct gspace_stats stats;
	struct gspace_drm_bind drm_bind;
	struct gspace_drm_submit drm_submit;
};

struct gsp_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	int (*fn)(struct gsp_ctx *ctx, void *cmd, const struct gsp_ucmd *ucmd);
};

/* min_size is the end of the last field of the ioctl's first ABI. */
#define GSP_IOCTL_OP(_id, _fn, _struct, _last)				\
	[GSPACE_CMD_##_id] = {						\
		.size = sizeof(struct _struct) +			\
			BUILD_BUG_ON_ZERO(sizeof(union gsp_ucmd_buffer) <\
					  sizeof(struct _struct)),	\
		.min_size = offsetofend(struct _struct, _last),		\
		.fn = _fn,						\
	}

static const struct gsp_ioctl_op gsp_ioctl_ops[] = {
	GSP_IOCTL_OP(VERSION, gsp_ioctl_version, gspace_version, lc_allowed),
	GSP_IOCTL_OP(CTX_SET, gsp_ioctl_ctx_set, gspace_ctx_set, lc_target_ns),
	GSP_IOCTL_OP(SUBMIT, gsp_ioctl_submit, gspace_submit, pad),
	GSP_IOCTL_OP(WAIT, gsp_ioctl_wait, gspace_wait, latency_ns),
	GSP_IOCTL_OP(COMPLETE, gsp_ioctl_complete, gspace_complete, pad),
	GSP_IOCTL_OP(CANCEL, gsp_ioctl_cancel, gspace_cancel, handle),
	GSP_IOCTL_OP(STATS, gsp_ioctl_stats, gspace_stats, credit_ns),
	GSP_IOCTL_OP(DRM_BIND, gsp_ioctl_drm_bind, gspace_drm_bind, pad),
	GSP_IOCTL_OP(DRM_SUBMIT, gsp_ioctl_drm_submit, gspace_drm_submit,
		     pad),
};

long gsp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct gsp_ctx *ctx = file->private_data;
	union gsp_ucmd_buffer buf;
	const struct gsp_ioctl_op *op;
	struct gsp_ucmd ucmd;
	unsigned int nr;
	int ret;

	if (_IOC_TYPE(cmd) != GSPACE_IOCTL_TYPE)
		return -ENOTTY;
	nr = _IOC_NR(cmd);
	if (nr >= ARRAY_SIZE(gsp_ioctl_ops) || !gsp_ioctl_ops[nr].fn ||
	    cmd != _IO(GSPACE_IOCTL_TYPE, nr))
		return -ENOTTY;
	op = &gsp_ioctl_ops[nr];

	ucmd.ubuf = (void __user *)arg;
	if (get_user(ucmd.user_size, (u32 __user *)ucmd.ubuf))
		return -EFAULT;
	if (ucmd.user_size < op->min_size)
		return -EINVAL;
	ret = copy_struct_from_user(&buf, op->size, ucmd.ubuf, ucmd.user_size);
	if (ret)
		return ret;
	return op->fn(ctx, &buf, &ucmd);
}
