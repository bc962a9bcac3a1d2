// SPDX-License-Identifier: GPL-2.0
/*
 * The arbiter's request semantics (gsp_arbiter.h), for gspace.ko and
 * gspaced alike.
 */

#include "gsp_arbiter.h"

/* The core's numbering is uapi's: hosts pass the values straight through. */
static inline void gsp_arbiter_check_abi(void)
{
	BUILD_BUG_ON(GSP_ENGINE_COMPUTE != GSPACE_ENGINE_COMPUTE);
	BUILD_BUG_ON(GSP_ENGINE_H2D != GSPACE_ENGINE_COPY_H2D);
	BUILD_BUG_ON(GSP_ENGINE_D2H != GSPACE_ENGINE_COPY_D2H);
	BUILD_BUG_ON(GSP_ENGINE_COUNT != GSPACE_ENGINE_COUNT);
	BUILD_BUG_ON(GSP_CLASS_BE != GSPACE_CLASS_BE);
	BUILD_BUG_ON(GSP_CLASS_LC != GSPACE_CLASS_LC);
	BUILD_BUG_ON(GSP_WEIGHT_MAX != GSPACE_WEIGHT_MAX);
}

/**
 * gsp_ctx_set_validate() - check CTX_SET's argument
 * @a: the argument
 *
 * Whether the caller may become LC (EPERM) and whether the device exists
 * (ENODEV) are the host's to check, after this.
 *
 * Return: 0 or -EINVAL.
 */
int gsp_ctx_set_validate(const struct gspace_ctx_set *a)
{
	gsp_arbiter_check_abi();
	if (a->flags || a->pad)
		return -EINVAL;
	if (a->class != GSPACE_CLASS_BE && a->class != GSPACE_CLASS_LC)
		return -EINVAL;
	if (a->weight < GSPACE_WEIGHT_MIN || a->weight > GSPACE_WEIGHT_MAX)
		return -EINVAL;
	if (a->class == GSPACE_CLASS_BE && a->lc_target_ns)
		return -EINVAL;
	return 0;
}

/**
 * gsp_submit_validate() - check SUBMIT's argument
 * @a: the argument
 *
 * Return: 0 or -EINVAL.
 */
int gsp_submit_validate(const struct gspace_submit *a)
{
	if (a->flags & ~GSPACE_SUBMIT_FLAGS)
		return -EINVAL;
	if (a->pad)
		return -EINVAL;
	if (a->engine >= GSPACE_ENGINE_COUNT)
		return -EINVAL;
	if (a->cost_ns > GSPACE_COST_MAX_NS)
		return -EINVAL;
	if (!(a->flags & GSPACE_SUBMIT_FENCE_IN) && a->in_fence_fd)
		return -EINVAL;
	if (a->flags & GSPACE_SUBMIT_TASK_HEAD) {
		if (a->engine != GSPACE_ENGINE_COPY_H2D ||
		    a->task_compute_ns > GSPACE_COST_MAX_NS ||
		    a->task_d2h_ns > GSPACE_COST_MAX_NS)
			return -EINVAL;
	} else if (a->task_compute_ns || a->task_d2h_ns) {
		return -EINVAL;
	}
	return 0;
}

/* Return: 0 or -EINVAL. */
int gsp_wait_validate(const struct gspace_wait *a)
{
	if (a->flags & ~GSPACE_WAIT_FLAGS || a->pad)
		return -EINVAL;
	return 0;
}

/**
 * gsp_complete_validate() - check COMPLETE's argument
 * @a: the argument
 *
 * @a->error is 0 or an errno of -MAX_ERRNO..-1, and 0 with
 * GSPACE_COMPLETE_PROGRESS.
 *
 * Return: 0 or -EINVAL.
 */
int gsp_complete_validate(const struct gspace_complete *a)
{
	if (a->flags & ~GSPACE_COMPLETE_FLAGS || a->pad)
		return -EINVAL;
	if (a->error > 0 || a->error < -MAX_ERRNO)
		return -EINVAL;
	if ((a->flags & GSPACE_COMPLETE_PROGRESS) && a->error)
		return -EINVAL;
	if (a->gpu_ns > GSPACE_COST_MAX_NS)
		return -EINVAL;
	return 0;
}

