// SPDX-License-Identifier: GPL-2.0
/*
 * gsp_testdrm.ko: a TEST DEVICE for gspace's selftests. A DRM driver, in
 * the manner of vgem, with a render node and no hardware: its "engine" is
 * an hrtimer that ends each submission after the duration the submission
 * asks for, in the order submissions arrive, and signals its fence. The
 * uapi is kmod/gsp_testdrm.h. Never use it as a GPU: nothing runs.
 */

#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_syncobj.h>

#include "gsp_kcompat.h"
#include "gsp_testdrm.h"

/**
 * struct gsp_testdrm_job - one simulated submission
 * @fence: signals when the job ends; the queue holds one reference
 * @node: in &gsp_testdrm.queue
 * @duration_ns: how long the engine runs it
 * @fail: it ends with -EIO
 */
struct gsp_testdrm_job {
	struct dma_fence fence;
	struct list_head node;
	u64 duration_ns;
	bool fail;
};

/**
 * struct gsp_testdrm - the test device
 * @drm: the DRM device
 * @lock: protects everything below, and is every job fence's lock. Taken
 *	in process context and in the hardirq timer: irqsave.
 * @queue: jobs not ended, in arrival order; the head runs
 * @timer: ends the head job
 * @context: the fence context of the one timeline
 * @seqno: the last job's number
 * @unplugged: the module is going: no new job
 * @submitted: jobs accepted
 * @completed: jobs ended
 * @inflight: jobs in @queue
 * @max_inflight: the most in @queue at once since the last reset
 * @log: tags of the last GSP_TESTDRM_LOG jobs accepted
 */
struct gsp_testdrm {
	struct drm_device drm;
	spinlock_t lock;
	struct list_head queue;
	struct hrtimer timer;
	u64 context;
	u64 seqno;
	bool unplugged;
	u64 submitted;
	u64 completed;
	u32 inflight;
	u32 max_inflight;
	u64 log[GSP_TESTDRM_LOG];
};

static struct platform_device *gsp_testdrm_pdev;
static struct gsp_testdrm *gsp_testdrm;

static const char *gsp_testdrm_fence_driver(struct dma_fence *f)
{
	return GSP_TESTDRM_NAME;
}

static const char *gsp_testdrm_fence_timeline(struct dma_fence *f)
{
	return "simulated-engine";
}

/* Fences outlive files (syncobjs, sync_files): each pins the module. */
static void gsp_testdrm_fence_release(struct dma_fence *f)
{
	struct gsp_testdrm_job *job = container_of(f, struct gsp_testdrm_job,
						   fence);

	kfree_rcu(job, fence.rcu);
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops gsp_testdrm_fence_ops = {
	.get_driver_name = gsp_testdrm_fence_driver,
	.get_timeline_name = gsp_testdrm_fence_timeline,
	.release = gsp_testdrm_fence_release,
};

/* Ends the head job, with @err if the job did not ask for one. */
static struct gsp_testdrm_job *gsp_testdrm_end_head_locked(struct gsp_testdrm *t,
							   int err)
{
	struct gsp_testdrm_job *job;

	lockdep_assert_held(&t->lock);

	job = list_first_entry_or_null(&t->queue, struct gsp_testdrm_job,
				       node);
	if (!job)
		return NULL;
	list_del(&job->node);
	if (job->fail)
		err = -EIO;
	if (err)
		dma_fence_set_error(&job->fence, err);
	dma_fence_signal_locked(&job->fence);
	t->completed++;
	t->inflight--;
	return job;
}

static enum hrtimer_restart gsp_testdrm_timer_fn(struct hrtimer *timer)
{
	struct gsp_testdrm *t = container_of(timer, struct gsp_testdrm, timer);
	enum hrtimer_restart restart = HRTIMER_NORESTART;
	struct gsp_testdrm_job *job, *next;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	job = gsp_testdrm_end_head_locked(t, 0);
	next = list_first_entry_or_null(&t->queue, struct gsp_testdrm_job,
					node);
	if (next) {
		hrtimer_forward_now(timer, ns_to_ktime(next->duration_ns));
		restart = HRTIMER_RESTART;
	}
	spin_unlock_irqrestore(&t->lock, flags);
	if (job)
		dma_fence_put(&job->fence);	/* the queue's */
	return restart;
}

static int gsp_testdrm_submit_ioctl(struct drm_device *dev, void *data,
				    struct drm_file *file)
{
	struct gsp_testdrm *t = container_of(dev, struct gsp_testdrm, drm);
	struct drm_gsp_testdrm_submit *args = data;
	struct gsp_testdrm_job *job;
	struct drm_syncobj *syncobj;
	unsigned long flags;
	int ret = 0;

	if (args->size != sizeof(*args) ||
	    args->flags & ~GSP_TESTDRM_SUBMIT_FLAGS || args->seqno ||
	    args->context >= GSP_TESTDRM_CONTEXTS ||
	    args->duration_us > GSP_TESTDRM_MAX_US)
		return -EINVAL;
	syncobj = drm_syncobj_find(file, args->out_syncobj);
	if (!syncobj)
		return -ENOENT;
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		ret = -ENOMEM;
		goto out_put_syncobj;
	}
	job->duration_ns = args->duration_us * NSEC_PER_USEC;
	job->fail = args->flags & GSP_TESTDRM_SUBMIT_FAIL;

	spin_lock_irqsave(&t->lock, flags);
	if (t->unplugged) {
		spin_unlock_irqrestore(&t->lock, flags);
		kfree(job);
		ret = -ENODEV;
		goto out_put_syncobj;
	}
	__module_get(THIS_MODULE);
	dma_fence_init(&job->fence, &gsp_testdrm_fence_ops, &t->lock,
		       t->context, ++t->seqno);
	args->seqno = t->seqno;
	dma_fence_get(&job->fence);	/* ours, until the syncobj has it */
	list_add_tail(&job->node, &t->queue);
	t->log[t->submitted % GSP_TESTDRM_LOG] = args->tag;
	t->submitted++;
	t->inflight++;
	t->max_inflight = max(t->max_inflight, t->inflight);
	if (t->inflight == 1)
		hrtimer_start(&t->timer, ns_to_ktime(job->duration_ns),
			      HRTIMER_MODE_REL);
	spin_unlock_irqrestore(&t->lock, flags);

	drm_syncobj_replace_fence(syncobj, &job->fence);
	dma_fence_put(&job->fence);
out_put_syncobj:
	drm_syncobj_put(syncobj);
	return ret;
}

