// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LC work at the greatest stream priority (Documentation/interposer.rst).
 *
 * Why: under MPS, at equal stream priority the GPU dispatches every
 * pending block of an earlier grid before any block of a later one, so an
 * LC kernel launched behind a large BE grid waits for all of it (H200,
 * driver 580: p50 13.3 ms instead of 110 us). At the greatest priority its
 * blocks go first as BE blocks retire (p50 319 us), and top-up blocks of
 * our persistent BE kernels wait behind it.
 *
 * What, in an LC tenant (GSP_LC_PRIORITY=auto): streams the program
 * creates get their context's greatest priority; a kernel launch on a
 * default stream (legacy or per-thread), which cannot have a priority,
 * runs on a private non-blocking stream of that priority, one per context
 * for the legacy stream and one per (context, thread) for the per-thread
 * one: event A recorded on the default stream, the private stream waits
 * for A, the launch, event B recorded on the private stream, the default
 * stream waits for B. Everything later on the default stream (and, for the
 * legacy stream, on the blocking streams that synchronise with it) runs
 * after the kernel, as before.
 *
 * Events: cuStreamWaitEvent takes the event's state at the call, so a
 * pair may be recorded again as soon as both waits are issued. Each
 * private stream keeps up to LCP_PAIRS pairs; a launch claims a free one
 * for the five calls above and gives it back, so no event is recorded
 * again while a wait for it is still to be issued, and none is created or
 * destroyed per launch. More concurrent launches than pairs: the launch
 * stays on its default stream.
 *
 * Locking: lcprio.mu guards the list, each entry's pairs and its dead
 * flag; it is never held across a driver call. An entry in use (a pair
 * claimed) is destroyed by the last user once dead (its context gone, its
 * thread exited).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lcprio.h"
#include "real.h"

#define LCP_PAIRS	16	/* concurrent moved launches per private stream */

struct lcp_stream {
	struct lcp_stream *next;
	CUcontext ctx;
	CUdevice dev;
	int thr;		/* 1: for @owner's per-thread default stream */
	pthread_t owner;
	int dead;
	CUstream s;		/* NULL: it could not be made; no more tries */
	unsigned int npairs;	/* pairs handed out so far */
	uint32_t busy;		/* a bit per claimed pair */
	CUevent a[LCP_PAIRS], b[LCP_PAIRS];
};

/*
 * The process's state (lcprio): the driver has no handle to hang it on. @on is set
 * once by read_config() before the tenant opens and read-only afterwards;
 * the rest is under @mu or atomic.
 */
static struct lcp_state {
	int on;				/* GSP_LC_PRIORITY: 1 auto, 0 off */
	pthread_once_t once;
	pthread_mutex_t mu;
	struct lcp_stream *list;
	pthread_key_t key;		/* set in threads that own an entry */
	int key_ok;
	atomic_ulong streams, launches;
	atomic_int said, warned_make, warned_order, warned_busy;
} lcprio = {
	.on = 1,
	.once = PTHREAD_ONCE_INIT,
	.mu = PTHREAD_MUTEX_INITIALIZER,
};

int gsp_lcprio_config(void)
{
	const char *v = getenv("GSP_LC_PRIORITY");

	lcprio.on = !(v && !strcmp(v, "0"));
	if (v && strcmp(v, "0") && strcmp(v, "auto")) {
		fprintf(stderr, "gsp: GSP_LC_PRIORITY=%s is not auto or 0\n",
			v);
		return -1;
	}
	return 0;
}

void gsp_lcprio_stats(FILE *f)
{
	fprintf(f, "lc_priority_streams %lu\nlc_priority_launches %lu\n",
		atomic_load(&lcprio.streams), atomic_load(&lcprio.launches));
}

static void entry_free(struct lcp_stream *e)
{
	unsigned int i;

	if (e->s)
		cudrv.stream_destroy(e->s);
	for (i = 0; i < e->npairs; i++) {
		if (e->a[i])
			cudrv.ev_destroy(e->a[i]);
		if (e->b[i])
			cudrv.ev_destroy(e->b[i]);
	}
	free(e);
}

/* Unlinks the dead entries no one uses into a list; lcprio.mu held. */
static struct lcp_stream *take_dead(void)
{
	struct lcp_stream **pp = &lcprio.list, *e, *out = NULL;

	while ((e = *pp)) {
		if (e->dead && !e->busy) {
			*pp = e->next;
			e->next = out;
			out = e;
		} else {
			pp = &e->next;
		}
	}
	return out;
}

static void free_list(struct lcp_stream *l)
{
	struct lcp_stream *n;

	for (; l; l = n) {
		n = l->next;
		entry_free(l);
	}
}