/* Return: 0 or -EINVAL. */
int gsp_cancel_validate(const struct gspace_cancel *a)
{
	return a->flags ? -EINVAL : 0;
}

/* Return: 0 or -EINVAL. */
int gsp_stats_validate(const struct gspace_stats *a)
{
	return a->flags ? -EINVAL : 0;
}

/**
 * gsp_wait_done() - whether WAIT is answered
 * @state: the job's state
 * @flags: WAIT's flags
 *
 * Return: true once the job has ended, or with GSPACE_WAIT_GRANTED once
 * it has started.
 */
bool gsp_wait_done(enum gsp_ajob_state state, u32 flags)
{
	if (flags & GSPACE_WAIT_GRANTED)
		return state >= GSP_AJOB_RUNNING;
	return state == GSP_AJOB_DONE;
}

/**
 * gsp_wait_answer() - WAIT's answer
 * @ja: the job
 * @state: its state, GSP_AJOB_DONE only after @ja's results were written
 * @a: the argument, answered in place
 *
 * A job that has not ended (GSPACE_WAIT_GRANTED) answers zeroes.
 */
void gsp_wait_answer(const struct gsp_job_acct *ja, enum gsp_ajob_state state,
		     struct gspace_wait *a)
{
	if (state == GSP_AJOB_DONE) {
		a->status = ja->status;
		a->gpu_ns = ja->gpu_ns;
		a->latency_ns = ja->latency_ns;
	} else {
		a->status = 0;
		a->gpu_ns = 0;
		a->latency_ns = 0;
	}
}

/**
 * gsp_ajob_init() - a new job from a validated SUBMIT
 * @j: the scheduler's part, zeroed
 * @ja: the arbiter's part, zeroed
 * @ent: the submitting tenant
 * @a: SUBMIT's argument
 * @lc: whether the tenant is LC
 * @lc_target_ns: its LC target
 */
void gsp_ajob_init(struct gsp_job *j, struct gsp_job_acct *ja,
		   struct gsp_entity *ent, const struct gspace_submit *a,
		   bool lc, u64 lc_target_ns)
{
	ja->lc = lc;
	ja->lc_target_ns = lc_target_ns;
	ja->user_tag = a->user_tag;
	j->ent = ent;
	j->engine = a->engine;
	j->cost_ns = a->cost_ns;
	if (a->flags & GSPACE_SUBMIT_TASK_HEAD) {
		j->task_ns[GSP_ENGINE_H2D] = a->cost_ns;
		j->task_ns[GSP_ENGINE_COMPUTE] = a->task_compute_ns;
		j->task_ns[GSP_ENGINE_D2H] = a->task_d2h_ns;
	}
}

/**
 * gsp_ajob_submitted() - count a job its host has just published
 * @ja: the job
 * @ta: its tenant
 * @now: the time, ns
 */
void gsp_ajob_submitted(struct gsp_job_acct *ja, struct gsp_tenant_acct *ta,
			u64 now)
{
	ja->submit_ns = now;
	ta->nr_live++;
	ta->nr_queued++;
}

/**
 * gsp_ajob_started() - count a job the scheduler has just picked
 * @ja: the job
 * @ta: its tenant
 * @now: the time, ns
 */
void gsp_ajob_started(struct gsp_job_acct *ja, struct gsp_tenant_acct *ta,
		      u64 now)
{
	ja->start_ns = now;
	ta->nr_queued--;
	ta->nr_running++;
}

/**
 * gsp_ajob_end() - the accounting of a job that ends
 * @s: its scheduler
 * @j: the job
 * @ja: its arbiter's part
 * @state: its state, not GSP_AJOB_DONE
 * @ta: its tenant's counters
 * @status: 0 or -errno
 * @gpu_ns: its GPU time; ignored unless it was running
 * @now: the time, ns
 *
 * Takes the job out of the scheduler, charges a running job what @gpu_ns
 * adds to what renewals charged, and writes its results and its tenant's
 * counters. The host then marks it GSP_AJOB_DONE (publishing the results),
 * signals it and, if it was running, gives the engine its next job.
 *
 * Return: whether the job was running.
 */
