// SPDX-License-Identifier: GPL-2.0
/*
 * gspace scheduling core: the CREDIT and BAND ledgers and picks, after
 * GPUvm (Suzuki, Keio 2018) and Gdev's BAND.
 *
 * Each engine keeps a signed credit per tenant. A completion charges the
 * measured GPU time. Every period the elapsed time, busy plus idle, is
 * handed out by weight among the tenants active in that period (GPUvm's
 * elapsed-time replenish); credit above +period is halved and debt is
 * floored at -period. A tenant idle for a whole period gets at most its
 * default share. The period is applied lazily, by the first call that
 * sees a later time, so no timer is needed.
 *
 * CREDIT serves the tenants with positive credit round robin, one job
 * each, and the others only when none with credit is ready
 * (work-conserving). BAND orders the tenants with positive credit by used
 * share of the current period, least first (GPUvm's under and band
 * classes), then those with spent credit round robin (the over class), and
 * after a completion holds the engine for up to band_wait_ns for the
 * tenant that just completed if it is under its share and the best
 * candidate is over its own.
 *
 * BAND's order is exact, a pairing heap, up to GSP_BAND_RING_ON ready
 * tenants with credit per class and engine. From there on a ring of
 * GSP_BAND_SLOTS slots, each 1/32 of the largest charge of the last period
 * (in used share) wide, serves them in O(1): the tenant served is within
 * one slot of the least used share, and a slot's tenants go in the order
 * they entered it. Shares below or beyond the ring stay in exact heaps.
 */
#include "gsp_internal.h"

static struct gsp_entity_engine *gsp_hn_ee(struct gsp_heap_node *n)
{
	return container_of(n, struct gsp_entity_engine, hnode);
}

/* @a goes before @b: less used share of the period, then least recent. */
static bool gsp_heap_less(struct gsp_heap_node *a, struct gsp_heap_node *b)
{
	struct gsp_entity_engine *ea = gsp_hn_ee(a), *eb = gsp_hn_ee(b);
	u64 ka = ea->period_used_ns * eb->owner->weight;
	u64 kb = eb->period_used_ns * ea->owner->weight;

	if (ka != kb)
		return ka < kb;
	return ea->last_pick < eb->last_pick;
}

static struct gsp_heap_node *gsp_heap_meld(struct gsp_heap_node *a,
					   struct gsp_heap_node *b)
{
	struct gsp_heap_node *t;

	if (!a)
		return b;
	if (!b)
		return a;
	if (gsp_heap_less(b, a)) {
		t = a;
		a = b;
		b = t;
	}
	/* b becomes a's first child. */
	b->prev = a;
	b->sibling = a->child;
	if (a->child)
		a->child->prev = b;
	a->child = b;
	a->sibling = NULL;
	a->prev = NULL;
	return a;
}

/* Two-pass pairing of a sibling list, iteratively: no recursion. */
static struct gsp_heap_node *gsp_heap_pair(struct gsp_heap_node *first)
{
	struct gsp_heap_node *stack = NULL, *a, *b, *next, *m;

	/* Pass one, left to right: meld pairs, push them on a stack. */
	while (first) {
		a = first;
		b = a->sibling;
		next = b ? b->sibling : NULL;
		a->sibling = NULL;
		a->prev = NULL;
		if (b) {
			b->sibling = NULL;
			b->prev = NULL;
		}
		m = gsp_heap_meld(a, b);
		m->sibling = stack;
		stack = m;
		first = next;
	}
	/* Pass two, right to left: meld the stack into one heap. */
	m = NULL;
	while (stack) {
		next = stack->sibling;
		stack->sibling = NULL;
		m = gsp_heap_meld(m, stack);
		stack = next;
	}
	return m;
}

/**
 * gsp_heap_insert() - add a node to a pairing heap
 * @root: the heap
 * @n: node, not in any heap
 */
void gsp_heap_insert(struct gsp_heap_node **root, struct gsp_heap_node *n)
{
	n->child = NULL;
	n->sibling = NULL;
	n->prev = NULL;
	*root = gsp_heap_meld(*root, n);
}

/**
 * gsp_heap_delete() - remove any node from a pairing heap
 * @root: the heap
 * @n: node in it
 *
 * O(log n) amortised.
 */
