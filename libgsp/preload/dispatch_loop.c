// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * BE scheduling: the FIFO of deferred ops in program order, the
 * dispatcher thread that issues them under leases (dispatch_lease.c),
 * drains, and the synchronous gates.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "dispatch_internal.h"
#include "dispatch_lease.h"

/*
 * One wait of the dispatcher for a gated call (tenant.mu held): a synchronous
 * call can take long, and the lease is renewed as for GPU work, and under
 * the preemptive time plane looked at every PREEMPT_POLL_NS; closing
 * leases are looked at when due.
 */
static void gate_wait_renewing(void)
{
	uint64_t every = renew_every(), until = UINT64_MAX, c;
	struct timespec ts;

	if (lease_cur->open && !lease_cur->renew_err && every)
		until = lease_cur->renewed + every;
	if (lease_cur->open && tenant.board &&
	    gsp_board_protect(tenant.board, tenant.device) == GSP_PROTECT_PREEMPTIVE &&
	    until > now_ns() + PREEMPT_POLL_NS)
		until = now_ns() + PREEMPT_POLL_NS;
	c = closing_wake();
	if (c < until)
		until = c;
	if (until == UINT64_MAX) {
		pthread_cond_wait(&tenant.cv, &tenant.mu);
		return;
	}
	ts.tv_sec = (time_t)(until / 1000000000ULL);
	ts.tv_nsec = (long)(until % 1000000000ULL);
	if (pthread_cond_timedwait(&tenant.cv, &tenant.mu, &ts) == ETIMEDOUT) {
		pthread_mutex_unlock(&tenant.mu);
		lease_tick();
		pthread_mutex_lock(&tenant.mu);
	}
}

/* When the work of every open lease should be done: after it, @op's. */
static uint64_t due_after(uint64_t now)
{
	uint64_t t = now;
	unsigned int i;

	for (i = 0; i < GSPACE_ENGINE_COUNT; i++)
		if (lease_slots[i].open && lease_slots[i].due_ns > t)
			t = lease_slots[i].due_ns;
	return t;
}

/* Issues one op under the lease, with events around it. */
static CUresult issue_leased(struct gsp_op *op)
{
	struct lease *L = lease_cur;
	CUstream evs = op->stream;
	int timed = L->ev_ctx == op->ctx;
	uint64_t bytes = 0;
	CUresult r;

	if (op->engine == GSPACE_ENGINE_COPY_H2D ||
	    op->engine == GSPACE_ENGINE_COPY_D2H)
		bytes = op_bytes(op);
	if (op->kind == OP_GATE) {
		struct gsp_gate *gt = op->u.gate;

		gt->start = NULL;
		gt->end = NULL;
		if (timed && gt->stream) {
			if (!L->started) {
				gt->start = L->start;
				L->started = 1;
				if (!L->count)
					L->prev = L->start;
			}
			gt->end = next_end_event(L, op->key, 0);
		}
		pthread_mutex_lock(&tenant.mu);
		gt->state = 1;
		pthread_cond_broadcast(&tenant.cv);
		while (gt->state != 2)
			gate_wait_renewing();
		pthread_mutex_unlock(&tenant.mu);
		if (gt->end && !gt->issued_ok)
			forget_last(L);
		L->host_ns += gt->host_ns;
		return CUDA_SUCCESS;
	}
	if (timed && !L->started) {
		if (cudrv.ev_record[0](L->start, evs) == CUDA_SUCCESS) {
			L->started = 1;
			/* Else an op in flight would be timed from it. */
			if (!L->count)
				L->prev = L->start;
		}
	}
	r = gsp_op_issue(op);
	if (r == CUDA_SUCCESS && timed && L->started) {
		CUevent e = next_end_event(L, op->key, bytes);

		if (cudrv.ev_record[0](e, evs) != CUDA_SUCCESS)
			forget_last(L);
	}
	L->est_ns += op->key ? cost_get(op->key) : 0;
	L->due_ns = due_after(now_ns()) + op_est(op);
	return r;
}

