/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * G-Space's initial selection (seed 000): the model that the online
 * search (search.h) reads, and the cell it starts from, predicted from
 * the contention features of the LC's and the BE's kernels. Two methods:
 * NN, the nearest micro-benchmark for each kernel, whose pair's offline
 * co-run table is the model; and LR, two linear models over the 16-element
 * input [7 BE features, 7 LC features, n, k], trained on every table.
 * Documentation/search.rst, "The initial selection", says every decision.
 * Pure C: no CUDA, no I/O, no allocation, no global state.
 *
 * Every function returns 0 or a negative errno (-EINVAL); one that fails
 * writes nothing.
 */
#ifndef GSP_SELECT_H
#define GSP_SELECT_H

#include "search.h"

/*
 * A kernel's profile: its contention features, in this order and unit.
 * Percentages are 0..100 as ncu reports them; any finite value is
 * accepted, since every use first normalises by the micro-benchmarks'
 * range.
 */
enum gsp_select_feature {
	GSP_FEAT_L1_HIT,	/* L1 hit rate, % */
	GSP_FEAT_L2_HIT,	/* L2 hit rate, % */
	GSP_FEAT_DRAM_BW,	/* DRAM bandwidth, % of peak */
	GSP_FEAT_L2_BW,		/* L2 bandwidth, % of peak */
	GSP_FEAT_L1_BW,		/* L1 bandwidth, % of peak */
	GSP_FEAT_ARITH,		/* arithmetic intensity: non-memory instructions, % */
	GSP_FEAT_INSTS,		/* instructions executed, a count */
	GSP_SELECT_FEATURES
};

#define GSP_SELECT_MAX_MB	1024	/* micro-benchmarks in one set */

/*
 * The search grid, as search.h defines it: cells n = n_max - i * n_step
 * >= 1 and k = k_max - j * k_step >= 1, numbered i * rows + j. Every
 * field is required (no defaults): copy them from a gsp_search's cfg
 * after gsp_search_init(), which has filled the defaults in.
 */
struct gsp_select_grid {
	unsigned int n_max, k_max;	/* 1..GSP_SEARCH_MAX_N, _MAX_K */
	unsigned int n_step, k_step;	/* 1..n_max, 1..k_max */
};

/*
 * A micro-benchmark set: @nr_mb profiles and, per ordered pair (LC
 * micro-benchmark i, BE micro-benchmark j), the co-runs' table over the
 * grid. tables[(i * nr_mb + j) * cells + c] is cell c (the grid's
 * numbering) of pair (i, j): the LC's time over its time alone (finite,
 * > 0) and the BE's throughput (finite, >= 0). A cell not measured is
 * NaN, and a set with one is refused. As CSV (one row per cell, cells in
 * any order; the features in a second file, one row per micro-benchmark):
 *
 *   lc_mb,be_mb,n,k,lc_ratio,be_rate
 *   mb,l1_hit,l2_hit,dram_bw,l2_bw,l1_bw,arith,insts
 */
struct gsp_select_set {
	unsigned int nr_mb;			/* 1..GSP_SELECT_MAX_MB */
	const double (*features)[GSP_SELECT_FEATURES];	/* [nr_mb] */
	struct gsp_select_grid grid;
	const struct gsp_search_pred *tables;	/* [nr_mb^2 * cells] */
};

/* The grid's cells; 0 if @g is not a valid grid. */
unsigned int gsp_select_cells(const struct gsp_select_grid *g);
/* The index of @c in @g, or -EINVAL if it is not one of its cells. */
int gsp_select_cell_index(const struct gsp_select_grid *g, struct gsp_cell c);
/* -EINVAL unless every field, profile and table cell is valid. */
int gsp_select_check(const struct gsp_select_set *set);
/* Pair (@lc_mb, @be_mb)'s table, its cells in the grid's order. */
int gsp_select_table(const struct gsp_select_set *set, unsigned int lc_mb,
		     unsigned int be_mb, const struct gsp_search_pred **out);

/*
 * Min-max normalisation over a set's micro-benchmarks: feature f maps
 * lo[f]..hi[f] to 0..1, clipped outside; a feature of zero range maps
 * every value to 0, so it adds nothing to a distance.
 */
struct gsp_select_norm {
	double lo[GSP_SELECT_FEATURES], hi[GSP_SELECT_FEATURES];
};

int gsp_select_norm_of(const struct gsp_select_set *set,
		       struct gsp_select_norm *out);
int gsp_select_normalise(const struct gsp_select_norm *nm,
			 const double f[GSP_SELECT_FEATURES],
			 double out[GSP_SELECT_FEATURES]);
