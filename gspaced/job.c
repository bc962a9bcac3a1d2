// SPDX-License-Identifier: GPL-2.0
/*
 * gspaced jobs, engines and fences: the uapi requests, with the semantics
 * that gspace.ko shares through the core (kmod/core/gsp_arbiter.h):
 * validation, features and a job's accounting are the core's; the
 * handles, fences and timers here, and the WAIT parking of wait.c, are
 * the daemon's glue.
 * Where a function plays the part of a kernel one, it names it.
 *
 * Fences are eventfds (gspd_proto.h): the daemon writes 1 when a job
 * succeeds and 1 + (-error) when it fails, and watches an in-fence with
 * epoll without reading it.
 *
 * Freed jobs go to a graveyard emptied at the end of each loop iteration,
 * because an epoll batch may still carry an event that names them.
 *
 * Over 800 lines: the daemon's counterpart of gspace.ko's gsp_job.c,
 * gsp_engine.c and gsp_ioctl.c in one file: its jobs, their engine and
 * the requests that make and end them share one table, one lock-free
 * loop (a single thread) and the graveyard above, which the module's
 * split along its locks does not need here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "gspaced.h"

/* Fences are eventfds and the board comes over the socket. */
#define GD_FEATURES	GSP_ARBITER_FEATURES

/*
 * Jobs whose dependencies have all signalled, for gd_run_timers(): as the
 * module's ready worker, it keeps a long CHAIN from recursing. Single
 * event-loop thread: no lock.
 */
static struct gd_job **ready_list;
static size_t ready_n, ready_cap;
/* Freed jobs, released at the end of the loop iteration (see above). */
static struct gd_job *graveyard;

void gd_devices_init(void)
{
	uint64_t now = gd_now();
	uint32_t i, e;

	for (i = 0; i < GD_MAX_DEVICES; i++) {
		struct gd_dev *d = &gd_state.dev[i];

		d->index = i;
		gsp_sched_init(&d->sched, &gd_state.cfg.params, now);
		for (e = 0; e < GSP_ENGINE_COUNT; e++) {
			d->eng[e].dev = d;
			d->eng[e].id = e;
		}
	}
}

static void engine_kick(struct gd_engine *eng, uint64_t now);

static void device_kick(struct gd_dev *d, uint64_t now)
{
	int e;

	for (e = 0; e < GSP_ENGINE_COUNT; e++)
		engine_kick(&d->eng[e], now);
}

/* gsp_params_apply(): new tunables on every device's scheduler. */
void gd_params_apply(void)
{
	int i;

	for (i = 0; i < GD_MAX_DEVICES; i++) {
		struct gd_dev *d = &gd_state.dev[i];
		uint64_t now = gd_now();

		if (gsp_sched_set_params(&d->sched, &gd_state.cfg.params, now))
			gd_log(GD_LOG_ERR, "core refused validated params\n");
		device_kick(d, now);
	}
}

void gd_tenant_init_sched(struct gd_tenant *t)
{
	t->dev = &gd_state.dev[0];
	gsp_entity_init(&t->ent, t->weight, false);
	gsp_sched_attach(&t->dev->sched, &t->ent, gd_now());
}

/* The handle table. */

static struct gd_job **bucket(struct gd_tenant *t, uint32_t handle)
{
	return &t->jobs[handle % GD_JOB_BUCKETS];
}

static struct gd_job *job_lookup(struct gd_tenant *t, uint64_t handle)
{
	struct gd_job *j;

	if (!handle || handle > UINT32_MAX)
		return NULL;
	for (j = *bucket(t, handle); j; j = j->hnext)
		if (j->handle == handle)
			return j;
	return NULL;
}

/* A free handle, cyclic as xa_alloc_cyclic() (never 0). */
static uint32_t handle_alloc(struct gd_tenant *t)
{
	for (;;) {
		uint32_t h = t->next_handle++;

		if (!h)
			continue;
		if (!job_lookup(t, h))
			return h;
	}
}

