/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BE leases, shared by dispatch_lease.c (a lease's life) and
 * dispatch_loop.c (the dispatcher thread that issues ops under them).
 * Everything here is the dispatcher thread's alone: no lock.
 */
#ifndef GSP_DISPATCH_LEASE_H
#define GSP_DISPATCH_LEASE_H

#include "dispatch_internal.h"

#define RING	(MAX_DEPTH + 2)

/*
 * One lease: an arbiter job on one engine and the ops issued under it.
 * With GSP_LEASE_AHEAD=1 (the default) there is one per engine: when the
 * next op needs another engine of the same context, the open lease is
 * *closing* (it takes no more ops, and is COMPLETEd as soon as its ops
 * are done on the GPU) while the next engine's is asked for and its op
 * issued behind it in stream order. With GSP_LEASE_AHEAD=0 only lease_slots[0]
 * is used: one lease at a time, as before.
 */
struct lease {
	int open;
	int closing;		/* takes no more ops; ended once they are done */
	uint32_t engine;
	CUcontext ctx;
	uint64_t handle, t0, est_ns, host_ns;
	uint64_t renewed;		/* grant or last renewal, host time */
	int renew_err;			/* a renewal failed: stop trying */
	int preempted;			/* resumed after lease_preempt(): host-timed */
	int ran_on;			/* ran past its quantum: nobody waited */
	uint64_t waiting_max;		/* most jobs seen waiting during it */
	unsigned long rejoins;		/* gsp_ctr.rejoins at the grant */
	uint64_t due_ns;		/* host time its ops should be done by */
	CUcontext ev_ctx;		/* events below belong to it */
	/*
	 * End events of the ops in flight, oldest at head. A ring of
	 * MAX_DEPTH + 2 so that a new slot never reuses prev, created once
	 * per context, never per op.
	 */
	CUevent start, ring[RING];
	const void *rkey[RING];
	uint64_t rcost[RING];		/* estimate of each, for ahead_ns */
	uint64_t rbytes[RING];		/* a copy's bytes, for its rate */
	unsigned int rgen[RING];	/* the lease (gen) that issued each */
	char rskip[RING];		/* in flight across a preemption: untimed */
	unsigned int gen;		/* this lease */
	CUevent lprev;			/* last retired op of this lease */
	uint64_t ahead_ns;		/* estimated GPU time in flight */
	unsigned int head, count;	/* outstanding ops in ring */
	int started;
	CUevent prev;			/* last retired marker */
	unsigned int nops;
};

/* One per engine; @lease_cur takes ops (lease_slots[0] without ahead). */
extern struct lease lease_slots[GSPACE_ENGINE_COUNT] GSP_HIDDEN;
extern struct lease *lease_cur GSP_HIDDEN;

/* dispatch_lease.c, whose comments say what each does. */
GSP_HIDDEN int lease_begin(struct gsp_op *op, int *spatial, int *why);
GSP_HIDDEN void lease_end(struct lease *L, int wait_all);
GSP_HIDDEN int lease_fits(const struct gsp_op *op, int spatial);
GSP_HIDDEN int ahead_ok(const struct gsp_op *op);
GSP_HIDDEN void ahead_hold(const struct lease *prev);
GSP_HIDDEN void lease_tick(void);
GSP_HIDDEN uint64_t renew_every(void);
GSP_HIDDEN int closing_any(void);
GSP_HIDDEN uint64_t closing_wake(void);
GSP_HIDDEN void poll_closing(void);
GSP_HIDDEN CUevent next_end_event(struct lease *L, const void *key,
				  uint64_t bytes);
GSP_HIDDEN void forget_last(struct lease *L);

#endif /* GSP_DISPATCH_LEASE_H */
