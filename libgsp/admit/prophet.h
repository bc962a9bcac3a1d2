/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Prophet (Chen et al., ASPLOS '17): predict an LC service's latency
 * when batch applications share its GPU, from solo traces alone, and
 * admit the most batch instances that keep it within a target.
 * Documentation/admission.rst says every rule and every choice.
 *
 * The predictor replays the traces in an event-driven simulation:
 *  - kernels take free SMs (PEs) first come, first served, in waves of
 *    blocks_per_sm blocks per SM; every wave takes Solo_k of virtual
 *    time, and virtual time runs at 1 / s(t), s(t) = max(1, sum of the
 *    running waves' bw x PEs / dram_Bps) (the fluid model); Solo_k is
 *    calibrated so that the trace replayed alone gives its own dur_ns;
 *  - copies use one channel per direction: pinned (BE) copies run one
 *    at a time, in order, with priority; pageable (BS) ones share the
 *    channel evenly while no BE copy is running or waiting;
 *  - within an application tasks run one after another.
 *
 * Pure C: no I/O, no clock, no global state; it allocates only the
 * per-query latencies of the result. Memory is bounded by the number of
 * apps, SMs and LC queries, whatever the traces' lengths.
 */
#ifndef GSP_PROPHET_H
#define GSP_PROPHET_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

#define GSP_PROPHET_MAX_BE	64	/* batch apps of one prediction */
#define GSP_PROPHET_MAX_APPS	(GSP_PROPHET_MAX_BE + 1)
#define GSP_PROPHET_KMAX	15	/* the paper's K40 MPS limit, 16 - 1 */

enum gsp_prophet_model {
	GSP_PROPHET_FLUID,	/* concurrent kernels, the fluid model */
	GSP_PROPHET_SEQUENTIAL,	/* Eq. 1: one kernel at a time, FCFS */
	GSP_PROPHET_FLUID2,	/* fluid, plus cfg->query_ns per LC query */
};

/*
 * fluid2's per-query host overhead under MPS, ns: the mean over the six
 * kernel-only LCs of bench/results/2026-11-26-h200-prophet of their
 * measured solo mean under MPS minus their trace's solo replay (traced
 * without MPS). Fitted, not physical: Documentation/admission.rst gives
 * its held-out error.
 */
#define GSP_PROPHET_FLUID2_QUERY_NS	14403.0

struct gsp_prophet_cfg {
	enum gsp_prophet_model model;
	uint32_t be_pes;	/* fluid: SMs a batch app may hold, 0: all */
	/*
	 * The LC's first queries left out of its mean and p95 (a program's
	 * set-up and warm-up before its first synchronisation), < its
	 * queries.
	 */
	uint32_t skip;
	/*
	 * fluid2: host time added to every open-loop query after its last
	 * task (the MPS client's synchronisation, which a trace taken
	 * without MPS lacks): the query ends, and the next may start,
	 * query_ns later. >= 0; ignored by the other models.
	 */
	double query_ns;
};

/*
 * One application of gsp_prophet_run(). An open-loop app (batch = 0)
 * runs its trace once: query q is ready at offset_ns + its arrive_ns,
 * or when query q - 1 ends if that is later. A batch app runs closed
 * loop from task @start_task at offset_ns, back to back with its gaps,
 * wrapping to task 0, until every open-loop app is done.
 */
struct gsp_prophet_app {
	const struct gsp_trace *trace;
	int batch;
	double offset_ns;
	size_t start_task;
	uint32_t max_pes;	/* 0: all SMs (fluid model only) */
};

/* Called as each task ends (for tests and traces of the prediction). */
typedef void gsp_prophet_obs_fn(void *arg, unsigned int app, size_t task,
				double ready_ns, double end_ns);

struct gsp_prophet_result {
	/* App 0 (the LC): its queries' latencies, end - ready, ns. */
	double *lat_ns;			/* nq of them; allocated */
	size_t nq;
	double lc_mean_ns, lc_p95_ns;
	double lc_solo_mean_ns;		/* gsp_prophet_predict(): LC alone */
	double end_ns;			/* the last open-loop task's end */
	/* Per app: tasks done by end_ns, and per second of end_ns. */
	unsigned int napps;
	uint64_t tasks[GSP_PROPHET_MAX_APPS];
	double tasks_per_s[GSP_PROPHET_MAX_APPS];
	double iters_per_s[GSP_PROPHET_MAX_APPS];	/* tasks / trace */
	double be_tasks_per_s, be_iters_per_s;		/* batch apps' sums */
	uint64_t events;
};

/*
 * The simulation of @napps apps (1..GSP_PROPHET_MAX_APPS; app 0 open
 * loop). 0, or -EINVAL (bad arguments: no app, a batch trace that takes
 * no time, caps with the sequential model), -ENOMEM, or -EDOM if the
 * causality check failed (a bug: time went backwards). @obs may be
 * NULL. On success free @res with gsp_prophet_result_free().
 */
int gsp_prophet_run(const struct gsp_hw *hw,
		    const struct gsp_prophet_app *apps, unsigned int napps,
		    const struct gsp_prophet_cfg *cfg,
		    struct gsp_prophet_result *res,
		    gsp_prophet_obs_fn *obs, void *obs_arg);

/*
 * @lc with the @nbe batch traces @be (0..GSP_PROPHET_MAX_BE; the same
 * trace given k times is k instances: instance i of k starts at the
 * task where i/k of its solo period begins), cfg->be_pes applied to the
 * batch apps; also the LC alone, for lc_solo_mean_ns. @cfg NULL: fluid,
 * no cap.
 */
int gsp_prophet_predict(const struct gsp_hw *hw, const struct gsp_trace *lc,
			const struct gsp_trace *const *be, unsigned int nbe,
			const struct gsp_prophet_cfg *cfg,
			struct gsp_prophet_result *res);
void gsp_prophet_result_free(struct gsp_prophet_result *res);

/*
 * The QoS target: target_ns if not 0, else q x the LC's predicted solo
 * mean; then at most cap_ns if that is not 0. The paper's rule,
 * min(2 x solo, 100 ms), is q = 2, cap_ns = 100e6.
 */
struct gsp_prophet_target {
	double q;
	double target_ns;
	double cap_ns;
};

/* The target in ns for an LC of predicted solo mean @lc_solo_ns. */
double gsp_prophet_target_ns(const struct gsp_prophet_target *t,
			     double lc_solo_ns);
/* A predicted LC mean within @target_ns (k = 0 meets 1 x solo). */
int gsp_prophet_within(double lc_mean_ns, double target_ns);

struct gsp_prophet_admission {
	int k;			/* the largest k admitted; -1: not even 0 */
	unsigned int kmax;
	double lc_solo_ns, target_ns;
	double lc_mean_ns[GSP_PROPHET_MAX_BE + 1];	/* per k, 0..kmax */
	double be_tasks_per_s[GSP_PROPHET_MAX_BE + 1];
	int ok[GSP_PROPHET_MAX_BE + 1];
};

/*
 * Predicts @lc with k = 0..@kmax instances of @be (kmax at most
 * GSP_PROPHET_MAX_BE) and admits the largest k whose predicted LC mean
 * latency is within the target: every k is tried, the latency is not
 * assumed to grow with k. 0 or a negative errno as gsp_prophet_run().
 */
int gsp_prophet_admit(const struct gsp_hw *hw, const struct gsp_trace *lc,
		      const struct gsp_trace *be, unsigned int kmax,
		      const struct gsp_prophet_target *target,
		      const struct gsp_prophet_cfg *cfg,
		      struct gsp_prophet_admission *out);

#endif /* GSP_PROPHET_H */
