/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the search's test programs share: driving a gsp_search to the end
 * against a simulated GPU, the exhaustive oracle over a grid, and two
 * checks on a search's result. The
 * response surfaces stay with each program; both pieces take one as a
 * callback.
 */
#ifndef GSP_TESTS_SEARCH_SIM_H
#define GSP_TESTS_SEARCH_SIM_H

#include <errno.h>
#include <string.h>

#include "search.h"

/* The methods' names, by enum gsp_search_method, for the tests' lines. */
static const char *const sim_names[] = {
	"ns", "gns", "srs", "nn_ns", "nn_gns", "nn_srs",
};

/* One LC invocation under @c: its LC ratio and BE rate. */
typedef void (*sim_measure_fn)(const void *ctx, struct gsp_cell c,
			       double *lc, double *be);

/*
 * Drives @s to the end, each invocation measured by @measure; 0, or -1
 * if a call failed or the search ran past its cap.
 */
static inline int sim_drive(struct gsp_search *s, sim_measure_fn measure,
			    const void *ctx)
{
	struct gsp_cell c;
	double lc, be;
	unsigned int guard = 0;

	while (gsp_search_next(s, &c) == GSP_SEARCH_RUN) {
		measure(ctx, c, &lc, &be);
		if (gsp_search_report(s, c, lc, be) ||
		    ++guard > s->cfg.max_invocations)
			return -1;
	}
	return 0;
}

/*
 * The oracle: the greatest BE rate by @truth among the cells of LC ratio
 * at most @q of the grid (n_max, k_max, n_step, k_step), and in *@at its
 * cell; -1, and *@at untouched, if no cell meets q.
 */
static inline double sim_oracle(unsigned int n_max, unsigned int k_max,
				unsigned int n_step, unsigned int k_step,
				sim_measure_fn truth, const void *ctx,
				double q, struct gsp_cell *at)
{
	struct gsp_cell c;
	double lc, be, best = -1;
	int n, k;

	for (n = n_max; n >= 1; n -= n_step)
		for (k = k_max; k >= 1; k -= k_step) {
			c.n = n;
			c.k = k;
			truth(ctx, c, &lc, &be);
			if (lc <= q && be > best) {
				best = be;
				*at = c;
			}
		}
	return best;
}

/* gsp_search_next() once done names the cell the result chose. */
static inline int sim_same_answer(struct gsp_search *s,
				  const struct gsp_search_result *r)
{
	struct gsp_cell c;

	return gsp_search_next(s, &c) == GSP_SEARCH_DONE &&
	       c.n == r->chosen.cell.n && c.k == r->chosen.cell.k;
}

/*
 * The tried list: no cell twice, 1..samples samples a cell, and the
 * cells' samples add up to the invocations.
 */
static inline int sim_tried_consistent(const struct gsp_search *s,
				       const struct gsp_search_result *r)
{
	static unsigned char seen[GSP_SEARCH_MAX_N + 1][GSP_SEARCH_MAX_K + 1];
	struct gsp_search_sample t;
	unsigned int i, sum = 0;

	memset(seen, 0, sizeof(seen));
	for (i = 0; !gsp_search_tried(s, i, &t); i++) {
		if (seen[t.cell.n][t.cell.k]++ || t.samples < 1 ||
		    t.samples > s->cfg.samples)
			return 0;
		sum += t.samples;
	}
	return i == r->cells_tried && r->invocations == sum &&
	       gsp_search_tried(s, i, &t) == -ENOENT;
}

#endif
