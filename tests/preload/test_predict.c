// SPDX-License-Identifier: GPL-2.0
/*
 * The arrival forecast and the slot reservation of protect predictive
 * (libgsp/preload/predict.c), alone, under ASan and UBSan: periodic,
 * jittered and Poisson arrivals, a period change, missed arrivals, clock
 * edge cases, and the reservation on a board in memory.
 */
#include <math.h>
#include <string.h>

#include "predict.h"
#include "prng.h"
#include "tap.h"

#define US	1000ULL
#define MS	1000000ULL
#define T0	(5000 * MS)	/* an arbitrary CLOCK_MONOTONIC start */
#define LEAD	(500 * US)
#define TOL	(10 * MS / 32)	/* the tolerance of an exact 10 ms period */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* Uniform in [0, 1), from the file's one PRNG. */
static double unif(void)
{
	return prng_unif(&rng);
}

/* Feeds @n arrivals @period apart after @t; returns the last one. */
static uint64_t feed(struct gsp_predict *p, uint64_t t, uint64_t period,
		     int n)
{
	int i;

	for (i = 0; i < n; i++) {
		t += period;
		gsp_predict_arrival(p, t);
	}
	return t;
}

static void test_periodic(void)
{
	struct gsp_predict p;
	uint64_t t, f;
	int ok = 1, i;

	gsp_predict_reset(&p);
	gsp_predict_arrival(&p, T0);
	t = T0;
	for (i = 1; i < GSP_PREDICT_MIN; i++) {
		t = feed(&p, t, 10 * MS, 1);
		ok &= !gsp_predict_regular(&p) &&
		      !gsp_predict_reserve(&p, t + 10 * MS - 1, LEAD) &&
		      gsp_predict_wake(&p, t, LEAD) == UINT64_MAX;
	}
	tap_ok(ok, "periodic: fewer than %d intervals: no forecast, no reservation, no wake-up",
	       GSP_PREDICT_MIN);
	t = feed(&p, t, 10 * MS, 1);
	f = t + 10 * MS;
	tap_ok(gsp_predict_regular(&p) && p.period == 10 * MS && p.dev == 0,
	       "periodic 10 ms: regular after %d intervals, period %llu ns",
	       GSP_PREDICT_MIN, (unsigned long long)p.period);
	tap_ok(!gsp_predict_reserve(&p, t, LEAD) &&
	       !gsp_predict_reserve(&p, f - TOL - LEAD - 1, LEAD) &&
	       gsp_predict_reserve(&p, f - TOL - LEAD, LEAD) &&
	       gsp_predict_reserve(&p, f, LEAD) &&
	       gsp_predict_reserve(&p, f + LEAD - 1, LEAD) &&
	       !gsp_predict_reserve(&p, f + LEAD, LEAD),
	       "periodic: reserved from lead before the earliest arrival on time (period / 32 early) to lead after the forecast");
	tap_ok(gsp_predict_wake(&p, t, LEAD) == f - TOL - LEAD &&
	       gsp_predict_wake(&p, f - TOL - LEAD, LEAD) == f + LEAD &&
	       gsp_predict_wake(&p, f + LEAD, LEAD) == UINT64_MAX,
	       "periodic: wake-ups at the window's start and end, then none");
	/* The arrival comes: the next window is a period later. */
	gsp_predict_arrival(&p, f);
	tap_ok(!gsp_predict_reserve(&p, f + 1, LEAD) &&
	       gsp_predict_wake(&p, f + 1, LEAD) == f + 10 * MS - TOL - LEAD,
	       "periodic: the arrival ends the reservation; the next one starts a period on");
	tap_ok(gsp_predict_reserve(&p, f + 10 * MS - TOL - 2000, 2000) &&
	       !gsp_predict_reserve(&p, f + 10 * MS - TOL - 2001, 2000) &&
	       !gsp_predict_reserve(&p, f + 10 * MS + TOL, 2000),
	       "periodic: the lead is the caller's (2 us), the tolerance closes the window when longer");
	/* A lead longer than the period: reserved from each arrival on. */
	tap_ok(gsp_predict_reserve(&p, f, 20 * MS) &&
	       gsp_predict_reserve(&p, f + 10 * MS + 19 * MS, 20 * MS) &&
	       !gsp_predict_reserve(&p, f + 10 * MS + 20 * MS, 20 * MS),
	       "periodic: a lead above the period reserves from the arrival on, until lead after the forecast");
}

