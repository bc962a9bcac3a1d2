// SPDX-License-Identifier: GPL-2.0
/*
 * The STM planner (libgsp/plan/stm.c) alone, under ASan and UBSan: the
 * leaky bucket against the paper's lcm form and its window property, the
 * DRR estimator on the digest's Fig. 4/5 examples, the model's pieces by
 * hand, the heuristic's choices on pairs whose answer is known, and on
 * seeded random sets against sequential execution and the exhaustive
 * optimum of the same model.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stm.h"
#include "prng.h"
#include "tap.h"

#define M	16	/* an H100's 132 SMs in green-context groups of 8 */
#define PB	100.0	/* bandwidth, in any unit */
#define GB	1000.0

/* Random sets drawn for the comparisons with sequential and optimum. */
#define NSETS	150
/* STM's mean distance above the model's optimum that the test accepts. */
#define GAP_MEAN_MAX	0.05

static const struct gsp_stm_dev dev_drr = { M, PB, GB, GSP_STM_EST_DRR, 0 };

/*
 * A job of @w time on one unit of compute and @d bytes, whose bandwidth
 * grows by @per_unit with each unit up to @cap: it takes the longer of
 * its compute and its transfer time.
 */
static void job(struct gsp_stm_job *j, double w, double d, double per_unit,
		double cap, unsigned int tb)
{
	unsigned int m;

	memset(j, 0, sizeof(*j));
	for (m = 1; m <= GSP_STM_MAX_UNITS; m++) {
		double bw = fmin(m * per_unit, cap);

		j->r[m] = fmax(w / m, d / bw);
		j->b[m] = d / j->r[m];
	}
	j->tb = tb;
	j->g = 1;
}

static struct gsp_stm_phase phase2(unsigned int a, unsigned int ua,
				   unsigned int b, unsigned int ub)
{
	struct gsp_stm_phase c = { .n = 2 };

	c.a[0].job = a;
	c.a[0].units = ua;
	c.a[1].job = b;
	c.a[1].units = ub;
	return c;
}

static void test_init(void)
{
	struct gsp_stm_job j[2];
	struct gsp_stm_dev d = dev_drr;
	struct gsp_stm s;

	job(&j[0], 16, 0, 1, 1, 64);
	job(&j[1], 16, 0, 1, 1, 64);
	tap_ok(gsp_stm_init(&s, &d, j, 2) == 0, "init takes two valid jobs");
	gsp_stm_fini(&s);
	d.units = 0;
	tap_ok(gsp_stm_init(&s, &d, j, 2) == -EINVAL, "init: M = 0 is EINVAL");
	d = dev_drr;
	d.units = GSP_STM_MAX_UNITS + 1;
	tap_ok(gsp_stm_init(&s, &d, j, 2) == -EINVAL, "init: M too large is EINVAL");
	d = dev_drr;
	d.pb = 0;
	tap_ok(gsp_stm_init(&s, &d, j, 2) == -EINVAL, "init: Pb = 0 is EINVAL");
	tap_ok(gsp_stm_init(&s, &dev_drr, j, 0) == -EINVAL, "init: no jobs is EINVAL");
	j[1].r[5] = 0;
	tap_ok(gsp_stm_init(&s, &dev_drr, j, 2) == -EINVAL,
	       "init: a latency of 0 is EINVAL");
	job(&j[1], 16, 0, 1, 1, 0);
	tap_ok(gsp_stm_init(&s, &dev_drr, j, 2) == -EINVAL, "init: TB = 0 is EINVAL");
	job(&j[1], 16, 0, 1, 1, 64);
	j[1].g = GB * 2;
	tap_ok(gsp_stm_init(&s, &dev_drr, j, 2) == -EINVAL,
	       "init: a job larger than the memory is EINVAL");
}

/* The digest's reconstruction of Fig. 5: A on 1 of 3 SMs, 4 blocks; B on 2, 6. */
static void test_fig5(void)
{
	static const unsigned int want_kid[] = { 1, 0, 1, 1, 0, 1, 1, 0, 1, 0 };
	unsigned int units[] = { 1, 2 }, tb[] = { 4, 6 }, kid[10], blk[10];
	unsigned int seen[2] = { 0, 0 }, i, blk_ok = 1;
	long n = gsp_stm_leaky_order(2, units, NULL, tb, kid, NULL);
	static const unsigned int want_blk[] = { 0, 0, 1, 2, 1, 3, 4, 2, 5, 3 };

	for (i = 0; i < 10 && n == 10; i++) {
		blk[i] = seen[kid[i]]++;	/* mapBlk, as the host derives it */
		blk_ok &= blk[i] == want_blk[i];
	}
	tap_ok(n == 10 && !memcmp(kid, want_kid, sizeof(kid)),
	       "Fig. 5: mapKernel is B A B B A B B A B A");
	tap_ok(n == 10 && blk_ok, "Fig. 5: mapBlk is 0 0 1 2 1 3 4 2 5 3");
}

