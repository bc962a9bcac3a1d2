// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-sim engine: simulated time, three engines that each run one job at a
 * time without preemption, closed-loop and periodic tenants, and the real
 * scheduling core deciding. Deterministic for a given configuration.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

struct sim_job {
	struct gsp_job j;
	bool used;
	u32 tenant;
	u32 stage;		/* TASK: the engine of this stage */
	u64 submit_ns;
	u64 actual_ns;
};

struct sim_tenant {
	struct gsp_entity e;
	struct sim_job jobs[SIM_JOBS_PER_TENANT];
	u64 next_ns;		/* next submission, U64_MAX for none */
	u64 tasks_done;
	bool finished;
	u64 *lat;
	u64 nlat, caplat;
};

struct sim_engine {
	struct sim_job *run;
	u64 start_ns, end_ns;
	int last_tenant;
};

struct sim {
	const struct sim_cfg *cfg;
	struct sim_res *res;
	struct gsp_sched s;
	struct sim_tenant t[SIM_MAX_TENANTS];
	struct sim_engine eng[GSP_ENGINE_COUNT];
	u64 rng;
	u32 nwin;
	u64 *win;		/* [tenant * nwin + window]: COMPUTE busy */
	bool overflow;
};

static u64 sim_rand(struct sim *sm)
{
	/* xorshift64* */
	sm->rng ^= sm->rng >> 12;
	sm->rng ^= sm->rng << 25;
	sm->rng ^= sm->rng >> 27;
	return sm->rng * 2685821657736338717ULL;
}

static u64 sim_jitter(struct sim *sm, u32 tn, u64 len)
{
	u32 j = sm->cfg->t[tn].jitter_permille;
	u64 r;

	if (!j || !len)
		return len;
	r = sim_rand(sm) % (2 * j + 1);
	return len * (1000 + r - j) / 1000;
}

void sim_cfg_default(struct sim_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	gsp_params_default(&cfg->p);
	cfg->duration_ns = 10000000000ULL;
	cfg->warmup_ns = 1000000000ULL;
	cfg->window_ns = 100000000ULL;
	cfg->seed = 1;
}

static struct sim_job *sim_job_get(struct sim *sm, u32 tn)
{
	struct sim_tenant *t = &sm->t[tn];
	int i;

	for (i = 0; i < SIM_JOBS_PER_TENANT; i++) {
		if (!t->jobs[i].used) {
			memset(&t->jobs[i], 0, sizeof(t->jobs[i]));
			t->jobs[i].used = true;
			t->jobs[i].tenant = tn;
			return &t->jobs[i];
		}
	}
	sm->overflow = true;
	return NULL;
}

static void sim_submit(struct sim *sm, u32 tn, u32 engine, u64 cost,
		       const u64 *task, u64 now)
{
	struct sim_job *sj = sim_job_get(sm, tn);
	int i;

	if (!sj)
		return;
	sj->j.ent = &sm->t[tn].e;
	sj->j.engine = engine;
	sj->j.cost_ns = cost;
	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		sj->j.task_ns[i] = task ? task[i] : 0;
	sj->stage = engine;
	sj->submit_ns = now;
	sj->actual_ns = sim_jitter(sm, tn, cost);
	gsp_sched_enqueue(&sm->s, &sj->j, now);
}

static void sim_start_tenant_work(struct sim *sm, u32 tn, u64 now)
{
	const struct sim_tenant_cfg *c = &sm->cfg->t[tn];
	u64 task[GSP_ENGINE_COUNT];

	switch (c->kind) {
	case SIM_LOOP:
		sim_submit(sm, tn, GSP_ENGINE_COMPUTE, c->kernel_ns, NULL, now);
		sm->t[tn].next_ns = U64_MAX;
		break;
	case SIM_LC:
		sim_submit(sm, tn, GSP_ENGINE_COMPUTE, c->kernel_ns, NULL, now);
		sm->t[tn].next_ns = now + c->period_ns;
		break;
	case SIM_TASK:
		task[GSP_ENGINE_H2D] = c->h2d_ns;
		task[GSP_ENGINE_COMPUTE] = c->kernel_ns;
		task[GSP_ENGINE_D2H] = c->d2h_ns;
		sim_submit(sm, tn, GSP_ENGINE_H2D, c->h2d_ns, task, now);
		sm->t[tn].next_ns = U64_MAX;
		break;
	}
}

