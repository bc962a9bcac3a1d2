// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Spatial sharing: contexts and control blocks. A context is set up at
 * its first BE launch (SM ranks by a probe kernel, the control word
 * mapped, the waiter loaded); its ctls (struct gsp_persist_job's control
 * blocks) come from a per-context pool and are reset on the context's
 * zero stream. Apart from the rest because the pool's states (free,
 * taken, live, lost, claimed) are its own invariant.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spatial_internal.h"


/* Our own probe: each block marks its %smid; ranks follow smid order. */
static const char probe_ptx[] =
	".version 7.0\n.target sm_70\n.address_size 64\n"
	".visible .entry gsp_sm_probe(.param .u64 gsp_sm_probe_out)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<4>;\n"
	"\tld.param.u64 %rd1, [gsp_sm_probe_out];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tmov.u32 %r1, %smid;\n"
	"\tsetp.ge.u32 %p1, %r1, 256;\n"
	"\t@%p1 bra DONE;\n"
	"\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
	"\tmov.u32 %r2, 1;\n\tst.global.u32 [%rd3], %r2;\n"
	"DONE:\n\tret;\n}\n";

/*
 * The waiter of a waited job (gsp_persist.h, "Stream order"): one warp
 * on the program's stream behind the primary launch, whose thread 0
 * waits until done_tasks >= ntasks. A kernel, not a stream memory wait:
 * a wait would stall the hardware queue it sits in, and a top-up of the
 * job queued there behind it could never start.
 */
static const char waiter_ptx[] =
	".version 7.0\n.target sm_70\n.address_size 64\n"
	".visible .entry gsp_wait_done(.param .u64 gsp_wait_done_p,\n"
	"\t.param .u64 gsp_wait_done_n)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<4>;\n"
	"\tmov.u32 %r1, %tid.x;\n"
	"\tsetp.ne.u32 %p1, %r1, 0;\n"
	"\t@%p1 bra DONE;\n"
	"\tld.param.u64 %rd1, [gsp_wait_done_p];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tld.param.u64 %rd2, [gsp_wait_done_n];\n"
	"LOOP:\n"
	"\tld.acquire.gpu.global.u64 %rd3, [%rd1];\n"
	"\tsetp.ge.u64 %p1, %rd3, %rd2;\n"
	"\t@%p1 bra DONE;\n"
	"\tnanosleep.u32 2000;\n"
	"\tbra.uni LOOP;\n"
	"DONE:\n\tret;\n}\n";
/* How long the watcher waits for a look to land before it goes on. */
#define PEEK_WAIT_NS	200000ULL
/* A look copies next_task through live. */
#define PEEK_BYTES	(GSP_PERSIST_OFF_LIVE + 4)

/* Waits up to PEEK_WAIT_NS for @c's copy in flight to land: 1 if it has. */
static int peek_landed(struct sp_ctx *c)
{
	uint64_t t0 = now_ns();

	while (c->peek_busy) {
		CUresult r = cudrv.ev_query(c->peek_ev);

		if (r != CUDA_ERROR_NOT_READY) {
			c->peek_busy = 0;
			return r == CUDA_SUCCESS;
		}
		if (now_ns() - t0 > PEEK_WAIT_NS)
			return 0;
		sleep_ns(10000);
	}
	return 1;
}

/*
 * Job @t's next_task and live (watcher thread, @t's context current): 0,
 * or -1 if the look cannot be had or has not landed within PEEK_WAIT_NS.
 * A copy, not a kernel: a one-thread kernel needs a slot, and on an H200
 * beside a periodic LC most such looks did not land within a quantum,
 * even at the greatest stream priority, where every copy landed (0 of
 * 1362 drains unseen, bench/results/2026-11-26-h200-preempt). One copy at
 * most is in flight per context; the next is issued once it has landed.
 */
int ctl_peek(struct sp_ctl *t, uint64_t *next, uint32_t *live)
{
	struct sp_ctx *c = t->c;

	if (!c->peek_buf || !peek_landed(c) ||
	    cudrv.dtoh(c->peek_buf, t->dptr, PEEK_BYTES, c->peek_s) ||
	    cudrv.ev_record[0](c->peek_ev, c->peek_s))
		return -1;
	c->peek_busy = 1;
	if (!peek_landed(c))
		return -1;
	memcpy(next, c->peek_buf + GSP_PERSIST_OFF_NEXT_TASK, sizeof(*next));
	memcpy(live, c->peek_buf + GSP_PERSIST_OFF_LIVE, sizeof(*live));
	return 0;
}

