/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gsp-sim: a deterministic discrete-event simulation of one device's three
 * engines driven by the real scheduling core (kmod/core). Simulated time
 * only; nothing here touches a GPU.
 */
#ifndef _GSP_SIM_H
#define _GSP_SIM_H

#include "gsp_core.h"

#define SIM_MAX_TENANTS		64
#define SIM_JOBS_PER_TENANT	16
#define SIM_NAME_LEN		32

enum sim_kind {
	SIM_LOOP,	/* closed loop: compute job, think, resubmit */
	SIM_LC,		/* periodic LC compute job, open loop */
	SIM_TASK,	/* closed loop: copy-in, compute, copy-out task, think */
};

struct sim_tenant_cfg {
	char name[SIM_NAME_LEN];
	enum sim_kind kind;
	u32 weight;
	bool lc;
	u64 kernel_ns;		/* LOOP, LC: compute job length */
	u64 think_ns;		/* LOOP, TASK: pause before resubmission */
	u64 period_ns;		/* LC: arrival period */
	u64 h2d_ns;		/* TASK */
	u64 d2h_ns;		/* TASK */
	u64 tasks;		/* TASK: how many (0: until the end) */
	u64 start_ns;		/* first submission */
	u32 jitter_permille;	/* job lengths vary by up to this much */
};

struct sim_cfg {
	struct gsp_params p;
	u64 duration_ns;
	u64 warmup_ns;		/* excluded from shares and fairness */
	u64 window_ns;		/* fairness window */
	u64 switch_ns;		/* added to a job run after another tenant's */
	u64 seed;
	u32 nr_tenants;
	struct sim_tenant_cfg t[SIM_MAX_TENANTS];
};

struct sim_tenant_res {
	u64 busy_ns[GSP_ENGINE_COUNT];	/* after warm-up */
	u64 charged_ns[GSP_ENGINE_COUNT];	/* core's ledger, whole run */
	u64 jobs;			/* completed, whole run */
	u64 tasks;			/* TASK: completed tasks */
	double share;			/* of COMPUTE busy time after warm-up */
	double fair;			/* weight share among BE loop tenants */
	u64 lat_p50_ns, lat_p99_ns, lat_max_ns;	/* LC: submit to done */
	u64 lat_n;
	u64 done_ns;			/* TASK: when its last task finished */
};

struct sim_res {
	struct sim_tenant_res t[SIM_MAX_TENANTS];
	u64 end_ns;
	u64 busy_ns[GSP_ENGINE_COUNT];
	u64 engine_busy_ns[GSP_ENGINE_COUNT];	/* core's ledger */
	u64 holds;			/* picks answered with a hold */
	u32 windows;			/* fairness windows after warm-up */
	double win_max_dev;		/* max |share - fair| over windows, pp */
	double win_mean_dev;		/* mean of per-window max, pp */
	u32 win_over2;			/* windows with a deviation > 2 pp */
	u64 makespan_ns;		/* TASK tenants with a task count */
};

/* Runs @cfg; 0 on success, else -EINVAL with a message in @err. */
int sim_run(const struct sim_cfg *cfg, struct sim_res *res, char *err,
	    size_t errlen);

void sim_cfg_default(struct sim_cfg *cfg);

/* Parses a scenario file; 0, or -1 with "file:line: message" in @err. */
int sim_parse_file(const char *path, struct sim_cfg *cfg, char *err,
		   size_t errlen);
int sim_parse_string(const char *name, const char *text, struct sim_cfg *cfg,
		     char *err, size_t errlen);

#endif /* _GSP_SIM_H */
