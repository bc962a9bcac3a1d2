// SPDX-License-Identifier: GPL-2.0
/*
 * gspace scheduling core: CuMAS ordering of copy-in, compute, copy-out
 * tasks (Ghodrati et al., "CuMAS"), as a 3-machine permutation flow shop.
 *
 * The makespan of an order is the exact completion-time recurrence
 *
 *	CS_i = CS_{i-1} + s_i
 *	CP_i = max(CS_i, CP_{i-1}) + p_i
 *	CR_i = max(CP_i, CR_{i-1}) + r_i
 *
 * started from the times the three machines become free (the carry-over
 * of earlier work). The paper's Eq. 2 subtracts the previous task's wait
 * instead of the idle gap on P and is wrong whenever that wait is not
 * zero; it is not used.
 *
 * The pick runs under the host's scheduler lock, so it orders its window
 * with a bounded heuristic: NEH, then insertion local search, both with
 * Taillard's O(n) evaluation of all insertion points. Up to
 * GSP_CUMAS_EXACT_MAX tasks gsp_cumas_solve() finds the optimum by an
 * iterative branch and bound (depth-first, state per depth in struct
 * gsp_cumas, no recursion), seeded with the heuristic and pruned with the
 * three one-machine lower bounds: the reference for tests and tools.
 */
#include "gsp_internal.h"

/**
 * gsp_cumas_makespan() - completion time of the last task in an order
 * @t: tasks
 * @order: indices into @t, @n of them
 * @n: number of tasks
 * @free: when copy-in, compute and copy-out become free
 *
 * Return: the time at which the copy-out machine (or compute, for tasks
 * without copy-out) finishes the last task.
 */
u64 gsp_cumas_makespan(const struct gsp_task_cost *t, const u8 *order,
		       u32 n, const u64 *free)
{
	u64 cs = free[0], cp = free[1], cr = free[2];
	u32 i;

	for (i = 0; i < n; i++) {
		const struct gsp_task_cost *x = &t[order[i]];

		cs += x->s;
		cp = max_t(u64, cs, cp) + x->p;
		cr = max_t(u64, cp, cr) + x->r;
	}
	return max_t(u64, cp, cr);
}

/* Lower bound on the makespan of the tasks in @mask after state cs/cp/cr. */
static u64 gsp_cumas_lb_mask(const struct gsp_task_cost *t, u32 n, u32 mask,
			     u64 cs, u64 cp, u64 cr)
{
	u64 ss = 0, sp = 0, sr = 0;
	u64 mpr = U64_MAX, ms = U64_MAX, mr = U64_MAX, msp = U64_MAX;
	u64 mp = U64_MAX, lb1, lb2, lb3;
	u32 i;

	if (!mask)
		return max_t(u64, cp, cr);
	for (i = 0; i < n; i++) {
		const struct gsp_task_cost *x = &t[i];

		if (!(mask & (1U << i)))
			continue;
		ss += x->s;
		sp += x->p;
		sr += x->r;
		mpr = min_t(u64, mpr, x->p + x->r);
		ms = min_t(u64, ms, x->s);
		mr = min_t(u64, mr, x->r);
		msp = min_t(u64, msp, x->s + x->p);
		mp = min_t(u64, mp, x->p);
	}
	/* Copy-in runs back to back, then one task still computes and copies. */
	lb1 = cs + ss + mpr;
	/* Compute starts after the first copy-in at the earliest. */
	lb2 = max_t(u64, cp, cs + ms) + sp + mr;
	/* Copy-out starts after the first compute at the earliest. */
	lb3 = max_t(u64, cr, max_t(u64, cp + mp, cs + msp)) + sr;
	return max_t(u64, max_t(u64, lb1, lb2), max_t(u64, lb3, cp));
}

/**
 * gsp_cumas_lower_bound() - a lower bound on any order's makespan
 * @t: tasks
 * @n: number of tasks, at most GSP_CUMAS_MAX_WINDOW
 * @free: when copy-in, compute and copy-out become free
 *
 * Return: the largest of the three one-machine bounds.
 */
