// SPDX-License-Identifier: GPL-2.0
/*
 * The initial selection (libgsp/search/select.c), alone, under ASan and
 * UBSan: synthetic micro-benchmark sets whose co-run tables come from a
 * known function of the two kernels' features and of (n, k), on the
 * default grid of an H100 (132 SMs, 32 slots: 33 x 8 cells). "Real"
 * kernels are small perturbations of micro-benchmarks. The truth
 * normalises the features itself, so a broken normalisation in the
 * library shows.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "select.h"
#include "prng.h"
#include "sim.h"
#include "tap.h"

#define N	132
#define K	32
#define MB	10		/* micro-benchmarks */
#define PAIRS	24		/* real pairs, as the seed's benchmarks */
#define Q	1.5
#define NF	GSP_SELECT_FEATURES
#define PERTURB	0.005		/* real = micro-benchmark +- this * range */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double unif(void)
{
	return prng_unif(&rng);
}

static struct gsp_search S;
static struct gsp_select_grid grid;	/* the search's defaults */
static unsigned int cells;

static double feat[MB][NF];
static struct gsp_search_pred tables[MB * MB * 33 * 8];
static struct gsp_select_set set;
static double lo[NF], hi[NF];		/* the test's own min-max */

/* Real kernels: a perturbation of micro-benchmark src[i]. */
static double real[MB][NF];
static struct gsp_search_pred measured[PAIRS][33 * 8];
static struct gsp_select_pair pairs[PAIRS];

/* The test's normalisation, written apart from the library's. */
static void tnorm(const double f[NF], double x[NF])
{
	int i;

	for (i = 0; i < NF; i++)
		x[i] = hi[i] > lo[i] ?
		       fmin(1, fmax(0, (f[i] - lo[i]) / (hi[i] - lo[i]))) : 0;
}

typedef void (*truth_fn)(const double xl[NF], const double xb[NF],
			 struct gsp_cell c, double *lc, double *be);

/* The linear truth: intercept 5 (LC) or 2 (BE), then 16 weights. */
static double wl[GSP_SELECT_LR_COEFS], wb[GSP_SELECT_LR_COEFS];

static void linear(const double xl[NF], const double xb[NF],
		   struct gsp_cell c, double *lc, double *be)
{
	double x[GSP_SELECT_LR_INPUTS];
	int i;

	memcpy(x, xb, sizeof(double) * NF);
	memcpy(x + NF, xl, sizeof(double) * NF);
	x[2 * NF] = (double)c.n / N;
	x[2 * NF + 1] = (double)c.k / K;
	*lc = wl[0];
	*be = wb[0];
	for (i = 0; i < GSP_SELECT_LR_INPUTS; i++) {
		*lc += wl[i + 1] * x[i];
		*be += wb[i + 1] * x[i];
	}
}

/*
 * The non-linear truth: the LC slows by its sensitivity times the BE's
 * pressure times a quadratic in what the BE gets (u, v), as
 * test_search's surfaces; the BE's rate saturates with the LC's L2 use.
 */
static void nonlinear(const double xl[NF], const double xb[NF],
		      struct gsp_cell c, double *lc, double *be)
{
	double u = 1 - (double)c.n / N, v = 1 - (double)c.k / K;
	double sens = 0.3 + xl[GSP_FEAT_DRAM_BW] * xl[GSP_FEAT_L2_BW] +
		      0.5 * sin(3 * xl[GSP_FEAT_L1_HIT]);
	double press = 0.2 + xb[GSP_FEAT_DRAM_BW] * xb[GSP_FEAT_DRAM_BW] +
		       xb[GSP_FEAT_L1_BW] * xb[GSP_FEAT_ARITH];

	*lc = 1 + 2 * sens * press * (2 * u * u + 1.5 * v * v + u * v);
	*be = (0.2 + xb[GSP_FEAT_ARITH]) * (u + 0.8 * v) /
	      (1 + 2 * xl[GSP_FEAT_L2_HIT] * u * u);
}

static void truth_of(truth_fn t, const double lcf[NF], const double bef[NF],
		     struct gsp_cell c, double *lc, double *be)
{
	double xl[NF], xb[NF];

