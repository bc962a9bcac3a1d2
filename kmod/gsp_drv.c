// SPDX-License-Identifier: GPL-2.0
/*
 * gspace: GPU time sharing between latency-critical and best-effort tenants.
 *
 * /dev/gspace, its tenants and its devices.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "gsp_drv.h"

#define DRIVER_DESC	"GPU time sharing for latency-critical and best-effort tenants"

/*
 * gspace ABI versions (uapi/gspace.h):
 * - 1.0 - initial interface: VERSION, CTX_SET, SUBMIT, WAIT, COMPLETE,
 *         CANCEL, STATS; sim and lease engines; FIFO, CREDIT, BAND.
 * - 1.1 - the board (mmap), STATS.lc_slot.
 * - 1.2 - the board's partition plane (dev[].part_req).
 * - 1.3 - lease renewal (GSPACE_COMPLETE_PROGRESS), protection modes.
 * - 1.4 - protection mode preemptive, the board's dev[].waiting.
 * - 1.5 - partition auto: dev[].search, the slots' cell and search.
 * - 1.6 - the drm engine: DRM_BIND, DRM_SUBMIT, GSPACE_FEAT_DRM.
 */

struct gspace *gsp_drv;

static unsigned int sim_devices = 1;
module_param(sim_devices, uint, 0444);
MODULE_PARM_DESC(sim_devices, "simulated devices at load (default 1)");

static unsigned int lease_devices;
module_param(lease_devices, uint, 0444);
MODULE_PARM_DESC(lease_devices, "lease devices at load, numbered after the simulated ones (default 0)");


u32 gsp_nr_devices(struct gspace *gsp)
{
	return gsp->nr_sim + gsp->nr_lease;
}

/* LC needs CAP_SYS_NICE or the group the operator named. */
bool gsp_lc_allowed(struct gspace *gsp)
{
	kgid_t gid;

	if (capable(CAP_SYS_NICE))
		return true;
	down_read(&gsp->cfg_rwsem);
	gid = gsp->lc_gid;
	up_read(&gsp->cfg_rwsem);
	return gid_valid(gid) && in_group_p(gid);
}

/*
 * Counts a new tenant of @uid in &gspace.uid_tenants: 0, -EUSERS when the
 * uid holds uid_max_tenants already and the opener lacks CAP_SYS_ADMIN,
 * or -ENOMEM. Every tenant counts, the exempt ones too.
 */
static int gsp_uid_charge(struct gspace *gsp, kuid_t uid)
{
	unsigned long key = __kuid_val(uid), n;
	void *entry;
	int ret = 0;

	mutex_lock(&gsp->ctx_lock);
	entry = xa_load(&gsp->uid_tenants, key);
	n = entry ? xa_to_value(entry) : 0;
	/* capable() only past the limit: it marks the task privileged. */
	if (n >= READ_ONCE(gsp->max_uid_tenants) && !capable(CAP_SYS_ADMIN)) {
		ret = -EUSERS;
		goto out_unlock;
	}
	ret = xa_err(xa_store(&gsp->uid_tenants, key, xa_mk_value(n + 1),
			      GFP_KERNEL));
out_unlock:
	mutex_unlock(&gsp->ctx_lock);
	return ret;
}

/* The tenant of @uid is gone: one less, and no entry for a count of 0. */
static void gsp_uid_uncharge_locked(struct gspace *gsp, kuid_t uid)
{
	unsigned long key = __kuid_val(uid), n;
	void *entry;

	lockdep_assert_held(&gsp->ctx_lock);

	entry = xa_load(&gsp->uid_tenants, key);
	if (WARN_ON_ONCE(!entry))
		return;
	n = xa_to_value(entry);
	if (n == 1) {
		xa_erase(&gsp->uid_tenants, key);
		return;
	}
	/* Replaces a present entry: allocates nothing, cannot fail. */
	WARN_ON_ONCE(xa_is_err(xa_store(&gsp->uid_tenants, key,
					xa_mk_value(n - 1), GFP_KERNEL)));
}

