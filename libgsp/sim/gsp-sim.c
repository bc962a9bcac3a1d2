// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-sim SCENARIO_FILE: runs a scenario through the scheduling core in
 * simulated time and prints per-tenant shares, LC latency, per-window
 * fairness and the task makespan.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static const char *const kind_names[] = { "loop", "lc", "task" };

static double ms(u64 ns)
{
	return ns / 1e6;
}

int main(int argc, char **argv)
{
	static struct sim_cfg cfg;
	static struct sim_res res;
	char err[512];
	u32 i;

	if (argc != 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: gsp-sim SCENARIO_FILE\n"
			"Runs the gspace scheduling core in a discrete-event "
			"simulation (no GPU).\n");
		return argc == 2 ? 0 : 2;
	}
	if (sim_parse_file(argv[1], &cfg, err, sizeof(err))) {
		fprintf(stderr, "gsp-sim: %s\n", err);
		return 2;
	}
	if (sim_run(&cfg, &res, err, sizeof(err))) {
		fprintf(stderr, "gsp-sim: %s: %s\n", argv[1], err);
		return 1;
	}
	printf("SIMULATION (gsp-sim, simulated time, no GPU): %s\n", argv[1]);
	printf("policy %s, period %.3f ms, band_wait %.3f ms, reorder %s "
	       "(window %u), duration %.0f ms, warm-up %.0f ms, seed %llu\n",
	       gsp_policy_names[cfg.p.policy], ms(cfg.p.period_ns),
	       ms(cfg.p.band_wait_ns), cfg.p.reorder ? "on" : "off",
	       cfg.p.window, ms(cfg.duration_ns), ms(cfg.warmup_ns),
	       (unsigned long long)cfg.seed);
	printf("\n%-12s %-5s %6s %9s %9s %9s %10s %10s %10s\n", "tenant",
	       "kind", "weight", "share%", "fair%", "jobs", "lat_p50ms",
	       "lat_p99ms", "lat_maxms");
	for (i = 0; i < cfg.nr_tenants; i++) {
		const struct sim_tenant_cfg *c = &cfg.t[i];
		const struct sim_tenant_res *r = &res.t[i];

		printf("%-12s %-5s %6u %9.2f ", c->name, kind_names[c->kind],
		       c->weight, r->share * 100);
		if (r->fair > 0)
			printf("%9.2f ", r->fair * 100);
		else
			printf("%9s ", "-");
		printf("%9llu ", (unsigned long long)r->jobs);
		if (r->lat_n)
			printf("%10.3f %10.3f %10.3f\n", ms(r->lat_p50_ns),
			       ms(r->lat_p99_ns), ms(r->lat_max_ns));
		else
			printf("%10s %10s %10s\n", "-", "-", "-");
	}
	printf("\nengine busy after warm-up (ms): compute %.1f, h2d %.1f, "
	       "d2h %.1f; BAND holds %llu\n",
	       ms(res.busy_ns[GSP_ENGINE_COMPUTE]),
	       ms(res.busy_ns[GSP_ENGINE_H2D]),
	       ms(res.busy_ns[GSP_ENGINE_D2H]),
	       (unsigned long long)res.holds);
	if (res.windows)
		printf("fairness (BE loop tenants, compute, %.0f ms windows): "
		       "%u windows, max |share-fair| %.2f pp, mean of "
		       "per-window max %.2f pp, windows over 2 pp: %u\n",
		       ms(cfg.window_ns), res.windows, res.win_max_dev,
		       res.win_mean_dev, res.win_over2);
	if (res.makespan_ns)
		printf("makespan of all tasks: %.3f ms\n", ms(res.makespan_ns));
	return 0;
}
