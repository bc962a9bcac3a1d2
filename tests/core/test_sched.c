// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the scheduling core: parameters, FIFO, tenant order, LC
 * priority, work conservation, live policy switches.
 */
#include <string.h>

#include "sim.h"
#include "tap.h"

#define MS(x)	((u64)(x) * 1000000ULL)
#define US(x)	((u64)(x) * 1000ULL)

static struct gsp_sched s;

static void setup(u32 policy)
{
	struct gsp_params p;

	gsp_params_default(&p);
	p.policy = policy;
	gsp_sched_init(&s, &p, 0);
}

static void job_init(struct gsp_job *j, struct gsp_entity *e, u32 engine,
		     u64 cost)
{
	memset(j, 0, sizeof(*j));
	j->ent = e;
	j->engine = engine;
	j->cost_ns = cost;
}

static void test_params(void)
{
	struct gsp_params p;

	gsp_params_default(&p);
	tap_ok(p.policy == GSP_POLICY_FIFO && p.period_ns == MS(100) &&
	       p.band_wait_ns == US(500) && p.min_be_permille == 100 &&
	       !p.reorder && p.window == 8 && !gsp_params_validate(&p),
	       "defaults: fifo, 100 ms, 500 us, 100 permille, reorder off, w=8");
	p.policy = GSP_POLICY_COUNT;
	tap_ok(gsp_params_validate(&p) == -EINVAL, "bad policy rejected");
	gsp_params_default(&p);
	p.window = GSP_CUMAS_MAX_WINDOW + 1;
	tap_ok(gsp_params_validate(&p) == -EINVAL, "window 33 rejected");
	gsp_params_default(&p);
	p.band_wait_ns = p.period_ns;
	tap_ok(gsp_params_validate(&p) == -EINVAL,
	       "band_wait >= period rejected");
	gsp_params_default(&p);
	p.min_be_permille = 1001;
	tap_ok(gsp_params_validate(&p) == -EINVAL, "min_be 1001 rejected");
}

/* FIFO: 1:10 kernel lengths back to back give 1:10 shares (GPUvm C1). */
static void test_fifo_shares(void)
{
	static struct sim_cfg cfg;
	static struct sim_res res;
	char err[256];
	int rc;

	sim_cfg_default(&cfg);
	cfg.p.policy = GSP_POLICY_FIFO;
	cfg.duration_ns = MS(5000);
	cfg.warmup_ns = MS(500);
	cfg.nr_tenants = 2;
	snprintf(cfg.t[0].name, SIM_NAME_LEN, "short");
	cfg.t[0].kind = SIM_LOOP;
	cfg.t[0].weight = 100;
	cfg.t[0].kernel_ns = MS(1);
	cfg.t[1] = cfg.t[0];
	snprintf(cfg.t[1].name, SIM_NAME_LEN, "long");
	cfg.t[1].kernel_ns = MS(10);
	cfg.t[1].weight = 400;	/* FIFO ignores weights */
	rc = sim_run(&cfg, &res, err, sizeof(err));
	tap_diag("fifo 1:10 shares: short %.4f long %.4f (expect %.4f %.4f)",
		 res.t[0].share, res.t[1].share, 1 / 11.0, 10 / 11.0);
	tap_ok(!rc && res.t[0].share > 1 / 11.0 - 0.005 &&
	       res.t[0].share < 1 / 11.0 + 0.005 &&
	       res.t[1].share > 10 / 11.0 - 0.005,
	       "fifo: kernel lengths 1:10 back to back give shares 1:10 (+-0.5 pp)");
}

/* Picks among one engine's jobs follow arrival order under FIFO. */
static void test_fifo_order(void)
{
	struct gsp_entity a, b;
	struct gsp_job j[6], *got;
	u64 retry;
	int i, ok = 1;

	setup(GSP_POLICY_FIFO);
	gsp_entity_init(&a, 100, false);
	gsp_entity_init(&b, 1, false);
	gsp_sched_attach(&s, &a, 0);
	gsp_sched_attach(&s, &b, 0);
	for (i = 0; i < 6; i++) {
		job_init(&j[i], i % 3 ? &a : &b, GSP_ENGINE_COMPUTE, MS(1));
		gsp_sched_enqueue(&s, &j[i], i);
	}
	for (i = 0; i < 6; i++) {
		got = gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, 10 + i, &retry);
		if (got != &j[i])
			ok = 0;
		if (got)
			gsp_sched_complete(&s, got, MS(1), 10 + i);
	}
	tap_ok(ok && !gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, 20, &retry) &&
	       retry == 0, "fifo: global arrival order, then NULL with retry 0");
}

