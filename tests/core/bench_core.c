// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of one scheduling decision vs tenant count: every tenant keeps one
 * job ready; one decision is pick + complete + re-enqueue. Simulated time
 * advances 10 us per job, so the 100 ms period (and its O(tenants)
 * replenish) comes around every 10000 decisions and is included,
 * amortised. Prints CSV.
 *
 * With --solver: the cost of one CuMAS window solve, the pick's heuristic
 * and the exact search, on seeded random windows (mean per run, and the
 * 99th percentile of single solves), and the heuristic's quality (optimum
 * over its makespan) on the same windows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gsp_core.h"

#define MAXN	10000

static struct gsp_sched s;
static struct gsp_entity ents[MAXN];
static struct gsp_job jobs[MAXN];

static u64 now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double run(u32 policy, bool cumas, u32 n, u32 iters)
{
	u32 engine = cumas ? GSP_ENGINE_H2D : GSP_ENGINE_COMPUTE, i;
	struct gsp_params p;
	struct gsp_job *j;
	u64 t = 0, retry, t0, t1;

	gsp_params_default(&p);
	p.policy = policy;
	p.reorder = cumas;
	gsp_sched_init(&s, &p, 0);
	for (i = 0; i < n; i++) {
		gsp_entity_init(&ents[i], 1 + i % 7, false);
		gsp_sched_attach(&s, &ents[i], 0);
		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].ent = &ents[i];
		jobs[i].engine = engine;
		jobs[i].cost_ns = 10000;
		if (cumas) {
			jobs[i].task_ns[GSP_ENGINE_H2D] = 1000 + i % 13 * 700;
			jobs[i].task_ns[GSP_ENGINE_COMPUTE] = 1000 + i % 7 * 900;
			jobs[i].task_ns[GSP_ENGINE_D2H] = 1000 + i % 5 * 1100;
		}
		gsp_sched_enqueue(&s, &jobs[i], 0);
	}
	t0 = now_mono();
	for (i = 0; i < iters; i++) {
		j = gsp_sched_pick(&s, engine, t, &retry);
		if (!j) {
			t = retry > t ? retry : t + 1;
			continue;
		}
		t += 10000;
		gsp_sched_complete(&s, j, 10000 + (i % 3) * 1000, t);
		gsp_sched_enqueue(&s, j, t);
	}
	t1 = now_mono();
	for (i = 0; i < n; i++)
		gsp_sched_dequeue(&s, &jobs[i], t);
	return (double)(t1 - t0) / iters;
}

#define NWIN	2000
#define NR(a)	(sizeof(a) / sizeof((a)[0]))

static struct gsp_cumas cm;
static struct gsp_task_cost wins[NWIN][GSP_CUMAS_MAX_WINDOW];
static u64 wfree[NWIN][3], wopt[NWIN];
static u64 rng = 0x9e3779b97f4a7c15ULL;

static u64 rnd(u64 n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (rng * 2685821657736338717ULL >> 11) % n;
}

/* Tasks of 1..100 us per stage; one in four is 4x longer on one stage. */
static void make_windows(u32 n)
{
	u32 k, i;

	for (k = 0; k < NWIN; k++) {
		for (i = 0; i < n; i++) {
			struct gsp_task_cost *t = &wins[k][i];

			t->s = 1000 * (1 + rnd(100));
			t->p = 1000 * (1 + rnd(100));
			t->r = 1000 * (1 + rnd(100));
			switch (rnd(4)) {
			case 0:
				t->s *= 4;
				break;
			case 1:
				t->p *= 4;
				break;
			case 2:
				t->r *= 4;
				break;
			default:
				break;
			}
		}
		wfree[k][0] = 0;
		wfree[k][1] = 1000 * rnd(200);
		wfree[k][2] = wfree[k][1] + 1000 * rnd(200);
	}
}

