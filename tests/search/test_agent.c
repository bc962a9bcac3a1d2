// SPDX-License-Identifier: GPL-2.0
/*
 * The partition agent (libgsp/search/agent.c) under ASan and UBSan:
 * invocations out of episodes (the hold, the cell change), the solo
 * reference and a target in ns, the search and the grid to done on a
 * simulated LC whose time grows as the BE keeps more of the GPU, the
 * model's pick, the fallback to ns without a model, and the restart
 * after a phase change.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "agent.h"
#include "tap.h"

#define N	132
#define SOLO	100000ULL	/* 100 us */
#define HOLD	200000ULL
#define GAP	2000000ULL	/* 2 ms between invocations */

static struct gsp_agent A;	/* about 280 KB: not on the stack */
static struct gsp_search_pred model[GSP_SEARCH_MAX_CELLS];
static double slowdown = 1;	/* the LC's phase: its time scale */
static unsigned int noisy;	/* invocations x 0.8, 1.3, 1.0 in turn */
static unsigned int tick;
static unsigned int guard_on;	/* the cfg's guard in init_tail() */

/*
 * The simulated LC: its time over solo grows with the slots the BE keeps
 * on the SMs the LC needs: 1 at the whole device, up to 4 with none.
 */
static double surface(struct gsp_cell c)
{
	double kept;

	if (!c.n || !c.k)
		return slowdown;
	kept = 1.0 - (double)c.n * c.k / (N * GSP_AGENT_K);
	return slowdown * (1.0 + 3.0 * kept * kept);
}

/* Runs invocations until done or @max; returns how many it ran. */
static unsigned int drive(uint64_t *now, unsigned int max)
{
	struct gsp_agent_rec rec;
	unsigned int i;
	uint64_t next;

	static const double noise[] = { 0.8, 1.3, 1.0 };

	for (i = 0; i < max; i++) {
		uint64_t t = (uint64_t)(SOLO * surface(A.cell) *
					(noisy ? noise[tick++ % 3] : 1.0));

		*now += GAP;
		gsp_agent_episode(&A, *now, *now + t, &rec);
		gsp_agent_poll(&A, *now + t + HOLD, 0, &rec, &next);
		*now += t;
		if (A.state == GSP_AGENT_DONE && i > GSP_AGENT_SOLO_N)
			return i + 1;
	}
	return i;
}

static int init_tail(enum gsp_agent_method m, double q, uint64_t target,
		     uint64_t solo, const struct gsp_search_pred *mod,
		     unsigned int tail)
{
	struct gsp_agent_cfg cfg = {
		.n_max = N, .method = m, .q = q, .target_ns = target,
		.solo_ns = solo, .hold_ns = HOLD, .model = mod, .tail = tail,
		.guard = guard_on,
	};

	slowdown = 1;
	tick = 0;
	return gsp_agent_init(&A, &cfg);
}

static int init(enum gsp_agent_method m, double q, uint64_t target,
		uint64_t solo, const struct gsp_search_pred *mod)
{
	return init_tail(m, q, target, solo, mod, 0);
}

