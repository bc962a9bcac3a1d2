// SPDX-License-Identifier: GPL-2.0
/* mm: shared-memory tiled SGEMM, C = A * B, square n x n, row-major. */
#include "wl_common.cuh"

#define T 32

struct mm { int n; size_t pad; float *a, *b, *c, *ha, *hb; };

__global__ void __launch_bounds__(256) mm_kernel(int n, const float *a,
						 const float *b, float *c)
{
	__shared__ float as[T][T + 1], bs[T][T + 1];
	int tx = threadIdx.x, ty = threadIdx.y;	/* 32 x 8 */
	int row = blockIdx.y * T, col = blockIdx.x * T + tx;
	float acc[4] = { 0, 0, 0, 0 };

	for (int k0 = 0; k0 < n; k0 += T) {
		for (int r = ty; r < T; r += 8) {
			int ar = row + r, ac = k0 + tx, br = k0 + r;

			as[r][tx] = (ar < n && ac < n) ? a[(size_t)ar * n + ac] : 0.0f;
			bs[r][tx] = (br < n && col < n) ? b[(size_t)br * n + col] : 0.0f;
		}
		__syncthreads();
#pragma unroll 8
		for (int k = 0; k < T; k++) {
			float bv = bs[k][tx];
#pragma unroll
			for (int i = 0; i < 4; i++)
				acc[i] += as[ty + 8 * i][k] * bv;
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < 4; i++) {
		int r = row + ty + 8 * i;

		if (r < n && col < n)
			c[(size_t)r * n + col] = acc[i];
	}
}

static int mm_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct mm *m;
	size_t nn;

	WL_ALLOC(m, 1);
	st->priv = m;
	m->n = cfg->small ? 100 : 2048;
	m->pad = cfg->smem_pad;
	nn = (size_t)m->n * m->n;
	WL_ALLOC(m->ha, nn);
	WL_ALLOC(m->hb, nn);
	ref_fill(m->ha, nn, 1, -1, 1);
	ref_fill(m->hb, nn, 2, -1, 1);
	if (wl_up(&m->a, m->ha, nn) || wl_up(&m->b, m->hb, nn) ||
	    wl_up(&m->c, (float *)NULL, nn))
		return -1;
	if (wl_allow_smem((const void *)mm_kernel, m->pad))
		return -1;
	st->in_dev = m->a;
	st->in_bytes = nn * sizeof(float);
	st->out_dev = m->c;
	st->out_bytes = nn * sizeof(float);
	st->work = 2.0 * m->n * (double)m->n * m->n;
	st->main_kernel = (const void *)mm_kernel;
	st->main_block = 256;
	return 0;
}

static int mm_unit(struct wl_state *st, cudaStream_t s)
{
	struct mm *m = (struct mm *)st->priv;
	dim3 g((m->n + T - 1) / T, (m->n + T - 1) / T), b(T, 8);

	mm_kernel<<<g, b, m->pad, s>>>(m->n, m->a, m->b, m->c);
	CKL();
	return 0;
}

static int mm_check(struct wl_state *st)
{
	struct mm *m = (struct mm *)st->priv;
	size_t nn = (size_t)m->n * m->n;
	float *got, *want;
	int rc;

	WL_ALLOC(got, nn);
	WL_ALLOC(want, nn);
	if (mm_unit(st, 0) || wl_down(got, m->c, nn))
		return -1;
	ref_sgemm(m->n, m->n, m->n, m->ha, m->hb, want);
	rc = wl_report("mm", ref_relerr(got, want, nn), 1e-5);
	free(got);
	free(want);
	return rc;
}

static void mm_teardown(struct wl_state *st)
{
	struct mm *m = (struct mm *)st->priv;

	if (!m)
		return;
	cudaFree(m->a);
	cudaFree(m->b);
	cudaFree(m->c);
	free(m->ha);
	free(m->hb);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_mm = { "mm", "flop", mm_setup, mm_unit, mm_check,
			      mm_teardown };
