/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An LC tenant's kernels on a green context of the SMs the BE gives up
 * (lcgreen.c, Documentation/spatial.rst "Exact placement: the LC on a
 * green context"). lcprio.c moves the launches; this file makes the
 * green context, finds its SMs and publishes them on the board.
 */
#ifndef GSP_PRELOAD_LCGREEN_H
#define GSP_PRELOAD_LCGREEN_H

#include <gsp_board.h>

#include "preload.h"

struct lcg_ctx;

/* GSP_LC_GREEN from the environment (read_config); <0 if bad (said). */
GSP_HIDDEN int gsp_lcgreen_config(void);
/* The counters, into the stats file. */
GSP_HIDDEN void gsp_lcgreen_stats(FILE *f);

/*
 * Cheap, per launch: the knob is on, the driver has green contexts and
 * the board publishes a partition with n > 0 for this tenant's device.
 */
GSP_HIDDEN int gsp_lcgreen_on(void);

/*
 * The green context of @ctx (current), made, probed and published once;
 * NULL if it cannot be (said once): launches then run as without it.
 */
GSP_HIDDEN struct lcg_ctx *gsp_lcgreen_get(CUcontext ctx);
/* A non-blocking stream of priority @prio in @g's green context. */
GSP_HIDDEN CUresult gsp_lcgreen_stream(struct lcg_ctx *g, CUstream *s,
				       int prio);
/* A launch ran on a green stream. */
GSP_HIDDEN void gsp_lcgreen_count(void);
/* @ctx (or, @ctx NULL, the primary context of @dev) goes: so does its. */
GSP_HIDDEN void gsp_lcgreen_ctx_gone(CUcontext ctx, CUdevice dev);

/* A launch that a green context can take: not cooperative, no clusters. */
static inline int gsp_lcgreen_ex_ok(const CUlaunchConfig *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->numAttrs; i++) {
		const CUlaunchAttribute *a = &cfg->attrs[i];

		if ((a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE &&
		     a->value.cooperative) ||
		    a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION ||
		    a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE)
			return 0;
	}
	return 1;
}

/* dispatch.c: the board, this tenant's device and its LC slot. */
GSP_HIDDEN const struct gsp_board *gsp_board_ro(uint32_t *device);
GSP_HIDDEN struct gsp_board_lc *gsp_lc_slot(struct gsp_board **rw);

#endif /* GSP_PRELOAD_LCGREEN_H */
