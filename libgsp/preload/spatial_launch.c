// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Spatial sharing: launch, top-ups and the watcher. gsp_sp_prepare()
 * picks the transformed clone and a ctl for a BE launch, gsp_sp_issue()
 * runs NAME__gsp with a one-wave grid and its job (and a waiter, for a
 * waited job); the watcher thread polls the board's partition request
 * and, when it shrinks, launches top-ups for the jobs still running.
 * Apart from the rest because it is the per-launch path.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "spatial_internal.h"

static uint64_t grid_tasks(const struct gsp_op *op)
{
	if (op->kind == OP_LAUNCH_EX)
		return (uint64_t)op->u.ex.cfg.gridDimX * op->u.ex.cfg.gridDimY *
		       op->u.ex.cfg.gridDimZ;
	return (uint64_t)op->u.k.g[0] * op->u.k.g[1] * op->u.k.g[2];
}

/* cuLaunchKernelEx attributes a persistent grid cannot honour. */
const char *ex_attr_reason(const CUlaunchConfig *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->numAttrs; i++) {
		const CUlaunchAttribute *a = &cfg->attrs[i];

		if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && a->value.cooperative)
			return "cooperative";
		if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION ||
		    a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE)
			return "cluster";
	}
	return NULL;
}

/* Blocks per cluster a cuLaunchKernelEx asks for: 1 if it sets none. */
unsigned int ex_cluster_blocks(const CUlaunchConfig *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->numAttrs; i++) {
		const CUlaunchAttribute *a = &cfg->attrs[i];

		if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
			return a->value.clusterDim.x * a->value.clusterDim.y *
			       a->value.clusterDim.z;
	}
	return 1;
}

/*
 * A top-up runs on the context's own stream: it repeats the attributes
 * that say how the kernel runs, not those tied to the program's launch
 * (programmatic serialization and events, completion events: its
 * stream's, not ours) or refused above. Ids we do not know are left out.
 */
static void topup_attrs(struct sp_ctl *t, const CUlaunchConfig *cfg)
{
	unsigned int i;

	t->nattrs = 0;
	for (i = 0; i < cfg->numAttrs && t->nattrs < TOPUP_ATTRS; i++) {
		switch (cfg->attrs[i].id) {
		case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
		case CU_LAUNCH_ATTRIBUTE_PRIORITY:
		case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
		case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
		case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
			t->attrs[t->nattrs++] = cfg->attrs[i];
			break;
		default:
			break;
		}
	}
}

int gsp_sp_prepare(struct gsp_op *op)
{
	struct sp_handle *h;
	struct sp_kern *kn;
	struct sp_img *img;
	struct sp_kfn *kf;
	struct sp_ctx *c;
	const char *reason, *token;
	char why[200];
	unsigned int threads, shmem;
	CUfunction f;

	op->sp = NULL;
	if (op->kind == OP_LAUNCH || op->kind == OP_COOP)
		f = op->u.k.f;
	else if (op->kind == OP_LAUNCH_EX)
		f = op->u.ex.f;
	else
		return 0;
	pthread_mutex_lock(&spatial.mu);
	h = hfind(f);
	kn = h ? h->kern : NULL;
	img = kn ? kn->img : NULL;
	if (img)
		img->refs++;
	pthread_mutex_unlock(&spatial.mu);
	if (!kn) {
		count_fallback("unknown-kernel");
		gsp_warn_once(&spatial.warned_unknown,
			      "spatial: a kernel whose module load the interposer did not see runs unchanged");
		return 0;
	}
	if (op->kind == OP_COOP) {
		fallback(kn, "cooperative", "a cooperative launch");
		goto out;
	}
	if (op->kind == OP_LAUNCH_EX && (reason = ex_attr_reason(&op->u.ex.cfg))) {
		fallback(kn, reason, !strcmp(reason, "cluster") ?
			 "a launch with thread-block clusters" :
			 "a cooperative launch");
		goto out;
	}
	if (op->nparams < 0) {
		fallback(kn, "extra-params",
			 "its parameters come in the launch's `extra` buffer");
		goto out;
	}
	if (kern_verdict(kn)) {
		fallback(kn, kn->token, kn->why);
		goto out;
	}
	if ((unsigned int)op->nparams != kn->nparams) {
		snprintf(why, sizeof(why),
			 "the driver says %d parameters, its PTX %u",
			 op->nparams, kn->nparams);
		fallback(kn, "params", why);
		goto out;
	}
	c = ctx_get(op->ctx);
	if (!c || !c->ok) {
		snprintf(why, sizeof(why), "context set-up failed: %s",
			 c ? c->err : "out of memory");
		fallback(kn, "context", why);
		goto out;
	}
	kf = kfn_get(kn, c, why, sizeof(why), &token);
	if (!kf) {
		fallback(kn, token, why);
		goto out;
	}
	if (op->kind == OP_LAUNCH_EX) {
		threads = op->u.ex.cfg.blockDimX * op->u.ex.cfg.blockDimY *
			  op->u.ex.cfg.blockDimZ;
		shmem = op->u.ex.cfg.sharedMemBytes;
	} else {
		threads = op->u.k.b[0] * op->u.k.b[1] * op->u.k.b[2];
		shmem = op->u.k.shmem;
	}
	if (!kfn_k(kf, f, threads, shmem)) {
		fallback(kn, "occupancy",
			 "its transformed form does not fit on an SM at this block size");
		goto out;
	}
	/*
	 * A grid that fits in one wave has no task boundary to yield at
	 * beyond its blocks' own ends, which the original kernel has too:
	 * while nothing is asked of it, it runs unchanged (no ctl reset,
	 * no copies). Under a request, its transformed form keeps out of
	 * the LC's slots from the start.
	 */
	if (spatial.cfg.one_wave && grid_tasks(op) <= (uint64_t)c->nsm * kf->k &&
	    !req_nk(req_now())) {
		atomic_fetch_add_explicit(&spatial.one_wave, 1, memory_order_relaxed);
		goto out;
	}
	op->sp = kf;
	return 1;	/* the reference goes with op->sp */
out:
	img_put(img);
	return 0;
}

