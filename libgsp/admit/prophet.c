// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The Prophet schedule predictor (prophet.h), an event-driven simulation.
 *
 * Each app has at most one task in flight (tasks of an app run in
 * order), so the state is one record per app, one wave record per busy
 * group of SMs (at most one per SM) and two copy channels. Time only
 * moves forward: the loop takes the earliest pending event, advances
 * the clocks to it, ends what ended, submits what became ready, and
 * hands out SMs and channels again. That is the causality check of the
 * digest's section 3.5: a submission at time t can only change what
 * happens after t, so an event earlier than the last one is a bug.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prophet.h"

#define INF		HUGE_VAL
#define NO_APP		(-1)

enum app_state {
	A_WAIT,		/* next task ready at ->ready */
	A_KERNEL,	/* a kernel in flight */
	A_COPY,		/* a copy in flight */
	A_DONE,		/* open loop: its trace is over */
};

/* A wave: @pe SMs of one kernel, done when virtual time reaches vend. */
struct wave {
	unsigned int app;
	uint32_t pe;
	double vend;
};

struct app {
	const struct gsp_prophet_app *spec;
	const struct gsp_trace *t;
	enum app_state st;
	size_t cur;			/* the task in flight, or next */
	size_t q;			/* open loop: the current query */
	double ready;			/* A_WAIT: when cur is ready */
	double task_ready;		/* when the task in flight was */
	double qready;			/* when the current query was */
	uint64_t order;			/* submission order, for FCFS */
	uint64_t done;
	uint32_t cap;			/* SMs it may hold */
	/* kernel in flight */
	double solo, bw;		/* virtual ns per wave; B/s per SM */
	uint64_t pending;		/* blocks not yet on an SM */
	uint32_t held, nwaves;
	double kend;			/* sequential model: its end */
	/* copy in flight */
	int chan, be;
	double cend;			/* BS: virtual end; BE: wall end */
};

struct chan {
	double v;			/* BS virtual time */
	unsigned int nbs;		/* BS copies in flight */
	int running;			/* the BE copy in flight, or NO_APP */
};

struct sim {
	const struct gsp_hw *hw;
	const struct gsp_prophet_cfg *cfg;
	struct app app[GSP_PROPHET_MAX_APPS];
	unsigned int napps, open;
	double now;
	/* kernels: fluid */
	double v, s;			/* virtual time, slowdown */
	uint32_t free;
	struct wave *wave;
	unsigned int nw;
	/* kernels: sequential */
	int krun;
	struct chan chan[2];
	uint64_t order;
	struct gsp_prophet_result *res;
	gsp_prophet_obs_fn *obs;
	void *obs_arg;
};

/* Within rounding of @cur: event times are sums of many doubles. */
static int reached(double target, double cur)
{
	return target <= cur + 1e-12 * fabs(cur) + 1e-6;
}

/*
 * Solo_k: the virtual time of one wave, such that the kernel replayed
 * alone takes its dur_ns. Alone, it runs grid / (bps x sms) full waves
 * on every SM and maybe a last one on fewer, each slowed by its own
 * demand (the PE-aware calibration: a kernel that uses 7 SMs demands
 * 7 x bw, not sms x bw).
 */
static double calibrate(const struct gsp_hw *hw, const struct gsp_task *k,
			double bw)
{
	uint64_t per_wave = (uint64_t)k->blocks_per_sm * hw->sms;
	uint64_t full = k->grid / per_wave, rest = k->grid % per_wave;
	double sum = (double)full * fmax(1, bw * hw->sms / hw->dram_Bps);

	if (rest) {
		uint64_t pe = (rest + k->blocks_per_sm - 1) / k->blocks_per_sm;

		sum += fmax(1, bw * (double)pe / hw->dram_Bps);
	}
	return (double)k->dur_ns / sum;
}

static const struct gsp_task *cur_task(const struct app *a)
{
	return &a->t->task[a->cur];
}

/* The slowdown of the running waves' summed memory demand. */
static void update_slowdown(struct sim *m)
{
	double demand = 0;
	unsigned int i;

	for (i = 0; i < m->nw; i++)
		demand += m->app[m->wave[i].app].bw * m->wave[i].pe;
	m->s = fmax(1, demand / m->hw->dram_Bps);
}