/* A tenant's own order is kept by every policy, across engines. */
static void test_tenant_order(void)
{
	struct gsp_entity e[3];
	struct gsp_job j[30], *got;
	u64 last[3][GSP_ENGINE_COUNT], retry, now = 0;
	int pol, i, ok = 1, n;

	for (pol = 0; pol < GSP_POLICY_COUNT; pol++) {
		setup(pol);
		for (i = 0; i < 3; i++) {
			gsp_entity_init(&e[i], 1 + i * 3, false);
			gsp_sched_attach(&s, &e[i], 0);
		}
		for (i = 0; i < 30; i++) {
			job_init(&j[i], &e[i % 3], i % GSP_ENGINE_COUNT,
				 US(100 + 37 * i));
			/* Tag: per-tenant index in cost's low bits. */
			gsp_sched_enqueue(&s, &j[i], now);
		}
		memset(last, 0, sizeof(last));
		for (n = 0; n < 30;) {
			for (i = 0; i < GSP_ENGINE_COUNT; i++) {
				got = gsp_sched_pick(&s, i, now, &retry);
				if (!got)
					continue;
				n++;
				if (got->seq + 1 <= last[got->ent - e][i])
					ok = 0;
				last[got->ent - e][i] = got->seq + 1;
				now += got->cost_ns;
				gsp_sched_complete(&s, got, got->cost_ns, now);
			}
			now += US(600);
		}
	}
	tap_ok(ok, "fifo, credit, band: each tenant's per-engine order kept");
}

/* A lone tenant with negative credit gets all of an idle engine. */
static void test_lone_negative(void)
{
	struct gsp_entity a;
	struct gsp_job j;
	u64 retry, now = 0, busy = 0, start;
	int pol, i, ok;

	for (pol = GSP_POLICY_CREDIT; pol <= GSP_POLICY_BAND; pol++) {
		setup(pol);
		gsp_entity_init(&a, 100, false);
		gsp_sched_attach(&s, &a, 0);
		now = 0;
		job_init(&j, &a, GSP_ENGINE_COMPUTE, MS(90));
		gsp_sched_enqueue(&s, &j, now);
		gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, now, &retry);
		now += MS(90) + MS(150);
		gsp_sched_complete(&s, &j, MS(240), now);
		ok = gsp_entity_credit_ns(&a, GSP_ENGINE_COMPUTE) < 0;
		start = now;
		busy = 0;
		for (i = 0; i < 1000 && ok; i++) {
			gsp_sched_enqueue(&s, &j, now);
			if (gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, now,
					   &retry) != &j || retry)
				ok = 0;
			now += US(700);
			busy += US(700);
			gsp_sched_complete(&s, &j, US(700), now);
		}
		tap_diag("%s: lone tenant in debt: busy %llu of %llu ns",
			 gsp_policy_names[pol], (unsigned long long)busy,
			 (unsigned long long)(now - start));
		tap_ok(ok && busy == now - start,
		       "%s: lone tenant with negative credit gets 100%% of the engine",
		       gsp_policy_names[pol]);
	}
}

/*
 * A long job charged as it runs: its owner's credit falls while the job
 * holds the engine, so the other tenant goes first once it ends.
 */