static void gsp_ctx_release(struct kref *ref)
{
	struct gsp_ctx *ctx = container_of(ref, struct gsp_ctx, ref);

	/*
	 * gsp_release() erased every handle, so the table holds no memory.
	 * No xa_destroy(): the last put may come from a job's release under
	 * gdev->lock, which the engine timer takes in softirq context, and
	 * the table's lock is taken with softirqs on elsewhere.
	 */
	WARN_ON_ONCE(!xa_empty(&ctx->jobs));
	kfree(ctx);
	atomic_dec(&gsp_drv->nr_ctx);
}

/* May run in atomic context, from the last job's release. */
void gsp_ctx_put(struct gsp_ctx *ctx)
{
	kref_put(&ctx->ref, gsp_ctx_release);
}

static int gsp_open(struct inode *inode, struct file *file)
{
	struct gspace *gsp = gsp_drv;
	struct gsp_device *gdev = &gsp->dev[0];
	struct gsp_ctx *ctx;
	int ret;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	/* The opener's, as the file keeps them; counted until release. */
	ctx->uid = file->f_cred->euid;
	ret = gsp_uid_charge(gsp, ctx->uid);
	if (ret)
		goto err_free_ctx;
	kref_init(&ctx->ref);
	mutex_init(&ctx->lock);
	xa_init_flags(&ctx->jobs, XA_FLAGS_ALLOC1);
	init_waitqueue_head(&ctx->wq);
	ctx->class = GSPACE_CLASS_BE;
	ctx->lc_slot = -1;
	ctx->weight = GSPACE_WEIGHT_DEFAULT;
	ctx->pid = task_tgid_nr(current);
	ctx->gdev = gdev;
	gsp_entity_init(&ctx->ent, ctx->weight, false);

	spin_lock_bh(&gdev->lock);
	gsp_sched_attach(&gdev->sched, &ctx->ent, ktime_get_ns());
	spin_unlock_bh(&gdev->lock);

	mutex_lock(&gsp->ctx_lock);
	list_add_tail(&ctx->node, &gsp->contexts);
	mutex_unlock(&gsp->ctx_lock);
	atomic_inc(&gsp->nr_ctx);

	file->private_data = ctx;
	return 0;

err_free_ctx:
	kfree(ctx);
	return ret;
}

/* The tenant is gone: nothing of it may stall anyone else. */
static int gsp_release(struct inode *inode, struct file *file)
{
	struct gsp_ctx *ctx = file->private_data;
	struct gspace *gsp = gsp_drv;

	mutex_lock(&gsp->ctx_lock);
	list_del(&ctx->node);
	gsp_uid_uncharge_locked(gsp, ctx->uid);
	mutex_unlock(&gsp->ctx_lock);

	mutex_lock(&ctx->lock);
	gsp_ctx_cancel_all(ctx);
	WRITE_ONCE(ctx->class, GSPACE_CLASS_BE);
	gsp_board_update_slot(ctx);
	mutex_unlock(&ctx->lock);
	gsp_drm_ctx_release(ctx);
	gsp_ctx_put(ctx);
	return 0;
}

static const struct file_operations gsp_fops = {
	.owner = THIS_MODULE,
	.open = gsp_open,
	.release = gsp_release,
	.unlocked_ioctl = gsp_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = gsp_board_mmap,
	.llseek = noop_llseek,
};

static void gsp_device_init(struct gspace *gsp, struct gsp_device *gdev,
			    u32 index)
{
	int i;

	gdev->index = index;
	gdev->backend = index < gsp->nr_sim ? GSP_BACKEND_SIM :
					      GSP_BACKEND_LEASE;
	spin_lock_init(&gdev->lock);
	spin_lock_init(&gdev->fence_lock);
	init_llist_head(&gdev->ready);
	INIT_WORK(&gdev->ready_work, gsp_device_ready_work);
	gsp_sched_init(&gdev->sched, &gsp->params, ktime_get_ns());
	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		gsp_engine_init(gdev, &gdev->eng[i], i);
}