	tnorm(lcf, xl);
	tnorm(bef, xb);
	t(xl, xb, c, lc, be);
}

static struct gsp_cell cell_at(unsigned int idx)
{
	struct gsp_cell c = {
		.n = N - idx / 8 * grid.n_step,
		.k = K - idx % 8 * grid.k_step,
	};

	return c;
}

/* The grid from a search's defaults, MB random profiles, their range. */
static void make_profiles(void)
{
	struct gsp_search_cfg cfg = { .n_max = N, .k_max = K, .q = Q };
	int i, f;

	gsp_search_init(&S, &cfg);
	grid = (struct gsp_select_grid){ S.cfg.n_max, S.cfg.k_max,
					 S.cfg.n_step, S.cfg.k_step };
	cells = gsp_select_cells(&grid);
	for (i = 0; i < MB; i++) {
		for (f = 0; f < GSP_FEAT_INSTS; f++)
			feat[i][f] = 5 + 90 * unif();
		feat[i][GSP_FEAT_INSTS] = 1e6 + 1e9 * unif();
	}
	for (f = 0; f < NF; f++) {
		lo[f] = hi[f] = feat[0][f];
		for (i = 1; i < MB; i++) {
			lo[f] = fmin(lo[f], feat[i][f]);
			hi[f] = fmax(hi[f], feat[i][f]);
		}
	}
	for (i = 0; i < MB; i++)
		for (f = 0; f < NF; f++)
			real[i][f] = feat[i][f] +
				     PERTURB * (hi[f] - lo[f]) * (2 * unif() - 1);
	set = (struct gsp_select_set){ MB, feat, grid, tables };
}

static void make_tables(truth_fn t);

/* The tables, and PAIRS real pairs measured, under truth @t. */
static void make_tables(truth_fn t)
{
	uint64_t keep = rng;
	unsigned int i, j, c;
	struct gsp_search_pred *p;

	for (i = 0; i < MB; i++)
		for (j = 0; j < MB; j++)
			for (c = 0; c < cells; c++) {
				p = &tables[(i * MB + j) * cells + c];
				truth_of(t, feat[i], feat[j], cell_at(c),
					 &p->lc_ratio, &p->be_rate);
			}
	rng = 0x1234567;	/* the same pairs for every truth */
	for (i = 0; i < PAIRS; i++) {
		unsigned int a = prng_next(&rng) % MB, b = prng_next(&rng) % MB;

		memcpy(pairs[i].lc, real[a], sizeof(real[a]));
		memcpy(pairs[i].be, real[b], sizeof(real[b]));
		for (c = 0; c < cells; c++)
			truth_of(t, real[a], real[b], cell_at(c),
				 &measured[i][c].lc_ratio,
				 &measured[i][c].be_rate);
		pairs[i].measured = measured[i];
	}
	rng = keep;
}

static void test_grid(void)
{
	struct gsp_cell c = { 128, 28 }, bad = { 130, 28 };

	tap_ok(grid.n_step == 4 && grid.k_step == 4 && cells == 33 * 8,
	       "the search's default grid: steps %u, %u, %u cells",
	       grid.n_step, grid.k_step, cells);
	tap_ok(gsp_select_cell_index(&grid, c) == 9 &&
	       gsp_select_cell_index(&grid, bad) == -EINVAL,
	       "cell (128, 28) is index 9, (130, 28) is off the grid");
}