static void test_invocations(void)
{
	struct gsp_agent_rec rec;
	uint64_t next;
	int r;

	tap_ok(!init(GSP_AGENT_NS, 2, 0, 0, NULL) && A.state == GSP_AGENT_IDLE,
	       "init: ns, q 2, solo to be measured");
	/* the tenant's first invocations (start-up) are never samples */
	gsp_agent_episode(&A, 10000, 300000, &rec);
	r = gsp_agent_poll(&A, 300000 + HOLD, 0, &rec, &next);
	gsp_agent_episode(&A, 550000, 650000, &rec);
	r &= gsp_agent_poll(&A, 650000 + HOLD, 0, &rec, &next);
	tap_ok(r && !rec.reported && !A.nsolo && !A.invocations &&
	       GSP_AGENT_WARM == 2,
	       "the first 2 invocations warm up: measured, not reported");
	/* two episodes 50 us apart: one invocation, measured after the hold */
	r = gsp_agent_episode(&A, 1000000, 1100000, &rec);
	r |= gsp_agent_episode(&A, 1150000, 1250000, &rec);
	tap_ok(!r && A.open && A.open_end == 1250000,
	       "episodes under the hold apart join one invocation");
	r = gsp_agent_poll(&A, 1300000, 0, &rec, &next);
	tap_ok(!r && next == 1250000 + HOLD, "not over before the hold: wake at its end");
	r = gsp_agent_poll(&A, 1460000, 1400000, &rec, &next);
	tap_ok(!r, "an episode begun within the hold keeps it open");
	r = gsp_agent_poll(&A, 1460000, 0, &rec, &next);
	tap_ok(r && rec.reported && rec.end_ns - rec.start_ns == 250000 &&
	       rec.state == GSP_AGENT_SOLO && A.nsolo == 1,
	       "over after the hold: measured, 250 us, a solo sample");
	/* an episode after the hold closes the one before */
	gsp_agent_episode(&A, 3000000, 3100000, &rec);
	r = gsp_agent_episode(&A, 3400000, 3500000, &rec);
	tap_ok(r && rec.start_ns == 3000000 && A.nsolo == 2 &&
	       A.open_start == 3400000,
	       "a new episode past the hold measures the invocation before");
	r = gsp_agent_poll(&A, 4000000, 0, &rec, &next);
	tap_ok(r && A.solo_ns == 100000 && A.state == GSP_AGENT_RUN &&
	       A.cell.n == N && A.cell.k == GSP_AGENT_K && A.q == 2,
	       "solo: median of 3 (100 us); ns starts at (N, K)");
	/* an invocation begun before the cell changed is not reported */
	A.cell_since = 5000000;
	gsp_agent_episode(&A, 4900000, 5100000, &rec);
	r = gsp_agent_poll(&A, 6000000, 0, &rec, &next);
	tap_ok(r && !rec.reported && A.invocations == 3,
	       "begun before the change: not reported");
}

static void test_target_and_errors(void)
{
	struct gsp_agent_cfg bad = { .n_max = N, .method = GSP_AGENT_NS,
				     .q = 2 };

	tap_ok(!init(GSP_AGENT_NS, 0, 300000, SOLO, NULL) && A.q == 3.0 &&
	       A.state == GSP_AGENT_RUN,
	       "a 300 us target over a 100 us solo: q 3, searching at once");
	bad.n_max = 8;
	tap_ok(gsp_agent_init(&A, &bad) == -EINVAL, "n_max under 11: -EINVAL");
	bad.n_max = N;
	bad.q = NAN;
	tap_ok(gsp_agent_init(&A, &bad) == -EINVAL, "no target, q NaN: -EINVAL");
	bad.q = 2;
	bad.method = GSP_AGENT_NR_METHODS;
	tap_ok(gsp_agent_init(&A, &bad) == -EINVAL, "an unknown method: -EINVAL");
	tap_ok(!init(GSP_AGENT_NN_SRS, 2, 0, SOLO, NULL) &&
	       A.running == GSP_AGENT_NS,
	       "nn_srs without a model runs ns");
}

/* The best cell meeting q by the credited BE rate: what grid must pick. */
static struct gsp_cell oracle(double q)
{
	struct gsp_cell best = { 0, 0 }, c;
	double be = -1;
	unsigned int i;

	for (i = 0; i < A.s.cols * A.s.rows; i++) {
		c = gsp_grid_cell(N, GSP_AGENT_K, A.s.cfg.n_step, 1, i);
		if (surface(c) <= q && gsp_agent_be_rate(&A, c) > be) {
			be = gsp_agent_be_rate(&A, c);
			best = c;
		}
	}
	return best;
}

