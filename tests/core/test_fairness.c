// SPDX-License-Identifier: GPL-2.0
/*
 * Fairness of CREDIT and BAND in simulation, GPUvm's pause pattern: every
 * tenant pauses 50 us between a completion and its next kernel. Short
 * tenants run 100 us kernels and long ones 1.5 ms (GPUvm's madd and
 * long-madd are 1:15), all +-10% jitter. Shares are of compute busy time
 * in 100 ms windows after a 1 s warm-up, as in GPUvm's Fig. 4.12.
 */
#include <string.h>

#include "sim.h"
#include "tap.h"

#define MS(x)	((u64)(x) * 1000000ULL)
#define US(x)	((u64)(x) * 1000ULL)

static struct sim_cfg cfg;
static struct sim_res res;

static void pause_cfg(u32 policy, u32 n, bool weighted, u64 band_wait)
{
	u32 i;

	sim_cfg_default(&cfg);
	cfg.p.policy = policy;
	cfg.p.band_wait_ns = band_wait;
	cfg.duration_ns = MS(10000);
	cfg.warmup_ns = MS(1000);
	cfg.window_ns = MS(100);
	cfg.seed = 42 + n;
	cfg.nr_tenants = n;
	for (i = 0; i < n; i++) {
		struct sim_tenant_cfg *t = &cfg.t[i];

		memset(t, 0, sizeof(*t));
		snprintf(t->name, SIM_NAME_LEN, "%s%u", i & 1 ? "long" : "short",
			 i);
		t->kind = SIM_LOOP;
		t->weight = weighted ? 1U << (i % 3) : 100;
		t->kernel_ns = i & 1 ? US(1500) : US(100);
		t->think_ns = US(50);
		t->jitter_permille = 100;
	}
}

static int run(void)
{
	char err[256];
	int rc = sim_run(&cfg, &res, err, sizeof(err));

	if (rc)
		tap_diag("sim: %s", err);
	return rc;
}

/* Sum of short tenants' shares vs their fair shares. */
static void short_shares(double *got, double *fair)
{
	u32 i;

	*got = 0;
	*fair = 0;
	for (i = 0; i < cfg.nr_tenants; i += 2) {
		*got += res.t[i].share;
		*fair += res.t[i].fair;
	}
}

static double max_total_dev(void)
{
	double m = 0, d;
	u32 i;

	for (i = 0; i < cfg.nr_tenants; i++) {
		d = res.t[i].share - res.t[i].fair;
		d = d < 0 ? -d : d;
		if (d > m)
			m = d;
	}
	return m * 100;
}

static void test_credit(void)
{
	static const u32 ns[] = { 2, 4, 8 };
	double got, fair;
	int rc, i;

	pause_cfg(GSP_POLICY_CREDIT, 2, false, US(500));
	rc = run();
	short_shares(&got, &fair);
	tap_diag("credit n=2: short share %.2f%% (fair %.0f%%)", got * 100,
		 fair * 100);
	tap_ok(!rc && got < 0.35,
	       "credit n=2 pause pattern: short tenant below 35%% (GPUvm's CREDIT unfairness)");

	for (i = 1; i < 3; i++) {
		pause_cfg(GSP_POLICY_CREDIT, ns[i], false, US(500));
		rc = run();
		tap_diag("credit n=%u equal weights: max |share-fair| %.2f pp, per-window max %.2f pp",
			 ns[i], max_total_dev(), res.win_max_dev);
		tap_ok(!rc && max_total_dev() < 10.0,
		       "credit n=%u equal weights: every share within 10 pp of 1/n (GPUvm: fair at 4 and 8)",
		       ns[i]);
	}
	pause_cfg(GSP_POLICY_CREDIT, 4, true, US(500));
	rc = run();
	tap_diag("credit n=4 weights 1:2:4: max |share-fair| %.2f pp",
		 max_total_dev());
	tap_ok(!rc && max_total_dev() > 5.0,
	       "credit n=4 weights 1:2:4: some share more than 5 pp off (weights not kept under the pause pattern)");
}

static void test_band(void)
{
	static const u32 ns[] = { 2, 4, 8 };
	int rc, i, wt;

	for (wt = 0; wt < 2; wt++) {
		for (i = 0; i < 3; i++) {
			pause_cfg(GSP_POLICY_BAND, ns[i], wt, US(500));
			rc = run();
			tap_diag("band n=%u %s: %u windows, worst |share-fair| %.2f pp, mean %.2f pp, whole run %.2f pp, holds %llu",
				 ns[i], wt ? "weights 1:2:4" : "equal weights",
				 res.windows, res.win_max_dev,
				 res.win_mean_dev, max_total_dev(),
				 (unsigned long long)res.holds);
			tap_ok(!rc && res.windows == 90 && res.win_over2 == 0 &&
			       res.win_max_dev <= 2.0,
			       "band n=%u %s: every 100 ms window after warm-up within +-2 pp of fair share",
			       ns[i], wt ? "weights 1:2:4" : "equal weights");
		}
	}
}

/* GPUvm C11: the hold is what fixes n=2; without it BAND acts as CREDIT. */
static void test_band_no_wait(void)
{
	double got, fair;
	int rc;

	pause_cfg(GSP_POLICY_BAND, 2, false, 0);
	rc = run();
	short_shares(&got, &fair);
	tap_diag("band n=2 band_wait 0: short share %.2f%%", got * 100);
	tap_ok(!rc && got < 0.35,
	       "band with band_wait 0, n=2: short below 35%% (the hold is what makes BAND fair)");
}

/* An LC job waits at most one BE job plus the BAND hold. */
static void test_lc_wait(void)
{
	u64 be_max = US(1500) * 1100 / 1000, lc_len = US(200), wait;
	u32 lc;
	int rc;

	pause_cfg(GSP_POLICY_BAND, 4, false, US(500));
	lc = cfg.nr_tenants++;
	memset(&cfg.t[lc], 0, sizeof(cfg.t[lc]));
	snprintf(cfg.t[lc].name, SIM_NAME_LEN, "lc");
	cfg.t[lc].kind = SIM_LC;
	cfg.t[lc].lc = true;
	cfg.t[lc].weight = 100;
	cfg.t[lc].kernel_ns = lc_len;
	cfg.t[lc].period_ns = US(7300);
	rc = run();
	wait = res.t[lc].lat_max_ns - lc_len;
	tap_diag("lc under band with 4 BE tenants: %llu jobs, latency p50 %.3f ms p99 %.3f ms max %.3f ms; max wait %.3f ms, bound %.3f ms",
		 (unsigned long long)res.t[lc].lat_n, res.t[lc].lat_p50_ns / 1e6,
		 res.t[lc].lat_p99_ns / 1e6, res.t[lc].lat_max_ns / 1e6,
		 wait / 1e6, (be_max + US(500)) / 1e6);
	tap_ok(!rc && res.t[lc].lat_n > 1000 && wait <= be_max + US(500),
	       "lc job waits at most one BE job (1.65 ms) plus band_wait (0.5 ms)");
	tap_ok(!rc && res.win_over2 == 0,
	       "band with lc load: be tenants within +-2 pp among themselves in every window (worst %.2f pp)",
	       res.win_max_dev);
}

int main(void)
{
	test_credit();
	test_band();
	test_band_no_wait();
	test_lc_wait();
	return tap_done();
}