/* Normalisation: min-max, clipped outside, 0 for a zero range. */
static void test_norm(void)
{
	static const double zf[3][NF] = {
		{ 0, 10, 5, 7, 0, 0, 100 },
		{ 1, 20, 5, 7, 0, 0, 300 },
		{ 2, 30, 5, 7, 0, 0, 200 },
	};
	static struct gsp_search_pred zt[9 * 25];
	struct gsp_select_set zs = { 3, zf, { 5, 5, 1, 1 }, zt };
	double f[NF] = { -1, 40, 99, 7, 0, 0, 150 }, x[NF];
	struct gsp_select_norm nm;
	unsigned int i, mb = 99;
	int ok;

	for (i = 0; i < 9 * 25; i++)
		zt[i] = (struct gsp_search_pred){ 1, 1 };
	ok = !gsp_select_norm_of(&zs, &nm) && !gsp_select_normalise(&nm, f, x);
	tap_ok(ok && x[0] == 0 && x[1] == 1 && x[6] == 0.25,
	       "normalise: below the range clips to 0, above to 1, inside min-max (%g %g %g)",
	       x[0], x[1], x[6]);
	tap_ok(ok && x[2] == 0 && x[3] == 0 && x[4] == 0,
	       "normalise: a feature of zero range maps to 0, even off its value (%g)",
	       x[2]);
	/* mb 1, but feature 2 far off: zero range, so it adds nothing. */
	memcpy(f, zf[1], sizeof(f));
	f[2] = 1e6;
	ok = !gsp_select_nearest(&zs, f, &mb);
	tap_ok(ok && mb == 1,
	       "nearest: a zero-range feature off by 1e6 still finds mb 1 (%u)",
	       mb);
	/* Far outside on feature 0: clipped to mb 2's value, not past it. */
	memcpy(f, zf[2], sizeof(f));
	f[0] = 1e9;
	ok = !gsp_select_nearest(&zs, f, &mb);
	tap_ok(ok && mb == 2,
	       "nearest: a kernel far past the range clips onto mb 2 (%u)", mb);
}

/* Ties: of equal distances, the lowest index. */
static void test_ties(void)
{
	static const double tf[3][NF] = {
		{ 0, 0, 0, 0, 0, 0, 0 },
		{ 1, 0, 0, 0, 0, 0, 0 },
		{ 1, 0, 0, 0, 0, 0, 0 },
	};
	static struct gsp_search_pred tt[9 * 25];
	struct gsp_select_set ts = { 3, tf, { 5, 5, 1, 1 }, tt };
	double f[NF] = { 0.5 };
	unsigned int i, a = 99, b = 99, c = 99;

	for (i = 0; i < 9 * 25; i++)
		tt[i] = (struct gsp_search_pred){ 1, 1 };
	gsp_select_nearest(&ts, f, &a);
	f[0] = 1;
	gsp_select_nearest(&ts, f, &b);
	f[0] = 0.75;
	gsp_select_nearest(&ts, f, &c);
	tap_ok(a == 0, "ties: midway between mb 0 and mb 1 goes to 0 (%u)", a);
	tap_ok(b == 1 && c == 1,
	       "ties: mb 1 and its duplicate mb 2 go to 1 (%u, %u)", b, c);
}

/* NN finds the generating micro-benchmark of each perturbed kernel. */
static void test_nearest(void)
{
	double xi[NF], xj[NF], d, dmin = INFINITY, pmax = 0;
	struct gsp_select_model b;
	unsigned int i, j, mb, found = 0;
	int f, ok = 1;

	for (i = 0; i < MB; i++) {
		tnorm(feat[i], xi);
		tnorm(real[i], xj);
		for (d = 0, f = 0; f < NF; f++)
			d += (xi[f] - xj[f]) * (xi[f] - xj[f]);
		pmax = fmax(pmax, sqrt(d));
		for (j = 0; j < i; j++) {
			tnorm(feat[j], xj);
			for (d = 0, f = 0; f < NF; f++)
				d += (xi[f] - xj[f]) * (xi[f] - xj[f]);
			dmin = fmin(dmin, sqrt(d));
		}
	}
	tap_ok(dmin > 2 * pmax,
	       "the set: micro-benchmarks %.3f apart at least, perturbations %.4f at most",
	       dmin, pmax);
	for (i = 0; i < MB; i++) {
		ok = ok && !gsp_select_nearest(&set, real[i], &mb);
		found += mb == i;
	}
	tap_ok(ok && found == MB,
	       "nearest: %u of %u perturbed kernels find their micro-benchmark",
	       found, MB);
	ok = !gsp_select_bind(GSP_SELECT_NN, &set, NULL, real[3], real[7], &b);
	tap_ok(ok && b.lc_mb == 3 && b.be_mb == 7 &&
	       b.table == tables + (3 * MB + 7) * cells,
	       "bind: LC and BE each find their own (%u, %u), and their table",
	       b.lc_mb, b.be_mb);
}