/* Launch and top-ups ---------------------------------------------------------- */

/* Copies @op's parameters into @t, with &t->job after them. */
static int ctl_params(struct sp_ctl *t, const struct gsp_op *op, void **params)
{
	unsigned int i, np = (unsigned int)op->nparams;
	void **pp = realloc(t->params, (np + 1) * sizeof(void *));

	if (!pp)
		return -1;
	t->params = pp;
	if (op->buflen) {
		void *b = realloc(t->pbuf, op->buflen);

		if (!b)
			return -1;
		t->pbuf = b;
		memcpy(b, op->buf, op->buflen);
	}
	for (i = 0; i < np; i++)
		pp[i] = (char *)t->pbuf + ((char *)params[i] - (char *)op->buf);
	pp[np] = &t->job;
	return 0;
}

/* The .const variables into our module before a primary, on its stream. */
static CUresult vars_copy(const struct sp_mod *md, int pt, CUstream s)
{
	unsigned int i;
	CUresult r;

	for (i = 0; i < md->nvars; i++) {
		const struct sp_var *v = &md->vars[i];

		r = cudrv.dtod[pt](v->xf, v->orig, v->size, s);
		if (r)
			return r;
	}
	return CUDA_SUCCESS;
}

static int watcher_start(void);

/*
 * Whether a job of @c is waited rather than kept (gsp_persist.h, "Stream
 * order"). Kept, the last primary block holds a slot on one SM while
 * tasks remain, and the hardware then places the LC's blocks around it:
 * one SM gets a block too many, and a one-wave LC kernel takes half as
 * long again (Documentation/spatial.rst). Waited, a yield leaves the SMs
 * empty, and only top-ups finish the job: so only with the watcher
 * running. Under reserved, whose request never falls while an LC tenant
 * exists, the watcher's orphan check tops up a job whose blocks all left
 * (orphan_topup()). GSP_KEEP=1 keeps every job.
 */
static int job_waited(const struct sp_ctx *c)
{
	return c->waiter && !spatial.cfg.keep && watcher_start();
}

/*
 * GSP_PERSIST_LINGER under reserved: an SM whose last tasks of a job still
 * run stays full, so the LC's blocks, which run beside the request's
 * standing SMs, never land beside them. Where the request comes and
 * goes the blocks leave as they run out of tasks, and the SMs they free
 * are the LC's at once.
 */
static uint32_t job_linger(void)
{
	return gsp_board_protect(spatial.cfg.board, spatial.cfg.device) ==
	       GSP_PROTECT_RESERVED ? GSP_PERSIST_LINGER : 0;
}

/* Launched under reserved: its flags (and its top-ups') linger. */
static int job_reserved(const struct sp_ctl *t)
{
	return (t->job.flags & GSP_PERSIST_LINGER) != 0;
}