static double time_solver(bool exact, u32 n, double *qsum, double *qmin)
{
	u64 t0, t1, m;
	u32 k;

	*qsum = 0;
	*qmin = 1;
	t0 = now_mono();
	for (k = 0; k < NWIN; k++) {
		memcpy(cm.t, wins[k], n * sizeof(cm.t[0]));
		m = exact ? gsp_cumas_solve(&cm, n, wfree[k]) :
			    gsp_cumas_heuristic(&cm, n, wfree[k]);
		if (exact) {
			wopt[k] = m;
		} else if (wopt[k]) {
			*qsum += (double)wopt[k] / m;
			if ((double)wopt[k] / m < *qmin)
				*qmin = (double)wopt[k] / m;
		}
	}
	t1 = now_mono();
	return (double)(t1 - t0) / NWIN;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Each solve timed alone: the 99th percentile over the windows. */
static u64 p99_solver(bool exact, u32 n)
{
	static u64 t[NWIN];
	u64 t0;
	u32 k;

	for (k = 0; k < NWIN; k++) {
		memcpy(cm.t, wins[k], n * sizeof(cm.t[0]));
		t0 = now_mono();
		if (exact)
			gsp_cumas_solve(&cm, n, wfree[k]);
		else
			gsp_cumas_heuristic(&cm, n, wfree[k]);
		t[k] = now_mono() - t0;
	}
	qsort(t, NWIN, sizeof(t[0]), cmp_u64);
	return t[NWIN * 99 / 100];
}

static int bench_solver(void)
{
	static const u32 ws[] = { 4, 8, 10, 16, 32 };
	double r[5], qsum, qmin;
	u32 k, rep, pass;
	bool ex;

	printf("solver,window,ns_per_solve_median,ns_min,ns_max,windows,reps,quality_mean,quality_worst,ns_p99_one_solve\n");
	for (k = 0; k < NR(ws); k++) {
		make_windows(ws[k]);
		memset(wopt, 0, sizeof(wopt));
		/* Exact first: the heuristic's quality is measured against it. */
		for (pass = 0; pass < 2; pass++) {
			ex = !pass;
			if (ex && ws[k] > GSP_CUMAS_EXACT_MAX)
				continue;
			for (rep = 0; rep < 5; rep++)
				r[rep] = time_solver(ex, ws[k], &qsum, &qmin);
			qsort(r, 5, sizeof(r[0]), cmp);
			if (ex || ws[k] > GSP_CUMAS_EXACT_MAX)
				printf("%s,%u,%.1f,%.1f,%.1f,%u,5,,,%llu\n",
				       ex ? "exact" : "heuristic", ws[k], r[2],
				       r[0], r[4], NWIN,
				       (unsigned long long)p99_solver(ex, ws[k]));
			else
				printf("heuristic,%u,%.1f,%.1f,%.1f,%u,5,%.4f,%.4f,%llu\n",
				       ws[k], r[2], r[0], r[4], NWIN,
				       qsum / NWIN, qmin,
				       (unsigned long long)p99_solver(ex, ws[k]));
			fflush(stdout);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const u32 ns[] = { 1, 10, 100, 1000, 10000 };
	static const char *const names[] = { "fifo", "credit", "band",
					     "fifo+cumas-w8" };
	double r[5];
	u32 k, pol, rep;

	if (argc > 1 && !strcmp(argv[1], "--solver"))
		return bench_solver();
	printf("policy,tenants,ns_per_decision_median,ns_min,ns_max,decisions_per_rep,reps\n");
	for (pol = 0; pol < 4; pol++) {
		for (k = 0; k < NR(ns); k++) {
			u32 iters = 200000;

			for (rep = 0; rep < 5; rep++)
				r[rep] = run(pol == 3 ? GSP_POLICY_FIFO : pol,
					     pol == 3, ns[k], iters);
			qsort(r, 5, sizeof(r[0]), cmp);
			printf("%s,%u,%.1f,%.1f,%.1f,%u,5\n", names[pol], ns[k],
			       r[2], r[0], r[4], iters);
			fflush(stdout);
		}
	}
	return 0;
}
