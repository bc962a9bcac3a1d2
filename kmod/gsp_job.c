// SPDX-License-Identifier: GPL-2.0
/*
 * gspace jobs: submission, dependencies, fences, the end of a job, and the
 * cancellation of everything a dying tenant left behind.
 */

#include <linux/file.h>
#include <linux/fcntl.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include "gsp_drv.h"

/**
 * DOC: Job life
 *
 * SUBMIT creates a job in state PENDING with its out fence, and a handle
 * in the tenant's table. When its dependencies (an in-fence, the chained
 * predecessor) have signalled, the job enters the scheduler (QUEUED); the
 * engine picks it (RUNNING); it ends (DONE) when the sim timer fires, the
 * lease holder calls COMPLETE, the watchdog fires, it is cancelled, or its
 * tenant dies. Ending signals the fence, with an error if it failed.
 *
 * The handle table holds a reference until WAIT or COMPLETE reaps the job;
 * waiters and pending dependency callbacks hold their own.
 */

static const char *gsp_fence_driver_name(struct dma_fence *f)
{
	return DRIVER_NAME;
}

static const char *gsp_fence_timeline_name(struct dma_fence *f)
{
	return "job";
}

/* Fences outlive jobs and files (a sync_file fd), so they pin the module. */
static void gsp_fence_release(struct dma_fence *f)
{
	atomic_dec(&gsp_drv->nr_fences);
	dma_fence_free(f);
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops gsp_fence_ops = {
	.get_driver_name = gsp_fence_driver_name,
	.get_timeline_name = gsp_fence_timeline_name,
	.release = gsp_fence_release,
};

static void gsp_job_release(struct kref *ref)
{
	struct gsp_kjob *job = container_of(ref, struct gsp_kjob, ref);
	int i;

	for (i = 0; i < GSP_JOB_MAX_DEPS; i++)
		if (job->deps[i].fence)
			dma_fence_put(job->deps[i].fence);
	dma_fence_put(job->fence);
	if (job->drm)
		gsp_drm_job_free(job->drm);
	gsp_ctx_put(job->ctx);
	kfree(job);
	atomic_dec(&gsp_drv->nr_jobs);
}

/* May run in atomic context: the release path never sleeps. */
void gsp_job_put(struct gsp_kjob *job)
{
	kref_put(&job->ref, gsp_job_release);
}

/* Takes over @dj, if any, once it returns a job. */
static struct gsp_kjob *gsp_job_alloc(struct gsp_ctx *ctx,
				      const struct gspace_submit *args,
				      struct gsp_drm_job *dj)
{
	struct dma_fence *fence;
	struct gsp_kjob *job;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return NULL;
	fence = kzalloc(sizeof(*fence), GFP_KERNEL);
	if (!fence) {
		kfree(job);
		return NULL;
	}
	/*
	 * One fence context per job: jobs of a tenant can end out of order
	 * (engines, cancellation), and a shared context would let
	 * sync_file_merge() drop the one that ends last.
	 */
	dma_fence_init(fence, &gsp_fence_ops, &ctx->gdev->fence_lock,
		       dma_fence_context_alloc(1), 1);
	__module_get(THIS_MODULE);
	atomic_inc(&gsp_drv->nr_fences);

	kref_init(&job->ref);
	kref_get(&ctx->ref);
	job->ctx = ctx;
	job->gdev = ctx->gdev;
	job->fence = fence;
	job->state = GSP_AJOB_PENDING;
	if (dj) {
		dj->job = job;
		job->drm = dj;
	}
	gsp_ajob_init(&job->base, &job->acct, &ctx->ent, args,
		      ctx->class == GSPACE_CLASS_LC, ctx->lc_target_ns);
	atomic_inc(&gsp_drv->nr_jobs);
	return job;
}

/**
 * gsp_job_end_locked - end a job that has not ended yet
 * @job: the job
 * @status: 0 or -errno
 * @gpu_ns: the job's GPU time; ignored unless the job was running
 * @now: CLOCK_MONOTONIC ns
 *
 * Charges a running job what @gpu_ns adds to what renewals charged while
 * it ran, signals the fence, wakes waiters, and gives a freed engine its
 * next job. A drm job whose payload the driver still runs leaves the
 * engine held (&gsp_dev_engine.held) instead.
 */
void gsp_job_end_locked(struct gsp_kjob *job, int status, u64 gpu_ns, u64 now)
{
	struct gsp_device *gdev = job->gdev;
	struct gsp_dev_engine *eng = &gdev->eng[job->base.engine];
	struct gsp_ctx *ctx = job->ctx;
	bool was_running;

	lockdep_assert_held(&gdev->lock);

	if (WARN_ON_ONCE(job->state == GSP_AJOB_DONE))
		return;
	was_running = gsp_ajob_end(&gdev->sched, &job->base, &job->acct,
				   job->state, &ctx->acct, status, gpu_ns, now);
	if (was_running) {
		eng->running = NULL;
		if (job->drm && gsp_drm_job_holds_locked(job)) {
			/* The timer stays armed: the hold's watchdog. */
			kref_get(&job->ref);
			eng->held = job;
		} else {
			hrtimer_try_to_cancel(&eng->timer);
		}
	} else {
		/* A queued job left the queue without running. */
		gsp_board_waiting_locked(gdev);
	}
	if (job->acct.lc)
		gsp_board_lc_jobs_locked(gdev, -1);
	if (job->out_fence)
		atomic_dec(&ctx->nr_fences);

	/* Publishes status and times to lockless waiters. */
	smp_store_release(&job->state, GSP_AJOB_DONE);
	if (status)
		dma_fence_set_error(job->fence, status);
	dma_fence_signal_timestamp(job->fence, ns_to_ktime(now));
	wake_up_all(&ctx->wq);

	if (was_running && !eng->held)
		gsp_engine_kick_locked(eng, now);
}

/**
 * gsp_job_progress_locked - renew the lease of a running leased job
 * @job: the job, running on a lease device
 * @gpu_ns: the GPU time it has used so far, as its holder measured it
 * @now: CLOCK_MONOTONIC ns
 *
 * Charges what @gpu_ns adds to what was charged before, and gives the job
 * a new watchdog period from @now.
 */
void gsp_job_progress_locked(struct gsp_kjob *job, u64 gpu_ns, u64 now)
{
	struct gsp_device *gdev = job->gdev;

	lockdep_assert_held(&gdev->lock);

	gsp_ajob_progress(&gdev->sched, &job->base, &job->acct,
			  &job->ctx->acct, gpu_ns, now);
	gsp_engine_renew_locked(&gdev->eng[job->base.engine], now);
}

/* The job's dependencies have all signalled: hand it to the scheduler. */
static void gsp_job_ready_locked(struct gsp_kjob *job, u64 now)
{
	struct gsp_device *gdev = job->gdev;

	lockdep_assert_held(&gdev->lock);

	if (job->state != GSP_AJOB_PENDING)
		return;	/* cancelled while it waited */
	if (job->dep_error) {
		gsp_job_end_locked(job, job->dep_error, 0, now);
		return;
	}
	job->state = GSP_AJOB_QUEUED;
	gsp_sched_enqueue(&gdev->sched, &job->base, now);
	gsp_engine_kick_locked(&gdev->eng[job->base.engine], now);
	/* After the kick: a job granted at once never shows as waiting. */
	gsp_board_waiting_locked(gdev);
}

void gsp_device_ready_work(struct work_struct *work)
{
	struct gsp_device *gdev = container_of(work, struct gsp_device,
					       ready_work);
	struct gsp_kjob *job, *next;
	struct llist_node *list;

	list = llist_reverse_order(llist_del_all(&gdev->ready));
	spin_lock_bh(&gdev->lock);
	llist_for_each_entry_safe(job, next, list, ready_node) {
		gsp_job_ready_locked(job, ktime_get_ns());
		gsp_job_put(job);
	}
	spin_unlock_bh(&gdev->lock);
}

static void gsp_dep_signalled(struct gsp_dep *dep)
{
	struct gsp_kjob *job = dep->job;
	int err = dep->fence->error;

	if (dep->charged)
		atomic_dec(&job->ctx->nr_fences);
	if (err)
		cmpxchg(&job->dep_error, 0, err);
	if (atomic_dec_and_test(&job->pending)) {
		/* The reference moves to the ready list. */
		llist_add(&job->ready_node, &job->gdev->ready);
		queue_work(system_wq, &job->gdev->ready_work);
		return;
	}
	gsp_job_put(job);
}

/* Runs under the signalled fence's lock: defer, take no gspace lock. */
static void gsp_dep_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	gsp_dep_signalled(container_of(cb, struct gsp_dep, cb));
}

