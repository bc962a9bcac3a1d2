/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An interpreter of random operation sequences over the core API with a
 * shadow model, shared by the property test and the libFuzzer harness.
 * Each step takes four bytes; every step ends with the invariants checked.
 */
#ifndef _GSP_CORE_OPS_H
#define _GSP_CORE_OPS_H

#include <string.h>

#include "gsp_core.h"

#define OPS_ENT		6
#define OPS_JOBS	24

enum ops_fail {
	OPS_OK,
	OPS_LOST,	/* a job vanished or appeared twice */
	OPS_ORDER,	/* a tenant's own order changed */
	OPS_CHARGE,	/* charged != busy */
	OPS_NEG,	/* a counter went negative or wrapped */
	OPS_IDLE,	/* NULL although work is ready and no hold */
};

struct ops {
	struct gsp_sched s;
	struct gsp_entity e[OPS_ENT];
	bool attached[OPS_ENT];
	u64 shadow_charged[OPS_ENT][GSP_ENGINE_COUNT];
	struct gsp_job j[OPS_JOBS];
	int st[OPS_JOBS];		/* GSP_JOB_* in the shadow */
	u64 order[OPS_JOBS];		/* shadow enqueue counter */
	u64 next_order;
	int run[GSP_ENGINE_COUNT];	/* running job index or -1 */
	u64 passed[GSP_ENGINE_COUNT];	/* gpu_ns passed to complete */
	u64 now;
	enum ops_fail fail;
	u64 steps, picks, holds;
};

static inline void ops_init(struct ops *o)
{
	struct gsp_params p;
	int i;

	memset(o, 0, sizeof(*o));
	gsp_params_default(&p);
	gsp_sched_init(&o->s, &p, 0);
	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		o->run[i] = -1;
}

static inline int ops_job_of(struct ops *o, struct gsp_job *j)
{
	if (j < o->j || j >= o->j + OPS_JOBS)
		return -1;
	return (int)(j - o->j);
}

static inline bool ops_ent_busy(struct ops *o, int e)
{
	int i;

	for (i = 0; i < OPS_JOBS; i++)
		if (o->st[i] != GSP_JOB_IDLE && o->j[i].ent == &o->e[e])
			return true;
	return false;
}

static inline void ops_check(struct ops *o)
{
	u32 q[GSP_ENGINE_COUNT] = { 0 };
	u32 eq[OPS_ENT][GSP_ENGINE_COUNT] = { { 0 } };
	u32 er[OPS_ENT][GSP_ENGINE_COUNT] = { { 0 } };
	int i, k;

	for (i = 0; i < OPS_JOBS; i++) {
		int e = (int)(o->j[i].ent - o->e);

		if (o->st[i] == GSP_JOB_IDLE)
			continue;
		if (o->j[i].state != (u32)o->st[i])
			o->fail = OPS_LOST;
		if (o->st[i] == GSP_JOB_QUEUED) {
			q[o->j[i].engine]++;
			eq[e][o->j[i].engine]++;
		} else {
			er[e][o->j[i].engine]++;
		}
	}
	for (k = 0; k < GSP_ENGINE_COUNT; k++) {
		u64 sum = 0;

		if (gsp_engine_nr_queued(&o->s, k) != q[k])
			o->fail = OPS_LOST;
		if (gsp_engine_busy_ns(&o->s, k) != o->passed[k])
			o->fail = OPS_CHARGE;
		for (i = 0; i < OPS_ENT; i++) {
			struct gsp_entity_engine *ee = &o->e[i].eng[k];

			sum += gsp_entity_charged_ns(&o->e[i], k);
			if (gsp_entity_charged_ns(&o->e[i], k) !=
			    o->shadow_charged[i][k])
				o->fail = OPS_CHARGE;
			if (ee->nr_queued != eq[i][k] ||
			    ee->nr_running != er[i][k])
				o->fail = OPS_LOST;
			if (ee->nr_queued > OPS_JOBS || ee->nr_running > 1 ||
			    ee->credit_ns < -(1LL << 61))
				o->fail = OPS_NEG;
		}
		if (o->s.eng[k].rq[0].nr_queued + o->s.eng[k].rq[1].nr_queued !=
		    q[k] || o->s.eng[k].running > 1)
			o->fail = OPS_NEG;
		(void)sum;
	}
}

