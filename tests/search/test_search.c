// SPDX-License-Identifier: GPL-2.0
/*
 * The online partition search (libgsp/search/search.c), alone, under
 * ASan and UBSan, against a simulated GPU: seeded synthetic response
 * surfaces over the (n, k) grid of an H100 (132 SMs, 32 slots). Each
 * method runs to the end on a smooth surface, a noisy one, a non-convex
 * one, one whose model is off by a factor, a target no cell meets and a
 * phase change; the exhaustive oracle over the same grid is the yardstick.
 *
 * The scripted cases on a hand-set table are test_rules.c; the driver, the
 * oracle and the checks on a result are in sim.h, shared by the three.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "search.h"
#include "prng.h"
#include "sim.h"
#include "tap.h"

#define N	132
#define K	32

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The simulator's one PRNG, reseeded by each case that draws noise. */
static uint64_t rng;

/* Uniform in [0, 1), from the file's one PRNG. */
static double unif(void)
{
	return prng_unif(&rng);
}

/*
 * A response surface. u = 1 - n/N and v = 1 - k/K are what the BE gets;
 * the LC ratio 1 + a u^2 + b v^2 + c u v rises with both, and the BE's
 * throughput u + w v (plus a bump, if any) rises with both too.
 */
struct surface {
	double a, b, c, w;
	double bump, bu, bv;	/* a BE bump of this height at (bu, bv) */
	double sigma;		/* multiplicative noise, uniform +-sigma */
	double outlier;		/* the chance of an LC sample twice as slow */
	double offset;		/* the model's LC ratio is the truth / offset */
};

static const struct surface smooth = { .a = 2, .b = 1.5, .c = 1, .w = 0.8 };
static const struct surface noisy = {
	.a = 2, .b = 1.5, .c = 1, .w = 0.8, .sigma = 0.03, .outlier = 0.1,
};
/* A local optimum on the way from (N, K) to the global one: (124, 24). */
static const struct surface bumpy = {
	.a = 2, .b = 1.5, .c = 1, .w = 0.8, .bump = 0.2, .bu = 8.0 / N,
	.bv = 8.0 / K,
};
/* SRS's hypothesis: the model sees every LC ratio 1.6 times too small. */
static const struct surface offset = {
	.a = 2, .b = 1.5, .c = 1, .w = 0.8, .offset = 1.6,
};
/* The phase after the change: an LC that is hurt more by losing SMs. */
static const struct surface phase2 = { .a = 5, .b = 0.5, .c = 0.5, .w = 1.5 };

static void truth(const struct surface *f, struct gsp_cell c, double *lc,
		  double *be)
{
	double u = 1 - (double)c.n / N, v = 1 - (double)c.k / K;
	double du = u - f->bu, dv = v - f->bv;

	*lc = 1 + f->a * u * u + f->b * v * v + f->c * u * v;
	*be = u + f->w * v + f->bump * exp(-(du * du + dv * dv) / 0.004);
}

/* The model: the truth, or the truth seen through the offset. */
static void model(const void *ctx, struct gsp_cell c,
		  struct gsp_search_pred *out)
{
	const struct surface *f = ctx;

	truth(f, c, &out->lc_ratio, &out->be_rate);
	if (f->offset)
		out->lc_ratio /= f->offset;
}

/* One LC invocation under @c: the truth with the surface's noise. */
static void measure(const struct surface *f, struct gsp_cell c, double *lc,
		    double *be)
{
	truth(f, c, lc, be);
	*lc *= 1 + f->sigma * (2 * unif() - 1);
	*be *= 1 + f->sigma * (2 * unif() - 1);
	if (f->outlier && unif() < f->outlier)
		*lc *= 2;
}

static struct gsp_search S, S2;

/* The grid's cells, as the defaults make them (n_step 4, k_step 4). */
#define STEP	4

static void truth_cb(const void *ctx, struct gsp_cell c, double *lc,
		     double *be)
{
	truth(ctx, c, lc, be);
}

static void measure_cb(const void *ctx, struct gsp_cell c, double *lc,
		       double *be)
{
	measure(ctx, c, lc, be);
}

