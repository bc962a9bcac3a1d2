// SPDX-License-Identifier: GPL-2.0
/*
 * gspace sysfs knobs, in /sys/class/misc/gspace/: one value per file, one
 * file per knob of the core's table (core/gsp_knob_table.h), which says
 * what each takes. An invalid write gives -EINVAL and changes nothing.
 * Documentation/ABI/testing/sysfs-class-misc-gspace describes each.
 */

#include <linux/cred.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <linux/sysfs.h>
#include <linux/user_namespace.h>

#include "gsp_drv.h"

/* The device knobs' range is the board's. */
static_assert(GSP_MAX_DEVICES == GSPACE_BOARD_MAX_DEVICES);

/* Applies new tunables to every device's scheduler. */
static void gsp_params_apply(struct gspace *gsp, const struct gsp_params *p)
{
	int i;

	lockdep_assert_held_write(&gsp->cfg_rwsem);

	gsp->params = *p;
	for (i = 0; i < GSP_MAX_DEVICES; i++) {
		struct gsp_device *gdev = &gsp->dev[i];
		u64 now = ktime_get_ns();

		spin_lock_bh(&gdev->lock);
		WARN_ON(gsp_sched_set_params(&gdev->sched, p, now));
		gsp_device_kick_locked(gdev, now);
		spin_unlock_bh(&gdev->lock);
	}
}

/* One of the core's tunables; they are validated together. */
static int gsp_param_store(struct gspace *gsp, enum gsp_knob_id id, u64 val)
{
	struct gsp_params p;
	int ret;

	down_write(&gsp->cfg_rwsem);
	p = gsp->params;
	gsp_knob_param_set(&p, id, val);
	ret = gsp_params_validate(&p);
	if (!ret)
		gsp_params_apply(gsp, &p);
	up_write(&gsp->cfg_rwsem);
	return ret;
}

/*
 * The board's LC knobs live in the board itself, where BE tenants read
 * them; NULL for any other knob.
 */
static u64 *gsp_board_knob(struct gspace *gsp, enum gsp_knob_id id)
{
	switch (id) {
	case GSP_KNOB_lc_hold_us:
		return &gsp->board->lc_hold_ns;
	case GSP_KNOB_lc_max_ms:
		return &gsp->board->lc_max_ns;
	case GSP_KNOB_predict_lead_us:
		return &gsp->board->predict_lead_ns;
	default:
		return NULL;
	}
}

/*
 * The tenants' limits (Documentation/kmod.rst, "Limits"), read locklessly
 * where they are enforced; NULL for any other knob.
 */
static u32 *gsp_limit_knob(struct gspace *gsp, enum gsp_knob_id id)
{
	switch (id) {
	case GSP_KNOB_tenant_max_jobs:
		return &gsp->max_jobs;
	case GSP_KNOB_tenant_max_fences:
		return &gsp->max_fences;
	case GSP_KNOB_tenant_max_waits:
		return &gsp->max_waits;
	case GSP_KNOB_uid_max_tenants:
		return &gsp->max_uid_tenants;
	default:
		return NULL;
	}
}

/*
 * Device counts renumber the lease devices, so they only change while no
 * job exists at all (EBUSY otherwise).
 */
static int gsp_devices_store(struct gspace *gsp, u64 val, bool lease)
{
	u32 sim, nlease;
	int ret = 0;
	int i;

	down_write(&gsp->cfg_rwsem);
	sim = lease ? gsp->nr_sim : val;
	nlease = lease ? val : gsp->nr_lease;
	if (sim + nlease < 1 || sim + nlease > GSP_MAX_DEVICES) {
		ret = -EINVAL;
		goto out_unlock;
	}
	if (atomic_read(&gsp->nr_jobs)) {
		ret = -EBUSY;
		goto out_unlock;
	}
	gsp->nr_sim = sim;
	gsp->nr_lease = nlease;
	gsp_board_set_devices(gsp);
	for (i = 0; i < GSP_MAX_DEVICES; i++) {
		struct gsp_device *gdev = &gsp->dev[i];

		spin_lock_bh(&gdev->lock);
		gdev->backend = i < sim ? GSP_BACKEND_SIM : GSP_BACKEND_LEASE;
		spin_unlock_bh(&gdev->lock);
	}
out_unlock:
	up_write(&gsp->cfg_rwsem);
	return ret;
}

/* The value of knob @id, as it reads. */
static void gsp_knob_get(struct gspace *gsp, enum gsp_knob_id id,
			 struct gsp_knob_val *v)
{
	u64 *field = gsp_board_knob(gsp, id);
	u32 *limit = gsp_limit_knob(gsp, id);
	kgid_t gid;

