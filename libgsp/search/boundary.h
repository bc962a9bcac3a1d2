/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where an LC request ends (partition-auto.rst, "Invocations"): a
 * launch-bound LC, such as eager PyTorch, leaves the GPU idle inside a
 * request too, whenever the host falls behind, and a fixed hold of
 * lc_hold_us splits such a request into pieces. The gaps of at least the
 * hold between its episodes then come in two kinds, short ones inside
 * requests and long ones between them; the first GSP_BOUNDARY_N of them
 * decide whether they do, and where the split is. Pure C, no clock: the
 * agent (agent.h) feeds it the gaps.
 */
#ifndef GSP_BOUNDARY_H
#define GSP_BOUNDARY_H

#include <stdint.h>

#define GSP_BOUNDARY_N		24	/* gaps looked at, once */
/*
 * A split needs at least GSP_BOUNDARY_MIN gaps on each side, so that two
 * host pauses in 24 gaps make no requests of ten, and the gaps above it
 * at least GSP_BOUNDARY_RATIO times those below it: a clear gap in the
 * gaps, not the spread of one kind.
 */
#define GSP_BOUNDARY_MIN	3
#define GSP_BOUNDARY_RATIO	2.0

struct gsp_boundary {
	uint64_t floor_ns;	/* the fixed hold: shorter gaps never count */
	uint64_t hold_ns;	/* gaps under this join episodes: the result */
	uint64_t gap[GSP_BOUNDARY_N];
	unsigned int n;		/* gaps seen so far */
	int done;		/* hold_ns is final */
	/* the split found: the longest gap below it, the shortest above */
	uint64_t below_ns, above_ns;
};

/*
 * Start at the fixed hold @floor_ns; with @learn 0 that is final at once,
 * else until GSP_BOUNDARY_N gaps have been seen.
 */
void gsp_boundary_init(struct gsp_boundary *b, uint64_t floor_ns, int learn);
/*
 * A gap of @gap_ns between two episodes; those under the floor are not
 * looked at. Returns 1 when this gap made hold_ns final.
 */
int gsp_boundary_gap(struct gsp_boundary *b, uint64_t gap_ns);

#endif /* GSP_BOUNDARY_H */