/* The pick by brute force: 1 if @c is the right pick of @t under @q. */
static int pick_right(const struct gsp_search_pred *t, unsigned int n,
		      double q, struct gsp_cell c, const struct gsp_select_grid *g)
{
	double best = -1, least = INFINITY;
	int idx = gsp_select_cell_index(g, c), feasible = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (t[i].lc_ratio <= q) {
			feasible = 1;
			best = fmax(best, t[i].be_rate);
		}
		least = fmin(least, t[i].lc_ratio);
	}
	if (idx < 0)
		return 0;
	if (feasible)
		return t[idx].lc_ratio <= q && t[idx].be_rate == best;
	return t[idx].lc_ratio == least;
}

/* The pick, by hand on a 3 x 3 grid and over every pair of the set. */
static void test_pick(void)
{
	static const double hf[1][NF];
	/* (3,3) (3,2) (3,1) / (2,3) (2,2) (2,1) / (1,3) (1,2) (1,1) */
	static struct gsp_search_pred ht[9] = {
		{ 1.0, 0.0 }, { 1.2, 0.3 }, { 1.6, 0.9 },
		{ 1.3, 0.5 }, { 1.4, 0.5 }, { 2.0, 1.0 },
		{ 1.7, 0.8 }, { 2.2, 1.1 }, { 3.0, 1.5 },
	};
	struct gsp_select_set hs = { 1, hf, { 3, 3, 1, 1 }, ht };
	struct gsp_select_model b;
	struct gsp_search_pred p;
	struct gsp_cell c = { 0, 0 };
	unsigned int i, j, right = 0;
	int ok;

	ok = !gsp_select_bind(GSP_SELECT_NN, &hs, NULL, hf[0], hf[0], &b) &&
	     !gsp_select_pick(&b, 1.5, &c, &p);
	tap_ok(ok && c.n == 2 && c.k == 3 && p.be_rate == 0.5,
	       "pick: of the cells at most q = 1.5, the greatest BE rate, then the least LC ratio: (2,3) (%u,%u)",
	       c.n, c.k);
	ok = !gsp_select_pick(&b, 0.9, &c, NULL);
	tap_ok(ok && c.n == 3 && c.k == 3,
	       "pick: no cell meets q = 0.9: the least LC ratio, (3,3) (%u,%u)",
	       c.n, c.k);
	ht[4].lc_ratio = 1.3;
	ok = !gsp_select_pick(&b, 1.5, &c, NULL);
	tap_ok(ok && c.n == 2 && c.k == 3,
	       "pick: an exact tie goes to the lower index, (2,3) (%u,%u)",
	       c.n, c.k);
	ht[4].lc_ratio = 1.4;
	make_tables(nonlinear);
	for (i = 0; i < MB; i++)
		for (j = 0; j < MB; j++) {
			gsp_select_bind(GSP_SELECT_NN, &set, NULL, feat[i],
					feat[j], &b);
			gsp_select_pick(&b, Q, &c, NULL);
			right += pick_right(b.table, cells, Q, c, &grid);
		}
	tap_ok(right == MB * MB,
	       "pick: the brute-force answer on %u of %u tables of the set (q = %.1f)",
	       right, MB * MB, Q);
}

static double max_coef_err(const double *a, const double *b)
{
	double e = 0;
	int i;

	for (i = 0; i < GSP_SELECT_LR_COEFS; i++)
		e = fmax(e, fabs(a[i] - b[i]));
	return e;
}

static struct gsp_select_lr lr;