/* The oracle: the greatest true BE rate among cells of true LC <= q. */
static double oracle(const struct surface *f, double q, struct gsp_cell *at)
{
	return sim_oracle(N, K, STEP, STEP, truth_cb, f, q, at);
}

/*
 * The model's pick, as NN would make it: the model's own oracle, which
 * for truth / offset is the truth's under q * offset.
 */
static struct gsp_cell pick(const struct surface *f, double q)
{
	struct gsp_cell c = { N, K };

	oracle(f, f->offset ? q * f->offset : q, &c);
	return c;
}

/* Drives @s to the end on @f (sim.h). */
static int drive(struct gsp_search *s, const struct surface *f)
{
	return sim_drive(s, measure_cb, f);
}

static struct gsp_search_cfg cfg_for(enum gsp_search_method m,
				     const struct surface *f, double q)
{
	struct gsp_search_cfg cfg = {
		.n_max = N, .k_max = K, .q = q, .method = m,
		.model = model, .model_ctx = f,
	};

	if (m >= GSP_SEARCH_NN_NS)
		cfg.initial = pick(f, q);
	return cfg;
}

/* What a run ends with, against the truth. */
struct outcome {
	struct gsp_search_result r;
	double true_lc, true_be, frac;	/* frac: of the oracle's BE rate */
	int ok;				/* every call did what it should */
};

static struct outcome run(enum gsp_search_method m, const struct surface *f,
			  double q, uint64_t seed)
{
	struct gsp_search_cfg cfg = cfg_for(m, f, q);
	struct outcome o = { .ok = 1 };
	struct gsp_cell at;
	double best;

	rng = seed;
	if (gsp_search_init(&S, &cfg) || drive(&S, f) ||
	    gsp_search_result(&S, &o.r) || !sim_same_answer(&S, &o.r)) {
		o.ok = 0;
		return o;
	}
	truth(f, o.r.chosen.cell, &o.true_lc, &o.true_be);
	best = oracle(f, q, &at);
	o.frac = best > 0 ? o.true_be / best : 0;
	tap_diag("%-6s (%3u,%2u) lc %.3f be %.3f = %.3f of the oracle (%u,%u); %u cells, %u invocations, %u over q, gamma %.3f",
		 sim_names[m], o.r.chosen.cell.n, o.r.chosen.cell.k, o.true_lc,
		 o.true_be, o.frac, at.n, at.k, o.r.cells_tried,
		 o.r.invocations, o.r.violations, o.r.gamma);
	return o;
}

/* Per method: the most invocations it may take, and the least fraction. */
struct bound {
	unsigned int invoc;
	double frac;
};

/*
 * Every method on @f from @seeds seeds: each run must converge within
 * b->invoc invocations, end meeting q (by measurement, and by the truth
 * within @lc_slack) and reach b->frac of the oracle's BE rate.
 */
static void check_surface(const char *what, const struct surface *f,
			  double q, const struct bound *b, int seeds,
			  double lc_slack)
{
	enum gsp_search_method m;
	struct outcome o;
	unsigned int invoc;
	double frac, lc;
	int i, conv, met, ok;

	for (m = 0; m < GSP_SEARCH_NR_METHODS; m++) {
		invoc = 0;
		frac = 1e9;
		lc = 0;
		conv = met = ok = 1;
		for (i = 0; i < seeds; i++) {
			o = run(m, f, q, 0x2545f4914f6cdd1dULL + 977 * i + m);
			ok = ok && o.ok;
			conv = conv && o.r.end == GSP_SEARCH_CONVERGED;
			met = met && o.r.qos_met;
			invoc = o.r.invocations > invoc ? o.r.invocations : invoc;
			frac = fmin(frac, o.frac);
			lc = fmax(lc, o.true_lc);
		}
		tap_ok(ok && conv && invoc <= b[m].invoc,
		       "%s, %s: converges within %u invocations (at most %u)",
		       what, sim_names[m], b[m].invoc, invoc);
		tap_ok(ok && met && lc <= q * lc_slack,
		       "%s, %s: ends meeting q = %.2f (true LC ratio at most %.3f)",
		       what, sim_names[m], q, lc);
		tap_ok(ok && frac >= b[m].frac,
		       "%s, %s: >= %.3g of the oracle's BE rate (at least %.3f)",
		       what, sim_names[m], b[m].frac, frac);
	}
}