static inline void ops_pick(struct ops *o, u32 eng)
{
	struct gsp_job *got;
	u64 retry = 0;
	int i, x, e;

	if (o->run[eng] >= 0)
		return;
	got = gsp_sched_pick(&o->s, eng, o->now, &retry);
	o->picks++;
	if (!got) {
		bool ready = false;

		for (i = 0; i < OPS_JOBS; i++)
			if (o->st[i] == GSP_JOB_QUEUED && o->j[i].engine == eng)
				ready = true;
		if (ready && (o->s.p.policy != GSP_POLICY_BAND ||
			      retry <= o->now ||
			      retry > o->now + o->s.p.band_wait_ns))
			o->fail = OPS_IDLE;
		if (!ready && retry)
			o->fail = OPS_IDLE;
		o->holds += retry != 0;
		return;
	}
	x = ops_job_of(o, got);
	if (x < 0 || o->st[x] != GSP_JOB_QUEUED || got->engine != eng) {
		o->fail = OPS_LOST;
		return;
	}
	e = (int)(got->ent - o->e);
	for (i = 0; i < OPS_JOBS; i++)
		if (o->st[i] == GSP_JOB_QUEUED && o->j[i].engine == eng &&
		    o->j[i].ent == got->ent && o->order[i] < o->order[x])
			o->fail = OPS_ORDER;
	(void)e;
	o->st[x] = GSP_JOB_RUNNING;
	o->run[eng] = x;
}

static inline void ops_step(struct ops *o, u8 op, u8 a, u8 b, u8 c)
{
	struct gsp_params p;
	int e = a % OPS_ENT, x = a % OPS_JOBS, k;
	u32 eng = a % GSP_ENGINE_COUNT;
	u64 gpu;

	o->steps++;
	switch (op % 11) {
	case 0:		/* attach */
		if (o->attached[e])
			break;
		gsp_entity_init(&o->e[e], 1 + b * 40U, c & 1);
		for (k = 0; k < GSP_ENGINE_COUNT; k++)
			o->shadow_charged[e][k] = 0;
		gsp_sched_attach(&o->s, &o->e[e], o->now);
		o->attached[e] = true;
		break;
	case 1:		/* detach */
		if (!o->attached[e] || ops_ent_busy(o, e))
			break;
		gsp_sched_detach(&o->s, &o->e[e], o->now);
		o->attached[e] = false;
		break;
	case 2:		/* enqueue */
	case 3:
		e = b % OPS_ENT;
		if (o->st[x] != GSP_JOB_IDLE || !o->attached[e])
			break;
		memset(&o->j[x], 0, sizeof(o->j[x]));
		o->j[x].ent = &o->e[e];
		o->j[x].engine = c % GSP_ENGINE_COUNT;
		o->j[x].cost_ns = (u64)(1 + (c >> 2)) * 37000;
		if (o->j[x].engine == GSP_ENGINE_H2D && (b & 0x40)) {
			o->j[x].task_ns[GSP_ENGINE_H2D] = o->j[x].cost_ns;
			o->j[x].task_ns[GSP_ENGINE_COMPUTE] = (u64)b * 11000;
			o->j[x].task_ns[GSP_ENGINE_D2H] = (u64)c * 7000;
		}
		gsp_sched_enqueue(&o->s, &o->j[x], o->now);
		o->st[x] = GSP_JOB_QUEUED;
		o->order[x] = ++o->next_order;
		break;
	case 4:		/* cancel */
		if (o->st[x] != GSP_JOB_QUEUED)
			break;
		gsp_sched_dequeue(&o->s, &o->j[x], o->now);
		o->st[x] = GSP_JOB_IDLE;
		break;
	case 5:		/* pick */
		ops_pick(o, eng);
		break;
	case 6:		/* complete */
		x = o->run[eng];
		if (x < 0)
			break;
		gpu = b == 255 ? (1ULL << 43) : (u64)b * c * 977;
		gsp_sched_complete(&o->s, &o->j[x], gpu, o->now);
		if (gpu > (1ULL << 42))
			gpu = 1ULL << 42;
		o->passed[eng] += gpu;
		o->shadow_charged[o->j[x].ent - o->e][eng] += gpu;
		o->st[x] = GSP_JOB_IDLE;
		o->run[eng] = -1;
		break;
	case 7:		/* time passes */
		o->now += (u64)b * b * c * 5 + 1;
		break;
	case 8:		/* live params */
		gsp_params_default(&p);
		p.policy = a % (GSP_POLICY_COUNT + 1);
		p.reorder = b & 1;
		p.window = 1 + c % 12;
		p.band_wait_ns = (u64)(b >> 1) * 20000;
		p.period_ns = 1000000ULL * (1 + (c >> 4) * 20);
		p.min_be_permille = (u32)(b >> 2) * 20;
		if (gsp_sched_set_params(&o->s, &p, o->now) !=
		    gsp_params_validate(&p))
			o->fail = OPS_LOST;
		break;
	case 9:		/* weight and class */
		if (!o->attached[e])
			break;
		gsp_sched_set_entity(&o->s, &o->e[e], 1 + b * 40U, c & 1,
				     o->now);
		break;
	case 10:	/* a running job charged part of its time */
		x = o->run[eng];
		if (x < 0)
			break;
		gpu = b == 255 ? (1ULL << 43) : (u64)b * c * 331;
		gsp_sched_progress(&o->s, &o->j[x], gpu, o->now);
		if (gpu > (1ULL << 42))
			gpu = 1ULL << 42;
		o->passed[eng] += gpu;
		o->shadow_charged[o->j[x].ent - o->e][eng] += gpu;
		break;
	}
	ops_check(o);
}

#endif /* _GSP_CORE_OPS_H */