/*
 * @n arrivals of period @period with jitter: each arrival uniform in
 * +-@jit around its slot. Counts the arrivals (after the first 16) for
 * which a reservation stood just before them, and the total time
 * reserved, sampled every 10 us between arrivals.
 */
static void jittered(uint64_t period, double jit, int n, int *covered,
		     int *regular, double *reserved_frac)
{
	struct gsp_predict p;
	uint64_t t, prev = 0, on = 0, all = 0, s;
	int i;

	gsp_predict_reset(&p);
	*covered = 0;
	*regular = 0;
	for (i = 0; i < n; i++) {
		t = T0 + (uint64_t)i * period +
		    (uint64_t)((double)period * jit * (2 * unif() - 1) +
			       (double)period);
		if (i >= 16) {
			*covered += gsp_predict_reserve(&p, t - 1, LEAD);
			*regular += gsp_predict_regular(&p);
			for (s = prev; s < t; s += 10 * US) {
				on += gsp_predict_reserve(&p, s, LEAD);
				all++;
			}
		}
		gsp_predict_arrival(&p, t);
		prev = t;
	}
	*reserved_frac = all ? (double)on / (double)all : 0;
}

static void test_jittered(void)
{
	int covered, regular;
	double frac;

	jittered(10 * MS, 0.02, 216, &covered, &regular, &frac);
	tap_ok(regular == 200 && covered >= 196,
	       "jitter +-2%% of 10 ms: regular throughout, %d of 200 arrivals had a reservation standing",
	       covered);
	tap_ok(frac < 0.15,
	       "jitter +-2%%: reserved %.1f%% of the time (about lead + tolerance per period)",
	       100 * frac);
	jittered(10 * MS, 0.04, 216, &covered, &regular, &frac);
	tap_ok(regular >= 196 && covered >= 190,
	       "jitter +-4%% of 10 ms: regular in %d of 200, %d arrivals reserved ahead",
	       regular, covered);
	jittered(10 * MS, 0.3, 216, &covered, &regular, &frac);
	tap_ok(regular <= 10 && frac < 0.02,
	       "jitter +-30%%: irregular (%d of 200 regular), reserved %.1f%% of the time: reactive",
	       regular, 100 * frac);
}

static void test_poisson(void)
{
	struct gsp_predict p;
	uint64_t t = T0, s, iv;
	int i, regular = 0, reserved = 0, woke = 0;

	gsp_predict_reset(&p);
	for (i = 0; i < 2000; i++) {
		iv = (uint64_t)(-log(1 - unif()) * 10e6) + 1;
		for (s = t; s < t + iv; s += 50 * US)
			reserved += gsp_predict_reserve(&p, s, LEAD);
		woke += gsp_predict_wake(&p, t, LEAD) != UINT64_MAX;
		t += iv;
		gsp_predict_arrival(&p, t);
		regular += gsp_predict_regular(&p);
	}
	tap_ok(!regular && !reserved && !woke,
	       "Poisson, mean 10 ms, 2000 arrivals: never regular (%d), never reserved (%d), no wake-up (%d)",
	       regular, reserved, woke);
	gsp_predict_reset(&p);
	t = T0;
	for (i = 0; i < 2000; i++) {
		t += (uint64_t)(-log(1 - unif()) * 100e3) + 1;
		gsp_predict_arrival(&p, t);
		regular += gsp_predict_regular(&p);
	}
	tap_ok(!regular, "Poisson, mean 100 us: never regular (%d)", regular);
}

static int within_1pct(uint64_t a, uint64_t b)
{
	return (a > b ? a - b : b - a) <= b / 100;
}

/*
 * 40 arrivals @from apart, then @to apart: the arrivals until the forecast
 * is regular again at @to, or -1. *@wasted: reservations that stood and
 * ended before the arrival they were for.
 */
