// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The request boundary (boundary.h): the widest ratio between two
 * neighbouring gaps, in sorted order, with enough gaps on each side.
 */
#include <math.h>
#include <string.h>

#include "boundary.h"

void gsp_boundary_init(struct gsp_boundary *b, uint64_t floor_ns, int learn)
{
	memset(b, 0, sizeof(*b));
	b->floor_ns = floor_ns;
	b->hold_ns = floor_ns;
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

/* The split of the gaps seen, if there is one: hold_ns between its sides. */
static void split(struct gsp_boundary *b)
{
	double best = GSP_BOUNDARY_RATIO;
	unsigned int i, at = 0;

	sort_u64(b->gap, b->n);
	/* gap[i] the last below the split, gap[i + 1] the first above it */
	for (i = GSP_BOUNDARY_MIN - 1; i + GSP_BOUNDARY_MIN < b->n; i++) {
		double r;

		if (!b->gap[i])
			continue;	/* a floor of 0 */
		r = (double)b->gap[i + 1] / (double)b->gap[i];
		if (r >= best) {
			best = r;
			at = i + 1;
		}
	}
	if (!at)
		return;
	b->below_ns = b->gap[at - 1];
	b->above_ns = b->gap[at];
	/* the geometric middle: as far, by ratio, from either kind */
	b->hold_ns = (uint64_t)sqrt((double)b->below_ns * (double)b->above_ns);
}

int gsp_boundary_gap(struct gsp_boundary *b, uint64_t gap_ns)
{
	if (b->done || gap_ns < b->floor_ns)
		return 0;
	b->gap[b->n++] = gap_ns;
	if (b->n < GSP_BOUNDARY_N)
		return 0;
	split(b);
	b->done = 1;
	return 1;
}
