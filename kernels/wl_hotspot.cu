// SPDX-License-Identifier: GPL-2.0
/*
 * hotspot: explicit 2-D thermal stencil with a power map, shared-memory
 * tiles with a one-cell halo. One unit: eight steps from the input map.
 */
#include "wl_common.cuh"

#define TX 32
#define TY 8
#define STEPS 8

struct hs { int rows, cols; size_t pad; float *t0, *ta, *tb, *p, *ht, *hp; };

__global__ void __launch_bounds__(TX * TY) hs_kernel(int rows, int cols,
		const float *t, const float *p, float *tout)
{
	__shared__ float s[TY + 2][TX + 2];
	int c = blockIdx.x * TX + threadIdx.x, r = blockIdx.y * TY + threadIdx.y;
	int cc = min(c, cols - 1), rr = min(r, rows - 1);
	float tc = t[(size_t)rr * cols + cc];

	s[threadIdx.y + 1][threadIdx.x + 1] = tc;
	if (threadIdx.x == 0)
		s[threadIdx.y + 1][0] = t[(size_t)rr * cols + max(cc - 1, 0)];
	if (threadIdx.x == TX - 1)
		s[threadIdx.y + 1][TX + 1] =
			t[(size_t)rr * cols + min(cc + 1, cols - 1)];
	if (threadIdx.y == 0)
		s[0][threadIdx.x + 1] = t[(size_t)max(rr - 1, 0) * cols + cc];
	if (threadIdx.y == TY - 1)
		s[TY + 1][threadIdx.x + 1] =
			t[(size_t)min(rr + 1, rows - 1) * cols + cc];
	__syncthreads();
	if (c >= cols || r >= rows)
		return;
	/* at the edges of the map the neighbour is the cell itself */
	float tw = c > 0 ? s[threadIdx.y + 1][threadIdx.x] : tc;
	float te = c < cols - 1 ? s[threadIdx.y + 1][threadIdx.x + 2] : tc;
	float tn = r > 0 ? s[threadIdx.y][threadIdx.x + 1] : tc;
	float ts = r < rows - 1 ? s[threadIdx.y + 2][threadIdx.x + 1] : tc;
	size_t i = (size_t)r * cols + c;

	tout[i] = tc + HS_CX * (te + tw - 2.0f * tc) +
		  HS_CY * (tn + ts - 2.0f * tc) + HS_CZ * (HS_AMB - tc) +
		  HS_CP * p[i];
}

static int hs_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct hs *m;
	size_t n;

	WL_ALLOC(m, 1);
	st->priv = m;
	m->pad = cfg->smem_pad;
	m->rows = cfg->small ? 45 : 4096;
	m->cols = cfg->small ? 77 : 4096;
	n = (size_t)m->rows * m->cols;
	WL_ALLOC(m->ht, n);
	WL_ALLOC(m->hp, n);
	ref_fill(m->ht, n, 12, 60, 100);
	ref_fill(m->hp, n, 13, 0, 1);
	if (wl_up(&m->t0, m->ht, n) || wl_up(&m->p, m->hp, n) ||
	    wl_up(&m->ta, (float *)NULL, n) || wl_up(&m->tb, (float *)NULL, n))
		return -1;
	if (wl_allow_smem((const void *)hs_kernel, m->pad))
		return -1;
	st->in_dev = m->t0;
	st->in_bytes = n * sizeof(float);
	st->out_dev = m->tb;
	st->out_bytes = n * sizeof(float);
	st->work = (double)n * STEPS;
	st->main_kernel = (const void *)hs_kernel;
	st->main_block = TX * TY;
	return 0;
}

static int hs_unit(struct wl_state *st, cudaStream_t s)
{
	struct hs *m = (struct hs *)st->priv;
	dim3 g((m->cols + TX - 1) / TX, (m->rows + TY - 1) / TY), b(TX, TY);
	const float *src = m->t0;
	float *dst = m->ta;

	for (int i = 0; i < STEPS; i++) {
		hs_kernel<<<g, b, m->pad, s>>>(m->rows, m->cols, src, m->p, dst);
		src = dst;
		dst = dst == m->ta ? m->tb : m->ta;
	}
	CKL();
	return 0;
}

static int hs_check(struct wl_state *st)
{
	struct hs *m = (struct hs *)st->priv;
	size_t n = (size_t)m->rows * m->cols;
	float *got, *a, *b;
	int rc;

	WL_ALLOC(got, n);
	WL_ALLOC(a, n);
	WL_ALLOC(b, n);
	if (hs_unit(st, 0) || wl_down(got, STEPS % 2 ? m->ta : m->tb, n))
		return -1;
	memcpy(a, m->ht, n * sizeof(float));
	for (int i = 0; i < STEPS; i++) {
		ref_hotspot_step(m->rows, m->cols, a, m->hp, b);
		memcpy(a, b, n * sizeof(float));
	}
	rc = wl_report("hotspot", ref_relerr(got, a, n), 1e-6);
	free(got);
	free(a);
	free(b);
	return rc;
}

static void hs_teardown(struct wl_state *st)
{
	struct hs *m = (struct hs *)st->priv;

	if (!m)
		return;
	cudaFree(m->t0);
	cudaFree(m->ta);
	cudaFree(m->tb);
	cudaFree(m->p);
	free(m->ht);
	free(m->hp);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_hotspot = { "hotspot", "cell-updates", hs_setup,
				   hs_unit, hs_check, hs_teardown };