static int change(uint64_t from, uint64_t to, int *wasted)
{
	struct gsp_predict p;
	uint64_t t;
	int i;

	gsp_predict_reset(&p);
	gsp_predict_arrival(&p, T0);
	t = feed(&p, T0, from, 40);
	*wasted = 0;
	for (i = 1; i <= 40; i++) {
		*wasted += gsp_predict_regular(&p) &&
			   gsp_predict_wake(&p, t, LEAD) < t + to &&
			   !gsp_predict_reserve(&p, t + to - 1, LEAD);
		t = feed(&p, t, to, 1);
		if (gsp_predict_regular(&p) && within_1pct(p.period, to))
			return i;
	}
	return -1;
}

static void test_change(void)
{
	static const struct { uint64_t from, to; } c[] = {
		{ 10 * MS, 15 * MS }, { 10 * MS, 20 * MS }, { 10 * MS, 5 * MS },
		{ 10 * MS, 11 * MS }, { 20 * MS, 1 * MS },
	};
	unsigned int i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int wasted, n = change(c[i].from, c[i].to, &wasted);

		tap_ok(n > 0 && n <= GSP_PREDICT_MIN + GSP_PREDICT_ODD &&
		       wasted <= GSP_PREDICT_ODD,
		       "period %llu -> %llu us: regular at the new period after %d arrivals, %d reservations wasted",
		       (unsigned long long)(c[i].from / US),
		       (unsigned long long)(c[i].to / US), n, wasted);
	}
}

static void test_missed(void)
{
	struct gsp_predict p;
	uint64_t t, f;

	gsp_predict_reset(&p);
	gsp_predict_arrival(&p, T0);
	t = feed(&p, T0, 10 * MS, 20);
	f = t + 10 * MS;
	tap_ok(gsp_predict_reserve(&p, f, LEAD) &&
	       !gsp_predict_reserve(&p, f + LEAD, LEAD) &&
	       gsp_predict_wake(&p, f + LEAD, LEAD) == UINT64_MAX,
	       "missed arrival: the reservation ends lead after the forecast; no wake-up after that");
	tap_ok(!gsp_predict_reserve(&p, f + 10 * MS - LEAD, LEAD) &&
	       !gsp_predict_reserve(&p, f + 10 * MS, LEAD),
	       "missed arrival: nothing is reserved for the period after it: it waits for an arrival");
	gsp_predict_arrival(&p, t + 20 * MS);
	tap_ok(gsp_predict_regular(&p) && p.period == 10 * MS &&
	       gsp_predict_reserve(&p, t + 30 * MS - LEAD, LEAD),
	       "missed arrival: the late one (2 periods) counts as two: still regular, 10 ms, the next window on time");
	t = feed(&p, t + 20 * MS, 10 * MS, 3);
	gsp_predict_arrival(&p, t + 30 * MS);
	tap_ok(gsp_predict_regular(&p) && p.period == 10 * MS &&
	       gsp_predict_reserve(&p, t + 40 * MS, LEAD),
	       "two arrivals missed in a row: counted as three periods");
}

/* One arrival @shift ns off its slot, the next on time again. */
static void displaced(int64_t shift)
{
	struct gsp_predict p;
	uint64_t t;

	gsp_predict_reset(&p);
	gsp_predict_arrival(&p, T0);
	t = feed(&p, T0, 10 * MS, 20);
	gsp_predict_arrival(&p, t + (uint64_t)((int64_t)(10 * MS) + shift));
	gsp_predict_arrival(&p, t + 20 * MS);
	tap_ok(gsp_predict_regular(&p) && p.n == GSP_PREDICT_MIN &&
	       gsp_predict_reserve(&p, t + 30 * MS, LEAD),
	       "one arrival %lld us %s, the next on time: noise, not a new period (period %llu us)",
	       (long long)(shift < 0 ? -shift : shift) / 1000,
	       shift < 0 ? "early" : "late",
	       (unsigned long long)(p.period / US));
}

static void test_displaced(void)
{
	displaced(3 * MS);
	displaced(-3 * MS);
}