static void sim_account(struct sim *sm, u32 tn, u32 engine, u64 start,
			u64 end)
{
	const struct sim_cfg *cfg = sm->cfg;
	u64 a = start > cfg->warmup_ns ? start : cfg->warmup_ns;
	u64 b = end < cfg->duration_ns ? end : cfg->duration_ns;
	u64 w, ws, we, lo, hi;

	if (b > a) {
		sm->res->t[tn].busy_ns[engine] += b - a;
		sm->res->busy_ns[engine] += b - a;
	}
	if (engine != GSP_ENGINE_COMPUTE || !sm->nwin)
		return;
	for (w = start / cfg->window_ns; w < sm->nwin; w++) {
		ws = w * cfg->window_ns;
		we = ws + cfg->window_ns;
		if (ws >= end)
			break;
		lo = start > ws ? start : ws;
		hi = end < we ? end : we;
		if (hi > lo)
			sm->win[(u64)tn * sm->nwin + w] += hi - lo;
	}
}

static void sim_lat_add(struct sim_tenant *t, u64 v)
{
	if (t->nlat == t->caplat) {
		u64 cap = t->caplat ? t->caplat * 2 : 1024;
		u64 *n = realloc(t->lat, cap * sizeof(*n));

		if (!n)
			return;
		t->lat = n;
		t->caplat = cap;
	}
	t->lat[t->nlat++] = v;
}

static void sim_complete(struct sim *sm, u32 engine, u64 now)
{
	struct sim_engine *en = &sm->eng[engine];
	struct sim_job *sj = en->run;
	u32 tn = sj->tenant;
	const struct sim_tenant_cfg *c = &sm->cfg->t[tn];
	struct sim_tenant *t = &sm->t[tn];
	u64 task[GSP_ENGINE_COUNT];
	int i;

	gsp_sched_complete(&sm->s, &sj->j, en->end_ns - en->start_ns, now);
	sim_account(sm, tn, engine, en->start_ns, en->end_ns);
	en->run = NULL;
	sm->res->t[tn].jobs++;
	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		task[i] = sj->j.task_ns[i];
	sj->used = false;

	switch (c->kind) {
	case SIM_LOOP:
		t->next_ns = now + c->think_ns;
		break;
	case SIM_LC:
		if (sj->submit_ns >= sm->cfg->warmup_ns)
			sim_lat_add(t, now - sj->submit_ns);
		break;
	case SIM_TASK:
		if (engine == GSP_ENGINE_H2D) {
			sim_submit(sm, tn, GSP_ENGINE_COMPUTE, c->kernel_ns,
				   NULL, now);
		} else if (engine == GSP_ENGINE_COMPUTE) {
			sim_submit(sm, tn, GSP_ENGINE_D2H, c->d2h_ns, NULL,
				   now);
		} else {
			t->tasks_done++;
			if (c->tasks && t->tasks_done >= c->tasks) {
				t->finished = true;
				sm->res->t[tn].done_ns = now;
			} else {
				t->next_ns = now + c->think_ns;
			}
		}
		break;
	}
	(void)task;
}

static void sim_pick_all(struct sim *sm, u64 now, u64 *retry_min)
{
	u32 e;

	for (e = 0; e < GSP_ENGINE_COUNT; e++) {
		struct sim_engine *en = &sm->eng[e];
		struct gsp_job *j;
		struct sim_job *sj;
		u64 retry = 0, len;

		if (en->run)
			continue;
		j = gsp_sched_pick(&sm->s, e, now, &retry);
		if (!j) {
			if (retry) {
				sm->res->holds++;
				if (retry < *retry_min)
					*retry_min = retry;
			}
			continue;
		}
		sj = container_of(j, struct sim_job, j);
		len = sj->actual_ns;
		if (en->last_tenant >= 0 && (u32)en->last_tenant != sj->tenant)
			len += sm->cfg->switch_ns;
		if (!len)
			len = 1;
		en->run = sj;
		en->start_ns = now;
		en->end_ns = now + len;
		en->last_tenant = (int)sj->tenant;
	}
}

