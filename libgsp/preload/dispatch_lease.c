// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * BE leases (dispatch_lease.h): each one's life, from the arbiter's grant
 * through renewals, preemption and closing to its COMPLETE with the GPU
 * time its ops' events measured. The dispatcher thread that takes ops
 * from the FIFO and issues them under these is dispatch_loop.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "dispatch_internal.h"
#include "dispatch_lease.h"

#define CLOSE_POLL_NS	20000ULL	/* a closing lease's look, once overdue */

/* The dispatcher thread's alone (dispatch_lease.h). */
struct lease lease_slots[GSPACE_ENGINE_COUNT];
struct lease *lease_cur = &lease_slots[0];

static void retire_one(struct lease *L);

/* The slot of a lease on @engine. */
static struct lease *slot_for(uint32_t engine)
{
	return tenant.ahead && engine < GSPACE_ENGINE_COUNT ? &lease_slots[engine] :
							      &lease_slots[0];
}

/* How often a lease that waits on the GPU is renewed; 0: never. */
uint64_t renew_every(void)
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
 * While the dispatcher waits on the GPU for a lease's work (or a gated
 * call), it renews each open lease every renew_every(), so the watchdog
 * tells a long kernel from a stuck process: a renewal says the holder is
 * alive (GSPACE_COMPLETE_PROGRESS). The GPU time so far it reports is
 * the host time since the grant, which for a lease held by a long kernel
 * is that kernel's time; COMPLETE then charges only what the measured
 * span adds. A failed renewal is left to lease_end(), whose COMPLETE
 * fails the same way.
 */
static void lease_renew(struct lease *L)
{
	struct gspace_complete c = { .size = sizeof(c) };
	uint64_t now, every;
	int err;

	if (!L->open || L->renew_err)
		return;
	every = renew_every();
	now = now_ns();
	if (!every || now - L->renewed < every)
		return;
	L->renewed = now;
	c.flags = GSPACE_COMPLETE_PROGRESS;
	c.handle = L->handle;
	c.gpu_ns = now - L->t0 < GSPACE_COST_MAX_NS ? now - L->t0 :
						 GSPACE_COST_MAX_NS;
	err = tenant.api.complete(tenant.g, &c);
	if (err) {
		L->renew_err = err;
		return;
	}
	atomic_fetch_add(&gsp_ctr.renewals, 1);
	gsp_log(2, "lease %" PRIu64 " renewed, %llu ns so far", L->handle,
		(unsigned long long)c.gpu_ns);
}

static void lease_preempt(void);

/* Is any lease closing (open, no more ops, not yet COMPLETEd)? */
int closing_any(void)
{
	unsigned int i;

	for (i = 0; i < GSPACE_ENGINE_COUNT; i++)
		if (lease_slots[i].open && lease_slots[i].closing)
			return 1;
	return 0;
}

/*
 * When to look at the closing leases next: when the first is due, and
 * every CLOSE_POLL_NS once one is overdue. UINT64_MAX if none.
 */
uint64_t closing_wake(void)
{
	uint64_t w = UINT64_MAX, now = now_ns();
	unsigned int i;

	for (i = 0; i < GSPACE_ENGINE_COUNT; i++) {
		const struct lease *L = &lease_slots[i];

		if (!L->open || !L->closing)
			continue;
		if (L->due_ns < w)
			w = L->due_ns;
	}
	if (w != UINT64_MAX && w < now + CLOSE_POLL_NS)
		w = now + CLOSE_POLL_NS;
	return w;
}

/*
 * Retires what the closing leases have done, and ends (COMPLETEs) those
 * whose ops are all done: the engine is free for others as soon as our
 * work on it is, not when the dispatcher next waits for it.
 */
void poll_closing(void)
{
	unsigned int i;

	for (i = 0; i < GSPACE_ENGINE_COUNT; i++) {
		struct lease *L = &lease_slots[i];

		if (!L->open || !L->closing)
			continue;
		while (L->count &&
		       cudrv.ev_query(L->ring[L->head]) != CUDA_ERROR_NOT_READY)
			retire_one(L);
		if (!L->count)
			lease_end(L, 1);
	}
}