static void gsp_device_fini(struct gsp_device *gdev)
{
	int i;

	flush_work(&gdev->ready_work);
	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		gsp_engine_fini(&gdev->eng[i]);
}

static int __init gsp_init(void)
{
	struct gspace *gsp;
	int ret, i;

	if (sim_devices + lease_devices < 1 ||
	    sim_devices + lease_devices > GSP_MAX_DEVICES) {
		pr_err("sim_devices + lease_devices must be 1..%d\n",
		       GSP_MAX_DEVICES);
		return -EINVAL;
	}

	gsp = kzalloc(sizeof(*gsp), GFP_KERNEL);
	if (!gsp)
		return -ENOMEM;
	init_rwsem(&gsp->cfg_rwsem);
	mutex_init(&gsp->ctx_lock);
	INIT_LIST_HEAD(&gsp->contexts);
	xa_init(&gsp->uid_tenants);
	gsp_params_default(&gsp->params);
	gsp->watchdog_ns = gsp_knob_default_scaled(GSP_KNOB_watchdog_ms);
	gsp->nr_sim = sim_devices;
	gsp->nr_lease = lease_devices;
	gsp->lc_gid = INVALID_GID;
	gsp->max_jobs = gsp_knobs[GSP_KNOB_tenant_max_jobs].def;
	gsp->max_fences = gsp_knobs[GSP_KNOB_tenant_max_fences].def;
	gsp->max_waits = gsp_knobs[GSP_KNOB_tenant_max_waits].def;
	gsp->max_uid_tenants = gsp_knobs[GSP_KNOB_uid_max_tenants].def;
	ret = gsp_board_init(gsp);
	if (ret)
		goto err_free_gsp;
	ret = gsp_drm_core_init();
	if (ret)
		goto err_fini_board;
	for (i = 0; i < GSP_MAX_DEVICES; i++)
		gsp_device_init(gsp, &gsp->dev[i], i);
	gsp_drv = gsp;

	gsp->misc.minor = MISC_DYNAMIC_MINOR;
	gsp->misc.name = DRIVER_NAME;
	gsp->misc.nodename = DRIVER_NAME;
	gsp->misc.fops = &gsp_fops;
	/* root and the group of 60-gspace.rules (udev) only */
	gsp->misc.mode = 0660;
	gsp->misc.groups = gsp_attr_groups;

	gsp_debugfs_init(gsp);

	/* Final step: expose /dev/gspace to userspace. */
	ret = misc_register(&gsp->misc);
	if (ret)
		goto err_remove_debugfs;

	pr_info("%u simulated and %u lease devices, policy %s\n",
		gsp->nr_sim, gsp->nr_lease,
		gsp_policy_names[gsp->params.policy]);
	return 0;

err_remove_debugfs:
	gsp_debugfs_fini(gsp);
	for (i = 0; i < GSP_MAX_DEVICES; i++)
		gsp_device_fini(&gsp->dev[i]);
	gsp_drv = NULL;
	gsp_drm_core_fini();
err_fini_board:
	gsp_board_fini(gsp);
err_free_gsp:
	kfree(gsp);
	return ret;
}

/* No file is open and no fence lives: each pins the module. */
static void __exit gsp_exit(void)
{
	struct gspace *gsp = gsp_drv;
	int i;

	misc_deregister(&gsp->misc);
	gsp_debugfs_fini(gsp);
	for (i = 0; i < GSP_MAX_DEVICES; i++)
		gsp_device_fini(&gsp->dev[i]);
	WARN_ON(atomic_read(&gsp->nr_ctx) || atomic_read(&gsp->nr_jobs) ||
		atomic_read(&gsp->nr_fences) || !xa_empty(&gsp->uid_tenants));
	xa_destroy(&gsp->uid_tenants);
	gsp_drm_core_fini();
	gsp_drv = NULL;
	gsp_board_fini(gsp);
	kfree(gsp);
}

module_init(gsp_init);
module_exit(gsp_exit);

MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_LICENSE("GPL");
