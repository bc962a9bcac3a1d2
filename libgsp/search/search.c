// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The online partition search (search.h says what it does, and
 * Documentation/search.rst why each rule is what it is).
 *
 * Cells are numbered i * rows + j, for n = N - i * n_step and
 * k = K - j * k_step: index 0 is (N, K), the whole GPU to the LC, and a
 * larger i or j gives the BE more.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "search.h"

enum { PH_NS, PH_GNS, PH_SRS, PH_DONE };

#define CELL_MEASURED	0x1
#define CELL_SRS	0x2	/* SRS chose it once */
#define CELL_PRUNED	0x4	/* judged over q unmeasured (cfg.bound) */

/* What a planning step returns besides a cell to measure. */
#define PLAN_AGAIN	(-1)	/* the phase or the anchor changed: plan again */
#define PLAN_DONE	(-2)

/* The one order every choice uses (search.h says what it is). */
int gsp_search_prefer(double q, int infeasible, double lc1, double be1,
		      double lc2, double be2)
{
	int f1 = lc1 <= q, f2 = lc2 <= q;

	if (!infeasible && f1 != f2)
		return f1 - f2;
	if (!infeasible && f1) {
		if (be1 != be2)
			return be1 > be2 ? 1 : -1;
		return lc1 < lc2 ? 1 : lc1 > lc2 ? -1 : 0;
	}
	if (lc1 != lc2)
		return lc1 < lc2 ? 1 : -1;
	return be1 > be2 ? 1 : be1 < be2 ? -1 : 0;
}

static struct gsp_cell cell_of(const struct gsp_search *s, int32_t idx)
{
	return gsp_grid_cell(s->cfg.n_max, s->cfg.k_max, s->cfg.n_step,
			     s->cfg.k_step, (uint32_t)idx);
}

/* The index of @c, or -1 if it is not a cell of the grid. */
static int32_t index_of(const struct gsp_search_cfg *cfg, struct gsp_cell c)
{
	return gsp_grid_index(cfg->n_max, cfg->k_max, cfg->n_step, cfg->k_step,
			      c);
}

static int measured(const struct gsp_search *s, int32_t idx)
{
	return s->cells[idx].flags & CELL_MEASURED;
}

static void predict(const struct gsp_search *s, int32_t idx,
		    struct gsp_search_pred *p)
{
	s->cfg.model(s->cfg.model_ctx, cell_of(s, idx), p);
}

/*
 * The neighbours of @idx inside the grid, in the order they are measured
 * and in which ties go to the first: the one giving the BE more SMs
 * first, then more slots. Returns how many.
 */
static int neighbours(const struct gsp_search *s, int32_t idx, int32_t nb[8])
{
	int i = idx / s->rows, j = idx % s->rows, di, dj, m = 0;

	for (di = 1; di >= -1; di--)
		for (dj = 1; dj >= -1; dj--) {
			if (!di && !dj)
				continue;
			if (i + di < 0 || i + di >= (int)s->cols ||
			    j + dj < 0 || j + dj >= (int)s->rows)
				continue;
			nb[m++] = (i + di) * s->rows + j + dj;
		}
	return m;
}

/* @a before @b by measurement, under NS's rule for an anchor like @anchor. */
static int better(const struct gsp_search *s, int32_t a, int32_t b,
		  int32_t anchor)
{
	double q = s->cfg.q;

	if (s->cells[a].flags & CELL_PRUNED)
		return 0;	/* judged, not measured: never a move */
	return gsp_search_prefer(q, !(s->cells[anchor].lc <= q),
				 s->cells[a].lc, s->cells[a].be,
				 s->cells[b].lc, s->cells[b].be) > 0;
}

/* The best measured cell of all, the search's answer; -1 if none. */
static int32_t best_measured(const struct gsp_search *s)
{
	int32_t best = -1, c;
	unsigned int t;

	for (t = 0; t < s->ntried; t++) {
		c = s->tried[t];
		if (best < 0 ||
		    gsp_search_prefer(s->cfg.q, 0, s->cells[c].lc,
				      s->cells[c].be, s->cells[best].lc,
				      s->cells[best].be) > 0)
			best = c;
	}
	return best;
}