static void test_progress(void)
{
	struct gsp_entity a, b;
	struct gsp_job ja, ja2, jb, *got;
	u64 retry, now = 0;
	s64 credit;
	int pol, i, ok;

	for (pol = GSP_POLICY_CREDIT; pol <= GSP_POLICY_BAND; pol++) {
		setup(pol);
		gsp_entity_init(&a, 100, false);
		gsp_entity_init(&b, 100, false);
		gsp_sched_attach(&s, &a, 0);
		gsp_sched_attach(&s, &b, 0);
		now = 0;
		job_init(&ja, &a, GSP_ENGINE_COMPUTE, MS(2));
		job_init(&ja2, &a, GSP_ENGINE_COMPUTE, MS(2));
		job_init(&jb, &b, GSP_ENGINE_COMPUTE, MS(2));
		gsp_sched_enqueue(&s, &ja, now);
		ok = gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, now, &retry) == &ja;
		gsp_sched_enqueue(&s, &ja2, now);
		credit = gsp_entity_credit_ns(&a, GSP_ENGINE_COMPUTE);
		for (i = 0; i < 2; i++) {
			now += MS(40);
			gsp_sched_progress(&s, &ja, MS(40), now);
		}
		ok &= ja.state == GSP_JOB_RUNNING &&
		      gsp_entity_charged_ns(&a, GSP_ENGINE_COMPUTE) == MS(80) &&
		      gsp_engine_busy_ns(&s, GSP_ENGINE_COMPUTE) == MS(80) &&
		      gsp_entity_credit_ns(&a, GSP_ENGINE_COMPUTE) ==
			      credit - (s64)MS(80);
		/* B arrives while A's job still runs; A has one queued too. */
		gsp_sched_enqueue(&s, &jb, now);
		now += MS(1);
		gsp_sched_complete(&s, &ja, MS(1), now);
		ok &= gsp_entity_charged_ns(&a, GSP_ENGINE_COMPUTE) == MS(81);
		got = gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, now, &retry);
		ok &= got == &jb;
		if (got)
			gsp_sched_complete(&s, got, MS(1), now);
		now += MS(1);
		got = gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, now, &retry);
		ok &= got == &ja2;
		if (got)
			gsp_sched_complete(&s, got, MS(1), now);
		tap_ok(ok, "%s: a job charged as it runs takes its owner's credit before it ends, and the other tenant goes next",
		       gsp_policy_names[pol]);
	}
}

/* LC goes first; BE keeps min_be_permille while LC is ready. */
static void test_lc_priority(void)
{
	struct gsp_entity be, lc;
	struct gsp_job jb[4], jl, *got, *lcj;
	u64 retry, now = 0, lc_t = 0, be_t = 0;
	int pol, i, ok;

	for (pol = 0; pol < GSP_POLICY_COUNT; pol++) {
		setup(pol);
		gsp_entity_init(&be, 100, false);
		gsp_entity_init(&lc, 100, true);
		gsp_sched_attach(&s, &be, 0);
		gsp_sched_attach(&s, &lc, 0);
		for (i = 0; i < 4; i++) {
			job_init(&jb[i], &be, GSP_ENGINE_COMPUTE, MS(1));
			gsp_sched_enqueue(&s, &jb[i], 0);
		}
		job_init(&jl, &lc, GSP_ENGINE_COMPUTE, MS(1));
		gsp_sched_enqueue(&s, &jl, 1);
		got = gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, 2, &retry);
		tap_ok(got == &jl, "%s: LC job queued after BE jobs runs first",
		       gsp_policy_names[pol]);
		gsp_sched_complete(&s, got, MS(1), MS(1));
		for (i = 0; i < 4; i++) {
			got = gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, MS(1),
					     &retry);
			gsp_sched_complete(&s, got, MS(1), MS(1));
		}
	}

	/* Saturating LC against saturating BE: BE still gets >= 10%. */
	setup(GSP_POLICY_BAND);
	gsp_entity_init(&be, 100, false);
	gsp_entity_init(&lc, 100, true);
	gsp_sched_attach(&s, &be, 0);
	gsp_sched_attach(&s, &lc, 0);
	job_init(&jb[0], &be, GSP_ENGINE_COMPUTE, US(500));
	job_init(&jl, &lc, GSP_ENGINE_COMPUTE, US(500));
	gsp_sched_enqueue(&s, &jb[0], 0);
	gsp_sched_enqueue(&s, &jl, 0);
	ok = 1;
	for (i = 0; i < 20000; i++) {
		got = gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, now, &retry);
		if (!got) {
			ok = 0;
			break;
		}
		lcj = got == &jl ? got : NULL;
		now += US(500);
		gsp_sched_complete(&s, got, US(500), now);
		if (now > MS(1000)) {
			if (lcj)
				lc_t += US(500);
			else
				be_t += US(500);
		}
		gsp_sched_enqueue(&s, got, now);
	}
	tap_diag("saturated LC vs BE: BE share %.2f%% (min_be_permille 100)",
		 100.0 * be_t / (lc_t + be_t));
	tap_ok(ok && be_t * 1000 >= 95 * (lc_t + be_t) &&
	       be_t * 1000 <= 150 * (lc_t + be_t),
	       "min_be_permille 100: BE gets 9.5..15%% under saturating LC");
}