/* While the dispatcher waits on the GPU for a lease's work. */
void lease_tick(void)
{
	static int ticking;
	unsigned int i;

	if (ticking)
		return;
	ticking = 1;
	lease_preempt();
	for (i = 0; i < GSPACE_ENGINE_COUNT; i++)
		lease_renew(&lease_slots[i]);
	poll_closing();
	ticking = 0;
}

/* ev_wait() for an op of an open lease: renews them meanwhile. */
static void lease_ev_wait(CUevent ev)
{
	ev_wait_then(ev, lease_tick);
}

static void lease_events(struct lease *L, CUcontext ctx)
{
	unsigned int i, n = RING;

	if (L->ev_ctx == ctx)
		return;
	while (L->count)
		retire_one(L);
	L->prev = NULL;
	if (L->ev_ctx) {
		cudrv.ev_destroy(L->start);
		for (i = 0; i < n; i++)
			cudrv.ev_destroy(L->ring[i]);
	}
	L->ev_ctx = NULL;
	if (cudrv.ev_create(&L->start, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
		return;
	for (i = 0; i < n; i++)
		if (cudrv.ev_create(&L->ring[i], CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
			while (i--)
				cudrv.ev_destroy(L->ring[i]);
			cudrv.ev_destroy(L->start);
			return;
		}
	L->ev_ctx = ctx;
}

/* Retires the oldest outstanding op: waits for it, learns its cost. */
static void retire_one(struct lease *L)
{
	CUevent ev = L->ring[L->head];

	lease_ev_wait(ev);
	if (L->prev && L->rkey[L->head] && !L->rskip[L->head]) {
		uint64_t ns = elapsed_ns(L->prev, ev);

		gsp_cost_put(L->rkey[L->head], ns);
		if (L->rbytes[L->head])
			bw_put(L->engine, L->rbytes[L->head], ns);
	}
	L->prev = ev;
	if (L->rgen[L->head] == L->gen)
		L->lprev = ev;
	L->ahead_ns -= L->rcost[L->head];
	L->head = (L->head + 1) % RING;
	L->count--;
}

/*
 * A slot for the end event of the next op. At most depth ops are in
 * flight, or more (up to MAX_DEPTH) while their estimated GPU time stays
 * under AHEAD_NS: short kernels then do not wait for each other, and BE
 * work queued on the GPU is still bounded in time. An op never measured
 * counts as AHEAD_NS.
 */
CUevent next_end_event(struct lease *L, const void *key, uint64_t bytes)
{
	uint64_t c = key ? cost_get(key) : 0;
	unsigned int slot;

	if (!c)
		c = AHEAD_NS;
	while (L->count >= tenant.depth &&
	       (L->count >= MAX_DEPTH || L->ahead_ns + c > AHEAD_NS))
		retire_one(L);
	slot = (L->head + L->count) % RING;
	L->rkey[slot] = key;
	L->rcost[slot] = c;
	L->rbytes[slot] = bytes;
	L->rgen[slot] = L->gen;
	L->rskip[slot] = 0;
	L->ahead_ns += c;
	L->count++;
	return L->ring[slot];
}

/* Gives back the slot next_end_event() just handed out: nothing recorded. */
void forget_last(struct lease *L)
{
	L->count--;
	L->ahead_ns -= L->rcost[(L->head + L->count) % RING];
}

/* COMPLETEs @L's handle with @gpu ns; rejoins if the arbiter lost it. */
static void lease_complete(struct lease *L, uint64_t gpu)
{
	struct gspace_complete c = { .size = sizeof(c) };
	int err;

	if (L->rejoins != atomic_load(&gsp_ctr.rejoins)) {
		/* Granted to the tenant we were before a rejoin: gone with it. */
		gsp_log(2, "lease %" PRIu64 " engine %u: dropped with the tenant that held it",
			L->handle, L->engine);
		return;
	}
	if (gpu > GSPACE_COST_MAX_NS)
		gpu = GSPACE_COST_MAX_NS;
	c.handle = L->handle;
	c.gpu_ns = gpu;
	err = tenant.api.complete(tenant.g, &c);
	gsp_log(2, "lease %" PRIu64 " engine %u: %u ops, %" PRIu64 " ns",
		L->handle, L->engine, L->nops, gpu);
	if (err == -EALREADY) {
		gsp_log(1, "lease %" PRIu64 " had already ended (watchdog)",
			L->handle);
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
void lease_end(struct lease *L, int wait_all)
{
	uint64_t gpu = L->host_ns;
	unsigned int i;

	if (!L->open)
		return;
	/* Ours now: poll_closing() (from the waits below) must not end it. */
	L->closing = 0;
	if (wait_all)
		while (L->count)
			retire_one(L);
	if (L->started && L->lprev)
		gpu += elapsed_ns(L->start, L->lprev);
	for (i = 0; i < L->count; i++) {
		unsigned int slot = (L->head + i) % RING;

		if (L->rgen[slot] == L->gen && L->rkey[slot])
			gpu += cost_get(L->rkey[slot]);
	}
	/* Its events also span the time the engine was another's. */
	if (L->preempted)
		gpu = now_ns() - L->t0;
	L->open = 0;
	lease_complete(L, gpu);
}

/*
 * Submits @sub (engine, cost and task set) and waits until it is
 * granted, rejoining the arbiter first if it marked us hung or went
 * away. With @poll (the dispatcher), the closing leases are looked at
 * while it waits: each is COMPLETEd once its work is done, so a lease
 * held while the next is asked for never waits on another tenant. 0 and
 * *@handle, or <0 once the interposer passes through (reported).
 */
static int submit_granted(const struct gspace_submit *req, uint64_t *handle,
			  int poll)
{
	for (;;) {
		struct gspace_submit sub = *req;
		struct gspace_wait w = { .size = sizeof(w) };
		int err;

		sub.size = sizeof(sub);
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
			uint64_t now = now_ns(), until = now + 100000000ULL;

			if (poll) {
				uint64_t c = closing_wake();

				if (c < until)
					until = c;
			}
			w.deadline_ns = until;
			err = tenant.api.wait(tenant.g, &w);
			if (poll && (err == -ETIME || err == -EINTR))
				lease_tick();
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
 * Submits a job of @cost_ns on @engine and waits until it is granted,
 * rejoining the arbiter first if it marked us hung or went away. 0 and
 * *@handle, or <0 once the interposer passes through (reported).
 */
int job_granted(uint32_t engine, uint64_t cost_ns, uint64_t *handle)
{
	struct gspace_submit sub = { .size = sizeof(sub) };

	sub.engine = engine;
	sub.cost_ns = cost_ns;
	return submit_granted(&sub, handle, 0);
}

/*
 * Takes a lease for @op's engine in its context; 0, or <0 if the arbiter
 * is lost. A *@spatial op (a transformed launch, or one confined to a
 * green context) does not wait for LC work: it runs beside it. Another
 * waits, unless the LC's request comes to leave room for a green context
 * meanwhile (*@spatial then set; *@why: see gsp_sp_green()).
 */
int lease_begin(struct gsp_op *op, int *spatial, int *why)
{
	struct gspace_submit sub = { .size = sizeof(sub) };
	uint32_t engine = op->engine;
	CUcontext ctx = op->ctx;
	uint64_t handle, t0 = 0;
	struct lease *L;
	int err;

	while (!*spatial && lc_active()) {
		if (!t0)
			t0 = now_ns();
		sleep_ns(BOARD_POLL_NS);
		poll_closing();
		*spatial = gsp_sp_on() && gsp_sp_green(op, why);
	}
	if (t0) {
		atomic_fetch_add(&gsp_ctr.lc_waits, 1);
		if (op->kind == OP_GATE)
			atomic_fetch_add(&gsp_ctr.lc_waits_sync, 1);
		atomic_fetch_add(&gsp_ctr.lc_wait_us, (now_ns() - t0) / 1000);
	}
	L = slot_for(engine);
	/* Our last lease on this engine, still closing: its work first. */
	lease_end(L, 1);
	lease_cur = L;
	task_submit(op, &sub);
	err = submit_granted(&sub, &handle, 1);
	if (err)
		return err;
	if (sub.flags & GSPACE_SUBMIT_TASK_HEAD)
		atomic_fetch_add(&gsp_ctr.task_heads, 1);
	atomic_fetch_add(&gsp_ctr.leases, 1);
	atomic_fetch_add(&gsp_ctr.jobs, 1);
	/* Ops of the last lease may still be in flight: keep the ring. */
	L->nops = 0;
	L->gen++;
	L->lprev = NULL;
	L->started = 0;
	L->est_ns = L->host_ns = 0;
	L->open = 1;
	L->closing = 0;
	L->engine = engine;
	L->ctx = ctx;
	L->handle = handle;
	L->t0 = now_ns();
	L->renewed = L->t0;
	L->renew_err = 0;
	L->preempted = 0;
	L->ran_on = 0;
	L->waiting_max = 0;
	L->rejoins = atomic_load(&gsp_ctr.rejoins);
	L->due_ns = L->t0;
	lease_events(L, ctx);
	return 0;
}

/*
 * The preemptive time plane (protect preemptive): the open lease has run
 * its quantum on the compute engine, another job waits for that engine,
 * and transformed kernels of ours run. A plain kernel cannot give its
 * lease_slots back, so a lease whose work is only plain kernels runs on.
 */
static int lease_preemptible(void)
{
	const struct gsp_board *b = tenant.board;

	return lease_cur->open && !lease_cur->closing &&
	       lease_cur->engine == GSPACE_ENGINE_COMPUTE && b &&
	       gsp_sp_on() &&
	       gsp_board_protect(b, tenant.device) == GSP_PROTECT_PREEMPTIVE &&
	       now_ns() - lease_cur->t0 >= tenant.quantum_ns &&
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
	struct lease *L = lease_cur;
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
		lease_renew(L);
	}
	if (!gsp_sp_drained())
		atomic_fetch_add(&gsp_ctr.preempt_unseen, 1);
	gsp_sp_drain_end();
	lease_complete(L, now_ns() - L->t0);
	err = job_granted(L->engine, tenant.quantum_ns, &handle);
	gsp_sp_preempt(0);
	if (err) {
		/* Passing through from now on: nothing to resume under. */
		L->open = 0;
		return;
	}
	for (i = 0; i < L->count; i++)
		L->rskip[(L->head + i) % RING] = 1;
	L->handle = handle;
	L->t0 = now_ns();
	L->renewed = L->t0;
	L->renew_err = 0;
	L->preempted = 1;
	L->rejoins = atomic_load(&gsp_ctr.rejoins);
	atomic_fetch_add(&gsp_ctr.leases, 1);
	atomic_fetch_add(&gsp_ctr.preemptions, 1);
	gsp_log(2, "lease preempted: the engine was another's for %" PRIu64 " ns; now lease %" PRIu64,
		L->t0 - t0, handle);
}

/*
 * May @L run past its quantum (GSP_RUN_ON)? Only a compute lease, while
 * the board counts the jobs waiting for that engine (ABI 1.4) and none
 * does: a lone BE tenant then keeps the GPU without a hand-over each
 * quantum (on an H200 those cost it 11 % of its 100 us kernels' rate
 * at 2 ms). It renews the lease meanwhile, so the arbiter charges as it
 * goes and its watchdog sees the holder alive. A tenant that comes ends
 * the lease at our next op.
 */
static int run_on(struct lease *L)
{
	if (!tenant.run_on || !tenant.waiting_seen || !tenant.board ||
	    L->engine != GSPACE_ENGINE_COMPUTE || !renew_every() ||
	    gsp_board_waiting(tenant.board, tenant.device))
		return 0;
	lease_renew(L);
	if (L->renew_err)
		return 0;
	if (!L->ran_on)
		atomic_fetch_add(&gsp_ctr.run_on, 1);
	L->ran_on = 1;
	return 1;
}

/*
 * How long @L may run while others wait: GSP_QUANTUM_US, or with auto
 * (the default) QUANTUM_SPAN_NS over the tenants that want the compute
 * engine, within QUANTUM_MIN_NS..QUANTUM_MAX_NS. Each hand-over costs
 * the GPU a few hundred us, so longer is cheaper; but under BAND a
 * tenant's share in a window is off by about two leases, so the error
 * grows with the quantum times the tenants. On the H200
 * (bench/results/2026-11-27-h200-timeplane*) 5 ms leases lost nothing
 * against plain time-slicing where 2 ms ones lost 6-13 %; 5 ms kept 2
 * tenants' 1 s windows within 5 % of target, 4 in two runs of three,
 * 8 never, and 2 ms kept 8 within 4 %. A span of 16 ms gives 5 ms to 2
 * tenants, 4 ms to 4 and 2 ms from 8 on; a span of 20 ms, whose 2.5
 * ms for 8 moved with the momentary count, kept 8 only within 9 %.
 */
static uint64_t lease_quantum(struct lease *L)
{
	uint64_t q, w;

	if (!tenant.quantum_auto || !tenant.waiting_seen || !tenant.board ||
	    L->engine != GSPACE_ENGINE_COMPUTE)
		return tenant.quantum_ns;
	/* The most seen: a tenant between its leases is not counted. */
	w = gsp_board_waiting(tenant.board, tenant.device);
	if (w > L->waiting_max)
		L->waiting_max = w;
	q = QUANTUM_SPAN_NS / (L->waiting_max + 1);
	return q < QUANTUM_MIN_NS ? QUANTUM_MIN_NS :
	       q > QUANTUM_MAX_NS ? QUANTUM_MAX_NS : q;
}

/* Does @op (@spatial: a transformed launch) fit in the open lease? */
int lease_fits(const struct gsp_op *op, int spatial)
{
	uint64_t c, q;
	int spent;

	if (!lease_cur->open || lease_cur->closing || lease_cur->engine != op->engine ||
	    lease_cur->ctx != op->ctx)
		return 0;
	c = op->key ? cost_get(op->key) : 0;
	q = lease_quantum(lease_cur);
	spent = now_ns() - lease_cur->t0 >= q ||
		(lease_cur->nops && lease_cur->est_ns + c > q);
	if (spent && !run_on(lease_cur))
		return 0;
	return spatial || !lc_active();
}

/*
 * May the open lease close while @op's engine is asked for, with its ops
 * still in flight (GSP_LEASE_AHEAD)? Only for a deferred op on another
 * engine of the same context, with no spatial sharing (its transformed
 * kernels, green contexts and preemption hand one lease over at a time)
 * and no LC work active (which a new lease must wait for anyway). The
 * op then goes on the GPU behind the closing lease's ops in its stream's
 * order, as the program issued it.
 */
int ahead_ok(const struct gsp_op *op)
{
	return tenant.ahead && lease_cur->open && !lease_cur->closing &&
	       op->kind != OP_GATE && op->engine != lease_cur->engine &&
	       op->ctx == lease_cur->ctx && lease_cur->ev_ctx == op->ctx &&
	       !gsp_sp_on() && !lc_active();
}

/*
 * Before the next engine's lease is asked for ahead: waits until
 * GSP_AHEAD_US before @prev, the lease just closed, is expected to be
 * done (its due_ns), or until it is done, whichever comes first. Asked
 * for at once, a lease would hold its engine idle while our work before
 * it runs (a 4 ms copy-in before a 1 ms kernel), ahead of other tenants
 * whose work is ready; asked for after, the GPU idles for the round
 * trips. An op never measured is due at once: asked for at once.
 */
void ahead_hold(const struct lease *prev)
{
	/* Done already: the engine goes back before we wait for the next. */
	poll_closing();
	for (;;) {
		uint64_t now = now_ns(), until, c;

		if (!prev->open || prev->due_ns <= now + tenant.ahead_lead_ns)
			return;
		until = prev->due_ns - tenant.ahead_lead_ns;
		c = closing_wake();
		if (c < until)
			until = c;
		if (until > now + 1000000ULL)
			until = now + 1000000ULL;
		if (until > now)
			sleep_ns(until - now);
		lease_tick();
	}
}

