/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gsp-testdrm: the uapi of a TEST DEVICE. gsp_testdrm.ko
 * (kmod/testdrm/) is a DRM driver with no hardware behind it, for
 * gspace's selftests only: its "engine" is an hrtimer that signals each
 * submission's fence after the duration the submission asks for, one
 * submission after the other in the order they arrive. Shared by the
 * driver, gspace_drm.ko's testdrm adapter and selftests/gspace_drm_test.c.
 */
#ifndef _GSP_TESTDRM_H
#define _GSP_TESTDRM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define GSP_TESTDRM_NAME	"gsp-testdrm"
/* Contexts (gspace's channels) 0..GSP_TESTDRM_CONTEXTS-1 exist. */
#define GSP_TESTDRM_CONTEXTS	16
#define GSP_TESTDRM_MAX_US	10000000ULL	/* 10 s */
#define GSP_TESTDRM_LOG		64

#define DRM_GSP_TESTDRM_SUBMIT	0x00
#define DRM_GSP_TESTDRM_INFO	0x01

/* struct drm_gsp_testdrm_submit.flags */
#define GSP_TESTDRM_SUBMIT_FAIL	(1U << 0) /* the fence signals -EIO */
#define GSP_TESTDRM_SUBMIT_FLAGS	(GSP_TESTDRM_SUBMIT_FAIL)

/**
 * struct drm_gsp_testdrm_submit - queue a simulated job
 * @size: sizeof(struct drm_gsp_testdrm_submit), else EINVAL
 * @flags: GSP_TESTDRM_SUBMIT_*
 * @context: 0..GSP_TESTDRM_CONTEXTS-1
 * @out_syncobj: a syncobj of this file; its fence is replaced by the
 *	job's, which signals when the job ends (ENOENT if it does not exist)
 * @duration_us: how long the simulated engine runs the job, at most
 *	GSP_TESTDRM_MAX_US
 * @tag: opaque, recorded in the device's log in arrival order
 * @seqno: out: the job's number on the device's one timeline; MBZ in
 */
struct drm_gsp_testdrm_submit {
	__u32 size;
	__u32 flags;
	__u32 context;
	__u32 out_syncobj;
	__u64 duration_us;
	__u64 tag;
	__u64 seqno;
};

/* struct drm_gsp_testdrm_info.flags */
#define GSP_TESTDRM_INFO_RESET	(1U << 0) /* then zero max_inflight */

/**
 * struct drm_gsp_testdrm_info - what the simulated engine saw
 * @size: sizeof(struct drm_gsp_testdrm_info)
 * @flags: GSP_TESTDRM_INFO_*
 * @submitted: out: jobs accepted since load
 * @completed: out: jobs ended since load
 * @inflight: out: jobs accepted and not ended
 * @max_inflight: out: the most jobs in flight at once since load or the
 *	last GSP_TESTDRM_INFO_RESET
 * @log: out: the tags of the last GSP_TESTDRM_LOG jobs accepted, the
 *	newest at log[(submitted - 1) % GSP_TESTDRM_LOG]
 */
struct drm_gsp_testdrm_info {
	__u32 size;
	__u32 flags;
	__u64 submitted;
	__u64 completed;
	__u32 inflight;
	__u32 max_inflight;
	__u64 log[GSP_TESTDRM_LOG];
};

/* As <drm/drm.h> builds them. */
#define GSP_TESTDRM_IOCTL_BASE		'd'
#define GSP_TESTDRM_COMMAND_BASE	0x40
#define DRM_IOCTL_GSP_TESTDRM_SUBMIT					\
	_IOWR(GSP_TESTDRM_IOCTL_BASE,					\
	      GSP_TESTDRM_COMMAND_BASE + DRM_GSP_TESTDRM_SUBMIT,	\
	      struct drm_gsp_testdrm_submit)
#define DRM_IOCTL_GSP_TESTDRM_INFO					\
	_IOWR(GSP_TESTDRM_IOCTL_BASE,					\
	      GSP_TESTDRM_COMMAND_BASE + DRM_GSP_TESTDRM_INFO,		\
	      struct drm_gsp_testdrm_info)

#endif /* _GSP_TESTDRM_H */