/*
 * GSP_FILL's shared memory (kfn_pad()), while the partition leaves the BE
 * some SMs (0 < n < N), where an LC block that fits beside the job's
 * blocks would barely run. Under (N, k) a request leaves the BE no SM,
 * and the padding would only take L1 from its kernels.
 */
static unsigned int launch_pad(const struct sp_ctx *c, const struct sp_kfn *kf)
{
	const struct gsp_board *b = spatial.cfg.board;
	uint32_t n = gsp_board_load(&b->dev[spatial.cfg.device].part_n);

	return n && n < c->nsm ? kf->pad : 0;
}

/*
 * The waiter behind waited job @t (live) could not be launched: the
 * launching thread waits for the job's tasks itself, so that nothing
 * after it on the program's stream @s starts early; top-ups finish it
 * (the watcher). Then ev_p, which ctl_done() ignored meanwhile.
 */
static void job_wait_host(struct sp_ctl *t, int pt, CUstream s)
{
	struct sp_img *dead = NULL;
	uint64_t done = 0;

	gsp_warn_once(&spatial.warned_wait64,
		      "spatial: cannot launch the waiter behind a transformed kernel; its launch waits for its tasks on the host");
	while (!cudrv.dtoh(&done, t->dptr + GSP_PERSIST_OFF_DONE_TASKS,
		       sizeof(done), t->c->zero) &&
	       !cudrv.stream_sync(t->c->zero) && done < t->job.ntasks)
		sleep_ns(WAIT_HOST_NS);
	if (!cudrv.ev_record[pt](t->ev_p, s)) {
		atomic_store(&t->host_wait, 0);
		return;
	}
	/* Its end cannot be seen: never reused. */
	pthread_mutex_lock(&spatial.mu);
	while (t->claimed)
		pthread_cond_wait(&spatial.cv, &spatial.mu);
	ctl_retire(t, &dead);
	t->state = CTL_LOST;
	pthread_mutex_unlock(&spatial.mu);
	img_free_list(dead);
}