void gsp_heap_delete(struct gsp_heap_node **root, struct gsp_heap_node *n)
{
	struct gsp_heap_node *sub;

	if (n == *root) {
		*root = gsp_heap_pair(n->child);
	} else {
		/* Cut n out of its sibling list. */
		if (n->prev->child == n)
			n->prev->child = n->sibling;
		else
			n->prev->sibling = n->sibling;
		if (n->sibling)
			n->sibling->prev = n->prev;
		sub = gsp_heap_pair(n->child);
		*root = gsp_heap_meld(*root, sub);
	}
	n->child = NULL;
	n->sibling = NULL;
	n->prev = NULL;
}

/* BAND's key: the used share of the period, used ns * 2^15 / weight. */
static u64 gsp_band_key(const struct gsp_entity_engine *ee)
{
	return div64_u64(ee->period_used_ns << GSP_BAND_KEY_SHIFT,
			 ee->owner->weight);
}

/**
 * gsp_band_init() - empty a BAND run queue
 * @b: the run queue
 * @grain: width of a slot in key units, at least 1
 */
void gsp_band_init(struct gsp_band_rq *b, u64 grain)
{
	int i;

	b->low = NULL;
	b->high = NULL;
	for (i = 0; i < GSP_BAND_SLOTS; i++)
		INIT_LIST_HEAD(&b->slot[i]);
	b->map = 0;
	b->nr = 0;
	b->base = U64_MAX;
	b->grain = grain;
	b->max_step = 0;
	b->origin = 0;
	b->count = 0;
	b->ring = false;
}

/* Into the slot of key @k at or above the base, else into @high. */
static void gsp_band_put(struct gsp_band_rq *b, struct gsp_entity_engine *ee,
			 u64 k)
{
	u64 d = div64_u64(k - b->base, b->grain);
	u32 i;

	if (d >= GSP_BAND_SLOTS) {
		gsp_heap_insert(&b->high, &ee->hnode);
		ee->where = GSP_RQ_HIGH;
		return;
	}
	i = (b->origin + (u32)d) & (GSP_BAND_SLOTS - 1);
	list_add_tail(&ee->rq_node, &b->slot[i]);
	b->map |= BIT_ULL(i);
	b->nr++;
	ee->where = GSP_RQ_SLOT;
}

/* The tenants of @high that the ring reaches now go into their slots. */
static void gsp_band_pull(struct gsp_band_rq *b)
{
	struct gsp_entity_engine *ee;
	u64 k;

	while (b->high) {
		ee = gsp_hn_ee(b->high);
		k = gsp_band_key(ee);
		if (div64_u64(k - b->base, b->grain) >= GSP_BAND_SLOTS)
			break;
		gsp_heap_delete(&b->high, &ee->hnode);
		gsp_band_put(b, ee, k);
	}
}

/* Turns the ring on: every tenant of @low goes into its slot. */
static void gsp_band_ring_on(struct gsp_band_rq *b)
{
	struct gsp_entity_engine *ee;

	b->ring = true;
	b->base = gsp_band_key(gsp_hn_ee(b->low));
	b->origin = 0;
	b->map = 0;
	while (b->low) {
		ee = gsp_hn_ee(b->low);
		gsp_heap_delete(&b->low, &ee->hnode);
		gsp_band_put(b, ee, gsp_band_key(ee));
	}
}

/* Turns the ring off: every tenant goes into @low. */
static void gsp_band_ring_off(struct gsp_band_rq *b)
{
	struct gsp_entity_engine *ee;
	u32 i;

	for (i = 0; i < GSP_BAND_SLOTS; i++) {
		while (!list_empty(&b->slot[i])) {
			ee = list_first_entry(&b->slot[i],
					      struct gsp_entity_engine,
					      rq_node);
			list_del_init(&ee->rq_node);
			gsp_heap_insert(&b->low, &ee->hnode);
			ee->where = GSP_RQ_LOW;
		}
	}
	while (b->high) {
		ee = gsp_hn_ee(b->high);
		gsp_heap_delete(&b->high, &ee->hnode);
		gsp_heap_insert(&b->low, &ee->hnode);
		ee->where = GSP_RQ_LOW;
	}
	b->map = 0;
	b->nr = 0;
	b->base = U64_MAX;
	b->ring = false;
}

/**
 * gsp_band_add() - put a tenant with positive credit into BAND's run queue
 * @b: the run queue
 * @ee: the tenant's engine state, in no run queue
 *
 * With the ring on, O(1) unless its key lies outside the ring (then a
 * heap insert, O(1) too); the ring's switches are O(n), and n changes by
 * GSP_BAND_RING_ON - GSP_BAND_RING_OFF between two.
 */