#define Q	1.5

/*
 * Noise-free, the model exact: srs and nn_srs measure the pick (twice:
 * it is near q) and the two neighbours the calibrated model ranks above
 * it, 6 invocations; nn_ns, with no model, all 8 neighbours (16); from
 * (N, K), NS and GNS stop at a local optimum of the coarse grid. The
 * issue's goal is 10 invocations.
 */
static void test_smooth(void)
{
	static const struct bound b[] = {
		[GSP_SEARCH_NS] = { 36, 0.95 },
		[GSP_SEARCH_GNS] = { 12, 0.95 },
		[GSP_SEARCH_SRS] = { 10, 0.999 },
		[GSP_SEARCH_NN_NS] = { 16, 0.999 },
		[GSP_SEARCH_NN_GNS] = { 10, 0.999 },
		[GSP_SEARCH_NN_SRS] = { 10, 0.999 },
	};

	check_surface("smooth", &smooth, Q, b, 1, 1);
}

/* +-3 % on both metrics and one LC sample in ten twice as slow, 8 seeds. */
static void test_noisy(void)
{
	static const struct bound b[] = {
		[GSP_SEARCH_NS] = { 50, 0.85 },
		[GSP_SEARCH_GNS] = { 20, 0.85 },
		[GSP_SEARCH_SRS] = { 20, 0.90 },
		[GSP_SEARCH_NN_NS] = { 25, 0.93 },
		[GSP_SEARCH_NN_GNS] = { 20, 0.93 },
		[GSP_SEARCH_NN_SRS] = { 15, 0.93 },
	};

	check_surface("noisy", &noisy, Q, b, 8, 1 + noisy.sigma);
}

/*
 * A BE bump at (124, 24), a local optimum on NS's way from (N, K): NS
 * and GNS stop there, the model-guided starts do not.
 */
static void test_bumpy(void)
{
	static const struct bound b[] = {
		[GSP_SEARCH_NS] = { 14, 0.80 },
		[GSP_SEARCH_GNS] = { 10, 0.80 },
		[GSP_SEARCH_SRS] = { 10, 0.999 },
		[GSP_SEARCH_NN_NS] = { 16, 0.999 },
		[GSP_SEARCH_NN_GNS] = { 10, 0.999 },
		[GSP_SEARCH_NN_SRS] = { 10, 0.999 },
	};
	struct outcome o = run(GSP_SEARCH_NS, &bumpy, Q, 1);

	check_surface("non-convex", &bumpy, Q, b, 1, 1);
	tap_ok(o.ok && o.r.chosen.cell.n == 124 && o.r.chosen.cell.k == 24,
	       "non-convex, ns: trapped at the bump (124,24) (%u,%u)",
	       o.r.chosen.cell.n, o.r.chosen.cell.k);
}

/*
 * The model sees every LC ratio 1.6 times too small, so its pick breaks
 * q: SRS finds gamma near 1/1.6 and the oracle in fewer invocations,
 * and fewer of them over q, than NS from the same pick.
 */
static void test_offset(void)
{
	static const struct bound b[] = {
		[GSP_SEARCH_NS] = { 36, 0.95 },
		[GSP_SEARCH_GNS] = { 14, 0.95 },
		[GSP_SEARCH_SRS] = { 10, 0.999 },
		[GSP_SEARCH_NN_NS] = { 55, 0.97 },
		[GSP_SEARCH_NN_GNS] = { 17, 0.97 },
		[GSP_SEARCH_NN_SRS] = { 10, 0.999 },
	};
	struct outcome o, ns;

	check_surface("offset model", &offset, Q, b, 1, 1);
	o = run(GSP_SEARCH_NN_SRS, &offset, Q, 7);
	ns = run(GSP_SEARCH_NN_NS, &offset, Q, 7);
	tap_ok(o.ok && o.r.gamma >= 0.55 && o.r.gamma <= 0.7,
	       "offset model, nn_srs: gamma %.3f in [0.55, 0.7] (1/1.6 = 0.625)",
	       o.r.gamma);
	tap_ok(o.ok && ns.ok && o.r.invocations < ns.r.invocations &&
	       o.r.violations < ns.r.violations,
	       "offset model: nn_srs takes fewer invocations (%u) and fewer over q (%u) than nn_ns (%u, %u)",
	       o.r.invocations, o.r.violations, ns.r.invocations,
	       ns.r.violations);
}