static void ready_remove(struct gd_job *job)
{
	size_t i;

	for (i = 0; i < ready_n; i++)
		if (ready_list[i] == job)
			ready_list[i] = NULL;
}

/* Out of the table and gone; the job has ended and nothing waits on it. */
static void job_free(struct gd_job *job)
{
	struct gd_tenant *t = job->t;
	struct gd_job **pp;

	for (pp = bucket(t, job->handle); *pp; pp = &(*pp)->hnext)
		if (*pp == job) {
			*pp = job->hnext;
			break;
		}
	if (t->last == job) {
		t->last = NULL;
		t->last_valid = true;
		t->last_status = job->acct.status;
	}
	ready_remove(job);
	job->hnext = graveyard;
	graveyard = job;
	gd_state.nr_jobs--;
	t->nr_jobs--;
}

void gd_graveyard_empty(void)
{
	while (graveyard) {
		struct gd_job *j = graveyard;

		graveyard = j->hnext;
		free(j);
	}
}

/* Fences. */

static void fence_signal(int fd, int status)
{
	uint64_t v = 1 + (uint64_t)(status < 0 ? -status : 0);

	if (write(fd, &v, sizeof(v)) != sizeof(v))
		gd_log(GD_LOG_ERR, "fence write: %s\n", strerror(errno));
}

static void in_fence_drop(struct gd_job *job)
{
	if (job->in_fence < 0)
		return;
	gd_epoll_del(job->in_fence);
	close(job->in_fence);
	job->in_fence = -1;
	job->t->nr_fences--;
}

/* A dependency ended, with @err (0 or -errno). */
static void dep_signalled(struct gd_job *job, int err)
{
	if (err && !job->dep_error)
		job->dep_error = err;
	if (--job->pending)
		return;
	if (ready_n == ready_cap) {
		size_t cap = ready_cap ? ready_cap * 2 : 64;
		struct gd_job **n = realloc(ready_list, cap * sizeof(*n));

		if (!n) {
			/* Out of memory: fail the job rather than lose it. */
			gd_log(GD_LOG_ERR, "out of memory queueing a ready job\n");
			job->dep_error = -ENOMEM;
			return;
		}
		ready_list = n;
		ready_cap = cap;
	}
	ready_list[ready_n++] = job;
}

/* The in-fence eventfd became readable. */
void gd_fence_ready(struct gd_job *job)
{
	int sig = 0, err = 0;

	if (job->in_fence < 0)
		return;	/* dropped earlier in this batch */
	if (gspd_fence_status(job->in_fence, &sig, &err) || !sig)
		return;
	in_fence_drop(job);
	dep_signalled(job, err);
}

/* Answers @job's parked WAITs that its new state satisfies (wait.c). */
static void job_answer_waits(struct gd_job *job)
{
	if (gd_wait_answer(job))
		job_free(job);	/* one of them waited for the end */
}

/*
 * gsp_job_end_locked(): end a job that has not ended yet; @gpu_ns is its
 * GPU time, of which renewals charged job->acct.charged_ns already.
 */
static void job_end(struct gd_job *job, int status, uint64_t gpu_ns,
		    uint64_t now)
{
	struct gd_dev *d = job->dev;
	struct gd_engine *eng = &d->eng[job->base.engine];
	bool was_running;

	if (job->state == GSP_AJOB_DONE) {
		gd_log(GD_LOG_ERR, "job %u ended twice\n", job->handle);
		return;
	}
	was_running = gsp_ajob_end(&d->sched, &job->base, &job->acct,
				   job->state, &job->t->acct, status, gpu_ns,
				   now);
	if (was_running)
		eng->running = NULL;
	else
		gd_board_waiting(d);	/* a queued job left without running */
	if (job->acct.lc) {
		d->lc_jobs--;
		gd_board_lc_jobs(d);
	}
	job->state = GSP_AJOB_DONE;

	in_fence_drop(job);
	if (job->out_fence >= 0) {
		fence_signal(job->out_fence, status);
		close(job->out_fence);
		job->out_fence = -1;
		gd_state.nr_fences--;
		job->t->nr_fences--;
	}
	/* The chained successor learns our status; we leave our predecessor. */
	if (job->chain_next) {
		struct gd_job *n = job->chain_next;

		n->chain_prev = NULL;
		job->chain_next = NULL;
		dep_signalled(n, status);
	}
	if (job->chain_prev) {
		job->chain_prev->chain_next = NULL;
		job->chain_prev = NULL;
	}

	job_answer_waits(job);	/* may free the job */
	if (was_running)
		engine_kick(eng, now);
}

