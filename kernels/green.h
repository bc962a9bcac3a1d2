/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Green contexts for the benchmark programs (gsp-wl's --mech green and
 * scale, bench/gpu/stm.cu): a partition of the device's SMs and a stream
 * in it. The driver calls are taken through the runtime
 * (cudaGetDriverEntryPointByVersion), so a program that uses only these
 * needs no libcuda at link time and starts without a driver, which lets
 * its argument checks run on a machine with no GPU.
 *
 * On sm_90 a partition is at least 8 SMs and a multiple of 8 (cuda.h,
 * "Green contexts"; the device says its own in minSmPartitionSize and
 * smCoscheduledAlignment): green_split() cuts the device once into
 * groups of equal size, and green_make_groups() makes one context of
 * consecutive groups of that cut, so that contexts made from it are
 * disjoint.
 */
#ifndef GSP_GREEN_H
#define GSP_GREEN_H

#include <cuda.h>
#include <cuda_runtime.h>

#define GREEN_MAX_GROUPS	64

/* A green context and a stream in it. */
struct green {
	CUgreenCtx g;
	CUcontext ctx;
	cudaStream_t s;
	int sms;
};

/* The device's SMs cut into groups of one size, and what is left. */
struct green_groups {
	CUdevResource grp[GREEN_MAX_GROUPS];
	unsigned int n;		/* groups */
	int group_sms;		/* SMs in each */
	int rest_sms;		/* SMs in no group */
	int dev_sms;
	int min_sms;		/* the device's minSmPartitionSize */
	int align;		/* its smCoscheduledAlignment */
};

/* A context of (at least) @nsm SMs, stream priority @prio. 0 or -1. */
int green_make(struct green *gr, int nsm, int prio);

/* Cut device 0 into groups of @group_sms (0: the device's minimum). */
int green_split(struct green_groups *gg, int group_sms);

/* A context of the groups [@first, @first + @count) of @gg. */
int green_make_groups(struct green *gr, const struct green_groups *gg,
		      unsigned int first, unsigned int count, int prio);

void green_free(struct green *gr);

#endif /* GSP_GREEN_H */
