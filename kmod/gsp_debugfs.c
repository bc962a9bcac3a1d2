// SPDX-License-Identifier: GPL-2.0
/*
 * gspace debugfs, in /sys/kernel/debug/gspace/:
 *   objects   live object counters (leak checks: all 0 when idle)
 *   tenants   one line per open tenant
 *   devices   backend and running job of each engine
 *   limits    the tenants' limits and what they bound a tenant's memory to
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "gsp_drv.h"

static int objects_show(struct seq_file *m, void *unused)
{
	struct gspace *gsp = m->private;

	seq_printf(m, "contexts %d\n", atomic_read(&gsp->nr_ctx));
	seq_printf(m, "jobs %d\n", atomic_read(&gsp->nr_jobs));
	seq_printf(m, "fences %d\n", atomic_read(&gsp->nr_fences));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(objects);

static int tenants_show(struct seq_file *m, void *unused)
{
	struct gspace *gsp = m->private;
	struct gsp_ctx *ctx;

	seq_puts(m, "pid dev class weight queued running completed failed qos_violations gpu_ns_compute gpu_ns_h2d gpu_ns_d2h credit_ns_compute hung renewals\n");
	mutex_lock(&gsp->ctx_lock);
	list_for_each_entry(ctx, &gsp->contexts, node) {
		struct gsp_device *gdev;

		mutex_lock(&ctx->lock);
		gdev = ctx->gdev;
		spin_lock_bh(&gdev->lock);
		seq_printf(m, "%d %u %s %u %llu %llu %llu %llu %llu %llu %llu %llu %lld %d %llu\n",
			   ctx->pid, gdev->index,
			   ctx->class == GSPACE_CLASS_LC ? "lc" : "be",
			   ctx->weight, ctx->acct.nr_queued, ctx->acct.nr_running,
			   ctx->acct.nr_completed, ctx->acct.nr_failed,
			   ctx->acct.nr_qos_violations,
			   ctx->acct.gpu_ns[GSP_ENGINE_COMPUTE],
			   ctx->acct.gpu_ns[GSP_ENGINE_H2D],
			   ctx->acct.gpu_ns[GSP_ENGINE_D2H],
			   gsp_entity_credit_ns(&ctx->ent, GSP_ENGINE_COMPUTE),
			   ctx->hung, ctx->acct.nr_renewals);
		spin_unlock_bh(&gdev->lock);
		mutex_unlock(&ctx->lock);
	}
	mutex_unlock(&gsp->ctx_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tenants);

/*
 * The most a tenant's handle table costs: handles are allocated
 * cyclically over 32 bits, so held jobs can be sparse. Each may then need
 * a node of its own at the three lowest levels (64 slots each), and the
 * upper levels (a 32-bit index has six) hold at most 256 + 4 + 1 nodes.
 */
#define GSP_XA_NODES_PER_JOB	3
#define GSP_XA_NODES_SHARED	(256 + 4 + 1)

/*
 * What one tenant can make the module allocate, in bytes, with the
 * limits as they are (Documentation/kmod.rst, "Limits"): its context and
 * the upper nodes of its handle table, and per job held its record, its
 * fence, its share of the table and, for a DRM_SUBMIT job, its drm part
 * (the payload), counted for every job as the worst case. A WAIT asleep
 * allocates nothing: it waits on the caller's own stack, so wait_bytes
 * is 0.
 */
static int limits_show(struct seq_file *m, void *unused)
{
	struct gspace *gsp = m->private;
	u64 node = sizeof(struct xa_node);	/* a slab cache of its own */
	u64 ctx_bytes = kmalloc_size_roundup(sizeof(struct gsp_ctx)) +
			GSP_XA_NODES_SHARED * node;
	u64 job_bytes = kmalloc_size_roundup(sizeof(struct gsp_kjob)) +
			kmalloc_size_roundup(sizeof(struct dma_fence)) +
			kmalloc_size_roundup(sizeof(struct gsp_drm_job)) +
			GSP_XA_NODES_PER_JOB * node;
	u32 jobs = READ_ONCE(gsp->max_jobs);

	seq_printf(m, "tenant_max_jobs %u\n", jobs);
	seq_printf(m, "tenant_max_fences %u\n", READ_ONCE(gsp->max_fences));
	seq_printf(m, "tenant_max_waits %u\n", READ_ONCE(gsp->max_waits));
	seq_printf(m, "uid_max_tenants %u\n", READ_ONCE(gsp->max_uid_tenants));
	seq_printf(m, "tenant_bytes %llu\n", ctx_bytes);
	seq_printf(m, "job_bytes %llu\n", job_bytes);
	seq_puts(m, "wait_bytes 0\n");
	seq_printf(m, "tenant_max_bytes %llu\n", ctx_bytes + jobs * job_bytes);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(limits);

static const char *const gsp_engine_names[GSP_ENGINE_COUNT] = {
	[GSP_ENGINE_COMPUTE] = "compute",
	[GSP_ENGINE_H2D] = "h2d",
	[GSP_ENGINE_D2H] = "d2h",
};

static int devices_show(struct seq_file *m, void *unused)
{
	struct gspace *gsp = m->private;
	u32 i, e, n;

	down_read(&gsp->cfg_rwsem);
	n = gsp_nr_devices(gsp);
	for (i = 0; i < n; i++) {
		struct gsp_device *gdev = &gsp->dev[i];

		spin_lock_bh(&gdev->lock);
		seq_printf(m, "dev%u %s", i,
			   gdev->backend == GSP_BACKEND_SIM ? "sim" : "lease");
		for (e = 0; e < GSP_ENGINE_COUNT; e++) {
			struct gsp_kjob *job = gdev->eng[e].running;

			if (job)
				seq_printf(m, " %s=pid%d:tag%llu",
					   gsp_engine_names[e], job->ctx->pid,
					   job->acct.user_tag);
			else
				seq_printf(m, " %s=idle", gsp_engine_names[e]);
		}
		seq_putc(m, '\n');
		spin_unlock_bh(&gdev->lock);
	}
	up_read(&gsp->cfg_rwsem);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(devices);

void gsp_debugfs_init(struct gspace *gsp)
{
	gsp->debugfs = debugfs_create_dir(DRIVER_NAME, NULL);
	debugfs_create_file("objects", 0400, gsp->debugfs, gsp, &objects_fops);
	debugfs_create_file("tenants", 0400, gsp->debugfs, gsp, &tenants_fops);
	debugfs_create_file("devices", 0400, gsp->debugfs, gsp, &devices_fops);
	debugfs_create_file("limits", 0400, gsp->debugfs, gsp, &limits_fops);
}

void gsp_debugfs_fini(struct gspace *gsp)
{
	debugfs_remove_recursive(gsp->debugfs);
}
