// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An LC tenant's kernels on a green context (Documentation/spatial.rst,
 * "Exact placement: the LC on a green context").
 *
 * Why: a transformed BE kernel gives up the SMs of rank < n; an LC
 * kernel's blocks go wherever the hardware puts them, and one that shares
 * its SM with compute-bound BE warps barely runs (H200: p50 1.2 ms
 * instead of 110 us). So the LC runs on a green context of m <= n SMs,
 * publishes their %smids on its board slot (sm_mask), and BE tenants rank
 * those SMs first: the n they give up include all of the LC's.
 *
 * What: per primary context, once, at its first LC launch that can use
 * it: a green context of n SMs (the board's partition) rounded DOWN to
 * the driver's granularity (up would take SMs the BE keeps), a probe
 * kernel on it recording %smid (spatial.c's), the mask published before
 * the launch raises the request. lcprio.c then runs the launches on
 * green streams of it (gsp_lcgreen_stream()). If any step fails, it says
 * so once and the LC runs as without it.
 *
 * Locking: G.mu guards the list and the union of masks and is never held
 * across a driver call; G.make serialises the making of green contexts
 * (driver calls, once per context).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lcgreen.h"
#include "spatial.h"

struct lcg_ctx {
	struct lcg_ctx *next;
	CUcontext ctx;
	CUdevice dev;
	int ok;			/* usable; else it could not be made */
	int small;		/* not made: the partition is too small */
	CUgreenCtx g;
	unsigned int sms;	/* its SMs, as the driver counts them */
	uint64_t mask[4];	/* and as the probe saw them */
};

static struct {
	int on;				/* GSP_LC_GREEN: 1 auto, 0 off */
	pthread_once_t once;
	pthread_mutex_t mu, make;
	struct lcg_ctx *list;
	int api;			/* the driver has green contexts */
	uint64_t mask[4];		/* the union of the list's */
	atomic_uint gen;		/* bumped when @mask changes */
	_Atomic(struct gsp_board_lc *) pub;	/* the slot last written */
	atomic_uint pub_gen;		/* @gen then */
	atomic_ulong launches, streams;
	atomic_uint sms;
	atomic_int said, warned;
	struct {			/* the real driver functions */
		__typeof__(&cuCtxGetDevice) ctx_dev;
		__typeof__(&cuDevicePrimaryCtxGetState) prim_state;
		__typeof__(&cuDevicePrimaryCtxRetain) prim_retain;
		__typeof__(&cuDevicePrimaryCtxRelease_v2) prim_release;
		__typeof__(&cuDeviceGetDevResource) dev_res;
		__typeof__(&cuDevSmResourceSplitByCount) split;
		__typeof__(&cuDevResourceGenerateDesc) gen_desc;
		__typeof__(&cuGreenCtxCreate) create;
		__typeof__(&cuGreenCtxDestroy) destroy;
		__typeof__(&cuGreenCtxStreamCreate) stream;
		__typeof__(&cuStreamDestroy_v2) stream_destroy;
		__typeof__(&cuStreamSynchronize) sync;
		__typeof__(&cuModuleLoadData) mod_load;
		__typeof__(&cuModuleGetFunction) mod_fn;
		__typeof__(&cuModuleUnload) mod_unload;
		__typeof__(&cuMemAlloc) mem_alloc;
		__typeof__(&cuMemFree) mem_free;
		__typeof__(&cuMemsetD32Async) memset32;
		__typeof__(&cuMemcpyDtoHAsync) dtoh;
		__typeof__(&cuLaunchKernel) launch;
	} R;
} G = {
	.on = 1,
	.once = PTHREAD_ONCE_INIT,
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.make = PTHREAD_MUTEX_INITIALIZER,
};

int gsp_lcgreen_config(void)
{
	const char *v = getenv("GSP_LC_GREEN");

	G.on = !(v && !strcmp(v, "0"));
	if (v && strcmp(v, "0") && strcmp(v, "auto")) {
		fprintf(stderr, "gsp: GSP_LC_GREEN=%s is not auto or 0; passing every CUDA call through\n",
			v);
		return -1;
	}
	return 0;
}

void gsp_lcgreen_stats(FILE *f)
{
	fprintf(f, "lc_green_sms %u\nlc_green_streams %lu\nlc_green_launches %lu\n",
		atomic_load(&G.sms), atomic_load(&G.streams),
		atomic_load(&G.launches));
}

static void after_fork_child(void)
{
	pthread_mutex_init(&G.mu, NULL);
	pthread_mutex_init(&G.make, NULL);
	G.list = NULL;		/* the parent's green contexts are not ours */
	memset(G.mask, 0, sizeof(G.mask));
	atomic_store(&G.pub, NULL);
}

static void init(void)
{
	__typeof__(&cuDriverGetVersion) version;
	int v = 0;

#define SYM(f, name) (*(void **)&G.R.f = gsp_real_sym(name))
#define HOOK(f, sym) (*(void **)&G.R.f = gsp_real(H_##sym))
	SYM(ctx_dev, "cuCtxGetDevice");
	SYM(prim_state, "cuDevicePrimaryCtxGetState");
	SYM(prim_retain, "cuDevicePrimaryCtxRetain");
	HOOK(prim_release, cuDevicePrimaryCtxRelease_v2);
	SYM(dev_res, "cuDeviceGetDevResource");
	SYM(split, "cuDevSmResourceSplitByCount");
	SYM(gen_desc, "cuDevResourceGenerateDesc");
	SYM(create, "cuGreenCtxCreate");
	SYM(destroy, "cuGreenCtxDestroy");
	SYM(stream, "cuGreenCtxStreamCreate");
	HOOK(stream_destroy, cuStreamDestroy_v2);
	HOOK(sync, cuStreamSynchronize);
	HOOK(mod_load, cuModuleLoadData);
	HOOK(mod_fn, cuModuleGetFunction);
	HOOK(mod_unload, cuModuleUnload);
	SYM(mem_alloc, "cuMemAlloc_v2");
	HOOK(mem_free, cuMemFree_v2);
	HOOK(memset32, cuMemsetD32Async);
	HOOK(dtoh, cuMemcpyDtoHAsync_v2);
	HOOK(launch, cuLaunchKernel);
#undef HOOK
#undef SYM
	*(void **)&version = gsp_real_sym("cuDriverGetVersion");
	/* Green contexts came with 12.4. */
	G.api = version && !version(&v) && v >= 12040;
	for (size_t i = 0; i < sizeof(G.R) / sizeof(void *); i++)
		G.api &= ((void **)&G.R)[i] != NULL;
	pthread_atfork(NULL, NULL, after_fork_child);
}

int gsp_lcgreen_on(void)
{
	const struct gsp_board *b;
	uint32_t dev = 0;

	if (!G.on)
		return 0;
	pthread_once(&G.once, init);
	b = G.api ? gsp_board_ro(&dev) : NULL;
	return b && dev < GSP_BOARD_MAX_DEVICES &&
	       gsp_board_load(&b->dev[dev].part_n) > 0;
}

/* Our mask into this tenant's slot, unless that slot has it already. */
static void publish(void)
{
	struct gsp_board *rw = NULL;
	struct gsp_board_lc *s = gsp_lc_slot(&rw);
	unsigned int i;

	if (!s || (s == atomic_load(&G.pub) &&
		   atomic_load(&G.pub_gen) == atomic_load(&G.gen)))
		return;
	pthread_mutex_lock(&G.mu);
	for (i = 0; i < 4; i++)
		gsp_board_store(&s->sm_mask[i], G.mask[i]);
	atomic_store(&G.pub_gen, atomic_load(&G.gen));
	atomic_store(&G.pub, s);
	pthread_mutex_unlock(&G.mu);
}

/* The union of the live contexts' masks, G.mu held. */
static void remask(void)
{
	struct lcg_ctx *e;

	memset(G.mask, 0, sizeof(G.mask));
	for (e = G.list; e; e = e->next)
		for (unsigned int i = 0; i < 4 && e->ok; i++)
			G.mask[i] |= e->mask[i];
	atomic_fetch_add(&G.gen, 1);
}

/*
 * The request raised (+1) or lowered (-1) around the probe, as an LC
 * issue does: under protect reactive the BE gives SMs up only while the
 * LC is in flight, and the probe's blocks need some.
 */
static void probe_inflight(struct gsp_board_lc *s, struct gsp_board *rw,
			   int d)
{
	uint32_t dev = 0;

	if (!s || s != gsp_lc_slot(&rw) || !gsp_board_ro(&dev))
		return;
	if (d > 0 && !__atomic_fetch_add(&s->inflight, 1, __ATOMIC_RELAXED))
		gsp_board_part_update(rw, dev);
	if (d < 0 && __atomic_fetch_sub(&s->inflight, 1, __ATOMIC_RELAXED) == 1)
		gsp_board_part_update(rw, dev);
}

/* @e's SMs by %smid into e->mask: 0, or the failing call's error. */
static CUresult probe(struct lcg_ctx *e, const char **fn)
{
	uint32_t seen[256];
	struct gsp_board *rw = NULL;
	struct gsp_board_lc *slot;
	CUdeviceptr out = 0;
	CUmodule m = NULL;
	CUstream s = NULL;
	CUfunction f;
	void *p[] = { &out };
	unsigned int i;
	CUresult r;

	memset(seen, 0, sizeof(seen));
	*fn = "cuGreenCtxStreamCreate";
	r = G.R.stream(&s, e->g, CU_STREAM_NON_BLOCKING, 0);
	if (r)
		return r;
	*fn = "the SM probe";
	r = G.R.mod_load(&m, gsp_sm_probe_ptx);
	if (!r)
		r = G.R.mod_fn(&f, m, "gsp_sm_probe");
	if (!r)
		r = G.R.mem_alloc(&out, sizeof(seen));
	if (!r)
		r = G.R.memset32(out, 0, 256, s);
	slot = r ? NULL : gsp_lc_slot(&rw);
	probe_inflight(slot, rw, 1);
	if (!r)
		r = G.R.launch(f, 64 * e->sms, 1, 1, 128, 1, 1, 0, s, p, NULL);
	if (!r)
		r = G.R.dtoh(seen, out, sizeof(seen), s);
	if (!r)
		r = G.R.sync(s);
	probe_inflight(slot, rw, -1);
	if (out)
		G.R.mem_free(out);
	if (m)
		G.R.mod_unload(m);
	G.R.stream_destroy(s);
	for (i = 0; !r && i < 256; i++)
		if (seen[i])
			e->mask[i / 64] |= 1ULL << (i % 64);
	return r;
}

/* Makes @e's green context: 0, or what failed into @why. */
static int make(struct lcg_ctx *e, char *why, size_t len)
{
	CUdevResource all, part, rest;
	CUdevResourceDesc desc;
	CUcontext prim = NULL;
	unsigned int fl = 0, nb = 1, n, step, least, seen = 0, i;
	const struct gsp_board *b;
	uint32_t bdev = 0;
	const char *fn;
	int active = 0;
	CUresult r;

	r = G.R.ctx_dev(&e->dev);
	if (!r)
		r = G.R.prim_state(e->dev, &fl, &active);
	/* A retain of an active primary context only counts a reference. */
	if (!r && active) {
		r = G.R.prim_retain(&prim, e->dev);
		if (!r)
			G.R.prim_release(e->dev);
	}
	if (r || prim != e->ctx) {
		snprintf(why, len, "green contexts are made from a device's primary context only");
		return -1;
	}
	b = gsp_board_ro(&bdev);
	n = b ? gsp_board_load(&b->dev[bdev].part_n) : 0;
	memset(&all, 0, sizeof(all));
	r = G.R.dev_res(e->dev, &all, CU_DEV_RESOURCE_TYPE_SM);
	if (r || !all.sm.smCount) {
		snprintf(why, len, "cuDeviceGetDevResource: error %d", (int)r);
		return -1;
	}
	step = all.sm.smCoscheduledAlignment ? all.sm.smCoscheduledAlignment : 1;
	least = all.sm.minSmPartitionSize > step ? all.sm.minSmPartitionSize : step;
	/* Down: every SM of ours must be one the BE gives up. */
	e->sms = (n < all.sm.smCount ? n : all.sm.smCount) / step * step;
	if (e->sms < least) {
		e->small = 1;
		snprintf(why, len, "the partition's n=%u is less than a green context's %u SMs",
			 n, least);
		return -1;
	}
	memset(&part, 0, sizeof(part));
	r = G.R.split(&part, &nb, &all, &rest, 0, e->sms);
	fn = "cuDevSmResourceSplitByCount";
	if (!r && (nb != 1 || !part.sm.smCount || part.sm.smCount > e->sms))
		r = CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
	if (!r) {
		e->sms = part.sm.smCount;
		fn = "cuDevResourceGenerateDesc";
		r = G.R.gen_desc(&desc, &part, 1);
	}
	if (!r) {
		fn = "cuGreenCtxCreate";
		r = G.R.create(&e->g, desc, e->dev, CU_GREEN_CTX_DEFAULT_STREAM);
	}
	if (!r)
		r = probe(e, &fn);
	for (i = 0; !r && i < 256; i++)
		seen += (unsigned int)(e->mask[i / 64] >> (i % 64) & 1);
	if (!r && !seen) {
		fn = "the SM probe (no SM seen)";
		r = CUDA_ERROR_UNKNOWN;
	}
	if (r) {
		if (e->g)
			G.R.destroy(e->g);
		e->g = NULL;
		snprintf(why, len, "%s: error %d", fn, (int)r);
		return -1;
	}
	if (seen != e->sms)
		gsp_log(1, "the SM probe saw %u SMs of the LC's green context of %u",
			seen, e->sms);
	return 0;
}

struct lcg_ctx *gsp_lcgreen_get(CUcontext ctx)
{
	struct lcg_ctx *e;
	char why[128];

	pthread_once(&G.once, init);
	pthread_mutex_lock(&G.mu);
	for (e = G.list; e && e->ctx != ctx; e = e->next)
		;
	pthread_mutex_unlock(&G.mu);
	if (!e) {
		pthread_mutex_lock(&G.make);
		pthread_mutex_lock(&G.mu);
		for (e = G.list; e && e->ctx != ctx; e = e->next)
			;
		pthread_mutex_unlock(&G.mu);
		if (!e && (e = calloc(1, sizeof(*e)))) {
			e->ctx = ctx;
			e->ok = !make(e, why, sizeof(why));
			pthread_mutex_lock(&G.mu);
			e->next = G.list;
			G.list = e;
			remask();
			pthread_mutex_unlock(&G.mu);
			if (!e->ok && e->small)
				gsp_log(1, "LC kernels run on every SM: %s",
					why);
			else if (!e->ok)
				gsp_warn_once(&G.warned,
					      "LC kernels run on every SM, not on a green context of the SMs the BE gives up: %s (GSP_LC_GREEN=0: do not try)",
					      why);
			else
				atomic_store(&G.sms, e->sms);
		}
		pthread_mutex_unlock(&G.make);
		if (!e)
			return NULL;
		if (e->ok && !atomic_exchange(&G.said, 1))
			gsp_log(1, "LC kernels run on a green context of %u SMs of CUDA device %d, published for BE tenants to give up first (GSP_LC_GREEN=0: off)",
				e->sms, (int)e->dev);
	}
	publish();
	return e->ok ? e : NULL;
}

CUresult gsp_lcgreen_stream(struct lcg_ctx *g, CUstream *s, int prio)
{
	CUresult r = G.R.stream(s, g->g, CU_STREAM_NON_BLOCKING, prio);

	if (r == CUDA_SUCCESS)
		atomic_fetch_add(&G.streams, 1);
	return r;
}

void gsp_lcgreen_count(void)
{
	atomic_fetch_add_explicit(&G.launches, 1, memory_order_relaxed);
}

void gsp_lcgreen_ctx_gone(CUcontext ctx, CUdevice dev)
{
	struct lcg_ctx **pp, *e, *gone = NULL;

	pthread_once(&G.once, init);	/* the fork handler, before any lock */
	pthread_mutex_lock(&G.mu);
	for (pp = &G.list; (e = *pp);) {
		if (ctx ? e->ctx == ctx : e->dev == dev) {
			*pp = e->next;
			e->next = gone;
			gone = e;
		} else {
			pp = &e->next;
		}
	}
	if (gone)
		remask();
	pthread_mutex_unlock(&G.mu);
	/* lcprio.c destroyed the streams in it first (ops.c). */
	for (; gone; gone = e) {
		e = gone->next;
		if (gone->g)
			G.R.destroy(gone->g);
		free(gone);
	}
	publish();
}
