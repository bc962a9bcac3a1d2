// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * BE scheduling: the FIFO of deferred ops in program order, the
 * dispatcher thread that issues them under leases from the arbiter (and
 * renews them), drains, and the synchronous gates. Apart from the rest
 * because its lease state is the dispatcher thread's alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "dispatch_internal.h"

/* BE leases (dispatcher thread only) ------------------------------------ */

#define RING	(MAX_DEPTH + 2)

static struct {
	int open;
	uint32_t engine;
	CUcontext ctx;
	uint64_t handle, t0, est_ns, host_ns;
	uint64_t renewed;		/* grant or last renewal, host time */
	int renew_err;			/* a renewal failed: stop trying */
	int preempted;			/* resumed after lease_preempt(): host-timed */
	CUcontext ev_ctx;		/* events below belong to it */
	/*
	 * End events of the ops in flight, oldest at head. A ring of
	 * MAX_DEPTH + 2 so that a new slot never reuses prev, created once
	 * per context, never per op.
	 */
	CUevent start, ring[RING];
	const void *rkey[RING];
	uint64_t rcost[RING];		/* estimate of each, for ahead_ns */
	unsigned int rgen[RING];	/* the lease (gen) that issued each */
	char rskip[RING];		/* in flight across a preemption: untimed */
	unsigned int gen;		/* this lease */
	CUevent lprev;			/* last retired op of this lease */
	uint64_t ahead_ns;		/* estimated GPU time in flight */
	unsigned int head, count;	/* outstanding ops in ring */
	int started;
	CUevent prev;			/* last retired marker */
	unsigned int nops;
} lease;

static void retire_one(void);

/* How often a lease that waits on the GPU is renewed; 0: never. */
static uint64_t renew_every(void)
{
	uint64_t wd;

	if (!tenant.progress)
		return 0;
	if (!tenant.renew_auto)
		return tenant.renew_ns;
	wd = tenant.board ? gsp_board_load(&tenant.board->watchdog_ns) : 0;
	return wd ? wd / 4 : RENEW_DEFAULT_NS;
}

/*
 * While the dispatcher waits on the GPU for the open lease's work (or a
 * gated call), it renews the lease every renew_every(), so the watchdog
 * tells a long kernel from a stuck process: a renewal says the holder is
 * alive (GSPACE_COMPLETE_PROGRESS). The GPU time so far it reports is
 * the host time since the grant, which for a lease held by a long kernel
 * is that kernel's time; COMPLETE then charges only what the measured
 * span adds. A failed renewal is left to lease_end(), whose COMPLETE
 * fails the same way.
 */
static void lease_renew(void)
{
	struct gspace_complete c = { .size = sizeof(c) };
	uint64_t now, every;
	int err;

	if (!lease.open || lease.renew_err)
		return;
	every = renew_every();
	now = now_ns();
	if (!every || now - lease.renewed < every)
		return;
	lease.renewed = now;
	c.flags = GSPACE_COMPLETE_PROGRESS;
	c.handle = lease.handle;
	c.gpu_ns = now - lease.t0 < GSPACE_COST_MAX_NS ? now - lease.t0 :
						     GSPACE_COST_MAX_NS;
	err = tenant.api.complete(tenant.g, &c);
	if (err) {
		lease.renew_err = err;
		return;
	}
	atomic_fetch_add(&gsp_ctr.renewals, 1);
	gsp_log(2, "lease %" PRIu64 " renewed, %llu ns so far", lease.handle,
		(unsigned long long)c.gpu_ns);
}

static void lease_preempt(void);

/* While the dispatcher waits on the GPU for the open lease's work. */
static void lease_tick(void)
{
	lease_preempt();
	lease_renew();
}

/* ev_wait() for an op of the open lease: renews it meanwhile. */
static void lease_ev_wait(CUevent ev)
{
	ev_wait_then(ev, lease_tick);
}

