/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the parts of the process's tenant share (dispatch.c,
 * dispatch_tenant.c, dispatch_loop.c, dispatch_lease.c, dispatch_task.c,
 * lc_report.c): its limits and
 * timings, the one tenant state (tenant) and the functions one part
 * calls in another; the real driver functions its threads call are
 * cudrv's (real.h).
 * Internal to those files; preload.h is the rest of the interposer's
 * view. The locking rules are written on the members.
 */
#ifndef GSP_DISPATCH_INTERNAL_H
#define GSP_DISPATCH_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <gsp.h>
#include <gsp_board.h>

#include <gsp_persist.h>

#include "lcprio.h"
#include "lcsearch.h"
#include "predict.h"
#include "preload.h"
#include "real.h"
#include "spatial.h"

#define POLL_NS		10000ULL	/* board and event polls, after ... */
#define SPIN_POLLS	16		/* ... this many polls with sched_yield */
#define BOARD_POLL_NS	50000ULL	/* BE: while LC work is active */
#define LC_FAST_NS	50000ULL	/* LC reporter poll while LC is busy */
#define LC_SLOW_NS	2000000ULL	/* ... after 100 ms without LC work */
#define LC_BUSY_NS	100000000ULL
#define IDLE_LEASE_NS	200000ULL	/* keep an idle lease this long */
#define PREEMPT_POLL_NS	100000ULL	/* BE: a gated call's preemption look */
#define EXIT_DRAIN_NS	5000000000ULL	/* at exit, wait this long at most */
#define LC_SAMPLE	16		/* time every 16th LC op of a key */
#define LC_RING		4096
#define LC_SAMPLES	64		/* timed LC ops in flight at most */
#define LC_MARKS	64		/* pooled reporter markers kept */
#define LC_SETTLE_NS	1000000000ULL	/* a capture waits this long at most */
#define KEYS		4096
#define MAX_DEPTH	64
#define AHEAD_NS	200000ULL	/* BE: short ops in flight beyond depth */
#define FIFO_MAX	1024		/* BE: deferred ops before the app waits */
#define RENEW_DEFAULT_NS 500000000ULL	/* a quarter of the default watchdog */
/* GSP_QUANTUM_US=auto: QUANTUM_SPAN_NS shared, within MIN..MAX each */
#define QUANTUM_SPAN_NS	16000000ULL
#define QUANTUM_MIN_NS	2000000ULL	/* also every quantum but compute's */
#define QUANTUM_MAX_NS	5000000ULL
#define REJOIN_MIN_NS	10000000ULL	/* reconnect backoff: 10 ms ... */
#define REJOIN_MAX_NS	1000000000ULL	/* ... doubling up to 1 s */
#define REJOIN_STREAK	8	/* rejoins in a row with no grant: give up */
#define REJOIN_WAIT_MS	30000	/* GSP_REJOIN_WAIT_MS: a lost arbiter's window */

enum { SPATIAL_OFF, SPATIAL_ON, SPATIAL_AUTO };

/* libgsp, resolved at run time so the interposer loads without it. */
struct gsp_api {
	int (*open)(struct gsp **, const struct gsp_open_opts *);
	void (*close)(struct gsp *);
	int (*reopen)(struct gsp *);
	int (*version)(struct gsp *, struct gspace_version *);
	int (*ctx_set)(struct gsp *, struct gspace_ctx_set *);
	int (*submit)(struct gsp *, struct gspace_submit *);
	int (*wait)(struct gsp *, struct gspace_wait *);
	int (*complete)(struct gsp *, struct gspace_complete *);
	const struct gsp_board *(*board)(struct gsp *);
	struct gsp_board *(*board_rw)(struct gsp *);
	int (*lc_slot)(struct gsp *);
};

struct gsp_gate {
	int state;		/* 0 queued, 1 go, 2 issued */
	uint32_t engine;
	CUstream stream;	/* NULL: synchronous, timed on the host */
	CUevent start, end;	/* from the dispatcher; start only if first */
	uint64_t host_ns;
	int issued_ok;
};

/*
 * An LC tenant's slot on the board: where its issues are counted. A new
 * one is published when the tenant rejoins (and the old one never
 * freed), so a count is taken back only from the slot it went into.
 */
struct lc_view {
	struct gsp_board *rw;	/* the writable board, or NULL */
	int slot;		/* its slot in it, or -1 */
};

/*
 * The one tenant of this process. Global because the driver API has no
 * handle we could hang it on; set up once (pthread_once) and torn down
 * at exit.
 */
struct gsp_tenant {
	pthread_once_t once;
	_Atomic int mode;		/* enum gsp_mode */
	/* configuration: read_config(), setup(); read-only after */
	int log;
	uint32_t device, cls, weight;
	uint64_t lc_target_ns, quantum_ns;
	int overlap;	/* GSP_OVERLAP: hand leases over with ops in flight */
	int ahead;	/* GSP_LEASE_AHEAD: one lease per engine, the next asked early */
	int run_on;	/* GSP_RUN_ON: a compute lease runs past its quantum alone */
	int quantum_auto; /* GSP_QUANTUM_US=auto: lease_quantum() sizes it */
	uint64_t ahead_lead_ns;	/* GSP_AHEAD_US: ask that long before it is due */
	int task_heads;	/* GSP_TASK_HEADS: copy-ins as task heads, stage costs */
	int spatial;	/* GSP_SPATIAL: SPATIAL_* */
	struct gsp_spatial_cfg sp;
	unsigned int depth;
	const char *stats_file;
	int fail_open;	/* GSP_FAIL_OPEN: pass through for good on a loss */
	uint64_t rejoin_wait_ns;	/* GSP_REJOIN_WAIT_MS; 0: wait for ever */
	int progress;	/* the arbiter renews leases (LEASE_PROGRESS) */
	int waiting_seen; /* the board counts waiting jobs (FEAT_PREEMPT) */
	int renew_auto;	/* renew every quarter of the board's watchdog */
	uint64_t renew_ns;	/* else every this long; 0: never */
	struct gsp_api api;	/* load_libgsp() in setup(); read-only after */
	/* setup(), then rejoin() on the thread that talks to the arbiter */
	struct gsp *g;
	const struct gsp_board *board;
	_Atomic(struct lc_view *) lcv;	/* LC: the slot counted in */
	atomic_int warned_arbiter;
	atomic_int warned_rejoin[GSP_REJOIN_N], warned_back;
	unsigned int rejoin_streak;	/* rejoins since the last grant (rejoin()) */

