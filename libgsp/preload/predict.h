/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The LC side of protect predictive (Documentation/spatial.rst,
 * "Protection modes"): a forecast of an LC tenant's next arrival from its
 * own history, and the reservation on its board slot that follows it.
 * Pure C: no CUDA, no clock of its own (every time is passed in,
 * CLOCK_MONOTONIC ns), no thread; tests/preload/test_predict.c drives it.
 *
 * An arrival is the tenant's in-flight count going from 0 to 1 (the
 * interposer counts one only after a pause of at least lc_hold_ns since
 * its last issue, so the host gaps inside one request do not count).
 *
 * The forecast: EWMAs of the interval between arrivals (the period) and
 * of the forecast's absolute error (the deviation), each a plain mean over
 * the first GSP_PREDICT_MIN intervals and weighted 1/GSP_PREDICT_WEIGHT
 * after. The arrivals are regular once GSP_PREDICT_MIN intervals are in
 * and the deviation is at most 1/GSP_PREDICT_REGULAR of the period. Then
 * the next arrival is expected at f = last + period, and is on time
 * within tol = max(3 x deviation, period / 32) of it. The reservation
 * stands from f - tol - lead (lead before the earliest arrival on time)
 * until the arrival, or until f + max(tol, lead) if it does not come;
 * after that nothing is reserved until the next arrival. Irregular
 * arrivals (Poisson, say) reserve nothing: the mode falls back to
 * reactive.
 *
 * Once regular, an interval that is not on time is odd. An odd interval
 * within tol of 2, 3 or 4 periods counts as that many periods with
 * arrivals missed (the EWMAs take interval / m); any other odd interval
 * goes in as it is. GSP_PREDICT_ODD odd intervals in a row, all longer
 * or all shorter than the period, mean the period changed: the history
 * restarts from the last interval, so the forecast comes back after
 * GSP_PREDICT_MIN intervals instead of after the EWMA's slow drift. A
 * long one then a short one (an arrival late) or the other way round is
 * noise, not a change. An interval over GSP_PREDICT_MAX_NS (the tenant
 * paused) restarts it too; a timestamp at or before the last arrival (a
 * duplicate, or a clock read out of order) is ignored.
 */
#ifndef GSP_PREDICT_H
#define GSP_PREDICT_H

#include <stdint.h>

#include <gsp_board.h>

#define GSP_PREDICT_MIN		8	/* intervals before any forecast */
#define GSP_PREDICT_WEIGHT	8	/* EWMA weight 1/8 after them */
#define GSP_PREDICT_REGULAR	10	/* deviation <= period / 10 */
#define GSP_PREDICT_ODD		2	/* alike odd intervals in a row: restart */
#define GSP_PREDICT_MAX_SKIP	4	/* at most 3 arrivals missed in a row */
#define GSP_PREDICT_MAX_NS	10000000000ULL	/* 10 s: a pause */

struct gsp_predict {
	uint64_t last;		/* the last arrival */
	uint64_t period;	/* EWMA of the intervals, ns */
	uint64_t dev;		/* EWMA of |interval - period before it| */
	uint32_t n;		/* intervals in, up to GSP_PREDICT_MIN */
	int32_t odd;		/* odd intervals in a row: > 0 long, < 0 short */
	int have;		/* @last is set */
};

/* Forgets everything: the next arrival starts a new history. */
void gsp_predict_reset(struct gsp_predict *p);
/* An arrival at @t. */
void gsp_predict_arrival(struct gsp_predict *p, uint64_t t);
/* 1 if the arrivals so far are regular (above). */
int gsp_predict_regular(const struct gsp_predict *p);
/* 1 if a reservation should stand at @now, @lead ns ahead of the forecast. */
int gsp_predict_reserve(const struct gsp_predict *p, uint64_t now,
			uint64_t lead);
/*
 * The next time after @now at which gsp_predict_reserve() changes its
 * answer without a new arrival, or UINT64_MAX if only an arrival can
 * change it.
 */
uint64_t gsp_predict_wake(const struct gsp_predict *p, uint64_t now,
			  uint64_t lead);

/*
 * The reservation of one LC slot (the reporter thread's): it reads the
 * device's mode and predict_lead_ns from the board, writes the slot's
 * reserve and recomputes dev[].part_req when it changes.
 */
struct gsp_reserver {
	struct gsp_board *b;	/* a writable mapping */
	uint32_t device;
	int slot;
	struct gsp_predict p;
	uint64_t seen;		/* arrivals fed to @p */
	int up;			/* our reserve is set on the board */
};

void gsp_reserver_init(struct gsp_reserver *r, struct gsp_board *b,
		       int slot, uint32_t device);
/*
 * At @now: feeds the arrivals counted so far (@arrivals, the last at
 * @last_ns; a jump of more than one restarts the history, since the
 * intervals in between are lost), then raises or drops the reservation as
 * the mode and the forecast say. Returns when it wants to be called
 * again: UINT64_MAX when only an arrival (or a change of the knobs) can
 * change anything.
 */
uint64_t gsp_reserver_poll(struct gsp_reserver *r, uint64_t now,
			   uint64_t arrivals, uint64_t last_ns);
/* Drops the reservation, if up (at exit). */
void gsp_reserver_drop(struct gsp_reserver *r);

#endif /* GSP_PREDICT_H */
