// SPDX-License-Identifier: GPL-2.0
/*
 * cfd: finite-volume Euler flux on an unstructured mesh (4 faces per cell,
 * irregular cell numbering), central flux with scalar dissipation, and an
 * explicit step. One unit: two iterations of flux + step from the input
 * state (the input is never overwritten, so units are independent).
 */
#include "wl_common.cuh"

#define NB 128
#define ITERS 2

struct cfd { struct cfd_mesh h; size_t pad; int *nb; float *normal, *area,
	     *v0, *va, *vb, *flux; };

__constant__ float cfd_far[CFD_NVAR];

struct prim { float r, m[3], e, v[3], p, c; };

__device__ static void dprim(prim &q, const float *u)
{
	float vv = 0;

	q.r = u[0];
#pragma unroll
	for (int d = 0; d < 3; d++) {
		q.m[d] = u[1 + d];
		q.v[d] = u[1 + d] / u[0];
		vv += q.v[d] * q.v[d];
	}
	q.e = u[4];
	q.p = (CFD_GAMMA - 1.0f) * (q.e - 0.5f * q.r * vv);
	q.c = sqrtf(fabsf(CFD_GAMMA * q.p / q.r)) + sqrtf(vv);
}

__device__ static void dphys(const prim &q, const float *n, float s, float *f)
{
	float vn = q.v[0] * n[0] + q.v[1] * n[1] + q.v[2] * n[2];

	f[0] += s * q.r * vn;
#pragma unroll
	for (int d = 0; d < 3; d++)
		f[1 + d] += s * (q.m[d] * vn + q.p * n[d]);
	f[4] += s * vn * (q.e + q.p);
}

__global__ void __launch_bounds__(NB) cfd_flux(int nel, const int *nb,
		const float *normal, const float *vars, float *flux)
{
	int i = blockIdx.x * NB + threadIdx.x;
	float ui[CFD_NVAR], f[CFD_NVAR] = { 0, 0, 0, 0, 0 };
	prim qi;

	if (i >= nel)
		return;
#pragma unroll
	for (int v = 0; v < CFD_NVAR; v++)
		ui[v] = vars[v * nel + i];
	dprim(qi, ui);
#pragma unroll
	for (int k = 0; k < CFD_NNB; k++) {
		int j = nb[k * nel + i];
		float n[3], nn, uj[CFD_NVAR];
		prim qj;

#pragma unroll
		for (int d = 0; d < 3; d++)
			n[d] = normal[(k * 3 + d) * nel + i];
		nn = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		if (j == CFD_WALL) {
#pragma unroll
			for (int d = 0; d < 3; d++)
				f[1 + d] += qi.p * n[d];
			continue;
		}
#pragma unroll
		for (int v = 0; v < CFD_NVAR; v++)
			uj[v] = j >= 0 ? vars[v * nel + j] : cfd_far[v];
		dprim(qj, uj);
		dphys(qi, n, 0.5f, f);
		dphys(qj, n, 0.5f, f);
#pragma unroll
		for (int v = 0; v < CFD_NVAR; v++)
			f[v] -= 0.5f * CFD_SMOOTH * nn * (qi.c + qj.c) *
				(uj[v] - ui[v]);
	}
#pragma unroll
	for (int v = 0; v < CFD_NVAR; v++)
		flux[v * nel + i] = f[v];
}

__global__ void __launch_bounds__(NB) cfd_step(int nel, float dt,
		const float *area, const float *v0, const float *flux, float *v1)
{
	int i = blockIdx.x * NB + threadIdx.x;

	if (i >= nel)
		return;
	float a = dt / area[i];
#pragma unroll
	for (int v = 0; v < CFD_NVAR; v++)
		v1[v * nel + i] = v0[v * nel + i] - a * flux[v * nel + i];
}

static int cfd_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct cfd *m;
	int nel;

	WL_ALLOC(m, 1);
	st->priv = m;
	nel = cfg->small ? 60 * 70 : 1 << 21;
	m->pad = cfg->smem_pad;
	if (cfd_mesh_gen(&m->h, nel, 5, 0))
		return -1;
	if (wl_up(&m->nb, m->h.nb, (size_t)CFD_NNB * nel) ||
	    wl_up(&m->normal, m->h.normal, (size_t)3 * CFD_NNB * nel) ||
	    wl_up(&m->area, m->h.area, nel) ||
	    wl_up(&m->v0, m->h.vars, (size_t)CFD_NVAR * nel) ||
	    wl_up(&m->va, (float *)NULL, (size_t)CFD_NVAR * nel) ||
	    wl_up(&m->vb, (float *)NULL, (size_t)CFD_NVAR * nel) ||
	    wl_up(&m->flux, (float *)NULL, (size_t)CFD_NVAR * nel))
		return -1;
	CK(cudaMemcpyToSymbol(cfd_far, m->h.far, sizeof(m->h.far)));
	if (wl_allow_smem((const void *)cfd_flux, m->pad) ||
	    wl_allow_smem((const void *)cfd_step, m->pad))
		return -1;
	st->in_dev = m->v0;
	st->in_bytes = sizeof(float) * CFD_NVAR * nel;
	st->out_dev = m->vb;
	st->out_bytes = sizeof(float) * CFD_NVAR * nel;
	st->work = (double)nel * ITERS;
	st->main_kernel = (const void *)cfd_flux;
	st->main_block = NB;
	return 0;
}

static int cfd_unit(struct wl_state *st, cudaStream_t s)
{
	struct cfd *m = (struct cfd *)st->priv;
	int nel = m->h.nel, g = (nel + NB - 1) / NB;
	const float *src = m->v0;
	float *dst = m->va;

	for (int it = 0; it < ITERS; it++) {
		cfd_flux<<<g, NB, m->pad, s>>>(nel, m->nb, m->normal, src, m->flux);
		cfd_step<<<g, NB, m->pad, s>>>(nel, CFD_DT, m->area, src, m->flux,
					       dst);
		src = dst;
		dst = dst == m->va ? m->vb : m->va;
	}
	CKL();
	return 0;
}

static int cfd_check(struct wl_state *st)
{
	struct cfd *m = (struct cfd *)st->priv;
	size_t nv = (size_t)CFD_NVAR * m->h.nel;
	float *got, *a, *b, *flux;
	int rc;

	WL_ALLOC(got, nv);
	WL_ALLOC(a, nv);
	WL_ALLOC(b, nv);
	WL_ALLOC(flux, nv);
	if (cfd_unit(st, 0) || wl_down(got, ITERS % 2 ? m->va : m->vb, nv))
		return -1;
	memcpy(a, m->h.vars, nv * sizeof(float));
	for (int it = 0; it < ITERS; it++) {
		ref_cfd_flux(&m->h, a, flux);
		ref_cfd_step(m->h.nel, CFD_DT, m->h.area, a, flux, b);
		memcpy(a, b, nv * sizeof(float));
	}
	rc = wl_report("cfd", ref_relerr(got, a, nv), 1e-5);
	free(got);
	free(a);
	free(b);
	free(flux);
	return rc;
}

static void cfd_teardown(struct wl_state *st)
{
	struct cfd *m = (struct cfd *)st->priv;

	if (!m)
		return;
	cudaFree(m->nb);
	cudaFree(m->normal);
	cudaFree(m->area);
	cudaFree(m->v0);
	cudaFree(m->va);
	cudaFree(m->vb);
	cudaFree(m->flux);
	cfd_mesh_free(&m->h);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_cfd = { "cfd", "cell-iterations", cfd_setup, cfd_unit,
			       cfd_check, cfd_teardown };