void gsp_band_add(struct gsp_band_rq *b, struct gsp_entity_engine *ee)
{
	u64 k = gsp_band_key(ee);

	b->count++;
	/* An empty ring moves to the first key that does not fit it. */
	if (b->ring && !b->nr && !b->low && !b->high &&
	    (k < b->base ||
	     div64_u64(k - b->base, b->grain) >= GSP_BAND_SLOTS)) {
		b->base = k;
		b->origin = 0;
		b->map = 0;
	}
	if (k < b->base) {
		gsp_heap_insert(&b->low, &ee->hnode);
		ee->where = GSP_RQ_LOW;
	} else {
		gsp_band_put(b, ee, k);
	}
	if (!b->ring && b->count >= GSP_BAND_RING_ON)
		gsp_band_ring_on(b);
}

/**
 * gsp_band_del() - take a tenant out of BAND's run queue
 * @b: the run queue
 * @ee: the tenant's engine state, in @b
 */
void gsp_band_del(struct gsp_band_rq *b, struct gsp_entity_engine *ee)
{
	switch (ee->where) {
	case GSP_RQ_LOW:
		gsp_heap_delete(&b->low, &ee->hnode);
		break;
	case GSP_RQ_HIGH:
		gsp_heap_delete(&b->high, &ee->hnode);
		break;
	case GSP_RQ_SLOT:
		list_del_init(&ee->rq_node);
		b->nr--;
		break;
	default:
		GSP_WARN_ON(1);
		return;
	}
	b->count--;
	if (b->ring && b->count < GSP_BAND_RING_OFF)
		gsp_band_ring_off(b);
}

/*
 * The tenant to serve: the least key of @low, else the first tenant of the
 * first slot (the ring turns to start there and pulls from @high what it
 * then reaches), else the least key of @high (the ring restarts there).
 * It lies within one grain of the least key. O(1) amortised.
 */
static struct gsp_entity_engine *gsp_band_first(struct gsp_band_rq *b)
{
	u32 d, i;

	if (b->low)
		return gsp_hn_ee(b->low);
	for (;;) {
		while (b->nr) {
			d = __ffs64(ror64(b->map, b->origin));
			i = (b->origin + d) & (GSP_BAND_SLOTS - 1);
			if (list_empty(&b->slot[i])) {
				b->map &= ~BIT_ULL(i);
				continue;
			}
			if (d) {
				b->base += d * b->grain;
				b->origin = i;
				gsp_band_pull(b);
			}
			return list_first_entry(&b->slot[i],
						struct gsp_entity_engine,
						rq_node);
		}
		if (!b->high)
			return NULL;
		b->base = gsp_band_key(gsp_hn_ee(b->high));
		b->origin = 0;
		b->map = 0;
		gsp_band_pull(b);
	}
}

/**
 * gsp_credit_default() - a tenant's default credit: its share of a period
 * @s: scheduler
 * @weight: its weight
 * @sum_w: sum of weights it shares with
 *
 * Return: period_ns * weight / sum_w, or period_ns if @sum_w is 0.
 */
s64 gsp_credit_default(const struct gsp_sched *s, u32 weight, u64 sum_w)
{
	if (!sum_w || weight >= sum_w)
		return (s64)s->p.period_ns;
	return (s64)mul_u64_u64_div_u64(s->p.period_ns, weight, sum_w);
}

static s64 gsp_credit_add(s64 credit, u64 add)
{
	if (add > (u64)GSP_CREDIT_LIMIT_NS)
		add = GSP_CREDIT_LIMIT_NS;
	credit += (s64)add;
	return min_t(s64, credit, GSP_CREDIT_LIMIT_NS);
}

/* What @ee ran over its weight's share of its class in the ended period. */
static u64 gsp_excess(const struct gsp_class_rq *rq,
		      const struct gsp_entity_engine *ee, u32 weight,
		      u64 period)
{
	u64 fair;

	if (!rq->active_weight || !rq->period_busy_ns)
		return 0;
	fair = mul_u64_u64_div_u64(rq->period_busy_ns, weight,
				   rq->active_weight);
	if (ee->period_used_ns <= fair)
		return 0;
	return min_t(u64, ee->period_used_ns - fair, period);
}

