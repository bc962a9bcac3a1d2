/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The online partition search of G-Space (seed 000): NS, GNS and SRS, and
 * the hybrids NN_NS, NN_GNS and NN_SRS that start from a model's pick
 * (Documentation/search.rst says what each does and every decision the
 * seed left open). Pure C: no CUDA, no I/O, no clock, no allocation, no
 * global state; tests/search/test_search.c drives it with simulated
 * response surfaces.
 *
 * A cell is a partition (n, k): the BE gives up k block slots on each of
 * n SMs while LC work runs, so (N, K) gives the LC the whole GPU and
 * smaller n or k give the BE more. The search is a state machine fed by
 * measurements: gsp_search_next() names the cell to run the next LC
 * invocation under, gsp_search_report() hands back what that invocation
 * measured (the LC's time over its solo time, and the BE's throughput),
 * until gsp_search_next() says the search is done and names the chosen
 * cell: the greatest measured BE throughput among the cells whose
 * measured LC ratio is at most q, or, if none is, the least LC ratio.
 *
 * Every function returns 0 (gsp_search_next(): GSP_SEARCH_RUN or
 * GSP_SEARCH_DONE) or a negative errno. A call that fails changes nothing.
 */
#ifndef GSP_SEARCH_H
#define GSP_SEARCH_H

#include <stdint.h>

#define GSP_SEARCH_MAX_N	256	/* SMs */
#define GSP_SEARCH_MAX_K	32	/* block slots per SM */
#define GSP_SEARCH_MAX_CELLS	(GSP_SEARCH_MAX_N * GSP_SEARCH_MAX_K)
#define GSP_SEARCH_MAX_SAMPLES	9	/* invocations per cell */

/* Defaults of the cfg fields left 0 (search.rst, "Decisions"). */
#define GSP_SEARCH_N_STEP_MAX	4	/* n_step: min(4, max(1, N / 16)) */
#define GSP_SEARCH_K_ROWS	8	/* k_step: max(1, K / 8) */
#define GSP_SEARCH_SAMPLES	3	/* the median of 3, at most */
#define GSP_SEARCH_BAND		0.02	/* one sample if below q * (1 - band) */
#define GSP_SEARCH_MAX_INVOC	512
#define GSP_SEARCH_GNS_TRIES	2	/* ranked neighbours per GNS round */
#define GSP_SEARCH_GNS_TRIES_MAX	8
#define GSP_SEARCH_SRS_ITER	8	/* cells SRS measures at most */
#define GSP_SEARCH_SRS_ITER_MAX	64
#define GSP_SEARCH_ETA_DOWN	1.0	/* gamma *= (q / r)^eta, r > q */
#define GSP_SEARCH_ETA_UP	0.5	/* and r <= q */
#define GSP_SEARCH_GAMMA_MIN	0.125
#define GSP_SEARCH_GAMMA_MAX	8.0

struct gsp_cell {
	uint16_t n;	/* SMs the BE gives up, 1..N */
	uint16_t k;	/* block slots on each of them, 1..K */
};

/*
 * The grid's numbering, the one rule the search and the initial
 * selection share: cell i * rows + j is (n_max - i * n_step,
 * k_max - j * k_step), rows = (k_max - 1) / k_step + 1. The grid is
 * taken as valid (nonzero steps, at most the maxima).
 */
static inline int32_t gsp_grid_index(unsigned int n_max, unsigned int k_max,
				     unsigned int n_step, unsigned int k_step,
				     struct gsp_cell c)
{
	unsigned int dn, dk;

	if (c.n < 1 || c.n > n_max || c.k < 1 || c.k > k_max)
		return -1;
	dn = n_max - c.n;
	dk = k_max - c.k;
	if (dn % n_step || dk % k_step)
		return -1;
	return (int32_t)(dn / n_step * ((k_max - 1) / k_step + 1) +
			 dk / k_step);
}

static inline struct gsp_cell gsp_grid_cell(unsigned int n_max,
					    unsigned int k_max,
					    unsigned int n_step,
					    unsigned int k_step, uint32_t idx)
{
	unsigned int rows = (k_max - 1) / k_step + 1;
	struct gsp_cell c = {
		.n = (uint16_t)(n_max - idx / rows * n_step),
		.k = (uint16_t)(k_max - idx % rows * k_step),
	};

	return c;
}