/* The look's stream, event and pinned buffer; none if any fails. */
static void peek_setup(struct sp_ctx *c)
{
	void *w = NULL;

	if (cudrv.stream_create_sym(&c->peek_s, CU_STREAM_NON_BLOCKING) ||
	    cudrv.ev_create(&c->peek_ev, CU_EVENT_DISABLE_TIMING) ||
	    cudrv.host_alloc(&w, PEEK_BYTES, CU_MEMHOSTALLOC_PORTABLE)) {
		gsp_log(1, "spatial: no look at jobs' counters in this context: jobs left with no block are not looked for");
		return;
	}
	c->peek_buf = w;
}

/* Contexts (dispatcher thread, the context current) ----------------------- */

/*
 * The word this process's kernels act on now: the override while it is
 * raised (spatial_preempt.c), else the board's partition request.
 */
uint64_t req_now(void)
{
	const struct gsp_board *b = spatial.cfg.board;
	uint64_t o = ovr_word();

	if (GSP_PERSIST_CTRL_N(o) && GSP_PERSIST_CTRL_K(o))
		return o;
	return gsp_board_load(&b->dev[spatial.cfg.device].part_req);
}

uint32_t req_nk(uint64_t w)
{
	return GSP_PERSIST_CTRL_N(w) * GSP_PERSIST_CTRL_K(w);
}

/*
 * The slots @t's blocks give up under the word @w: n SMs of the context
 * at most, k of the job's K slots on each at most (k a share of K under
 * partition auto).
 */
uint32_t ctl_slots(const struct sp_ctl *t, uint64_t w)
{
	uint32_t n = GSP_PERSIST_CTRL_N(w);
	uint32_t k = gsp_persist_ctrl_slots(GSP_PERSIST_CTRL_K(w),
					    t->job.k_slots);

	if (n > t->c->nsm)
		n = t->c->nsm;
	return n * k;
}

/*
 * The SM rank table: a probe of 64 x N blocks records each block's %smid;
 * ranks follow smid order. An SM the probe missed keeps GSP_PERSIST_NO_RANK
 * (it never yields); no SM seen at all gives ranks by %smid.
 */
static int probe_ranks(struct sp_ctx *c)
{
	uint32_t seen[GSP_PERSIST_MAX_SM];
	CUdeviceptr out = 0;
	CUmodule m = NULL;
	CUfunction f;
	void *p[] = { &out };
	unsigned int i, n = 0;
	CUresult r;

	memset(seen, 0, sizeof(seen));
	r = cudrv.mod_load(&m, probe_ptx);
	if (!r)
		r = cudrv.mod_fn(&f, m, "gsp_sm_probe");
	if (!r)
		r = cudrv.mem_alloc(&out, sizeof(seen));
	if (!r)
		r = cudrv.memset32[0](out, 0, GSP_PERSIST_MAX_SM, c->topup);
	if (!r)
		r = cudrv.launch[0](f, 64 * c->nsm, 1, 1, 128, 1, 1, 0, c->topup, p,
				NULL);
	if (!r)
		r = cudrv.dtoh(seen, out, sizeof(seen), c->topup);
	if (!r)
		r = cudrv.stream_sync(c->topup);
	if (out)
		cudrv.mem_free(out);
	if (m)
		cudrv.mod_unload(m);
	if (r) {
		snprintf(c->err, sizeof(c->err), "the SM probe failed (error %d)",
			 (int)r);
		return -1;
	}
	for (i = 0; i < GSP_PERSIST_MAX_SM; i++)
		c->rank[i] = seen[i] ? n++ : GSP_PERSIST_NO_RANK;
	if (!n)
		for (i = 0; i < GSP_PERSIST_MAX_SM; i++)
			c->rank[i] = i < c->nsm ? i : GSP_PERSIST_NO_RANK;
	if (n != c->nsm)
		gsp_warn_once(&spatial.warned_probe,
			      "spatial: the SM probe saw %u SMs of %u%s", n,
			      c->nsm, n ? "" : "; ranking SMs by %smid");
	return 0;
}