	/*
	 * BE FIFO, in program order across threads. Condition variables (on
	 * CLOCK_MONOTONIC): cv for drains and gates, work for the
	 * dispatcher, space for app threads waiting for room in the FIFO.
	 */
	pthread_mutex_t mu;
	pthread_cond_t cv, work, space;
	struct gsp_op *head, *tail;
	uint64_t enq, issued;
	uint64_t drain_at;		/* wake drains when issued reaches it */
	unsigned int space_waiters;
	int dispatcher_idle;
	atomic_ullong pending;		/* enq - issued, for a cheap check */
	CUresult sticky;
	int stop, dispatcher_running, reporter_running, charger_running;
	pthread_t dispatcher, reporter, charger;
	/*
	 * LC: GPU time the reporter has measured and the charger has not
	 * yet charged, per engine (under mu; owed wakes the charger). A
	 * charge waits for the arbiter's grant, which a BE lease can hold
	 * for as long as its kernel runs: the reporter must not wait with
	 * it, or the slot's inflight, and so the partition request, would
	 * stay up until the BE kernel that the request starves ends.
	 */
	uint64_t lc_owed[GSPACE_ENGINE_COUNT];
	pthread_cond_t owed;
	/* streams in capture, all contexts: written under @mu, read relaxed */
	int capturing;

	/* LC ring: many app threads push, the reporter pops. */
	struct lc_rec {
		atomic_ullong seq;
		CUcontext ctx;
		CUstream stream;
		const void *key;
		uint32_t engine;
		int sample;		/* as in gsp_lc_ticket */
		const void *view;	/* as in gsp_lc_ticket */
	} ring[LC_RING];
	/*
	 * Event pairs for the sampled LC ops: an app thread claims one with
	 * busy (0 -> 1), the reporter frees it once it has read the time.
	 * Created on first use in a context, then reused: the fast path
	 * never creates or destroys an event in steady state.
	 */
	struct lc_sample {
		atomic_int busy;
		CUcontext ctx;
		CUevent s, e;
	} samples[LC_SAMPLES];
	atomic_uint sample_next;
	atomic_ullong ring_head, ring_tail;
	atomic_ullong ring_done;	/* the reporter is done with those before */
	atomic_ullong lc_overflow;
	atomic_ullong lc_last_ns;
	/* Arrivals for the forecast (lc_arrival()): how many, the last. */
	atomic_ullong lc_arrivals, lc_arrival_ns;
};

extern struct gsp_tenant tenant GSP_HIDDEN;

/*
 * Called across the parts, grouped by the file that defines them; each
 * keeps the thread or lock rule written at its definition.
 */
/* dispatch.c */
/* Refused from now on, or passing through under GSP_FAIL_OPEN=1 (said). */
GSP_HIDDEN void unschedulable(int bad_settings, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
GSP_HIDDEN uint64_t cost_get(const void *key);

/* dispatch_tenant.c */
GSP_HIDDEN uint64_t elapsed_ns(CUevent a, CUevent b);
GSP_HIDDEN void ensure_ctx(CUcontext ctx);
GSP_HIDDEN void ev_wait(CUevent ev);
GSP_HIDDEN void ev_wait_then(CUevent ev, void (*each)(void));
GSP_HIDDEN int find_driver(void);
GSP_HIDDEN int lc_active(void);
GSP_HIDDEN int lc_confine(void);
GSP_HIDDEN void lc_view_publish(void);
GSP_HIDDEN int load_libgsp(void);
/* The GSP_* settings: 0, 1 for GSP_DISABLE=1, or -1 if one is bad (said). */
GSP_HIDDEN int read_config(void);
GSP_HIDDEN int rejoin(enum gsp_rejoin_why why, const char *what, int err);
GSP_HIDDEN void tight_timers(void);

/* dispatch_task.c (dispatcher thread) */
GSP_HIDDEN uint64_t op_bytes(const struct gsp_op *op);
GSP_HIDDEN uint64_t op_est(const struct gsp_op *op);
GSP_HIDDEN void bw_put(uint32_t engine, uint64_t bytes, uint64_t ns);
GSP_HIDDEN void task_note(const struct gsp_op *op);
GSP_HIDDEN void task_submit(const struct gsp_op *op, struct gspace_submit *sub);

/* dispatch_loop.c */
GSP_HIDDEN void *dispatcher_main(void *arg);
GSP_HIDDEN CUresult drain_for(uint64_t max_ns, int take_sticky);

/* dispatch_lease.c (the leases themselves: dispatch_lease.h) */
GSP_HIDDEN int job_granted(uint32_t engine, uint64_t cost_ns, uint64_t *handle);

/* lc_report.c */
GSP_HIDDEN void *charger_main(void *arg);
GSP_HIDDEN void *reporter_main(void *arg);

#endif /* GSP_DISPATCH_INTERNAL_H */