/*
 * NS: measure the anchor, then each untested neighbour (but those the
 * model prunes, after GNS or SRS); then move to the best measured
 * neighbour if it is better than the anchor, or stop. Each move
 * goes strictly forward in one order over cached values, so the anchor
 * never comes back to a cell: no cycle is possible.
 */
/*
 * NS after GNS or SRS (s->prune): of the anchor's @m neighbours @nb not
 * measured yet, the one the model ranks first, if it ranks above the
 * best cell measured so far; -1 if none does, and -2 if the model cannot
 * be calibrated at the anchor. The model is calibrated where it was
 * just measured: its LC ratios and BE rates are scaled by the anchor's
 * measured over predicted ones; and the LC ratio is given the band's
 * slack (divided by 1 + band), so a neighbour the model puts just over
 * q is still measured. Ranks are gsp_search_prefer()'s.
 */
static int32_t ns_worth(const struct gsp_search *s, const int32_t *nb, int m)
{
	struct gsp_search_pred p, pa;
	double ls, bs, lc, be, clc = 0, cbe = 0;
	double q = s->cfg.q, blc, bbe;
	int32_t best = best_measured(s), cand = -1;
	int t;

	predict(s, s->anchor, &pa);
	if (!(pa.lc_ratio > 0) || !(pa.be_rate > 0) ||
	    !(s->cells[s->anchor].be > 0))
		return -2;
	ls = s->cells[s->anchor].lc / pa.lc_ratio;
	bs = s->cells[s->anchor].be / pa.be_rate;
	blc = s->cells[best].lc;
	bbe = s->cells[best].be;
	for (t = 0; t < m; t++) {
		if (measured(s, nb[t]))
			continue;
		predict(s, nb[t], &p);
		lc = p.lc_ratio * ls / (1 + s->cfg.band);
		be = p.be_rate * bs;
		if (gsp_search_prefer(q, 0, lc, be, blc, bbe) <= 0)
			continue;
		if (cand < 0 || gsp_search_prefer(q, 0, lc, be, clc, cbe) > 0) {
			cand = nb[t];
			clc = lc;
			cbe = be;
		}
	}
	return cand;
}

static int32_t ns_step(struct gsp_search *s)
{
	int32_t nb[8], best = -1;
	int m, t;

	if (!measured(s, s->anchor))
		return s->anchor;
	m = neighbours(s, s->anchor, nb);
	best = s->prune ? ns_worth(s, nb, m) : -2;
	if (best >= 0)
		return best;
	for (t = 0; best == -2 && t < m; t++)
		if (!measured(s, nb[t]))
			return nb[t];
	best = -1;
	for (t = 0; t < m; t++)
		if (measured(s, nb[t]) &&
		    !(s->cells[nb[t]].flags & CELL_PRUNED) &&
		    (best < 0 || better(s, nb[t], best, s->anchor)))
			best = nb[t];
	if (best >= 0 && better(s, best, s->anchor, s->anchor)) {
		s->anchor = best;
		return PLAN_AGAIN;
	}
	s->end = GSP_SEARCH_CONVERGED;
	return PLAN_DONE;
}

/*
 * GNS's pick: the untested neighbour of the anchor that the model ranks
 * first, by NS's rule on predictions; -1 if every neighbour is tested.
 */
static int32_t gns_ranked(const struct gsp_search *s)
{
	struct gsp_search_pred p, bp = { 0 };
	int32_t nb[8], best = -1;
	int infeasible = !(s->cells[s->anchor].lc <= s->cfg.q);
	int m, t;

	m = neighbours(s, s->anchor, nb);
	for (t = 0; t < m; t++) {
		if (measured(s, nb[t]))
			continue;
		predict(s, nb[t], &p);
		if (best < 0 ||
		    gsp_search_prefer(s->cfg.q, infeasible, p.lc_ratio,
				      p.be_rate, bp.lc_ratio, bp.be_rate) > 0) {
			best = nb[t];
			bp = p;
		}
	}
	return best;
}