/**
 * gsp_credit_period_update() - apply the periods that have ended by now
 * @s: scheduler
 * @engine: GSP_ENGINE_*
 * @now_ns: current time
 *
 * Replenishes every tenant's credit on @engine: the elapsed time is shared
 * by weight among the active tenants of each class. Starts a new usage
 * period in which a tenant that ran over its share keeps the excess (at
 * most one period) as used time, and no tenant keeps unused share.
 * Rebuilds the run queues. O(tenants), once per period, in one pass: the
 * weight sums are kept as tenants come, go and change, and the run queues
 * are emptied wholesale and refilled in tenant order, not taken apart.
 */
void gsp_credit_period_update(struct gsp_sched *s, u32 engine, u64 now_ns)
{
	struct gsp_engine_state *es = &s->eng[engine];
	u64 period = s->p.period_ns, k, elapsed;
	u64 sum_act[GSP_CLASS_COUNT], sum_all[GSP_CLASS_COUNT];
	u64 carried[GSP_CLASS_COUNT] = { 0 }, weight[GSP_CLASS_COUNT] = { 0 };
	u64 seen[GSP_CLASS_COUNT] = { 0 };
	s64 lim = (s64)period;
	struct gsp_entity *e;
	unsigned int shift;
	int c;

	if (now_ns < es->period_start_ns ||
	    now_ns - es->period_start_ns < period)
		return;
	k = div64_u64(now_ns - es->period_start_ns, period);
	es->period_start_ns += k * period;
	/* Beyond a few periods the clamps make more replenish irrelevant. */
	elapsed = min_t(u64, k, 4) * period;

	for (c = 0; c < GSP_CLASS_COUNT; c++) {
		struct gsp_class_rq *rq = &es->rq[c];

		/* A busy tenant was marked active when its job came. */
		sum_act[c] = rq->active_weight;
		sum_all[c] = s->class_weight[c];
		INIT_LIST_HEAD(&rq->pos);
		INIT_LIST_HEAD(&rq->neg);
		/* A slot: 1/32 of the largest step of the ended period. */
		gsp_band_init(&rq->band, rq->band.max_step ?
			      max_t(u64, rq->band.max_step /
				    GSP_BAND_GRAIN_DIV, 1) :
			      rq->band.grain);
	}
	list_for_each_entry(e, &s->entities, node) {
		struct gsp_entity_engine *ee = &e->eng[engine];
		bool busy = ee->nr_queued || ee->nr_running;
		bool was = ee->active_gen == es->gen;
		s64 def;

		c = gsp_class_of(e);
		if (was || busy) {
			seen[c] += e->weight;
			ee->credit_ns = gsp_credit_add(ee->credit_ns,
						       mul_u64_u64_div_u64(elapsed,
							e->weight, sum_act[c]));
			if (ee->credit_ns > lim)
				ee->credit_ns /= 2;
		} else {
			/* Idle: no banking beyond the default share. */
			def = gsp_credit_default(s, e->weight, sum_all[c]);
			ee->credit_ns = gsp_credit_add(ee->credit_ns,
						       mul_u64_u64_div_u64(elapsed,
							e->weight, sum_all[c]));
			if (ee->credit_ns > def)
				ee->credit_ns = def;
		}
		if (ee->credit_ns < -lim)
			ee->credit_ns = -lim;
		/* One period late, the excess no longer counts. */
		ee->period_used_ns = was && busy && k == 1 ?
			gsp_excess(&es->rq[c], ee, e->weight, period) : 0;
		carried[c] += ee->period_used_ns;
		if (busy) {
			ee->active_gen = es->gen + 1;
			weight[c] += e->weight;
		}
		INIT_LIST_HEAD(&ee->rq_node);
		ee->where = GSP_RQ_NONE;
		if (ee->nr_queued)
			gsp_rq_add(s, engine, e);
	}
	es->gen++;
	for (c = 0; c < GSP_CLASS_COUNT; c++) {
		GSP_WARN_ON(seen[c] != sum_act[c]);
		es->rq[c].period_busy_ns = carried[c];
		es->rq[c].active_weight = weight[c];
	}
	shift = k > 63 ? 63 : (unsigned int)k;
	es->lc_busy_ns >>= shift;
	es->be_busy_ns >>= shift;
}

/**
 * gsp_credit_charge() - charge a completed job's GPU time
 * @s: scheduler
 * @engine: GSP_ENGINE_*
 * @e: owner, out of its run queue
 * @gpu_ns: measured GPU time
 */
