// SPDX-License-Identifier: GPL-2.0
/*
 * pathfinder: row-by-row minimum-cost path DP. Each launch advances PYR
 * rows inside shared memory; a block computes NB - 2 * PYR valid columns
 * and recomputes a shrinking halo (ghost zone) on either side.
 */
#include "wl_common.cuh"
#include <limits.h>

#define NB 256
#define PYR 8

struct pf { int rows, cols; size_t pad; int *wall, *ba, *bb, *hw; int *out; };

__global__ void __launch_bounds__(NB) pf_kernel(int cols, const int *wall,
		int row0, int nrows, const int *src, int *dst)
{
	__shared__ int prev[NB], next[NB];
	int valid = NB - 2 * PYR, t = threadIdx.x;
	int c = blockIdx.x * valid - PYR + t;
	int in = c >= 0 && c < cols;

	prev[t] = in ? src[c] : INT_MAX;
	__syncthreads();
	for (int r = 0; r < nrows; r++) {
		int v = INT_MAX;

		if (in) {
			int m = prev[t];

			if (t > 0 && prev[t - 1] < m)
				m = prev[t - 1];
			if (t < NB - 1 && prev[t + 1] < m)
				m = prev[t + 1];
			v = wall[(size_t)(row0 + r) * cols + c] + m;
		}
		next[t] = v;
		__syncthreads();
		prev[t] = next[t];
		__syncthreads();
	}
	if (in && t >= PYR && t < NB - PYR)
		dst[c] = prev[t];
}

static int pf_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct pf *m;
	size_t n;
	uint64_t s = 14;

	WL_ALLOC(m, 1);
	st->priv = m;
	m->pad = cfg->smem_pad;
	m->rows = cfg->small ? 37 : 64;
	m->cols = cfg->small ? 1000 : 1 << 21;
	n = (size_t)m->rows * m->cols;
	WL_ALLOC(m->hw, n);
	for (size_t i = 0; i < n; i++)
		m->hw[i] = (int)(ref_rng(&s) % 10);
	if (wl_up(&m->wall, m->hw, n) || wl_up(&m->ba, (int *)NULL, m->cols) ||
	    wl_up(&m->bb, (int *)NULL, m->cols))
		return -1;
	if (wl_allow_smem((const void *)pf_kernel, m->pad))
		return -1;
	st->in_dev = m->wall;
	st->in_bytes = n * sizeof(int);
	st->out_dev = m->ba;
	st->out_bytes = m->cols * sizeof(int);
	st->work = (double)n;
	st->main_kernel = (const void *)pf_kernel;
	st->main_block = NB;
	return 0;
}

static int pf_run(struct pf *m, cudaStream_t s, int **res)
{
	int g = (m->cols + NB - 2 * PYR - 1) / (NB - 2 * PYR);
	const int *src = m->wall;	/* row 0 is the start */
	int *dst = m->ba;

	for (int r = 1; r < m->rows; r += PYR) {
		int k = m->rows - r < PYR ? m->rows - r : PYR;

		pf_kernel<<<g, NB, m->pad, s>>>(m->cols, m->wall, r, k, src, dst);
		src = dst;
		dst = dst == m->ba ? m->bb : m->ba;
	}
	CKL();
	if (res)
		*res = (int *)src;
	return 0;
}

static int pf_unit(struct wl_state *st, cudaStream_t s)
{
	return pf_run((struct pf *)st->priv, s, NULL);
}

static int pf_check(struct wl_state *st)
{
	struct pf *m = (struct pf *)st->priv;
	int *got, *want, *res, bad = 0;

	WL_ALLOC(got, m->cols);
	WL_ALLOC(want, m->cols);
	if (pf_run(m, 0, &res) || wl_down(got, res, m->cols))
		return -1;
	ref_pathfinder(m->rows, m->cols, m->hw, want);
	for (int c = 0; c < m->cols; c++)
		bad += got[c] != want[c];
	fprintf(stderr, "pathfinder: check %d of %d columns differ: %s\n", bad,
		m->cols, bad ? "FAIL" : "ok");
	free(got);
	free(want);
	return bad ? -1 : 0;
}

static void pf_teardown(struct wl_state *st)
{
	struct pf *m = (struct pf *)st->priv;

	if (!m)
		return;
	cudaFree(m->wall);
	cudaFree(m->ba);
	cudaFree(m->bb);
	free(m->hw);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_pathfinder = { "pathfinder", "cells", pf_setup, pf_unit,
				      pf_check, pf_teardown };