/*
 * GNS: measure only the neighbour the model ranks first and move there
 * if it is better; after gns_tries trials around one anchor with no
 * move (or with no untested neighbour left), refine with NS.
 */
static int32_t gns_step(struct gsp_search *s)
{
	int32_t c;

	if (!measured(s, s->anchor))
		return s->anchor;
	if (s->cand >= 0) {
		c = s->cand;
		s->cand = -1;
		if (better(s, c, s->anchor, s->anchor)) {
			s->anchor = c;
			s->tries = 0;
			return PLAN_AGAIN;
		}
		s->tries++;
	}
	if (s->tries < s->cfg.gns_tries) {
		c = gns_ranked(s);
		if (c >= 0) {
			s->cand = c;
			return c;
		}
	}
	s->phase = PH_NS;
	s->prune = isfinite(s->cfg.band);
	return PLAN_AGAIN;
}

/*
 * The model's optimum with the target scaled to @q: the greatest
 * predicted BE throughput among the cells predicted at most @q, or the
 * least predicted LC ratio if none is. Ties go to the lower index.
 */
static int32_t model_opt(const struct gsp_search *s, double q)
{
	struct gsp_search_pred p, bp = { 0 };
	int32_t idx, best = -1, cells = s->cols * s->rows;

	for (idx = 0; idx < cells; idx++) {
		predict(s, idx, &p);
		if (best < 0 || gsp_search_prefer(q, 0, p.lc_ratio, p.be_rate,
						  bp.lc_ratio, bp.be_rate) > 0) {
			best = idx;
			bp = p;
		}
	}
	return best;
}

/*
 * SRS: the measured LC ratio r of the last cell moves gamma by
 * (q / r)^eta (down by eta_down on a violation, up by eta_up otherwise),
 * clamped; the model's optimum under q * gamma is the next cell. SRS
 * stops when that cell is the last one again (converged), one it chose
 * before (a cycle), or after srs_max_iter cells; NS then refines from
 * the best cell measured.
 */
static int32_t srs_step(struct gsp_search *s)
{
	const struct gsp_search_cfg *cfg = &s->cfg;
	double r, eta;
	int32_t c;

	if (s->srs_last < 0) {
		c = s->start;
	} else {
		r = s->cells[s->srs_last].lc;
		eta = r > cfg->q ? cfg->srs_eta_down : cfg->srs_eta_up;
		s->gamma *= pow(cfg->q / r, eta);
		s->gamma = fmin(fmax(s->gamma, cfg->srs_gamma_min),
				cfg->srs_gamma_max);
		c = model_opt(s, cfg->q * s->gamma);
		if ((s->cells[c].flags & CELL_SRS) ||
		    s->srs_iter >= cfg->srs_max_iter) {
			s->anchor = best_measured(s);
			s->phase = PH_NS;
			s->prune = isfinite(s->cfg.band);
			return PLAN_AGAIN;
		}
	}
	s->cells[c].flags |= CELL_SRS;
	s->srs_last = c;
	s->srs_iter++;
	return c;
}

/* The next cell to measure, or -1 when the search is done. */
static int32_t plan(struct gsp_search *s)
{
	int32_t c;

	for (;;) {
		switch (s->phase) {
		case PH_NS:
			c = ns_step(s);
			break;
		case PH_GNS:
			c = gns_step(s);
			break;
		case PH_SRS:
			c = srs_step(s);
			break;
		default:
			return -1;
		}
		if (c == PLAN_DONE) {
			s->phase = PH_DONE;
			return -1;
		}
		if (c >= 0)
			return c;
	}
}

static int uses_model(enum gsp_search_method m)
{
	return m != GSP_SEARCH_NS && m != GSP_SEARCH_NN_NS;
}

static int from_initial(enum gsp_search_method m)
{
	return m >= GSP_SEARCH_NN_NS;
}

