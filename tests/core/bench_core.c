// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of one scheduling decision vs tenant count: every tenant keeps one
 * job ready; one decision is pick + complete + re-enqueue. Simulated time
 * advances 10 us per job, so the 100 ms period (and its O(tenants)
 * replenish) comes around every 10000 decisions and is included,
 * amortised. Prints CSV.
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

int main(void)
{
	static const u32 ns[] = { 1, 10, 100, 1000, 10000 };
	static const char *const names[] = { "fifo", "credit", "band",
					     "fifo+cumas-w8" };
	double r[5];
	u32 k, pol, rep;

	printf("policy,tenants,ns_per_decision_median,ns_min,ns_max,decisions_per_rep,reps\n");
	for (pol = 0; pol < 4; pol++) {
		for (k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
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