static void test_edges(void)
{
	struct gsp_predict p, q;
	uint64_t t;

	gsp_predict_reset(&p);
	gsp_predict_arrival(&p, 0);
	t = feed(&p, 0, 10 * MS, GSP_PREDICT_MIN);
	tap_ok(gsp_predict_regular(&p) && t == 80 * MS &&
	       gsp_predict_reserve(&p, 90 * MS - 1, LEAD),
	       "a first arrival at time 0 counts");
	q = p;
	gsp_predict_arrival(&p, t);
	tap_ok(!memcmp(&p, &q, sizeof(p)),
	       "a duplicate arrival is ignored");
	gsp_predict_arrival(&p, t - 3 * MS);
	tap_ok(!memcmp(&p, &q, sizeof(p)),
	       "an arrival before the last one is ignored");
	tap_ok(!gsp_predict_reserve(&p, t - 1, 20 * MS),
	       "a time before the last arrival reserves nothing");
	gsp_predict_arrival(&p, t + GSP_PREDICT_MAX_NS + 1);
	tap_ok(!gsp_predict_regular(&p) &&
	       gsp_predict_wake(&p, t, LEAD) == UINT64_MAX,
	       "a pause over 10 s restarts the history");
	t = feed(&p, t + GSP_PREDICT_MAX_NS + 1, 10 * MS, GSP_PREDICT_MIN);
	tap_ok(gsp_predict_regular(&p) && p.period == 10 * MS,
	       "... and %d intervals after it, regular again",
	       GSP_PREDICT_MIN);
	tap_ok(gsp_predict_reserve(&p, t + 10 * MS - TOL, 0) &&
	       !gsp_predict_reserve(&p, t + 10 * MS + TOL, 0) &&
	       gsp_predict_wake(&p, t, 0) == t + 10 * MS - TOL,
	       "lead 0: the window is the tolerance around the forecast");

	gsp_predict_reset(&p);
	gsp_predict_arrival(&p, UINT64_MAX - 200 * MS);
	t = feed(&p, UINT64_MAX - 200 * MS, 10 * MS, GSP_PREDICT_MIN + 4);
	tap_ok(gsp_predict_regular(&p) &&
	       gsp_predict_reserve(&p, t + 10 * MS - 1, LEAD) &&
	       gsp_predict_wake(&p, t, LEAD) == t + 10 * MS - TOL - LEAD,
	       "near the end of the clock: no overflow");
	t = feed(&p, t, 10 * MS, 7);
	gsp_predict_arrival(&p, UINT64_MAX - 5 * MS);
	tap_ok(gsp_predict_regular(&p) &&
	       gsp_predict_reserve(&p, UINT64_MAX - 1, 20 * MS) &&
	       gsp_predict_wake(&p, UINT64_MAX - 1, 20 * MS) == UINT64_MAX,
	       "a forecast past the end of the clock saturates");

	gsp_predict_reset(&p);
	gsp_predict_arrival(&p, T0);
	feed(&p, T0, 1, 20);
	tap_ok(gsp_predict_regular(&p) && p.period == 1,
	       "a period of 1 ns is a period");
}

/* The reservation on a board in memory. */

static struct gsp_board board __attribute__((aligned(GSP_BOARD_SIZE)));

static uint32_t nk(void)
{
	return GSP_BOARD_REQ_NK(gsp_board_load(&board.dev[0].part_req));
}

#define NK_ON	GSP_BOARD_REQ_NK(GSP_BOARD_REQ(8, 2, 0))