static int sim_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void sim_finish(struct sim *sm)
{
	const struct sim_cfg *cfg = sm->cfg;
	struct sim_res *res = sm->res;
	double sumw = 0, sum_dev = 0;
	u64 total = 0;
	u32 i, w;
	bool all_done = true, any_task = false;

	for (i = 0; i < cfg->nr_tenants; i++) {
		const struct sim_tenant_cfg *c = &cfg->t[i];

		total += res->t[i].busy_ns[GSP_ENGINE_COMPUTE];
		if (c->kind == SIM_LOOP && !c->lc)
			sumw += c->weight;
		for (w = 0; w < GSP_ENGINE_COUNT; w++)
			res->t[i].charged_ns[w] =
				gsp_entity_charged_ns(&sm->t[i].e, w);
		if (c->kind == SIM_TASK && c->tasks) {
			any_task = true;
			if (!sm->t[i].finished)
				all_done = false;
			else if (res->t[i].done_ns > res->makespan_ns)
				res->makespan_ns = res->t[i].done_ns;
		}
	}
	if (!any_task || !all_done)
		res->makespan_ns = 0;
	for (i = 0; i < cfg->nr_tenants; i++) {
		const struct sim_tenant_cfg *c = &cfg->t[i];
		struct sim_tenant *t = &sm->t[i];

		res->t[i].share = total ?
			(double)res->t[i].busy_ns[GSP_ENGINE_COMPUTE] / total :
			0;
		res->t[i].fair = c->kind == SIM_LOOP && !c->lc && sumw ?
			c->weight / sumw : 0;
		res->t[i].tasks = t->tasks_done;
		if (t->nlat) {
			qsort(t->lat, t->nlat, sizeof(u64), sim_cmp_u64);
			res->t[i].lat_n = t->nlat;
			res->t[i].lat_p50_ns = t->lat[(t->nlat - 1) / 2];
			res->t[i].lat_p99_ns = t->lat[(t->nlat - 1) * 99 / 100];
			res->t[i].lat_max_ns = t->lat[t->nlat - 1];
		}
	}
	for (w = 0; w < GSP_ENGINE_COUNT; w++)
		res->engine_busy_ns[w] = gsp_engine_busy_ns(&sm->s, w);

	/* Per-window fairness among BE loop tenants on COMPUTE. */
	for (w = 0; w < sm->nwin; w++) {
		double wmax = 0, wt = 0;

		if ((u64)w * cfg->window_ns < cfg->warmup_ns)
			continue;
		for (i = 0; i < cfg->nr_tenants; i++)
			if (res->t[i].fair > 0)
				wt += sm->win[(u64)i * sm->nwin + w];
		if (wt <= 0)
			continue;
		for (i = 0; i < cfg->nr_tenants; i++) {
			double d;

			if (res->t[i].fair <= 0)
				continue;
			d = sm->win[(u64)i * sm->nwin + w] / wt -
			    res->t[i].fair;
			d = d < 0 ? -d : d;
			if (d > wmax)
				wmax = d;
		}
		res->windows++;
		sum_dev += wmax * 100;
		if (wmax * 100 > res->win_max_dev)
			res->win_max_dev = wmax * 100;
		if (wmax * 100 > 2.0)
			res->win_over2++;
	}
	res->win_mean_dev = res->windows ? sum_dev / res->windows : 0;
}

