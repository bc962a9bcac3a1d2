// SPDX-License-Identifier: GPL-2.0
/* spmv: CSR sparse matrix times vector, one warp per row. */
#include "wl_common.cuh"

#define NB 256

struct spmv { int rows; size_t pad; int *rp, *col, *hrp, *hcol; float *val,
	      *x, *y, *hval, *hx; };

__global__ void __launch_bounds__(NB) spmv_kernel(int rows, const int *rp,
		const int *col, const float *val, const float *x, float *y)
{
	int row = (blockIdx.x * NB + threadIdx.x) >> 5, lane = threadIdx.x & 31;

	if (row >= rows)
		return;
	float acc = 0;

	for (int k = rp[row] + lane; k < rp[row + 1]; k += 32)
		acc += val[k] * x[col[k]];
	for (int o = 16; o > 0; o >>= 1)
		acc += __shfl_down_sync(0xffffffffu, acc, o);
	if (lane == 0)
		y[row] = acc;
}

static int spmv_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct spmv *m;
	size_t nnz;

	WL_ALLOC(m, 1);
	st->priv = m;
	m->pad = cfg->smem_pad;
	m->rows = cfg->small ? 3000 : 1 << 20;
	if (spmv_gen(m->rows, 17, &m->hrp, &m->hcol, &m->hval))
		return -1;
	nnz = (size_t)m->hrp[m->rows];
	WL_ALLOC(m->hx, m->rows);
	ref_fill(m->hx, m->rows, 18, -1, 1);
	if (wl_up(&m->rp, m->hrp, m->rows + 1) || wl_up(&m->col, m->hcol, nnz) ||
	    wl_up(&m->val, m->hval, nnz) || wl_up(&m->x, m->hx, m->rows) ||
	    wl_up(&m->y, (float *)NULL, m->rows))
		return -1;
	if (wl_allow_smem((const void *)spmv_kernel, m->pad))
		return -1;
	st->in_dev = m->val;
	st->in_bytes = nnz * sizeof(float);
	st->out_dev = m->y;
	st->out_bytes = m->rows * sizeof(float);
	st->work = 2.0 * nnz;
	st->main_kernel = (const void *)spmv_kernel;
	st->main_block = NB;
	return 0;
}

static int spmv_unit(struct wl_state *st, cudaStream_t s)
{
	struct spmv *m = (struct spmv *)st->priv;

	spmv_kernel<<<(unsigned)(((size_t)m->rows * 32 + NB - 1) / NB), NB,
		      m->pad, s>>>(m->rows, m->rp, m->col, m->val, m->x, m->y);
	CKL();
	return 0;
}

static int spmv_check(struct wl_state *st)
{
	struct spmv *m = (struct spmv *)st->priv;
	float *got, *want;
	int rc;

	WL_ALLOC(got, m->rows);
	WL_ALLOC(want, m->rows);
	if (spmv_unit(st, 0) || wl_down(got, m->y, m->rows))
		return -1;
	ref_spmv(m->rows, m->hrp, m->hcol, m->hval, m->hx, want);
	rc = wl_report("spmv", ref_relerr(got, want, m->rows), 1e-5);
	free(got);
	free(want);
	return rc;
}

static void spmv_teardown(struct wl_state *st)
{
	struct spmv *m = (struct spmv *)st->priv;

	if (!m)
		return;
	cudaFree(m->rp);
	cudaFree(m->col);
	cudaFree(m->val);
	cudaFree(m->x);
	cudaFree(m->y);
	free(m->hrp);
	free(m->hcol);
	free(m->hval);
	free(m->hx);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_spmv = { "spmv", "flop", spmv_setup, spmv_unit,
				spmv_check, spmv_teardown };