/* @v in [lo, hi], 0 taking @def first; NaN is out of every range. */
static int in_range(double *v, double def, double lo, double hi)
{
	if (*v == 0)
		*v = def;
	return *v >= lo && *v <= hi;
}

/* @out: @in with the defaults filled in; 0, or -EINVAL if out of range. */
static int resolve(const struct gsp_search_cfg *in, struct gsp_search_cfg *out)
{
	*out = *in;
	if (out->n_max < 1 || out->n_max > GSP_SEARCH_MAX_N ||
	    out->k_max < 1 || out->k_max > GSP_SEARCH_MAX_K)
		return -EINVAL;
	if (!out->n_step) {
		out->n_step = out->n_max / 16;
		if (out->n_step < 1)
			out->n_step = 1;
		if (out->n_step > GSP_SEARCH_N_STEP_MAX)
			out->n_step = GSP_SEARCH_N_STEP_MAX;
	}
	if (!out->k_step) {
		out->k_step = out->k_max / GSP_SEARCH_K_ROWS;
		if (out->k_step < 1)
			out->k_step = 1;
	}
	if (out->n_step > out->n_max || out->k_step > out->k_max)
		return -EINVAL;
	if (!(out->q > 0) || !isfinite(out->q) || out->tail > 1 ||
	    out->bound > 1)
		return -EINVAL;
	if ((unsigned int)out->method >= GSP_SEARCH_NR_METHODS)
		return -EINVAL;
	if (uses_model(out->method) && !out->model)
		return -EINVAL;
	if (!out->samples)
		out->samples = GSP_SEARCH_SAMPLES;
	if (out->samples > GSP_SEARCH_MAX_SAMPLES)
		return -EINVAL;
	if (!out->max_invocations)
		out->max_invocations = GSP_SEARCH_MAX_INVOC;
	if (out->max_invocations < out->samples)
		return -EINVAL;
	if (!out->gns_tries)
		out->gns_tries = GSP_SEARCH_GNS_TRIES;
	if (!out->srs_max_iter)
		out->srs_max_iter = GSP_SEARCH_SRS_ITER;
	if (out->gns_tries > GSP_SEARCH_GNS_TRIES_MAX ||
	    out->srs_max_iter > GSP_SEARCH_SRS_ITER_MAX)
		return -EINVAL;
	/*
	 * Negative values stay negative through the default, hence a lower
	 * bound above 0; gamma starts at 1, so the clamp must hold 1.
	 */
	if (!in_range(&out->srs_eta_down, GSP_SEARCH_ETA_DOWN, 1e-3, 1) ||
	    !in_range(&out->srs_eta_up, GSP_SEARCH_ETA_UP, 1e-3, 1) ||
	    !in_range(&out->srs_gamma_min, GSP_SEARCH_GAMMA_MIN, 1e-3, 1) ||
	    !in_range(&out->srs_gamma_max, GSP_SEARCH_GAMMA_MAX, 1, 1000) ||
	    !in_range(&out->band, GSP_SEARCH_BAND, 1e-3, HUGE_VAL))
		return -EINVAL;
	return 0;
}

#define START_MODEL	(-2)	/* the model's optimum, once the grid is set */

/*
 * The start for @initial under the resolved @cfg: the grid's index of
 * the nn_* pick, (N, K) for ns and gns, START_MODEL for srs. -1 if
 * @initial breaks cfg.initial's rule.
 */
static int32_t start_of(const struct gsp_search_cfg *cfg,
			struct gsp_cell initial)
{
	if (from_initial(cfg->method))
		return index_of(cfg, initial);
	if (initial.n || initial.k)
		return -1;
	return cfg->method == GSP_SEARCH_SRS ? START_MODEL : 0;
}

