// SPDX-License-Identifier: GPL-2.0
/*
 * gspace scheduling core: entities, jobs, run queues, FIFO and LC priority.
 *
 * Every engine (COMPUTE, H2D, D2H) has its own queues and ledger. Each
 * entity keeps its ready jobs per engine in its own order; the core only
 * ever takes the first one, so a tenant's own order is never changed. The
 * ready tenants of an engine sit, per class (LC, BE), in the structure of
 * the current policy: nothing for FIFO (it walks the class's arrival list),
 * two round robin lists for CREDIT, a pairing heap (from GSP_BAND_RING_ON
 * tenants on, a ring of slots) and a list for BAND.
 */
#include "gsp_internal.h"
#include "gsp_knobs.h"

/**
 * gsp_params_default() - fill in the default tunables
 * @p: tunables to fill
 *
 * The knobs' defaults (gsp_knobs.h): FIFO, a 100 ms period, a 500 us BAND
 * hold, 10% for BE under LC load, CuMAS reordering off with a window of 8
 * tasks.
 */
void gsp_params_default(struct gsp_params *p)
{
	int i;

	for (i = 0; i < GSP_KNOB_COUNT; i++)
		if (gsp_knob_is_param(i))
			gsp_knob_param_set(p, i, gsp_knobs[i].def);
}

/**
 * gsp_params_validate() - check a set of tunables
 * @p: tunables
 *
 * Return: 0 if all fields are in range, else -EINVAL.
 */
int gsp_params_validate(const struct gsp_params *p)
{
	if (p->policy >= GSP_POLICY_COUNT)
		return -EINVAL;
	if (p->period_ns < GSP_PERIOD_MIN_NS || p->period_ns > GSP_PERIOD_MAX_NS)
		return -EINVAL;
	if (p->band_wait_ns > GSP_BAND_WAIT_MAX_NS ||
	    p->band_wait_ns >= p->period_ns)
		return -EINVAL;
	if (p->min_be_permille > 1000)
		return -EINVAL;
	if (p->reorder > 1)
		return -EINVAL;
	if (p->window < 1 || p->window > GSP_CUMAS_MAX_WINDOW)
		return -EINVAL;
	return 0;
}

static void gsp_engine_init(struct gsp_engine_state *es, u64 now_ns)
{
	int c;

	for (c = 0; c < GSP_CLASS_COUNT; c++) {
		INIT_LIST_HEAD(&es->rq[c].fifo);
		INIT_LIST_HEAD(&es->rq[c].pos);
		INIT_LIST_HEAD(&es->rq[c].neg);
		gsp_band_init(&es->rq[c].band, GSP_BAND_GRAIN_INIT);
		es->rq[c].nr_queued = 0;
		es->rq[c].period_busy_ns = 0;
		es->rq[c].active_weight = 0;
	}
	es->next_seq = 0;
	es->period_start_ns = now_ns;
	es->running = 0;
	es->cur_ent = NULL;
	es->lc_busy_ns = 0;
	es->be_busy_ns = 0;
	es->gen = 1;
	es->picks = 0;
	es->queued_cost_ns = 0;
	es->run_start_ns = 0;
	es->run_cost_ns = 0;
	es->last = NULL;
	es->last_done_ns = 0;
	es->busy_ns = 0;
}

/**
 * gsp_sched_init() - initialise a scheduler
 * @s: scheduler, embedded by the host
 * @p: tunables; must be valid, else the defaults are used
 * @now_ns: current time
 */
void gsp_sched_init(struct gsp_sched *s, const struct gsp_params *p,
		    u64 now_ns)
{
	int i;

	if (GSP_WARN_ON(gsp_params_validate(p)))
		gsp_params_default(&s->p);
	else
		s->p = *p;
	INIT_LIST_HEAD(&s->entities);
	s->nr_entities = 0;
	s->total_weight = 0;
	s->class_weight[GSP_CLASS_BE] = 0;
	s->class_weight[GSP_CLASS_LC] = 0;
	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		gsp_engine_init(&s->eng[i], now_ns);
	s->cumas.nodes = 0;
}