static void lease_events(CUcontext ctx)
{
	unsigned int i, n = RING;

	if (lease.ev_ctx == ctx)
		return;
	while (lease.count)
		retire_one();
	lease.prev = NULL;
	if (lease.ev_ctx) {
		cudrv.ev_destroy(lease.start);
		for (i = 0; i < n; i++)
			cudrv.ev_destroy(lease.ring[i]);
	}
	lease.ev_ctx = NULL;
	if (cudrv.ev_create(&lease.start, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
		return;
	for (i = 0; i < n; i++)
		if (cudrv.ev_create(&lease.ring[i], CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
			while (i--)
				cudrv.ev_destroy(lease.ring[i]);
			cudrv.ev_destroy(lease.start);
			return;
		}
	lease.ev_ctx = ctx;
}

/* Retires the oldest outstanding op: waits for it, learns its cost. */
static void retire_one(void)
{
	CUevent ev = lease.ring[lease.head];

	lease_ev_wait(ev);
	if (lease.prev && lease.rkey[lease.head] && !lease.rskip[lease.head])
		gsp_cost_put(lease.rkey[lease.head], elapsed_ns(lease.prev, ev));
	lease.prev = ev;
	if (lease.rgen[lease.head] == lease.gen)
		lease.lprev = ev;
	lease.ahead_ns -= lease.rcost[lease.head];
	lease.head = (lease.head + 1) % RING;
	lease.count--;
}

/*
 * A slot for the end event of the next op. At most depth ops are in
 * flight, or more (up to MAX_DEPTH) while their estimated GPU time stays
 * under AHEAD_NS: short kernels then do not wait for each other, and BE
 * work queued on the GPU is still bounded in time. An op never measured
 * counts as AHEAD_NS.
 */
static CUevent next_end_event(const void *key)
{
	uint64_t c = key ? cost_get(key) : 0;
	unsigned int slot;

	if (!c)
		c = AHEAD_NS;
	while (lease.count >= tenant.depth &&
	       (lease.count >= MAX_DEPTH || lease.ahead_ns + c > AHEAD_NS))
		retire_one();
	slot = (lease.head + lease.count) % RING;
	lease.rkey[slot] = key;
	lease.rcost[slot] = c;
	lease.rgen[slot] = lease.gen;
	lease.rskip[slot] = 0;
	lease.ahead_ns += c;
	lease.count++;
	return lease.ring[slot];
}

/* Gives back the slot next_end_event() just handed out: nothing recorded. */
static void forget_last(void)
{
	lease.count--;
	lease.ahead_ns -= lease.rcost[(lease.head + lease.count) % RING];
}

/* COMPLETEs the lease's handle with @gpu ns; rejoins if the arbiter lost it. */
static void lease_complete(uint64_t gpu)
{
	struct gspace_complete c = { .size = sizeof(c) };
	int err;

	if (gpu > GSPACE_COST_MAX_NS)
		gpu = GSPACE_COST_MAX_NS;
	c.handle = lease.handle;
	c.gpu_ns = gpu;
	err = tenant.api.complete(tenant.g, &c);
	gsp_log(2, "lease %" PRIu64 " engine %u: %u ops, %" PRIu64 " ns",
		lease.handle, lease.engine, lease.nops, gpu);
	if (err == -EALREADY) {
		gsp_log(1, "lease %" PRIu64 " had already ended (watchdog)",
			lease.handle);
		rejoin(GSP_REJOIN_WATCHDOG, "COMPLETE", err);
	} else if (err) {
		rejoin(GSP_REJOIN_LOST, "COMPLETE", err);
	}
}

/*
 * Ends the lease. With @wait_all it first waits for all its ops: the
 * default, because the next tenant's events would otherwise time our tail
 * as theirs (on the H200, 4 BE tenants with 100 us and 1 ms kernels got
 * 4.5 % and 45 % instead of 25 % each). With GSP_OVERLAP=1, a lease that
 * ends for the quantum, another engine or context, or LC work leaves its
 * ops in flight, charged at their EWMA, so the GPU does not idle for the
 * arbiter round trips at the boundary: better for one tenant alone.
 */
static void lease_end(int wait_all)
{
	uint64_t gpu = lease.host_ns;
	unsigned int i;

	if (!lease.open)
		return;
	if (wait_all)
		while (lease.count)
			retire_one();
	if (lease.started && lease.lprev)
		gpu += elapsed_ns(lease.start, lease.lprev);
	for (i = 0; i < lease.count; i++) {
		unsigned int slot = (lease.head + i) % RING;

		if (lease.rgen[slot] == lease.gen && lease.rkey[slot])
			gpu += cost_get(lease.rkey[slot]);
	}
	/* Its events also span the time the engine was another's. */
	if (lease.preempted)
		gpu = now_ns() - lease.t0;
	lease.open = 0;
	lease_complete(gpu);
}

/*
 * Submits a job of @cost_ns on @engine and waits until it is granted,
 * rejoining the arbiter first if it marked us hung or went away. 0 and
 * *@handle, or <0 once the interposer passes through (reported).
 */
int job_granted(uint32_t engine, uint64_t cost_ns, uint64_t *handle)
{
	for (;;) {
		struct gspace_submit sub = { .size = sizeof(sub) };
		struct gspace_wait w = { .size = sizeof(w) };
		int err;

		sub.engine = engine;
		sub.cost_ns = cost_ns;
		err = tenant.api.submit(tenant.g, &sub);
		if (err) {
			if (rejoin(err == -EBUSY ? GSP_REJOIN_HUNG :
						   GSP_REJOIN_LOST, "SUBMIT", err))
				return err;
			continue;
		}
		w.flags = GSPACE_WAIT_GRANTED;
		w.handle = sub.handle;
		do {
			w.deadline_ns = now_ns() + 100000000ULL;
			err = tenant.api.wait(tenant.g, &w);
		} while (err == -ETIME || err == -EINTR);
		if (err || w.status) {
			if (rejoin(!err && w.status == -ETIMEDOUT ?
				   GSP_REJOIN_WATCHDOG : GSP_REJOIN_LOST,
				   "WAIT", err ? err : w.status))
				return err ? err : w.status;
			continue;
		}
		*handle = sub.handle;
		/* A lease again: rejoining worked, whatever comes next. */
		tenant.rejoin_streak = 0;
		return 0;
	}
}

/*
 * Takes a lease for @op's engine in its context; 0, or <0 if the arbiter
 * is lost. A *@spatial op (a transformed launch, or one confined to a
 * green context) does not wait for LC work: it runs beside it. Another
 * waits, unless the LC's request comes to leave room for a green context
 * meanwhile (*@spatial then set; *@why: see gsp_sp_green()).
 */
static int lease_begin(struct gsp_op *op, int *spatial, int *why)
{
	uint32_t engine = op->engine;
	CUcontext ctx = op->ctx;
	uint64_t handle, t0 = 0;
	int err;

	while (!*spatial && lc_active()) {
		if (!t0)
			t0 = now_ns();
		sleep_ns(BOARD_POLL_NS);
		*spatial = gsp_sp_on() && gsp_sp_green(op, why);
	}
	if (t0) {
		atomic_fetch_add(&gsp_ctr.lc_waits, 1);
		if (op->kind == OP_GATE)
			atomic_fetch_add(&gsp_ctr.lc_waits_sync, 1);
		atomic_fetch_add(&gsp_ctr.lc_wait_us, (now_ns() - t0) / 1000);
	}
	err = job_granted(engine, tenant.quantum_ns, &handle);
	if (err)
		return err;
	atomic_fetch_add(&gsp_ctr.leases, 1);
	atomic_fetch_add(&gsp_ctr.jobs, 1);
	/* Ops of the last lease may still be in flight: keep the ring. */
	lease.nops = 0;
	lease.gen++;
	lease.lprev = NULL;
	lease.started = 0;
	lease.est_ns = lease.host_ns = 0;
	lease.open = 1;
	lease.engine = engine;
	lease.ctx = ctx;
	lease.handle = handle;
	lease.t0 = now_ns();
	lease.renewed = lease.t0;
	lease.renew_err = 0;
	lease.preempted = 0;
	lease_events(ctx);
	return 0;
}

/*
 * The preemptive time plane (protect preemptive): the open lease has run
 * its quantum on the compute engine, another job waits for that engine,
 * and transformed kernels of ours run. A plain kernel cannot give its
 * slots back, so a lease whose work is only plain kernels runs on.
 */
static int lease_preemptible(void)
{
	const struct gsp_board *b = tenant.board;

	return lease.open && lease.engine == GSPACE_ENGINE_COMPUTE && b &&
	       gsp_sp_on() &&
	       gsp_board_protect(b, tenant.device) == GSP_PROTECT_PREEMPTIVE &&
	       now_ns() - lease.t0 >= tenant.quantum_ns &&
	       gsp_board_waiting(b, tenant.device) &&
	       gsp_sp_preemptible();
}

/*
 * Gives the lease back before its kernels end: raises the override, so
 * that every block of them leaves at its next task boundary, waits until
 * none holds a slot, for one more quantum at most (a task may be long:
 * the next tenant's blocks then start beside the last of them), COMPLETEs
 * the lease for the host time it held the engine, then SUBMITs again
 * and, once granted, drops the override: the watcher tops the jobs up,
 * and the lease goes on under the new handle, host-timed (its events
 * span the time the engine was another's, so they teach no cost either).
 */
static void lease_preempt(void)
{
	uint64_t handle, t0;
	unsigned int i;
	int err;

	if (!lease_preemptible())
		return;
	t0 = now_ns();
	gsp_sp_preempt(1);
	while (!gsp_sp_drained() && gsp_sp_preemptible() &&
	       now_ns() - t0 < tenant.quantum_ns) {
		sleep_ns(POLL_NS);
		lease_renew();
	}
	if (!gsp_sp_drained())
		atomic_fetch_add(&gsp_ctr.preempt_unseen, 1);
	gsp_sp_drain_end();
	lease_complete(now_ns() - lease.t0);
	err = job_granted(lease.engine, tenant.quantum_ns, &handle);
	gsp_sp_preempt(0);
	if (err) {
		/* Passing through from now on: nothing to resume under. */
		lease.open = 0;
		return;
	}
	for (i = 0; i < lease.count; i++)
		lease.rskip[(lease.head + i) % RING] = 1;
	lease.handle = handle;
	lease.t0 = now_ns();
	lease.renewed = lease.t0;
	lease.renew_err = 0;
	lease.preempted = 1;
	atomic_fetch_add(&gsp_ctr.leases, 1);
	atomic_fetch_add(&gsp_ctr.preemptions, 1);
	gsp_log(2, "lease preempted: the engine was another's for %" PRIu64 " ns; now lease %" PRIu64,
		lease.t0 - t0, handle);
}

/* Does @op (@spatial: a transformed launch) fit in the open lease? */
static int lease_fits(const struct gsp_op *op, int spatial)
{
	uint64_t c;

	if (!lease.open || lease.engine != op->engine || lease.ctx != op->ctx)
		return 0;
	if (now_ns() - lease.t0 >= tenant.quantum_ns)
		return 0;
	c = op->key ? cost_get(op->key) : 0;
	if (lease.nops && lease.est_ns + c > tenant.quantum_ns)
		return 0;
	return spatial || !lc_active();
}

/*
 * One wait of the dispatcher for a gated call (tenant.mu held): a synchronous
 * call can take long, and the lease is renewed as for GPU work, and under
 * the preemptive time plane looked at every PREEMPT_POLL_NS.
 */
static void gate_wait_renewing(void)
{
	uint64_t every = renew_every(), until = UINT64_MAX;
	struct timespec ts;

	if (lease.open && !lease.renew_err && every)
		until = lease.renewed + every;
	if (lease.open && tenant.board &&
	    gsp_board_protect(tenant.board, tenant.device) == GSP_PROTECT_PREEMPTIVE &&
	    until > now_ns() + PREEMPT_POLL_NS)
		until = now_ns() + PREEMPT_POLL_NS;
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

/* Issues one op under the lease, with events around it. */
static CUresult issue_leased(struct gsp_op *op)
{
	CUstream evs = op->stream;
	int timed = lease.ev_ctx == op->ctx;
	CUresult r;

	if (op->kind == OP_GATE) {
		struct gsp_gate *gt = op->u.gate;

		gt->start = NULL;
		gt->end = NULL;
		if (timed && gt->stream) {
			if (!lease.started) {
				gt->start = lease.start;
				lease.started = 1;
				if (!lease.count)
					lease.prev = lease.start;
			}
			gt->end = next_end_event(op->key);
		}
		pthread_mutex_lock(&tenant.mu);
		gt->state = 1;
		pthread_cond_broadcast(&tenant.cv);
		while (gt->state != 2)
			gate_wait_renewing();
		pthread_mutex_unlock(&tenant.mu);
		if (gt->end && !gt->issued_ok)
			forget_last();
		lease.host_ns += gt->host_ns;
		return CUDA_SUCCESS;
	}
	if (timed && !lease.started) {
		if (cudrv.ev_record[0](lease.start, evs) == CUDA_SUCCESS) {
			lease.started = 1;
			/* Else an op in flight would be timed from it. */
			if (!lease.count)
				lease.prev = lease.start;
		}
	}
	r = gsp_op_issue(op);
	if (r == CUDA_SUCCESS && timed && lease.started) {
		CUevent e = next_end_event(op->key);

		if (cudrv.ev_record[0](e, evs) != CUDA_SUCCESS)
			forget_last();
	}
	lease.est_ns += op->key ? cost_get(op->key) : 0;
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
		if (lease.open && !lease_fits(op, spatial))
			lease_end(!tenant.overlap);
		if (!lease.open && atomic_load(&tenant.mode) == GSP_MODE_BE)
			lease_begin(op, &spatial, &why);
		if (!spatial)
			gsp_sp_gated(why);
	}
	if (lease.open) {
		r = issue_leased(op);
		lease.nops++;
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

void *dispatcher_main(void *arg)
{
	(void)arg;
	tight_timers();
	pthread_mutex_lock(&tenant.mu);
	for (;;) {
		struct gsp_op *op;

		while (!tenant.head && !tenant.stop) {
			tenant.dispatcher_idle = 1;
			if (lease.open) {
				struct timespec ts;
				uint64_t until = now_ns() + IDLE_LEASE_NS;

				ts.tv_sec = (time_t)(until / 1000000000ULL);
				ts.tv_nsec = (long)(until % 1000000000ULL);
				if (pthread_cond_timedwait(&tenant.work, &tenant.mu, &ts) ==
				    ETIMEDOUT && !tenant.head) {
					tenant.dispatcher_idle = 0;
					pthread_mutex_unlock(&tenant.mu);
					lease_end(1);
					pthread_mutex_lock(&tenant.mu);
				}
			} else {
				pthread_cond_wait(&tenant.work, &tenant.mu);
			}
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
	lease_end(1);
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
