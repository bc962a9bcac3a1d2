// SPDX-License-Identifier: GPL-2.0
/*
 * gspace engines: where a job picked by the scheduler runs.
 */

#include <linux/ktime.h>

#include "gsp_kcompat.h"
#include "gsp_drv.h"

/**
 * DOC: Engines
 *
 * Each device has three engines (compute, copy-in, copy-out), and each
 * engine runs one job at a time: the GPU cannot be preempted, so a job
 * granted is a job charged, and one job in flight per engine makes the
 * charge exact (GPUvm's token).
 *
 * - sim: the engine is SIMULATED. An hrtimer ends the job after its cost
 *   hint, and the cost hint is charged: it is the simulated GPU's execution
 *   time. The timer's lateness (large under emulation) is completion
 *   latency, seen in the job's latency, not GPU time.
 * - lease: the job is granted to userspace, which runs it on a real GPU and
 *   reports the measured time with COMPLETE. A holder still waiting for
 *   the GPU renews the lease (COMPLETE with GSPACE_COMPLETE_PROGRESS),
 *   which starts a new watchdog period. If neither comes within the
 *   period, the watchdog charges the time since the grant, fails the job
 *   with -ETIMEDOUT and marks the tenant hung: a holder that is alive
 *   renews, so one that does not is stuck (a dead one is released).
 * - drm: a DRM_SUBMIT job, on any device: granted, its payload is
 *   forwarded to the DRM driver by a worker, and the job ends when the
 *   driver's out-fence signals, charged the time from the forward to the
 *   signal (Documentation/drm.rst). The lease watchdog bounds the wait;
 *   it fails the job with -ETIMEDOUT and frees the engine, but does not
 *   mark the tenant hung: the driver, not the tenant, was late.
 */

static u64 gsp_now(void)
{
	return ktime_get_ns();
}

/* Ends the job on @eng if its deadline has come; a stale timer does nothing. */
static enum hrtimer_restart gsp_engine_timer_fn(struct hrtimer *t)
{
	struct gsp_dev_engine *eng = container_of(t, struct gsp_dev_engine, timer);
	struct gsp_device *gdev = eng->gdev;
	struct gsp_kjob *job;
	u64 now;

	spin_lock_bh(&gdev->lock);
	job = eng->running;
	now = gsp_now();
	if (job && now >= eng->deadline_ns) {
		if (job->drm) {
			/* The driver's fence is late: give up on it. */
			job->drm->timed_out = true;
			gsp_job_end_locked(job, -ETIMEDOUT,
					   now - job->acct.start_ns, now);
		} else if (gdev->backend == GSP_BACKEND_SIM) {
			gsp_job_end_locked(job, 0, job->base.cost_ns, now);
		} else {
			job->ctx->hung = true;
			gsp_job_end_locked(job, -ETIMEDOUT,
					   now - job->acct.start_ns, now);
		}
	} else if (!job && eng->held && now >= eng->deadline_ns) {
		job = eng->held;
		eng->held = NULL;
		job->drm->timed_out = true;
		gsp_engine_kick_locked(eng, now);
		gsp_job_put(job);
	}
	spin_unlock_bh(&gdev->lock);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart gsp_engine_retry_fn(struct hrtimer *t)
{
	struct gsp_dev_engine *eng = container_of(t, struct gsp_dev_engine, retry);
	struct gsp_device *gdev = eng->gdev;

	spin_lock_bh(&gdev->lock);
	gsp_engine_kick_locked(eng, gsp_now());
	spin_unlock_bh(&gdev->lock);
	return HRTIMER_NORESTART;
}

void gsp_engine_init(struct gsp_device *gdev, struct gsp_dev_engine *eng, u32 id)
{
	eng->gdev = gdev;
	eng->id = id;
	eng->running = NULL;
	eng->held = NULL;
	hrtimer_setup(&eng->timer, gsp_engine_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_SOFT);
	hrtimer_setup(&eng->retry, gsp_engine_retry_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_SOFT);
}

/* Called with no job left: only timers can still be armed. */
void gsp_engine_fini(struct gsp_dev_engine *eng)
{
	WARN_ON(eng->running || eng->held);
	hrtimer_cancel(&eng->timer);
	hrtimer_cancel(&eng->retry);
}

/**
 * gsp_engine_kick_locked - start the next job if the engine is idle
 * @eng: the engine
 * @now: CLOCK_MONOTONIC ns
 */
void gsp_engine_kick_locked(struct gsp_dev_engine *eng, u64 now)
{
	struct gsp_device *gdev = eng->gdev;
	struct gsp_kjob *job;
	struct gsp_job *j;
	u64 retry = 0;

	lockdep_assert_held(&gdev->lock);

	if (eng->running || eng->held)
		return;
	j = gsp_sched_pick(&gdev->sched, eng->id, now, &retry);
	if (!j) {
		if (retry)
			hrtimer_start(&eng->retry, ns_to_ktime(retry),
				      HRTIMER_MODE_ABS_SOFT);
		return;
	}

	job = to_gsp_kjob(j);
	WRITE_ONCE(job->state, GSP_AJOB_RUNNING);
	gsp_ajob_started(&job->acct, &job->ctx->acct, now);
	eng->running = job;
	gsp_board_waiting_locked(gdev);
	if (gdev->backend == GSP_BACKEND_SIM && !job->drm)
		eng->deadline_ns = now + job->base.cost_ns;
	else
		eng->deadline_ns = now + READ_ONCE(gsp_drv->watchdog_ns);
	hrtimer_start(&eng->timer, ns_to_ktime(eng->deadline_ns),
		      HRTIMER_MODE_ABS_SOFT);
	if (job->drm)
		gsp_drm_job_granted_locked(job);
	/* A lease holder waits for the grant. */
	wake_up_all(&job->ctx->wq);
}

/**
 * gsp_engine_renew_locked - a new watchdog period for the running lease
 * @eng: the engine, running a leased job
 * @now: CLOCK_MONOTONIC ns
 *
 * The timer may be firing for the old deadline on another CPU, waiting
 * for the device lock: it then finds the new deadline in the future and
 * does nothing, and the timer started here stays queued.
 */
void gsp_engine_renew_locked(struct gsp_dev_engine *eng, u64 now)
{
	lockdep_assert_held(&eng->gdev->lock);

	eng->deadline_ns = now + READ_ONCE(gsp_drv->watchdog_ns);
	hrtimer_start(&eng->timer, ns_to_ktime(eng->deadline_ns),
		      HRTIMER_MODE_ABS_SOFT);
}

void gsp_device_kick_locked(struct gsp_device *gdev, u64 now)
{
	int i;

	for (i = 0; i < GSP_ENGINE_COUNT; i++)
		gsp_engine_kick_locked(&gdev->eng[i], now);
}