/*
 * Takes over the caller's reference on @fence. A @charged dependency (an
 * in-fence) counts against the tenant's fences until it signals.
 */
static void gsp_job_add_dep(struct gsp_kjob *job, int slot,
			    struct dma_fence *fence, bool charged)
{
	struct gsp_dep *dep = &job->deps[slot];

	dep->job = job;
	dep->fence = fence;
	dep->charged = charged;
	if (charged)
		atomic_inc(&job->ctx->nr_fences);
	atomic_inc(&job->pending);
	kref_get(&job->ref);
	if (dma_fence_add_callback(fence, &dep->cb, gsp_dep_cb))
		gsp_dep_signalled(dep);	/* already signalled */
}

static int gsp_submit_answer_out(const struct gsp_submit_answer *ans,
				 u64 handle, int fd)
{
	*ans->handle = handle;
	*ans->out_fence_fd = fd;
	if (copy_to_user(ans->ubuf, ans->args,
			 min_t(u32, ans->user_size, ans->args_size)))
		return -EFAULT;
	return 0;
}

/**
 * gsp_job_submit - GSPACE_IOCTL_SUBMIT
 * @ctx: the tenant
 * @args: the validated-size argument, copied in
 * @ubuf: userspace argument, for the answer
 * @user_size: its size
 */
