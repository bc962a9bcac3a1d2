// SPDX-License-Identifier: GPL-2.0
/*
 * gspace sysfs knobs, in /sys/class/misc/gspace/: one value per file.
 * An invalid write gives -EINVAL and changes nothing.
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

#define GSP_WATCHDOG_MAX_MS	(3600U * MSEC_PER_SEC)

enum gsp_knob {
	GSP_KNOB_PERIOD_US,
	GSP_KNOB_BAND_WAIT_US,
	GSP_KNOB_MIN_BE_PERMILLE,
	GSP_KNOB_REORDER,
	GSP_KNOB_WINDOW,
};

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

static int gsp_knob_store(struct gspace *gsp, enum gsp_knob knob, u64 val)
{
	struct gsp_params p;
	int ret;

	down_write(&gsp->cfg_rwsem);
	p = gsp->params;
	switch (knob) {
	case GSP_KNOB_PERIOD_US:
		p.period_ns = val * NSEC_PER_USEC;
		break;
	case GSP_KNOB_BAND_WAIT_US:
		p.band_wait_ns = val * NSEC_PER_USEC;
		break;
	case GSP_KNOB_MIN_BE_PERMILLE:
		p.min_be_permille = val;
		break;
	case GSP_KNOB_REORDER:
		p.reorder = val;
		break;
	case GSP_KNOB_WINDOW:
		p.window = val;
		break;
	}
	ret = gsp_params_validate(&p);
	if (!ret)
		gsp_params_apply(gsp, &p);
	up_write(&gsp->cfg_rwsem);
	return ret;
}

/* Parses a u64 of at most @max: no bigger value survives a later multiply. */
static int gsp_parse(const char *buf, u64 max, u64 *val)
{
	if (kstrtou64(buf, 0, val) || *val > max)
		return -EINVAL;
	return 0;
}

static ssize_t policy_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	u32 policy;

	down_read(&gsp_drv->cfg_rwsem);
	policy = gsp_drv->params.policy;
	up_read(&gsp_drv->cfg_rwsem);
	return sysfs_emit(buf, "%s\n", gsp_policy_names[policy]);
}

static ssize_t policy_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct gspace *gsp = gsp_drv;
	struct gsp_params p;
	int i;

	i = __sysfs_match_string(gsp_policy_names, GSP_POLICY_COUNT, buf);
	if (i < 0)
		return -EINVAL;
	down_write(&gsp->cfg_rwsem);
	p = gsp->params;
	p.policy = i;
	gsp_params_apply(gsp, &p);
	up_write(&gsp->cfg_rwsem);
	return count;
}
static DEVICE_ATTR_RW(policy);

#define GSP_PARAM_ATTR(_name, _knob, _expr, _max)			\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct gsp_params p;						\
									\
	down_read(&gsp_drv->cfg_rwsem);					\
	p = gsp_drv->params;						\
	up_read(&gsp_drv->cfg_rwsem);					\
	return sysfs_emit(buf, "%llu\n", (unsigned long long)(_expr));	\
}									\
static ssize_t _name##_store(struct device *dev,			\
			     struct device_attribute *attr,		\
			     const char *buf, size_t count)		\
{									\
	u64 val;							\
	int ret;							\
									\
	ret = gsp_parse(buf, _max, &val);				\
	if (!ret)							\
		ret = gsp_knob_store(gsp_drv, _knob, val);		\
	return ret ? ret : count;					\
}									\
static DEVICE_ATTR_RW(_name)

GSP_PARAM_ATTR(period_us, GSP_KNOB_PERIOD_US, p.period_ns / NSEC_PER_USEC,
	       U32_MAX);
GSP_PARAM_ATTR(band_wait_us, GSP_KNOB_BAND_WAIT_US,
	       p.band_wait_ns / NSEC_PER_USEC, U32_MAX);
GSP_PARAM_ATTR(min_be_permille, GSP_KNOB_MIN_BE_PERMILLE, p.min_be_permille,
	       1000);
GSP_PARAM_ATTR(reorder, GSP_KNOB_REORDER, p.reorder, 1);
GSP_PARAM_ATTR(window, GSP_KNOB_WINDOW, p.window, U32_MAX);

