// SPDX-License-Identifier: GPL-2.0
/*
 * The online partition search's rules (libgsp/search/search.c), one at a
 * time, under ASan and UBSan: scripted cases on small grids whose every
 * cell's LC ratio and BE rate is set by hand, so that each assert names
 * the one cell a rule must pick. The simulated surfaces are
 * test_search.c's.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "search.h"
#include "sim.h"
#include "tap.h"

#define N	132
#define K	32
#define Q	1.5

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The search under test: about 210 KB, too large for the stack. */
static struct gsp_search S;

/*
 * Scripted cases on a small grid (n and k in 1..5, steps of 1, one
 * sample a cell), where every value is set by hand: a table of what
 * each cell measures, which is also the model where one is needed.
 */
struct table {
	double lc[6][6], be[6][6];	/* [n][k] */
};

static struct table tab;

static void table_fill(double lc, double be)
{
	int n, k;

	for (n = 0; n < 6; n++)
		for (k = 0; k < 6; k++) {
			tab.lc[n][k] = lc;
			tab.be[n][k] = be;
		}
}

static void table_model(const void *ctx, struct gsp_cell c,
			struct gsp_search_pred *out)
{
	const struct table *t = ctx;

	out->lc_ratio = t->lc[c.n][c.k];
	out->be_rate = t->be[c.n][c.k];
}

static int table_run(enum gsp_search_method m, unsigned int n_max,
		     unsigned int k_max, double q, struct gsp_cell initial,
		     struct gsp_search_result *r)
{
	struct gsp_search_cfg cfg = {
		.n_max = n_max, .k_max = k_max, .n_step = 1, .k_step = 1,
		.q = q, .method = m, .initial = initial, .samples = 1,
		.model = table_model, .model_ctx = &tab,
	};
	struct gsp_cell c;

	if (gsp_search_init(&S, &cfg))
		return -1;
	while (gsp_search_next(&S, &c) == GSP_SEARCH_RUN)
		if (gsp_search_report(&S, c, tab.lc[c.n][c.k],
				      tab.be[c.n][c.k]))
			return -1;
	return gsp_search_result(&S, r) || !sim_same_answer(&S, r) ? -1 : 0;
}

static int tried_is(unsigned int i, unsigned int n, unsigned int k)
{
	struct gsp_search_sample t;

	return !gsp_search_tried(&S, i, &t) && t.cell.n == n && t.cell.k == k;
}

/*
 * NS's region rule from a violating anchor, (3,3): the neighbour with
 * the least LC ratio, (4,4), not the one of the greatest BE rate that
 * also meets q, (2,2). The answer is still the best cell measured, (2,2),
 * not the last anchor.
 */
static void test_rule_violating(void)
{
	struct gsp_search_result r;
	int ok;

	table_fill(5, 1);
	tab.lc[3][3] = 3;
	tab.lc[2][2] = 1.9;
	tab.be[2][2] = 10;
	tab.lc[4][4] = 1;
	tab.be[4][4] = 0.1;
	ok = !table_run(GSP_SEARCH_NN_NS, 5, 5, 2, (struct gsp_cell){ 3, 3 },
			&r);
	tab.lc[3][3] = 3;
	tap_ok(ok && tried_is(9, 3, 5) && r.cells_tried == 14,
	       "violating anchor (3,3): NS moves to the least LC ratio (4,4) and measures its new neighbours from (3,5)");
	tap_ok(ok && r.chosen.cell.n == 2 && r.chosen.cell.k == 2 &&
	       r.qos_met && r.end == GSP_SEARCH_CONVERGED,
	       "violating anchor (3,3): the answer is the best cell measured, (2,2) (%u,%u), not the last anchor (4,4)",
	       r.chosen.cell.n, r.chosen.cell.k);
}

/*
 * NS's region rule from an anchor meeting q: the greatest BE rate among
 * neighbours that meet q, not (2,2)'s greater rate over q; and ties go
 * to the neighbour giving the BE more SMs, then more slots.
 */