static void test_search_and_grid(void)
{
	struct gsp_cell o;
	uint64_t now = 0;
	unsigned int n;

	init(GSP_AGENT_NS, 2, 0, 0, NULL);
	n = drive(&now, 2000);
	tap_ok(A.state == GSP_AGENT_DONE && surface(A.cell) <= 2 &&
	       A.s.cfg.n_step == 12 && A.s.cols == 11 && A.s.rows == 8,
	       "ns to done in %u invocations at (%u, %u), ratio %.2f <= 2, on 11 x 8 cells",
	       n, A.cell.n, A.cell.k, surface(A.cell));
	init(GSP_AGENT_GRID, 2, 0, SOLO, NULL);
	n = drive(&now, 2000);
	o = oracle(2);
	tap_ok(A.state == GSP_AGENT_DONE &&
	       n == 88 * GSP_AGENT_GRID_SAMPLES + GSP_AGENT_WARM &&
	       A.cell.n == o.n && A.cell.k == o.k,
	       "grid: every cell x %d samples (%u, with the warm-up), holds the best meeting q (%u, %u)",
	       GSP_AGENT_GRID_SAMPLES, n, o.n, o.k);
}

static void test_model_and_phase(void)
{
	struct gsp_agent_rec rec;
	unsigned int i, n;
	uint64_t now = 0, next;

	/* a model that is the surface itself: nn's pick is the oracle's */
	init(GSP_AGENT_NS, 2, 0, SOLO, NULL);
	for (i = 0; i < A.s.cols * A.s.rows; i++) {
		struct gsp_cell c = gsp_grid_cell(N, GSP_AGENT_K, 12, 1, i);

		model[i].lc_ratio = surface(c);
		model[i].be_rate = gsp_agent_be_rate(&A, c);
	}
	init(GSP_AGENT_NN, 2, 0, SOLO, model);
	tap_ok(A.state == GSP_AGENT_DONE && A.cell.n == oracle(2).n &&
	       A.cell.k == oracle(2).k,
	       "nn with a model: holds its pick (%u, %u) at once", A.cell.n,
	       A.cell.k);
	init(GSP_AGENT_NN_SRS, 2, 0, SOLO, model);
	n = drive(&now, 2000);
	tap_ok(A.state == GSP_AGENT_DONE && A.running == GSP_AGENT_NN_SRS &&
	       A.cell.n == oracle(2).n && A.cell.k == oracle(2).k && n <= 12,
	       "nn_srs with an exact model: the oracle's cell in %u invocations",
	       n);
	/* the LC becomes three times slower: over q, the search restarts */
	slowdown = 3;
	for (i = 0; i < GSP_AGENT_WATCH && A.restarts == 0; i++) {
		uint64_t t = (uint64_t)(SOLO * surface(A.cell));

		now += GAP;
		gsp_agent_episode(&A, now, now + t, &rec);
		gsp_agent_poll(&A, now + t + HOLD, 0, &rec, &next);
		now += t;
	}
	tap_ok(A.restarts == 1 && A.state == GSP_AGENT_RUN &&
	       A.violations_done >= GSP_AGENT_WATCH / 2,
	       "a phase change (3x slower): restart after %u results over q", i);
	n = drive(&now, 2000);
	tap_ok(A.state == GSP_AGENT_DONE && A.cell.n == N &&
	       A.cell.k == GSP_AGENT_K,
	       "after it: no cell meets q, the least LC ratio is the whole grid (%u, %u)",
	       A.cell.n, A.cell.k);
}

/*
 * The search's first sample was the LC's start-up, 10x slow at the whole
 * device: no cell meets q, the search holds the top. Once the held cell
 * meets q, the agent searches again, once, and holds a cell below it.
 */