/* q below every cell's LC ratio: the least LC ratio, (N, K), and QoS not met. */
static void test_infeasible(void)
{
	enum gsp_search_method m;
	struct gsp_search_cfg cfg;
	struct gsp_search_result r;
	struct gsp_cell c;
	int ok;

	for (m = 0; m < GSP_SEARCH_NR_METHODS; m++) {
		cfg = cfg_for(m, &smooth, 0.9);
		if (m >= GSP_SEARCH_NN_NS)
			cfg.initial = (struct gsp_cell){ 100, 20 };
		rng = 11;
		ok = !gsp_search_init(&S, &cfg) && !drive(&S, &smooth) &&
		     !gsp_search_result(&S, &r) &&
		     gsp_search_next(&S, &c) == GSP_SEARCH_DONE;
		tap_ok(ok && r.end == GSP_SEARCH_CONVERGED && !r.qos_met &&
		       r.chosen.cell.n == N && r.chosen.cell.k == K &&
		       c.n == N && c.k == K && r.invocations <= 60,
		       "q = 0.9, met nowhere, %s: ends at (%u,%u), the least LC ratio, QoS not met, in %u invocations (<= 60)",
		       sim_names[m], r.chosen.cell.n, r.chosen.cell.k,
		       r.invocations);
	}
}

static void test_phase_change(void)
{
	static struct surface live;
	struct gsp_search_cfg cfg = cfg_for(GSP_SEARCH_NN_NS, &smooth, Q);
	struct gsp_search_result r;
	struct gsp_cell c, stale, at;
	double lc, be;
	int i, ok = 1;

	live = smooth;
	cfg.model_ctx = &live;
	cfg.band = HUGE_VAL;	/* 3 samples a cell, as the counts below say */
	rng = 3;
	ok = !gsp_search_init(&S, &cfg);
	/* Ten invocations in, stopping halfway through a cell. */
	for (i = 0; ok && i < 10; i++) {
		ok = gsp_search_next(&S, &c) == GSP_SEARCH_RUN;
		measure(&smooth, c, &lc, &be);
		ok = ok && !gsp_search_report(&S, c, lc, be);
	}
	gsp_search_next(&S, &stale);
	tap_ok(ok && S.ntried == 3 && S.nsamp == 1,
	       "phase change: 10 invocations in, 3 cells measured and one begun");
	memcpy(&S2, &S, sizeof(S));
	ok = !gsp_search_restart(&S2, cfg.initial) &&
	     gsp_search_next(&S2, &c) == GSP_SEARCH_RUN &&
	     c.n == cfg.initial.n && c.k == cfg.initial.k;
	tap_ok(ok, "phase change: a restart at a cell measured before measures it again (%u,%u)",
	       c.n, c.k);

	/* The model is read through model_ctx: change what it points to. */
	live = phase2;
	ok = !gsp_search_restart(&S, pick(&phase2, Q));
	ok = ok && gsp_search_next(&S, &c) == GSP_SEARCH_RUN &&
	     c.n == pick(&phase2, Q).n && c.k == pick(&phase2, Q).k;
	tap_ok(ok && gsp_search_result(&S, &r) == -ENODATA,
	       "phase change: restarts at phase 2's pick (%u,%u) with an empty cache",
	       c.n, c.k);
	tap_ok(gsp_search_report(&S, stale, 1, 1) == -EINVAL,
	       "phase change: a late report for the old phase's cell (%u,%u) is refused",
	       stale.n, stale.k);
	ok = !drive(&S, &phase2) && !gsp_search_result(&S, &r);
	truth(&phase2, r.chosen.cell, &lc, &be);
	tap_ok(ok && r.qos_met && lc <= Q && be >= 0.97 * oracle(&phase2, Q, &at) &&
	       r.invocations <= 30 && sim_tried_consistent(&S, &r),
	       "phase change: ends at (%u,%u), %.3f of phase 2's oracle, in %u invocations (<= 30), counting only phase 2",
	       r.chosen.cell.n, r.chosen.cell.k,
	       be / oracle(&phase2, Q, &at), r.invocations);
}