enum gsp_search_method {
	GSP_SEARCH_NS,		/* neighbour search from (N, K) */
	GSP_SEARCH_GNS,		/* guided by the model, from (N, K), then NS */
	GSP_SEARCH_SRS,		/* scalar refinement from the model's optimum, then NS */
	GSP_SEARCH_NN_NS,	/* NS from cfg.initial */
	GSP_SEARCH_NN_GNS,	/* GNS from cfg.initial */
	GSP_SEARCH_NN_SRS,	/* SRS from cfg.initial */
	GSP_SEARCH_NR_METHODS
};

/* What the model predicts for one cell: the micro-benchmark table. */
struct gsp_search_pred {
	double lc_ratio;	/* LC time over solo */
	double be_rate;		/* BE throughput, in the unit of the reports */
};

/*
 * The model, read at each use (never copied): fills @out for cell @c of
 * the grid. It must not call back into the search.
 */
typedef void (*gsp_search_model_fn)(const void *ctx, struct gsp_cell c,
				    struct gsp_search_pred *out);

/* Every field left 0 takes its default (above). */
struct gsp_search_cfg {
	unsigned int n_max;		/* N, 1..GSP_SEARCH_MAX_N */
	unsigned int k_max;		/* K, 1..GSP_SEARCH_MAX_K */
	unsigned int n_step;		/* cells are n = N - i * n_step >= 1 */
	unsigned int k_step;		/* and k = K - j * k_step >= 1 */
	double q;			/* the QoS target: LC ratio <= q, > 0 */
	enum gsp_search_method method;
	/*
	 * nn_*: the model's pick, a cell of the grid. ns, gns and srs
	 * define their own start and take {0, 0} here.
	 */
	struct gsp_cell initial;
	/* Required by gns, srs and their nn_ forms; ns ignores it. */
	gsp_search_model_fn model;
	const void *model_ctx;
	unsigned int samples;		/* 1..GSP_SEARCH_MAX_SAMPLES, at most */
	unsigned int max_invocations;	/* >= samples */
	unsigned int gns_tries;		/* 1..GSP_SEARCH_GNS_TRIES_MAX */
	unsigned int srs_max_iter;	/* 1..GSP_SEARCH_SRS_ITER_MAX */
	double srs_eta_down;		/* [0.001, 1] */
	double srs_eta_up;		/* [0.001, 1] */
	double srs_gamma_min;		/* [0.001, 1] */
	double srs_gamma_max;		/* [1, 1000] */
	/*
	 * [0.001, inf]: how near q, relative to q, a measured LC ratio is
	 * not trusted to be on its side of q. A cell's first sample below
	 * q * (1 - band) ends it; one above takes more, up to samples,
	 * until they agree (one side of q, within band * q of each
	 * other). After GNS or SRS, NS measures only the neighbours the
	 * model, calibrated at the anchor and given this slack on the LC
	 * ratio, ranks above the best cell measured. HUGE_VAL turns both
	 * off: every cell takes samples, NS measures every neighbour.
	 */
	double band;
	/*
	 * 0: a cell's LC ratio is the median of its samples; 1: the
	 * greatest of all samples (every cell takes them all), so that a
	 * cell near q whose requests are noisy counts as over it
	 * (Documentation/partition-auto.rst).
	 */
	unsigned int tail;
	/*
	 * 1: bound what the search costs the LC. A sample over
	 * GSP_SEARCH_BOUND_FAR x q ends its cell at once (noise within the
	 * band's assumption puts no cell that meets q there), and a cell
	 * with no more SMs and no more slots than one judged that far over
	 * q is not measured: it is judged over q, its LC ratio that cell's,
	 * and is never an anchor or the answer (partition-auto.rst).
	 */
	unsigned int bound;
};

#define GSP_SEARCH_BOUND_FAR	3.0

/* Why the search ended. */
enum gsp_search_end {
	GSP_SEARCH_RUNNING,
	GSP_SEARCH_CONVERGED,	/* no neighbour of the last anchor is better */
	GSP_SEARCH_CAPPED,	/* max_invocations would be passed */
};

/* One measured cell: the medians of its samples. */
struct gsp_search_sample {
	struct gsp_cell cell;
	double lc_ratio;
	double be_rate;
	unsigned int samples;		/* invocations it took */
};