static void test_retry(void)
{
	struct gsp_agent_rec rec;
	uint64_t now = 0, next;
	unsigned int i, n;

	init(GSP_AGENT_NS, 2, 0, SOLO, NULL);
	A.cfg.bound = 1;
	A.s.cfg.bound = 1;
	for (i = 0; i < 40 && A.state != GSP_AGENT_DONE; i++) {
		uint64_t t = (uint64_t)(SOLO * surface(A.cell) *
					(A.invocations ? 1 : 10));

		now += GAP;
		gsp_agent_episode(&A, now, now + t, &rec);
		gsp_agent_poll(&A, now + t + HOLD, 0, &rec, &next);
		now += t;
	}
	tap_ok(A.state == GSP_AGENT_DONE && A.chosen_lc > 2 &&
	       A.cell.n == N && A.cell.k == GSP_AGENT_K && !A.restarts,
	       "a 10x start-up sample: no cell meets q, the top held (%u invocations)",
	       i);
	for (n = 0; n < 200 && !(A.restarts && A.state == GSP_AGENT_DONE); n++)
		drive(&now, 1);
	tap_ok(A.restarts == 1 && A.retried && A.state == GSP_AGENT_DONE &&
	       A.chosen_lc <= 2 && A.cell.n * A.cell.k < N * GSP_AGENT_K,
	       "the top meets q after all: searched again once, holds (%u, %u) at %.2f (%u invocations)",
	       A.cell.n, A.cell.k, A.chosen_lc, n);
	for (n = 0; n < 100; n++)
		drive(&now, 1);
	tap_ok(A.restarts == 1 && A.state == GSP_AGENT_DONE,
	       "and stays: %u invocations later, %u restarts", n, A.restarts);
}

/*
 * The solo the agent times itself from the LC's start-up: its first 5
 * invocations (2 warm-up, 3 solo samples) at a tenth of a request. Every
 * cell then breaks q and the guard ends at the top; the top breaking q
 * times the solo again, once, and the search holds a cell below it.
 */
static void test_resolo(void)
{
	struct gsp_agent_rec rec;
	uint64_t now = 0, next;
	unsigned int i;

	init(GSP_AGENT_NS, 2, 0, 0, NULL);
	A.cfg.guard = 1;
	for (i = 0; i < 400 && !(A.resolo && A.state == GSP_AGENT_DONE); i++) {
		uint64_t t = (uint64_t)(SOLO * surface(A.cell) *
					(i < 5 ? 0.1 : 1.0));

		now += GAP;
		gsp_agent_episode(&A, now, now + t, &rec);
		gsp_agent_poll(&A, now + t + HOLD, 0, &rec, &next);
		now += t;
	}
	tap_ok(A.resolo && A.solo_ns == SOLO && A.state == GSP_AGENT_DONE &&
	       A.chosen_lc <= 2 && A.cell.n * A.cell.k < N * GSP_AGENT_K,
	       "a solo timed on start-up pieces: timed again once the top broke q, holds (%u, %u) at %.2f after %u invocations",
	       A.cell.n, A.cell.k, A.chosen_lc, i);
	for (i = 0; i < 100; i++)
		drive(&now, 1);
	tap_ok(A.resolo == 1 && A.solo_ns == SOLO && A.state == GSP_AGENT_DONE,
	       "and stays: solo %.0f us after 100 more", A.solo_ns / 1e3);
}

/*
 * A noisy LC (x 0.8, 1.3, 1.0 in turn): judged by its median, ns holds a
 * cell whose slow invocations break q; judged by its greatest sample,
 * one where even those meet it.
 */