u64 gsp_cumas_lower_bound(const struct gsp_task_cost *t, u32 n,
			  const u64 *free)
{
	u32 mask;

	if (GSP_WARN_ON(n > GSP_CUMAS_MAX_WINDOW))
		return 0;
	mask = n == 32 ? U32_MAX : (1U << n) - 1;
	return gsp_cumas_lb_mask(t, n, mask, free[0], free[1], free[2]);
}

/*
 * Taillard's insertion evaluation: head[i] is when each machine finishes
 * the first i tasks of @seq (head[0] the free times), tail[i] the longest
 * path from task i's start on each machine to the end. Every order with
 * one more task inserted at i then costs O(machines) to evaluate.
 */
static void gsp_cumas_heads_tails(struct gsp_cumas *c, const u8 *seq, u32 k,
				  const u64 *free)
{
	u32 i;

	c->head[0].s = free[0];
	c->head[0].p = free[1];
	c->head[0].r = free[2];
	for (i = 0; i < k; i++) {
		const struct gsp_task_cost *x = &c->t[seq[i]];
		const struct gsp_task_cost *h = &c->head[i];
		struct gsp_task_cost *g = &c->head[i + 1];

		g->s = h->s + x->s;
		g->p = max_t(u64, g->s, h->p) + x->p;
		g->r = max_t(u64, g->p, h->r) + x->r;
	}
	c->tail[k].s = 0;
	c->tail[k].p = 0;
	c->tail[k].r = 0;
	for (i = k; i-- > 0;) {
		const struct gsp_task_cost *x = &c->t[seq[i]];
		const struct gsp_task_cost *u = &c->tail[i + 1];
		struct gsp_task_cost *q = &c->tail[i];

		q->r = u->r + x->r;
		q->p = max_t(u64, q->r, u->p) + x->p;
		q->s = max_t(u64, q->p, u->s) + x->s;
	}
}

/* The first position of least makespan for task @x among k + 1. */
static u64 gsp_cumas_best_insert(const struct gsp_cumas *c, u32 k, u8 x,
				 u32 *pos)
{
	const struct gsp_task_cost *t = &c->t[x];
	u64 f0, f1, f2, m, best = 0;
	u32 i;

	for (i = 0; i <= k; i++) {
		const struct gsp_task_cost *h = &c->head[i], *q = &c->tail[i];

		f0 = h->s + t->s;
		f1 = max_t(u64, f0, h->p) + t->p;
		f2 = max_t(u64, f1, h->r) + t->r;
		m = max_t(u64, max_t(u64, f0 + q->s, f1 + q->p), f2 + q->r);
		if (!i || m < best) {
			best = m;
			*pos = i;
		}
	}
	return best;
}

static void gsp_cumas_insert_at(u8 *seq, u32 k, u32 pos, u8 x)
{
	u32 i;

	for (i = k; i > pos; i--)
		seq[i] = seq[i - 1];
	seq[pos] = x;
}

/**
 * gsp_cumas_neh() - NEH insertion heuristic
 * @c: scratch with @c->t filled; the order goes to @c->order
 * @n: number of tasks, at most GSP_CUMAS_MAX_WINDOW
 * @free: when copy-in, compute and copy-out become free
 *
 * Tasks by decreasing total time, each inserted at the first position of
 * least partial makespan. O(n^2) with Taillard's evaluation.
 *
 * Return: the makespan of the order found.
 */
u64 gsp_cumas_neh(struct gsp_cumas *c, u32 n, const u64 *free)
{
	u8 *seq = c->order, by[GSP_CUMAS_MAX_WINDOW];
	u64 best = 0;
	u32 i, k, pos = 0;

	if (GSP_WARN_ON(n > GSP_CUMAS_MAX_WINDOW))
		return 0;
	/* Insertion sort by decreasing s + p + r, stable. */
	for (i = 0; i < n; i++) {
		u64 ti = c->t[i].s + c->t[i].p + c->t[i].r;

		k = i;
		while (k > 0) {
			const struct gsp_task_cost *x = &c->t[by[k - 1]];

			if (x->s + x->p + x->r >= ti)
				break;
			by[k] = by[k - 1];
			k--;
		}
		by[k] = (u8)i;
	}
	for (k = 0; k < n; k++) {
		gsp_cumas_heads_tails(c, seq, k, free);
		best = gsp_cumas_best_insert(c, k, by[k], &pos);
		gsp_cumas_insert_at(seq, k, pos, by[k]);
	}
	return n ? best : gsp_cumas_makespan(c->t, seq, 0, free);
}