/**
 * gsp_rq_add() - put an entity with ready jobs into its class's run queue
 * @s: scheduler
 * @engine: engine
 * @e: entity; not in a run queue, at least one ready job
 *
 * Places it by the current policy and its credit.
 */
void gsp_rq_add(struct gsp_sched *s, u32 engine, struct gsp_entity *e)
{
	struct gsp_entity_engine *ee = &e->eng[engine];
	struct gsp_class_rq *rq = &s->eng[engine].rq[gsp_class_of(e)];

	if (GSP_WARN_ON(ee->where != GSP_RQ_NONE || !ee->nr_queued))
		return;
	switch (s->p.policy) {
	case GSP_POLICY_CREDIT:
		if (ee->credit_ns > 0) {
			list_add_tail(&ee->rq_node, &rq->pos);
			ee->where = GSP_RQ_POS;
		} else {
			list_add_tail(&ee->rq_node, &rq->neg);
			ee->where = GSP_RQ_NEG;
		}
		break;
	case GSP_POLICY_BAND:
		if (ee->credit_ns > 0) {
			gsp_band_add(&rq->band, ee);
		} else {
			list_add_tail(&ee->rq_node, &rq->neg);
			ee->where = GSP_RQ_NEG;
		}
		break;
	default:
		ee->where = GSP_RQ_FIFO;
		break;
	}
}

/**
 * gsp_rq_remove() - take an entity out of its class's run queue
 * @s: scheduler
 * @engine: engine
 * @e: entity; a no-op if it is in none
 */
void gsp_rq_remove(struct gsp_sched *s, u32 engine, struct gsp_entity *e)
{
	struct gsp_entity_engine *ee = &e->eng[engine];
	struct gsp_class_rq *rq = &s->eng[engine].rq[gsp_class_of(e)];

	switch (ee->where) {
	case GSP_RQ_POS:
	case GSP_RQ_NEG:
		list_del_init(&ee->rq_node);
		break;
	case GSP_RQ_LOW:
	case GSP_RQ_SLOT:
	case GSP_RQ_HIGH:
		gsp_band_del(&rq->band, ee);
		break;
	default:
		break;
	}
	ee->where = GSP_RQ_NONE;
}

/**
 * gsp_rq_all_engine() - take every ready entity out of, or back into, the
 * run queues of one engine
 * @s: scheduler
 * @engine: GSP_ENGINE_*
 * @add: put back (true) or take out (false)
 */
void gsp_rq_all_engine(struct gsp_sched *s, u32 engine, bool add)
{
	struct gsp_entity *e;

	list_for_each_entry(e, &s->entities, node) {
		if (!e->eng[engine].nr_queued)
			continue;
		if (add)
			gsp_rq_add(s, engine, e);
		else
			gsp_rq_remove(s, engine, e);
	}
}

/**
 * gsp_sched_set_params() - change the tunables live
 * @s: scheduler
 * @p: new tunables
 * @now_ns: current time
 *
 * Queued and running jobs stay where they are; ready tenants are moved
 * into the run queues of the new policy.
 *
 * Return: 0, or -EINVAL (and nothing changed) if @p is invalid.
 */
int gsp_sched_set_params(struct gsp_sched *s, const struct gsp_params *p,
			 u64 now_ns)
{
	int i;

	if (gsp_params_validate(p))
		return -EINVAL;
	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		gsp_credit_period_update(s, i, now_ns);
	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		gsp_rq_all_engine(s, i, false);
	s->p = *p;
	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		gsp_rq_all_engine(s, i, true);
	return 0;
}

/**
 * gsp_entity_init() - initialise an entity before it is attached
 * @e: entity, embedded by the host
 * @weight: share relative to other tenants, 1..GSP_WEIGHT_MAX (clamped)
 * @lc: latency critical
 */