static void dispatch_one(struct gsp_op *op)
{
	int spatial = 0, why = 0;
	CUresult r;

	ensure_ctx(op->ctx);
	if (op->engine >= GSPACE_ENGINE_COUNT) {
		/* Event records and waits: no GPU time, no lease. */
		r = gsp_op_issue(op);
		goto done;
	}
	if (atomic_load(&tenant.mode) == GSP_MODE_BE) {
		/*
		 * Transformed, or confined to a green context while LC work
		 * runs, is known before the time-plane gate.
		 */
		spatial = gsp_sp_on() && gsp_sp_prepare(op);
		if (!spatial && gsp_sp_on() && lc_confine())
			spatial = gsp_sp_green(op, &why);
		task_note(op);
		if (lease_cur->open && !lease_fits(op, spatial)) {
			if (ahead_ok(op)) {
				lease_cur->closing = 1;	/* poll_closing() ends it */
				atomic_fetch_add(&gsp_ctr.lease_ahead, 1);
				ahead_hold(lease_cur);
			} else {
				lease_end(lease_cur, !tenant.overlap);
			}
		}
		if ((!lease_cur->open || lease_cur->closing) &&
		    atomic_load(&tenant.mode) == GSP_MODE_BE)
			lease_begin(op, &spatial, &why);
		if (!spatial)
			gsp_sp_gated(why);
	}
	if (lease_cur->open && !lease_cur->closing) {
		r = issue_leased(op);
		lease_cur->nops++;
	} else if (op->kind != OP_GATE &&
		   atomic_load(&tenant.mode) == GSP_MODE_REFUSED) {
		r = gsp_refused();
	} else if (op->kind == OP_GATE) {
		pthread_mutex_lock(&tenant.mu);
		op->u.gate->start = op->u.gate->end = NULL;
		op->u.gate->state = 1;
		pthread_cond_broadcast(&tenant.cv);
		while (op->u.gate->state != 2)
			pthread_cond_wait(&tenant.cv, &tenant.mu);
		pthread_mutex_unlock(&tenant.mu);
		r = CUDA_SUCCESS;
	} else {
		r = gsp_op_issue(op);
	}
done:
	if (r != CUDA_SUCCESS) {
		gsp_log(1, "deferred call failed with error %d; reported at the next sync point",
			(int)r);
		atomic_fetch_add(&gsp_ctr.errors_sticky, 1);
	}
	pthread_mutex_lock(&tenant.mu);
	if (r != CUDA_SUCCESS && tenant.sticky == CUDA_SUCCESS)
		tenant.sticky = r;
	tenant.issued++;
	atomic_fetch_sub(&tenant.pending, 1);
	/* Wake only whom this op concerns: a drain it ends, room it makes. */
	if (tenant.issued >= tenant.drain_at) {
		tenant.drain_at = UINT64_MAX;
		pthread_cond_broadcast(&tenant.cv);
	}
	if (tenant.space_waiters && tenant.enq - tenant.issued <= FIFO_MAX / 2)
		pthread_cond_broadcast(&tenant.space);
	pthread_mutex_unlock(&tenant.mu);
}

/*
 * The dispatcher's wait for work (tenant.mu held): an open lease is kept
 * IDLE_LEASE_NS after the FIFO empties, then ended; closing leases are
 * ended as their work is done.
 */
static void idle_wait(uint64_t *idle_at)
{
	uint64_t until = UINT64_MAX, c;
	struct timespec ts;

	if (!lease_cur->open || lease_cur->closing) {
		if (!closing_any()) {
			pthread_cond_wait(&tenant.work, &tenant.mu);
			return;
		}
	} else {
		if (!*idle_at)
			*idle_at = now_ns();
		until = *idle_at + IDLE_LEASE_NS;
	}
	c = closing_wake();
	if (c < until)
		until = c;
	ts.tv_sec = (time_t)(until / 1000000000ULL);
	ts.tv_nsec = (long)(until % 1000000000ULL);
	if (pthread_cond_timedwait(&tenant.work, &tenant.mu, &ts) != ETIMEDOUT ||
	    tenant.head)
		return;
	tenant.dispatcher_idle = 0;
	pthread_mutex_unlock(&tenant.mu);
	poll_closing();
	if (lease_cur->open && !lease_cur->closing && now_ns() >= *idle_at + IDLE_LEASE_NS)
		lease_end(lease_cur, 1);
	pthread_mutex_lock(&tenant.mu);
}

void *dispatcher_main(void *arg)
{
	unsigned int i;

	(void)arg;
	tight_timers();
	pthread_mutex_lock(&tenant.mu);
	for (;;) {
		struct gsp_op *op;
		uint64_t idle_at = 0;

		while (!tenant.head && !tenant.stop) {
			tenant.dispatcher_idle = 1;
			idle_wait(&idle_at);
		}
		tenant.dispatcher_idle = 0;
		if (!tenant.head)
			break;
		op = tenant.head;
		tenant.head = op->next;
		if (!tenant.head)
			tenant.tail = NULL;
		pthread_mutex_unlock(&tenant.mu);
		dispatch_one(op);
		if (op->kind == OP_GATE)
			free(op->u.gate);
		free(op->buf);
		free(op->buf2);
		free(op);
		pthread_mutex_lock(&tenant.mu);
	}
	pthread_mutex_unlock(&tenant.mu);
	for (i = 0; i < GSPACE_ENGINE_COUNT; i++)
		lease_end(&lease_slots[i], 1);
	return NULL;
}