int gsp_sp_issue(struct gsp_op *op, CUresult *res)
{
	struct sp_kfn *kf = op->sp;
	struct sp_kern *kn = kf->kern;
	struct sp_ctx *c = kf->c;
	int pt = gsp_hooks[op->hook].pt == PT_PTDS;
	unsigned int g[3], grid, pad;
	struct sp_ctl *t;
	uint64_t word;
	CUresult r;
	int clean;

	if (kf->kind == SP_GREEN)
		return green_issue(op, res);
	op->sp = NULL;
	if (op->kind == OP_LAUNCH_EX) {
		g[0] = op->u.ex.cfg.gridDimX;
		g[1] = op->u.ex.cfg.gridDimY;
		g[2] = op->u.ex.cfg.gridDimZ;
	} else {
		memcpy(g, op->u.k.g, sizeof(g));
	}
	t = ctl_get(c);
	if (!t) {
		fallback(kn, "ctl", "no control block (device memory) for it");
		img_put(kn->img);
		return 0;
	}
	if (ctl_params(t, op, op->kind == OP_LAUNCH_EX ? op->u.ex.params :
							  op->u.k.params)) {
		ctl_release(t);
		fallback(kn, "ctl", "out of memory");
		img_put(kn->img);
		return 0;
	}
	/*
	 * One wave, but no more blocks than tasks: the surplus would only
	 * claim a slot and leave, which costs a small kernel more than it
	 * runs.
	 */
	grid = c->nsm * (unsigned int)kf->k;
	if ((uint64_t)g[0] * g[1] * g[2] < grid)
		grid = g[0] * g[1] * g[2];
	/* The board moved (gsp_sp_board_moved()): this context reads anew. */
	if (c->board_gen != atomic_load(&spatial.board_gen) && map_ctrl(c)) {
		ctl_release(t);
		fallback(kn, "context", c->err);
		img_put(kn->img);
		return 0;
	}
	word = req_now();
	if (local_word())
		__atomic_store_n(local_word(), word, __ATOMIC_RELEASE);
	/* reset on its stream unless the zero stream did it (ctl_get()) */
	clean = t->clean;
	t->clean = 0;
	memset(&t->job, 0, sizeof(t->job));
	t->job.ctl = t->dptr;
	t->job.ctrl_ptr = c->ctrl;
	t->job.ntasks = (uint64_t)g[0] * g[1] * g[2];
	memcpy(t->job.nctaid, g, sizeof(g));
	t->job.k_slots = (uint32_t)kf->k;
	t->job.refresh_ns = spatial.cfg.refresh_ns;
	t->job.copy_ns = spatial.cfg.copy_ns;
	t->job.batch_ns = spatial.cfg.batch_ns;
	t->waited = job_waited(c);
	t->job.flags = GSP_PERSIST_PRIMARY |
		       (t->waited ? GSP_PERSIST_WAITED : 0) | job_linger();
	t->job.word = word;
	pad = launch_pad(c, kf);
	kfn_carveout(kf, pad != 0);
	t->f = kf->f;
	t->grid = grid;
	if (op->kind == OP_LAUNCH_EX) {
		CUlaunchConfig cfg = op->u.ex.cfg;

		t->b[0] = cfg.blockDimX;
		t->b[1] = cfg.blockDimY;
		t->b[2] = cfg.blockDimZ;
		cfg.sharedMemBytes += pad;
		t->shmem = cfg.sharedMemBytes;
		topup_attrs(t, &cfg);
		cfg.gridDimX = grid;
		cfg.gridDimY = cfg.gridDimZ = 1;
		r = vars_copy(kf->md, pt, op->stream);
		if (!r && !clean)
			r = cudrv.memset32[pt](t->dptr, 0,
					   GSP_PERSIST_RESET_BYTES / 4, op->stream);
		if (!r)
			r = cudrv.ev_record[pt](t->ev_s, op->stream);
		if (!r)
			r = cudrv.launch_ex[pt](&cfg, t->f, t->params, NULL);
	} else {
		memcpy(t->b, op->u.k.b, sizeof(t->b));
		t->shmem = op->u.k.shmem + pad;
		t->nattrs = 0;
		r = vars_copy(kf->md, pt, op->stream);
		if (!r && !clean)
			r = cudrv.memset32[pt](t->dptr, 0,
					   GSP_PERSIST_RESET_BYTES / 4, op->stream);
		if (!r)
			r = cudrv.ev_record[pt](t->ev_s, op->stream);
		if (!r)
			r = cudrv.launch[pt](t->f, grid, 1, 1, t->b[0], t->b[1],
					 t->b[2], t->shmem, op->stream,
					 t->params, NULL);
	}
	if (r) {
		char why[96];

		ctl_release(t);
		snprintf(why, sizeof(why),
			 "the launch of its transformed form failed (error %d)",
			 (int)r);
		fallback(kn, "launch", why);
		img_put(kn->img);
		return 0;
	}
	atomic_fetch_add_explicit(&spatial.launches, 1, memory_order_relaxed);
	*res = CUDA_SUCCESS;
	if (t->waited) {
		CUdeviceptr done = t->dptr + GSP_PERSIST_OFF_DONE_TASKS;
		void *wp[] = { &done, &t->job.ntasks };

		atomic_fetch_add_explicit(&spatial.waited, 1, memory_order_relaxed);
		/* ev_p then follows the host's wait, once it is live (below) */
		atomic_store(&t->host_wait,
			     cudrv.launch[pt](c->waiter, 1, 1, 1, 32, 1, 1, 0,
					  op->stream, wp, NULL) != CUDA_SUCCESS);
	}
	if (!atomic_load(&t->host_wait) && cudrv.ev_record[pt](t->ev_p, op->stream)) {
		/* Its end cannot be seen: never reused, never topped up. */
		pthread_mutex_lock(&spatial.mu);
		t->state = CTL_LOST;
		pthread_mutex_unlock(&spatial.mu);
		img_put(kn->img);
		return 1;
	}
	pthread_mutex_lock(&spatial.mu);
	if (spatial.nlive == spatial.cap) {
		unsigned int cap = spatial.cap ? 2 * spatial.cap : 64;
		struct sp_ctl **l = realloc(spatial.live, cap * sizeof(*l));

		if (!l) {
			t->state = CTL_LOST;
			pthread_mutex_unlock(&spatial.mu);
			img_put(kn->img);
			return 1;
		}
		spatial.live = l;
		spatial.cap = cap;
	}
	t->img = kn->img;	/* the prepare's reference */
	t->topups = 0;
	t->looked_ns = now_ns();
	t->hw = ctl_slots(t, word);
	t->ep = GSP_PERSIST_CTRL_EPOCH(word);
	t->state = CTL_LIVE;
	spatial.live[spatial.nlive++] = t;
	pthread_cond_signal(&spatial.wake);
	pthread_mutex_unlock(&spatial.mu);
	if (!t->waited)		/* job_waited() started it */
		watcher_start();
	if (atomic_load(&t->host_wait))
		job_wait_host(t, pt, op->stream);
	return 1;
}