/* Free SMs to the earliest-submitted kernels that can use them (Obs. 3). */
static void dispatch_kernels(struct sim *m)
{
	unsigned int i;

	if (m->cfg->model == GSP_PROPHET_SEQUENTIAL) {
		int best = NO_APP;

		if (m->krun != NO_APP)
			return;
		for (i = 0; i < m->napps; i++)
			if (m->app[i].st == A_KERNEL &&
			    (best == NO_APP || m->app[i].order <
					       m->app[best].order))
				best = (int)i;
		if (best != NO_APP) {
			struct app *a = &m->app[best];

			m->krun = best;
			a->kend = m->now + (double)cur_task(a)->dur_ns;
		}
		return;
	}
	while (m->free) {
		struct app *a = NULL;
		uint32_t bps, pe;
		uint64_t need, blocks;

		for (i = 0; i < m->napps; i++) {
			struct app *b = &m->app[i];

			if (b->st == A_KERNEL && b->pending &&
			    b->held < b->cap && (!a || b->order < a->order))
				a = b;
		}
		if (!a)
			break;
		bps = cur_task(a)->blocks_per_sm;
		need = (a->pending + bps - 1) / bps;
		pe = m->free < a->cap - a->held ? m->free : a->cap - a->held;
		if (need < pe)
			pe = (uint32_t)need;
		blocks = (uint64_t)pe * bps;
		a->pending -= blocks < a->pending ? blocks : a->pending;
		a->held += pe;
		a->nwaves++;
		m->free -= pe;
		m->wave[m->nw++] = (struct wave){ (unsigned int)(a - m->app),
						  pe, m->v + a->solo };
	}
	update_slowdown(m);
}

static int bs_running(const struct sim *m, const struct chan *c)
{
	unsigned int i;

	if (c->running != NO_APP || !c->nbs)
		return 0;
	for (i = 0; i < m->napps; i++)
		if (m->app[i].st == A_COPY && m->app[i].chan == c - m->chan &&
		    m->app[i].be)
			return 0;
	return 1;
}

/* A channel free of BE copies starts the earliest waiting one. */
static void dispatch_copies(struct sim *m)
{
	unsigned int c, i;

	for (c = 0; c < 2; c++) {
		struct chan *ch = &m->chan[c];
		int best = NO_APP;

		if (ch->running != NO_APP)
			continue;
		for (i = 0; i < m->napps; i++) {
			const struct app *a = &m->app[i];

			if (a->st == A_COPY && a->chan == (int)c && a->be &&
			    (best == NO_APP || a->order < m->app[best].order))
				best = (int)i;
		}
		if (best != NO_APP) {
			ch->running = best;
			m->app[best].cend = m->now +
				(double)cur_task(&m->app[best])->dur_ns;
		}
	}
}

static void submit(struct sim *m, struct app *a)
{
	const struct gsp_task *k = cur_task(a);

	a->task_ready = a->ready;
	a->order = m->order++;
	if (k->type == GSP_TASK_KERNEL) {
		a->st = A_KERNEL;
		a->bw = k->dram_Bps / k->pes;
		a->solo = calibrate(m->hw, k, a->bw);
		a->pending = k->grid;
		a->held = 0;
		a->nwaves = 0;
		return;
	}
	a->st = A_COPY;
	a->chan = k->type == GSP_TASK_H2D ? 0 : 1;
	a->be = k->pinned;
	if (!a->be) {
		a->cend = m->chan[a->chan].v + (double)k->dur_ns;
		m->chan[a->chan].nbs++;
	}
}

/* Task a->cur ended at m->now: the app's next task and its ready time. */
static int finish(struct sim *m, struct app *a)
{
	const struct gsp_trace *t = a->t;
	unsigned int id = (unsigned int)(a - m->app);
	double end = m->now;

	if (!reached(a->task_ready, end))
		return -EDOM;
	if (m->obs)
		m->obs(m->obs_arg, id, a->cur, a->task_ready, end);
	a->done++;
	a->st = A_WAIT;
	if (a->spec->batch) {
		a->cur = a->cur + 1 == t->ntasks ? 0 : a->cur + 1;
		/* The gap from the last task back to the first is unknown. */
		a->ready = end + (a->cur ? (double)t->task[a->cur].gap_ns : 0);
		return 0;
	}
	if (a->cur + 1 == t->query[a->q].first + t->query[a->q].ntasks) {
		if (m->cfg->model == GSP_PROPHET_FLUID2)
			end += m->cfg->query_ns;
		if (!id)
			m->res->lat_ns[a->q] = end - a->qready;
		if (++a->q == t->nqueries) {
			a->st = A_DONE;
			m->open--;
			return 0;
		}
		a->cur++;
		a->qready = fmax(a->spec->offset_ns +
				 (double)t->query[a->q].arrive_ns, end);
		a->ready = a->qready + t->query[a->q].host_ns;
		return 0;
	}
	a->cur++;
	a->ready = end + (double)t->task[a->cur].gap_ns;
	return 0;
}

