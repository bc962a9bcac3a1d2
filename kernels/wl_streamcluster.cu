// SPDX-License-Identifier: GPL-2.0
/*
 * streamcluster: the pgain cost evaluation. For a candidate centre x, each
 * point's weighted distance to x decides whether it would switch to x
 * (gain) or stay (per-centre savings in "lower"); sums go through shared
 * memory and then global double atomics.
 */
#include "wl_common.cuh"

#define NB 256
#define DIM 32
#define KC 64
#define CAND 17

struct sc { int n; size_t pad; float *pts, *wt, *cost, *hp, *hw, *hc;
	    int *assign, *sw, *ha; double *lower, *gain; };

__global__ void __launch_bounds__(NB) sc_kernel(int n, const float *pts,
		const float *wt, const int *assign, const float *cost, int x,
		int *sw, double *lower, double *gain)
{
	__shared__ float cx[DIM];
	__shared__ double lo[KC], g;
	int i = blockIdx.x * NB + threadIdx.x;

	if (threadIdx.x < DIM)
		cx[threadIdx.x] = pts[(size_t)threadIdx.x * n + x];
	if (threadIdx.x < KC)
		lo[threadIdx.x] = 0;
	if (threadIdx.x == 0)
		g = 0;
	__syncthreads();
	if (i < n) {
		float d = 0;

#pragma unroll 8
		for (int j = 0; j < DIM; j++) {
			float t = pts[(size_t)j * n + i] - cx[j];

			d += t * t;
		}
		d *= wt[i];
		if (d < cost[i]) {
			sw[i] = 1;
			atomicAdd(&g, (double)(d - cost[i]));
		} else {
			sw[i] = 0;
			atomicAdd(&lo[assign[i]], (double)(cost[i] - d));
		}
	}
	__syncthreads();
	if (threadIdx.x < KC && lo[threadIdx.x] != 0)
		atomicAdd(&lower[threadIdx.x], lo[threadIdx.x]);
	if (threadIdx.x == 0)
		atomicAdd(gain, g);
}

static int sc_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct sc *m;
	size_t np;
	uint64_t s = 15;

	WL_ALLOC(m, 1);
	st->priv = m;
	m->pad = cfg->smem_pad;
	m->n = cfg->small ? 2000 : 1 << 20;
	np = (size_t)m->n * DIM;
	WL_ALLOC(m->hp, np);
	WL_ALLOC(m->hw, m->n);
	WL_ALLOC(m->hc, m->n);
	WL_ALLOC(m->ha, m->n);
	ref_fill(m->hp, np, 16, 0, 1);
	for (int i = 0; i < m->n; i++) {
		m->hw[i] = 1.0f + (float)(ref_rng(&s) % 4);
		m->ha[i] = (int)(ref_rng(&s) % KC);
		m->hc[i] = m->hw[i] * DIM / 6.0f * (0.5f + ref_unif(&s));
	}
	if (wl_up(&m->pts, m->hp, np) || wl_up(&m->wt, m->hw, m->n) ||
	    wl_up(&m->cost, m->hc, m->n) || wl_up(&m->assign, m->ha, m->n) ||
	    wl_up(&m->sw, (int *)NULL, m->n) ||
	    wl_up(&m->lower, (double *)NULL, KC + 1))
		return -1;
	m->gain = m->lower + KC;
	if (wl_allow_smem((const void *)sc_kernel, m->pad))
		return -1;
	st->in_dev = m->pts;
	st->in_bytes = np * sizeof(float);
	st->out_dev = m->sw;
	st->out_bytes = m->n * sizeof(int);
	st->work = (double)m->n;
	st->main_kernel = (const void *)sc_kernel;
	st->main_block = NB;
	return 0;
}

static int sc_unit(struct wl_state *st, cudaStream_t s)
{
	struct sc *m = (struct sc *)st->priv;

	CK(cudaMemsetAsync(m->lower, 0, sizeof(double) * (KC + 1), s));
	sc_kernel<<<(m->n + NB - 1) / NB, NB, m->pad, s>>>(m->n, m->pts, m->wt,
			m->assign, m->cost, CAND, m->sw, m->lower, m->gain);
	CKL();
	return 0;
}

static int sc_check(struct wl_state *st)
{
	struct sc *m = (struct sc *)st->priv;
	int *sw, *rsw, bad = 0, rc;
	double lo[KC + 1], rg;
	float rlo[KC], glo[KC];

	WL_ALLOC(sw, m->n);
	WL_ALLOC(rsw, m->n);
	if (sc_unit(st, 0) || wl_down(sw, m->sw, m->n) ||
	    wl_down(lo, m->lower, KC + 1))
		return -1;
	ref_pgain(m->n, DIM, KC, m->hp, m->hw, m->ha, m->hc, CAND, rsw, rlo, &rg);
	for (int i = 0; i < m->n; i++)
		bad += sw[i] != rsw[i];
	for (int c = 0; c < KC; c++)
		glo[c] = (float)lo[c];
	/* a point at the decision boundary may flip in float: allow 0.1% */
	rc = bad * 1000 > m->n ? -1 : 0;
	fprintf(stderr, "streamcluster: %d of %d switch flags differ\n", bad, m->n);
	rc |= wl_report("streamcluster lower", ref_relerr(glo, rlo, KC), 1e-4);
	if (fabs(lo[KC] - rg) > 1e-4 * fabs(rg) + 1e-6) {
		fprintf(stderr, "streamcluster: gain %g, reference %g\n", lo[KC], rg);
		rc = -1;
	}
	free(sw);
	free(rsw);
	return rc;
}

static void sc_teardown(struct wl_state *st)
{
	struct sc *m = (struct sc *)st->priv;

	if (!m)
		return;
	cudaFree(m->pts);
	cudaFree(m->wt);
	cudaFree(m->cost);
	cudaFree(m->assign);
	cudaFree(m->sw);
	cudaFree(m->lower);
	free(m->hp);
	free(m->hw);
	free(m->hc);
	free(m->ha);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_streamcluster = { "streamcluster", "points", sc_setup,
					 sc_unit, sc_check, sc_teardown };
