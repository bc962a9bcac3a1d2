// SPDX-License-Identifier: GPL-2.0
/*
 * Where an LC request ends (libgsp/search/boundary.c) under ASan and
 * UBSan: the split of the gaps alone (two kinds, one kind, host pauses,
 * a floor of 0), then the agent with learn_hold on a simulated
 * launch-bound LC whose requests come in pieces, against the fixed hold.
 */
#include <errno.h>
#include <string.h>

#include "agent.h"
#include "boundary.h"
#include "prng.h"
#include "tap.h"

#define US	1000ULL
#define MS	1000000ULL
#define FLOOR	(200 * US)

static struct gsp_agent A;	/* about 280 KB: not on the stack */
static unsigned int closed;	/* invocations measured, reported or not */

/* Feeds @n gaps from @g; returns the call's result for the last one. */
static int feed(struct gsp_boundary *b, const uint64_t *g, unsigned int n)
{
	unsigned int i;
	int r = 0;

	for (i = 0; i < n; i++)
		r = gsp_boundary_gap(b, g[i]);
	return r;
}

static void test_split(void)
{
	struct gsp_boundary b;
	uint64_t g[GSP_BOUNDARY_WIN];
	uint64_t seed = 7;
	unsigned int i;

	/* two kinds: 250-900 us inside requests, 3-4.5 ms between them */
	for (i = 0; i < GSP_BOUNDARY_WIN; i++)
		g[i] = i % 3 ? (3000 + prng_next(&seed) % 1500) * US :
			       (250 + prng_next(&seed) % 650) * US;
	gsp_boundary_init(&b, FLOOR, 1);
	tap_ok(!b.done && b.hold_ns == FLOOR, "learning: the floor until done");
	tap_ok(!feed(&b, g, GSP_BOUNDARY_FIRST - 1) && !b.done,
	       "not done before GSP_BOUNDARY_FIRST gaps");
	tap_ok(gsp_boundary_gap(&b, g[GSP_BOUNDARY_FIRST - 1]) == 1 && b.done,
	       "done at the %dth gap", GSP_BOUNDARY_FIRST);
	tap_ok(b.below_ns < 900 * US && b.above_ns >= 3 * MS &&
	       b.hold_ns > 900 * US && b.hold_ns < 3 * MS,
	       "two kinds: the hold between them (%.0f us)", b.hold_ns / 1e3);
	tap_ok(!feed(&b, g + GSP_BOUNDARY_FIRST,
		     GSP_BOUNDARY_WIN - GSP_BOUNDARY_FIRST) && !b.changes,
	       "more gaps of the same kinds: the hold stays");

	/* gaps under the floor are not looked at */
	gsp_boundary_init(&b, FLOOR, 1);
	for (i = 0; i < 100; i++)
		gsp_boundary_gap(&b, FLOOR - 1);
	tap_ok(!b.n && !b.done, "gaps under the floor: not counted");

	/* one kind, 2-6 ms: no split, the floor stays */
	seed = 11;
	for (i = 0; i < GSP_BOUNDARY_FIRST; i++)
		g[i] = (2000 + prng_next(&seed) % 4000) * US;
	gsp_boundary_init(&b, FLOOR, 1);
	feed(&b, g, GSP_BOUNDARY_FIRST);
	tap_ok(b.done && b.hold_ns == FLOOR && !b.above_ns,
	       "one kind of gap: no split, the hold stays the floor");

	/* five host pauses among them make no requests of ten */
	for (i = 0; i < 5; i++)
		g[3 + 4 * i] = (80 + i) * MS;
	gsp_boundary_init(&b, FLOOR, 1);
	feed(&b, g, GSP_BOUNDARY_FIRST);
	tap_ok(b.hold_ns == FLOOR,
	       "five pauses over 80 ms in %d gaps: under a quarter, no split",
	       GSP_BOUNDARY_FIRST);

	/* a gap in the gaps, but under GSP_BOUNDARY_RATIO */
	for (i = 0; i < GSP_BOUNDARY_FIRST; i++)
		g[i] = (i % 2 ? 1900 : 1000) * US;
	gsp_boundary_init(&b, FLOOR, 1);
	feed(&b, g, GSP_BOUNDARY_FIRST);
	tap_ok(b.hold_ns == FLOOR, "1.9x between the kinds: no split");
	for (i = 0; i < GSP_BOUNDARY_FIRST; i++)
		g[i] = (i % 2 ? 2100 : 1000) * US;
	gsp_boundary_init(&b, FLOOR, 1);
	feed(&b, g, GSP_BOUNDARY_FIRST);
	tap_ok(b.hold_ns > 1000 * US && b.hold_ns < 2100 * US,
	       "2.1x between the kinds: split (%.0f us)", b.hold_ns / 1e3);

	/* a floor of 0: zero gaps never divide */
	memset(g, 0, sizeof(g));
	for (i = 16; i < GSP_BOUNDARY_FIRST; i++)
		g[i] = 5 * MS;
	gsp_boundary_init(&b, 0, 1);
	feed(&b, g, GSP_BOUNDARY_FIRST);
	tap_ok(b.done && b.hold_ns == 0, "a floor of 0 and zero gaps: no split");

	/* learn 0: the floor, final at once */
	gsp_boundary_init(&b, FLOOR, 0);
	tap_ok(b.done && b.hold_ns == FLOOR && !gsp_boundary_gap(&b, MS) &&
	       !b.n, "learn 0: the floor, final at once");
}