bool gsp_ajob_end(struct gsp_sched *s, struct gsp_job *j,
		  struct gsp_job_acct *ja, enum gsp_ajob_state state,
		  struct gsp_tenant_acct *ta, int status, u64 gpu_ns, u64 now)
{
	bool was_running = false;

	switch (state) {
	case GSP_AJOB_RUNNING:
		gpu_ns = max_t(u64, gpu_ns, ja->charged_ns);
		gsp_sched_complete(s, j, gpu_ns - ja->charged_ns, now);
		ta->nr_running--;
		ta->gpu_ns[j->engine] += gpu_ns - ja->charged_ns;
		was_running = true;
		break;
	case GSP_AJOB_QUEUED:
		gsp_sched_dequeue(s, j, now);
		ta->nr_queued--;
		gpu_ns = 0;
		break;
	case GSP_AJOB_PENDING:
		ta->nr_queued--;
		gpu_ns = 0;
		break;
	case GSP_AJOB_DONE:
		GSP_WARN_ON(1);
		return false;
	}

	ja->status = status;
	ja->gpu_ns = gpu_ns;
	ja->latency_ns = now - ja->submit_ns;
	ta->nr_live--;
	ta->nr_completed++;
	if (status)
		ta->nr_failed++;
	if (ja->lc && ja->lc_target_ns && ja->latency_ns > ja->lc_target_ns)
		ta->nr_qos_violations++;
	return was_running;
}

/**
 * gsp_ajob_progress() - the accounting of a lease renewal
 * @s: the job's scheduler
 * @j: the job, running
 * @ja: its arbiter's part
 * @ta: its tenant's counters
 * @gpu_ns: the GPU time it has used so far, as its holder measured it
 * @now: the time, ns
 *
 * Charges what @gpu_ns adds to what was charged before. The host then
 * starts a new watchdog period.
 */
void gsp_ajob_progress(struct gsp_sched *s, struct gsp_job *j,
		       struct gsp_job_acct *ja, struct gsp_tenant_acct *ta,
		       u64 gpu_ns, u64 now)
{
	u64 add;

	if (gpu_ns > ja->charged_ns) {
		add = gpu_ns - ja->charged_ns;
		gsp_sched_progress(s, j, add, now);
		ta->gpu_ns[j->engine] += add;
		ja->charged_ns = gpu_ns;
	}
	ta->nr_renewals++;
}

/**
 * gsp_ajob_abort_ns() - GPU time of a running job aborted at @now
 * @j: the job
 * @ja: its arbiter's part
 * @sim: whether it runs on a simulated engine
 * @now: the time, ns
 *
 * Return: the time since it started; a simulated job never more than its
 * cost.
 */
u64 gsp_ajob_abort_ns(const struct gsp_job *j, const struct gsp_job_acct *ja,
		      bool sim, u64 now)
{
	u64 ran = now - ja->start_ns;

	return sim ? min_t(u64, ran, j->cost_ns) : ran;
}

/**
 * gsp_tenant_stats() - STATS' counters of a tenant
 * @ta: its counters
 * @e: its scheduler entity
 * @a: STATS' argument; the host fills the rest
 */
void gsp_tenant_stats(const struct gsp_tenant_acct *ta,
		      const struct gsp_entity *e, struct gspace_stats *a)
{
	int i;

	a->queued = ta->nr_queued;
	a->running = ta->nr_running;
	a->completed = ta->nr_completed;
	a->failed = ta->nr_failed;
	a->qos_violations = ta->nr_qos_violations;
	for (i = 0; i < GSP_ENGINE_COUNT; i++) {
		a->gpu_ns[i] = ta->gpu_ns[i];
		a->credit_ns[i] = gsp_entity_credit_ns(e, i);
	}
}
