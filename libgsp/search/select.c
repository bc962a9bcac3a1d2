// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The initial selection, NN and LR (select.h says what each does, and
 * Documentation/search.rst why).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "select.h"

#define NF	GSP_SELECT_FEATURES
#define NC	GSP_SELECT_LR_COEFS

unsigned int gsp_select_cells(const struct gsp_select_grid *g)
{
	if (!g || g->n_max < 1 || g->n_max > GSP_SEARCH_MAX_N ||
	    g->k_max < 1 || g->k_max > GSP_SEARCH_MAX_K ||
	    g->n_step < 1 || g->n_step > g->n_max ||
	    g->k_step < 1 || g->k_step > g->k_max)
		return 0;
	return ((g->n_max - 1) / g->n_step + 1) *
	       ((g->k_max - 1) / g->k_step + 1);
}

int gsp_select_cell_index(const struct gsp_select_grid *g, struct gsp_cell c)
{
	int32_t idx;

	if (!gsp_select_cells(g))
		return -EINVAL;
	idx = gsp_grid_index(g->n_max, g->k_max, g->n_step, g->k_step, c);
	return idx < 0 ? -EINVAL : idx;
}

static struct gsp_cell cell_at(const struct gsp_select_grid *g,
			       unsigned int idx)
{
	return gsp_grid_cell(g->n_max, g->k_max, g->n_step, g->k_step, idx);
}

static int cell_ok(const struct gsp_search_pred *p)
{
	return p->lc_ratio > 0 && isfinite(p->lc_ratio) &&
	       p->be_rate >= 0 && isfinite(p->be_rate);
}

static int profile_ok(const double f[NF])
{
	int i;

	for (i = 0; i < NF; i++)
		if (!isfinite(f[i]))
			return 0;
	return 1;
}

int gsp_select_check(const struct gsp_select_set *set)
{
	unsigned int cells, i;
	size_t c, total;

	if (!set || !set->features || !set->tables || set->nr_mb < 1 ||
	    set->nr_mb > GSP_SELECT_MAX_MB)
		return -EINVAL;
	cells = gsp_select_cells(&set->grid);
	if (!cells)
		return -EINVAL;
	for (i = 0; i < set->nr_mb; i++)
		if (!profile_ok(set->features[i]))
			return -EINVAL;
	total = (size_t)set->nr_mb * set->nr_mb * cells;
	for (c = 0; c < total; c++)
		if (!cell_ok(&set->tables[c]))
			return -EINVAL;
	return 0;
}

int gsp_select_table(const struct gsp_select_set *set, unsigned int lc_mb,
		     unsigned int be_mb, const struct gsp_search_pred **out)
{
	unsigned int cells;

	if (!set || !set->tables || !out || lc_mb >= set->nr_mb ||
	    be_mb >= set->nr_mb)
		return -EINVAL;
	cells = gsp_select_cells(&set->grid);
	if (!cells)
		return -EINVAL;
	*out = set->tables + ((size_t)lc_mb * set->nr_mb + be_mb) * cells;
	return 0;
}

int gsp_select_norm_of(const struct gsp_select_set *set,
		       struct gsp_select_norm *out)
{
	struct gsp_select_norm nm;
	unsigned int i;
	int f;

	if (!out || gsp_select_check(set))
		return -EINVAL;
	for (f = 0; f < NF; f++) {
		nm.lo[f] = set->features[0][f];
		nm.hi[f] = set->features[0][f];
		for (i = 1; i < set->nr_mb; i++) {
			nm.lo[f] = fmin(nm.lo[f], set->features[i][f]);
			nm.hi[f] = fmax(nm.hi[f], set->features[i][f]);
		}
	}
	*out = nm;
	return 0;
}

/* Feature @f of @v normalised by @nm, without checks. */
static double norm1(const struct gsp_select_norm *nm, int f, double v)
{
	double r = nm->hi[f] - nm->lo[f];

	if (!(r > 0))
		return 0;
	return fmin(fmax((v - nm->lo[f]) / r, 0), 1);
}