/* Policy switches with jobs queued and running lose nothing. */
static void test_live_switch(void)
{
	struct gsp_entity e[4];
	struct gsp_job j[40], *run = NULL;
	struct gsp_params p;
	u64 retry, now = 0, charged = 0, sum = 0;
	int i, n = 0, ok = 1;

	setup(GSP_POLICY_FIFO);
	for (i = 0; i < 4; i++) {
		gsp_entity_init(&e[i], 100 * (i + 1), i == 3);
		gsp_sched_attach(&s, &e[i], 0);
	}
	for (i = 0; i < 40; i++) {
		job_init(&j[i], &e[i % 4], GSP_ENGINE_COMPUTE, US(300));
		gsp_sched_enqueue(&s, &j[i], 0);
	}
	gsp_params_default(&p);
	while (n < 40) {
		if (!run) {
			run = gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, now, &retry);
			if (!run) {
				now = retry ? retry : now + US(100);
				if (!retry)
					ok = 0;
				continue;
			}
		}
		p.policy = (p.policy + 1) % GSP_POLICY_COUNT;
		p.reorder = n & 1;
		if (gsp_sched_set_params(&s, &p, now))
			ok = 0;
		now += US(300);
		gsp_sched_complete(&s, run, US(300), now);
		charged += US(300);
		run = NULL;
		n++;
	}
	for (i = 0; i < 4; i++)
		sum += gsp_entity_charged_ns(&e[i], GSP_ENGINE_COMPUTE);
	p.period_ns = 0;
	tap_ok(ok && gsp_engine_nr_queued(&s, GSP_ENGINE_COMPUTE) == 0 &&
	       sum == charged &&
	       gsp_engine_busy_ns(&s, GSP_ENGINE_COMPUTE) == charged &&
	       gsp_sched_set_params(&s, &p, now) == -EINVAL &&
	       s.p.policy == (u32)((40) % GSP_POLICY_COUNT),
	       "live policy switch every job: 40 jobs done, charged == busy, bad params refused");
}

/* Weights change live and move a tenant between classes. */
static void test_set_entity(void)
{
	struct gsp_entity a, b;
	struct gsp_job j[6], *got;
	struct gsp_params p;
	u64 retry;
	int i, ok = 1;


	setup(GSP_POLICY_CREDIT);
	gsp_params_default(&p);
	p.policy = GSP_POLICY_CREDIT;
	p.min_be_permille = 0;	/* pure priority for this check */
	gsp_sched_set_params(&s, &p, 0);
	gsp_entity_init(&a, 100, false);
	gsp_entity_init(&b, 100, false);
	gsp_sched_attach(&s, &a, 0);
	gsp_sched_attach(&s, &b, 0);
	for (i = 0; i < 6; i++) {
		job_init(&j[i], i < 3 ? &a : &b, GSP_ENGINE_COMPUTE, MS(1));
		gsp_sched_enqueue(&s, &j[i], i);
	}
	gsp_sched_set_entity(&s, &b, 300, true, 10);
	for (i = 3; i < 6; i++) {
		got = gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, 20, &retry);
		if (got != &j[i])
			ok = 0;
		if (got)
			gsp_sched_complete(&s, got, MS(1), 20);
	}
	tap_ok(ok && s.total_weight == 400 && b.weight == 300 && b.lc &&
	       s.class_weight[GSP_CLASS_BE] == 100 &&
	       s.class_weight[GSP_CLASS_LC] == 300,
	       "set_entity to LC with queued jobs: they run first, in order; class weights 100 BE, 300 LC");
	for (i = 0; i < 3; i++) {
		got = gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, 30, &retry);
		gsp_sched_complete(&s, got, MS(1), 30);
	}
	gsp_sched_detach(&s, &a, 40);
	gsp_sched_detach(&s, &b, 40);
	tap_ok(s.nr_entities == 0 && s.total_weight == 0 &&
	       !s.class_weight[GSP_CLASS_BE] && !s.class_weight[GSP_CLASS_LC] &&
	       s.eng[0].rq[GSP_CLASS_BE].active_weight == 0 &&
	       s.eng[0].rq[GSP_CLASS_LC].active_weight == 0,
	       "detach: no entity, weight sums back to 0");
}