/* The earliest event after m->now, or INF. */
static double next_event(const struct sim *m)
{
	double t = INF;
	unsigned int i, c;

	for (i = 0; i < m->napps; i++)
		if (m->app[i].st == A_WAIT)
			t = fmin(t, m->app[i].ready);
	if (m->cfg->model == GSP_PROPHET_SEQUENTIAL) {
		if (m->krun != NO_APP)
			t = fmin(t, m->app[m->krun].kend);
	} else if (m->nw) {
		/* the earliest virtual end gives the earliest wall end */
		double vmin = m->wave[0].vend;

		for (i = 1; i < m->nw; i++)
			if (m->wave[i].vend < vmin)
				vmin = m->wave[i].vend;
		t = fmin(t, m->now + (vmin - m->v) * m->s);
	}
	for (c = 0; c < 2; c++) {
		const struct chan *ch = &m->chan[c];

		if (ch->running != NO_APP)
			t = fmin(t, m->app[ch->running].cend);
		if (!bs_running(m, ch))
			continue;
		for (i = 0; i < m->napps; i++)
			if (m->app[i].st == A_COPY && m->app[i].chan == (int)c)
				t = fmin(t, m->now + (m->app[i].cend - ch->v) *
						  ch->nbs);
	}
	return t;
}

/*
 * Moves the clocks to @t and ends every task that ended by then. A
 * fluid end is judged by the same expression next_event() computed it
 * with, so the event that set @t always ends, whatever the rounding.
 */