static void test_reserver(void)
{
	struct gsp_board_lc *s = &board.lc[3];
	struct gsp_reserver r;
	uint64_t t = T0, f, w, e;
	int i;

	memset(&board, 0, sizeof(board));
	board.predict_lead_ns = LEAD;
	board.lc_max_ns = 100 * MS;
	board.dev[0].part_n = 8;
	board.dev[0].part_k = 2;
	board.dev[0].protect = GSP_PROTECT_PREDICTIVE;
	s->owner = 7;
	gsp_reserver_init(&r, &board, 3, 0);
	for (i = 1; i <= 10; i++, t += 10 * MS)
		w = gsp_reserver_poll(&r, t, (uint64_t)i, t);
	t -= 10 * MS;
	f = t + 10 * MS;
	e = GSP_BOARD_REQ_EPOCH(board.dev[0].part_req);
	tap_ok(w == f - TOL - LEAD && !s->reserve && !nk(),
	       "reserver: 10 arrivals 10 ms apart: wake at forecast - tolerance - lead, nothing reserved yet");
	w = gsp_reserver_poll(&r, f - TOL - LEAD - 1, 10, t);
	tap_ok(w == f - TOL - LEAD && !s->reserve &&
	       GSP_BOARD_REQ_EPOCH(board.dev[0].part_req) == e,
	       "reserver: polled early: nothing changes, the request is not rewritten");
	w = gsp_reserver_poll(&r, f - TOL - LEAD, 10, t);
	tap_ok(w == f + LEAD && s->reserve == f - TOL - LEAD &&
	       nk() == NK_ON && gsp_board_lc_active(&board, 0, f - LEAD),
	       "reserver: at the window's start: reserve stamped, part_req (8, 2), BE sees LC work");
	/* The work arrives: inflight takes over, the reservation goes. */
	s->inflight = 1;
	gsp_board_part_update(&board, 0);
	w = gsp_reserver_poll(&r, f + 10 * US, 11, f);
	tap_ok(!s->reserve && nk() == NK_ON &&
	       w == f + 10 * MS - TOL - LEAD,
	       "reserver: the arrival drops the reservation; in flight keeps (8, 2)");
	s->inflight = 0;
	gsp_board_part_update(&board, 0);
	tap_ok(!nk(), "reserver: the work done: (0, 0)");
	/* Missed: raised, then dropped lead after the forecast. */
	f += 10 * MS;
	gsp_reserver_poll(&r, f - LEAD, 11, f - 10 * MS);
	tap_ok(s->reserve && nk() == NK_ON, "reserver: the next window: raised");
	w = gsp_reserver_poll(&r, f + LEAD, 11, f - 10 * MS);
	tap_ok(!s->reserve && !nk() && w == UINT64_MAX,
	       "reserver: no arrival by forecast + lead: dropped, (0, 0), no wake-up");
	/* The mode changes under a standing reservation. */
	gsp_reserver_poll(&r, f + 10 * MS, 12, f + 10 * MS);
	gsp_reserver_poll(&r, f + 20 * MS - LEAD, 12, f + 10 * MS);
	tap_ok(s->reserve && nk() == NK_ON, "reserver: raised again");
	board.dev[0].protect = GSP_PROTECT_REACTIVE;
	w = gsp_reserver_poll(&r, f + 20 * MS - LEAD + 1, 12, f + 10 * MS);
	gsp_board_part_update(&board, 0);
	tap_ok(!s->reserve && !nk() && w == UINT64_MAX,
	       "reserver: protect reactive: dropped, no wake-up");
	board.dev[0].protect = GSP_PROTECT_PREDICTIVE;
	w = gsp_reserver_poll(&r, f + 20 * MS - LEAD + 2, 12, f + 10 * MS);
	tap_ok(s->reserve && nk() == NK_ON && w == f + 20 * MS + LEAD,
	       "reserver: predictive again: raised again at once");
	gsp_reserver_drop(&r);
	tap_ok(!s->reserve && !nk(), "reserver: dropped at exit: (0, 0)");
	gsp_reserver_poll(&r, f + 30 * MS, 14, f + 30 * MS);
	tap_ok(!gsp_predict_regular(&r.p) && !s->reserve,
	       "reserver: two arrivals counted at once: the history restarts");
	board.predict_lead_ns = 0;
	tap_ok(gsp_reserver_poll(&r, f + 31 * MS, 14, f + 30 * MS) ==
	       UINT64_MAX && !s->reserve,
	       "reserver: a lead of 0 reserves nothing");
}

int main(void)
{
	test_periodic();
	test_jittered();
	test_poisson();
	test_change();
	test_missed();
	test_displaced();
	test_edges();
	test_reserver();
	return tap_done();
}