/*
 * gsp_job_progress_locked(): renew a running leased job's lease. Charges
 * what @gpu_ns (its GPU time so far) adds to what was charged before, and
 * starts a new watchdog period.
 */
static void job_progress(struct gd_job *job, uint64_t gpu_ns, uint64_t now)
{
	gsp_ajob_progress(&job->dev->sched, &job->base, &job->acct,
			  &job->t->acct, gpu_ns, now);
	job->dev->eng[job->base.engine].deadline_ns =
		now + gd_state.cfg.watchdog_ns;
}

/* gsp_job_ready_locked(): dependencies done, hand it to the scheduler. */
static void job_ready(struct gd_job *job, uint64_t now)
{
	if (job->state != GSP_AJOB_PENDING)
		return;	/* cancelled while it waited */
	if (job->dep_error) {
		job_end(job, job->dep_error, 0, now);
		return;
	}
	job->state = GSP_AJOB_QUEUED;
	gsp_sched_enqueue(&job->dev->sched, &job->base, now);
	engine_kick(&job->dev->eng[job->base.engine], now);
	/* After the kick: a job granted at once never shows as waiting. */
	gd_board_waiting(job->dev);
}

/* gsp_engine_kick_locked(): start the next job if the engine is idle. */
static void engine_kick(struct gd_engine *eng, uint64_t now)
{
	struct gd_dev *d = eng->dev;
	struct gd_job *job;
	struct gsp_job *j;
	uint64_t retry = 0;

	if (eng->running)
		return;
	j = gsp_sched_pick(&d->sched, eng->id, now, &retry);
	eng->retry_ns = j ? 0 : retry;
	if (!j)
		return;
	job = (struct gd_job *)((char *)j - offsetof(struct gd_job, base));
	job->state = GSP_AJOB_RUNNING;
	gsp_ajob_started(&job->acct, &job->t->acct, now);
	eng->running = job;
	gd_board_waiting(d);
	if (gd_dev_is_lease(d))
		eng->deadline_ns = now + gd_state.cfg.watchdog_ns;
	else
		eng->deadline_ns = now + job->base.cost_ns;
	/* A lease holder waits for the grant. */
	job_answer_waits(job);
}

/*
 * The hrtimers of the module: sim ends, watchdogs, BAND retries, WAIT
 * deadlines, and the ready jobs. Loops until nothing is due, because
 * ending a job can start one that is due at once (cost 0).
 */
void gd_run_timers(uint64_t now)
{
	bool again;

	do {
		uint32_t i, e, n = gd_nr_devices();
		size_t k;

		again = false;
		for (k = 0; k < ready_n; k++) {
			struct gd_job *job = ready_list[k];

			if (job) {
				ready_list[k] = NULL;
				job_ready(job, now);
				again = true;
			}
		}
		ready_n = 0;
		for (i = 0; i < n; i++) {
			struct gd_dev *d = &gd_state.dev[i];

			for (e = 0; e < GSP_ENGINE_COUNT; e++) {
				struct gd_engine *eng = &d->eng[e];
				struct gd_job *job = eng->running;

				if (job && now >= eng->deadline_ns) {
					if (gd_dev_is_lease(d)) {
						job->t->hung = true;
						job_end(job, -ETIMEDOUT,
							now - job->acct.start_ns, now);
					} else {
						job_end(job, 0,
							job->base.cost_ns, now);
					}
					again = true;
				} else if (!job && eng->retry_ns &&
					   now >= eng->retry_ns) {
					eng->retry_ns = 0;
					engine_kick(eng, now);
					again = true;
				}
			}
		}
		if (gd_wait_expire(now))
			again = true;
		if (again)
			now = gd_now();
	} while (again || ready_n);
}

