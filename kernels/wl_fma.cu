// SPDX-License-Identifier: GPL-2.0
/*
 * fma: pure arithmetic. 4M threads (16384 blocks), each running CHAINS
 * independent chains of ITERS dependent fused multiply-adds from one
 * input float, and storing their sum: 3.4e10 FMAs per unit (about 1 ms
 * at an H200's FP32 peak), 32 MiB of memory traffic.
 *
 * Compute-bound on purpose, for STM's "saturating" sets
 * (bench/gpu/stm.cu): nothing is shared between SMs but the launch, so
 * its time falls as 1 / SMs (16 waves of blocks on 132 SMs, so the
 * last, partial wave costs a few percent at most).
 */
#include "wl_common.cuh"

#define NB 256
#define CHAINS 4
#define FMA_A 0.999f
#define FMA_B 0.001f

struct fmawl { int blocks, iters; size_t pad; float *in, *out, *h; };

/* One thread's chains; the CPU reference too (nvcc unrolls the k loops). */
static __host__ __device__ float fma_thread(float x0, int iters)
{
	float x[CHAINS];

	for (int k = 0; k < CHAINS; k++)
		x[k] = x0 + 0.25f * k;
	for (int i = 0; i < iters; i++) {
		for (int k = 0; k < CHAINS; k++)
			x[k] = fmaf(x[k], FMA_A, FMA_B);
	}
	return (x[0] + x[1]) + (x[2] + x[3]);
}

__global__ void __launch_bounds__(NB) fma_kernel(int iters, const float *in,
		float *out)
{
	size_t t = (size_t)blockIdx.x * NB + threadIdx.x;

	out[t] = fma_thread(in[t], iters);
}

static int fma_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct fmawl *m;
	size_t n;

	WL_ALLOC(m, 1);
	st->priv = m;
	m->pad = cfg->smem_pad;
	m->blocks = cfg->small ? 48 : 16384;
	m->iters = cfg->small ? 300 : 2048;
	n = (size_t)m->blocks * NB;
	WL_ALLOC(m->h, n);
	ref_fill(m->h, n, 41, -1, 1);
	if (wl_up(&m->in, m->h, n) || wl_up(&m->out, (float *)NULL, n))
		return -1;
	if (wl_allow_smem((const void *)fma_kernel, m->pad))
		return -1;
	st->in_dev = m->in;
	st->in_bytes = n * sizeof(float);
	st->out_dev = m->out;
	st->out_bytes = n * sizeof(float);
	st->work = (double)n * CHAINS * m->iters;
	st->main_kernel = (const void *)fma_kernel;
	st->main_block = NB;
	return 0;
}

static int fma_unit(struct wl_state *st, cudaStream_t s)
{
	struct fmawl *m = (struct fmawl *)st->priv;

	fma_kernel<<<m->blocks, NB, m->pad, s>>>(m->iters, m->in, m->out);
	CKL();
	return 0;
}

static int fma_check(struct wl_state *st)
{
	struct fmawl *m = (struct fmawl *)st->priv;
	size_t n = (size_t)m->blocks * NB;
	float *got, *want;
	int rc;

	WL_ALLOC(got, n);
	WL_ALLOC(want, n);
	if (fma_unit(st, 0) || wl_down(got, m->out, n))
		return -1;
	for (size_t i = 0; i < n; i++)
		want[i] = fma_thread(m->h[i], m->iters);
	rc = wl_report("fma", ref_relerr(got, want, n), 1e-6);
	free(got);
	free(want);
	return rc;
}

static void fma_teardown(struct wl_state *st)
{
	struct fmawl *m = (struct fmawl *)st->priv;

	if (!m)
		return;
	cudaFree(m->in);
	cudaFree(m->out);
	free(m->h);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_fma = { "fma", "fma", fma_setup, fma_unit, fma_check,
			       fma_teardown };
