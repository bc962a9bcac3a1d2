// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Spatial sharing: green contexts (dispatcher thread). A launch that
 * runs unchanged while LC work is active goes, if it can, to the stream
 * of a green context of the SMs the LC's request leaves, tied to its own
 * stream by an event each way; one green context, stream and event pair
 * per (context, SM count), made at first use and kept. Apart from the
 * rest because it is the fallback for kernels the other parts cannot
 * transform, with its own driver API (CUDA 12.4 and later).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "spatial_internal.h"

const char *const gw_token[GW_N] = {
	[GW_API] = "no-api", [GW_CONTEXT] = "context", [GW_CREATE] = "create",
	[GW_SMALL] = "small", [GW_NOREQ] = "no-request",
	[GW_COOP] = "cooperative", [GW_CLUSTER] = "cluster",
	[GW_CAPTURE] = "capture", [GW_LAUNCH] = "launch", [GW_ORDER] = "order",
	[GW_TIME] = "preemptive",
};

/* Green contexts (dispatcher thread) ------------------------------------------ */

/* Says once why a launch is not confined (@why: GW_*); @fmt: the cause. */
static void green_warn(int why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void green_warn(int why, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	/* Called at every poll of a waiting launch: format only once. */
	if (atomic_load_explicit(&spatial.warned_green[why], memory_order_relaxed))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gsp_warn_once(&spatial.warned_green[why], "spatial: %s; %s", msg,
		      why == GW_LAUNCH || why == GW_ORDER ?
		      "the kernel runs on its own stream" :
		      "kernels that cannot be transformed wait while LC work runs");
}

/*
 * Green contexts in @c, looked at once: @c must be its device's primary
 * context (a green context shares its memory and modules; others are
 * untested), and the device's SM resource is read. 0, or a GW_* code.
 */
static int green_ctx(struct sp_ctx *c)
{
	CUcontext prim = NULL;
	unsigned int flags = 0;
	int active = 0;
	CUresult r;

	if (c->gstate)
		return c->gstate > 0 ? 0 : c->gwhy;
	c->gstate = -1;
	c->gwhy = GW_CONTEXT;
	r = cudrv.ctx_dev(&c->gdev);
	if (!r)
		r = cudrv.prim_state(c->gdev, &flags, &active);
	/* A retain of an active primary context only counts a reference. */
	if (!r && active) {
		r = cudrv.prim_retain(&prim, c->gdev);
		if (!r)
			cudrv.prim_release(c->gdev);
	}
	if (r) {
		green_warn(GW_CONTEXT, "cannot tell whether a context is its device's primary one (error %d)",
			   (int)r);
		return c->gwhy;
	}
	if (prim != c->ctx) {
		green_warn(GW_CONTEXT, "green contexts are used from a device's primary context only, and a kernel runs in another");
		return c->gwhy;
	}
	r = cudrv.dev_res(c->gdev, &c->gres, CU_DEV_RESOURCE_TYPE_SM);
	if (r || !c->gres.sm.smCount) {
		c->gwhy = GW_CREATE;
		green_warn(GW_CREATE, "cannot read the SMs of CUDA device %d (cuDeviceGetDevResource: error %d)",
			   (int)c->gdev, (int)r);
		return c->gwhy;
	}
	gsp_log(1, "spatial: device %d: %u SMs, green contexts of at least %u in steps of %u",
		(int)c->gdev, c->gres.sm.smCount, c->gres.sm.minSmPartitionSize,
		c->gres.sm.smCoscheduledAlignment);
	c->gstate = 1;
	return 0;
}

static void green_free(struct sp_green *g)
{
	if (g->s)
		cudrv.stream_destroy(g->s);
	if (g->g)
		cudrv.green_destroy(g->g);
	if (g->in)
		cudrv.ev_destroy(g->in);
	if (g->out)
		cudrv.ev_destroy(g->out);
	free(g);
}

/* Makes @g's green context, stream and events; the failing call's name. */
static const char *green_make(struct sp_green *g)
{
	CUdevResource part, rest;
	CUdevResourceDesc desc;
	unsigned int nb = 1;
	struct sp_ctx *c = g->c;
	const char *fn;

	memset(&part, 0, sizeof(part));
	g->err = cudrv.split(&part, &nb, &c->gres, &rest, 0, g->sms);
	if (g->err)
		return "cuDevSmResourceSplitByCount";
	/* More than asked would take SMs the LC asked for. */
	if (nb != 1 || !part.sm.smCount || part.sm.smCount > g->sms) {
		g->err = CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
		return "cuDevSmResourceSplitByCount";
	}
	g->got = part.sm.smCount;
	g->err = cudrv.gen_desc(&desc, &part, 1);
	if (g->err)
		return "cuDevResourceGenerateDesc";
	g->err = cudrv.green_create(&g->g, desc, c->gdev, CU_GREEN_CTX_DEFAULT_STREAM);
	if (g->err) {
		g->g = NULL;
		return "cuGreenCtxCreate";
	}
	fn = "cuGreenCtxStreamCreate";
	g->err = cudrv.green_stream(&g->s, g->g, CU_STREAM_NON_BLOCKING, 0);
	if (g->err)
		goto destroy_green;
	/* In the program's context: its streams record and wait on them. */
	fn = "cuEventCreate";
	g->err = cudrv.ev_create(&g->in, CU_EVENT_DISABLE_TIMING);
	if (g->err)
		goto destroy_stream;
	g->err = cudrv.ev_create(&g->out, CU_EVENT_DISABLE_TIMING);
	if (g->err)
		goto destroy_in;
	return NULL;
destroy_in:
	cudrv.ev_destroy(g->in);
	g->in = NULL;
destroy_stream:
	cudrv.stream_destroy(g->s);
	g->s = NULL;
destroy_green:
	cudrv.green_destroy(g->g);
	g->g = NULL;
	return fn;
}

/* The green context of @sms SMs in @c, made once; NULL if it cannot be. */
static struct sp_green *green_get(struct sp_ctx *c, unsigned int sms)
{
	struct sp_green *g;
	const char *fn;

	for (g = c->greens; g; g = g->next)
		if (g->sms == sms)
			return g->err ? NULL : g;
	g = calloc(1, sizeof(*g));
	if (!g) {
		green_warn(GW_CREATE, "no memory for a green context");
		return NULL;
	}
	g->kind = SP_GREEN;
	g->c = c;
	g->sms = sms;
	fn = green_make(g);
	if (fn)
		green_warn(GW_CREATE, "cannot make a green context of %u SMs on CUDA device %d (%s: error %d)",
			   sms, (int)c->gdev, fn, (int)g->err);
	else
		gsp_log(1, "spatial: a green context of %u SMs (asked %u) on CUDA device %d",
			g->got, sms, (int)c->gdev);
	pthread_mutex_lock(&spatial.mu);
	g->next = c->greens;
	c->greens = g;
	pthread_mutex_unlock(&spatial.mu);
	return g->err ? NULL : g;
}

static int green_is_launch(const struct gsp_op *op)
{
	return op->kind == OP_LAUNCH || op->kind == OP_LAUNCH_EX ||
	       op->kind == OP_COOP;
}

/*
 * A copy or memset within the context: on the green stream it keeps its
 * stream's order, and whatever SMs it uses are the green context's.
 */
static int green_is_copy(const struct gsp_op *op)
{
	return op->kind == OP_COPY || op->kind == OP_COPY_2D ||
	       op->kind == OP_COPY_3D || op->kind == OP_MEMSET ||
	       op->kind == OP_MEMSET_2D;
}

/* The green context for @op in *@g, or why not (GW_NONE: no candidate). */
static int green_try(struct gsp_op *op, struct sp_green **g)
{
	unsigned int n, all, sms, step, least;
	int pt = gsp_hooks[op->hook].pt == PT_PTDS;
	const char *ex;
	struct sp_ctx *c;
	int why;

	*g = NULL;
	if (!spatial.cfg.green ||
	    (!green_is_launch(op) && !green_is_copy(op)))
		return GW_NONE;
	/* The LC has the whole GPU: a plain kernel waits, as in the time plane. */
	if (gsp_board_protect(spatial.cfg.board, spatial.cfg.device) ==
	    GSP_PROTECT_PREEMPTIVE)
		return GW_TIME;
	if (!spatial.green_api) {
		green_warn(GW_API, "the CUDA driver (version %d) has no green contexts (12.4 or later)",
			   spatial.drv_version);
		return GW_API;
	}
	if (op->kind == OP_COOP ||
	    (op->kind == OP_LAUNCH_EX && (ex = ex_attr_reason(&op->u.ex.cfg)) &&
	     !strcmp(ex, "cooperative"))) {
		green_warn(GW_COOP, "a cooperative launch cannot be confined to a green context");
		return GW_COOP;
	}
	if (gsp_capturing(op->stream, pt)) {
		green_warn(GW_CAPTURE, "a launch into a stream being captured cannot be confined to a green context");
		return GW_CAPTURE;
	}
	/* None: LC work is held for lc_hold_us, or asks for no SMs. */
	n = GSP_PERSIST_CTRL_N(req_now());
	if (!n)
		return GW_NOREQ;
	c = ctx_get(op->ctx);
	if (!c) {
		green_warn(GW_CREATE, "no memory for a context's state");
		return GW_CREATE;
	}
	why = green_ctx(c);
	if (why)
		return why;
	all = c->gres.sm.smCount;
	step = c->gres.sm.smCoscheduledAlignment ?
	       c->gres.sm.smCoscheduledAlignment : 1;
	least = c->gres.sm.minSmPartitionSize > step ?
		c->gres.sm.minSmPartitionSize : step;
	sms = n < all ? (all - n) / step * step : 0;
	/*
	 * A green context keeps its SMs in groups of step on one GPC each:
	 * a cluster of at most step blocks is always co-schedulable there.
	 */
	if (op->kind == OP_LAUNCH_EX &&
	    ex_cluster_blocks(&op->u.ex.cfg) > step) {
		green_warn(GW_CLUSTER, "a launch with clusters of %u blocks, more than the %u SMs a green context keeps on one GPC, is not confined to a green context",
			   ex_cluster_blocks(&op->u.ex.cfg), step);
		return GW_CLUSTER;
	}
	if (sms < least) {
		green_warn(GW_SMALL, "the LC asks for %u of the %u SMs of CUDA device %d; the %u left are fewer than a green context's %u",
			   n, all, (int)c->gdev, n < all ? all - n : 0, least);
		return GW_SMALL;
	}
	*g = green_get(c, sms);
	return *g ? GW_NONE : GW_CREATE;
}

int gsp_sp_green(struct gsp_op *op, int *why)
{
	struct sp_green *g;
	int w = green_try(op, &g);

	/* The latest reason, unless it is only the LC asking for no SMs. */
	if (w && (w != GW_NOREQ || !*why))
		*why = w;
	op->sp = g;
	return g != NULL;
}

void gsp_sp_gated(int why)
{
	if (why > GW_NONE && why < GW_N)
		atomic_fetch_add_explicit(&spatial.green_gated[why], 1,
					  memory_order_relaxed);
}

/* Says once that @f (a launch's function) runs confined to @g. */
static void green_report(const struct sp_green *g, CUfunction f)
{
	struct sp_handle *h;

	pthread_mutex_lock(&spatial.mu);
	h = hfind(f);
	if (h && h->kern)
		gsp_warn_once(&h->kern->green_reported,
			      "spatial: kernel %s runs on a green context of %u of %u SMs while LC work runs",
			      h->kern->name, g->got, g->c->gres.sm.smCount);
	else
		gsp_warn_once(&spatial.warned_green_unknown,
			      "spatial: kernels whose module load the interposer did not see run on a green context of %u of %u SMs while LC work runs",
			      g->got, g->c->gres.sm.smCount);
	pthread_mutex_unlock(&spatial.mu);
}

/*
 * @op on its green stream, in its stream's order: the green stream waits
 * for the app's stream, and the app's stream for the kernel. 0 if it must
 * be issued unchanged after all (its stream's order then still holds).
 */
int green_issue(struct gsp_op *op, CUresult *res)
{
	struct sp_green *g = op->sp;
	int pt = gsp_hooks[op->hook].pt == PT_PTDS;
	CUfunction f;
	CUresult r;

	op->sp = NULL;
	r = cudrv.ev_record[pt](g->in, op->stream);
	if (!r)
		r = cudrv.wait[0](g->s, g->in, 0);
	if (r) {
		gsp_sp_gated(GW_ORDER);
		green_warn(GW_ORDER, "a green context's stream cannot wait for the program's (error %d)",
			   (int)r);
		return 0;
	}
	if (green_is_copy(op)) {
		CUstream app = op->stream;

		/* op->sp is NULL now: issued as it came, on the green stream */
		f = NULL;
		op->stream = g->s;
		r = gsp_op_issue(op);
		op->stream = app;
	} else if (op->kind == OP_LAUNCH_EX) {
		CUlaunchConfig cfg = op->u.ex.cfg;

		f = op->u.ex.f;
		cfg.hStream = g->s;
		r = cudrv.launch_ex[0](&cfg, f, op->u.ex.params, op->u.ex.extra);
	} else {
		f = op->u.k.f;
		r = cudrv.launch[0](f, op->u.k.g[0], op->u.k.g[1], op->u.k.g[2],
				op->u.k.b[0], op->u.k.b[1], op->u.k.b[2],
				op->u.k.shmem, g->s, op->u.k.params,
				op->u.k.extra);
	}
	if (r) {
		/* On its own stream it fails again if the error is its own. */
		gsp_sp_gated(GW_LAUNCH);
		green_warn(GW_LAUNCH, "a %s on a green context failed (error %d)",
			   f ? "launch" : "copy or memset", (int)r);
		return 0;
	}
	r = cudrv.ev_record[0](g->out, g->s);
	if (!r)
		r = cudrv.wait[pt](op->stream, g->out, 0);
	/* Else the program's stream cannot wait for it: we do. */
	*res = r ? cudrv.stream_sync(g->s) : CUDA_SUCCESS;
	atomic_fetch_add_explicit(f ? &spatial.green_launches :
				  &spatial.green_copies, 1, memory_order_relaxed);
	if (f)
		green_report(g, f);
	return 1;
}

/*
 * Takes the green contexts of the dead contexts (@all: of every one) off
 * their lists, spatial.mu held; frees them unlocked in green_drop().
 */
struct sp_green *green_take(int all)
{
	struct sp_green *l = NULL, *g;
	struct sp_ctx *c;

	for (c = spatial.ctxs; c; c = c->next) {
		if (!all && !c->dead)
			continue;
		while ((g = c->greens)) {
			c->greens = g->next;
			g->next = l;
			l = g;
		}
	}
	return l;
}

/* Frees @l; with @wait after its work, else leaving busy ones be. */
void green_drop(struct sp_green *l, int wait)
{
	while (l) {
		struct sp_green *nx = l->next;
		int done = 1;

		/* A busy one stays for the driver's teardown. */
		if (l->s && wait)
			done = cudrv.stream_sync(l->s) == CUDA_SUCCESS;
		else if (l->s)
			done = cudrv.ev_query(l->out) != CUDA_ERROR_NOT_READY;
		if (done)
			green_free(l);
		l = nx;
	}
}