static void test_rule_meeting(void)
{
	struct gsp_search_result r;
	int ok;

	table_fill(5, 0);
	tab.lc[3][3] = 1.5;
	tab.be[3][3] = 1;
	tab.lc[2][2] = 2.5;
	tab.be[2][2] = 10;
	tab.lc[2][4] = 1.2;
	tab.be[2][4] = 2;
	tab.lc[4][2] = 1.2;
	tab.be[4][2] = 2;
	ok = !table_run(GSP_SEARCH_NN_NS, 5, 5, 2, (struct gsp_cell){ 3, 3 },
			&r);
	tap_ok(ok && tried_is(9, 1, 3) && r.chosen.cell.n == 2 &&
	       r.chosen.cell.k == 4,
	       "anchor meeting q (3,3): NS skips (2,2) over q and takes (2,4) of the tie with (4,2), fewer SMs to the LC first (%u,%u)",
	       r.chosen.cell.n, r.chosen.cell.k);
}

/*
 * SRS on a row of 5 cells (K = 1), model LC 1.0, 1.4, 1.8, 2.2, 2.6 and
 * BE 0..4 from n = 5 down to 1, q = 2: the model's optimum is n = 3.
 */
static void srs_row(double lc3, double lc2)
{
	int n;

	table_fill(9, 0);
	for (n = 1; n <= 5; n++) {
		tab.lc[n][1] = 1 + 0.4 * (5 - n);
		tab.be[n][1] = 5 - n;
	}
	/* What n = 3 and n = 2 measure; the model keeps its values. */
	tab.lc[0][0] = lc3;
	tab.lc[0][1] = lc2;
}

static void srs_measured(void)
{
	double m3 = tab.lc[0][0], m2 = tab.lc[0][1];
	struct gsp_cell c;

	while (gsp_search_next(&S, &c) == GSP_SEARCH_RUN)
		gsp_search_report(&S, c, c.n == 3 ? m3 : c.n == 2 ? m2 :
				  tab.lc[c.n][1], tab.be[c.n][1]);
}

static void test_srs_rules(void)
{
	struct gsp_search_cfg cfg = {
		.n_max = 5, .k_max = 1, .n_step = 1, .q = 2,
		.method = GSP_SEARCH_SRS, .samples = 1, .band = HUGE_VAL,
		.model = table_model, .model_ctx = &tab,
	};
	struct gsp_search_result r;
	int ok;

	/* 1.9 at n = 3: gamma 1.026, the optimum under 2.05 is n = 3 again. */
	srs_row(1.9, 9);
	ok = !gsp_search_init(&S, &cfg);
	srs_measured();
	ok = ok && !gsp_search_result(&S, &r);
	tap_ok(ok && r.srs_iter == 1 && fabs(r.gamma - sqrt(2 / 1.9)) < 1e-9 &&
	       r.chosen.cell.n == 3 && r.cells_tried == 3,
	       "srs: n = 3 measures 1.9, gamma %.4f = (2/1.9)^0.5, its optimum repeats: 1 SRS cell, NS measures n = 4 and 2",
	       r.gamma);

	/*
	 * 1.5 at n = 3: gamma 1.155, n = 2; 2.3 there: gamma 1.004, n = 3
	 * again, a cycle: SRS stops after 2 cells and never measures n = 3
	 * twice.
	 */
	srs_row(1.5, 2.3);
	ok = !gsp_search_init(&S, &cfg);
	srs_measured();
	ok = ok && !gsp_search_result(&S, &r);
	tap_ok(ok && r.srs_iter == 2 && r.cells_tried == 3 &&
	       r.invocations == 3 && r.chosen.cell.n == 3,
	       "srs: n = 3 (1.5), n = 2 (2.3), back to n = 3 is a cycle: 2 SRS cells, 3 cells and 3 invocations in all (%u, %u, %u)",
	       r.srs_iter, r.cells_tried, r.invocations);

	/*
	 * 100 at n = 3: gamma 0.02, clamped to gamma_min; nothing is
	 * predicted under 0.25, so the least predicted LC ratio, n = 5,
	 * measures 1.0: gamma 0.125 * 2^0.5, n = 5 repeats; NS moves to
	 * n = 4, the best that meets q.
	 */
	srs_row(100, 9);
	ok = !gsp_search_init(&S, &cfg);
	srs_measured();
	ok = ok && !gsp_search_result(&S, &r);
	tap_ok(ok && fabs(r.gamma - GSP_SEARCH_GAMMA_MIN * sqrt(2)) < 1e-9 &&
	       r.srs_iter == 2 && r.chosen.cell.n == 4 && r.qos_met,
	       "srs: n = 3 measures 100, gamma clamps at %.3f, then n = 5 (1.0) lifts it to %.4f; NS ends at n = 4",
	       GSP_SEARCH_GAMMA_MIN, r.gamma);
}

