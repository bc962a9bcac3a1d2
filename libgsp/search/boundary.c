// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The request boundary (boundary.h): the widest ratio between two
 * neighbouring gaps of the window, in sorted order, with enough gaps on
 * each side.
 */
#include <math.h>
#include <string.h>

#include "boundary.h"

void gsp_boundary_init(struct gsp_boundary *b, uint64_t floor_ns, int learn)
{
	memset(b, 0, sizeof(*b));
	b->floor_ns = floor_ns;
	b->hold_ns = floor_ns;
	b->learn = learn;
	b->done = !learn;
}

static void sort_u64(uint64_t *v, unsigned int n)
{
	unsigned int i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

struct split {
	uint64_t hold_ns, below_ns, above_ns;	/* below 0: none */
};

/* The split of @g's @n gaps, sorted in place: hold_ns the floor if none. */
static struct split split(const struct gsp_boundary *b, uint64_t *g,
			  unsigned int n)
{
	struct split s = { .hold_ns = b->floor_ns };
	double best = GSP_BOUNDARY_RATIO;
	unsigned int i, at = 0, high = (n + 3) / 4;

	sort_u64(g, n);
	/* g[i] the last below the split, g[i + 1] the first above it */
	for (i = GSP_BOUNDARY_LOW - 1; i + high < n; i++) {
		double r;

		if (!g[i])
			continue;	/* a floor of 0 */
		r = (double)g[i + 1] / (double)g[i];
		if (r >= best) {
			best = r;
			at = i + 1;
		}
	}
	if (!at)
		return s;
	s.below_ns = g[at - 1];
	s.above_ns = g[at];
	/* the geometric middle: as far, by ratio, from either kind */
	s.hold_ns = (uint64_t)sqrt((double)s.below_ns * (double)s.above_ns);
	return s;
}

int gsp_boundary_gap(struct gsp_boundary *b, uint64_t gap_ns)
{
	uint64_t g[GSP_BOUNDARY_WIN], lo, hi;
	unsigned int n, i, moved = 0;
	struct split s;

	if (!b->learn || gap_ns < b->floor_ns)
		return 0;
	b->ring[b->n++ % GSP_BOUNDARY_WIN] = gap_ns;
	if (b->n < GSP_BOUNDARY_FIRST ||
	    (b->n - GSP_BOUNDARY_FIRST) % GSP_BOUNDARY_EVERY)
		return 0;
	n = b->n < GSP_BOUNDARY_WIN ? b->n : GSP_BOUNDARY_WIN;
	memcpy(g, b->ring, n * sizeof(*g));
	s = split(b, g, n);
	if (b->done) {
		lo = s.hold_ns < b->hold_ns ? s.hold_ns : b->hold_ns;
		hi = s.hold_ns < b->hold_ns ? b->hold_ns : s.hold_ns;
		for (i = 0; i < n; i++)
			moved += g[i] >= lo && g[i] < hi;
		if (moved * GSP_BOUNDARY_MOVED < n)
			return 0;
		b->changes++;
	}
	b->hold_ns = s.hold_ns;
	b->below_ns = s.below_ns;
	b->above_ns = s.above_ns;
	if (b->done)
		return 2;
	b->done = 1;
	return 1;
}