void gsp_enqueue(struct gsp_op *op)
{
	op->next = NULL;
	atomic_fetch_add(&gsp_ctr.deferred, 1);
	pthread_mutex_lock(&tenant.mu);
	/*
	 * Back-pressure, as the driver's own queue gives: without it a
	 * program launching in a loop would queue minutes of GPU work that
	 * its next sync then waits for.
	 */
	while (tenant.enq - tenant.issued >= FIFO_MAX && tenant.dispatcher_running) {
		tenant.space_waiters++;
		pthread_cond_wait(&tenant.space, &tenant.mu);
		tenant.space_waiters--;
	}
	if (tenant.tail)
		tenant.tail->next = op;
	else
		tenant.head = op;
	tenant.tail = op;
	tenant.enq++;
	atomic_fetch_add(&tenant.pending, 1);
	if (tenant.dispatcher_idle)
		pthread_cond_signal(&tenant.work);
	pthread_mutex_unlock(&tenant.mu);
}

/* Waits until everything enqueued so far is issued, for at most @max_ns. */
CUresult drain_for(uint64_t max_ns, int take_sticky)
{
	uint64_t target, until = now_ns() + max_ns;
	CUresult sticky;

	if (!atomic_load(&tenant.pending) &&
	    __atomic_load_n(&tenant.sticky, __ATOMIC_RELAXED) == CUDA_SUCCESS)
		return CUDA_SUCCESS;
	atomic_fetch_add(&gsp_ctr.drains, 1);
	pthread_mutex_lock(&tenant.mu);
	target = tenant.enq;
	while (tenant.issued < target && tenant.dispatcher_running) {
		struct timespec ts = { .tv_sec = (time_t)(until / 1000000000ULL),
				       .tv_nsec = (long)(until % 1000000000ULL) };

		if (target < tenant.drain_at)
			tenant.drain_at = target;
		if (pthread_cond_timedwait(&tenant.cv, &tenant.mu, &ts) == ETIMEDOUT)
			break;
	}
	sticky = tenant.sticky;
	if (take_sticky)
		tenant.sticky = CUDA_SUCCESS;
	pthread_mutex_unlock(&tenant.mu);
	return sticky;
}

CUresult gsp_drain(void)
{
	return drain_for(UINT64_MAX / 2, 1);
}

/* Synchronous gates -------------------------------------------------------- */

void gsp_gate_begin(struct gsp_gate_ticket *t, uint32_t engine, CUcontext ctx,
		    CUstream stream, const void *key)
{
	struct gsp_gate *gt;
	struct gsp_op *op;

	t->gate = NULL;
	t->sticky = gsp_drain();
	t->t0 = now_ns();
	if (gsp_mode() != GSP_MODE_BE || !ctx)
		return;
	gt = calloc(1, sizeof(*gt));
	op = calloc(1, sizeof(*op));
	if (!gt || !op) {
		free(gt);
		free(op);
		return;
	}
	gt->engine = engine;
	gt->stream = stream;
	op->kind = OP_GATE;
	op->engine = engine;
	op->ctx = ctx;
	op->stream = stream;
	op->key = key;
	op->u.gate = gt;
	gsp_enqueue(op);
	pthread_mutex_lock(&tenant.mu);
	while (gt->state == 0)
		pthread_cond_wait(&tenant.cv, &tenant.mu);
	pthread_mutex_unlock(&tenant.mu);
	t->gate = gt;
	if (gt->start)
		cudrv.ev_record[0](gt->start, stream);
	t->t0 = now_ns();
}

void gsp_gate_end(struct gsp_gate_ticket *t, CUresult r)
{
	struct gsp_gate *gt = t->gate;

	if (!gt)
		return;
	gt->issued_ok = 0;
	if (gt->end && r == CUDA_SUCCESS)
		gt->issued_ok = cudrv.ev_record[0](gt->end, gt->stream) == CUDA_SUCCESS;
	if (!gt->stream)
		gt->host_ns = now_ns() - t->t0;
	pthread_mutex_lock(&tenant.mu);
	gt->state = 2;
	pthread_cond_broadcast(&tenant.cv);
	/* From here on the gate is the dispatcher's; it frees it. */
	pthread_mutex_unlock(&tenant.mu);
}