/* Scenario files: errors name the file and line. */
static void test_scenario_errors(void)
{
	static struct sim_cfg cfg;
	char err[256];
	int rc;

	rc = sim_parse_string("x.sim", "policy band\n# ok\nbogus 3\n", &cfg,
			      err, sizeof(err));
	tap_ok(rc && strstr(err, "x.sim:3: unknown directive 'bogus'"),
	       "scenario: unknown directive reported at line 3 (%s)", err);
	rc = sim_parse_string("x.sim", "tenant a kind=loop kernel=2xs\n",
			      &cfg, err, sizeof(err));
	tap_ok(rc && strstr(err, "x.sim:1: kernel: '2xs' is not a time"),
	       "scenario: bad time reported at line 1 (%s)", err);
	rc = sim_parse_string("x.sim", "policy band\ntenant a kind=loop kernel=2ms weight=3\n",
			      &cfg, err, sizeof(err));
	tap_ok(!rc && cfg.nr_tenants == 1 && cfg.t[0].weight == 3 &&
	       cfg.t[0].kernel_ns == MS(2) && cfg.p.policy == GSP_POLICY_BAND,
	       "scenario: a valid file parses (1 tenant, weight 3, 2 ms)");
}

/*
 * BAND's pick against a scan of every tenant: the least used share of the
 * period among the ready tenants with credit, ties to the least recently
 * picked; round robin among the rest only when none has credit. 100
 * tenants of weights 1..7 with 10-12 us jobs, so keys spread and periods
 * (each a run queue rebuild) pass. No hold: band_wait 0.
 */
#define NBAND	100

static struct gsp_entity band_e[NBAND];
static struct gsp_job band_j[NBAND];

static u64 band_lp[NBAND];	/* last_pick before the pick */

/* Whether @a's key is below @b's (-1), equal (0) or above (1). */
static int band_cmp(const struct gsp_entity *a, const struct gsp_entity *b)
{
	const struct gsp_entity_engine *x = &a->eng[GSP_ENGINE_COMPUTE];
	const struct gsp_entity_engine *y = &b->eng[GSP_ENGINE_COMPUTE];
	u64 ka = x->period_used_ns * b->weight;
	u64 kb = y->period_used_ns * a->weight;
	u64 la = band_lp[a - band_e], lb = band_lp[b - band_e];

	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (la != lb)
		return la < lb ? -1 : 1;
	return 0;
}

static void test_band_order(void)
{
	u32 i, k, wrong = 0, checked = 0, periods;
	struct gsp_entity *best;
	struct gsp_params p;
	struct gsp_job *got;
	u64 now = 0, retry, gen0;

	gsp_params_default(&p);
	p.policy = GSP_POLICY_BAND;
	p.band_wait_ns = 0;
	gsp_sched_init(&s, &p, 0);
	for (i = 0; i < NBAND; i++) {
		gsp_entity_init(&band_e[i], 1 + i % 7, false);
		gsp_sched_attach(&s, &band_e[i], 0);
		job_init(&band_j[i], &band_e[i], GSP_ENGINE_COMPUTE, US(10));
		gsp_sched_enqueue(&s, &band_j[i], 0);
	}
	gen0 = s.eng[GSP_ENGINE_COMPUTE].gen;
	for (k = 0; k < 30000; k++) {
		best = NULL;
		for (i = 0; i < NBAND; i++) {
			struct gsp_entity *e = &band_e[i];

			band_lp[i] = e->eng[GSP_ENGINE_COMPUTE].last_pick;
			if (!e->eng[GSP_ENGINE_COMPUTE].nr_queued ||
			    e->eng[GSP_ENGINE_COMPUTE].credit_ns <= 0)
				continue;
			if (!best || band_cmp(e, best) < 0)
				best = e;
		}
		got = gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, now, &retry);
		if (!got)
			break;
		if (best) {
			checked++;
			wrong += got->ent != best && band_cmp(got->ent, best);
		}
		now += US(10);
		gsp_sched_complete(&s, got, US(10) + (k % 3) * US(1), now);
		gsp_sched_enqueue(&s, got, now);
	}
	periods = (u32)(s.eng[GSP_ENGINE_COMPUTE].gen - gen0);
	tap_ok(k == 30000 && !wrong && checked > 10000 && periods >= 2,
	       "band: every pick is the scan's least used share, ties to the least recent (%u of %u picks checked, %u wrong, %u periods)",
	       checked, k, wrong, periods);
	for (i = 0; i < NBAND; i++)
		gsp_sched_dequeue(&s, &band_j[i], now);
}