/* Each metric's median of three: one wild sample in three moves neither. */
static void test_median(void)
{
	struct gsp_search_cfg cfg = {
		.n_max = N, .k_max = K, .q = Q, .method = GSP_SEARCH_NS,
		.band = HUGE_VAL,
	};
	struct gsp_search_sample t;
	struct gsp_cell c;
	int ok;

	ok = !gsp_search_init(&S, &cfg) &&
	     gsp_search_next(&S, &c) == GSP_SEARCH_RUN &&
	     !gsp_search_report(&S, c, 1.0, 9) &&
	     !gsp_search_report(&S, c, 40.0, 0.5) &&
	     !gsp_search_report(&S, c, 1.2, 8) &&
	     !gsp_search_tried(&S, 0, &t);
	tap_ok(ok && t.lc_ratio == 1.2 && t.be_rate == 8 && t.samples == 3,
	       "samples (1.0, 9), (40, 0.5), (1.2, 8): medians %.1f and %.1f",
	       t.lc_ratio, t.be_rate);
}

/*
 * The cap: a cell is begun only if all its samples fit under it (the
 * band off, so every cell takes them all).
 */
static void test_cap(void)
{
	struct gsp_search_cfg cfg = cfg_for(GSP_SEARCH_NS, &smooth, Q);
	struct gsp_search_result r;
	int ok;

	cfg.max_invocations = 10;
	cfg.band = HUGE_VAL;
	rng = 5;
	ok = !gsp_search_init(&S, &cfg) && !drive(&S, &smooth) &&
	     !gsp_search_result(&S, &r);
	tap_ok(ok && r.end == GSP_SEARCH_CAPPED && r.invocations == 9 &&
	       r.cells_tried == 3 && sim_tried_consistent(&S, &r),
	       "max_invocations 10, 3 samples: capped after 3 cells, 9 invocations (%u)",
	       r.invocations);
}

