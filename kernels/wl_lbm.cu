// SPDX-License-Identifier: GPL-2.0
/*
 * lbm: lattice Boltzmann D3Q19, BGK collision, pull streaming, periodic
 * box, structure-of-arrays. One unit: two steps from the input lattice.
 */
#include "wl_common.cuh"

#define NBX 128
#define STEPS 2

struct lbm { int nx, ny, nz; size_t pad; float *f0, *fa, *fb, *h; };

__constant__ int dc[LBM_Q][3];
__constant__ float dw[LBM_Q];

__global__ void __launch_bounds__(NBX) lbm_kernel(int nx, int ny, int nz,
		float omega, const float *fin, float *fout)
{
	int x = blockIdx.x * NBX + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
	size_t nc = (size_t)nx * ny * nz, c = ((size_t)z * ny + y) * nx + x;
	float fl[LBM_Q], r = 0, u[3] = { 0, 0, 0 };

	if (x >= nx)
		return;
#pragma unroll
	for (int q = 0; q < LBM_Q; q++) {
		int sx = x - dc[q][0], sy = y - dc[q][1], sz = z - dc[q][2];

		sx += sx < 0 ? nx : (sx >= nx ? -nx : 0);
		sy += sy < 0 ? ny : (sy >= ny ? -ny : 0);
		sz += sz < 0 ? nz : (sz >= nz ? -nz : 0);
		fl[q] = fin[q * nc + ((size_t)sz * ny + sy) * nx + sx];
		r += fl[q];
		u[0] += fl[q] * dc[q][0];
		u[1] += fl[q] * dc[q][1];
		u[2] += fl[q] * dc[q][2];
	}
	float ir = 1.0f / r;

	u[0] *= ir;
	u[1] *= ir;
	u[2] *= ir;
	float uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
#pragma unroll
	for (int q = 0; q < LBM_Q; q++) {
		float cu = dc[q][0] * u[0] + dc[q][1] * u[1] + dc[q][2] * u[2];
		float feq = dw[q] * r * (1.0f + 3.0f * cu + 4.5f * cu * cu -
					 1.5f * uu);

		fout[q * nc + c] = fl[q] + omega * (feq - fl[q]);
	}
}

static int lbm_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct lbm *m;
	size_t n;

	WL_ALLOC(m, 1);
	st->priv = m;
	m->pad = cfg->smem_pad;
	if (cfg->small) {
		m->nx = 20;
		m->ny = 10;
		m->nz = 8;
	} else {
		m->nx = m->ny = m->nz = 128;
	}
	n = (size_t)LBM_Q * m->nx * m->ny * m->nz;
	WL_ALLOC(m->h, n);
	lbm_init(m->nx, m->ny, m->nz, m->h, 11);
	if (wl_up(&m->f0, m->h, n) || wl_up(&m->fa, (float *)NULL, n) ||
	    wl_up(&m->fb, (float *)NULL, n))
		return -1;
	CK(cudaMemcpyToSymbol(dc, lbm_c, sizeof(lbm_c)));
	CK(cudaMemcpyToSymbol(dw, lbm_w, sizeof(lbm_w)));
	if (wl_allow_smem((const void *)lbm_kernel, m->pad))
		return -1;
	st->in_dev = m->f0;
	st->in_bytes = n * sizeof(float);
	st->out_dev = m->fb;
	st->out_bytes = n * sizeof(float);
	st->work = (double)m->nx * m->ny * m->nz * STEPS;
	st->main_kernel = (const void *)lbm_kernel;
	st->main_block = NBX;
	return 0;
}

static int lbm_unit(struct wl_state *st, cudaStream_t s)
{
	struct lbm *m = (struct lbm *)st->priv;
	dim3 g((m->nx + NBX - 1) / NBX, m->ny, m->nz);
	const float *src = m->f0;
	float *dst = m->fa;

	for (int i = 0; i < STEPS; i++) {
		lbm_kernel<<<g, NBX, m->pad, s>>>(m->nx, m->ny, m->nz, LBM_OMEGA,
						  src, dst);
		src = dst;
		dst = dst == m->fa ? m->fb : m->fa;
	}
	CKL();
	return 0;
}

static int lbm_check(struct wl_state *st)
{
	struct lbm *m = (struct lbm *)st->priv;
	size_t n = (size_t)LBM_Q * m->nx * m->ny * m->nz;
	float *got, *a, *b;
	int rc;

	WL_ALLOC(got, n);
	WL_ALLOC(a, n);
	WL_ALLOC(b, n);
	if (lbm_unit(st, 0) || wl_down(got, STEPS % 2 ? m->fa : m->fb, n))
		return -1;
	memcpy(a, m->h, n * sizeof(float));
	for (int i = 0; i < STEPS; i++) {
		ref_lbm_step(m->nx, m->ny, m->nz, LBM_OMEGA, a, b);
		memcpy(a, b, n * sizeof(float));
	}
	rc = wl_report("lbm", ref_relerr(got, a, n), 1e-6);
	free(got);
	free(a);
	free(b);
	return rc;
}

static void lbm_teardown(struct wl_state *st)
{
	struct lbm *m = (struct lbm *)st->priv;

	if (!m)
		return;
	cudaFree(m->f0);
	cudaFree(m->fa);
	cudaFree(m->fb);
	free(m->h);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_lbm = { "lbm", "cell-updates", lbm_setup, lbm_unit,
			       lbm_check, lbm_teardown };