/* The earliest time gd_run_timers() has something to do; 0 for none. */
uint64_t gd_next_deadline(void)
{
	uint64_t best = 0;
	uint32_t i, e, n = gd_nr_devices();

#define GD_CONSIDER(t) do { if ((t) && (!best || (t) < best)) best = (t); } while (0)
	for (i = 0; i < n; i++)
		for (e = 0; e < GSP_ENGINE_COUNT; e++) {
			struct gd_engine *eng = &gd_state.dev[i].eng[e];

			if (eng->running)
				GD_CONSIDER(eng->deadline_ns ? eng->deadline_ns : 1);
			else
				GD_CONSIDER(eng->retry_ns);
		}
	GD_CONSIDER(gd_wait_next_deadline());
#undef GD_CONSIDER
	return best;
}

/* The requests: each validates, then looks up, then acts (gsp_ioctl.c). */

static int reply_arg(struct gd_tenant *t, uint32_t seq, const void *arg,
		     size_t ksize, uint32_t user_size, int fd)
{
	gd_reply(t, seq, GSPD_OP_IOCTL, 0, arg,
		 user_size < ksize ? user_size : ksize, fd);
	return 0;
}

static int do_version(struct gd_tenant *t, uint32_t seq, void *cmd,
		      uint32_t user_size)
{
	struct gspace_version *a = cmd;

	if (a->flags)
		return -EINVAL;
	a->abi_major = GSPACE_ABI_MAJOR;
	a->abi_minor = GSPACE_ABI_MINOR;
	a->features = GD_FEATURES;
	a->num_devices = gd_nr_devices();
	a->lc_allowed = t->lc_allowed;
	return reply_arg(t, seq, a, sizeof(*a), user_size, -1);
}

static int do_ctx_set(struct gd_tenant *t, uint32_t seq, void *cmd,
		      uint32_t user_size)
{
	struct gspace_ctx_set *a = cmd;
	struct gd_dev *d;
	uint64_t now = gd_now();
	int ret;

	(void)user_size;
	ret = gsp_ctx_set_validate(a);
	if (ret)
		return ret;
	if (a->class == GSPACE_CLASS_LC && !t->lc_allowed)
		return -EPERM;
	if (a->device >= gd_nr_devices())
		return -ENODEV;
	d = &gd_state.dev[a->device];
	if (d != t->dev) {
		if (t->acct.nr_live)
			return -EBUSY;
		gsp_sched_detach(&t->dev->sched, &t->ent, now);
		gsp_entity_init(&t->ent, t->weight,
				t->class == GSPACE_CLASS_LC);
		gsp_sched_attach(&d->sched, &t->ent, now);
		t->dev = d;
	}
	t->class = a->class;
	t->weight = a->weight;
	t->lc_target_ns = a->lc_target_ns;
	gd_board_update_slot(t);
	gsp_sched_set_entity(&d->sched, &t->ent, t->weight,
			     t->class == GSPACE_CLASS_LC, now);
	device_kick(d, now);
	gd_reply(t, seq, GSPD_OP_IOCTL, 0, NULL, 0, -1);
	return 0;
}