/*
 * A top-up of @t (claimed, in the watcher): @blocks blocks (at most the
 * job's grid), flags 0, the word the watcher just read and the
 * attributes topup_attrs() kept, on its context's own stream. No more
 * blocks than slots were given up: a block that finds its SM full stays
 * queued in the hardware until a slot frees, and the hardware hands a
 * freed slot to the oldest queued grid of the highest priority first,
 * which would be the top-up's, not the LC kernel's. Under reserved, not
 * before the work ahead of the primary on its stream (and its ctl's
 * reset) is done: the top-up's stream does not follow the program's, and
 * its blocks would run tasks early. (Elsewhere that gate is not
 * applied: with it, and it alone, gsp-wl's cfd hung under reactive on an
 * H200, cause not found; Documentation/spatial.rst, "Limits of the
 * modes".) -1 if its end cannot be seen (the ctl is then lost), 2 if
 * it is too early (the watcher tries again), 1 if it was not launched (a
 * waited job needs it: the watcher tries again), else 0.
 */
static int topup(struct sp_ctl *t, uint64_t word, uint32_t blocks)
{
	struct sp_ctx *c = t->c;
	unsigned int grid = blocks < t->grid ? blocks : t->grid;
	CUresult r;

	if (cudrv.ctx_set(c->ctx))
		return 1;
	if (job_reserved(t) && cudrv.ev_query(t->ev_s) != CUDA_SUCCESS)
		return 2;
	t->job.flags &= GSP_PERSIST_LINGER;
	t->job.word = word;
	if (t->nattrs) {
		CUlaunchConfig cfg = {
			.gridDimX = grid, .gridDimY = 1, .gridDimZ = 1,
			.blockDimX = t->b[0], .blockDimY = t->b[1],
			.blockDimZ = t->b[2], .sharedMemBytes = t->shmem,
			.hStream = c->topup, .attrs = t->attrs,
			.numAttrs = t->nattrs,
		};

		r = cudrv.launch_ex[0](&cfg, t->f, t->params, NULL);
	} else {
		r = cudrv.launch[0](t->f, grid, 1, 1, t->b[0], t->b[1], t->b[2],
				t->shmem, c->topup, t->params, NULL);
	}
	if (r)
		return 1;
	atomic_fetch_add_explicit(&spatial.topups, 1, memory_order_relaxed);
	if (cudrv.ev_record[0](t->ev_t, c->topup))
		return -1;
	t->topups++;
	return 0;
}


/*
 * A job none of whose blocks holds a slot while tasks are still to be
 * handed out (every block it had left on a request, those queued in the
 * hardware started late or never) is orphaned: only a top-up finishes
 * it, and the watcher tops up only when the request shrinks, which under
 * reserved it never does while the LC runs. Every ORPHAN_NS of a
 * reserved job's life the watcher looks at its counters (ctl_peek(), off
 * the program's streams) and tops such a job up
 * with the slots the request leaves. Elsewhere the request's fall tops
 * it up. As topup().
 */
#define ORPHAN_NS	2000000ULL	/* 2 ms */

static int orphan_topup(struct sp_ctl *t, uint64_t word, uint32_t nk)
{
	struct sp_ctx *c = t->c;
	uint64_t now = now_ns(), next = 0;
	uint32_t live = 1;

	if (!job_reserved(t) || now - t->looked_ns < ORPHAN_NS || nk >= t->grid)
		return 0;
	t->looked_ns = now;
	if (cudrv.ctx_set(c->ctx) || cudrv.ev_query(t->ev_s) != CUDA_SUCCESS ||
	    ctl_peek(t, &next, &live) || live || next >= t->job.ntasks)
		return 0;
	atomic_fetch_add_explicit(&spatial.orphans, 1, memory_order_relaxed);
	gsp_log(1, "spatial: a job of %u blocks had none left and %llu of its %llu tasks to hand out: topped up",
		t->grid, (unsigned long long)(t->job.ntasks - next),
		(unsigned long long)t->job.ntasks);
	return topup(t, word, t->grid - nk);
}

/*
 * Polls the request while transformed jobs run. A job whose request
 * shrank since its launch (or last top-up) gets a top-up; jobs whose
 * events completed are retired, their ctls free again.
 */