static int gsp_testdrm_info_ioctl(struct drm_device *dev, void *data,
				  struct drm_file *file)
{
	struct gsp_testdrm *t = container_of(dev, struct gsp_testdrm, drm);
	struct drm_gsp_testdrm_info *args = data;
	unsigned long flags;

	if (args->size != sizeof(*args) || args->flags & ~GSP_TESTDRM_INFO_RESET)
		return -EINVAL;
	spin_lock_irqsave(&t->lock, flags);
	if (args->flags & GSP_TESTDRM_INFO_RESET)
		t->max_inflight = t->inflight;
	args->submitted = t->submitted;
	args->completed = t->completed;
	args->inflight = t->inflight;
	args->max_inflight = t->max_inflight;
	memcpy(args->log, t->log, sizeof(args->log));
	spin_unlock_irqrestore(&t->lock, flags);
	return 0;
}

static const struct drm_ioctl_desc gsp_testdrm_ioctls[] = {
	DRM_IOCTL_DEF_DRV(GSP_TESTDRM_SUBMIT, gsp_testdrm_submit_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(GSP_TESTDRM_INFO, gsp_testdrm_info_ioctl,
			  DRM_RENDER_ALLOW),
};

static const struct file_operations gsp_testdrm_fops = {
	.owner = THIS_MODULE,
	.open = drm_open,
	.release = drm_release,
	.unlocked_ioctl = drm_ioctl,
	.compat_ioctl = drm_compat_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	GSP_FOPS_UNSIGNED_OFFSET	/* gsp_kcompat.h: 6.12 */
};

static const struct drm_driver gsp_testdrm_driver = {
	.driver_features = DRIVER_RENDER | DRIVER_SYNCOBJ,
	.ioctls = gsp_testdrm_ioctls,
	.num_ioctls = ARRAY_SIZE(gsp_testdrm_ioctls),
	.fops = &gsp_testdrm_fops,
	.name = GSP_TESTDRM_NAME,
	.desc = "gspace TEST DEVICE: simulated engine, no hardware",
	.date = "20261127",
	.major = 1,
	.minor = 0,
};

static int __init gsp_testdrm_init(void)
{
	struct gsp_testdrm *t;
	int ret;

	gsp_testdrm_pdev = platform_device_register_simple(GSP_TESTDRM_NAME,
							   -1, NULL, 0);
	if (IS_ERR(gsp_testdrm_pdev))
		return PTR_ERR(gsp_testdrm_pdev);
	if (!devres_open_group(&gsp_testdrm_pdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_unregister_pdev;
	}
	t = devm_drm_dev_alloc(&gsp_testdrm_pdev->dev, &gsp_testdrm_driver,
			       struct gsp_testdrm, drm);
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		goto err_release_devres;
	}
	spin_lock_init(&t->lock);
	INIT_LIST_HEAD(&t->queue);
	hrtimer_setup(&t->timer, gsp_testdrm_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);
	t->context = dma_fence_context_alloc(1);
	gsp_testdrm = t;

	ret = drm_dev_register(&t->drm, 0);
	if (ret)
		goto err_release_devres;
	pr_info("TEST DEVICE registered: simulated engine, no hardware\n");
	return 0;

err_release_devres:
	devres_release_group(&gsp_testdrm_pdev->dev, NULL);
err_unregister_pdev:
	platform_device_unregister(gsp_testdrm_pdev);
	return ret;
}

/*
 * No file is open and no fence lives: each pins the module, and each
 * queued job holds its fence. So the queue is empty; should a job be
 * left all the same, it ends with -ENODEV rather than leak.
 */
static void __exit gsp_testdrm_exit(void)
{
	struct gsp_testdrm *t = gsp_testdrm;
	struct gsp_testdrm_job *job;
	unsigned long flags;

	drm_dev_unplug(&t->drm);
	spin_lock_irqsave(&t->lock, flags);
	t->unplugged = true;
	spin_unlock_irqrestore(&t->lock, flags);
	hrtimer_cancel(&t->timer);
	for (;;) {
		spin_lock_irqsave(&t->lock, flags);
		job = gsp_testdrm_end_head_locked(t, -ENODEV);
		spin_unlock_irqrestore(&t->lock, flags);
		if (!job)
			break;
		dma_fence_put(&job->fence);
	}
	devres_release_group(&gsp_testdrm_pdev->dev, NULL);
	platform_device_unregister(gsp_testdrm_pdev);
}

module_init(gsp_testdrm_init);
module_exit(gsp_testdrm_exit);

MODULE_DESCRIPTION("gsp-testdrm: TEST DEVICE for gspace selftests, a simulated DRM engine with no hardware");
MODULE_LICENSE("GPL");