/*
 * The first gaps came from the LC's start-up: 18 of 3-4 ms and 6 pauses
 * of 8-80 ms split over 4 ms, a hold that would join every later
 * request into one invocation. The window moves on and the hold with it.
 */
static void test_relearn(void)
{
	struct gsp_boundary b;
	uint64_t seed = 5;
	unsigned int i, r = 0, twos = 0;

	gsp_boundary_init(&b, FLOOR, 1);
	for (i = 0; i < GSP_BOUNDARY_FIRST; i++)
		r = gsp_boundary_gap(&b, i % 4 == 1 ?
				     (8 + prng_next(&seed) % 72) * MS :
				     (3000 + prng_next(&seed) % 1000) * US);
	tap_ok(r == 1 && b.hold_ns > 4 * MS,
	       "start-up pauses: the first hold %.0f us", b.hold_ns / 1e3);
	/* then requests every 10 ms, 3-4 ms apart, one gap in four inside */
	for (i = 0; i < 2 * GSP_BOUNDARY_WIN; i++)
		twos += gsp_boundary_gap(&b, i % 4 == 3 ?
					 (250 + prng_next(&seed) % 250) * US :
					 (3000 + prng_next(&seed) % 1000) * US) == 2;
	tap_ok(b.hold_ns > 500 * US && b.hold_ns < 3 * MS && twos == b.changes &&
	       b.changes >= 1 && b.changes <= 2,
	       "the window moved on: the hold %.0f us after %u changes",
	       b.hold_ns / 1e3, b.changes);
	/* rarer gaps inside requests now: no split, but nothing moves */
	for (i = 0; i < 2 * GSP_BOUNDARY_WIN; i++)
		twos += gsp_boundary_gap(&b, i % 24 == 3 ?
					 (250 + prng_next(&seed) % 250) * US :
					 (3000 + prng_next(&seed) % 1000) * US) == 2;
	tap_ok(b.hold_ns > 500 * US && b.hold_ns < 3 * MS && twos == b.changes,
	       "a rarer kind moves under an eighth of the window: the hold stays (%u changes)",
	       b.changes);
}

/*
 * A launch-bound LC: a request every 10 ms, 6 ms of work in 12 episodes;
 * most gaps inside it are 20-150 us, but one in two requests has one of
 * 300-800 us (the host fell behind). Returns the requests sent.
 */
static unsigned int serve(uint64_t *now, unsigned int requests,
			  uint64_t *seed)
{
	struct gsp_agent_rec rec;
	unsigned int r, e;
	uint64_t next;

	for (r = 0; r < requests; r++) {
		uint64_t t = *now, slow = prng_next(seed) % 2 ?
			       12 : prng_next(seed) % 12;

		for (e = 0; e < 12; e++) {
			uint64_t gap = e == slow ?
				       (300 + prng_next(seed) % 500) * US :
				       (20 + prng_next(seed) % 130) * US;

			if (e)
				t += gap;
			closed += gsp_agent_episode(&A, t, t + 400 * US, &rec);
			closed += gsp_agent_poll(&A, t + 400 * US, 0, &rec,
						 &next);
			t += 400 * US;
		}
		closed += gsp_agent_poll(&A, t + 3 * MS, 0, &rec, &next);
		*now += 10 * MS;
	}
	return requests;
}

static int init(unsigned int learn)
{
	struct gsp_agent_cfg cfg = {
		.n_max = 132, .method = GSP_AGENT_NS, .q = 2,
		.hold_ns = FLOOR, .learn_hold = learn,
	};

	return gsp_agent_init(&A, &cfg);
}