void gsp_entity_init(struct gsp_entity *e, u32 weight, bool lc)
{
	int i;

	e->weight = clamp_t(u32, weight, 1, GSP_WEIGHT_MAX);
	e->lc = lc;
	e->attached = false;
	INIT_LIST_HEAD(&e->node);
	for (i = 0; i < GSP_ENGINE_COUNT; i++) {
		struct gsp_entity_engine *ee = &e->eng[i];

		ee->owner = e;
		INIT_LIST_HEAD(&ee->queue);
		INIT_LIST_HEAD(&ee->rq_node);
		ee->hnode.child = NULL;
		ee->hnode.sibling = NULL;
		ee->hnode.prev = NULL;
		ee->nr_queued = 0;
		ee->nr_running = 0;
		ee->credit_ns = 0;
		ee->charged_ns = 0;
		ee->period_used_ns = 0;
		ee->where = GSP_RQ_NONE;
		ee->active_gen = 0;
		ee->last_pick = 0;
	}
}

/**
 * gsp_sched_attach() - add an entity to a scheduler
 * @s: scheduler
 * @e: initialised, detached entity
 * @now_ns: current time
 *
 * It starts with its default share of one period as credit on every
 * engine, so a newcomer neither waits nor monopolises.
 */
void gsp_sched_attach(struct gsp_sched *s, struct gsp_entity *e, u64 now_ns)
{
	int i;

	if (GSP_WARN_ON(e->attached))
		return;
	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		gsp_credit_period_update(s, i, now_ns);
	e->attached = true;
	list_add_tail(&e->node, &s->entities);
	s->nr_entities++;
	s->total_weight += e->weight;
	s->class_weight[gsp_class_of(e)] += e->weight;
	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		e->eng[i].credit_ns = gsp_credit_default(s, e->weight,
							 s->total_weight);
}

/**
 * gsp_sched_detach() - remove an idle entity from a scheduler
 * @s: scheduler
 * @e: attached entity with no queued and no running job
 * @now_ns: current time
 */
void gsp_sched_detach(struct gsp_sched *s, struct gsp_entity *e, u64 now_ns)
{
	int i;

	if (GSP_WARN_ON(!e->attached))
		return;
	for (i = 0; i < GSP_ENGINE_COUNT; i++) {
		struct gsp_entity_engine *ee = &e->eng[i];
		struct gsp_engine_state *es = &s->eng[i];

		if (GSP_WARN_ON(ee->nr_queued || ee->nr_running))
			return;
		gsp_credit_period_update(s, i, now_ns);
		if (ee->active_gen == es->gen)
			es->rq[gsp_class_of(e)].active_weight -= e->weight;
		ee->active_gen = 0;
		if (es->last == e)
			es->last = NULL;
	}
	list_del_init(&e->node);
	s->nr_entities--;
	s->total_weight -= e->weight;
	s->class_weight[gsp_class_of(e)] -= e->weight;
	e->attached = false;
}

/* Moves @e's ready jobs on @engine from the arrival list of one class to
 * the other's, keeping arrival order.
 */
static void gsp_move_class(struct gsp_sched *s, u32 engine,
			   struct gsp_entity *e, enum gsp_class from)
{
	struct gsp_engine_state *es = &s->eng[engine];
	struct gsp_class_rq *to = &es->rq[from == GSP_CLASS_LC ?
					  GSP_CLASS_BE : GSP_CLASS_LC];
	struct gsp_job *j, *pos;

	list_for_each_entry(j, &e->eng[engine].queue, node) {
		list_del_init(&j->gnode);
		es->rq[from].nr_queued--;
		to->nr_queued++;
		/* Walk back from the tail to the last job that came earlier. */
		pos = list_entry(to->fifo.prev, struct gsp_job, gnode);
		while (&pos->gnode != &to->fifo && pos->seq > j->seq)
			pos = list_entry(pos->gnode.prev, struct gsp_job, gnode);
		list_add(&j->gnode, &pos->gnode);
	}
}

/**
 * gsp_sched_set_entity() - change an entity's weight and class
 * @s: scheduler
 * @e: entity, attached or not
 * @weight: new weight (clamped to 1..GSP_WEIGHT_MAX)
 * @lc: new class
 * @now_ns: current time
 *
 * Its ready jobs keep their order and move to the new class.
 */
