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

/*
 * CuMAS reordering window. The pick orders it with NEH and
 * GSP_CUMAS_LS_PASSES passes of local search; the exact search, up to
 * GSP_CUMAS_EXACT_MAX tasks, is the reference it is measured against.
 */
#define GSP_CUMAS_MAX_WINDOW	32
#define GSP_CUMAS_EXACT_MAX	10
#define GSP_CUMAS_LS_PASSES	2

/* Limits that gsp_params_validate() enforces. */
#define GSP_PERIOD_MIN_NS	1000000ULL		/* 1 ms */
#define GSP_PERIOD_MAX_NS	10000000000ULL		/* 10 s */
#define GSP_BAND_WAIT_MAX_NS	100000000ULL		/* 100 ms */
#define GSP_WEIGHT_MAX		10000

/**
 * struct gsp_job - one unit of GPU work, embedded in the host's job
 * @ent: set by the host before enqueue: the owner
 * @engine: set by the host before enqueue: GSP_ENGINE_*
 * @cost_ns: set by the host before enqueue: expected GPU time
 * @task_ns: set by the host before enqueue: for an H2D job heading a
 *	copy-in, compute, copy-out task, the expected cost on each engine;
 *	all zero otherwise
 * @node: core private: in the owner's per-engine queue
 * @gnode: core private: in the engine's arrival-order list of its class
 * @seq: core private: arrival order
 * @enqueue_ns: core private: when it became ready
 * @bypassed: core private: CuMAS picks that overtook this task head
 * @state: core private: GSP_JOB_*
 */
struct gsp_job {
	struct gsp_entity *ent;
	u32 engine;
	u64 cost_ns;
	u64 task_ns[GSP_ENGINE_COUNT];

	struct list_head node;
	struct list_head gnode;
	u64 seq;
	u64 enqueue_ns;
	u32 bypassed;
	u32 state;
};

/* struct gsp_job.state */
enum gsp_job_state {
	GSP_JOB_IDLE,
	GSP_JOB_QUEUED,
	GSP_JOB_RUNNING,
};

/* Where an entity's per-engine state sits in its class's run queue. */
enum gsp_rq_where {
	GSP_RQ_NONE,
	GSP_RQ_POS,	/* CREDIT: round robin list of positive credit */
	GSP_RQ_NEG,	/* CREDIT, BAND: round robin list of spent credit */
	GSP_RQ_FIFO,	/* FIFO: only in the arrival-order job list */
	GSP_RQ_LOW,	/* BAND, positive credit: struct gsp_band_rq.low */
	GSP_RQ_SLOT,	/* BAND, positive credit: a slot */
	GSP_RQ_HIGH,	/* BAND, positive credit: struct gsp_band_rq.high */
};

/**
 * struct gsp_heap_node - node of an intrusive pairing heap (core private)
 * @child: first child
 * @sibling: next sibling
 * @prev: previous sibling, or the parent for a first child, NULL at root
 */
struct gsp_heap_node {
	struct gsp_heap_node *child;
	struct gsp_heap_node *sibling;
	struct gsp_heap_node *prev;
};

/**
 * struct gsp_entity_engine - one tenant's state on one engine (core private)
 * @queue: its ready jobs, in its own order
 * @rq_node: in a round robin list of its class (GSP_RQ_POS or _NEG) or
 *	in a BAND slot (GSP_RQ_SLOT)
 * @hnode: in a BAND heap of its class (GSP_RQ_LOW or _HIGH)
 * @nr_queued: ready jobs
 * @nr_running: running jobs (0 or 1)
 * @credit_ns: CREDIT/BAND ledger, charged on completion
 * @charged_ns: all GPU time ever charged
 * @period_used_ns: GPU time charged in the current period, plus what it
 *	ran over its share in the last one
 * @where: GSP_RQ_*
 * @active_gen: last period in which it had work on this engine
 * @last_pick: engine pick counter at its last pick (round robin tie-break)
 * @owner: the entity this state belongs to
 */
struct gsp_entity_engine {
	struct gsp_entity *owner;
	struct list_head queue;
	struct list_head rq_node;
	struct gsp_heap_node hnode;
	u32 nr_queued;
	u32 nr_running;
	s64 credit_ns;
	u64 charged_ns;
	u64 period_used_ns;
	u32 where;
	u64 active_gen;
	u64 last_pick;
};