/* Forgets every measurement and starts at @start. */
static void begin(struct gsp_search *s, int32_t start)
{
	memset(s->cells, 0, sizeof(s->cells));
	s->ntried = 0;
	s->invocations = 0;
	s->violations = 0;
	s->npruned = 0;
	s->pending = -1;
	s->nsamp = 0;
	s->cand = -1;
	s->tries = 0;
	s->gamma = 1;
	s->srs_last = -1;
	s->srs_iter = 0;
	s->prune = 0;
	s->end = GSP_SEARCH_RUNNING;
	s->start = start == START_MODEL ? model_opt(s, s->cfg.q) : start;
	s->anchor = s->start;
	switch (s->cfg.method) {
	case GSP_SEARCH_GNS:
	case GSP_SEARCH_NN_GNS:
		s->phase = PH_GNS;
		break;
	case GSP_SEARCH_SRS:
	case GSP_SEARCH_NN_SRS:
		s->phase = PH_SRS;
		break;
	default:
		s->phase = PH_NS;
	}
}

int gsp_search_init(struct gsp_search *s, const struct gsp_search_cfg *cfg)
{
	struct gsp_search_cfg rc;
	unsigned int cols, rows;
	int32_t start;

	if (!s || !cfg || resolve(cfg, &rc))
		return -EINVAL;
	cols = (rc.n_max - 1) / rc.n_step + 1;
	rows = (rc.k_max - 1) / rc.k_step + 1;
	start = start_of(&rc, cfg->initial);
	if (start == -1)
		return -EINVAL;
	s->cfg = rc;
	s->cols = cols;
	s->rows = rows;
	begin(s, start);
	return 0;
}

int gsp_search_restart(struct gsp_search *s, struct gsp_cell initial)
{
	int32_t start;

	if (!s)
		return -EINVAL;
	start = start_of(&s->cfg, initial);
	if (start == -1)
		return -EINVAL;
	s->cfg.initial = initial;
	begin(s, start);
	return 0;
}

/*
 * cfg.bound: the measured cell, if any, judged over
 * GSP_SEARCH_BOUND_FAR x q with at least @c's SMs and slots; -1 if none.
 */
static int32_t dominated_by(const struct gsp_search *s, int32_t c)
{
	struct gsp_cell a = cell_of(s, c), b;
	unsigned int t;

	for (t = 0; t < s->ntried; t++) {
		int32_t d = s->tried[t];

		if (!(s->cells[d].lc > GSP_SEARCH_BOUND_FAR * s->cfg.q))
			continue;
		b = cell_of(s, d);
		if (a.n <= b.n && a.k <= b.k)
			return d;
	}
	return -1;
}

/* The next cell to measure; cfg.bound judges the hopeless ones unseen. */
static int32_t plan_bounded(struct gsp_search *s)
{
	int32_t c = plan(s), d;

	while (s->cfg.bound && c >= 0 && (d = dominated_by(s, c)) >= 0) {
		s->cells[c].lc = s->cells[d].lc;
		s->cells[c].be = 0;
		s->cells[c].flags |= CELL_MEASURED | CELL_PRUNED;
		s->npruned++;
		c = plan(s);
	}
	return c;
}

int gsp_search_next(struct gsp_search *s, struct gsp_cell *cell)
{
	int32_t c;

	if (!s || !cell)
		return -EINVAL;
	if (s->pending >= 0) {
		*cell = cell_of(s, s->pending);
		return GSP_SEARCH_RUN;
	}
	if (s->phase != PH_DONE) {
		/* A cell is begun only if all its samples fit. */
		if (s->invocations + s->cfg.samples > s->cfg.max_invocations) {
			s->phase = PH_DONE;
			s->end = GSP_SEARCH_CAPPED;
		} else {
			c = plan_bounded(s);
			if (c >= 0) {
				s->pending = c;
				s->nsamp = 0;
				*cell = cell_of(s, c);
				return GSP_SEARCH_RUN;
			}
		}
	}
	*cell = cell_of(s, best_measured(s));
	return GSP_SEARCH_DONE;
}

/* The median of @n values, sorted in place (n is small). */
static double greatest(const double *v, unsigned int n)
{
	double m = v[0];
	unsigned int i;

	for (i = 1; i < n; i++)
		m = fmax(m, v[i]);
	return m;
}

