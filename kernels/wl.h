/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Common interface of the gspace benchmark workloads. Every workload (the
 * eleven application kernels, the micro-benchmark family, and stream and
 * fma, a bandwidth-bound and a compute-bound kernel for STM's saturating
 * sets) is hosted by one runner, gsp-wl, behind these four calls:
 *
 *   setup      allocate device memory, generate the input deterministically,
 *              upload it (small != 0: the small input of the CPU check)
 *   unit       enqueue one unit of work on a stream (asynchronous)
 *   check      compare the device result of one unit with the CPU reference
 *   teardown   free everything
 *
 * An LC request is one unit (plus optional copies); a BE runs units back to
 * back. A workload exposes its input and output buffers so that the runner
 * can add host<->device copies at a configurable ratio.
 */
#ifndef GSP_WL_H
#define GSP_WL_H

#include <stddef.h>
#include <cuda_runtime.h>

struct wl_cfg {
	int small;		/* 1: small input for the CPU check */
	size_t smem_pad;	/* extra dynamic shared memory per block */
	const char *arg;	/* workload argument (micro: stride:overlap:iters) */
};

struct wl_state {
	void *priv;
	void *in_dev;		/* input buffer (for the transfer ratio) */
	size_t in_bytes;
	void *out_dev;		/* output buffer */
	size_t out_bytes;
	double work;		/* work units per unit (flop, cells, ...) */
	const void *main_kernel;/* for the occupancy calibration */
	int main_block;		/* its block size */
	size_t main_dyn_smem;	/* its own dynamic shared memory */
};

struct wl_ops {
	const char *name;
	const char *work_name;	/* what wl_state.work counts */
	int (*setup)(struct wl_state *st, const struct wl_cfg *cfg);
	int (*unit)(struct wl_state *st, cudaStream_t s);
	int (*check)(struct wl_state *st);
	void (*teardown)(struct wl_state *st);
};

extern const struct wl_ops wl_mm, wl_nn, wl_cfd, wl_md, wl_bp, wl_lbm,
	wl_hotspot, wl_pathfinder, wl_streamcluster, wl_spmv, wl_lud, wl_micro,
	wl_stream, wl_fma;

#endif