static ssize_t watchdog_ms_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  READ_ONCE(gsp_drv->watchdog_ns) / NSEC_PER_MSEC);
}

static ssize_t watchdog_ms_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	struct gspace *gsp = gsp_drv;
	u64 val;

	if (gsp_parse(buf, GSP_WATCHDOG_MAX_MS, &val) || !val)
		return -EINVAL;
	down_write(&gsp->cfg_rwsem);
	WRITE_ONCE(gsp->watchdog_ns, val * NSEC_PER_MSEC);
	/* Lease holders renew by it. */
	WRITE_ONCE(gsp->board->watchdog_ns, val * NSEC_PER_MSEC);
	up_write(&gsp->cfg_rwsem);
	return count;
}
static DEVICE_ATTR_RW(watchdog_ms);

/*
 * The board's LC knobs live in the board itself, where BE tenants read
 * them: lc_hold_us up to 100 ms, lc_max_ms from 1 ms to 1 min.
 */
#define GSP_BOARD_ATTR(_name, _field, _unit, _min, _max)			\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%llu\n",				\
			  READ_ONCE(gsp_drv->board->_field) / (_unit));	\
}									\
static ssize_t _name##_store(struct device *dev,			\
			     struct device_attribute *attr,		\
			     const char *buf, size_t count)		\
{									\
	u64 val;							\
									\
	if (gsp_parse(buf, _max, &val) || val < (_min))			\
		return -EINVAL;						\
	down_write(&gsp_drv->cfg_rwsem);				\
	WRITE_ONCE(gsp_drv->board->_field, val * (_unit));		\
	up_write(&gsp_drv->cfg_rwsem);					\
	return count;							\
}									\
static DEVICE_ATTR_RW(_name)

GSP_BOARD_ATTR(lc_hold_us, lc_hold_ns, NSEC_PER_USEC, 0, 100000);
GSP_BOARD_ATTR(lc_max_ms, lc_max_ns, NSEC_PER_MSEC, 1, 60000);
/* How long before its expected work a predictive LC tenant reserves. */
GSP_BOARD_ATTR(predict_lead_us, predict_lead_ns, NSEC_PER_USEC, 1, 100000);

/* The partition plane's limits: kernels/gsp_persist.h. */
#define GSP_PART_MAX_N	256	/* GSP_PERSIST_MAX_SM */
#define GSP_PART_MAX_K	32	/* GSP_PERSIST_MAX_K */

/* "n k", one space between, one trailing newline allowed. */
static int gsp_parse_partition(const char *buf, u32 *n, u32 *k)
{
	char tmp[24], *rest = tmp, *first;

	if (strscpy(tmp, buf, sizeof(tmp)) < 0)
		return -EINVAL;
	first = strsep(&rest, " ");
	if (!rest || kstrtou32(first, 0, n) || kstrtou32(rest, 0, k))
		return -EINVAL;
	if (!*n && !*k)
		return 0;
	if (*n < 1 || *n > GSP_PART_MAX_N || *k < 1 || *k > GSP_PART_MAX_K)
		return -EINVAL;
	return 0;
}

static ssize_t partition_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	u32 n, k;

	down_read(&gsp_drv->cfg_rwsem);
	n = gsp_drv->part_n;
	k = gsp_drv->part_k;
	up_read(&gsp_drv->cfg_rwsem);
	return sysfs_emit(buf, "%u %u\n", n, k);
}

/* One partition for every device of the board. */
static ssize_t partition_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t count)
{
	u32 n, k;

	if (gsp_parse_partition(buf, &n, &k))
		return -EINVAL;
	down_write(&gsp_drv->cfg_rwsem);
	gsp_board_set_partition(gsp_drv, n, k);
	up_write(&gsp_drv->cfg_rwsem);
	return count;
}
static DEVICE_ATTR_RW(partition);