static double median(double *v, unsigned int n)
{
	unsigned int i, j;
	double x;

	for (i = 1; i < n; i++) {
		x = v[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Whether the pending cell has samples enough: all of cfg.samples (and
 * always, with the band HUGE_VAL); or one LC ratio below
 * q * (1 - band), which noise within the band leaves below q; or two or
 * more that agree: all on one side of q and within band * q of each
 * other. A first sample near q or over it (LC outliers are slow ones:
 * one over q may be a cell that meets it), and samples that disagree
 * (an outlier, or a cell on the boundary), take another.
 */
static int cell_done(const struct gsp_search *s)
{
	double q = s->cfg.q, band = s->cfg.band * q, lo, hi;
	unsigned int i;

	if (s->nsamp >= s->cfg.samples)
		return 1;
	if (s->cfg.bound && s->lc_s[s->nsamp - 1] > GSP_SEARCH_BOUND_FAR * q)
		return 1;	/* hopeless: no second request spent on it */
	if (!isfinite(band) || s->cfg.tail)
		return 0;
	if (s->nsamp == 1)
		return s->lc_s[0] < q - band;
	lo = hi = s->lc_s[0];
	for (i = 1; i < s->nsamp; i++) {
		lo = fmin(lo, s->lc_s[i]);
		hi = fmax(hi, s->lc_s[i]);
	}
	return (hi <= q || lo > q) && hi - lo <= band;
}

int gsp_search_report(struct gsp_search *s, struct gsp_cell cell,
		      double lc_ratio, double be_rate)
{
	double v[GSP_SEARCH_MAX_SAMPLES];
	int32_t c;

	if (!s || s->pending < 0)
		return -EINVAL;
	if (index_of(&s->cfg, cell) != s->pending)
		return -EINVAL;
	if (!(lc_ratio > 0) || !isfinite(lc_ratio) || !(be_rate >= 0) ||
	    !isfinite(be_rate))
		return -EINVAL;
	s->lc_s[s->nsamp] = lc_ratio;
	s->be_s[s->nsamp] = be_rate;
	s->nsamp++;
	s->invocations++;
	if (lc_ratio > s->cfg.q)
		s->violations++;
	if (!cell_done(s))
		return 0;
	/*
	 * Each metric's own median: one outlier in three moves neither;
	 * under tail the LC's greatest, every sample taken (cell_done()).
	 */
	c = s->pending;
	memcpy(v, s->lc_s, sizeof(v));
	s->cells[c].lc = s->cfg.tail ? greatest(v, s->nsamp) :
				       median(v, s->nsamp);
	memcpy(v, s->be_s, sizeof(v));
	s->cells[c].be = median(v, s->nsamp);
	s->cells[c].flags |= CELL_MEASURED;
	s->cells[c].nsamp = s->nsamp;
	s->tried[s->ntried++] = c;
	s->pending = -1;
	return 0;
}

int gsp_search_result(const struct gsp_search *s, struct gsp_search_result *r)
{
	int32_t best;

	if (!s || !r)
		return -EINVAL;
	best = best_measured(s);
	if (best < 0)
		return -ENODATA;
	*r = (struct gsp_search_result){
		.chosen = {
			.cell = cell_of(s, best),
			.lc_ratio = s->cells[best].lc,
			.be_rate = s->cells[best].be,
		},
		.method = s->cfg.method,
		.end = s->end,
		.qos_met = s->cells[best].lc <= s->cfg.q,
		.cells_tried = s->ntried,
		.invocations = s->invocations,
		.violations = s->violations,
		.srs_iter = s->srs_iter,
		.gamma = s->gamma,
	};
	return 0;
}

int gsp_search_tried(const struct gsp_search *s, unsigned int i,
		     struct gsp_search_sample *out)
{
	int32_t c;

	if (!s || !out)
		return -EINVAL;
	if (i >= s->ntried)
		return -ENOENT;
	c = s->tried[i];
	out->cell = cell_of(s, c);
	out->lc_ratio = s->cells[c].lc;
	out->be_rate = s->cells[c].be;
	out->samples = s->cells[c].nsamp;
	return 0;
}