static void test_agent(void)
{
	uint64_t now = MS, seed = 3;
	unsigned int sent;

	tap_ok(init(2) == -EINVAL, "learn_hold 2: -EINVAL");

	/* the fixed hold: a request in two pieces one time in two */
	tap_ok(!init(0), "init: learn_hold 0");
	closed = 0;
	sent = serve(&now, 60, &seed);
	tap_ok(closed > sent + 15,
	       "fixed hold: %u invocations for %u requests (pieces)",
	       closed, sent);

	/* learned: one invocation per request after the learning */
	now = MS;
	seed = 3;
	tap_ok(!init(1) && !A.bnd.done, "init: learn_hold 1, learning");
	sent = serve(&now, 20, &seed);
	tap_ok(A.bnd.done && A.bnd.hold_ns > 800 * US &&
	       A.bnd.hold_ns < 4 * MS,
	       "learned after %u requests: the hold %.0f us, between the pieces' gaps and the requests'",
	       sent, A.bnd.hold_ns / 1e3);
	closed = 0;
	sent = serve(&now, 40, &seed);
	tap_ok(closed == sent, "learned: %u invocations for %u requests",
	       closed, sent);
	tap_ok(A.solo_ns > 5 * MS && A.solo_ns < 7 * MS,
	       "learned: solo %.0f us, a whole request's 5-7 ms",
	       A.solo_ns / 1e3);
}

static void test_no_report_while_learning(void)
{
	struct gsp_agent_rec rec;
	uint64_t t = MS, next;
	unsigned int i;
	int reported = 0;

	init(1);
	/* one kind of gap, 3 ms: 24 episodes make 23 gaps */
	for (i = 0; i < GSP_BOUNDARY_FIRST; i++) {
		gsp_agent_episode(&A, t, t + MS, &rec);
		if (gsp_agent_poll(&A, t + MS + FLOOR, 0, &rec, &next))
			reported |= rec.reported;
		t += 4 * MS;
	}
	tap_ok(!reported && !A.invocations && !A.bnd.done,
	       "while learning: measured, never reported");
	/* the 24th gap: no split, the floor; this invocation counts */
	gsp_agent_episode(&A, t, t + MS, &rec);
	tap_ok(A.bnd.done && A.bnd.hold_ns == FLOOR,
	       "learned at the 24th gap: no split, the floor");
	gsp_agent_poll(&A, t + MS + FLOOR, 0, &rec, &next);
	tap_ok(rec.reported && A.invocations == 1 &&
	       rec.state == GSP_AGENT_SOLO && A.nsolo == 1,
	       "after learning: reported, a solo sample");
}

/*
 * The agent when the hold moves: start-up gaps gave a hold that joins
 * requests; once the window has moved on, the solo it timed itself is
 * timed again, on whole requests (two 1 ms episodes 300 us apart).
 */
static void test_agent_moved(void)
{
	struct gsp_agent_rec rec;
	uint64_t t = MS, seed = 9, next;
	unsigned int i;

	init(1);
	for (i = 0; i < GSP_BOUNDARY_FIRST + 1; i++) {
		gsp_agent_episode(&A, t, t + 100 * US, &rec);
		t += 100 * US + (i % 4 == 1 ? (8 + prng_next(&seed) % 72) * MS :
				 (3000 + prng_next(&seed) % 1000) * US);
	}
	tap_ok(A.bnd.done && A.bnd.hold_ns > 4 * MS && !A.bnd.changes,
	       "start-up: a hold over 4 ms (%.0f us)", A.bnd.hold_ns / 1e3);
	for (i = 0; i < 200; i++) {
		gsp_agent_episode(&A, t, t + MS, &rec);
		gsp_agent_episode(&A, t + 1300 * US, t + 2300 * US, &rec);
		gsp_agent_poll(&A, t + 2300 * US + A.bnd.hold_ns, 0, &rec,
			       &next);
		t += 2300 * US + (3000 + prng_next(&seed) % 1000) * US;
	}
	tap_ok(A.bnd.changes >= 1 && A.bnd.hold_ns > 300 * US &&
	       A.bnd.hold_ns < 3 * MS,
	       "the window moved on: the hold %.0f us, %u changes",
	       A.bnd.hold_ns / 1e3, A.bnd.changes);
	tap_ok(A.solo_ns == 2300 * US && A.state != GSP_AGENT_IDLE,
	       "the solo timed again on whole requests: %.0f us",
	       A.solo_ns / 1e3);
}

int main(void)
{
	test_split();
	test_relearn();
	test_agent();
	test_no_report_while_learning();
	test_agent_moved();
	return tap_done();
}