/*
 * Plateaus of exact ties in both metrics (each in coarse steps): no
 * method may cycle, and NS from (5,5) stays there, since a move needs a
 * strictly better cell and its neighbours tie with it.
 */
static void test_plateau(void)
{
	enum gsp_search_method m;
	struct gsp_search_result r;
	struct gsp_cell c;
	double u, v;
	int n, k, ok;

	for (n = 1; n <= 5; n++)
		for (k = 1; k <= 5; k++) {
			u = 1 - n / 5.0;
			v = 1 - k / 5.0;
			tab.lc[n][k] = 1 + floor(1.25 * (u + v)) / 2;
			tab.be[n][k] = floor(2 * (u + v));
		}
	for (m = 0; m < GSP_SEARCH_NR_METHODS; m++) {
		c = (struct gsp_cell){ 0, 0 };
		if (m >= GSP_SEARCH_NN_NS)
			c = (struct gsp_cell){ 3, 3 };
		ok = !table_run(m, 5, 5, 1.6, c, &r) && sim_tried_consistent(&S, &r);
		tap_ok(ok && r.end == GSP_SEARCH_CONVERGED && r.qos_met &&
		       r.invocations <= 25 &&
		       (m != GSP_SEARCH_NS ||
			(r.chosen.cell.n == 5 && r.chosen.cell.k == 5)),
		       "plateaus, %s: converges at (%u,%u), BE rate %.0f, each cell once, %u invocations",
		       sim_names[m], r.chosen.cell.n, r.chosen.cell.k,
		       r.chosen.be_rate, r.invocations);
	}
}

/*
 * The band's rule, by hand (q = 1.5, band 0.1 set, 3 samples at most): a
 * first sample below 1.35 ends a cell; one near q or over it takes a
 * second, and the cell ends once its samples agree (one side of q,
 * within 0.15 of each other), or at 3.
 */
static void test_band(void)
{
	static const struct {
		double lc[3];
		unsigned int n;		/* samples the cell takes */
		double median;
	} cell[] = {
		{ { 1.0 }, 1, 1.0 },			/* far below q */
		{ { 1.34 }, 1, 1.34 },			/* just outside the band */
		{ { 1.45, 1.47 }, 2, 1.46 },		/* near q, agreeing */
		{ { 1.45, 2.9, 1.44 }, 3, 1.45 },	/* an outlier */
		{ { 1.49, 1.51, 1.52 }, 3, 1.51 },	/* either side of q */
		{ { 3.0, 3.1 }, 2, 3.05 },		/* over q, agreeing */
		{ { 1.6, 1.9, 1.7 }, 3, 1.7 },		/* over, 0.3 apart */
	};
	struct gsp_search_cfg cfg = {
		.n_max = N, .k_max = K, .q = Q, .method = GSP_SEARCH_NN_NS,
		.initial = { 100, 16 },	/* 9 cells before any move */
	};
	struct gsp_search_cfg def = cfg;
	struct gsp_search_sample t;
	struct gsp_cell c, c2;
	unsigned int i, j, inv = 0;
	int ok;

	ok = !gsp_search_init(&S, &def);
	tap_ok(ok && S.cfg.band == 0.02 && GSP_SEARCH_BAND == 0.02,
	       "band: 0.02 by default");
	cfg.band = 0.1;
	ok = !gsp_search_init(&S, &cfg);
	for (i = 0; i < ARRAY_SIZE(cell); i++) {
		ok = gsp_search_next(&S, &c) == GSP_SEARCH_RUN;
		for (j = 0; ok && j < cell[i].n; j++) {
			/* Until its last sample, the cell is named again. */
			ok = gsp_search_next(&S, &c2) == GSP_SEARCH_RUN &&
			     c2.n == c.n && c2.k == c.k &&
			     !gsp_search_report(&S, c, cell[i].lc[j], 1);
		}
		inv += cell[i].n;
		ok = ok && !gsp_search_tried(&S, i, &t);
		tap_ok(ok && t.cell.n == c.n && t.cell.k == c.k &&
		       t.samples == cell[i].n && S.invocations == inv &&
		       fabs(t.lc_ratio - cell[i].median) < 1e-12,
		       "band: first sample %.2f: %u samples (%u), LC ratio %.3f",
		       cell[i].lc[0], cell[i].n, t.samples, t.lc_ratio);
	}
}