static void test_tail(void)
{
	struct gsp_cell med, tail;
	uint64_t now = 0;
	unsigned int n;

	noisy = 1;
	init_tail(GSP_AGENT_NS, 2, 0, SOLO, NULL, 0);
	drive(&now, 4000);
	med = A.cell;
	init_tail(GSP_AGENT_NS, 2, 0, SOLO, NULL, 1);
	n = drive(&now, 4000);
	tail = A.cell;
	noisy = 0;
	tap_ok(A.state == GSP_AGENT_DONE && surface(tail) * 1.3 <= 2 &&
	       surface(med) * 1.3 > 2,
	       "noise: the median holds (%u, %u), slow runs at %.2f > 2; tail holds (%u, %u), %.2f, in %u invocations",
	       med.n, med.k, surface(med) * 1.3, tail.n, tail.k,
	       surface(tail) * 1.3, n);
	tap_ok(init_tail(GSP_AGENT_NS, 2, 0, SOLO, NULL, 2) == -EINVAL,
	       "tail 2: -EINVAL");
}

/* Runs @count invocations whatever the state; how many broke q. */
static unsigned int run(uint64_t *now, unsigned int count)
{
	static const double noise[] = { 0.8, 1.3, 1.0 };
	struct gsp_agent_rec rec;
	unsigned int i, over = 0;
	uint64_t next;

	for (i = 0; i < count; i++) {
		double r = surface(A.cell) * (noisy ? noise[tick++ % 3] : 1.0);
		uint64_t t = (uint64_t)(SOLO * r);

		*now += GAP;
		gsp_agent_episode(&A, *now, *now + t, &rec);
		gsp_agent_poll(&A, *now + t + HOLD, 0, &rec, &next);
		*now += t;
		over += r > 2;
	}
	return over;
}

static uint64_t slots(struct gsp_cell c)
{
	return c.n && c.k ? (uint64_t)c.n * c.k : (uint64_t)N * GSP_AGENT_K;
}

/*
 * A BE that leaves the LC alone for 48 requests, then for 2 takes every
 * slot it was not asked for: 30x the LC's time below the top row of the
 * grid. The search, run in a quiet stretch, holds a cell deep in the
 * grid; the first heavy request sends the held cell to the top, where
 * the LC's requests are all under q / 2 and restart nothing, and the
 * guard's probes back down cost 0.2 % of the requests.
 */
static void test_phased_be(uint64_t *now)
{
	struct gsp_agent_rec rec;
	unsigned int i, over = 0, deep;
	uint64_t next;

	init(GSP_AGENT_NS, 2, 0, SOLO, NULL);
	drive(now, 4000);
	deep = A.state == GSP_AGENT_DONE && A.cell.k < GSP_AGENT_K;
	for (i = 0; i < 6000; i++) {
		double r = 0.9 * surface(A.cell);	/* under q / 2 at the top */
		uint64_t t;

		if (i % 50 >= 48 && A.cell.k < GSP_AGENT_K)
			r *= 30;
		t = (uint64_t)(SOLO * r);
		*now += GAP;
		gsp_agent_episode(&A, *now, *now + t, &rec);
		gsp_agent_poll(&A, *now + t + HOLD, 0, &rec, &next);
		*now += t;
		over += r > 2;
	}
	tap_ok(deep && A.far_jumps >= 1 && !A.restarts && over <= 12,
	       "a phased BE: %u of 6000 requests over q (a fixed cell: 240), %u jumps to the top, %u restarts",
	       over, A.far_jumps, A.restarts);
}

/*
 * The guard: under noise the median's cell breaks q one request in
 * three; the guard steps toward the LC until none does, and steps back
 * to the chosen cell once the noise is gone.
 */