/* gsp_job_submit(); takes over @in_fd (closed on error). */
static int do_submit(struct gd_tenant *t, uint32_t seq, void *cmd,
		     uint32_t user_size, int *in_fd)
{
	struct gspace_submit *a = cmd;
	struct gd_job *job;
	int sig = 0, err = 0, out_fd = -1, ret;

	ret = gsp_submit_validate(a);
	if (ret)
		return ret;
	if (a->flags & GSPACE_SUBMIT_FENCE_IN) {
		/* An eventfd, passed along, and nothing else. */
		if (*in_fd < 0 || a->in_fence_fd < 0 ||
		    gspd_fence_status(*in_fd, &sig, &err))
			return -EINVAL;
	}
	if (t->dev->index >= gd_nr_devices())
		return -ENODEV;
	if (t->hung)
		return -EBUSY;
	/* The tenant's limits (gspaced.rst, "Limits"); ended jobs count too. */
	if (t->nr_jobs >= gd_state.cfg.max_jobs)
		return -ENOSPC;
	if (t->nr_fences + !!(a->flags & GSPACE_SUBMIT_FENCE_OUT) +
	    ((a->flags & GSPACE_SUBMIT_FENCE_IN) && !sig) >
	    gd_state.cfg.max_fences)
		return -EMFILE;

	job = calloc(1, sizeof(*job));
	if (!job)
		return -ENOMEM;
	if (a->flags & GSPACE_SUBMIT_FENCE_OUT) {
		out_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (out_fd < 0) {
			ret = -errno;
			free(job);
			return ret;
		}
		gd_state.nr_fences++;
		t->nr_fences++;
	}
	job->t = t;
	job->dev = t->dev;
	job->handle = handle_alloc(t);
	job->state = GSP_AJOB_PENDING;
	job->out_fence = out_fd;
	job->in_fence = -1;
	gsp_ajob_init(&job->base, &job->acct, &t->ent, a,
		      t->class == GSPACE_CLASS_LC, t->lc_target_ns);

	a->handle = job->handle;
	a->out_fence_fd = -1;	/* the client puts its own fd number here */
	reply_arg(t, seq, a, sizeof(*a), user_size, out_fd);

	/* Publish. */
	gd_state.nr_jobs++;
	t->nr_jobs++;
	job->pending = 1;
	gsp_ajob_submitted(&job->acct, &t->acct, gd_now());
	if (job->acct.lc) {
		job->dev->lc_jobs++;
		gd_board_lc_jobs(job->dev);
	}
	job->hnext = *bucket(t, job->handle);
	*bucket(t, job->handle) = job;

	if (a->flags & GSPACE_SUBMIT_FENCE_IN) {
		if (sig) {
			close(*in_fd);
			if (err)
				job->dep_error = err;
		} else {
			job->pending++;
			job->in_fence = *in_fd;
			t->nr_fences++;
			if (gd_epoll_add(job->in_fence, GD_TAG_FENCE, job)) {
				/* Cannot watch it: fail the job, never hang. */
				in_fence_drop(job);
				job->pending--;
				job->dep_error = -ENOMEM;
			}
		}
		*in_fd = -1;
	}
	if (a->flags & GSPACE_SUBMIT_CHAIN) {
		if (t->last && t->last->state != GSP_AJOB_DONE) {
			job->pending++;
			job->chain_prev = t->last;
			t->last->chain_next = job;
		} else if (t->last && t->last->acct.status) {
			if (!job->dep_error)
				job->dep_error = t->last->acct.status;
		} else if (!t->last && t->last_valid && t->last_status) {
			if (!job->dep_error)
				job->dep_error = t->last_status;
		}
	}
	t->last = job;

	if (!--job->pending)
		job_ready(job, gd_now());
	return 0;
}

static int do_wait(struct gd_tenant *t, uint32_t seq, void *cmd,
		   uint32_t user_size)
{
	struct gspace_wait *a = cmd;
	struct gd_job *job;
	bool done;
	int64_t left;
	int ret;

	ret = gsp_wait_validate(a);
	if (ret)
		return ret;
	job = job_lookup(t, a->handle);
	if (!job)
		return -ENOENT;
	done = gsp_wait_done(job->state, a->flags);
	left = (int64_t)(a->deadline_ns - gd_now());
	if (done) {
		gd_wait_reply(t, seq, user_size, a, job);
		if (!(a->flags & GSPACE_WAIT_GRANTED))
			job_free(job);
		return 0;
	}
	if (!a->deadline_ns || left <= 0)
		return -ETIME;
	return gd_wait_park(t, job, seq, user_size, a);
}