int gsp_job_submit(struct gsp_ctx *ctx, struct gspace_submit *args,
		   void __user *ubuf, u32 user_size)
{
	const struct gsp_submit_answer ans = {
		.args = args, .args_size = sizeof(*args),
		.handle = &args->handle, .out_fence_fd = &args->out_fence_fd,
		.ubuf = ubuf, .user_size = user_size,
	};

	return gsp_job_submit_common(ctx, args, NULL, &ans);
}

/**
 * gsp_job_submit_common - queue a job: SUBMIT, or DRM_SUBMIT's drm job
 * @ctx: the tenant
 * @args: the validated-size argument, copied in (DRM_SUBMIT makes one)
 * @dj: a drm job's part, taken over whatever happens, or NULL
 * @ans: where the answer goes back
 *
 * The answer is copied out before the job is published, so a fault
 * leaves nothing behind.
 */
int gsp_job_submit_common(struct gsp_ctx *ctx, struct gspace_submit *args,
			  struct gsp_drm_job *dj,
			  const struct gsp_submit_answer *ans)
{
	struct gspace *gsp = gsp_drv;
	struct dma_fence *in_fence = NULL;
	struct sync_file *sync = NULL;
	struct gsp_device *gdev;
	struct gsp_kjob *job;
	u32 handle, fences;
	bool hung;
	int fd = -1;
	int ret;

	ret = gsp_submit_validate(args);
	if (ret)
		goto out_free_drm;
	if (args->flags & GSPACE_SUBMIT_FENCE_IN) {
		in_fence = sync_file_get_fence(args->in_fence_fd);
		if (!in_fence) {
			ret = -EINVAL;
			goto out_free_drm;
		}
	}

	down_read(&gsp->cfg_rwsem);
	mutex_lock(&ctx->lock);
	gdev = ctx->gdev;
	if (gdev->index >= gsp_nr_devices(gsp)) {
		ret = -ENODEV;
		goto out_unlock;
	}
	spin_lock_bh(&gdev->lock);
	hung = ctx->hung;
	spin_unlock_bh(&gdev->lock);
	if (hung) {
		ret = -EBUSY;
		goto out_unlock;
	}
	/*
	 * The tenant's limits (Documentation/kmod.rst, "Limits"). Ended jobs
	 * count until reaped; an in-fence already signalled costs nothing.
	 * Under @ctx->lock the counts only fall meanwhile.
	 */
	if (atomic_read(&ctx->nr_held) >= READ_ONCE(gsp->max_jobs)) {
		ret = -ENOSPC;
		goto out_unlock;
	}
	fences = !!(args->flags & GSPACE_SUBMIT_FENCE_OUT) +
		 (in_fence && !dma_fence_is_signaled(in_fence));
	if (atomic_read(&ctx->nr_fences) + fences >
	    READ_ONCE(gsp->max_fences)) {
		ret = -EMFILE;
		goto out_unlock;
	}

	job = gsp_job_alloc(ctx, args, dj);
	if (!job) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	dj = NULL;	/* the job's now */
	/* Reserve the handle; lookups see nothing until it is published. */
	ret = xa_alloc_cyclic(&ctx->jobs, &handle, NULL, xa_limit_32b,
			      &ctx->next_handle, GFP_KERNEL);
	if (ret < 0)
		goto out_put_job;
	job->handle = handle;

	if (args->flags & GSPACE_SUBMIT_FENCE_OUT) {
		fd = get_unused_fd_flags(O_CLOEXEC);
		if (fd < 0) {
			ret = fd;
			goto out_release_handle;
		}
		sync = sync_file_create(job->fence);
		if (!sync) {
			ret = -ENOMEM;
			goto out_put_fd;
		}
	}

	ret = gsp_submit_answer_out(ans, handle, fd);
	if (ret)
		goto out_put_sync;

	/* Nothing can fail after this point: publish the job. */
	if (sync) {
		fd_install(fd, sync->file);
		job->out_fence = true;
		atomic_inc(&ctx->nr_fences);
	}

	atomic_set(&job->pending, 1);
	spin_lock_bh(&gdev->lock);
	gsp_ajob_submitted(&job->acct, &ctx->acct, ktime_get_ns());
	if (job->acct.lc)
		gsp_board_lc_jobs_locked(gdev, 1);
	spin_unlock_bh(&gdev->lock);

	kref_get(&job->ref);	/* the table's, taken over by the store */
	atomic_inc(&ctx->nr_held);
	xa_store(&ctx->jobs, handle, job, GFP_KERNEL);

	if (in_fence)
		gsp_job_add_dep(job, 0, in_fence, true);
	if ((args->flags & GSPACE_SUBMIT_CHAIN) && ctx->last)
		gsp_job_add_dep(job, 1, dma_fence_get(ctx->last), false);
	if (ctx->last)
		dma_fence_put(ctx->last);
	ctx->last = dma_fence_get(job->fence);

	spin_lock_bh(&gdev->lock);
	if (atomic_dec_and_test(&job->pending))
		gsp_job_ready_locked(job, ktime_get_ns());
	spin_unlock_bh(&gdev->lock);
	gsp_job_put(job);	/* the submitter's */

	mutex_unlock(&ctx->lock);
	up_read(&gsp->cfg_rwsem);
	return 0;

out_put_sync:
	if (sync)
		fput(sync->file);
out_put_fd:
	if (fd >= 0)
		put_unused_fd(fd);
out_release_handle:
	xa_erase(&ctx->jobs, handle);
out_put_job:
	gsp_job_put(job);
out_unlock:
	mutex_unlock(&ctx->lock);
	up_read(&gsp->cfg_rwsem);
	if (in_fence)
		dma_fence_put(in_fence);
out_free_drm:
	if (dj)
		gsp_drm_job_free(dj);
	return ret;
}