void gsp_sched_set_entity(struct gsp_sched *s, struct gsp_entity *e,
			  u32 weight, bool lc, u64 now_ns)
{
	u32 w = clamp_t(u32, weight, 1, GSP_WEIGHT_MAX);
	int i;

	if (!e->attached) {
		e->weight = w;
		e->lc = lc;
		return;
	}
	for (i = 0; i < GSP_ENGINE_COUNT; i++) {
		struct gsp_entity_engine *ee = &e->eng[i];
		struct gsp_engine_state *es = &s->eng[i];

		gsp_credit_period_update(s, i, now_ns);
		gsp_rq_remove(s, i, e);
		if (ee->active_gen == es->gen) {
			es->rq[gsp_class_of(e)].active_weight -= e->weight;
			es->rq[lc ? GSP_CLASS_LC : GSP_CLASS_BE].active_weight +=
				w;
		}
		if (e->lc != lc)
			gsp_move_class(s, i, e, gsp_class_of(e));
	}
	s->total_weight = s->total_weight - e->weight + w;
	s->class_weight[gsp_class_of(e)] -= e->weight;
	s->class_weight[lc ? GSP_CLASS_LC : GSP_CLASS_BE] += w;
	e->weight = w;
	e->lc = lc;
	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		if (e->eng[i].nr_queued)
			gsp_rq_add(s, i, e);
}

static void gsp_mark_active(struct gsp_engine_state *es, struct gsp_entity *e,
			    struct gsp_entity_engine *ee)
{
	if (ee->active_gen != es->gen) {
		ee->active_gen = es->gen;
		es->rq[gsp_class_of(e)].active_weight += e->weight;
	}
}

/**
 * gsp_sched_enqueue() - make a job ready
 * @s: scheduler
 * @j: job with @ent, @engine, @cost_ns and @task_ns set; @ent attached
 * @now_ns: current time
 *
 * The job goes to the tail of its owner's queue on its engine.
 */
void gsp_sched_enqueue(struct gsp_sched *s, struct gsp_job *j, u64 now_ns)
{
	struct gsp_entity *e = j->ent;
	struct gsp_entity_engine *ee;
	struct gsp_engine_state *es;
	struct gsp_class_rq *rq;

	if (GSP_WARN_ON(!e || !e->attached || j->engine >= GSP_ENGINE_COUNT))
		return;
	gsp_credit_period_update(s, j->engine, now_ns);
	es = &s->eng[j->engine];
	ee = &e->eng[j->engine];
	rq = &es->rq[gsp_class_of(e)];
	j->seq = es->next_seq++;
	j->enqueue_ns = now_ns;
	j->bypassed = 0;
	j->state = GSP_JOB_QUEUED;
	list_add_tail(&j->node, &ee->queue);
	list_add_tail(&j->gnode, &rq->fifo);
	rq->nr_queued++;
	ee->nr_queued++;
	es->queued_cost_ns += min_t(u64, j->cost_ns, GSP_CHARGE_MAX_NS);
	gsp_mark_active(es, e, ee);
	if (ee->nr_queued == 1)
		gsp_rq_add(s, j->engine, e);
}

/* Unlinks a ready job from every queue; the caller fixes the run queue. */
static void gsp_unlink(struct gsp_sched *s, struct gsp_job *j)
{
	struct gsp_engine_state *es = &s->eng[j->engine];
	struct gsp_entity_engine *ee = &j->ent->eng[j->engine];

	list_del_init(&j->node);
	list_del_init(&j->gnode);
	es->rq[gsp_class_of(j->ent)].nr_queued--;
	ee->nr_queued--;
	es->queued_cost_ns -= min_t(u64, j->cost_ns, GSP_CHARGE_MAX_NS);
}

/**
 * gsp_sched_dequeue() - cancel a ready job
 * @s: scheduler
 * @j: a queued (not running) job
 * @now_ns: current time
 */