static int sim_check(const struct sim_cfg *cfg, char *err, size_t errlen)
{
	u32 i;

	if (gsp_params_validate(&cfg->p)) {
		snprintf(err, errlen, "invalid scheduler parameters");
		return -EINVAL;
	}
	if (!cfg->nr_tenants || cfg->nr_tenants > SIM_MAX_TENANTS) {
		snprintf(err, errlen, "need 1..%d tenants", SIM_MAX_TENANTS);
		return -EINVAL;
	}
	if (!cfg->duration_ns || !cfg->window_ns ||
	    cfg->duration_ns / cfg->window_ns > 10000000) {
		snprintf(err, errlen, "bad duration or window");
		return -EINVAL;
	}
	for (i = 0; i < cfg->nr_tenants; i++) {
		const struct sim_tenant_cfg *c = &cfg->t[i];

		if (c->kind == SIM_LC && !c->period_ns) {
			snprintf(err, errlen, "tenant %s: lc needs a period",
				 c->name);
			return -EINVAL;
		}
		if (c->kind == SIM_TASK && !c->h2d_ns) {
			snprintf(err, errlen, "tenant %s: task needs h2d > 0",
				 c->name);
			return -EINVAL;
		}
		if (c->jitter_permille > 1000) {
			snprintf(err, errlen, "tenant %s: jitter > 1000",
				 c->name);
			return -EINVAL;
		}
	}
	return 0;
}

int sim_run(const struct sim_cfg *cfg, struct sim_res *res, char *err,
	    size_t errlen)
{
	struct sim *sm;
	u64 now = 0, t, retry_min = U64_MAX;
	u32 i, e;
	int ret;

	ret = sim_check(cfg, err, errlen);
	if (ret)
		return ret;
	sm = calloc(1, sizeof(*sm));
	if (!sm) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(res, 0, sizeof(*res));
	sm->cfg = cfg;
	sm->res = res;
	sm->rng = cfg->seed ? cfg->seed : 1;
	sm->nwin = (u32)(cfg->duration_ns / cfg->window_ns);
	sm->win = calloc((size_t)cfg->nr_tenants * (sm->nwin + 1), sizeof(u64));
	if (!sm->win) {
		free(sm);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	gsp_sched_init(&sm->s, &cfg->p, 0);
	for (e = 0; e < GSP_ENGINE_COUNT; e++)
		sm->eng[e].last_tenant = -1;
	for (i = 0; i < cfg->nr_tenants; i++) {
		gsp_entity_init(&sm->t[i].e, cfg->t[i].weight, cfg->t[i].lc);
		gsp_sched_attach(&sm->s, &sm->t[i].e, 0);
		sm->t[i].next_ns = cfg->t[i].start_ns;
	}

	for (;;) {
		t = retry_min;
		for (e = 0; e < GSP_ENGINE_COUNT; e++)
			if (sm->eng[e].run && sm->eng[e].end_ns < t)
				t = sm->eng[e].end_ns;
		for (i = 0; i < cfg->nr_tenants; i++)
			if (!sm->t[i].finished && sm->t[i].next_ns < t)
				t = sm->t[i].next_ns;
		if (t == U64_MAX || t > cfg->duration_ns)
			break;
		now = t;
		if (retry_min <= now)
			retry_min = U64_MAX;
		for (e = 0; e < GSP_ENGINE_COUNT; e++)
			if (sm->eng[e].run && sm->eng[e].end_ns == now)
				sim_complete(sm, e, now);
		for (i = 0; i < cfg->nr_tenants; i++)
			if (!sm->t[i].finished && sm->t[i].next_ns == now)
				sim_start_tenant_work(sm, i, now);
		sim_pick_all(sm, now, &retry_min);
	}
	res->end_ns = now;
	sim_finish(sm);
	for (i = 0; i < cfg->nr_tenants; i++)
		free(sm->t[i].lat);
	free(sm->win);
	ret = 0;
	if (sm->overflow) {
		snprintf(err, errlen,
			 "a tenant had more than %d jobs outstanding",
			 SIM_JOBS_PER_TENANT);
		ret = -EINVAL;
	}
	free(sm);
	return ret;
}