struct gsp_search_result {
	struct gsp_search_sample chosen;	/* or the best so far */
	enum gsp_search_method method;
	enum gsp_search_end end;
	int qos_met;			/* chosen.lc_ratio <= q */
	unsigned int cells_tried;	/* measured, since the last restart */
	unsigned int invocations;	/* reports taken, since then */
	unsigned int violations;	/* of them, LC ratio > q */
	unsigned int srs_iter;		/* cells SRS chose */
	double gamma;			/* SRS's scalar on q, 1 otherwise */
};

/*
 * The search's whole state, read-only to its user. It is large (about
 * 210 KB, the cache of every cell): allocate it statically or on the heap.
 */
struct gsp_search {
	struct gsp_search_cfg cfg;	/* with the defaults filled in */
	unsigned int cols, rows;	/* cells along n and along k */
	int phase;
	enum gsp_search_end end;
	int32_t start;			/* the initial cell's index */
	int32_t anchor;
	int32_t pending;		/* the cell being measured, or -1 */
	unsigned int nsamp;
	double lc_s[GSP_SEARCH_MAX_SAMPLES];
	double be_s[GSP_SEARCH_MAX_SAMPLES];
	int32_t cand;			/* GNS: the ranked neighbour on trial */
	unsigned int tries;		/* GNS: failed trials around the anchor */
	double gamma;
	int32_t srs_last;		/* SRS: the cell it chose last */
	int prune;			/* NS after GNS or SRS: ns_worth() */
	unsigned int srs_iter;
	unsigned int invocations, violations, ntried;
	unsigned int npruned;		/* cells judged without a sample */
	uint16_t tried[GSP_SEARCH_MAX_CELLS];	/* cell indices, as measured */
	struct {
		double lc, be;		/* medians, once measured */
		uint8_t flags;
		uint8_t nsamp;		/* samples taken */
	} cells[GSP_SEARCH_MAX_CELLS];
};

/* What gsp_search_next() says. */
#define GSP_SEARCH_RUN	0	/* run the next LC invocation under *cell */
#define GSP_SEARCH_DONE	1	/* done: *cell is the chosen one */

/*
 * The one order in which every choice ranks two (LC ratio, BE rate)
 * pairs against the target @q, measured or predicted: a pair with
 * lc <= q comes first, the greatest be among them (then the least lc);
 * after them the least lc (then the greatest be). With @infeasible set
 * (NS's rule while its anchor breaks q), the least lc first, then the
 * greatest be, whether they meet q or not. > 0 if the first pair comes
 * before the second, < 0 if after, 0 if they tie. The search and the
 * initial selection (select.h) both rank by it.
 */
int gsp_search_prefer(double q, int infeasible, double lc1, double be1,
		      double lc2, double be2);

/* -EINVAL if any field of @cfg is out of range (search.h, search.rst). */
int gsp_search_init(struct gsp_search *s, const struct gsp_search_cfg *cfg);
/*
 * GSP_SEARCH_RUN or GSP_SEARCH_DONE, with the cell in @cell. It names
 * the same cell until that cell's samples are all reported.
 */
int gsp_search_next(struct gsp_search *s, struct gsp_cell *cell);
/*
 * One LC invocation under @cell, which must be the cell gsp_search_next()
 * named: the LC's time over solo (finite, > 0) and the BE's throughput
 * (finite, >= 0). -EINVAL otherwise, or when the search is done.
 */
int gsp_search_report(struct gsp_search *s, struct gsp_cell cell,
		      double lc_ratio, double be_rate);
/*
 * A phase change (the LC's or the BE's kernels changed): forgets every
 * measurement and starts again from @initial, which follows the rule of
 * cfg.initial. The model is read again: change what model_ctx points
 * to before this call, never during a search.
 */
int gsp_search_restart(struct gsp_search *s, struct gsp_cell initial);
/* -ENODATA until one cell is measured. */
int gsp_search_result(const struct gsp_search *s, struct gsp_search_result *r);
/* The @i-th cell measured since the last restart; -ENOENT past the end. */
int gsp_search_tried(const struct gsp_search *s, unsigned int i,
		     struct gsp_search_sample *out);

#endif /* GSP_SEARCH_H */