/* A thread that owned per-thread entries exits: they go. */
static void thread_gone(void *arg)
{
	pthread_t self = pthread_self();
	struct lcp_stream *e, *l;

	(void)arg;
	pthread_mutex_lock(&lcprio.mu);
	for (e = lcprio.list; e; e = e->next)
		if (e->thr && pthread_equal(e->owner, self))
			e->dead = 1;
	l = take_dead();
	pthread_mutex_unlock(&lcprio.mu);
	free_list(l);
}

/* A forked child has none of our threads, nor a lock one of them held. */
static void after_fork_child(void)
{
	pthread_mutex_init(&lcprio.mu, NULL);
	lcprio.list = NULL;		/* the parent's streams are not the child's */
}

static void init(void)
{
	gsp_cudrv_load();
	lcprio.key_ok = !pthread_key_create(&lcprio.key, thread_gone);
	pthread_atfork(NULL, NULL, after_fork_child);
}

/* Everything a priority stream needs is there. */
static int have_driver(void)
{
	pthread_once(&lcprio.once, init);
	return gsp_cudrv_has(NEED_LCP);
}

/* The current context's greatest priority into *@g; 0, or -1. */
static int greatest(int *g)
{
	int least;

	return cudrv.prio_range &&
	       cudrv.prio_range(&least, g) == CUDA_SUCCESS ? 0 : -1;
}

static void say(int prio)
{
	if (!atomic_exchange(&lcprio.said, 1))
		gsp_log(1, "LC work runs at stream priority %d, the greatest: new streams get it, and kernels launched on a default stream run on a stream of ours that has it (GSP_LC_PRIORITY=0: off)",
			prio);
}

CUresult gsp_lcprio_create(CUstream *s, unsigned int flags, int prio,
			   int with_prio)
{
	int g;
	CUresult r;

	/* gsp_mode() first: the tenant's set-up reads GSP_LC_PRIORITY. */
	if (gsp_mode() == GSP_MODE_LC && lcprio.on && have_driver() &&
	    !greatest(&g)) {
		/* Numerically lower is higher; the driver clamps beyond g. */
		if (!with_prio || prio > g)
			prio = g;
		r = cudrv.stream_create_prio(s, flags, prio);
		if (r == CUDA_SUCCESS) {
			atomic_fetch_add(&lcprio.streams, 1);
			say(g);
		}
		return r;
	}
	pthread_once(&lcprio.once, init);
	if (with_prio)
		return cudrv.stream_create_prio ?
		       cudrv.stream_create_prio(s, flags, prio) :
		       CUDA_ERROR_NOT_FOUND;
	return cudrv.stream_create ? cudrv.stream_create(s, flags) :
				     CUDA_ERROR_NOT_FOUND;
}

int gsp_lcprio_wanted(CUstream s, int pt)
{
	if (s && s != CU_STREAM_LEGACY && s != CU_STREAM_PER_THREAD)
		return 0;
	if (gsp_mode() != GSP_MODE_LC || !lcprio.on)
		return 0;
	return !gsp_capturing(s, pt);
}

/*
 * A private stream for (@ctx, @thr) with no pair yet; NULL only without
 * memory. Its stream is NULL when the driver would not make it (said once):
 * the entry then remembers that, and launches stay where they are.
 */
static struct lcp_stream *entry_make(CUcontext ctx, int thr)
{
	struct lcp_stream *e = calloc(1, sizeof(*e));
	CUresult r;
	int g = 0;

	if (!e)
		return NULL;
	e->ctx = ctx;
	e->thr = thr;
	e->owner = pthread_self();
	e->dev = -1;
	cudrv.ctx_dev(&e->dev);
	/* Per-thread entries go when their thread exits. */
	if (thr && lcprio.key_ok)
		pthread_setspecific(lcprio.key, (void *)1);
	r = greatest(&g) ? CUDA_ERROR_INVALID_CONTEXT :
	    cudrv.stream_create_prio(&e->s, CU_STREAM_NON_BLOCKING, g);
	if (r != CUDA_SUCCESS) {
		e->s = NULL;
		gsp_warn_once(&lcprio.warned_make,
			      "cannot make a stream of the greatest priority (error %d); LC kernels launched on a default stream run there, at its priority",
			      (int)r);
		return e;
	}
	say(g);
	return e;
}

/* Claims a pair of the (@ctx, @thr) entry, made if need be; NULL: none. */
static struct lcp_stream *claim(CUcontext ctx, int thr, unsigned int *pair)
{
	pthread_t self = pthread_self();
	struct lcp_stream *e, *made = NULL, *extra = NULL;
	unsigned int i;