void gsp_sched_dequeue(struct gsp_sched *s, struct gsp_job *j, u64 now_ns)
{
	struct gsp_entity *e = j->ent;

	if (GSP_WARN_ON(j->state != GSP_JOB_QUEUED))
		return;
	gsp_credit_period_update(s, j->engine, now_ns);
	gsp_unlink(s, j);
	j->state = GSP_JOB_IDLE;
	if (!e->eng[j->engine].nr_queued)
		gsp_rq_remove(s, j->engine, e);
}

/* BE has had less than its guaranteed share of the engine lately. */
static bool gsp_be_starved(const struct gsp_sched *s,
			   const struct gsp_engine_state *es)
{
	u64 all = es->lc_busy_ns + es->be_busy_ns;

	return es->be_busy_ns * 1000 < (u64)s->p.min_be_permille * all;
}

static struct gsp_job *gsp_class_pick(struct gsp_sched *s, u32 engine,
				      enum gsp_class cls, bool may_hold,
				      u64 now_ns, u64 *retry_ns)
{
	struct gsp_class_rq *rq = &s->eng[engine].rq[cls];
	struct gsp_entity *e = NULL;

	if (s->p.reorder && engine == GSP_ENGINE_H2D && cls == GSP_CLASS_BE)
		return gsp_cumas_pick(s, now_ns);

	switch (s->p.policy) {
	case GSP_POLICY_CREDIT:
		e = gsp_credit_pick(s, engine, cls);
		break;
	case GSP_POLICY_BAND:
		e = gsp_band_pick(s, engine, cls, may_hold, now_ns, retry_ns);
		break;
	default:
		return list_first_entry_or_null(&rq->fifo, struct gsp_job,
						gnode);
	}
	if (!e)
		return NULL;
	return list_first_entry_or_null(&e->eng[engine].queue, struct gsp_job,
					node);
}

/**
 * gsp_sched_pick() - choose the next job for an idle engine
 * @s: scheduler
 * @engine: GSP_ENGINE_*
 * @now_ns: current time
 * @retry_ns: out: when NULL is returned although jobs are ready (BAND
 *	holding the engine for an under-share tenant), when to call again;
 *	else 0
 *
 * A ready LC job goes first unless BE has had less than min_be_permille
 * of the engine lately. The job returned is running and out of its queue.
 *
 * Return: the job, or NULL.
 */
struct gsp_job *gsp_sched_pick(struct gsp_sched *s, u32 engine, u64 now_ns,
			       u64 *retry_ns)
{
	struct gsp_engine_state *es;
	struct gsp_entity_engine *ee;
	enum gsp_class cls;
	struct gsp_job *j;
	bool lc, be;

	*retry_ns = 0;
	if (GSP_WARN_ON(engine >= GSP_ENGINE_COUNT))
		return NULL;
	es = &s->eng[engine];
	if (GSP_WARN_ON(es->running))
		return NULL;
	gsp_credit_period_update(s, engine, now_ns);
	lc = es->rq[GSP_CLASS_LC].nr_queued;
	be = es->rq[GSP_CLASS_BE].nr_queued;
	if (!lc && !be)
		return NULL;
	cls = lc ? GSP_CLASS_LC : GSP_CLASS_BE;
	if (lc && be && gsp_be_starved(s, es))
		cls = GSP_CLASS_BE;
	j = gsp_class_pick(s, engine, cls, cls == GSP_CLASS_BE && !lc, now_ns,
			   retry_ns);
	if (!j)
		return NULL;

	ee = &j->ent->eng[engine];
	gsp_rq_remove(s, engine, j->ent);
	gsp_unlink(s, j);
	j->state = GSP_JOB_RUNNING;
	ee->nr_running++;
	ee->last_pick = ++es->picks;
	es->running = 1;
	es->cur_ent = j->ent;
	es->run_start_ns = now_ns;
	es->run_cost_ns = min_t(u64, j->cost_ns, GSP_CHARGE_MAX_NS);
	if (ee->nr_queued)
		gsp_rq_add(s, engine, j->ent);
	return j;
}