int gsp_select_normalise(const struct gsp_select_norm *nm,
			 const double f[NF], double out[NF])
{
	double v[NF];
	int i;

	if (!nm || !f || !out || !profile_ok(f))
		return -EINVAL;
	for (i = 0; i < NF; i++) {
		if (!isfinite(nm->lo[i]) || !isfinite(nm->hi[i]) ||
		    nm->lo[i] > nm->hi[i])
			return -EINVAL;
		v[i] = norm1(nm, i, f[i]);
	}
	memcpy(out, v, sizeof(v));
	return 0;
}

/* The nearest micro-benchmark to the normalised @x, under @nm. */
static unsigned int nearest(const struct gsp_select_set *set,
			    const struct gsp_select_norm *nm, const double x[NF])
{
	unsigned int i, best = 0;
	double d, dbest = INFINITY, t;
	int f;

	for (i = 0; i < set->nr_mb; i++) {
		d = 0;
		for (f = 0; f < NF; f++) {
			t = norm1(nm, f, set->features[i][f]) - x[f];
			d += t * t;
		}
		/* Strictly less: of equal distances, the lowest index. */
		if (d < dbest) {
			dbest = d;
			best = i;
		}
	}
	return best;
}

int gsp_select_nearest(const struct gsp_select_set *set, const double f[NF],
		       unsigned int *mb)
{
	struct gsp_select_norm nm;
	double x[NF];

	if (!mb || gsp_select_norm_of(set, &nm) ||
	    gsp_select_normalise(&nm, f, x))
		return -EINVAL;
	*mb = nearest(set, &nm, x);
	return 0;
}

/* LR's 16 inputs from normalised features @xb (BE) and @xl (LC). */
static void lr_inputs(const struct gsp_select_grid *g, const double xb[NF],
		      const double xl[NF], struct gsp_cell c,
		      double x[GSP_SELECT_LR_INPUTS])
{
	memcpy(x, xb, NF * sizeof(*x));
	memcpy(x + NF, xl, NF * sizeof(*x));
	x[2 * NF] = (double)c.n / g->n_max;
	x[2 * NF + 1] = (double)c.k / g->k_max;
}

static double lr_eval(const double w[NC], const double x[GSP_SELECT_LR_INPUTS])
{
	double y = w[0];
	int i;

	for (i = 0; i < GSP_SELECT_LR_INPUTS; i++)
		y += w[i + 1] * x[i];
	return y;
}

/*
 * Solves A w = b in place for the symmetric positive definite @a by
 * Cholesky (a = L L^T, L in the lower triangle); -EINVAL if a pivot is
 * not positive.
 */
static int cholesky_solve(double a[NC][NC], const double b[NC], double w[NC])
{
	double s, y[NC];
	int i, j, k;

	for (j = 0; j < NC; j++) {
		s = a[j][j];
		for (k = 0; k < j; k++)
			s -= a[j][k] * a[j][k];
		if (!(s > 0))
			return -EINVAL;
		a[j][j] = sqrt(s);
		for (i = j + 1; i < NC; i++) {
			s = a[i][j];
			for (k = 0; k < j; k++)
				s -= a[i][k] * a[j][k];
			a[i][j] = s / a[j][j];
		}
	}
	for (i = 0; i < NC; i++) {
		s = b[i];
		for (k = 0; k < i; k++)
			s -= a[i][k] * y[k];
		y[i] = s / a[i][i];
	}
	for (i = NC - 1; i >= 0; i--) {
		s = y[i];
		for (k = i + 1; k < NC; k++)
			s -= a[k][i] * w[k];
		w[i] = s / a[i][i];
	}
	return 0;
}

int gsp_select_lr_train(const struct gsp_select_set *set,
			struct gsp_select_lr *out)
{
	double ata[NC][NC] = { { 0 } }, a2[NC][NC], atl[NC] = { 0 };
	double atb[NC] = { 0 }, xb[NF], xl[NF], z[NC], ridge = 0;
	const struct gsp_search_pred *t;
	struct gsp_select_lr lr;
	unsigned int i, j, c, cells;
	int p, r;