static int do_complete(struct gd_tenant *t, uint32_t seq, void *cmd,
		       uint32_t user_size)
{
	struct gspace_complete *a = cmd;
	bool progress = a->flags & GSPACE_COMPLETE_PROGRESS;
	struct gd_job *job;
	int ret;

	(void)user_size;
	ret = gsp_complete_validate(a);
	if (ret)
		return ret;
	job = job_lookup(t, a->handle);
	if (!job)
		return -ENOENT;
	if (!gd_dev_is_lease(job->dev))
		return -EINVAL;
	if (job->state == GSP_AJOB_DONE)
		return -EALREADY;
	if (job->state != GSP_AJOB_RUNNING)
		return -EBUSY;
	if (progress) {
		job_progress(job, a->gpu_ns, gd_now());
		gd_reply(t, seq, GSPD_OP_IOCTL, 0, NULL, 0, -1);
		return 0;
	}
	job_end(job, a->error, a->gpu_ns, gd_now());
	/* job_end() reaped it if a WAIT was parked on it. */
	job = job_lookup(t, a->handle);
	if (job)
		job_free(job);
	/* After the fence is signalled, as gspace.ko returns. */
	gd_reply(t, seq, GSPD_OP_IOCTL, 0, NULL, 0, -1);
	return 0;
}

static int do_cancel(struct gd_tenant *t, uint32_t seq, void *cmd,
		     uint32_t user_size)
{
	struct gspace_cancel *a = cmd;
	struct gd_job *job;
	int ret;

	(void)user_size;
	ret = gsp_cancel_validate(a);
	if (ret)
		return ret;
	job = job_lookup(t, a->handle);
	if (!job)
		return -ENOENT;
	switch (job->state) {
	case GSP_AJOB_PENDING:
	case GSP_AJOB_QUEUED:
		break;
	case GSP_AJOB_RUNNING:
		return -EBUSY;
	case GSP_AJOB_DONE:
		return -EALREADY;
	}
	job_end(job, -ECANCELED, 0, gd_now());
	/* After the fence is signalled, as gspace.ko returns. */
	gd_reply(t, seq, GSPD_OP_IOCTL, 0, NULL, 0, -1);
	return 0;
}

static int do_stats(struct gd_tenant *t, uint32_t seq, void *cmd,
		    uint32_t user_size)
{
	struct gspace_stats *a = cmd;
	int ret;

	ret = gsp_stats_validate(a);
	if (ret)
		return ret;
	a->device = t->dev->index;
	a->class = t->class;
	a->weight = t->weight;
	a->lc_slot = t->lc_slot;
	a->pad = 0;
	a->ctx_flags = t->hung ? GSPACE_CTX_F_HUNG : 0;
	gsp_tenant_stats(&t->acct, &t->ent, a);
	return reply_arg(t, seq, a, sizeof(*a), user_size, -1);
}

union gd_cmd {
	struct gspace_version version;
	struct gspace_ctx_set ctx_set;
	struct gspace_submit submit;
	struct gspace_wait wait;
	struct gspace_complete complete;
	struct gspace_cancel cancel;
	struct gspace_stats stats;
};

struct gd_op {
	uint32_t size;
	uint32_t min_size;	/* end of the last field of ABI 1.0 */
	int (*fn)(struct gd_tenant *t, uint32_t seq, void *cmd,
		  uint32_t user_size);
};

