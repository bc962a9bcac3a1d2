// SPDX-License-Identifier: GPL-2.0
/*
 * lud: blocked right-looking LU decomposition without pivoting (the input
 * is diagonally dominant). Per block step: factor the diagonal tile,
 * solve the row and column panels, update the trailing matrix. One unit:
 * copy the input and decompose the copy.
 */
#include "wl_common.cuh"

#define B 32

struct lud { int n; size_t pad; float *a0, *a, *h; };

__global__ void lud_diag(int n, float *a, int k0)
{
	__shared__ float s[B][B + 1];
	int t = threadIdx.x;

	for (int r = 0; r < B; r++)
		s[r][t] = a[(size_t)(k0 + r) * n + k0 + t];
	__syncthreads();
	for (int k = 0; k < B - 1; k++) {
		if (t > k)
			s[t][k] /= s[k][k];
		__syncthreads();
		if (t > k)
			for (int j = k + 1; j < B; j++)
				s[t][j] -= s[t][k] * s[k][j];
		__syncthreads();
	}
	for (int r = 0; r < B; r++)
		a[(size_t)(k0 + r) * n + k0 + t] = s[r][t];
}

/* blockIdx.y == 0: row panel U12 = L11^-1 A12; 1: column panel L21 = A21 U11^-1 */
__global__ void lud_perim(int n, float *a, int k0)
{
	__shared__ float d[B][B + 1], p[B][B + 1];
	int t = threadIdx.x, o = k0 + B * (blockIdx.x + 1);
	int row = blockIdx.y == 0;

	for (int r = 0; r < B; r++) {
		d[r][t] = a[(size_t)(k0 + r) * n + k0 + t];
		p[r][t] = row ? a[(size_t)(k0 + r) * n + o + t] :
				a[(size_t)(o + r) * n + k0 + t];
	}
	__syncthreads();
	if (row) {
		/* thread t owns column t of the panel */
		for (int i = 1; i < B; i++) {
			float v = p[i][t];

			for (int k = 0; k < i; k++)
				v -= d[i][k] * p[k][t];
			p[i][t] = v;
		}
	} else {
		/* thread t owns row t of the panel */
		for (int j = 0; j < B; j++) {
			float v = p[t][j];

			for (int k = 0; k < j; k++)
				v -= p[t][k] * d[k][j];
			p[t][j] = v / d[j][j];
		}
	}
	__syncthreads();
	for (int r = 0; r < B; r++) {
		if (row)
			a[(size_t)(k0 + r) * n + o + t] = p[r][t];
		else
			a[(size_t)(o + r) * n + k0 + t] = p[r][t];
	}
}

__global__ void __launch_bounds__(256) lud_inner(int n, float *a, int k0)
{
	__shared__ float l[B][B + 1], u[B][B + 1];
	int tx = threadIdx.x, ty = threadIdx.y;	/* 32 x 8 */
	int r0 = k0 + B * (blockIdx.y + 1), c0 = k0 + B * (blockIdx.x + 1);

	for (int r = ty; r < B; r += 8) {
		l[r][tx] = a[(size_t)(r0 + r) * n + k0 + tx];
		u[r][tx] = a[(size_t)(k0 + r) * n + c0 + tx];
	}
	__syncthreads();
	for (int r = ty; r < B; r += 8) {
		float v = 0;

#pragma unroll 8
		for (int k = 0; k < B; k++)
			v += l[r][k] * u[k][tx];
		a[(size_t)(r0 + r) * n + c0 + tx] -= v;
	}
}

static int lud_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct lud *m;
	size_t nn;

	WL_ALLOC(m, 1);
	st->priv = m;
	m->pad = cfg->smem_pad;
	m->n = cfg->small ? 96 : 2048;
	nn = (size_t)m->n * m->n;
	WL_ALLOC(m->h, nn);
	lud_gen(m->n, m->h, 19);
	if (wl_up(&m->a0, m->h, nn) || wl_up(&m->a, (float *)NULL, nn))
		return -1;
	if (wl_allow_smem((const void *)lud_diag, m->pad) ||
	    wl_allow_smem((const void *)lud_perim, m->pad) ||
	    wl_allow_smem((const void *)lud_inner, m->pad))
		return -1;
	st->in_dev = m->a0;
	st->in_bytes = nn * sizeof(float);
	st->out_dev = m->a;
	st->out_bytes = nn * sizeof(float);
	st->work = 2.0 / 3.0 * m->n * (double)m->n * m->n;
	st->main_kernel = (const void *)lud_inner;
	st->main_block = 256;
	return 0;
}

static int lud_unit(struct wl_state *st, cudaStream_t s)
{
	struct lud *m = (struct lud *)st->priv;
	int nb = m->n / B;

	CK(cudaMemcpyAsync(m->a, m->a0, sizeof(float) * m->n * m->n,
			   cudaMemcpyDeviceToDevice, s));
	for (int kb = 0; kb < nb; kb++) {
		int k0 = kb * B, rest = nb - kb - 1;

		lud_diag<<<1, B, m->pad, s>>>(m->n, m->a, k0);
		if (!rest)
			break;
		lud_perim<<<dim3(rest, 2), B, m->pad, s>>>(m->n, m->a, k0);
		lud_inner<<<dim3(rest, rest), dim3(B, 8), m->pad, s>>>(m->n, m->a,
								     k0);
	}
	CKL();
	return 0;
}

static int lud_check(struct wl_state *st)
{
	struct lud *m = (struct lud *)st->priv;
	size_t nn = (size_t)m->n * m->n;
	float *got, *want;
	int rc;

	WL_ALLOC(got, nn);
	WL_ALLOC(want, nn);
	if (lud_unit(st, 0) || wl_down(got, m->a, nn))
		return -1;
	memcpy(want, m->h, nn * sizeof(float));
	ref_lud(m->n, want);
	rc = wl_report("lud", ref_relerr(got, want, nn), 1e-5);
	free(got);
	free(want);
	return rc;
}

static void lud_teardown(struct wl_state *st)
{
	struct lud *m = (struct lud *)st->priv;

	if (!m)
		return;
	cudaFree(m->a0);
	cudaFree(m->a);
	free(m->h);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_lud = { "lud", "flop", lud_setup, lud_unit, lud_check,
			       lud_teardown };