/* A reference to the live job @handle of @ctx, or NULL. */
struct gsp_kjob *gsp_job_lookup(struct gsp_ctx *ctx, u64 handle)
{
	struct gsp_kjob *job;

	if (!handle || handle > U32_MAX)
		return NULL;
	xa_lock(&ctx->jobs);
	job = xa_load(&ctx->jobs, handle);
	if (job)
		kref_get(&job->ref);
	xa_unlock(&ctx->jobs);
	return job;
}

/*
 * Removes @job from the handle table. Returns true, and drops the table's
 * reference, for exactly one caller.
 */
bool gsp_job_reap(struct gsp_ctx *ctx, struct gsp_kjob *job)
{
	bool reaped = false;

	xa_lock(&ctx->jobs);
	if (xa_load(&ctx->jobs, job->handle) == job) {
		__xa_erase(&ctx->jobs, job->handle);
		reaped = true;
	}
	xa_unlock(&ctx->jobs);
	if (reaped) {
		atomic_dec(&ctx->nr_held);
		gsp_job_put(job);
	}
	return reaped;
}

/**
 * gsp_ctx_cancel_all - end every job of a tenant whose file is closing
 * @ctx: the tenant, with &gsp_ctx.lock held
 *
 * Queued jobs are cancelled first, so that ending the running ones hands
 * the engines to other tenants and never to this one. Running jobs are
 * aborted and charged for the time they held the engine: a dead process's
 * GPU work dies with its GPU context. Nothing here waits for the GPU.
 */
void gsp_ctx_cancel_all(struct gsp_ctx *ctx)
{
	struct gsp_device *gdev = ctx->gdev;
	struct gsp_kjob *job;
	bool sim;
	unsigned long idx;
	u64 now;
	int i;

	lockdep_assert_held(&ctx->lock);

	spin_lock_bh(&gdev->lock);
	now = ktime_get_ns();
	sim = gdev->backend == GSP_BACKEND_SIM;
	xa_for_each(&ctx->jobs, idx, job)
		if (job->state == GSP_AJOB_PENDING ||
		    job->state == GSP_AJOB_QUEUED)
			gsp_job_end_locked(job, -ECANCELED, 0, now);
	xa_for_each(&ctx->jobs, idx, job)
		if (job->state == GSP_AJOB_RUNNING)
			gsp_job_end_locked(job, -ECANCELED,
					   gsp_ajob_abort_ns(&job->base,
							     &job->acct,
							     sim && !job->drm,
							     now), now);
	gsp_sched_detach(&gdev->sched, &ctx->ent, now);
	spin_unlock_bh(&gdev->lock);

	xa_for_each(&ctx->jobs, idx, job) {
		/* A callback that did not run yet never will: drop its ref. */
		for (i = 0; i < GSP_JOB_MAX_DEPS; i++) {
			struct gsp_dep *dep = &job->deps[i];

			if (dep->fence &&
			    dma_fence_remove_callback(dep->fence, &dep->cb)) {
				if (dep->charged)
					atomic_dec(&ctx->nr_fences);
				gsp_job_put(job);
			}
		}
		xa_erase(&ctx->jobs, idx);
		atomic_dec(&ctx->nr_held);
		gsp_job_put(job);
	}
	if (ctx->last) {
		dma_fence_put(ctx->last);
		ctx->last = NULL;
	}
}