/* Indexed by GSPACE_PROTECT_*. */
static const char * const gsp_protect_names[] = {
	[GSPACE_PROTECT_REACTIVE] = "reactive",
	[GSPACE_PROTECT_RESERVED] = "reserved",
	[GSPACE_PROTECT_PREDICTIVE] = "predictive",
};
static_assert(ARRAY_SIZE(gsp_protect_names) == GSPACE_PROTECT_COUNT);

static ssize_t protect_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	u32 mode;

	down_read(&gsp_drv->cfg_rwsem);
	mode = gsp_drv->protect;
	up_read(&gsp_drv->cfg_rwsem);
	return sysfs_emit(buf, "%s\n", gsp_protect_names[mode]);
}

/* One mode for every device of the board. */
static ssize_t protect_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	int i;

	i = __sysfs_match_string(gsp_protect_names,
				 ARRAY_SIZE(gsp_protect_names), buf);
	if (i < 0)
		return -EINVAL;
	down_write(&gsp_drv->cfg_rwsem);
	gsp_board_set_protect(gsp_drv, i);
	up_write(&gsp_drv->cfg_rwsem);
	return count;
}
static DEVICE_ATTR_RW(protect);

/*
 * Device counts renumber the lease devices, so they only change while no
 * job exists at all (EBUSY otherwise).
 */
static ssize_t gsp_devices_store(const char *buf, size_t count, bool lease)
{
	struct gspace *gsp = gsp_drv;
	u32 sim, nlease;
	int ret = 0;
	u64 val;
	int i;

	if (gsp_parse(buf, GSP_MAX_DEVICES, &val))
		return -EINVAL;
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
	return ret ? ret : count;
}

static ssize_t sim_devices_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(gsp_drv->nr_sim));
}

static ssize_t sim_devices_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	return gsp_devices_store(buf, count, false);
}
static DEVICE_ATTR_RW(sim_devices);

static ssize_t lease_devices_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(gsp_drv->nr_lease));
}

static ssize_t lease_devices_store(struct device *dev,
				   struct device_attribute *attr,
				   const char *buf, size_t count)
{
	return gsp_devices_store(buf, count, true);
}
static DEVICE_ATTR_RW(lease_devices);

/* A gid in the writer's user namespace, or -1 for none. */
static ssize_t lc_group_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	kgid_t gid;

	down_read(&gsp_drv->cfg_rwsem);
	gid = gsp_drv->lc_gid;
	up_read(&gsp_drv->cfg_rwsem);
	if (!gid_valid(gid))
		return sysfs_emit(buf, "-1\n");
	return sysfs_emit(buf, "%u\n", from_kgid_munged(current_user_ns(), gid));
}

static ssize_t lc_group_store(struct device *dev,
			      struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct gspace *gsp = gsp_drv;
	kgid_t gid = INVALID_GID;
	s64 val;

	if (kstrtos64(buf, 0, &val))
		return -EINVAL;
	if (val != -1) {
		if (val < 0 || val > U32_MAX)
			return -EINVAL;
		gid = make_kgid(current_user_ns(), val);
		if (!gid_valid(gid))
			return -EINVAL;
	}
	down_write(&gsp->cfg_rwsem);
	gsp->lc_gid = gid;
	up_write(&gsp->cfg_rwsem);
	return count;
}
static DEVICE_ATTR_RW(lc_group);

static struct attribute *gsp_attrs[] = {
	&dev_attr_policy.attr,
	&dev_attr_period_us.attr,
	&dev_attr_band_wait_us.attr,
	&dev_attr_min_be_permille.attr,
	&dev_attr_reorder.attr,
	&dev_attr_window.attr,
	&dev_attr_watchdog_ms.attr,
	&dev_attr_sim_devices.attr,
	&dev_attr_lease_devices.attr,
	&dev_attr_lc_group.attr,
	&dev_attr_lc_hold_us.attr,
	&dev_attr_lc_max_ms.attr,
	&dev_attr_partition.attr,
	&dev_attr_protect.attr,
	&dev_attr_predict_lead_us.attr,
	NULL,
};

static const struct attribute_group gsp_attr_group = {
	.attrs = gsp_attrs,
};

const struct attribute_group *gsp_attr_groups[] = {
	&gsp_attr_group,
	NULL,
};