static void *watcher_main(void *arg)
{
	struct sp_ctl *batch[WATCH_BATCH];
	int done[WATCH_BATCH], lost[WATCH_BATCH], zeroed[WATCH_BATCH];
	(void)arg;

	/* Our 50 us sleeps must not be stretched by the timer slack. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	pthread_mutex_lock(&spatial.mu);
	for (;;) {
		struct sp_img *dead = NULL;
		unsigned int i, n = 0, all;
		const struct gsp_board_dev *dv = &spatial.cfg.board->dev[spatial.cfg.device];
		uint64_t word, full_word;

		while (!spatial.stop && !spatial.nlive)
			pthread_cond_wait(&spatial.wake, &spatial.mu);
		if (spatial.stop)
			break;
		for (i = 0; i < spatial.nlive && n < WATCH_BATCH; i++)
			if (!spatial.live[i]->claimed) {
				spatial.live[i]->claimed = 1;
				batch[n++] = spatial.live[i];
			}
		all = spatial.nlive;
		pthread_mutex_unlock(&spatial.mu);
		word = req_now();
		if (local_word())
			__atomic_store_n(local_word(), word, __ATOMIC_RELEASE);
		/* Under partition auto any cell up to the whole device. */
		full_word = gsp_board_load(&dv->search) ?
			    GSP_PERSIST_CTRL(GSPACE_PART_MAX_N,
					     GSPACE_PART_MAX_K, 0) :
			    GSP_PERSIST_CTRL(gsp_board_load(&dv->part_n),
					     gsp_board_load(&dv->part_k), 0);
		for (i = 0; i < n; i++) {
			struct sp_ctl *t = batch[i];
			uint32_t nk = ctl_slots(t, word);
			uint32_t full = ctl_slots(t, full_word);
			int r = 0;

			done[i] = ctl_done(t);
			/*
			 * A shrink since its last look, or a change it did not
			 * see that may have been a raise and a fall between two
			 * polls: slots may be free, as many as were given up.
			 * A block too many stays queued, and leaves at once
			 * when it starts under a request (its first boundary
			 * reads the word afresh).
			 */
			if (!done[i] && nk < t->hw)
				r = topup(t, word, t->hw - nk);
			else if (!done[i] && GSP_PERSIST_CTRL_EPOCH(word) != t->ep &&
				 nk < full)
				r = topup(t, word, full - nk);
			if (!done[i] && !r)
				r = orphan_topup(t, word, nk);
			lost[i] = r < 0;
			/*
			 * Too early for any job, or not launched for a waited
			 * one (no keeper): the top-up is tried again.
			 */
			if (r == 2 || (r > 0 && t->waited)) {
				zeroed[i] = 0;
				continue;
			}
			t->hw = nk;
			t->ep = GSP_PERSIST_CTRL_EPOCH(word);
			/* ended: reset now, off the program's streams */
			zeroed[i] = done[i] && ctl_zero(t);
		}
		preempt_look(batch, done, n, all, word);
		pthread_mutex_lock(&spatial.mu);
		for (i = 0; i < n; i++) {
			batch[i]->claimed = 0;
			if (lost[i]) {
				/* its tasks left will never run: say so */
				atomic_fetch_add_explicit(&spatial.lost, 1,
							  memory_order_relaxed);
				gsp_log(0, "spatial: a top-up of a job of %u blocks failed; its tasks left will not run",
					batch[i]->grid);
				ctl_retire(batch[i], &dead);
				batch[i]->state = CTL_LOST;
			} else if (done[i]) {
				ctl_retire(batch[i], &dead);
				batch[i]->zeroing = zeroed[i];
			}
		}
		pthread_cond_broadcast(&spatial.cv);
		pthread_mutex_unlock(&spatial.mu);
		img_free_list(dead);
		sleep_ns(spatial.cfg.watch_ns);
		pthread_mutex_lock(&spatial.mu);
	}
	pthread_mutex_unlock(&spatial.mu);
	return NULL;
}

/* 1 if the watcher runs (started now if it did not). */
static int watcher_start(void)
{
	int running;

	pthread_mutex_lock(&spatial.mu);
	if (!spatial.watcher_running && !spatial.stop &&
	    !pthread_create(&spatial.watcher, NULL, watcher_main, NULL))
		spatial.watcher_running = 1;
	else if (!spatial.watcher_running)
		gsp_warn_once(&spatial.warned_wait,
			      "spatial: cannot start the watcher thread; BE kernels give slots up but take them back only at their next launch");
	running = spatial.watcher_running;
	pthread_mutex_unlock(&spatial.mu);
	return running;
}
