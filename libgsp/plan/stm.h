/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Spatial-temporal multitasking (STM) after Liang et al., "Efficient GPU
 * Spatial-Temporal Multitasking" (TPDS 2015): a set of independent jobs is
 * split into phases that run one after another, and inside a phase each
 * job gets a number of allocation units (SMs in the paper; groups of SMs
 * here, since green contexts split an H100 in groups of 8).
 *
 * The model (Documentation/plan.rst says where each formula comes from
 * and every decision the paper left open):
 *
 *   t_i(m)      = R_i[m] * m / TB_i          one unit's time per block
 *   DRR(C)      the finish time of the last block when the blocks of C,
 *               in leaky-bucket order, go to the first free unit
 *   penalty(C)  = sum B_i[sm_i] / Pb if that exceeds Pb, else 1   (Eq. 3)
 *   con_lat(C)  = inf if sum G_i > Gb, else DRR(C) * penalty(C)   (Eq. 4)
 *   seq_lat(C)  = sum R_i[SM_C]                                   (Eq. 2)
 *   imp(C)      = seq_lat(C) - con_lat(C)                         (Eq. 1)
 *
 * gsp_stm_plan() is Algorithm 1 (greedy phases, each the dp_select of
 * exactly M units); gsp_stm_optimum() is Algorithms 2 and 3 over the same
 * model, for at most GSP_STM_OPT_MAX jobs. Pure C: no CUDA, no I/O, no
 * clock, no global state; the context owns its workspace (malloc in
 * gsp_stm_init()). Functions return 0 or a negative errno.
 */
#ifndef GSP_STM_H
#define GSP_STM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GSP_STM_MAX_UNITS	132	/* M: one unit per SM at most */
#define GSP_STM_MAX_JOBS	64
#define GSP_STM_MAX_TB		65536	/* blocks of one job, for DRR */
#define GSP_STM_OPT_MAX		6	/* jobs gsp_stm_optimum() takes */

/* How a phase's latency is estimated. */
enum gsp_stm_est {
	/*
	 * The paper's: dynamic round robin of the blocks over the phase's
	 * units; a job that finishes early leaves its units to the others.
	 */
	GSP_STM_EST_DRR,
	/*
	 * Hard partitions (green contexts): each job keeps its units to the
	 * end, so a phase lasts max_i R_i[sm_i]; an ablation.
	 */
	GSP_STM_EST_PINNED,
};

/* The profile of one job; index 0 of r[] and b[] is unused. */
struct gsp_stm_job {
	double r[GSP_STM_MAX_UNITS + 1];	/* latency on m units, > 0 */
	double b[GSP_STM_MAX_UNITS + 1];	/* achieved DRAM bandwidth, >= 0 */
	double g;				/* memory footprint, >= 0 */
	unsigned int tb;			/* blocks, 1..GSP_STM_MAX_TB */
};

struct gsp_stm_dev {
	unsigned int units;	/* M, 1..GSP_STM_MAX_UNITS */
	double pb;		/* peak (achievable) bandwidth, as b[], > 0 */
	double gb;		/* memory, as g, > 0 */
	enum gsp_stm_est est;
	/*
	 * Leaky bucket with latency compensation: interleave blocks in the
	 * ratio sm_i / t_i(sm_i) rather than sm_i (§3.4 of the digest).
	 * Off in the paper's runs as far as the text tells; off by default.
	 */
	int compensate;
};

struct gsp_stm_alloc {
	unsigned int job;	/* index into the jobs of gsp_stm_init() */
	unsigned int units;	/* >= 1 */
};

/* A configuration: jobs with their units, run together. */
struct gsp_stm_phase {
	unsigned int n;
	struct gsp_stm_alloc a[GSP_STM_MAX_JOBS];
	double est;		/* its estimated latency (plan, optimum) */
};

struct gsp_stm_plan {
	unsigned int nphases;
	struct gsp_stm_phase ph[GSP_STM_MAX_JOBS];
	double total;		/* sum of the phases' est */
};

struct gsp_stm {
	const struct gsp_stm_job *jobs;
	unsigned int njobs;
	struct gsp_stm_dev dev;
	unsigned long evals;	/* con_lat evaluations so far */
	/* workspace, sized for every job in one phase */
	unsigned int *kid;	/* leaky-bucket order: the job of each block */
	double *heap;		/* DRR: the units' free times */
	double *improve;	/* dp_select's table, njobs x (M + 1) */
	unsigned int *choice;	/* its back-pointers: units of row i's job */
};

/*
 * Checks @dev and @jobs (r > 0, b >= 0, g <= gb, tb in range) and sizes
 * the workspace. @jobs must outlive @s. -EINVAL on bad input, -ENOMEM.
 */
int gsp_stm_init(struct gsp_stm *s, const struct gsp_stm_dev *dev,
		 const struct gsp_stm_job *jobs, unsigned int njobs);
void gsp_stm_fini(struct gsp_stm *s);

/*
 * The leaky bucket's order of the blocks of @n jobs with allocations
 * @units and block counts @tb (or, if @w is not NULL, real weights
 * instead of @units): each virtual cycle every bucket gains a token, and
 * job i's bucket, of capacity 1 / w_i, emits one block when full, so its
 * k-th block comes at time k / w_i. Blocks due at the same time go in
 * index order. This is the paper's integer bucket (capacity L / sm_i, L
 * the lcm of the sm_i) without the lcm, and like it, keeps the rates
 * when a job runs out of blocks: the others go on at their own. Writes
 * kid[] (the job of each block, sum tb entries) and, if @when is not
 * NULL, the time each block was due. Returns the number of blocks, or
 * -EINVAL.
 */
long gsp_stm_leaky_order(unsigned int n, const unsigned int *units,
			 const double *w, const unsigned int *tb,
			 unsigned int *kid, double *when);

/* The model's pieces, for a phase @c of distinct jobs (est is ignored). */
double gsp_stm_drr(struct gsp_stm *s, const struct gsp_stm_phase *c);
double gsp_stm_penalty(const struct gsp_stm *s, const struct gsp_stm_phase *c);
double gsp_stm_con_lat(struct gsp_stm *s, const struct gsp_stm_phase *c);
double gsp_stm_seq_lat(const struct gsp_stm *s, const struct gsp_stm_phase *c);
double gsp_stm_imp(struct gsp_stm *s, const struct gsp_stm_phase *c);

/*
 * A phase's latency as a plan counts it: a lone job on all M units costs
 * R[M] (it runs alone, not through the estimator), any other con_lat.
 */
double gsp_stm_phase_lat(struct gsp_stm *s, const struct gsp_stm_phase *c);

/* Every job alone on all M units, one after another: sum R_i[M]. */
double gsp_stm_sequential(const struct gsp_stm *s);

/*
 * Algorithm 1 over all jobs, in index order (queue order: the first job
 * left seeds each phase). Each phase uses exactly M units.
 */
int gsp_stm_plan(struct gsp_stm *s, struct gsp_stm_plan *p);

/*
 * The model's optimum: every set partition of the jobs, every split of M
 * units among each phase's jobs. At most GSP_STM_OPT_MAX jobs, else
 * -E2BIG.
 */
int gsp_stm_optimum(struct gsp_stm *s, struct gsp_stm_plan *p);

/*
 * @p as text, phases split by '|' and jobs by '+', each NAME:UNITS, with
 * NAME from @names (or the job's index if NULL): "mm:6+lbm:10|nn:16".
 * Like snprintf, returns the length it needed.
 */
int gsp_stm_plan_str(const struct gsp_stm_plan *p, const char *const *names,
		     char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GSP_STM_H */