/* Bad input changes nothing: the state is compared byte for byte. */
static void test_rejects(void)
{
	static const struct {
		const char *what;
		struct gsp_search_cfg cfg;
	} bad[] = {
		{ "N = 0", { .k_max = K, .q = Q } },
		{ "N = 257", { .n_max = 257, .k_max = K, .q = Q } },
		{ "K = 0", { .n_max = N, .q = Q } },
		{ "K = 33", { .n_max = N, .k_max = 33, .q = Q } },
		{ "n_step > N", { .n_max = N, .k_max = K, .n_step = 133, .q = Q } },
		{ "k_step > K", { .n_max = N, .k_max = K, .k_step = 33, .q = Q } },
		{ "q = 0", { .n_max = N, .k_max = K } },
		{ "q < 0", { .n_max = N, .k_max = K, .q = -1 } },
		{ "q NaN", { .n_max = N, .k_max = K, .q = NAN } },
		{ "q inf", { .n_max = N, .k_max = K, .q = INFINITY } },
		{ "method 6", { .n_max = N, .k_max = K, .q = Q, .method = 6 } },
		{ "gns without a model",
		  { .n_max = N, .k_max = K, .q = Q, .method = GSP_SEARCH_GNS } },
		{ "srs without a model",
		  { .n_max = N, .k_max = K, .q = Q, .method = GSP_SEARCH_SRS } },
		{ "nn_srs without a model",
		  { .n_max = N, .k_max = K, .q = Q, .method = GSP_SEARCH_NN_SRS,
		    .initial = { N, K } } },
		{ "ns with an initial cell",
		  { .n_max = N, .k_max = K, .q = Q, .initial = { N, K } } },
		{ "nn_ns without an initial cell",
		  { .n_max = N, .k_max = K, .q = Q, .method = GSP_SEARCH_NN_NS } },
		{ "nn_ns from n off the grid",
		  { .n_max = N, .k_max = K, .q = Q, .method = GSP_SEARCH_NN_NS,
		    .initial = { 130, K } } },
		{ "nn_ns from k off the grid",
		  { .n_max = N, .k_max = K, .q = Q, .method = GSP_SEARCH_NN_NS,
		    .initial = { N, 31 } } },
		{ "nn_ns from n > N",
		  { .n_max = N, .k_max = K, .q = Q, .method = GSP_SEARCH_NN_NS,
		    .initial = { N + 4, K } } },
		{ "10 samples",
		  { .n_max = N, .k_max = K, .q = Q, .samples = 10 } },
		{ "max_invocations < samples",
		  { .n_max = N, .k_max = K, .q = Q, .max_invocations = 2 } },
		{ "gns_tries 9",
		  { .n_max = N, .k_max = K, .q = Q, .gns_tries = 9 } },
		{ "srs_max_iter 65",
		  { .n_max = N, .k_max = K, .q = Q, .srs_max_iter = 65 } },
		{ "eta_down < 0",
		  { .n_max = N, .k_max = K, .q = Q, .srs_eta_down = -0.5 } },
		{ "eta_up > 1",
		  { .n_max = N, .k_max = K, .q = Q, .srs_eta_up = 1.5 } },
		{ "gamma_min > 1",
		  { .n_max = N, .k_max = K, .q = Q, .srs_gamma_min = 1.5 } },
		{ "gamma_max < 1",
		  { .n_max = N, .k_max = K, .q = Q, .srs_gamma_max = 0.5 } },
		{ "gamma_max NaN",
		  { .n_max = N, .k_max = K, .q = Q, .srs_gamma_max = NAN } },
		{ "band < 0.001",
		  { .n_max = N, .k_max = K, .q = Q, .band = 1e-4 } },
		{ "band NaN",
		  { .n_max = N, .k_max = K, .q = Q, .band = NAN } },
	};
	struct gsp_search_cfg good = cfg_for(GSP_SEARCH_NN_SRS, &smooth, Q);
	struct gsp_cell c;
	unsigned int i;
	int ok;

	memset(&S, 0x5a, sizeof(S));
	memcpy(&S2, &S, sizeof(S));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		tap_ok(gsp_search_init(&S, &bad[i].cfg) == -EINVAL &&
		       !memcmp(&S, &S2, sizeof(S)),
		       "init refuses %s, and writes nothing", bad[i].what);

	ok = !gsp_search_init(&S, &good) &&
	     gsp_search_next(&S, &c) == GSP_SEARCH_RUN &&
	     !gsp_search_report(&S, c, 1.1, 0.5);
	memcpy(&S2, &S, sizeof(S));
	ok = ok && gsp_search_report(&S, (struct gsp_cell){ N, K }, 1, 1) == -EINVAL &&
	     gsp_search_report(&S, c, NAN, 1) == -EINVAL &&
	     gsp_search_report(&S, c, 0, 1) == -EINVAL &&
	     gsp_search_report(&S, c, 1, -1) == -EINVAL &&
	     gsp_search_report(&S, c, 1, INFINITY) == -EINVAL &&
	     gsp_search_restart(&S, (struct gsp_cell){ 131, K }) == -EINVAL &&
	     gsp_search_restart(&S, (struct gsp_cell){ 0, 0 }) == -EINVAL;
	tap_ok(ok && !memcmp(&S, &S2, sizeof(S)),
	       "report refuses another cell, NaN, 0, a negative or infinite rate; restart refuses a cell off the grid; nothing changes");

	ok = !drive(&S, &smooth) &&
	     gsp_search_report(&S, c, 1, 1) == -EINVAL;
	tap_ok(ok, "report refuses a measurement once the search is done");
}