void gsp_credit_charge(struct gsp_sched *s, u32 engine, struct gsp_entity *e,
		       u64 gpu_ns)
{
	struct gsp_engine_state *es = &s->eng[engine];
	struct gsp_entity_engine *ee = &e->eng[engine];
	u64 g = min_t(u64, gpu_ns, GSP_CHARGE_MAX_NS);

	ee->credit_ns -= (s64)g;
	if (ee->credit_ns < -GSP_CREDIT_LIMIT_NS)
		ee->credit_ns = -GSP_CREDIT_LIMIT_NS;
	ee->charged_ns += g;
	ee->period_used_ns = min_t(u64, ee->period_used_ns + g,
				   GSP_USED_MAX_NS);
	es->rq[gsp_class_of(e)].period_busy_ns =
		min_t(u64, es->rq[gsp_class_of(e)].period_busy_ns + g,
		      GSP_USED_MAX_NS);
	es->busy_ns += g;
	if (s->p.policy == GSP_POLICY_BAND) {
		struct gsp_band_rq *b = &es->rq[gsp_class_of(e)].band;

		b->max_step = max_t(u64, b->max_step,
				    div64_u64(g << GSP_BAND_KEY_SHIFT,
					      e->weight));
	}
	if (e->lc)
		es->lc_busy_ns += g;
	else
		es->be_busy_ns += g;
}

/**
 * gsp_credit_pick() - CREDIT: the tenant to serve next in a class
 * @s: scheduler
 * @engine: GSP_ENGINE_*
 * @cls: class with ready jobs
 *
 * Round robin among tenants with positive credit; if none is ready, round
 * robin among the rest (work-conserving). The caller moves the chosen one
 * to the tail by re-adding it.
 *
 * Return: the tenant.
 */
struct gsp_entity *gsp_credit_pick(struct gsp_sched *s, u32 engine,
				   enum gsp_class cls)
{
	struct gsp_class_rq *rq = &s->eng[engine].rq[cls];
	struct gsp_entity_engine *ee;

	ee = list_first_entry_or_null(&rq->pos, struct gsp_entity_engine,
				      rq_node);
	if (!ee)
		ee = list_first_entry_or_null(&rq->neg,
					      struct gsp_entity_engine,
					      rq_node);
	return ee ? ee->owner : NULL;
}

/* Over its reserved share of the engine in this period. */
static bool gsp_over_bw(const struct gsp_engine_state *es,
			const struct gsp_entity *e, u32 engine)
{
	const struct gsp_entity_engine *ee = &e->eng[engine];
	const struct gsp_class_rq *rq = &es->rq[gsp_class_of(e)];

	if (!rq->period_busy_ns || !rq->active_weight)
		return false;
	return mul_u64_u64_div_u64(ee->period_used_ns, rq->active_weight,
				   e->weight) > rq->period_busy_ns;
}

/**
 * gsp_band_pick() - BAND: the tenant to serve next in a class, or a hold
 * @s: scheduler
 * @engine: GSP_ENGINE_*
 * @cls: class with ready jobs
 * @may_hold: whether the engine may be held idle (no LC job waiting)
 * @now_ns: current time
 * @retry_ns: out: end of the hold when NULL is returned
 *
 * Return: the tenant, or NULL while holding the engine.
 */
struct gsp_entity *gsp_band_pick(struct gsp_sched *s, u32 engine,
				 enum gsp_class cls, bool may_hold,
				 u64 now_ns, u64 *retry_ns)
{
	struct gsp_engine_state *es = &s->eng[engine];
	struct gsp_class_rq *rq = &es->rq[cls];
	struct gsp_entity *next, *last = es->last;
	struct gsp_entity_engine *ee;
	u64 until;

	ee = gsp_band_first(&rq->band);
	if (ee) {
		next = ee->owner;
	} else {
		ee = list_first_entry_or_null(&rq->neg,
					      struct gsp_entity_engine,
					      rq_node);
		if (!ee)
			return NULL;
		next = ee->owner;
	}
	if (!may_hold || !s->p.band_wait_ns || !last || last == next ||
	    gsp_class_of(last) != cls || last->eng[engine].nr_queued ||
	    last->eng[engine].credit_ns <= 0)
		return next;
	until = es->last_done_ns + s->p.band_wait_ns;
	if (now_ns >= until)
		return next;
	/* Hold only for an under-share tenant that has used less. */
	if (!gsp_over_bw(es, next, engine) || gsp_over_bw(es, last, engine))
		return next;
	if (next->eng[engine].period_used_ns * last->weight <=
	    last->eng[engine].period_used_ns * next->weight)
		return next;
	*retry_ns = until;
	return NULL;
}