	if (!out || gsp_select_norm_of(set, &lr.norm))
		return -EINVAL;
	lr.grid = set->grid;
	cells = gsp_select_cells(&set->grid);
	z[0] = 1;
	for (i = 0; i < set->nr_mb; i++) {
		gsp_select_normalise(&lr.norm, set->features[i], xl);
		for (j = 0; j < set->nr_mb; j++) {
			gsp_select_normalise(&lr.norm, set->features[j], xb);
			gsp_select_table(set, i, j, &t);
			for (c = 0; c < cells; c++) {
				lr_inputs(&set->grid, xb, xl, cell_at(&set->grid, c),
					  z + 1);
				for (p = 0; p < NC; p++) {
					for (r = 0; r <= p; r++)
						ata[p][r] += z[p] * z[r];
					atl[p] += z[p] * t[c].lc_ratio;
					atb[p] += z[p] * t[c].be_rate;
				}
			}
		}
	}
	for (p = 0; p < NC; p++) {
		for (r = p + 1; r < NC; r++)
			ata[p][r] = ata[r][p];
		ridge += ata[p][p];
	}
	ridge *= GSP_SELECT_LR_RIDGE / NC;
	for (p = 1; p < NC; p++)
		ata[p][p] += ridge;
	memcpy(a2, ata, sizeof(a2));
	if (cholesky_solve(ata, atl, lr.lc) || cholesky_solve(a2, atb, lr.be))
		return -EINVAL;
	*out = lr;
	return 0;
}

int gsp_select_lr_input(const struct gsp_select_lr *lr, const double lc[NF],
			const double be[NF], struct gsp_cell c,
			double x[GSP_SELECT_LR_INPUTS])
{
	double xl[NF], xb[NF];

	if (!lr || !x || gsp_select_cell_index(&lr->grid, c) < 0 ||
	    gsp_select_normalise(&lr->norm, lc, xl) ||
	    gsp_select_normalise(&lr->norm, be, xb))
		return -EINVAL;
	lr_inputs(&lr->grid, xb, xl, c, x);
	return 0;
}

int gsp_select_bind(enum gsp_select_method m, const struct gsp_select_set *set,
		    const struct gsp_select_lr *lr, const double lc[NF],
		    const double be[NF], struct gsp_select_model *out)
{
	struct gsp_select_model b = { .method = m };
	struct gsp_select_norm nm;
	double xl[NF], xb[NF];

	if (!out)
		return -EINVAL;
	switch (m) {
	case GSP_SELECT_NN:
		if (gsp_select_norm_of(set, &nm) ||
		    gsp_select_normalise(&nm, lc, xl) ||
		    gsp_select_normalise(&nm, be, xb))
			return -EINVAL;
		b.grid = set->grid;
		b.lc_mb = nearest(set, &nm, xl);
		b.be_mb = nearest(set, &nm, xb);
		gsp_select_table(set, b.lc_mb, b.be_mb, &b.table);
		break;
	case GSP_SELECT_LR:
		if (!lr || !gsp_select_cells(&lr->grid) ||
		    gsp_select_normalise(&lr->norm, lc, xl) ||
		    gsp_select_normalise(&lr->norm, be, xb))
			return -EINVAL;
		b.grid = lr->grid;
		b.lr = lr;
		memcpy(b.x, xb, sizeof(xb));
		memcpy(b.x + NF, xl, sizeof(xl));
		break;
	default:
		return -EINVAL;
	}
	*out = b;
	return 0;
}

/* The model's prediction for cell index @idx of its grid. */
static void predict(const struct gsp_select_model *m, unsigned int idx,
		    struct gsp_search_pred *out)
{
	double x[GSP_SELECT_LR_INPUTS];