/* The defaults on 132 SMs and 32 slots: a 33 x 8 grid. */
static void test_defaults(void)
{
	struct gsp_search_cfg cfg = { .n_max = N, .k_max = K, .q = Q };
	int ok = !gsp_search_init(&S, &cfg);

	tap_ok(ok && S.cfg.n_step == 4 && S.cfg.k_step == 4 && S.cols == 33 &&
	       S.rows == 8 && S.cfg.samples == 3 &&
	       S.cfg.max_invocations == 512 && S.cfg.band == 0.02,
	       "defaults at N = 132, K = 32: n_step 4, k_step 4, 33 x 8 cells, 3 samples, cap 512, band 0.02");
	cfg.n_max = 80;
	cfg.k_max = 8;
	ok = !gsp_search_init(&S, &cfg);
	tap_ok(ok && S.cfg.n_step == 4 && S.cfg.k_step == 1 && S.cols == 20 &&
	       S.rows == 8,
	       "defaults at N = 80, K = 8 (the seed's Titan V): n_step 4, k_step 1, 20 x 8 cells");
}

/*
 * A cliff, as beside a BE of short blocks: where the LC keeps under 35 %
 * of the slots its ratio is 40 times the smooth surface's.
 */
static void cliff_cb(const void *ctx, struct gsp_cell c, double *lc,
		     double *be)
{
	(void)ctx;
	truth(&smooth, c, lc, be);
	if ((double)c.n * c.k < 0.35 * N * K)
		*lc *= 40;
}

/*
 * cfg.bound on the cliff: the same answer as without it, never more
 * requests over q or invocations; ns, which walks down to the cliff,
 * spends fewer of both and judges some cells unmeasured (srs's model
 * keeps it off the cliff either way). And one sample far over q ends a
 * cell.
 */
static void test_bound(void)
{
	static const enum gsp_search_method ms[] = {
		GSP_SEARCH_NS, GSP_SEARCH_SRS, GSP_SEARCH_NN_SRS,
	};
	struct gsp_search_result r0, r1;
	struct gsp_cell c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ms); i++) {
		struct gsp_search_cfg cfg = {
			.n_max = N, .k_max = K, .q = Q, .method = ms[i],
			.model = model, .model_ctx = &smooth,
			.initial = ms[i] == GSP_SEARCH_NN_SRS ?
				   (struct gsp_cell){ 96, 20 } :
				   (struct gsp_cell){ 0, 0 },
		};
		int ok;

		ok = !gsp_search_init(&S, &cfg) &&
		     !sim_drive(&S, cliff_cb, NULL) &&
		     !gsp_search_result(&S, &r0);
		cfg.bound = 1;
		ok = ok && !gsp_search_init(&S2, &cfg) &&
		     !sim_drive(&S2, cliff_cb, NULL) &&
		     !gsp_search_result(&S2, &r1);
		tap_ok(ok && r1.chosen.cell.n == r0.chosen.cell.n &&
		       r1.chosen.cell.k == r0.chosen.cell.k &&
		       S2.violations <= S.violations &&
		       S2.invocations <= S.invocations &&
		       (ms[i] != GSP_SEARCH_NS ||
			(S2.violations < S.violations && S2.npruned)),
		       "bound, %s on a cliff: (%u, %u) either way; %u requests over q and %u invocations, against %u and %u; %u cells judged unmeasured",
		       sim_names[ms[i]], r1.chosen.cell.n, r1.chosen.cell.k,
		       S2.violations, S2.invocations, S.violations,
		       S.invocations, S2.npruned);
	}
	{
		struct gsp_search_cfg cfg = {
			.n_max = N, .k_max = K, .q = Q,
			.method = GSP_SEARCH_NS, .bound = 1,
		};

		gsp_search_init(&S, &cfg);
		gsp_search_next(&S, &c);
		gsp_search_report(&S, c, 3.5 * Q, 0.1);
		tap_ok(S.cells[S.tried[0]].nsamp == 1 && S.ntried == 1,
		       "bound: one sample over 3 q ends its cell");
		cfg.bound = 2;
		tap_ok(gsp_search_init(&S, &cfg) == -EINVAL, "bound 2: -EINVAL");
	}
}

int main(void)
{
	test_defaults();
	test_rejects();
	test_median();
	test_cap();
	test_smooth();
	test_noisy();
	test_bumpy();
	test_offset();
	test_infeasible();
	test_phase_change();
	test_bound();
	return tap_done();
}