/*
 * Insertion local search on @c->order of makespan @cur: each task in turn
 * is taken out and put back at its best position, kept there only if the
 * makespan falls; at most @passes passes.
 */
static u64 gsp_cumas_improve(struct gsp_cumas *c, u32 n, const u64 *free,
			     u64 cur, u32 passes)
{
	u8 *seq = c->order, x;
	u32 i, k, from, pos = 0;
	bool better;
	u64 m;

	for (k = 0; k < n; k++)
		c->cur[k] = seq[k];
	while (passes--) {
		better = false;
		for (k = 0; k < n; k++) {
			/* The task that started this pass at position k. */
			x = c->cur[k];
			for (from = 0; seq[from] != x; from++)
				;
			for (i = from; i + 1 < n; i++)
				seq[i] = seq[i + 1];
			gsp_cumas_heads_tails(c, seq, n - 1, free);
			m = gsp_cumas_best_insert(c, n - 1, x, &pos);
			if (m < cur) {
				cur = m;
				better = true;
			} else {
				pos = from;
			}
			gsp_cumas_insert_at(seq, n - 1, pos, x);
		}
		if (!better)
			break;
		for (k = 0; k < n; k++)
			c->cur[k] = seq[k];
	}
	return cur;
}

/* Exhaustive depth-first branch and bound, iterative; improves c->order. */
static u64 gsp_cumas_bnb(struct gsp_cumas *c, u32 n, const u64 *free,
			 u64 best)
{
	u32 all = (1U << n) - 1, used = 0, d = 0, i;
	u64 cs1, cp1, cr1;

	c->cs[0] = free[0];
	c->cp[0] = free[1];
	c->cr[0] = free[2];
	c->next[0] = 0;
	for (;;) {
		if (d == n) {
			if (max_t(u64, c->cp[d], c->cr[d]) < best) {
				best = max_t(u64, c->cp[d], c->cr[d]);
				for (i = 0; i < n; i++)
					c->order[i] = c->cur[i];
			}
			d--;
			used &= ~(1U << c->cur[d]);
			continue;
		}
		for (i = c->next[d]; i < n; i++)
			if (!(used & (1U << i)))
				break;
		if (i >= n) {
			if (!d)
				break;
			d--;
			used &= ~(1U << c->cur[d]);
			continue;
		}
		c->next[d] = (u8)(i + 1);
		c->nodes++;
		cs1 = c->cs[d] + c->t[i].s;
		cp1 = max_t(u64, cs1, c->cp[d]) + c->t[i].p;
		cr1 = max_t(u64, cp1, c->cr[d]) + c->t[i].r;
		if (gsp_cumas_lb_mask(c->t, n, all & ~used & ~(1U << i),
				      cs1, cp1, cr1) >= best)
			continue;
		c->cur[d] = (u8)i;
		used |= 1U << i;
		d++;
		c->cs[d] = cs1;
		c->cp[d] = cp1;
		c->cr[d] = cr1;
		c->next[d] = 0;
	}
	return best;
}

/**
 * gsp_cumas_heuristic() - a near-optimal order in bounded time
 * @c: scratch with @c->t filled; the order goes to @c->order
 * @n: number of tasks, at most GSP_CUMAS_MAX_WINDOW
 * @free: when copy-in, compute and copy-out become free
 *
 * NEH, then GSP_CUMAS_LS_PASSES passes of insertion local search; arrival
 * order if that is as good. O(n^2) per pass, no search tree.
 *
 * Return: the makespan of the order found.
 */
u64 gsp_cumas_heuristic(struct gsp_cumas *c, u32 n, const u64 *free)
{
	u64 best, m;
	u32 i;

	if (GSP_WARN_ON(n > GSP_CUMAS_MAX_WINDOW))
		return 0;
	c->nodes = 0;
	for (i = 0; i < n; i++)
		c->cur[i] = (u8)i;
	best = gsp_cumas_makespan(c->t, c->cur, n, free);
	if (n < 2) {
		for (i = 0; i < n; i++)
			c->order[i] = (u8)i;
		return best;
	}
	m = gsp_cumas_neh(c, n, free);
	m = gsp_cumas_improve(c, n, free, m, GSP_CUMAS_LS_PASSES);
	if (m < best)
		return m;
	for (i = 0; i < n; i++)
		c->order[i] = (u8)i;
	return best;
}