#define GD_OFFSETOFEND(s, f)	(offsetof(struct s, f) + sizeof(((struct s *)0)->f))
#define GD_OP(id, fn_, s, last) \
	[GSPACE_CMD_##id] = { sizeof(struct s), GD_OFFSETOFEND(s, last), fn_ }

static const struct gd_op gd_ops[] = {
	GD_OP(VERSION, do_version, gspace_version, lc_allowed),
	GD_OP(CTX_SET, do_ctx_set, gspace_ctx_set, lc_target_ns),
	GD_OP(SUBMIT, NULL, gspace_submit, pad),
	GD_OP(WAIT, do_wait, gspace_wait, latency_ns),
	GD_OP(COMPLETE, do_complete, gspace_complete, pad),
	GD_OP(CANCEL, do_cancel, gspace_cancel, handle),
	GD_OP(STATS, do_stats, gspace_stats, credit_ns),
};

_Static_assert(sizeof(union gd_cmd) <= GSPD_ARG_MAX, "uapi argument size");

/*
 * gsp_ioctl(): one request. @arg holds min(size, GSPD_ARG_MAX) bytes of
 * the argument (the client checked that any bytes beyond are zero).
 * Replies (or parks a WAIT) itself; returns the status of an immediate
 * error reply, which the caller sends, or 0. Takes over @in_fd.
 */
int gd_ioctl(struct gd_tenant *t, uint32_t seq, uint64_t request,
	     const void *arg, size_t arglen, int in_fd)
{
	union gd_cmd buf;
	const struct gd_op *op;
	uint32_t nr, user_size;
	size_t i;
	int ret;

	nr = (request >> _IOC_NRSHIFT) & _IOC_NRMASK;
	if (((request >> _IOC_TYPESHIFT) & _IOC_TYPEMASK) != GSPACE_IOCTL_TYPE ||
	    nr >= sizeof(gd_ops) / sizeof(gd_ops[0]) ||
	    request != _IO(GSPACE_IOCTL_TYPE, nr)) {
		ret = -ENOTTY;
		goto out;
	}
	op = &gd_ops[nr];
	memcpy(&user_size, arg, sizeof(user_size));
	if (user_size < op->min_size) {
		ret = -EINVAL;
		goto out;
	}
	/* copy_struct_from_user(): a bigger caller's tail must be zero. */
	for (i = op->size; i < arglen; i++)
		if (((const unsigned char *)arg)[i]) {
			ret = -E2BIG;
			goto out;
		}
	memset(&buf, 0, sizeof(buf));
	memcpy(&buf, arg, arglen < op->size ? arglen : op->size);
	if (nr == GSPACE_CMD_SUBMIT)
		ret = do_submit(t, seq, &buf, user_size, &in_fd);
	else
		ret = op->fn(t, seq, &buf, user_size);
out:
	if (in_fd >= 0)
		close(in_fd);
	return ret;
}

/*
 * gsp_ctx_cancel_all(): the tenant is gone. Queued jobs are cancelled
 * first, so ending the running ones hands the engines to other tenants;
 * running jobs are aborted and charged for the time they held the engine
 * (a sim job never more than its cost).
 */
void gd_tenant_cancel_all(struct gd_tenant *t)
{
	uint64_t now = gd_now();
	struct gd_job *j, *n;
	int b;

	for (b = 0; b < GD_JOB_BUCKETS; b++)
		for (j = t->jobs[b]; j; j = j->hnext)
			gd_wait_drop(j);
	for (b = 0; b < GD_JOB_BUCKETS; b++)
		for (j = t->jobs[b]; j; j = j->hnext)
			if (j->state == GSP_AJOB_PENDING ||
			    j->state == GSP_AJOB_QUEUED)
				job_end(j, -ECANCELED, 0, now);
	for (b = 0; b < GD_JOB_BUCKETS; b++)
		for (j = t->jobs[b]; j; j = j->hnext)
			if (j->state == GSP_AJOB_RUNNING)
				job_end(j, -ECANCELED,
					gsp_ajob_abort_ns(&j->base, &j->acct,
							  !gd_dev_is_lease(j->dev),
							  now), now);
	gsp_sched_detach(&t->dev->sched, &t->ent, now);
	for (b = 0; b < GD_JOB_BUCKETS; b++)
		for (j = t->jobs[b]; j; j = n) {
			n = j->hnext;
			job_free(j);
		}
	t->last = NULL;
}

void gd_jobs_fini(void)
{
	gd_graveyard_empty();
	gd_wait_fini();
	free(ready_list);
	ready_list = NULL;
	ready_n = ready_cap = 0;
}