/* LR on an exactly linear truth: the coefficients, and exact predictions. */
static void test_lr_linear(void)
{
	struct gsp_select_err e;
	double el, eb;
	int i, ok;

	wl[0] = 5;
	wb[0] = 2;
	for (i = 1; i < GSP_SELECT_LR_COEFS; i++) {
		wl[i] = 0.5 * unif() - 0.25;
		wb[i] = 0.2 * unif() - 0.1;
	}
	make_tables(linear);
	ok = !gsp_select_lr_train(&set, &lr);
	el = max_coef_err(lr.lc, wl);
	eb = max_coef_err(lr.be, wb);
	tap_ok(ok && el < 1e-6 && eb < 1e-6,
	       "lr, linear truth: the 17 coefficients of each model within 1e-6 (%.2g, %.2g)",
	       el, eb);
	ok = !gsp_select_error(GSP_SELECT_LR, NULL, &lr, pairs, PAIRS, Q, &e);
	tap_ok(ok && e.lc_all < 1e-9 && e.be_all < 1e-9 && e.lc_pick < 1e-9 &&
	       e.be_pick < 1e-9,
	       "lr, linear truth: %u real pairs predicted exactly (%.2g %.2g %.2g %.2g)",
	       PAIRS, e.lc_all, e.be_all, e.lc_pick, e.be_pick);
}

/* The seed's finding: on a non-linear truth, LR errs more than NN. */
static void test_errors(void)
{
	struct gsp_select_err nn, lin;
	int ok;

	make_tables(nonlinear);
	ok = !gsp_select_lr_train(&set, &lr) &&
	     !gsp_select_error(GSP_SELECT_NN, &set, NULL, pairs, PAIRS, Q,
			       &nn) &&
	     !gsp_select_error(GSP_SELECT_LR, NULL, &lr, pairs, PAIRS, Q, &lin);
	tap_diag("nn: %.1f %% BE and %.1f %% LC over all cells, %.1f %% and %.1f %% at the pick",
		 100 * nn.be_all, 100 * nn.lc_all, 100 * nn.be_pick,
		 100 * nn.lc_pick);
	tap_diag("lr: %.1f %% BE and %.1f %% LC over all cells, %.1f %% and %.1f %% at the pick",
		 100 * lin.be_all, 100 * lin.lc_all, 100 * lin.be_pick,
		 100 * lin.lc_pick);
	tap_ok(ok && nn.lc_all < 0.02 && nn.be_all < 0.02 &&
	       nn.lc_pick < 0.02 && nn.be_pick < 0.02,
	       "nn, non-linear truth: every mean error below 2 %%");
	tap_ok(ok && lin.lc_all > 0.05 && lin.be_all > 0.05,
	       "lr, non-linear truth: both mean errors over all cells above 5 %%");
	tap_ok(ok && lin.lc_all > 3 * nn.lc_all && lin.be_all > 3 * nn.be_all,
	       "lr errs over 3 times more than nn (LC %.4f vs %.4f, BE %.4f vs %.4f)",
	       lin.lc_all, nn.lc_all, lin.be_all, nn.be_all);
}

/*
 * The error's definition by hand: every measured LC ratio twice the
 * predicted one and every BE rate half of it is |p - m| / max(p, m) =
 * 0.5 on each cell, but 0 on the one cell of BE rate 0 (0 against 0).
 */
static void test_error_def(void)
{
	static const double hf[1][NF];
	static const struct gsp_search_pred ht[9] = {
		{ 1.0, 0.0 }, { 1.2, 0.3 }, { 1.6, 0.9 },
		{ 1.3, 0.5 }, { 1.4, 0.5 }, { 2.0, 1.0 },
		{ 1.7, 0.8 }, { 2.2, 1.1 }, { 3.0, 1.5 },
	};
	struct gsp_select_set hs = { 1, hf, { 3, 3, 1, 1 }, ht };
	struct gsp_search_pred hm[9];
	struct gsp_select_pair hp = { .measured = hm };
	struct gsp_select_err e;
	int i, ok;

	for (i = 0; i < 9; i++) {
		hm[i].lc_ratio = 2 * ht[i].lc_ratio;
		hm[i].be_rate = ht[i].be_rate / 2;
	}
	ok = !gsp_select_error(GSP_SELECT_NN, &hs, NULL, &hp, 1, 1.5, &e);
	tap_ok(ok && fabs(e.lc_pick - 0.5) < 1e-12 &&
	       fabs(e.be_pick - 0.5) < 1e-12 && fabs(e.lc_all - 0.5) < 1e-12 &&
	       fabs(e.be_all - 4.0 / 9) < 1e-12,
	       "error: |p - m| / max(p, m), LC 0.5 at the pick and over all cells, BE 0.5 and 4/9 (%g %g %g %g)",
	       e.lc_pick, e.be_pick, e.lc_all, e.be_all);
}

