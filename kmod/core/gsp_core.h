/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gspace scheduling core: the policy, in pure C.
 *
 * The core holds no locks, allocates nothing and reads no clock: the host
 * (gspace.ko or gspaced) embeds its objects, serialises every call on one
 * struct gsp_sched with its own lock, and passes the time in ns.
 */
#ifndef _GSP_CORE_H
#define _GSP_CORE_H

#include "gsp_compat.h"

/* Engines, numbered as GSPACE_ENGINE_* in uapi/gspace.h. */
enum gsp_engine {
	GSP_ENGINE_COMPUTE,
	GSP_ENGINE_H2D,
	GSP_ENGINE_D2H,
	GSP_ENGINE_COUNT,
};

enum gsp_policy {
	GSP_POLICY_FIFO,
	GSP_POLICY_CREDIT,
	GSP_POLICY_BAND,
	GSP_POLICY_COUNT,
};

/**
 * struct gsp_params - tunables of one scheduler, all validated together
 * @policy: GSP_POLICY_*
 * @period_ns: CREDIT and BAND replenish period
 * @band_wait_ns: BAND's post-completion hold for an under-share tenant
 * @min_be_permille: share of each engine's time that BE work is
 *	guaranteed while LC work is ready (LC priority's starvation bound)
 * @reorder: CuMAS reordering of copy-in/compute/copy-out tasks on or off
 * @window: CuMAS reordering window, in tasks
 */
struct gsp_params {
	u32 policy;
	u64 period_ns;
	u64 band_wait_ns;
	u32 min_be_permille;
	u32 reorder;
	u32 window;
};

/**
 * struct gsp_job - one unit of GPU work, embedded in the host's job
 * @ent: set by the host before enqueue: the owner
 * @engine: set by the host before enqueue: GSP_ENGINE_*
 * @cost_ns: set by the host before enqueue: expected GPU time
 * @task_ns: set by the host before enqueue: for an H2D job heading a
 *	copy-in, compute, copy-out task, the expected cost on each engine;
 *	all zero otherwise
 * @node: core private
 * @seq: core private: arrival order
 * @enqueue_ns: core private: when it became ready
 */
struct gsp_job {
	struct gsp_entity *ent;
	u32 engine;
	u64 cost_ns;
	u64 task_ns[GSP_ENGINE_COUNT];

	struct list_head node;
	u64 seq;
	u64 enqueue_ns;
};

/**
 * struct gsp_entity_engine - one tenant's state on one engine (core private)
 */
struct gsp_entity_engine {
	struct list_head queue;
	struct list_head rq_node;
	u32 nr_queued;
	u32 nr_running;
	s64 credit_ns;
	u64 charged_ns;
	u64 period_used_ns;
};

/**
 * struct gsp_entity - a tenant on one scheduler, embedded in the host's
 * tenant. Read its counters through the accessors below.
 */
struct gsp_entity {
	u32 weight;
	bool lc;
	bool attached;
	struct list_head node;
	struct gsp_entity_engine eng[GSP_ENGINE_COUNT];
};

/**
 * struct gsp_engine_state - one engine's queues and ledger (core private)
 */
struct gsp_engine_state {
	struct list_head rq;
	u64 next_seq;
	u64 period_start_ns;
	u64 period_busy_ns;
	u64 running;
	struct gsp_entity *current;
	u64 lc_busy_ns;
	u64 be_busy_ns;
};

/**
 * struct gsp_sched - the scheduler of one device: its three engines
 */
struct gsp_sched {
	struct gsp_params p;
	struct list_head entities;
	u32 nr_entities;
	u64 total_weight;
	struct gsp_engine_state eng[GSP_ENGINE_COUNT];
};

/* Fills @p with the defaults: FIFO, 100 ms, 500 us, 10%, reorder off, 8. */
void gsp_params_default(struct gsp_params *p);

/* 0 if @p is acceptable, else -EINVAL. */
int gsp_params_validate(const struct gsp_params *p);

void gsp_sched_init(struct gsp_sched *s, const struct gsp_params *p, u64 now_ns);

/*
 * Changes the tunables, policy included, at any time, queued and running
 * jobs included. Returns -EINVAL and changes nothing if @p is invalid.
 */
int gsp_sched_set_params(struct gsp_sched *s, const struct gsp_params *p,
			 u64 now_ns);

void gsp_entity_init(struct gsp_entity *e, u32 weight, bool lc);

/* Adds @e to @s. @e must be initialised and not attached. */
void gsp_sched_attach(struct gsp_sched *s, struct gsp_entity *e, u64 now_ns);

/* Removes @e from @s. @e must have no queued and no running job. */
void gsp_sched_detach(struct gsp_sched *s, struct gsp_entity *e, u64 now_ns);

/* Changes the weight and class of an attached (or detached) entity. */
void gsp_sched_set_entity(struct gsp_sched *s, struct gsp_entity *e,
			  u32 weight, bool lc, u64 now_ns);

/* Makes @j ready. @j->ent must be attached to @s. */
void gsp_sched_enqueue(struct gsp_sched *s, struct gsp_job *j, u64 now_ns);

/* Takes a ready (not running) job back out: cancel. */
void gsp_sched_dequeue(struct gsp_sched *s, struct gsp_job *j, u64 now_ns);

/*
 * The next job to run on @engine, now running and out of its queue, or NULL.
 * The host calls it whenever the engine can take a job. When it returns NULL
 * although jobs are ready (BAND holding the engine for an under-share
 * tenant), *@retry_ns is the time to call again; otherwise *@retry_ns is 0.
 */
struct gsp_job *gsp_sched_pick(struct gsp_sched *s, u32 engine, u64 now_ns,
			       u64 *retry_ns);

/* Ends a running job and charges @gpu_ns to its owner. */
void gsp_sched_complete(struct gsp_sched *s, struct gsp_job *j, u64 gpu_ns,
			u64 now_ns);

/* Counters of an entity on an engine. */
u64 gsp_entity_charged_ns(const struct gsp_entity *e, u32 engine);
s64 gsp_entity_credit_ns(const struct gsp_entity *e, u32 engine);

extern const char *const gsp_policy_names[GSP_POLICY_COUNT];

#endif /* _GSP_CORE_H */