static int advance(struct sim *m, double t)
{
	double dt = t - m->now, now = m->now, v = m->v, s = m->s;
	double cv[2];
	unsigned int i, c, nbs[2];
	int rc;

	for (c = 0; c < 2; c++) {
		cv[c] = m->chan[c].v;
		nbs[c] = bs_running(m, &m->chan[c]) ? m->chan[c].nbs : 0;
		if (nbs[c])
			m->chan[c].v += dt / nbs[c];
	}
	m->v += dt / s;
	m->now = t;

	/* Waves: release SMs; a kernel ends with its last wave. */
	for (i = 0; i < m->nw;) {
		struct wave *w = &m->wave[i];
		struct app *a = &m->app[w->app];

		if (!reached(now + (w->vend - v) * s, t)) {
			i++;
			continue;
		}
		a->held -= w->pe;
		a->nwaves--;
		m->free += w->pe;
		*w = m->wave[--m->nw];
		if (!a->pending && !a->nwaves) {
			rc = finish(m, a);
			if (rc)
				return rc;
		}
	}
	if (m->krun != NO_APP && reached(m->app[m->krun].kend, t)) {
		struct app *a = &m->app[m->krun];

		m->krun = NO_APP;
		rc = finish(m, a);
		if (rc)
			return rc;
	}
	for (c = 0; c < 2; c++) {
		struct chan *ch = &m->chan[c];

		if (ch->running != NO_APP &&
		    reached(m->app[ch->running].cend, t)) {
			struct app *a = &m->app[ch->running];

			ch->running = NO_APP;
			rc = finish(m, a);
			if (rc)
				return rc;
		}
		if (!nbs[c])
			continue;
		for (i = 0; i < m->napps; i++) {
			struct app *a = &m->app[i];

			if (a->st == A_COPY && a->chan == (int)c && !a->be &&
			    reached(now + (a->cend - cv[c]) * nbs[c], t)) {
				ch->nbs--;
				rc = finish(m, a);
				if (rc)
					return rc;
			}
		}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int summarize(struct sim *m)
{
	struct gsp_prophet_result *r = m->res;
	double sum = 0, *s;
	size_t i, n;

	r->end_ns = m->now;
	r->napps = m->napps;
	for (i = 0; i < m->napps; i++) {
		const struct app *a = &m->app[i];

		r->tasks[i] = a->done;
		if (m->now <= 0)
			continue;
		r->tasks_per_s[i] = (double)a->done * 1e9 / m->now;
		r->iters_per_s[i] = r->tasks_per_s[i] / (double)a->t->ntasks;
		if (a->spec->batch) {
			r->be_tasks_per_s += r->tasks_per_s[i];
			r->be_iters_per_s += r->iters_per_s[i];
		}
	}
	n = r->nq - m->cfg->skip;	/* check_apps: skip < nq */
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, r->lat_ns + m->cfg->skip, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (i = 0; i < n; i++)
		sum += s[i];
	r->lc_mean_ns = sum / (double)n;
	/* nearest rank: the ceil(0.95 n)-th smallest */
	r->lc_p95_ns = s[(95 * n + 99) / 100 - 1];
	free(s);
	return 0;
}

static int check_apps(const struct gsp_hw *hw,
		      const struct gsp_prophet_app *apps, unsigned int napps,
		      const struct gsp_prophet_cfg *cfg)
{
	unsigned int i;

	if (!napps || napps > GSP_PROPHET_MAX_APPS || apps[0].batch ||
	    !hw->sms || !(hw->dram_Bps > 0) || !apps[0].trace ||
	    cfg->skip >= apps[0].trace->nqueries)
		return -EINVAL;
	if (cfg->model != GSP_PROPHET_FLUID &&
	    cfg->model != GSP_PROPHET_SEQUENTIAL &&
	    cfg->model != GSP_PROPHET_FLUID2)
		return -EINVAL;
	if (!(cfg->query_ns >= 0) || !isfinite(cfg->query_ns))
		return -EINVAL;
	for (i = 0; i < napps; i++) {
		const struct gsp_prophet_app *a = &apps[i];

		if (!a->trace || !a->trace->ntasks || !a->trace->nqueries ||
		    !(a->offset_ns >= 0) || !isfinite(a->offset_ns))
			return -EINVAL;
		if (a->batch && (a->start_task >= a->trace->ntasks ||
				 !(a->trace->solo_end_ns > 0)))
			return -EINVAL;	/* would loop in no time */
		if (a->max_pes && cfg->model == GSP_PROPHET_SEQUENTIAL)
			return -EINVAL;
	}
	return 0;
}

int gsp_prophet_run(const struct gsp_hw *hw,
		    const struct gsp_prophet_app *apps, unsigned int napps,
		    const struct gsp_prophet_cfg *cfg,
		    struct gsp_prophet_result *res,
		    gsp_prophet_obs_fn *obs, void *obs_arg)
{
	static const struct gsp_prophet_cfg dflt = { .model = GSP_PROPHET_FLUID };
	struct sim *m;
	unsigned int i;
	int rc;

	memset(res, 0, sizeof(*res));
	if (!cfg)
		cfg = &dflt;
	rc = check_apps(hw, apps, napps, cfg);
	if (rc)
		return rc;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->wave = calloc(hw->sms, sizeof(*m->wave));
	res->nq = apps[0].trace->nqueries;
	res->lat_ns = calloc(res->nq, sizeof(*res->lat_ns));
	if (!m->wave || !res->lat_ns) {
		rc = -ENOMEM;
		goto out;
	}
	m->hw = hw;
	m->cfg = cfg;
	m->res = res;
	m->obs = obs;
	m->obs_arg = obs_arg;
	m->napps = napps;
	m->free = hw->sms;
	m->s = 1;
	m->krun = NO_APP;
	m->chan[0].running = m->chan[1].running = NO_APP;
	for (i = 0; i < napps; i++) {
		struct app *a = &m->app[i];

		a->spec = &apps[i];
		a->t = apps[i].trace;
		a->cap = apps[i].max_pes && apps[i].max_pes < hw->sms ?
			 apps[i].max_pes : hw->sms;
		a->ready = a->qready = apps[i].offset_ns;
		a->cur = apps[i].batch ? apps[i].start_task : 0;
		m->open += !apps[i].batch;
	}

	while (m->open) {
		double t = next_event(m);

		if (!(t < INF) || !reached(m->now, t)) {
			rc = -EDOM;	/* nothing can happen, or the past */
			goto out;
		}
		t = fmax(t, m->now);
		rc = advance(m, t);
		if (rc)
			goto out;
		res->events++;
		for (i = 0; i < napps && m->open; i++)
			if (m->app[i].st == A_WAIT &&
			    reached(m->app[i].ready, t))
				submit(m, &m->app[i]);
		if (!m->open)
			break;
		dispatch_kernels(m);
		dispatch_copies(m);
	}
	rc = summarize(m);
out:
	free(m->wave);
	free(m);
	if (rc)
		gsp_prophet_result_free(res);
	return rc;
}

void gsp_prophet_result_free(struct gsp_prophet_result *res)
{
	free(res->lat_ns);
	memset(res, 0, sizeof(*res));
}

/* The first task that starts at or after @at in @t's solo timeline. */
static size_t task_at(const struct gsp_trace *t, double at)
{
	double start = 0;
	size_t i;

	for (i = 0; i < t->ntasks; i++) {
		if (i)
			start += (double)t->task[i].gap_ns;
		if (start >= at)
			return i;
		start += (double)t->task[i].dur_ns;
	}
	return 0;
}

int gsp_prophet_predict(const struct gsp_hw *hw, const struct gsp_trace *lc,
			const struct gsp_trace *const *be, unsigned int nbe,
			const struct gsp_prophet_cfg *cfg,
			struct gsp_prophet_result *res)
{
	static const struct gsp_prophet_cfg dflt = { .model = GSP_PROPHET_FLUID };
	struct gsp_prophet_app apps[GSP_PROPHET_MAX_APPS] = { { 0 } };
	struct gsp_prophet_result solo;
	unsigned int i, j, nth, of;
	int rc;

	memset(res, 0, sizeof(*res));
	if (!cfg)
		cfg = &dflt;
	if (nbe > GSP_PROPHET_MAX_BE || (nbe && !be))
		return -EINVAL;
	apps[0].trace = lc;
	rc = gsp_prophet_run(hw, apps, 1, cfg, &solo, NULL, NULL);
	if (rc)
		return rc;
	for (i = 0; i < nbe; i++) {
		if (!be[i]) {
			gsp_prophet_result_free(&solo);
			return -EINVAL;
		}
		/* instance nth of the `of` copies of this trace */
		for (j = 0, nth = 0, of = 0; j < nbe; j++) {
			nth += j < i && be[j] == be[i];
			of += be[j] == be[i];
		}
		apps[i + 1].trace = be[i];
		apps[i + 1].batch = 1;
		apps[i + 1].max_pes = cfg->be_pes;
		apps[i + 1].start_task = task_at(be[i], be[i]->solo_end_ns *
						 nth / of);
	}
	rc = gsp_prophet_run(hw, apps, nbe + 1, cfg, res, NULL, NULL);
	if (!rc)
		res->lc_solo_mean_ns = solo.lc_mean_ns;
	gsp_prophet_result_free(&solo);
	return rc;
}

double gsp_prophet_target_ns(const struct gsp_prophet_target *t,
			     double lc_solo_ns)
{
	double ns = t->target_ns ? t->target_ns : t->q * lc_solo_ns;

	return t->cap_ns && t->cap_ns < ns ? t->cap_ns : ns;
}

int gsp_prophet_within(double lc_mean_ns, double target_ns)
{
	return lc_mean_ns <= target_ns * (1 + 1e-9);	/* within rounding */
}

int gsp_prophet_admit(const struct gsp_hw *hw, const struct gsp_trace *lc,
		      const struct gsp_trace *be, unsigned int kmax,
		      const struct gsp_prophet_target *target,
		      const struct gsp_prophet_cfg *cfg,
		      struct gsp_prophet_admission *out)
{
	const struct gsp_trace *list[GSP_PROPHET_MAX_BE] = { NULL };
	struct gsp_prophet_result r;
	unsigned int k;
	int rc;

	memset(out, 0, sizeof(*out));
	if (kmax > GSP_PROPHET_MAX_BE || !be || !target ||
	    !(target->q >= 0) || !(target->target_ns >= 0) ||
	    !(target->cap_ns >= 0) || (!target->q && !target->target_ns))
		return -EINVAL;
	out->k = -1;
	out->kmax = kmax;
	for (k = 0; k <= kmax; k++) {
		if (k)
			list[k - 1] = be;
		rc = gsp_prophet_predict(hw, lc, list, k, cfg, &r);
		if (rc)
			return rc;
		if (!k) {
			out->lc_solo_ns = r.lc_solo_mean_ns;
			out->target_ns = gsp_prophet_target_ns(target,
							       out->lc_solo_ns);
		}
		out->lc_mean_ns[k] = r.lc_mean_ns;
		out->be_tasks_per_s[k] = r.be_tasks_per_s;
		out->ok[k] = gsp_prophet_within(r.lc_mean_ns, out->target_ns);
		if (out->ok[k])
			out->k = (int)k;
		gsp_prophet_result_free(&r);
	}
	return 0;
}