/* The hand-made real pair the search runs on. */
static const double *run_lc, *run_be;

static void real_truth(const void *ctx, struct gsp_cell c, double *lc,
		       double *be)
{
	(void)ctx;
	truth_of(nonlinear, run_lc, run_be, c, lc, be);
}

/* NN's model and pick drive nn_srs to the oracle of the real pair. */
static void test_plug(void)
{
	struct gsp_search_cfg cfg = {
		.n_max = N, .k_max = K, .q = Q, .method = GSP_SEARCH_NN_SRS,
		.model = gsp_select_model,
	};
	struct gsp_search_result r;
	struct gsp_select_model b;
	struct gsp_search_pred p;
	struct gsp_cell at = { 0, 0 }, c = { 132, 4 };
	double best, lc, be;
	unsigned int i, ok_all = 0;
	int ok;

	ok = !gsp_select_bind(GSP_SELECT_NN, &set, NULL, real[2], real[5], &b);
	gsp_select_model(&b, c, &p);
	tap_ok(ok && p.lc_ratio == b.table[7].lc_ratio &&
	       p.be_rate == b.table[7].be_rate,
	       "model: cell (132, 4) reads index 7 of the pair's table");
	c.n = 131;
	gsp_select_model(&b, c, &p);
	tap_ok(isnan(p.lc_ratio) && isnan(p.be_rate),
	       "model: a cell off the grid predicts NaN");
	for (i = 0; i < MB; i++) {
		run_lc = real[i];
		run_be = real[(i * 3 + 1) % MB];
		ok = !gsp_select_bind(GSP_SELECT_NN, &set, NULL, run_lc,
				      run_be, &b) &&
		     !gsp_select_pick(&b, Q, &cfg.initial, NULL);
		cfg.model_ctx = &b;
		ok = ok && !gsp_search_init(&S, &cfg) &&
		     !sim_drive(&S, real_truth, NULL) &&
		     !gsp_search_result(&S, &r);
		best = sim_oracle(N, K, grid.n_step, grid.k_step, real_truth,
				  NULL, Q, &at);
		real_truth(NULL, r.chosen.cell, &lc, &be);
		if (ok && r.qos_met && be >= best && r.end == GSP_SEARCH_CONVERGED)
			ok_all++;
		else
			tap_diag("pair %u: (%u,%u) be %.4f, oracle (%u,%u) %.4f",
				 i, r.chosen.cell.n, r.chosen.cell.k, be,
				 at.n, at.k, best);
	}
	tap_ok(ok_all == MB,
	       "nn_srs from NN's pick with NN's table: %u of %u real pairs end at the oracle",
	       ok_all, MB);
}