/**
 * gsp_cumas_solve() - order a window of tasks for the least makespan
 * @c: scratch with @c->t filled; the order goes to @c->order
 * @n: number of tasks, at most GSP_CUMAS_MAX_WINDOW
 * @free: when copy-in, compute and copy-out become free
 *
 * Exact for n <= GSP_CUMAS_EXACT_MAX (branch and bound seeded with
 * gsp_cumas_heuristic()), the heuristic above. Among equally good orders
 * arrival order wins, then the heuristic's. The pick does not call it:
 * it is the reference that tests and tools measure the heuristic against.
 *
 * Return: the makespan of the order found.
 */
u64 gsp_cumas_solve(struct gsp_cumas *c, u32 n, const u64 *free)
{
	u64 best;

	best = gsp_cumas_heuristic(c, n, free);
	if (n >= 2 && n <= GSP_CUMAS_EXACT_MAX)
		best = gsp_cumas_bnb(c, n, free, best);
	return best;
}

/* When @engine is expected to be free: running job, then ready jobs. */
static u64 gsp_cumas_engine_free(const struct gsp_sched *s, u32 engine,
				 u64 now_ns)
{
	const struct gsp_engine_state *es = &s->eng[engine];
	u64 t = now_ns;

	if (es->running && es->run_start_ns + es->run_cost_ns > t)
		t = es->run_start_ns + es->run_cost_ns;
	return t + es->queued_cost_ns;
}

/**
 * gsp_cumas_pick() - the next BE copy-in job in CuMAS order
 * @s: scheduler, reorder on
 * @now_ns: current time
 *
 * The window is the run of up to params.window oldest BE task heads on
 * the H2D engine that are first in their tenant's queue, stopping at the
 * first plain copy. The first task of the order gsp_cumas_heuristic()
 * finds runs; every older task it overtakes counts one bypass, and a task
 * overtaken window times runs next, so no task waits behind more than
 * window later ones.
 *
 * Return: the job, or NULL if no BE job is ready.
 */
struct gsp_job *gsp_cumas_pick(struct gsp_sched *s, u64 now_ns)
{
	struct gsp_class_rq *rq = &s->eng[GSP_ENGINE_H2D].rq[GSP_CLASS_BE];
	struct gsp_cumas *c = &s->cumas;
	u32 w = s->p.window, n = 0, scan = 0, i;
	struct gsp_job *j, *first, *chosen;
	u64 free[3];

	first = list_first_entry_or_null(&rq->fifo, struct gsp_job, gnode);
	if (!first)
		return NULL;
	list_for_each_entry(j, &rq->fifo, gnode) {
		if (n == w || scan++ >= 4 * w || !gsp_job_is_task(j))
			break;
		if (j != list_first_entry(&j->ent->eng[GSP_ENGINE_H2D].queue,
					  struct gsp_job, node))
			continue;
		c->jobs[n] = j;
		c->t[n].s = min_t(u64, j->task_ns[GSP_ENGINE_H2D],
				  GSP_CHARGE_MAX_NS);
		c->t[n].p = min_t(u64, j->task_ns[GSP_ENGINE_COMPUTE],
				  GSP_CHARGE_MAX_NS);
		c->t[n].r = min_t(u64, j->task_ns[GSP_ENGINE_D2H],
				  GSP_CHARGE_MAX_NS);
		n++;
	}
	if (n < 2)
		return first;
	for (i = 0; i < n; i++)
		if (c->jobs[i]->bypassed >= w)
			return c->jobs[i];
	free[0] = now_ns;
	free[1] = gsp_cumas_engine_free(s, GSP_ENGINE_COMPUTE, now_ns);
	free[2] = gsp_cumas_engine_free(s, GSP_ENGINE_D2H, now_ns);
	gsp_cumas_heuristic(c, n, free);
	chosen = c->jobs[c->order[0]];
	for (i = 0; i < n; i++)
		if (c->jobs[i]->seq < chosen->seq)
			c->jobs[i]->bypassed++;
	return chosen;
}