	if (m->method == GSP_SELECT_NN) {
		*out = m->table[idx];
		return;
	}
	lr_inputs(&m->grid, m->x, m->x + NF, cell_at(&m->grid, idx), x);
	out->lc_ratio = lr_eval(m->lr->lc, x);
	out->be_rate = lr_eval(m->lr->be, x);
}

void gsp_select_model(const void *ctx, struct gsp_cell c,
		      struct gsp_search_pred *out)
{
	const struct gsp_select_model *m = ctx;
	int idx = gsp_select_cell_index(&m->grid, c);

	if (idx < 0) {
		out->lc_ratio = NAN;
		out->be_rate = NAN;
		return;
	}
	predict(m, idx, out);
}

/* A bound model's pick, without checks: its index in the grid. */
static unsigned int pick(const struct gsp_select_model *m, double q,
			 struct gsp_search_pred *bp)
{
	unsigned int idx, best = 0, cells = gsp_select_cells(&m->grid);
	struct gsp_search_pred p;

	predict(m, 0, bp);
	for (idx = 1; idx < cells; idx++) {
		predict(m, idx, &p);
		if (gsp_search_prefer(q, 0, p.lc_ratio, p.be_rate,
				      bp->lc_ratio, bp->be_rate) > 0) {
			best = idx;
			*bp = p;
		}
	}
	return best;
}

static int model_ok(const struct gsp_select_model *m)
{
	if (!gsp_select_cells(&m->grid))
		return 0;
	if (m->method == GSP_SELECT_NN)
		return !!m->table;
	return m->method == GSP_SELECT_LR && m->lr;
}

int gsp_select_pick(const struct gsp_select_model *m, double q,
		    struct gsp_cell *cell, struct gsp_search_pred *pred)
{
	struct gsp_search_pred p;
	unsigned int idx;

	if (!m || !cell || !(q > 0) || !isfinite(q) || !model_ok(m))
		return -EINVAL;
	idx = pick(m, q, &p);
	*cell = cell_at(&m->grid, idx);
	if (pred)
		*pred = p;
	return 0;
}

/* The seed's relative error: |p - m| / max(p, m), 0 when both are 0. */
static double rel_err(double p, double m)
{
	double d = fmax(fabs(p), fabs(m));

	return d > 0 ? fabs(p - m) / d : 0;
}

int gsp_select_error(enum gsp_select_method m,
		     const struct gsp_select_set *set,
		     const struct gsp_select_lr *lr,
		     const struct gsp_select_pair *pairs, unsigned int nr,
		     double q, struct gsp_select_err *out)
{
	struct gsp_select_err e = { 0 };
	struct gsp_select_model b;
	struct gsp_search_pred p;
	unsigned int i, c, cells, at;
	double lc, be;

	if (!pairs || !nr || !out || !(q > 0) || !isfinite(q))
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		if (gsp_select_bind(m, set, lr, pairs[i].lc, pairs[i].be, &b) ||
		    !pairs[i].measured)
			return -EINVAL;
		cells = gsp_select_cells(&b.grid);
		for (c = 0; c < cells; c++)
			if (!cell_ok(&pairs[i].measured[c]))
				return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		gsp_select_bind(m, set, lr, pairs[i].lc, pairs[i].be, &b);
		cells = gsp_select_cells(&b.grid);
		at = pick(&b, q, &p);
		e.lc_pick += rel_err(p.lc_ratio, pairs[i].measured[at].lc_ratio);
		e.be_pick += rel_err(p.be_rate, pairs[i].measured[at].be_rate);
		lc = 0;
		be = 0;
		for (c = 0; c < cells; c++) {
			predict(&b, c, &p);
			lc += rel_err(p.lc_ratio, pairs[i].measured[c].lc_ratio);
			be += rel_err(p.be_rate, pairs[i].measured[c].be_rate);
		}
		e.lc_all += lc / cells;
		e.be_all += be / cells;
	}
	e.lc_pick /= nr;
	e.be_pick /= nr;
	e.lc_all /= nr;
	e.be_all /= nr;
	*out = e;
	return 0;
}
