// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LC: the fast path that counts and times an LC op on the app's thread,
 * the reporter thread that reads the sampled times and the board's
 * forecast (protect predictive), and the charger that charges the
 * measured GPU time to the arbiter. Apart from the rest because the
 * reporter's markers and reservation are its thread's alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <time.h>

#include "dispatch_internal.h"

/* LC fast path and reporter ----------------------------------------------- */

/* Claims a sample pair in @ctx; 1 + its index, or 0 (none free). */
static int sample_claim(CUcontext ctx)
{
	unsigned int i = atomic_fetch_add_explicit(&tenant.sample_next, 1,
						   memory_order_relaxed) %
			 LC_SAMPLES;
	struct lc_sample *sp = &tenant.samples[i];
	int expect = 0;

	if (!atomic_compare_exchange_strong(&sp->busy, &expect, 1))
		return 0;
	if (sp->ctx != ctx) {
		/* First use, or another context: (re)create, rarely. */
		if (sp->ctx) {
			cudrv.ev_destroy(sp->s);
			cudrv.ev_destroy(sp->e);
			sp->ctx = NULL;
		}
		if (cudrv.ev_create(&sp->s, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
			goto fail;
		if (cudrv.ev_create(&sp->e, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
			cudrv.ev_destroy(sp->s);
			goto fail;
		}
		sp->ctx = ctx;
	}
	return (int)i + 1;
fail:
	atomic_store(&sp->busy, 0);
	return 0;
}

static void sample_free(int sample)
{
	if (sample)
		atomic_store_explicit(&tenant.samples[sample - 1].busy, 0,
				      memory_order_release);
}

/*
 * An arrival for the forecast of protect predictive (predict.h): in
 * flight from none, at least lc_hold_ns after the last issue @prev, so
 * that the host's gaps inside one request do not count. The reporter
 * reads the count, then the time.
 */
static void lc_arrival(const struct gsp_board *b, uint64_t now,
		       uint64_t prev)
{
	uint64_t hold = gsp_board_load(&b->lc_hold_ns);

	if (prev && now > prev && now - prev < hold)
		return;
	atomic_store_explicit(&tenant.lc_arrival_ns, now, memory_order_relaxed);
	atomic_fetch_add_explicit(&tenant.lc_arrivals, 1, memory_order_release);
}

/*
 * The per-op cost on the app thread: a key lookup, a clock read, a few
 * relaxed atomics and one ring slot; every LC_SAMPLE-th op of a key also
 * records two pooled events around the call.
 */
void gsp_lc_begin(struct gsp_lc_ticket *t, const void *key, CUstream evstream)
{
	struct gsp_key *k = key ? gsp_key(key) : NULL;
	struct lc_view *v = atomic_load_explicit(&tenant.lcv, memory_order_acquire);
	uint64_t now = now_ns();

	t->sample = 0;
	t->view = v;
	if (v && v->rw) {
		struct gsp_board_lc *slot = &v->rw->lc[v->slot];
		uint64_t prev = __atomic_load_n(&slot->stamp_ns,
						__ATOMIC_RELAXED);

		/* 0 -> 1 and back: the partition request follows. */
		if (!__atomic_fetch_add(&slot->inflight, 1, __ATOMIC_RELAXED)) {
			gsp_lcsearch_begin(now);
			lc_arrival(v->rw, now, prev);
			gsp_board_part_update(v->rw, tenant.device);
		}
		__atomic_store_n(&slot->stamp_ns, now, __ATOMIC_RELAXED);
	}
	atomic_store_explicit(&tenant.lc_last_ns, now, memory_order_relaxed);
	if (k && atomic_fetch_add_explicit(&k->ticks, 1, memory_order_relaxed) %
			 LC_SAMPLE == 0) {
		CUcontext ctx = NULL;

		if (cudrv.ctx_get(&ctx) == CUDA_SUCCESS && ctx)
			t->sample = sample_claim(ctx);
		if (t->sample &&
		    cudrv.ev_record[0](tenant.samples[t->sample - 1].s, evstream) !=
			    CUDA_SUCCESS) {
			sample_free(t->sample);
			t->sample = 0;
		}
	}
}

static uint64_t reserve_poll(void);

/*
 * Takes back @n issues counted in slot @view, if it is still this
 * tenant's: those counted before a rejoin went with the old slot, which
 * the arbiter cleared. The @reporter thread, which owns the reservation,
 * lets the arrival drop it before the request is recomputed.
 */
static void lc_uncount(const void *view, uint64_t n, int reporter)
{
	const struct lc_view *v = view;

	if (!v || !v->rw || v != atomic_load_explicit(&tenant.lcv,
						      memory_order_acquire))
		return;
	if (__atomic_fetch_sub(&v->rw->lc[v->slot].inflight, n,
			       __ATOMIC_RELAXED) == n) {
		if (reporter) {
			gsp_lcsearch_end(now_ns());
			reserve_poll();
		}
		gsp_board_part_update(v->rw, tenant.device);
	}
}

void gsp_lc_end(struct gsp_lc_ticket *t, const void *key, uint32_t engine,
		CUstream evstream)
{
	CUcontext ctx = NULL;
	uint64_t pos, seq;
	struct lc_rec *r;

	atomic_fetch_add_explicit(&gsp_ctr.lc_ops, 1, memory_order_relaxed);
	if (t->sample &&
	    cudrv.ev_record[0](tenant.samples[t->sample - 1].e, evstream) != CUDA_SUCCESS) {
		sample_free(t->sample);
		t->sample = 0;
	}
	cudrv.ctx_get(&ctx);
	/* Bounded MPSC ring (sequence numbers per cell). */
	pos = atomic_load_explicit(&tenant.ring_head, memory_order_relaxed);
	for (;;) {
		r = &tenant.ring[pos % LC_RING];
		seq = atomic_load_explicit(&r->seq, memory_order_acquire);
		if (seq == pos) {
			if (atomic_compare_exchange_weak(&tenant.ring_head, &pos,
							 pos + 1))
				break;
		} else if (seq < pos) {
			/* Full: charge it later from the EWMA, unreported. */
			atomic_fetch_add(&tenant.lc_overflow,
					 key ? cost_get(key) : 0);
			sample_free(t->sample);
			lc_uncount(t->view, 1, 0);
			return;
		} else {
			pos = atomic_load_explicit(&tenant.ring_head,
						   memory_order_relaxed);
		}
	}
	r->ctx = ctx;
	r->stream = evstream;
	r->key = key;
	r->engine = engine;
	r->sample = t->sample;
	r->view = t->view;
	atomic_store_explicit(&r->seq, pos + 1, memory_order_release);
}

/* Reports @gpu_ns of LC work on @engine as one job. */
static void lc_charge(uint32_t engine, uint64_t gpu_ns)
{
	struct gspace_complete c = { .size = sizeof(c) };
	uint64_t handle;
	int err;

	if (atomic_load(&tenant.mode) != GSP_MODE_LC)
		return;
	if (gpu_ns > GSPACE_COST_MAX_NS)
		gpu_ns = GSPACE_COST_MAX_NS;
	if (job_granted(engine, gpu_ns, &handle))
		return;
	c.handle = handle;
	c.gpu_ns = gpu_ns;
	err = tenant.api.complete(tenant.g, &c);
	if (err) {
		rejoin(err == -EALREADY ? GSP_REJOIN_WATCHDOG :
					  GSP_REJOIN_LOST, "COMPLETE", err);
		return;
	}
	atomic_fetch_add(&gsp_ctr.jobs, 1);
}

/* Hands @gpu_ns of LC work on @engine to the charger. */
static void lc_owe(uint32_t engine, uint64_t gpu_ns)
{
	if (!gpu_ns)
		return;
	pthread_mutex_lock(&tenant.mu);
	tenant.lc_owed[engine < GSPACE_ENGINE_COUNT ? engine : 0] += gpu_ns;
	pthread_cond_signal(&tenant.owed);
	pthread_mutex_unlock(&tenant.mu);
}

/* Charges what the reporter measured; the only LC thread that may wait
 * for the arbiter (and rejoin it). Drains what is owed before it stops. */
void *charger_main(void *arg)
{
	uint64_t owed[GSPACE_ENGINE_COUNT];
	unsigned int e;
	int any;
	(void)arg;

	pthread_mutex_lock(&tenant.mu);
	for (;;) {
		any = 0;
		for (e = 0; e < GSPACE_ENGINE_COUNT; e++) {
			owed[e] = tenant.lc_owed[e];
			tenant.lc_owed[e] = 0;
			any |= owed[e] != 0;
		}
		if (!any) {
			if (tenant.stop && !tenant.reporter_running)
				break;
			pthread_cond_wait(&tenant.owed, &tenant.mu);
			continue;
		}
		pthread_mutex_unlock(&tenant.mu);
		for (e = 0; e < GSPACE_ENGINE_COUNT; e++)
			if (owed[e])
				lc_charge(e, owed[e]);
		pthread_mutex_lock(&tenant.mu);
	}
	pthread_mutex_unlock(&tenant.mu);
	return NULL;
}

#define LC_BATCH 256

/*
 * The reporter's markers (reporter thread only): DISABLE_TIMING events
 * kept for reuse, each with the context it belongs to.
 */
static struct {
	CUcontext ctx[LC_MARKS];
	CUevent ev[LC_MARKS];
	unsigned int n;
} marks;

static CUevent mark_get(CUcontext ctx)
{
	unsigned int i;
	CUevent ev;

	for (i = marks.n; i-- > 0;)
		if (marks.ctx[i] == ctx) {
			ev = marks.ev[i];
			marks.n--;
			marks.ctx[i] = marks.ctx[marks.n];
			marks.ev[i] = marks.ev[marks.n];
			return ev;
		}
	if (cudrv.ev_create(&ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
		return NULL;
	return ev;
}

static void mark_put(CUcontext ctx, CUevent ev)
{
	if (marks.n == LC_MARKS) {
		cudrv.ev_destroy(ev);
		return;
	}
	marks.ctx[marks.n] = ctx;
	marks.ev[marks.n++] = ev;
}

/*
 * protect predictive: our slot's reservation follows the forecast of our
 * arrivals (predict.c; reporter thread only). reserver.b is NULL without
 * a slot.
 */
static struct gsp_reserver reserver;

/* Feeds the arrivals, raises or drops the reservation: when to look again. */
static uint64_t reserve_poll(void)
{
	struct lc_view *v = atomic_load_explicit(&tenant.lcv, memory_order_acquire);
	uint64_t n, t;

	if (!v || !v->rw)
		return UINT64_MAX;
	/* a rejoin: the arbiter cleared the old slot, its reserve with it */
	if (reserver.b != v->rw || reserver.slot != v->slot)
		gsp_reserver_init(&reserver, v->rw, v->slot, tenant.device);
	n = atomic_load_explicit(&tenant.lc_arrivals, memory_order_acquire);
	t = atomic_load_explicit(&tenant.lc_arrival_ns, memory_order_relaxed);
	return gsp_reserver_poll(&reserver, now_ns(), n, t);
}

/* Sleeps until @until (CLOCK_MONOTONIC), exactly: no timer slack here. */
static void sleep_until(uint64_t until)
{
	struct timespec ts = { .tv_sec = (time_t)(until / 1000000000ULL),
			       .tv_nsec = (long)(until % 1000000000ULL) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/*
 * The records of one batch on one (context, stream), and their marker;
 * @count of them counted in the board slot @view (a rejoin in the batch
 * makes two groups).
 */
struct lc_group {
	CUcontext ctx;
	CUstream stream;
	const void *view;
	CUevent mark;
	unsigned int count;
};

/*
 * Before a stream capture begins (LC only): waits, LC_SETTLE_NS at most,
 * until the reporter is done with every LC op issued so far. Its marker
 * recorded on a stream once that stream is in capture would join the
 * capture, and waiting for it would invalidate the capture: gsp-check's
 * graph failed so on an H200. Ops issued during a capture pass through
 * (ROUTE), so no new marker comes for the captured stream.
 */
void gsp_lc_settle(void)
{
	uint64_t head = atomic_load(&tenant.ring_head), t0 = now_ns();

	if (gsp_mode() != GSP_MODE_LC)
		return;
	while (atomic_load(&tenant.ring_done) < head) {
		if (now_ns() - t0 > LC_SETTLE_NS) {
			gsp_log(1, "LC work still unreported after %llu ms at a stream capture's start",
				LC_SETTLE_NS / 1000000);
			return;
		}
		sleep_ns(POLL_NS);
	}
}

/*
 * Picks up LC records in batches. Per batch and (context, stream) it
 * records one pooled marker after the records' ops; when the marker has
 * completed, so have they: it charges them (measured for sampled ops,
 * else the EWMA) and lowers the board's inflight by their number. Under
 * protect predictive it also keeps the slot's reservation, waking for
 * the forecast's window as well as for its polls.
 */
void *reporter_main(void *arg)
{
	static struct lc_rec batch[LC_BATCH];	/* reporter thread only */
	static struct lc_group grp[LC_BATCH];
	(void)arg;

	tight_timers();
	for (;;) {
		uint64_t charge[GSPACE_ENGINE_COUNT] = { 0 };
		uint64_t tail = atomic_load(&tenant.ring_tail), last, wake, now;
		unsigned int n = 0, ng = 0, i, g, e;
		int stop;

		wake = reserve_poll();
		now = gsp_lcsearch_poll(now_ns());
		if (now < wake)
			wake = now;

		while (n < LC_BATCH) {
			struct lc_rec *r = &tenant.ring[tail % LC_RING];

			if (atomic_load_explicit(&r->seq, memory_order_acquire) !=
			    tail + 1)
				break;
			batch[n++] = *r;
			atomic_store_explicit(&r->seq, tail + LC_RING,
					      memory_order_release);
			tail++;
		}
		atomic_store(&tenant.ring_tail, tail);
		pthread_mutex_lock(&tenant.mu);
		stop = tenant.stop;
		pthread_mutex_unlock(&tenant.mu);
		if (!n) {
			uint64_t over = atomic_exchange(&tenant.lc_overflow, 0);

			lc_owe(GSPACE_ENGINE_COMPUTE, over);
			if (stop)
				break;
			last = atomic_load_explicit(&tenant.lc_last_ns,
						    memory_order_relaxed);
			now = now_ns();
			now += now - last < LC_BUSY_NS ? LC_FAST_NS : LC_SLOW_NS;
			sleep_until(wake < now ? wake : now);
			continue;
		}
		for (i = 0; i < n; i++) {
			for (g = 0; g < ng; g++)
				if (grp[g].ctx == batch[i].ctx &&
				    grp[g].stream == batch[i].stream &&
				    grp[g].view == batch[i].view)
					break;
			if (g == ng)
				grp[ng++] = (struct lc_group){
					.ctx = batch[i].ctx,
					.stream = batch[i].stream,
					.view = batch[i].view,
				};
			grp[g].count++;
		}
		for (g = 0; g < ng; g++) {
			ensure_ctx(grp[g].ctx);
			grp[g].mark = mark_get(grp[g].ctx);
			/*
			 * Our own per-thread stream is not the app's; the
			 * legacy stream waits for the app's (it is blocking).
			 */
			if (grp[g].mark &&
			    cudrv.ev_record[0](grp[g].mark,
					grp[g].stream == CU_STREAM_PER_THREAD ?
						CU_STREAM_LEGACY : grp[g].stream) !=
				    CUDA_SUCCESS) {
				mark_put(grp[g].ctx, grp[g].mark);
				grp[g].mark = NULL;
			}
		}
		for (g = 0; g < ng; g++) {
			/* No marker: the ops are charged and counted now. */
			if (grp[g].mark) {
				ev_wait(grp[g].mark);
				mark_put(grp[g].ctx, grp[g].mark);
			}
			lc_uncount(grp[g].view, grp[g].count, 1);
		}
		for (i = 0; i < n; i++) {
			struct lc_rec *r = &batch[i];
			uint64_t ns;

			if (r->sample) {
				struct lc_sample *sp = &tenant.samples[r->sample - 1];

				/* Before the marker on its stream: done. */
				ev_wait(sp->e);
				ns = elapsed_ns(sp->s, sp->e);
				if (r->key)
					gsp_cost_put(r->key, ns);
				sample_free(r->sample);
			} else {
				ns = r->key ? cost_get(r->key) : 0;
			}
			charge[r->engine < GSPACE_ENGINE_COUNT ? r->engine : 0] += ns;
		}
		for (e = 0; e < GSPACE_ENGINE_COUNT; e++)
			lc_owe(e, charge[e]);
		atomic_store(&tenant.ring_done, tail);
	}
	if (reserver.b)
		gsp_reserver_drop(&reserver);
	return NULL;
}