static void test_guard(void)
{
	struct gsp_cell chosen, held;
	unsigned int over, steps;
	uint64_t now = 0;

	noisy = 1;
	init(GSP_AGENT_NS, 2, 0, SOLO, NULL);
	drive(&now, 4000);
	chosen = A.cell;
	over = run(&now, 300);
	tap_ok(A.state == GSP_AGENT_DONE && A.cell.n == chosen.n &&
	       A.cell.k == chosen.k && over > 90 && !A.guard_moves,
	       "no guard: ns holds (%u, %u) and %u of 300 requests break q",
	       chosen.n, chosen.k, over);
	guard_on = 1;
	init(GSP_AGENT_NS, 2, 0, SOLO, NULL);
	drive(&now, 4000);
	tap_ok(A.state == GSP_AGENT_DONE && A.cell.n == chosen.n &&
	       A.cell.k == chosen.k && A.chosen.n == chosen.n,
	       "guard: the search's choice is the same (%u, %u)", chosen.n,
	       chosen.k);
	over = run(&now, 3000);
	held = A.cell;
	steps = A.guard_steps;
	tap_ok(A.state == GSP_AGENT_DONE && steps > 0 &&
	       slots(held) > slots(chosen) && over <= 30 &&
	       surface(held) * 1.3 <= 2 && A.guard_wait > GSP_AGENT_GUARD_CLEAN,
	       "guard: %u steps toward the LC to (%u, %u); %u of 3000 requests over q; probes every %u windows",
	       steps, held.n, held.k, over, A.guard_wait);
	over = run(&now, 2 * GSP_AGENT_GUARD_WAIT * GSP_AGENT_GUARD_WIN);
	tap_ok(A.state == GSP_AGENT_DONE && over <= 4 &&
	       A.guard_wait == GSP_AGENT_GUARD_WAIT,
	       "guard, settled: %u of %d requests over q (a probe every %d windows)",
	       over, 2 * GSP_AGENT_GUARD_WAIT * GSP_AGENT_GUARD_WIN,
	       GSP_AGENT_GUARD_WAIT);
	noisy = 0;
	run(&now, (steps + 1) * GSP_AGENT_GUARD_WAIT * GSP_AGENT_GUARD_WIN);
	tap_ok(A.state == GSP_AGENT_DONE && !A.guard_steps &&
	       A.cell.n == chosen.n && A.cell.k == chosen.k,
	       "guard: without the noise, back to the chosen cell (%u moves in all)",
	       A.guard_moves);
	/* a phase 1.5x slower: a tail, the guard climbs, no restart */
	noisy = 0;
	slowdown = 1.5;
	run(&now, 20 * GSP_AGENT_GUARD_WIN);
	tap_ok(A.state == GSP_AGENT_DONE && !A.restarts &&
	       surface(A.cell) <= 2 && slots(A.cell) > slots(chosen),
	       "guard, a phase 1.5x slower: climbs to (%u, %u), %.2f, no restart",
	       A.cell.n, A.cell.k, surface(A.cell));
	/*
	 * 5x slower: results over 3 q at the held cell; the guard jumps to
	 * the whole GPU at once and nothing restarts the search
	 */
	slowdown = 5;
	over = run(&now, 40 * GSP_AGENT_GUARD_WIN);
	tap_ok(A.state == GSP_AGENT_DONE && !A.restarts && A.far_jumps == 1 &&
	       A.cell.n == N && A.cell.k == GSP_AGENT_K,
	       "guard, a phase 5x slower: one jump to the whole GPU (%u, %u), no restart (%u)",
	       A.cell.n, A.cell.k, A.restarts);
	/* a BE that begins after the search: a median over 2 q restarts it */
	slowdown = 1;
	init(GSP_AGENT_NS, 2, 0, SOLO, NULL);
	drive(&now, 4000);
	slowdown = 3;
	run(&now, GSP_AGENT_WATCH + 2);
	tap_ok(A.restarts == 1,
	       "guard: results over 2 q below the top restart the search (%u)",
	       A.restarts);
	slowdown = 1;
	test_phased_be(&now);
	guard_on = 2;
	tap_ok(init(GSP_AGENT_NS, 2, 0, SOLO, NULL) == -EINVAL,
	       "guard 2: -EINVAL");
	guard_on = 0;
}

int main(void)
{
	test_invocations();
	test_target_and_errors();
	test_search_and_grid();
	test_model_and_phase();
	test_tail();
	test_retry();
	test_resolo();
	test_guard();
	return tap_done();
}