/*
 * The micro-benchmark nearest @f, by Euclidean distance between the
 * normalised vectors; of several at the same distance, the lowest index.
 */
int gsp_select_nearest(const struct gsp_select_set *set,
		       const double f[GSP_SELECT_FEATURES], unsigned int *mb);

/* LR: coefficient 0 is the intercept, 1 + i weighs input i. */
#define GSP_SELECT_LR_INPUTS	(2 * GSP_SELECT_FEATURES + 2)
#define GSP_SELECT_LR_COEFS	(GSP_SELECT_LR_INPUTS + 1)
/*
 * The ridge added to the normal equations' diagonal (not the
 * intercept's), relative to their mean diagonal: it keeps Cholesky
 * defined when an input is constant or two are collinear, and moves a
 * well-posed fit's coefficients by about 1e-9 of their size.
 */
#define GSP_SELECT_LR_RIDGE	1e-9

/*
 * The two trained models. Input i is, in order: the BE's 7 normalised
 * features, the LC's 7, n / n_max and k / k_max.
 */
struct gsp_select_lr {
	struct gsp_select_norm norm;
	struct gsp_select_grid grid;
	double lc[GSP_SELECT_LR_COEFS];	/* predicts the LC ratio */
	double be[GSP_SELECT_LR_COEFS];	/* predicts the BE throughput */
};

/* Least squares over every (pair, cell) of @set's tables. */
int gsp_select_lr_train(const struct gsp_select_set *set,
			struct gsp_select_lr *out);
/* The 16 inputs for one kernel pair at cell @c. */
int gsp_select_lr_input(const struct gsp_select_lr *lr,
			const double lc[GSP_SELECT_FEATURES],
			const double be[GSP_SELECT_FEATURES],
			struct gsp_cell c, double x[GSP_SELECT_LR_INPUTS]);

enum gsp_select_method {
	GSP_SELECT_NN,
	GSP_SELECT_LR,
	GSP_SELECT_NR_METHODS
};

/*
 * One kernel pair's model, bound by gsp_select_bind(): the context of
 * gsp_select_model(). NN keeps the pair's table (the set must outlive
 * it); LR keeps the models (which must outlive it) and the pair's
 * normalised features.
 */
struct gsp_select_model {
	enum gsp_select_method method;
	struct gsp_select_grid grid;
	unsigned int lc_mb, be_mb;		/* NN's neighbours */
	const struct gsp_search_pred *table;	/* NN: their table */
	const struct gsp_select_lr *lr;		/* LR */
	double x[2 * GSP_SELECT_FEATURES];	/* LR: BE, then LC, normalised */
};

/*
 * Binds the pair of profiles @lc and @be: NN needs @set (and ignores
 * @lr), LR needs @lr trained (and ignores @set).
 */
int gsp_select_bind(enum gsp_select_method m, const struct gsp_select_set *set,
		    const struct gsp_select_lr *lr,
		    const double lc[GSP_SELECT_FEATURES],
		    const double be[GSP_SELECT_FEATURES],
		    struct gsp_select_model *out);
/*
 * A gsp_search_model_fn: @ctx is a bound struct gsp_select_model. A cell
 * outside its grid predicts NaN for both.
 */
void gsp_select_model(const void *ctx, struct gsp_cell c,
		      struct gsp_search_pred *out);
/*
 * The pick, the search's cfg.initial: the cell the model ranks first by
 * gsp_search_prefer() under @q (the greatest predicted BE rate among the
 * cells predicted at most q, or the least predicted LC ratio if none
 * is), ties to the lower index; @pred (may be NULL) gets its prediction.
 */
int gsp_select_pick(const struct gsp_select_model *m, double q,
		    struct gsp_cell *cell, struct gsp_search_pred *pred);

/* A real pair: its two profiles and its measured table over the grid. */
struct gsp_select_pair {
	double lc[GSP_SELECT_FEATURES], be[GSP_SELECT_FEATURES];
	const struct gsp_search_pred *measured;	/* [cells], none missing */
};

/*
 * Mean relative errors, |p - m| / max(p, m) (0 when both are 0), as
 * fractions: at the cell each pair's model picks under q, and over every
 * cell of each pair's grid (the mean over cells, then over pairs).
 */
struct gsp_select_err {
	double lc_pick, be_pick;
	double lc_all, be_all;
};

/* The errors of method @m on @nr pairs (@set and @lr as for bind). */
int gsp_select_error(enum gsp_select_method m,
		     const struct gsp_select_set *set,
		     const struct gsp_select_lr *lr,
		     const struct gsp_select_pair *pairs, unsigned int nr,
		     double q, struct gsp_select_err *out);

#endif /* GSP_SELECT_H */