static unsigned long gcd(unsigned long a, unsigned long b)
{
	while (b) {
		unsigned long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The paper's integer bucket: capacity L / sm_i, L the lcm. */
static long lcm_order(unsigned int n, const unsigned int *units,
		      const unsigned int *tb, unsigned int *kid)
{
	unsigned long L = 1, level[8] = { 0 }, cap[8];
	unsigned int issued[8] = { 0 }, i;
	long pos = 0, total = 0;

	for (i = 0; i < n; i++) {
		L = L / gcd(L, units[i]) * units[i];
		total += tb[i];
	}
	for (i = 0; i < n; i++)
		cap[i] = L / units[i];
	while (pos < total)
		for (i = 0; i < n; i++) {
			if (issued[i] >= tb[i])
				continue;
			if (++level[i] >= cap[i]) {
				kid[pos++] = i;
				issued[i]++;
				level[i] = 0;
			}
		}
	return pos;
}

/*
 * Random allocations of 2 to 5 jobs: the order is the lcm bucket's, and
 * until the first job runs out, every window of time (between two due
 * times, up to 2S blocks long) gives each job its share within 1; so
 * does every window of consecutive blocks for 2 jobs. For 3 jobs or more
 * a window of blocks can stray further; its worst is reported.
 */
#define LK_TRIALS	60
#define LK_BLOCKS	2000

static void test_leaky(void)
{
	static unsigned int kid[LK_BLOCKS], ref[LK_BLOCKS], cum[5][LK_BLOCKS + 1];
	static double when[LK_BLOCKS], ts[LK_BLOCKS + 1];
	uint64_t rng = 0x5eed1eaf;
	double worst_t = 0, worst_blk2 = 0, worst_blkn = 0;
	int same = 1, t;

	for (t = 0; t < LK_TRIALS; t++) {
		unsigned int n = 2 + prng_next(&rng) % 4, units[5], tb[5], i, S = 0;
		double tend = INFINITY;
		long nb, b, e, p, w, k, q;

		for (i = 0; i < n; i++) {
			units[i] = 1 + prng_next(&rng) % 15;
			tb[i] = 50 + prng_next(&rng) % 300;
			S += units[i];
			tend = fmin(tend, (double)tb[i] / units[i]);
		}
		nb = gsp_stm_leaky_order(n, units, NULL, tb, kid, when);
		lcm_order(n, units, tb, ref);
		for (b = 0; b < nb; b++)
			same &= kid[b] == ref[b];
		/* ts[k]: the distinct due times up to tend, ts[0] = 0 */
		ts[0] = 0;
		for (i = 0; i < n; i++)
			cum[i][0] = 0;
		for (k = 0, e = 0; e < nb && when[e] <= tend; e++) {
			if (when[e] != ts[k]) {
				k++;
				ts[k] = when[e];
				for (i = 0; i < n; i++)
					cum[i][k] = cum[i][k - 1];
			}
			cum[kid[e]][k]++;
		}
		for (p = 0; p < k; p++)
			for (q = p + 1; q <= k && q <= p + 2 * (long)S; q++)
				for (i = 0; i < n; i++)
					worst_t = fmax(worst_t, fabs(cum[i][q] -
						cum[i][p] - (ts[q] - ts[p]) * units[i]));
		/* windows [p, p + w) of blocks, all due by tend */
		for (p = 0; p < e; p++) {
			unsigned int wc[5] = { 0 };

			for (w = 1; p + w <= e && w <= 2 * (long)S; w++) {
				wc[kid[p + w - 1]]++;
				for (i = 0; i < n; i++) {
					double d = fabs(wc[i] - (double)w * units[i] / S);

					if (n == 2)
						worst_blk2 = fmax(worst_blk2, d);
					else
						worst_blkn = fmax(worst_blkn, d);
				}
			}
		}
	}
	tap_ok(same, "leaky bucket: the order is the lcm bucket's");
	tap_ok(worst_t < 1, "leaky bucket: any window of time gives each job "
	       "its share within 1 (worst %.3f)", worst_t);
	tap_ok(worst_blk2 <= 1, "leaky bucket, 2 jobs: any window of blocks is "
	       "within 1 of the share (worst %.3f)", worst_blk2);
	tap_ok(worst_blkn < 3, "leaky bucket, 3-5 jobs: any window of blocks "
	       "is within 3 of the share (worst %.3f)", worst_blkn);
}

/* Fig. 4 on 4 units: equal block latencies, then B's twice A's. */
static void test_fig4(void)
{
	struct gsp_stm_dev d = { 4, PB, GB, GSP_STM_EST_DRR, 0 };
	struct gsp_stm_job j[2];
	struct gsp_stm_phase c = phase2(0, 2, 1, 2);
	struct gsp_stm s;

	job(&j[0], 4, 0, 1, 1, 4);	/* R[2] = 2: t = 1 per block */
	job(&j[1], 4, 0, 1, 1, 4);
	gsp_stm_init(&s, &d, j, 2);
	tap_ok(gsp_stm_drr(&s, &c) == 2, "Fig. 4, equal latencies: DRR of 2:2 "
	       "with 4 blocks each of time 1 is 2 (got %g)", gsp_stm_drr(&s, &c));
	gsp_stm_fini(&s);
	job(&j[1], 8, 0, 1, 1, 4);	/* R[2] = 4: t = 2 */
	gsp_stm_init(&s, &d, j, 2);
	/* A B A B fill; A2, B2 at 1; A3 at 2 (ends 3), B3 at 2 (ends 4) */
	tap_ok(gsp_stm_drr(&s, &c) == 4, "Fig. 4, unequal latencies: DRR is 4 "
	       "(got %g)", gsp_stm_drr(&s, &c));
	/* A done at 3 leaves its units to B: less than B alone on 2 units */
	tap_ok(gsp_stm_drr(&s, &c) <= j[1].r[2], "Fig. 4: B's tail uses A's units");
	gsp_stm_fini(&s);
}

static void test_model(void)
{
	struct gsp_stm_job j[3];
	struct gsp_stm_phase one = { .n = 1 }, c;
	struct gsp_stm_dev d = dev_drr;
	struct gsp_stm s;
	double v;

	job(&j[0], 32, 0, 1, 1, 64);		/* compute: R[m] = 32 / m */
	job(&j[1], 0, 800, 20, 60, 64);		/* memory: 60 at 3 units */
	job(&j[2], 0, 800, 20, 60, 64);
	gsp_stm_init(&s, &d, j, 3);
	one.a[0].job = 0;
	one.a[0].units = 8;
	tap_ok(fabs(gsp_stm_drr(&s, &one) - j[0].r[8]) < 1e-12,
	       "a lone job's DRR on m units is R[m] when m divides TB");
	tap_ok(fabs(gsp_stm_imp(&s, &one)) < 1e-12, "a lone job's imp is 0");
	c = phase2(1, 8, 2, 8);
	v = gsp_stm_penalty(&s, &c);
	tap_ok(fabs(v - 1.2) < 1e-12, "penalty: two jobs of 60 against Pb 100 "
	       "is 1.2 (got %g)", v);
	c = phase2(0, 4, 1, 4);
	v = gsp_stm_seq_lat(&s, &c);
	tap_ok(fabs(v - (j[0].r[8] + j[1].r[8])) < 1e-12,
	       "seq_lat of a configuration of 8 units sums R[8], not R[M]");
	gsp_stm_fini(&s);
	j[1].g = j[2].g = 600;
	gsp_stm_init(&s, &d, j, 3);
	c = phase2(1, 8, 2, 8);
	tap_ok(isinf(gsp_stm_con_lat(&s, &c)), "con_lat is inf when the "
	       "footprints exceed the memory");
	c = phase2(1, 8, 1, 8);
	tap_ok(isnan(gsp_stm_con_lat(&s, &c)), "a job twice in a phase is NAN");
	gsp_stm_fini(&s);
}

/* Plan @j (n jobs) under @d; returns the number of phases. */
static unsigned int plan(const struct gsp_stm_dev *d, const struct gsp_stm_job *j,
			 unsigned int n, struct gsp_stm_plan *p, char *txt)
{
	struct gsp_stm s;

	if (gsp_stm_init(&s, d, j, n))
		return 0;
	gsp_stm_plan(&s, p);
	gsp_stm_plan_str(p, NULL, txt, 256);
	gsp_stm_fini(&s);
	return p->nphases;
}

static void test_pairs(void)
{
	struct gsp_stm_dev pinned = dev_drr, comp = dev_drr;
	struct gsp_stm_job j[2];
	struct gsp_stm_plan p;
	char txt[256];

	pinned.est = GSP_STM_EST_PINNED;
	comp.compensate = 1;
	/* a streaming job at 90 % of Pb from 4 units, and a compute one */
	job(&j[0], 0, 900, 22.5, 90, 256);
	job(&j[1], 160, 0, 1, 1, 256);
	plan(&dev_drr, j, 2, &p, txt);
	tap_ok(p.nphases == 1 && p.total < j[0].r[M] + j[1].r[M],
	       "DRR: streaming + compute are co-scheduled (%s, %.3g < %.3g)", txt,
	       p.total, j[0].r[M] + j[1].r[M]);
	tap_ok(plan(&pinned, j, 2, &p, txt) == 1, "pinned: streaming + compute "
	       "are co-scheduled (%s)", txt);
	/* two jobs whose bandwidth stops at 40 % of Pb on 4 units */
	job(&j[0], 0, 400, 10, 40, 256);
	job(&j[1], 0, 400, 10, 40, 256);
	tap_ok(plan(&dev_drr, j, 2, &p, txt) == 1, "two jobs each bound at 40 %% "
	       "of Pb are co-scheduled (%s)", txt);
	/*
	 * Each saturates Pb from 4 units: the penalty takes all the gain of
	 * any split that holds to the end (pinned). DRR, compensated or not,
	 * runs the 1-unit job's tail on all 16 units at its 1-unit block
	 * time, whose bandwidth the penalty (B[1] + B[15]) never sees, so
	 * the model finds a gain that cannot exist (plan.rst, "Limits").
	 */
	job(&j[0], 0, 1000, 25, 100, 256);
	job(&j[1], 0, 1000, 25, 100, 256);
	tap_ok(plan(&pinned, j, 2, &p, txt) == 2, "pinned: two jobs each "
	       "saturating Pb run one after another (%s)", txt);
	plan(&dev_drr, j, 2, &p, txt);
	tap_ok(p.nphases == 1 && p.total < 2000 / PB, "DRR: the tail hides "
	       "bandwidth: two jobs each saturating Pb are co-scheduled "
	       "(%s, %.3g, below the bound %.3g)", txt, p.total, 2000 / PB);
	plan(&comp, j, 2, &p, txt);
	tap_diag("DRR, compensated: the same pair gives %s, %.3g", txt, p.total);
	/* linear scaling over the whole GPU: nothing to gain */
	job(&j[0], 160, 0, 1, 1, 256);
	job(&j[1], 96, 0, 1, 1, 256);
	tap_ok(plan(&dev_drr, j, 2, &p, txt) == 2, "DRR: two compute-bound "
	       "full-width jobs run one after another (%s)", txt);
	tap_ok(plan(&pinned, j, 2, &p, txt) == 2, "pinned: two compute-bound "
	       "full-width jobs run one after another (%s)", txt);
}

static void test_memory(void)
{
	struct gsp_stm_job j[4];
	struct gsp_stm_plan p;
	unsigned int i, k, ok = 1;
	char txt[256];

	/* complementary jobs, but only two fit in memory at once */
	job(&j[0], 0, 900, 22.5, 90, 128);
	job(&j[1], 160, 0, 1, 1, 128);
	job(&j[2], 0, 600, 20, 60, 128);
	job(&j[3], 120, 0, 1, 1, 128);
	for (i = 0; i < 4; i++)
		j[i].g = 0.4 * GB;
	plan(&dev_drr, j, 4, &p, txt);
	for (i = 0; i < p.nphases; i++) {
		double g = 0;

		for (k = 0; k < p.ph[i].n; k++)
			g += j[p.ph[i].a[k].job].g;
		ok &= g <= GB;
	}
	tap_ok(p.nphases >= 2 && ok, "memory: 4 jobs of 40 %% of the memory are "
	       "split into phases that fit (%s)", txt);
}

static void test_cost(void)
{
	struct gsp_stm_job j[2];
	struct gsp_stm_plan p;
	struct gsp_stm s;

	job(&j[0], 160, 0, 1, 1, 64);
	job(&j[1], 96, 0, 1, 1, 64);
	gsp_stm_init(&s, &dev_drr, j, 2);
	gsp_stm_plan(&s, &p);
	tap_ok(s.evals == M * (M - 1) / 2, "dp_select of 2 jobs makes M(M-1)/2 = "
	       "%d estimates (got %lu)", M * (M - 1) / 2, s.evals);
	gsp_stm_fini(&s);
}

/* A random job: compute-bound, streaming or between. */
static void random_job(uint64_t *rng, struct gsp_stm_job *j)
{
	double kind = prng_unif(rng), w = 20 + 200 * prng_unif(rng);
	double cap = PB * (0.3 + 0.7 * prng_unif(rng));
	double per = cap / (1 + 8 * prng_unif(rng));

	if (kind < 0.4)
		job(j, w, 0.2 * w, per, cap, 64);
	else if (kind < 0.8)
		job(j, 0.1 * w, 0.5 * w * cap / 4, per, cap, 64);
	else
		job(j, w, w * cap / 32, per, cap, 64);
	j->g = GB * 0.3 * prng_unif(rng);
}

static void test_random(const struct gsp_stm_dev *dev, const char *est)
{
	uint64_t rng = 0x57a7e1;
	double gap_sum = 0, gap_max = 0, imp_sum = 0;
	unsigned int t, never_worse = 1, above_opt = 1, cnt = 0;

	for (t = 0; t < NSETS; t++) {
		struct gsp_stm_job j[5];
		struct gsp_stm_plan p, o;
		struct gsp_stm s;
		unsigned int n = 2 + t % 4, i;
		double seq, gap;

		for (i = 0; i < n; i++)
			random_job(&rng, &j[i]);
		if (gsp_stm_init(&s, dev, j, n))
			continue;
		gsp_stm_plan(&s, &p);
		gsp_stm_optimum(&s, &o);
		seq = gsp_stm_sequential(&s);
		never_worse &= p.total <= seq * (1 + 1e-12);
		above_opt &= o.total <= p.total * (1 + 1e-12);
		gap = p.total / o.total - 1;
		gap_sum += gap;
		gap_max = fmax(gap_max, gap);
		imp_sum += 1 - p.total / seq;
		cnt++;
		gsp_stm_fini(&s);
	}
	tap_ok(cnt == NSETS, "random, %s: %u sets of 2-5 jobs planned", est, cnt);
	tap_ok(never_worse, "random, %s: STM is never worse than sequential "
	       "in the model", est);
	tap_ok(above_opt, "random, %s: the optimum is never worse than STM", est);
	tap_ok(gap_sum / cnt <= GAP_MEAN_MAX, "random, %s: STM is on average "
	       "within %.0f %% of the model's optimum (mean %.2f %%, worst "
	       "%.2f %%)", est, GAP_MEAN_MAX * 100, 100 * gap_sum / cnt,
	       100 * gap_max);
	tap_diag("random, %s: mean gap to optimum %.3f %%, worst %.3f %%, mean "
		 "latency reduction over sequential %.2f %%", est,
		 100 * gap_sum / cnt, 100 * gap_max, 100 * imp_sum / cnt);
}

static void test_str(void)
{
	static const char *const names[] = { "mm", "lbm", "nn" };
	struct gsp_stm_plan p = { .nphases = 2 };
	char buf[64], small[5];
	int n;

	p.ph[0] = phase2(0, 6, 1, 10);
	p.ph[1].n = 1;
	p.ph[1].a[0].job = 2;
	p.ph[1].a[0].units = 16;
	n = gsp_stm_plan_str(&p, names, buf, sizeof(buf));
	tap_ok(!strcmp(buf, "mm:6+lbm:10|nn:16") && n == 17,
	       "plan_str: mm:6+lbm:10|nn:16 (got %s)", buf);
	n = gsp_stm_plan_str(&p, NULL, small, sizeof(small));
	tap_ok(n == 13 && !strcmp(small, "0:6+"), "plan_str truncates like "
	       "snprintf and returns the length it needed (%d)", n);
}

int main(void)
{
	test_init();
	test_fig5();
	test_leaky();
	test_fig4();
	test_model();
	test_pairs();
	test_memory();
	test_cost();
	test_random(&dev_drr, "DRR");
	{
		struct gsp_stm_dev d = dev_drr;

		d.est = GSP_STM_EST_PINNED;
		test_random(&d, "pinned");
	}
	test_str();
	return tap_done();
}