	for (;;) {
		pthread_mutex_lock(&lcprio.mu);
		for (e = lcprio.list; e; e = e->next)
			if (!e->dead && e->ctx == ctx && e->thr == thr &&
			    (!thr || pthread_equal(e->owner, self)))
				break;
		if (e || made)
			break;
		pthread_mutex_unlock(&lcprio.mu);
		made = entry_make(ctx, thr);
		if (!made)
			return NULL;
	}
	if (!e) {
		made->next = lcprio.list;
		lcprio.list = made;
		e = made;
	} else if (made) {
		extra = made;	/* another thread made one first */
	}
	i = 0;
	if (e->s) {
		while (i < e->npairs && (e->busy >> i & 1))
			i++;
		if (i == e->npairs && i < LCP_PAIRS)
			e->npairs++;
	}
	if (!e->s || i == LCP_PAIRS) {
		pthread_mutex_unlock(&lcprio.mu);
		if (extra)
			entry_free(extra);
		if (e->s)
			gsp_warn_once(&lcprio.warned_busy,
				      "more than %d LC kernels were launched on one default stream at once; the others ran there, at its priority",
				      LCP_PAIRS);
		return NULL;
	}
	e->busy |= 1u << i;
	pthread_mutex_unlock(&lcprio.mu);
	if (extra)
		entry_free(extra);
	/* The pair is ours until released: make its events unlocked. */
	if (!e->a[i] && cudrv.ev_create(&e->a[i], CU_EVENT_DISABLE_TIMING))
		e->a[i] = NULL;
	if (!e->b[i] && cudrv.ev_create(&e->b[i], CU_EVENT_DISABLE_TIMING))
		e->b[i] = NULL;
	*pair = i;
	return e;
}

static void release(struct lcp_stream *e, unsigned int pair)
{
	struct lcp_stream *l = NULL;

	pthread_mutex_lock(&lcprio.mu);
	e->busy &= ~(1u << pair);
	if (e->dead && !e->busy)
		l = take_dead();
	pthread_mutex_unlock(&lcprio.mu);
	free_list(l);
}

int gsp_lcprio_enter(struct gsp_lcprio_slot *sl, CUstream s, int pt)
{
	CUstream def = gsp_event_stream(s, pt);
	CUcontext ctx = NULL;
	struct lcp_stream *e;
	unsigned int pair;
	CUresult r;

	if (!have_driver() || cudrv.ctx_get(&ctx) != CUDA_SUCCESS || !ctx)
		return -1;
	e = claim(ctx, def == CU_STREAM_PER_THREAD, &pair);
	if (!e)
		return -1;
	r = e->a[pair] && e->b[pair] ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
	if (r == CUDA_SUCCESS)
		r = cudrv.ev_record[0](e->a[pair], def);
	if (r == CUDA_SUCCESS)
		r = cudrv.wait[0](e->s, e->a[pair], 0);
	if (r != CUDA_SUCCESS) {
		/* Nothing issued on the priority stream depends on it yet. */
		release(e, pair);
		gsp_warn_once(&lcprio.warned_order,
			      "a stream of the greatest priority cannot be tied to a default stream (error %d); LC kernels stay there",
			      (int)r);
		return -1;
	}
	sl->ls = e;
	sl->pair = pair;
	sl->def = def;
	sl->stream = e->s;
	return 0;
}

void gsp_lcprio_leave(struct gsp_lcprio_slot *sl, CUresult launched)
{
	struct lcp_stream *e = sl->ls;
	CUresult r;

	if (launched == CUDA_SUCCESS) {
		r = cudrv.ev_record[0](e->b[sl->pair], e->s);
		if (r == CUDA_SUCCESS)
			r = cudrv.wait[0](sl->def, e->b[sl->pair], 0);
		if (r != CUDA_SUCCESS) {
			/* The default stream cannot wait for it: we do. */
			gsp_warn_once(&lcprio.warned_order,
				      "a default stream cannot wait for a stream of the greatest priority (error %d); waiting on the host",
				      (int)r);
			cudrv.stream_sync(e->s);
		}
		atomic_fetch_add_explicit(&lcprio.launches, 1, memory_order_relaxed);
	}
	release(e, sl->pair);
}

void gsp_lcprio_ctx_gone(CUcontext ctx, CUdevice dev)
{
	struct lcp_stream *e, *l;

	pthread_once(&lcprio.once, init);	/* the fork handler, before any lock */
	pthread_mutex_lock(&lcprio.mu);
	/*
	 * A primary context's release or reset drops every entry of its
	 * device: those of other contexts are made again at their next use.
	 */
	for (e = lcprio.list; e; e = e->next)
		if (ctx ? e->ctx == ctx : e->dev == dev)
			e->dead = 1;
	l = take_dead();
	pthread_mutex_unlock(&lcprio.mu);
	free_list(l);
}