/**
 * gsp_sched_complete() - end a running job and charge its GPU time
 * @s: scheduler
 * @j: the running job
 * @gpu_ns: measured GPU time, charged to the owner
 * @now_ns: current time
 */
void gsp_sched_complete(struct gsp_sched *s, struct gsp_job *j, u64 gpu_ns,
			u64 now_ns)
{
	struct gsp_entity *e = j->ent;
	struct gsp_engine_state *es;
	struct gsp_entity_engine *ee;

	if (GSP_WARN_ON(j->state != GSP_JOB_RUNNING))
		return;
	gsp_credit_period_update(s, j->engine, now_ns);
	es = &s->eng[j->engine];
	ee = &e->eng[j->engine];
	j->state = GSP_JOB_IDLE;
	ee->nr_running--;
	es->running = 0;
	es->cur_ent = NULL;
	gsp_rq_remove(s, j->engine, e);
	gsp_credit_charge(s, j->engine, e, gpu_ns);
	es->last = e;
	es->last_done_ns = now_ns;
	if (ee->nr_queued)
		gsp_rq_add(s, j->engine, e);
}

/**
 * gsp_sched_progress() - charge part of a running job's GPU time
 * @s: scheduler
 * @j: the running job; it keeps running
 * @gpu_ns: GPU time it used since it was last charged, charged to the owner
 * @now_ns: current time
 *
 * A job that runs long (a leased BE kernel of seconds) is charged as it
 * runs, so that CREDIT and BAND see its time before it ends;
 * gsp_sched_complete() then charges only the rest.
 */
void gsp_sched_progress(struct gsp_sched *s, struct gsp_job *j, u64 gpu_ns,
			u64 now_ns)
{
	struct gsp_entity *e = j->ent;
	struct gsp_entity_engine *ee;

	if (GSP_WARN_ON(j->state != GSP_JOB_RUNNING))
		return;
	gsp_credit_period_update(s, j->engine, now_ns);
	ee = &e->eng[j->engine];
	/* The charge moves it within its run queue: out, charge, back. */
	gsp_rq_remove(s, j->engine, e);
	gsp_credit_charge(s, j->engine, e, gpu_ns);
	if (ee->nr_queued)
		gsp_rq_add(s, j->engine, e);
}

/**
 * gsp_entity_charged_ns() - all GPU time charged to an entity on an engine
 * @e: entity
 * @engine: GSP_ENGINE_*
 *
 * Return: the time in ns, 0 for a bad engine.
 */
u64 gsp_entity_charged_ns(const struct gsp_entity *e, u32 engine)
{
	return engine < GSP_ENGINE_COUNT ? e->eng[engine].charged_ns : 0;
}

/**
 * gsp_entity_credit_ns() - an entity's CREDIT/BAND credit on an engine
 * @e: entity
 * @engine: GSP_ENGINE_*
 *
 * Return: the signed credit in ns, 0 for a bad engine.
 */
s64 gsp_entity_credit_ns(const struct gsp_entity *e, u32 engine)
{
	return engine < GSP_ENGINE_COUNT ? e->eng[engine].credit_ns : 0;
}

/**
 * gsp_engine_busy_ns() - all GPU time charged on an engine
 * @s: scheduler
 * @engine: GSP_ENGINE_*
 *
 * Return: the time in ns, 0 for a bad engine.
 */
u64 gsp_engine_busy_ns(const struct gsp_sched *s, u32 engine)
{
	return engine < GSP_ENGINE_COUNT ? s->eng[engine].busy_ns : 0;
}

/**
 * gsp_engine_nr_queued() - ready jobs on an engine, both classes
 * @s: scheduler
 * @engine: GSP_ENGINE_*
 *
 * Return: the count, 0 for a bad engine.
 */
u32 gsp_engine_nr_queued(const struct gsp_sched *s, u32 engine)
{
	if (engine >= GSP_ENGINE_COUNT)
		return 0;
	return s->eng[engine].rq[GSP_CLASS_BE].nr_queued +
	       s->eng[engine].rq[GSP_CLASS_LC].nr_queued;
}