/**
 * struct gsp_entity - a tenant on one scheduler, embedded in the host's
 * tenant. Read its counters through the accessors below.
 * @weight: share of each engine relative to the other tenants (1..10000)
 * @lc: latency critical: its jobs go before BE jobs
 * @attached: core private
 * @node: core private: in the scheduler's list of entities
 * @eng: core private: per-engine state
 */
struct gsp_entity {
	u32 weight;
	bool lc;
	bool attached;
	struct list_head node;
	struct gsp_entity_engine eng[GSP_ENGINE_COUNT];
};

/* BAND's ring of slots; a power of two, at most 64 (one bit each). */
#define GSP_BAND_SLOTS		64
/* Scale of BAND's key: used ns * 2^15 / weight, below 2^63. */
#define GSP_BAND_KEY_SHIFT	15
/* A slot spans 1/32 of the largest key step of one charge. */
#define GSP_BAND_GRAIN_DIV	32
/* The ring serves from this many tenants on, the exact heap below this. */
#define GSP_BAND_RING_ON	128
#define GSP_BAND_RING_OFF	32

/**
 * struct gsp_band_rq - BAND's ready tenants with positive credit, by used
 * share (core private)
 * @low: keys below @base, exactly ordered (pairing heap)
 * @high: keys from @base + GSP_BAND_SLOTS * @grain on, exactly ordered
 * @slot: keys in between, one slot per @grain, a ring that starts at
 *	@origin; in a slot, in order of arrival
 * @map: slots that may hold tenants (cleared lazily)
 * @nr: tenants in the slots
 * @base: the key where slot @origin starts
 * @grain: width of a slot, in key units; set at each period's start
 * @max_step: the largest key step of one charge in this period
 * @origin: index of the first slot
 * @count: tenants in all three
 * @ring: the ring is on; else @base is U64_MAX and all are in @low
 *
 * Up to GSP_BAND_RING_ON tenants all sit in @low, exactly ordered. From
 * there on, until they are fewer than GSP_BAND_RING_OFF, the ring serves
 * the keys from @base on to a grain, in O(1).
 */
struct gsp_band_rq {
	struct gsp_heap_node *low;
	struct gsp_heap_node *high;
	struct list_head slot[GSP_BAND_SLOTS];
	u64 map;
	u32 nr;
	u64 base;
	u64 grain;
	u64 max_step;
	u32 origin;
	u32 count;
	bool ring;
};

/**
 * struct gsp_class_rq - the ready tenants of one class on one engine
 * @fifo: ready jobs of the class in arrival order (gsp_job.gnode)
 * @pos: CREDIT: tenants with positive credit, round robin
 * @neg: CREDIT and BAND: tenants with spent credit, round robin
 * @band: BAND: tenants with positive credit, least used share first
 * @nr_queued: ready jobs of the class
 * @period_busy_ns: GPU time of the class in this period, plus the excess
 *	carried over from the last one
 * @active_weight: sum of the weights of its tenants active in this period
 */
struct gsp_class_rq {
	struct list_head fifo;
	struct list_head pos;
	struct list_head neg;
	struct gsp_band_rq band;
	u32 nr_queued;
	u64 period_busy_ns;
	u64 active_weight;
};

enum gsp_class {
	GSP_CLASS_BE,
	GSP_CLASS_LC,
	GSP_CLASS_COUNT,
};

/**
 * struct gsp_engine_state - one engine's queues and ledger (core private)
 * @rq: ready tenants, per class
 * @next_seq: arrival counter
 * @period_start_ns: start of the current replenish period
 * @running: jobs running (0 or 1)
 * @cur_ent: owner of the running job (not "current": a kernel macro)
 * @lc_busy_ns: LC GPU time, halved every period (starvation bound)
 * @be_busy_ns: BE GPU time, halved every period (starvation bound)
 * @gen: period counter
 * @picks: pick counter
 * @queued_cost_ns: sum of cost_ns over ready jobs
 * @run_start_ns: when the running job was picked
 * @run_cost_ns: cost_ns of the running job
 * @last: owner of the last completed job (BAND hold), or NULL
 * @last_done_ns: when it completed
 * @busy_ns: all GPU time ever charged on this engine
 */