	if (field) {
		v->u = div64_u64(READ_ONCE(*field), gsp_knobs[id].scale);
		return;
	}
	if (limit) {
		v->u = READ_ONCE(*limit);
		return;
	}
	down_read(&gsp->cfg_rwsem);
	if (gsp_knob_is_param(id))
		v->u = gsp_knob_param_get(&gsp->params, id);
	switch (id) {
	case GSP_KNOB_watchdog_ms:
		v->u = div64_u64(READ_ONCE(gsp->watchdog_ns),
				 gsp_knobs[id].scale);
		break;
	case GSP_KNOB_sim_devices:
		v->u = READ_ONCE(gsp->nr_sim);
		break;
	case GSP_KNOB_lease_devices:
		v->u = READ_ONCE(gsp->nr_lease);
		break;
	case GSP_KNOB_lc_group:
		/* A gid in the reader's user namespace. */
		gid = gsp->lc_gid;
		v->u = gid_valid(gid) ?
		       from_kgid_munged(current_user_ns(), gid) : U64_MAX;
		break;
	case GSP_KNOB_partition:
		v->n = gsp->part_n;
		v->k = gsp->part_k;
		v->u = gsp->part_auto;
		break;
	case GSP_KNOB_search:
		v->u = gsp->search;
		break;
	case GSP_KNOB_protect:
		v->u = gsp->protect;
		break;
	default:
		break;
	}
	up_read(&gsp->cfg_rwsem);
}

/* Sets knob @id to @v, parsed and in range: 0 or -errno. */
static int gsp_knob_set(struct gspace *gsp, enum gsp_knob_id id,
			const struct gsp_knob_val *v)
{
	u64 *field = gsp_board_knob(gsp, id);
	u32 *limit = gsp_limit_knob(gsp, id);
	kgid_t gid = INVALID_GID;

	if (gsp_knob_is_param(id))
		return gsp_param_store(gsp, id, v->u);
	if (id == GSP_KNOB_sim_devices || id == GSP_KNOB_lease_devices)
		return gsp_devices_store(gsp, v->u,
					 id == GSP_KNOB_lease_devices);
	if (id == GSP_KNOB_lc_group && v->u != U64_MAX) {
		/* A gid in the writer's user namespace. */
		gid = make_kgid(current_user_ns(), v->u);
		if (!gid_valid(gid))
			return -EINVAL;
	}
	down_write(&gsp->cfg_rwsem);
	if (field)
		WRITE_ONCE(*field, v->u * gsp_knobs[id].scale);
	/* A lower limit takes nothing back: it refuses what comes next. */
	if (limit)
		WRITE_ONCE(*limit, v->u);
	switch (id) {
	case GSP_KNOB_watchdog_ms:
		WRITE_ONCE(gsp->watchdog_ns, v->u * gsp_knobs[id].scale);
		/* Lease holders renew by it. */
		WRITE_ONCE(gsp->board->watchdog_ns, gsp->watchdog_ns);
		break;
	case GSP_KNOB_lc_group:
		gsp->lc_gid = gid;
		break;
	case GSP_KNOB_partition:
		/* One partition for every device of the board. */
		gsp_board_set_partition(gsp, v->n, v->k, v->u);
		break;
	case GSP_KNOB_search:
		gsp_board_set_search(gsp, v->u);
		break;
	case GSP_KNOB_protect:
		/* One mode for every device of the board. */
		gsp_board_set_protect(gsp, v->u);
		break;
	default:
		break;
	}
	up_write(&gsp->cfg_rwsem);
	return 0;
}

static ssize_t gsp_knob_show(enum gsp_knob_id id, char *buf)
{
	struct gsp_knob_val v = { 0 };
	char val[32];

	gsp_knob_get(gsp_drv, id, &v);
	gsp_knob_format(id, &v, val, sizeof(val));
	return sysfs_emit(buf, "%s\n", val);
}

static ssize_t gsp_knob_store(enum gsp_knob_id id, const char *buf,
			      size_t count)
{
	struct gsp_knob_val v;
	int ret;

	if (gsp_knob_parse(id, buf, &v))
		return -EINVAL;
	ret = gsp_knob_set(gsp_drv, id, &v);
	return ret ? ret : count;
}

/* One file per knob of the core's table, in its order. */
#define GSP_KNOB(_name, ...)						\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf);	\
static ssize_t _name##_store(struct device *dev,			\
			     struct device_attribute *attr,		\
			     const char *buf, size_t count);		\
static DEVICE_ATTR_RW(_name);						\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return gsp_knob_show(GSP_KNOB_##_name, buf);			\
}									\
static ssize_t _name##_store(struct device *dev,			\
			     struct device_attribute *attr,		\
			     const char *buf, size_t count)		\
{									\
	return gsp_knob_store(GSP_KNOB_##_name, buf, count);		\
}
#include "core/gsp_knob_table.h"

static struct attribute *gsp_attrs[] = {
#define GSP_KNOB(_name, ...)	(&dev_attr_##_name.attr),
#include "core/gsp_knob_table.h"
	NULL,
};

static const struct attribute_group gsp_attr_group = {
	.attrs = gsp_attrs,
};

const struct attribute_group *gsp_attr_groups[] = {
	&gsp_attr_group,
	NULL,
};
