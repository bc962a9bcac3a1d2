/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where an LC request ends (partition-auto.rst, "Invocations"): a
 * launch-bound LC, such as eager PyTorch, leaves the GPU idle inside a
 * request too, whenever its host falls behind, and a fixed hold of
 * lc_hold_us splits such a request into pieces. The gaps of at least the
 * hold between its episodes then come in two kinds, short ones inside
 * requests and long ones between them. The last GSP_BOUNDARY_WIN of them
 * decide whether they do, and where the split is: first at
 * GSP_BOUNDARY_FIRST gaps, then every GSP_BOUNDARY_EVERY. Pure C, no
 * clock: the agent (agent.h) feeds it the gaps.
 */
#ifndef GSP_BOUNDARY_H
#define GSP_BOUNDARY_H

#include <stdint.h>

#define GSP_BOUNDARY_FIRST	24	/* gaps before the first hold */
#define GSP_BOUNDARY_EVERY	16	/* then looked at again after these */
#define GSP_BOUNDARY_WIN	48	/* the gaps looked at: the last ones */
/*
 * A split needs GSP_BOUNDARY_LOW gaps below it and a quarter of the
 * window above it (the gaps between requests: one a request), and those
 * above at least GSP_BOUNDARY_RATIO times those below: a clear gap in
 * the gaps, not the spread of one kind, nor a few host pauses.
 */
#define GSP_BOUNDARY_LOW	3
#define GSP_BOUNDARY_RATIO	2.0
/*
 * A later look replaces the hold in use only where the two put an
 * eighth of the window on different sides: noise in a rare kind does
 * not restart the search.
 */
#define GSP_BOUNDARY_MOVED	8

struct gsp_boundary {
	uint64_t floor_ns;	/* the fixed hold: shorter gaps never count */
	uint64_t hold_ns;	/* gaps under this join episodes: the result */
	uint64_t ring[GSP_BOUNDARY_WIN];
	unsigned int n;		/* gaps seen so far (wraps: harmless) */
	int learn;		/* 0: hold_ns is the floor for good */
	int done;		/* hold_ns decided (it may change later) */
	unsigned int changes;	/* later looks that replaced it */
	/* the split in use: the longest gap below it, the shortest above */
	uint64_t below_ns, above_ns;
};

/*
 * Start at the fixed hold @floor_ns; with @learn 0 that is final at once,
 * else decided at GSP_BOUNDARY_FIRST gaps.
 */
void gsp_boundary_init(struct gsp_boundary *b, uint64_t floor_ns, int learn);
/*
 * A gap of @gap_ns between two episodes; those under the floor are not
 * looked at. Returns 1 when this gap decided hold_ns first, 2 when it
 * changed it later, else 0.
 */
int gsp_boundary_gap(struct gsp_boundary *b, uint64_t gap_ns);

#endif /* GSP_BOUNDARY_H */
