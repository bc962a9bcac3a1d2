/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arbiter's request semantics, shared by gspace.ko and gspaced: what
 * makes a uapi request valid, the features both report, and what a job's
 * life does to its tenant's counters. The hosts keep only their glue
 * (handles, fences, locks, the clock); what a request means is here.
 *
 * Like the scheduling core, this holds no locks, allocates nothing and
 * reads no clock: the host serialises each call with the lock that
 * protects the job and tenant it names (&gsp_device.lock in the module).
 */
#ifndef _GSP_ARBITER_H
#define _GSP_ARBITER_H

#include "gsp_core.h"
#include "gspace.h"

/*
 * Features both arbiters have. The module adds GSPACE_FEAT_SYNC_FILE and
 * GSPACE_FEAT_BOARD (fences are sync_files, the board an mmap of
 * /dev/gspace); gspaced's fences and board travel over its socket.
 */
#define GSP_ARBITER_FEATURES						\
	(GSPACE_FEAT_SIM_ENGINE | GSPACE_FEAT_LEASE_ENGINE |		\
	 GSPACE_FEAT_POLICY_FIFO | GSPACE_FEAT_POLICY_CREDIT |		\
	 GSPACE_FEAT_POLICY_BAND | GSPACE_FEAT_LC_PRIORITY |		\
	 GSPACE_FEAT_REORDER | GSPACE_FEAT_PARTITION |			\
	 GSPACE_FEAT_PROTECT | GSPACE_FEAT_LEASE_PROGRESS |		\
	 GSPACE_FEAT_PREEMPT | GSPACE_FEAT_PART_AUTO)

/* The life of an arbiter's job; it only moves forward. */
enum gsp_ajob_state {
	GSP_AJOB_PENDING,	/* waiting for its dependencies */
	GSP_AJOB_QUEUED,	/* in the scheduler */
	GSP_AJOB_RUNNING,	/* on an engine */
	GSP_AJOB_DONE,
};

/**
 * struct gsp_job_acct - what an arbiter keeps of a job, beside its
 * struct gsp_job; the host embeds both and protects them with the lock
 * of the job's scheduler
 * @lc: submitted by an LC tenant
 * @lc_target_ns: that tenant's LC target at SUBMIT
 * @status: 0 or -errno, once the job has ended
 * @submit_ns: when it was submitted
 * @start_ns: when it started running
 * @charged_ns: GPU time charged while it ran (GSPACE_COMPLETE_PROGRESS)
 * @gpu_ns: GPU time charged in all, once the job has ended
 * @latency_ns: SUBMIT to end, once the job has ended
 * @user_tag: the submitter's, for debugging
 */
struct gsp_job_acct {
	bool lc;
	u64 lc_target_ns;
	int status;
	u64 submit_ns;
	u64 start_ns;
	u64 charged_ns;
	u64 gpu_ns;
	u64 latency_ns;
	u64 user_tag;
};

/**
 * struct gsp_tenant_acct - a tenant's job counters, as STATS reports them;
 * the host embeds it in its tenant and protects it with the lock of the
 * tenant's scheduler
 * @nr_renewals: leases renewed with GSPACE_COMPLETE_PROGRESS
 * @nr_live: jobs not yet ended
 * @nr_queued: jobs waiting for dependencies or the GPU
 * @nr_running: jobs on an engine
 * @nr_completed: jobs ended
 * @nr_failed: jobs ended with an error
 * @nr_qos_violations: LC jobs that missed their LC target
 * @gpu_ns: GPU time charged, per engine
 */
struct gsp_tenant_acct {
	u64 nr_renewals;
	u32 nr_live;
	u64 nr_queued;
	u64 nr_running;
	u64 nr_completed;
	u64 nr_failed;
	u64 nr_qos_violations;
	u64 gpu_ns[GSP_ENGINE_COUNT];
};

/* Request validation: 0, or the errno the request fails with. */
int gsp_ctx_set_validate(const struct gspace_ctx_set *a);
int gsp_submit_validate(const struct gspace_submit *a);
int gsp_wait_validate(const struct gspace_wait *a);
int gsp_complete_validate(const struct gspace_complete *a);
int gsp_cancel_validate(const struct gspace_cancel *a);
int gsp_stats_validate(const struct gspace_stats *a);

/* Whether a WAIT with @flags is answered in @state. */
bool gsp_wait_done(enum gsp_ajob_state state, u32 flags);

/* Fills WAIT's answer from a job in @state. */
void gsp_wait_answer(const struct gsp_job_acct *ja, enum gsp_ajob_state state,
		     struct gspace_wait *a);

/* A validated SUBMIT's job, owned by @ent. */
void gsp_ajob_init(struct gsp_job *j, struct gsp_job_acct *ja,
		   struct gsp_entity *ent, const struct gspace_submit *a,
		   bool lc, u64 lc_target_ns);

/* The job is published: PENDING from @now. */
void gsp_ajob_submitted(struct gsp_job_acct *ja, struct gsp_tenant_acct *ta,
			u64 now);

/* The scheduler picked it: RUNNING from @now. */
void gsp_ajob_started(struct gsp_job_acct *ja, struct gsp_tenant_acct *ta,
		      u64 now);

bool gsp_ajob_end(struct gsp_sched *s, struct gsp_job *j,
		  struct gsp_job_acct *ja, enum gsp_ajob_state state,
		  struct gsp_tenant_acct *ta, int status, u64 gpu_ns, u64 now);

void gsp_ajob_progress(struct gsp_sched *s, struct gsp_job *j,
		       struct gsp_job_acct *ja, struct gsp_tenant_acct *ta,
		       u64 gpu_ns, u64 now);

u64 gsp_ajob_abort_ns(const struct gsp_job *j, const struct gsp_job_acct *ja,
		      bool sim, u64 now);

/* STATS' counters of a tenant. */
void gsp_tenant_stats(const struct gsp_tenant_acct *ta,
		      const struct gsp_entity *e, struct gspace_stats *a);

#endif /* _GSP_ARBITER_H */