/*
 * NS after SRS, on the row of 5 (q = 2, band 0.1, one sample a cell):
 * SRS ends at n = 3, and NS measures only the neighbours the model,
 * calibrated at n = 3, ranks above the best cell measured, with the
 * band's slack on the LC ratio.
 */
static void test_prune(void)
{
	struct gsp_search_cfg cfg = {
		.n_max = 5, .k_max = 1, .n_step = 1, .q = 2,
		.method = GSP_SEARCH_SRS, .samples = 1, .band = 0.1,
		.model = table_model, .model_ctx = &tab,
	};
	struct gsp_search_result r;
	int ok;

	/*
	 * n = 3 measures 1.9 (predicted 1.8): n = 2's 2.2 calibrates to
	 * 2.32, over q even with the slack (2.11); n = 4 gives the BE
	 * less. Uncalibrated, n = 2 (2.2 / 1.1 = 2) would be measured.
	 */
	srs_row(1.9, 9);
	ok = !gsp_search_init(&S, &cfg);
	srs_measured();
	ok = ok && !gsp_search_result(&S, &r);
	tap_ok(ok && r.cells_tried == 1 && r.chosen.cell.n == 3 &&
	       r.end == GSP_SEARCH_CONVERGED,
	       "prune: n = 3 at 1.9, n = 2 calibrated over q: NS measures no neighbour (%u cells)",
	       r.cells_tried);

	/*
	 * n = 3 measures 1.7: n = 2 calibrates to 2.08, within the slack
	 * (1.89), and measures 1.9: NS moves there; n = 1 calibrates to
	 * 2.25 (2.04 with the slack) and is not measured.
	 */
	srs_row(1.7, 1.9);
	ok = !gsp_search_init(&S, &cfg);
	srs_measured();
	ok = ok && !gsp_search_result(&S, &r);
	tap_ok(ok && r.cells_tried == 2 && tried_is(1, 2, 1) &&
	       r.chosen.cell.n == 2 && r.qos_met,
	       "prune: n = 3 at 1.7, n = 2 within the slack: NS measures it and ends there, n = 1 and n = 4 skipped (%u cells)",
	       r.cells_tried);

	/* The band HUGE_VAL: NS measures both neighbours, as before. */
	cfg.band = HUGE_VAL;
	srs_row(1.9, 9);
	ok = !gsp_search_init(&S, &cfg);
	srs_measured();
	ok = ok && !gsp_search_result(&S, &r);
	tap_ok(ok && r.cells_tried == 3,
	       "prune: with the band HUGE_VAL, NS measures n = 4 and n = 2 (%u cells)",
	       r.cells_tried);
}


int main(void)
{
	test_rule_violating();
	test_rule_meeting();
	test_srs_rules();
	test_band();
	test_prune();
	test_plateau();
	return tap_done();
}
