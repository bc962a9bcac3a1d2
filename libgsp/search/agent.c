// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The partition agent (agent.h): invocations out of episodes, the solo
 * reference, the search or the grid, and the watch after it is done.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "agent.h"

static unsigned int grid_cells(const struct gsp_agent *a)
{
	return a->s.cols * a->s.rows;
}

static struct gsp_cell grid_cell(const struct gsp_agent *a, unsigned int idx)
{
	const struct gsp_search_cfg *c = &a->s.cfg;

	return gsp_grid_cell(c->n_max, c->k_max, c->n_step, c->k_step, idx);
}

/* The slots a cell leaves the BE, as a share of all: its credited rate. */
double gsp_agent_be_rate(const struct gsp_agent *a, struct gsp_cell c)
{
	double all = (double)a->cfg.n_max * GSP_AGENT_K;

	if (!c.n || !c.k)
		return 0;	/* the whole device */
	return 1.0 - (double)c.n * c.k / all;
}

static double median(double *v, unsigned int n)
{
	unsigned int i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int needs_model(enum gsp_agent_method m)
{
	return m != GSP_AGENT_NS && m != GSP_AGENT_GRID;
}

/* The model's pick under the agent's q, by the search's one order. */
static struct gsp_cell model_pick(const struct gsp_agent *a)
{
	const struct gsp_search_pred *m = a->cfg.model;
	unsigned int i, best = 0;

	for (i = 1; i < grid_cells(a); i++)
		if (gsp_search_prefer(a->q, 0, m[i].lc_ratio, m[i].be_rate,
				      m[best].lc_ratio, m[best].be_rate) > 0)
			best = i;
	return grid_cell(a, best);
}

static void table_model(const void *ctx, struct gsp_cell c,
			struct gsp_search_pred *out)
{
	const struct gsp_agent *a = ctx;
	const struct gsp_search_cfg *g = &a->s.cfg;
	int32_t i = gsp_grid_index(g->n_max, g->k_max, g->n_step, g->k_step, c);

	if (i < 0) {
		out->lc_ratio = NAN;
		out->be_rate = NAN;
		return;
	}
	*out = a->cfg.model[i];
}

static void set_cell(struct gsp_agent *a, struct gsp_cell c, uint64_t now)
{
	if (c.n != a->cell.n || c.k != a->cell.k)
		a->cell_since = now;
	a->cell = c;
}

/* Done: hold @c, measured (or predicted) at LC ratio @lc. */
static void hold(struct gsp_agent *a, struct gsp_cell c, double lc,
		 uint64_t now)
{
	a->state = GSP_AGENT_DONE;
	a->chosen_lc = lc;
	a->chosen = c;
	set_cell(a, c, now);
}

/*
 * The guard's order of cells: by the slots they give the LC (n k, what
 * the BE is credited for), then by n; the whole device after all.
 */
static uint64_t guard_key(const struct gsp_agent *a, struct gsp_cell c)
{
	uint64_t nk = c.n && c.k ? (uint64_t)c.n * c.k :
		      (uint64_t)a->cfg.n_max * GSP_AGENT_K + 1;

	return nk << 16 | c.n;
}

/* The cell next to @c in the guard's order: toward the LC if @up. */
static struct gsp_cell guard_step(const struct gsp_agent *a,
				  struct gsp_cell c, int up)
{
	uint64_t key = guard_key(a, c), best_key = 0;
	struct gsp_cell best = c;
	unsigned int i;

	for (i = 0; i < grid_cells(a); i++) {
		struct gsp_cell g = grid_cell(a, i);
		uint64_t k = guard_key(a, g);

		if (up ? k > key && (!best_key || k < best_key) :
			 k < key && (!best_key || k > best_key)) {
			best = g;
			best_key = k;
		}
	}
	return best;
}

/* The search's grid and method, once q is known; 0 or -EINVAL. */
static int search_begin(struct gsp_agent *a, uint64_t now)
{
	static const enum gsp_search_method of[GSP_AGENT_NR_METHODS] = {
		[GSP_AGENT_NS] = GSP_SEARCH_NS,
		[GSP_AGENT_GNS] = GSP_SEARCH_GNS,
		[GSP_AGENT_SRS] = GSP_SEARCH_SRS,
		[GSP_AGENT_NN_NS] = GSP_SEARCH_NN_NS,
		[GSP_AGENT_NN_GNS] = GSP_SEARCH_NN_GNS,
		[GSP_AGENT_NN_SRS] = GSP_SEARCH_NN_SRS,
		[GSP_AGENT_NN] = GSP_SEARCH_NS,
		[GSP_AGENT_LR] = GSP_SEARCH_NS,
		[GSP_AGENT_GRID] = GSP_SEARCH_NS,
	};
	struct gsp_search_cfg sc = {
		.n_max = a->cfg.n_max, .k_max = GSP_AGENT_K,
		.n_step = a->cfg.n_max / GSP_AGENT_COLS, .k_step = 1,
		.q = a->q, .method = of[a->running], .tail = a->cfg.tail,
		.bound = a->cfg.bound,
		.model = a->cfg.model ? table_model : NULL, .model_ctx = a,
	};
	struct gsp_search_cfg grid;
	struct gsp_cell c;

	if (!sc.n_step)
		sc.n_step = 1;
	/* The pick needs the grid: an ns search sets it up first. */
	grid = (struct gsp_search_cfg){ .n_max = sc.n_max, .k_max = sc.k_max,
		.n_step = sc.n_step, .k_step = 1, .q = sc.q };
	if (gsp_search_init(&a->s, &grid))
		return -EINVAL;
	if (a->running >= GSP_AGENT_NN_NS && a->running <= GSP_AGENT_NN_SRS)
		sc.initial = model_pick(a);
	if (gsp_search_init(&a->s, &sc))
		return -EINVAL;
	a->state = GSP_AGENT_RUN;
	a->grid_idx = 0;
	a->grid_n = 0;
	a->nwatch = 0;
	a->guard_n = 0;
	a->guard_over = 0;
	a->guard_clean = 0;
	a->guard_wait = GSP_AGENT_GUARD_CLEAN;
	a->guard_steps = 0;
	a->guard_back = 0;
	if (a->running == GSP_AGENT_NN || a->running == GSP_AGENT_LR)
		hold(a, model_pick(a), 0, now);
	else if (a->running == GSP_AGENT_GRID)
		set_cell(a, grid_cell(a, 0), now);
	else if (gsp_search_next(&a->s, &c) == GSP_SEARCH_RUN)
		set_cell(a, c, now);
	return 0;
}

int gsp_agent_init(struct gsp_agent *a, const struct gsp_agent_cfg *cfg)
{
	if (!a || !cfg || cfg->n_max < GSP_AGENT_COLS ||
	    cfg->n_max > GSP_SEARCH_MAX_N || cfg->method < GSP_AGENT_NS ||
	    cfg->method >= GSP_AGENT_NR_METHODS ||
	    (!cfg->target_ns && !(cfg->q > 0 && isfinite(cfg->q))))
		return -EINVAL;
	if (cfg->grid_samples > GSP_AGENT_GRID_MAX || cfg->tail > 1 ||
	    cfg->guard > 1 || cfg->bound > 1 || cfg->learn_hold > 1)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	gsp_boundary_init(&a->bnd, cfg->hold_ns, cfg->learn_hold);
	if (!a->cfg.grid_samples)
		a->cfg.grid_samples = GSP_AGENT_GRID_SAMPLES;
	a->running = cfg->method;
	if (needs_model(a->running) && !cfg->model)
		a->running = GSP_AGENT_NS;
	a->state = GSP_AGENT_IDLE;
	if (cfg->solo_ns) {
		a->solo_ns = cfg->solo_ns;
		a->q = cfg->target_ns ? (double)cfg->target_ns / cfg->solo_ns :
					cfg->q;
		return search_begin(a, 0);
	}
	return 0;
}

/* The guard can move the held cell no further toward the LC. */
static int guard_top(const struct gsp_agent *a)
{
	struct gsp_cell c = guard_step(a, a->cell, 1);

	return c.n == a->cell.n && c.k == a->cell.k;
}

/* Grid: one sample of the cell measured; on to the next, or done. */
static void grid_report(struct gsp_agent *a, double r, uint64_t now)
{
	unsigned int i, best = 0;

	a->grid_s[a->grid_n++] = r;
	if (a->grid_n < a->cfg.grid_samples)
		return;
	a->grid_lc[a->grid_idx] = median(a->grid_s, a->grid_n);
	a->grid_n = 0;
	if (++a->grid_idx < grid_cells(a)) {
		set_cell(a, grid_cell(a, a->grid_idx), now);
		return;
	}
	for (i = 1; i < grid_cells(a); i++)
		if (gsp_search_prefer(a->q, 0, a->grid_lc[i],
				      gsp_agent_be_rate(a, grid_cell(a, i)),
				      a->grid_lc[best],
				      gsp_agent_be_rate(a, grid_cell(a, best))) > 0)
			best = i;
	hold(a, grid_cell(a, best), a->grid_lc[best], now);
}

/* The solo the agent timed itself, timed again under the whole device. */
static void solo_again(struct gsp_agent *a, uint64_t now)
{
	a->solo_ns = 0;
	a->nsolo = 0;
	a->state = GSP_AGENT_IDLE;
	set_cell(a, (struct gsp_cell){ 0, 0 }, now);
}

/*
 * Done: a phase change (the LC's or the BE's kernels changed) shows as
 * the median of the last GSP_AGENT_WATCH results over q by more than
 * the search's band, where the chosen cell met q when chosen, or as all
 * of them under q / 2; either restarts the search from where it
 * started. A search that found no cell meeting q is not restarted by
 * results over q: it would find none again. Under the guard, results
 * over q move the held cell instead (a new search would measure cells
 * the guard has already left, each costing requests over q), unless
 * their median is over 2 q, which is no tail, and the guard can still
 * climb: it steps one cell per two results, too slowly for a BE that
 * has just begun. After a result far over q (a->far) nothing restarts
 * it: its measurements missed the BE's heavy phases, and so would a new
 * one's; but a search that found no cell meeting q is restarted once
 * when the held cell meets q after all.
 */
static void watch(struct gsp_agent *a, double r, uint64_t now)
{
	double w[GSP_AGENT_WATCH], band = a->s.cfg.band, m;
	unsigned int i, under = 0;
	int met = a->chosen_lc <= a->q;

	if (r > a->q)
		a->violations_done++;
	a->watch[a->nwatch++ % GSP_AGENT_WATCH] = r;
	if (a->nwatch < GSP_AGENT_WATCH || a->running == GSP_AGENT_NN ||
	    a->running == GSP_AGENT_LR)
		return;
	for (i = 0; i < GSP_AGENT_WATCH; i++) {
		w[i] = a->watch[i];
		under += w[i] < a->q / 2;
	}
	m = median(w, GSP_AGENT_WATCH);
	/*
	 * The top of the grid breaks q, where the BE leaves the LC every SM
	 * and slot: a solo the agent timed itself may be no solo (its first
	 * invocations the LC's start-up: a PyTorch LC's cuDNN tuning and
	 * warm-up passes timed 0.15 ms against requests of 5 ms). Time it
	 * again, once: beside a BE that slows even the top, again and again
	 * would only loosen q.
	 */
	if (!a->cfg.solo_ns && !a->resolo && m > a->q &&
	    a->cell.n == grid_cell(a, 0).n && a->cell.k == grid_cell(a, 0).k) {
		a->resolo = 1;
		solo_again(a, now);
		return;
	}
	/*
	 * No cell met q, yet the held one now does: the search's samples
	 * were no measure of it (the LC's start-up, a BE phase that ended).
	 * Search again, once: a cell that meets q only now and then would
	 * restart it for ever.
	 */
	if (!met && !a->retried && m <= a->q) {
		a->retried = 1;
		a->restarts++;
		search_begin(a, now);
		return;
	}
	if (a->far)
		return;	/* the guard alone moves the held cell (guard()) */
	if ((met && m > a->q * (1 + band) &&
	     (!a->cfg.guard || (m > 2 * a->q && !guard_top(a)))) ||
	    under == GSP_AGENT_WATCH) {
		a->restarts++;
		search_begin(a, now);
	}
}

/* Move the held cell one step of the guard's order, if there is one. */
static void guard_move(struct gsp_agent *a, int up, uint64_t now)
{
	struct gsp_cell c = guard_step(a, a->cell, up);

	a->guard_n = 0;
	a->guard_over = 0;
	a->guard_clean = 0;
	if (c.n == a->cell.n && c.k == a->cell.k)
		return;
	/* a step back that broke q again: probe half as often */
	if (up && a->guard_back && a->guard_wait < GSP_AGENT_GUARD_WAIT)
		a->guard_wait *= 2;
	a->guard_back = !up;
	a->guard_steps += up ? 1 : -1;
	a->guard_moves++;
	set_cell(a, c, now);
}

/*
 * A result over GSP_SEARCH_BOUND_FAR x q at the held cell is no tail of
 * a cell that meets q but a BE phase the search never saw (one of short
 * blocks that leaves the LC alone for 100 ms, then takes the SMs it was
 * given): hold the top of the grid at once, one request lost, and let
 * the guard walk back down a step per clean stretch, as it does after a
 * step up. Each step down is a probe of at most a few requests; a far
 * one brings the held cell back to the top.
 */
static void far_jump(struct gsp_agent *a, uint64_t now)
{
	struct gsp_cell top = grid_cell(a, 0);
	uint64_t from = guard_key(a, a->chosen), to = guard_key(a, top);
	unsigned int i;

	a->far = 1;
	a->guard_n = 0;
	a->guard_over = 0;
	a->guard_clean = 0;
	if (a->cell.n == top.n && a->cell.k == top.k)
		return;
	if (a->guard_back && a->guard_wait < GSP_AGENT_GUARD_WAIT)
		a->guard_wait *= 2;
	a->guard_back = 0;
	/* the steps back to the chosen cell, one per cell between them */
	a->guard_steps = 0;
	for (i = 0; i < grid_cells(a); i++) {
		uint64_t k = guard_key(a, grid_cell(a, i));

		a->guard_steps += k > from && k <= to;
	}
	a->guard_moves++;
	a->far_jumps++;
	set_cell(a, top, now);
}

/*
 * Done, the guard: what the user feels is every request, and a cell
 * chosen by its median leaves the slow ones over q. More than
 * GSP_AGENT_GUARD_OVER results over q within a window of
 * GSP_AGENT_GUARD_WIN move the held cell one step toward the LC at
 * once; GSP_AGENT_GUARD_CLEAN windows with none over q move it one step
 * back, never past the chosen cell. A step back that is undone at once
 * doubles the clean windows the next one waits for, up to
 * GSP_AGENT_GUARD_WAIT: each probe costs up to two requests over q.
 */
static void guard(struct gsp_agent *a, double r, uint64_t now)
{
	if (r > GSP_SEARCH_BOUND_FAR * a->q) {
		far_jump(a, now);
		return;
	}
	a->guard_n++;
	if (r > a->q && ++a->guard_over > GSP_AGENT_GUARD_OVER) {
		guard_move(a, 1, now);
		return;
	}
	if (a->guard_n < GSP_AGENT_GUARD_WIN)
		return;
	a->guard_clean = a->guard_over ? 0 : a->guard_clean + 1;
	a->guard_n = 0;
	a->guard_over = 0;
	if (a->guard_clean >= a->guard_wait && a->guard_steps > 0)
		guard_move(a, 0, now);
}

/* An invocation is over: measure it. */
static void measure(struct gsp_agent *a, uint64_t now,
		    struct gsp_agent_rec *rec)
{
	uint64_t t = a->open_end - a->open_start;
	struct gsp_cell c;
	unsigned int i;
	double r;

	a->open = 0;
	*rec = (struct gsp_agent_rec){
		.start_ns = a->open_start, .end_ns = a->open_end,
		.cell = a->cell, .state = a->state,
		.reported = a->open_start >= a->cell_since &&
			    a->warm >= GSP_AGENT_WARM && a->bnd.done,
	};
	if (a->warm < GSP_AGENT_WARM)
		a->warm++;
	if (!rec->reported || !t)
		return;
	a->invocations++;
	if (!a->solo_ns) {
		rec->state = GSP_AGENT_SOLO;
		a->solo_s[a->nsolo++] = (double)t;
		if (a->nsolo < GSP_AGENT_SOLO_N)
			return;
		{
			double s[GSP_AGENT_SOLO_N];

			for (i = 0; i < GSP_AGENT_SOLO_N; i++)
				s[i] = (double)a->solo_s[i];
			a->solo_ns = (uint64_t)median(s, GSP_AGENT_SOLO_N);
		}
		a->q = a->cfg.target_ns ?
		       (double)a->cfg.target_ns / a->solo_ns : a->cfg.q;
		search_begin(a, now);
		return;
	}
	r = (double)t / a->solo_ns;
	rec->lc_ratio = r;
	switch (a->state) {
	case GSP_AGENT_DONE:
		watch(a, r, now);
		if (a->cfg.guard && a->state == GSP_AGENT_DONE)
			guard(a, r, now);
		return;
	case GSP_AGENT_RUN:
		break;
	default:
		return;
	}
	if (a->running == GSP_AGENT_GRID) {
		grid_report(a, r, now);
		return;
	}
	gsp_search_report(&a->s, a->cell, r, gsp_agent_be_rate(a, a->cell));
	if (gsp_search_next(&a->s, &c) == GSP_SEARCH_DONE) {
		struct gsp_search_result res;

		hold(a, c, gsp_search_result(&a->s, &res) ? 0 :
			   res.chosen.lc_ratio, now);
		return;
	}
	set_cell(a, c, now);
}

/*
 * The hold changed (boundary.h): what was measured timed other pieces of
 * work. A solo the agent timed itself is timed again, under the whole
 * device; the search starts again from its start.
 */
static void hold_moved(struct gsp_agent *a, uint64_t now)
{
	if (a->cfg.solo_ns)
		search_begin(a, now);
	else
		solo_again(a, now);
}

int gsp_agent_episode(struct gsp_agent *a, uint64_t start_ns,
		      uint64_t end_ns, struct gsp_agent_rec *rec)
{
	int closed = 0;

	if (end_ns < start_ns)
		end_ns = start_ns;
	if (a->last_end && start_ns > a->last_end &&
	    gsp_boundary_gap(&a->bnd, start_ns - a->last_end) == 2)
		hold_moved(a, start_ns);
	if (end_ns > a->last_end)
		a->last_end = end_ns;
	if (a->open && start_ns < a->open_end + a->bnd.hold_ns) {
		if (end_ns > a->open_end)
			a->open_end = end_ns;
		return 0;
	}
	if (a->open) {
		measure(a, end_ns, rec);
		closed = 1;
	}
	a->open = 1;
	a->open_start = start_ns;
	a->open_end = end_ns;
	return closed;
}

int gsp_agent_poll(struct gsp_agent *a, uint64_t now_ns, uint64_t pending_ns,
		   struct gsp_agent_rec *rec, uint64_t *next_ns)
{
	uint64_t over;

	*next_ns = UINT64_MAX;
	if (!a->open)
		return 0;
	over = a->open_end + a->bnd.hold_ns;
	/* an episode begun within the hold may still join the invocation */
	if (pending_ns > a->open_end && pending_ns < over)
		return 0;
	if (now_ns < over) {
		*next_ns = over;
		return 0;
	}
	measure(a, now_ns, rec);
	return 1;
}