struct gsp_engine_state {
	struct gsp_class_rq rq[GSP_CLASS_COUNT];
	u64 next_seq;
	u64 period_start_ns;
	u64 running;
	struct gsp_entity *cur_ent;
	u64 lc_busy_ns;
	u64 be_busy_ns;
	u64 gen;
	u64 picks;
	u64 queued_cost_ns;
	u64 run_start_ns;
	u64 run_cost_ns;
	struct gsp_entity *last;
	u64 last_done_ns;
	u64 busy_ns;
};

/**
 * struct gsp_task_cost - one CuMAS task: its time on each of three machines
 * @s: copy-in (H2D)
 * @p: compute
 * @r: copy-out (D2H)
 */
struct gsp_task_cost {
	u64 s;
	u64 p;
	u64 r;
};

/**
 * struct gsp_cumas - CuMAS window solver scratch, embedded (core private)
 * @t: the window's tasks
 * @order: best order found
 * @cur: order being built by the search
 * @cs: search state per depth: copy-in machine free
 * @cp: search state per depth: compute machine free
 * @cr: search state per depth: copy-out machine free
 * @next: search state per depth: next candidate to try
 * @head: heuristic: when each machine (s, p, r) finishes the first i tasks
 * @tail: heuristic: per machine, longest path from task i's start to the
 *	end
 * @jobs: the window's jobs, parallel to @t
 * @nodes: search nodes visited by the last solve
 */
struct gsp_cumas {
	struct gsp_task_cost t[GSP_CUMAS_MAX_WINDOW];
	u8 order[GSP_CUMAS_MAX_WINDOW];
	u8 cur[GSP_CUMAS_MAX_WINDOW];
	u64 cs[GSP_CUMAS_MAX_WINDOW + 1];
	u64 cp[GSP_CUMAS_MAX_WINDOW + 1];
	u64 cr[GSP_CUMAS_MAX_WINDOW + 1];
	u8 next[GSP_CUMAS_MAX_WINDOW + 1];
	struct gsp_task_cost head[GSP_CUMAS_MAX_WINDOW + 1];
	struct gsp_task_cost tail[GSP_CUMAS_MAX_WINDOW + 1];
	struct gsp_job *jobs[GSP_CUMAS_MAX_WINDOW];
	u64 nodes;
};

/**
 * struct gsp_sched - the scheduler of one device: its three engines
 * @p: tunables
 * @entities: attached entities
 * @nr_entities: how many
 * @total_weight: sum of their weights
 * @class_weight: sum of their weights per class (GSP_CLASS_*)
 * @eng: per-engine state
 * @cumas: CuMAS solver scratch
 */
struct gsp_sched {
	struct gsp_params p;
	struct list_head entities;
	u32 nr_entities;
	u64 total_weight;
	u64 class_weight[GSP_CLASS_COUNT];
	struct gsp_engine_state eng[GSP_ENGINE_COUNT];
	struct gsp_cumas cumas;
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

/* Charges @gpu_ns to a running job's owner; the job keeps running. */
void gsp_sched_progress(struct gsp_sched *s, struct gsp_job *j, u64 gpu_ns,
			u64 now_ns);

/* Counters of an entity on an engine. */
u64 gsp_entity_charged_ns(const struct gsp_entity *e, u32 engine);
s64 gsp_entity_credit_ns(const struct gsp_entity *e, u32 engine);

/* Counters of an engine: all GPU time charged, and jobs ready. */
u64 gsp_engine_busy_ns(const struct gsp_sched *s, u32 engine);
u32 gsp_engine_nr_queued(const struct gsp_sched *s, u32 engine);

/*
 * CuMAS flow-shop solver, exposed for tests and tools. @free holds the
 * times at which the copy-in, compute and copy-out machines become free.
 */
u64 gsp_cumas_makespan(const struct gsp_task_cost *t, const u8 *order,
		       u32 n, const u64 *free);
u64 gsp_cumas_lower_bound(const struct gsp_task_cost *t, u32 n,
			  const u64 *free);
u64 gsp_cumas_neh(struct gsp_cumas *c, u32 n, const u64 *free);
u64 gsp_cumas_heuristic(struct gsp_cumas *c, u32 n, const u64 *free);
u64 gsp_cumas_solve(struct gsp_cumas *c, u32 n, const u64 *free);

extern const char *const gsp_policy_names[GSP_POLICY_COUNT];

#endif /* _GSP_CORE_H */