/* Where kernels read the control word in this context. */
int map_ctrl(struct sp_ctx *c)
{
	uintptr_t page = (uintptr_t)spatial.cfg.board & ~(uintptr_t)(GSP_BOARD_SIZE - 1);
	uintptr_t at = (uintptr_t)&spatial.cfg.board->dev[spatial.cfg.device].part_req;
	CUdeviceptr d;
	CUresult r = CUDA_SUCCESS;
	int mapped;

	pthread_mutex_lock(&spatial.mu);
	mapped = spatial.board_mapped;
	c->board_gen = atomic_load(&spatial.board_gen);
	pthread_mutex_unlock(&spatial.mu);
	if (mapped >= 0 && !local_word()) {
		if (!mapped) {
			/* Portable: one registration serves every context. */
			r = cudrv.host_reg((void *)page, GSP_BOARD_SIZE,
				       CU_MEMHOSTREGISTER_PORTABLE |
				       CU_MEMHOSTREGISTER_DEVICEMAP |
				       CU_MEMHOSTREGISTER_READ_ONLY);
			if (r == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
				r = CUDA_SUCCESS;
			pthread_mutex_lock(&spatial.mu);
			spatial.board_mapped = r ? -1 : 1;
			pthread_mutex_unlock(&spatial.mu);
		}
		if (!r)
			r = cudrv.host_dptr(&d, (void *)page, 0);
		if (!r) {
			c->ctrl = d + (at - page);
			return 0;
		}
		gsp_warn_once(&spatial.warned_map,
			      "spatial: cannot map the board into the GPU (error %d); a copy of the request, refreshed every GSP_WATCH_US, stands in",
			      (int)r);
	}
	if (!local_word()) {
		void *w = NULL;

		/* Only this (dispatcher) thread sets it. */
		r = cudrv.host_alloc(&w, 64, CU_MEMHOSTALLOC_PORTABLE |
				 CU_MEMHOSTALLOC_DEVICEMAP);
		if (r) {
			snprintf(c->err, sizeof(c->err),
				 "no mapped host memory for the control word (error %d)",
				 (int)r);
			return -1;
		}
		__atomic_store_n((uint64_t *)w, req_now(), __ATOMIC_RELEASE);
		__atomic_store_n(&spatial.local, (uint64_t *)w, __ATOMIC_RELEASE);
	}
	r = cudrv.host_dptr(&d, local_word(), 0);
	if (r) {
		snprintf(c->err, sizeof(c->err),
			 "cannot map the control word (error %d)", (int)r);
		return -1;
	}
	c->ctrl = d;
	return 0;
}

static void ctx_setup(struct sp_ctx *c)
{
	int v = 0, ma = 0, mi = 0, mps = 1;
	CUresult r;

	r = cudrv.ctx_dev(&c->dev);
	if (!r)
		r = cudrv.dev_attr(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, c->dev);
	if (!r)
		r = cudrv.dev_attr(&ma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
			       c->dev);
	if (!r)
		r = cudrv.dev_attr(&mi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
			       c->dev);
	if (r || v <= 0) {
		snprintf(c->err, sizeof(c->err),
			 "cannot read the device's attributes (error %d)", (int)r);
		return;
	}
	c->nsm = (unsigned int)v;
	c->arch = (unsigned int)(ma * 10 + mi);
	if (!cudrv.dev_attr(&v, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
			c->dev) && v > 0)
		c->regs_sm = (unsigned int)v;
	if (!cudrv.dev_attr(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
			    c->dev) && v > 0)
		c->smem_sm = (unsigned int)v;
	if (!cudrv.dev_attr(&v, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
			    c->dev) && v >= 0)
		c->smem_rsv = (unsigned int)v;
	if (!cudrv.dev_attr(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
			    c->dev) && v > 0)
		c->smem_blk = (unsigned int)v;
	if (c->dev >= 0 && c->dev < 64 &&
	    !(spatial.mps_checked & (1ULL << c->dev))) {
		spatial.mps_checked |= 1ULL << c->dev;
		if (!cudrv.dev_attr(&mps, CU_DEVICE_ATTRIBUTE_MPS_ENABLED, c->dev) &&
		    !mps)
			fprintf(stderr,
				"gsp: spatial: MPS is off on CUDA device %d: kernels of different processes time-slice and cannot share SMs; start MPS (gspctl mps start) before the programs\n",
				(int)c->dev);
	}
	r = cudrv.stream_create_sym(&c->topup, CU_STREAM_NON_BLOCKING);
	if (!r)
		r = cudrv.stream_create_sym(&c->zero, CU_STREAM_NON_BLOCKING);
	if (r) {
		snprintf(c->err, sizeof(c->err),
			 "cannot create the top-up or reset stream (error %d)",
			 (int)r);
		return;
	}
	if (probe_ranks(c) || map_ctrl(c))
		return;
	ovr_map(c);
	{
		CUmodule m;

		/* no waiter: every job is kept */
		if (cudrv.mod_load(&m, waiter_ptx) ||
		    cudrv.mod_fn(&c->waiter, m, "gsp_wait_done"))
			c->waiter = NULL;
	}
	peek_setup(c);
	c->ok = 1;
}

/* Our state for context @ctx, set up on first use; NULL without memory. */
struct sp_ctx *ctx_get(CUcontext ctx)
{
	struct sp_ctx *c;

	pthread_mutex_lock(&spatial.mu);
	for (c = spatial.ctxs; c; c = c->next)
		if (c->ctx == ctx && !c->dead)
			break;
	pthread_mutex_unlock(&spatial.mu);
	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->ctx = ctx;
	ctx_setup(c);
	pthread_mutex_lock(&spatial.mu);
	c->next = spatial.ctxs;
	spatial.ctxs = c;
	pthread_mutex_unlock(&spatial.mu);
	return c;
}


void gsp_sp_ctx_gone(CUcontext ctx, CUdevice dev)
{
	struct sp_img *dead = NULL;
	struct sp_green *greens;
	struct sp_ctx *c;
	unsigned int i;
	int busy;

	if (!gsp_sp_on())
		return;
	pthread_mutex_lock(&spatial.mu);
	/* Contexts are never freed: ctls and modules may point at them. */
	for (c = spatial.ctxs; c; c = c->next)
		if (!c->dead && (ctx ? c->ctx == ctx : c->dev == dev))
			__atomic_store_n(&c->dead, 1, __ATOMIC_RELEASE);
	do {
		busy = 0;
		for (i = 0; i < spatial.nlive; i++)
			busy |= spatial.live[i]->c->dead && spatial.live[i]->claimed;
		if (busy)
			pthread_cond_wait(&spatial.cv, &spatial.mu);
	} while (busy);
	for (i = 0; i < spatial.nlive;) {
		struct sp_ctl *t = spatial.live[i];

		if (!t->c->dead) {
			i++;
			continue;
		}
		t->state = CTL_LOST;
		img_queue(img_unref(t->img), &dead);
		t->img = NULL;
		spatial.live[i] = spatial.live[--spatial.nlive];
	}
	greens = green_take(0);
	pthread_mutex_unlock(&spatial.mu);
	img_free_list(dead);
	/* Before the real call: a green context holds the primary one. */
	green_drop(greens, 1);
}

/* Control blocks ------------------------------------------------------------ */

int ctl_done(struct sp_ctl *t)
{
	if (atomic_load(&t->host_wait) ||
	    cudrv.ev_query(t->ev_p) == CUDA_ERROR_NOT_READY)
		return 0;
	/* Top-ups run in order on one stream: the last one is enough. */
	return !t->topups || cudrv.ev_query(t->ev_t) != CUDA_ERROR_NOT_READY;
}

/* Ends a live job (spatial.mu held); its image goes on @dead if unused. */
void ctl_retire(struct sp_ctl *t, struct sp_img **dead)
{
	unsigned int i;

	for (i = 0; i < spatial.nlive; i++)
		if (spatial.live[i] == t) {
			spatial.live[i] = spatial.live[--spatial.nlive];
			break;
		}
	img_queue(img_unref(t->img), dead);
	t->img = NULL;
	t->state = CTL_FREE;
}

/* A new ctl of @c, clean: device memory, its rank table, four events. */
static struct sp_ctl *ctl_new(struct sp_ctx *c)
{
	struct gsp_persist_ctl init;
	struct sp_ctl *t = calloc(1, sizeof(*t));
	unsigned int i;
	CUresult r;

	if (!t)
		return NULL;
	memset(&init, 0, sizeof(init));
	for (i = 0; i < GSP_PERSIST_MAX_SM; i++)
		init.sm[i].sm_rank = c->rank[i];
	init.ovr_ptr = c->ovr;
	r = cudrv.mem_alloc(&t->dptr, sizeof(init));
	if (!r)
		r = cudrv.htod(t->dptr, &init, sizeof(init), c->topup);
	if (!r)
		r = cudrv.stream_sync(c->topup);
	if (!r)
		r = cudrv.ev_create(&t->ev_s, CU_EVENT_DISABLE_TIMING);
	if (!r)
		r = cudrv.ev_create(&t->ev_p, CU_EVENT_DISABLE_TIMING);
	if (!r)
		r = cudrv.ev_create(&t->ev_t, CU_EVENT_DISABLE_TIMING);
	if (!r)
		r = cudrv.ev_create(&t->ev_z, CU_EVENT_DISABLE_TIMING);
	if (r) {
		/* Events and memory of a half-made ctl: rare, left alone. */
		free(t);
		return NULL;
	}
	t->c = c;
	t->clean = 1;
	return t;
}

/*
 * Resets ended job @t's ctl on its context's zero stream (claimed or
 * taken by the caller, unlocked), so that its next launch needs no reset
 * on the program's stream: 1 if queued, 0 if not (it stays dirty).
 */
int ctl_zero(struct sp_ctl *t)
{
	struct sp_ctx *c = t->c;

	return !cudrv.ctx_set(c->ctx) &&
	       !cudrv.memset32[0](t->dptr, 0, GSP_PERSIST_RESET_BYTES / 4, c->zero) &&
	       !cudrv.ev_record[0](t->ev_z, c->zero);
}

/*
 * A free ctl of @c, taken. First one known clean; else, looked at
 * unlocked (claimed meanwhile), one whose reset has completed; else a
 * dirty free one, or one whose job has ended (its launch resets it on
 * its stream); else a new one. Ended jobs it does not take are reset on
 * the zero stream for later launches.
 */
struct sp_ctl *ctl_get(struct sp_ctx *c)
{
	struct sp_ctl *mine[CTL_MAX], *spare[CTL_MAX];
	char done[CTL_MAX], zeroing[CTL_MAX];
	struct sp_img *dead = NULL;
	struct sp_ctl *t = NULL, *dirty = NULL;
	unsigned int i, n = 0, ns = 0;
	int ok;

	pthread_mutex_lock(&spatial.mu);
	for (i = 0; i < c->nctl && !t; i++)
		if (c->ctls[i]->state == CTL_FREE && c->ctls[i]->clean)
			t = c->ctls[i];
	for (i = 0; i < c->nctl && !t; i++) {
		struct sp_ctl *s = c->ctls[i];

		if (s->claimed)
			continue;
		if ((s->state == CTL_FREE && s->zeroing) ||
		    s->state == CTL_LIVE) {
			s->claimed = 1;
			zeroing[n] = s->state == CTL_FREE;
			mine[n++] = s;
		} else if (s->state == CTL_FREE && !dirty) {
			dirty = s;
		}
	}
	if (t)
		t->state = CTL_TAKEN;
	pthread_mutex_unlock(&spatial.mu);
	if (t)
		return t;
	for (i = 0; i < n; i++)
		done[i] = zeroing[i] ?
			  cudrv.ev_query(mine[i]->ev_z) != CUDA_ERROR_NOT_READY :
			  ctl_done(mine[i]);
	pthread_mutex_lock(&spatial.mu);
	for (i = 0; i < n; i++) {
		struct sp_ctl *s = mine[i];

		s->claimed = 0;
		if (!done[i])
			continue;
		if (zeroing[i]) {
			s->zeroing = 0;
			s->clean = 1;
			if (!t)
				t = s;
			continue;
		}
		ctl_retire(s, &dead);
		s->state = CTL_TAKEN;	/* ours until reset, or taken */
		spare[ns++] = s;
	}
	if (!t && dirty && dirty->state == CTL_FREE && !dirty->claimed)
		t = dirty;
	if (!t && ns)
		t = spare[--ns];
	if (t)
		t->state = CTL_TAKEN;
	pthread_cond_broadcast(&spatial.cv);
	pthread_mutex_unlock(&spatial.mu);
	img_free_list(dead);
	for (i = 0; i < ns; i++) {
		ok = ctl_zero(spare[i]);
		pthread_mutex_lock(&spatial.mu);
		spare[i]->zeroing = ok;
		spare[i]->state = CTL_FREE;
		pthread_mutex_unlock(&spatial.mu);
	}
	if (t || c->nctl == CTL_MAX)
		return t;
	t = ctl_new(c);
	if (!t)
		return NULL;
	t->state = CTL_TAKEN;
	pthread_mutex_lock(&spatial.mu);
	c->ctls[c->nctl++] = t;
	pthread_mutex_unlock(&spatial.mu);
	return t;
}

void ctl_release(struct sp_ctl *t)
{
	pthread_mutex_lock(&spatial.mu);
	t->state = CTL_FREE;
	pthread_mutex_unlock(&spatial.mu);
}