/*
 * From GSP_BAND_RING_ON tenants on, BAND's ring serves one whose key
 * (used share, scaled) is within one grain of the least. 1000 tenants:
 * the ring turns on, cancelling all but 10 jobs turns it off (every pick
 * exact again), and re-enqueueing turns it on; every 97th charge is 50x
 * longer, so keys also land above the ring; a live policy switch and
 * weight changes move tenants in and out.
 */
#define NRING	1000

static struct gsp_entity ring_e[NRING];
static struct gsp_job ring_j[NRING];

static u64 ring_key(const struct gsp_entity *e)
{
	return (e->eng[GSP_ENGINE_COMPUTE].period_used_ns <<
		GSP_BAND_KEY_SHIFT) / e->weight;
}

/* Runs @n decisions; counts picks beyond the grain (or, ring off, any). */
static u32 ring_run(u32 n, u64 *now, u32 *on, u32 *picks)
{
	struct gsp_band_rq *b = &s.eng[GSP_ENGINE_COMPUTE].rq[GSP_CLASS_BE].band;
	u32 i, k, bad = 0;
	struct gsp_entity *best;
	struct gsp_job *got;
	u64 retry, tol;

	for (k = 0; k < n; k++) {
		best = NULL;
		for (i = 0; i < NRING; i++) {
			struct gsp_entity *e = &ring_e[i];

			if (!e->eng[GSP_ENGINE_COMPUTE].nr_queued ||
			    e->eng[GSP_ENGINE_COMPUTE].credit_ns <= 0)
				continue;
			if (!best || ring_key(e) < ring_key(best))
				best = e;
		}
		tol = b->ring ? b->grain : 1;
		*on += b->ring;
		got = gsp_sched_pick(&s, GSP_ENGINE_COMPUTE, *now, &retry);
		if (!got)
			return bad + 1;
		(*picks)++;
		if (best && ring_key(got->ent) >= ring_key(best) + tol)
			bad++;
		*now += US(10);
		gsp_sched_complete(&s, got, (*picks % 97 ? US(10) : US(500)) +
				   (k % 3) * US(1), *now);
		gsp_sched_enqueue(&s, got, *now);
		if (!(*picks % 499))
			gsp_sched_set_entity(&s, got->ent, 1 + *picks % 5, false,
					     *now);
	}
	return bad;
}

static void test_band_ring(void)
{
	u32 i, bad, on = 0, picks = 0, on_a, on_b;
	struct gsp_params p;
	u64 now = 0;

	gsp_params_default(&p);
	p.policy = GSP_POLICY_BAND;
	p.band_wait_ns = 0;
	gsp_sched_init(&s, &p, 0);
	for (i = 0; i < NRING; i++) {
		gsp_entity_init(&ring_e[i], 1 + i % 7, false);
		gsp_sched_attach(&s, &ring_e[i], 0);
		job_init(&ring_j[i], &ring_e[i], GSP_ENGINE_COMPUTE, US(10));
		gsp_sched_enqueue(&s, &ring_j[i], 0);
	}
	bad = ring_run(7500, &now, &on, &picks);
	/* A live switch away and back rebuilds the ring. */
	p.policy = GSP_POLICY_CREDIT;
	gsp_sched_set_params(&s, &p, now);
	p.policy = GSP_POLICY_BAND;
	gsp_sched_set_params(&s, &p, now);
	bad += ring_run(7500, &now, &on, &picks);
	on_a = on;
	for (i = 10; i < NRING; i++)
		gsp_sched_dequeue(&s, &ring_j[i], now);
	bad += ring_run(3000, &now, &on, &picks);
	on_b = on - on_a;
	for (i = 10; i < NRING; i++)
		gsp_sched_enqueue(&s, &ring_j[i], now);
	bad += ring_run(15000, &now, &on, &picks);
	tap_ok(!bad && on_a > 10000 && !on_b && on - on_a > 10000,
	       "band ring: each of %u picks within one grain of the least used share (%u beyond), exact with the ring off; ring on for %u, %u and %u picks",
	       picks, bad, on_a, on_b, on - on_a);
	for (i = 0; i < NRING; i++)
		gsp_sched_dequeue(&s, &ring_j[i], now);
}

int main(void)
{
	test_params();
	test_scenario_errors();
	test_fifo_shares();
	test_fifo_order();
	test_tenant_order();
	test_lone_negative();
	test_progress();
	test_lc_priority();
	test_live_switch();
	test_set_entity();
	test_band_order();
	test_band_ring();
	return tap_done();
}