/* Bad input: -EINVAL, and nothing written. */
static void test_rejects(void)
{
	static struct gsp_search_pred bad_t[MB * MB * 33 * 8];
	static double bad_f[MB][NF];
	struct gsp_select_set bs = set;
	struct gsp_select_model b, b0;
	struct gsp_select_lr l, l0;
	struct gsp_select_err e, e0;
	struct gsp_select_pair bp[1];
	struct gsp_search_pred bm[33 * 8];
	struct gsp_cell c = { 7, 7 };
	double f[NF];
	unsigned int mb = 99, n = 0, bad = 0;

	memset(&b0, 0xa5, sizeof(b0));
	memset(&l0, 0xa5, sizeof(l0));
	memset(&e0, 0xa5, sizeof(e0));
	b = b0;
	l = l0;
	e = e0;
#define REJ(call) do { n++; bad += (call) != -EINVAL; } while (0)
	REJ(gsp_select_check(NULL));
	REJ(gsp_select_nearest(NULL, real[0], &mb));
	REJ(gsp_select_bind(GSP_SELECT_NN, NULL, NULL, real[0], real[0], &b));
	REJ(gsp_select_bind(GSP_SELECT_LR, &set, NULL, real[0], real[0], &b));
	REJ(gsp_select_bind(GSP_SELECT_NR_METHODS, &set, &lr, real[0],
			    real[0], &b));
	REJ(gsp_select_lr_train(NULL, &l));
	REJ(gsp_select_pick(NULL, Q, &c, NULL));
	REJ(gsp_select_error(GSP_SELECT_NN, &set, NULL, NULL, 1, Q, &e));
	bs.nr_mb = 0;
	REJ(gsp_select_check(&bs));
	REJ(gsp_select_nearest(&bs, real[0], &mb));
	REJ(gsp_select_lr_train(&bs, &l));
	bs.nr_mb = GSP_SELECT_MAX_MB + 1;
	REJ(gsp_select_check(&bs));
	bs = set;
	bs.grid.n_step = 0;
	REJ(gsp_select_check(&bs));
	/* A non-finite feature, in the set or in a real kernel. */
	bs = set;
	memcpy(bad_f, feat, sizeof(feat));
	bad_f[4][GSP_FEAT_L2_BW] = NAN;
	bs.features = bad_f;
	REJ(gsp_select_check(&bs));
	REJ(gsp_select_lr_train(&bs, &l));
	REJ(gsp_select_bind(GSP_SELECT_NN, &bs, NULL, real[0], real[0], &b));
	memcpy(f, real[0], sizeof(f));
	f[GSP_FEAT_INSTS] = INFINITY;
	REJ(gsp_select_nearest(&set, f, &mb));
	REJ(gsp_select_bind(GSP_SELECT_NN, &set, NULL, real[0], f, &b));
	REJ(gsp_select_bind(GSP_SELECT_LR, NULL, &lr, f, real[0], &b));
	/* A table with a missing cell, in the set or in a real pair. */
	bs = set;
	memcpy(bad_t, tables, sizeof(tables));
	bad_t[(5 * MB + 6) * cells + 100].be_rate = NAN;
	bs.tables = bad_t;
	REJ(gsp_select_check(&bs));
	REJ(gsp_select_lr_train(&bs, &l));
	REJ(gsp_select_bind(GSP_SELECT_NN, &bs, NULL, real[0], real[0], &b));
	memcpy(bm, measured[0], sizeof(bm));
	bm[cells - 1].lc_ratio = NAN;
	bp[0] = pairs[0];
	bp[0].measured = bm;
	REJ(gsp_select_error(GSP_SELECT_NN, &set, NULL, bp, 1, Q, &e));
	REJ(gsp_select_error(GSP_SELECT_NN, &set, NULL, pairs, 0, Q, &e));
	/* A bad q. */
	gsp_select_bind(GSP_SELECT_NN, &set, NULL, real[0], real[0], &b0);
	REJ(gsp_select_pick(&b0, NAN, &c, NULL));
	REJ(gsp_select_pick(&b0, 0, &c, NULL));
	REJ(gsp_select_error(GSP_SELECT_NN, &set, NULL, pairs, 1, -1, &e));
#undef REJ
	memset(&b0, 0xa5, sizeof(b0));
	tap_ok(!bad, "%u bad inputs rejected with -EINVAL (%u not)", n, bad);
	tap_ok(mb == 99 && c.n == 7 && c.k == 7 &&
	       !memcmp(&b, &b0, sizeof(b)) && !memcmp(&l, &l0, sizeof(l)) &&
	       !memcmp(&e, &e0, sizeof(e)),
	       "nothing written by a rejected call");
}

int main(void)
{
	make_profiles();
	make_tables(nonlinear);
	test_grid();
	test_norm();
	test_ties();
	test_nearest();
	test_pick();
	test_lr_linear();
	test_error_def();
	test_errors();
	test_plug();
	test_rejects();
	return tap_done();
}
