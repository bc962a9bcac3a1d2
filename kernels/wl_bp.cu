// SPDX-License-Identifier: GPL-2.0
/*
 * bp: backpropagation, one layer. Forward pass n_in -> 16 hidden units
 * (block partial sums, then a reduction with the sigmoid and the output
 * deltas), then the weight adjustment with momentum into a new weight
 * array (the input weights are kept, so units are independent).
 */
#include "wl_common.cuh"

#define NB 256

struct bp { int n; size_t pad; int nblk; float *in, *w, *oldw, *wnew,
	    *part, *hid, *delta, *target, *hin, *hw, *hold, *htarget; };

__global__ void __launch_bounds__(NB) bp_forward(int n, const float *in,
		const float *w, float *part)
{
	__shared__ float s[NB / 32][BP_HID];
	int i = blockIdx.x * NB + threadIdx.x;
	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
	float x = i < n ? in[i] : 0.0f;

#pragma unroll
	for (int j = 0; j < BP_HID; j++) {
		float v = i < n ? x * w[(size_t)i * BP_HID + j] : 0.0f;

		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, o);
		if (lane == 0)
			s[wid][j] = v;
	}
	__syncthreads();
	if (threadIdx.x < BP_HID) {
		float v = 0;

		for (int k = 0; k < NB / 32; k++)
			v += s[k][threadIdx.x];
		part[(size_t)blockIdx.x * BP_HID + threadIdx.x] = v;
	}
}

/* one block of 16 warps: warp j reduces hidden unit j over the blocks */
__global__ void bp_reduce(int nblk, const float *part, const float *target,
			  float *hid, float *delta)
{
	int j = threadIdx.x >> 5, lane = threadIdx.x & 31;
	float v = 0;

	for (int b = lane; b < nblk; b += 32)
		v += part[(size_t)b * BP_HID + j];
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	if (lane == 0) {
		float h = 1.0f / (1.0f + expf(-v));

		hid[j] = h;
		delta[j] = h * (1.0f - h) * (target[j] - h);
	}
}

__global__ void __launch_bounds__(NB) bp_adjust(int n, const float *in,
		const float *w, const float *oldw, const float *delta,
		float *wnew)
{
	size_t k = (size_t)blockIdx.x * NB + threadIdx.x;

	if (k >= (size_t)n * BP_HID)
		return;
	wnew[k] = w[k] + BP_ETA * delta[k % BP_HID] * in[k / BP_HID] +
		  BP_MOM * oldw[k];
}

static int bp_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct bp *m;
	size_t nw;

	WL_ALLOC(m, 1);
	st->priv = m;
	m->n = cfg->small ? 3000 : 1 << 20;
	m->pad = cfg->smem_pad;
	m->nblk = (m->n + NB - 1) / NB;
	nw = (size_t)m->n * BP_HID;
	WL_ALLOC(m->hin, m->n);
	WL_ALLOC(m->hw, nw);
	WL_ALLOC(m->hold, nw);
	WL_ALLOC(m->htarget, BP_HID);
	ref_fill(m->hin, m->n, 7, 0, 1);
	ref_fill(m->hw, nw, 8, -0.01f, 0.01f);
	ref_fill(m->hold, nw, 9, -0.001f, 0.001f);
	ref_fill(m->htarget, BP_HID, 10, 0, 1);
	if (wl_up(&m->in, m->hin, m->n) || wl_up(&m->w, m->hw, nw) ||
	    wl_up(&m->oldw, m->hold, nw) || wl_up(&m->wnew, (float *)NULL, nw) ||
	    wl_up(&m->part, (float *)NULL, (size_t)m->nblk * BP_HID) ||
	    wl_up(&m->hid, (float *)NULL, BP_HID) ||
	    wl_up(&m->delta, (float *)NULL, BP_HID) ||
	    wl_up(&m->target, m->htarget, BP_HID))
		return -1;
	if (wl_allow_smem((const void *)bp_forward, m->pad) ||
	    wl_allow_smem((const void *)bp_reduce, m->pad) ||
	    wl_allow_smem((const void *)bp_adjust, m->pad))
		return -1;
	st->in_dev = m->in;
	st->in_bytes = sizeof(float) * m->n;
	st->out_dev = m->wnew;
	st->out_bytes = sizeof(float) * nw;
	st->work = (double)nw;
	st->main_kernel = (const void *)bp_forward;
	st->main_block = NB;
	return 0;
}

static int bp_unit(struct wl_state *st, cudaStream_t s)
{
	struct bp *m = (struct bp *)st->priv;
	size_t nw = (size_t)m->n * BP_HID;

	bp_forward<<<m->nblk, NB, m->pad, s>>>(m->n, m->in, m->w, m->part);
	bp_reduce<<<1, 32 * BP_HID, m->pad, s>>>(m->nblk, m->part, m->target,
						 m->hid, m->delta);
	bp_adjust<<<(unsigned)((nw + NB - 1) / NB), NB, m->pad, s>>>(m->n, m->in,
			m->w, m->oldw, m->delta, m->wnew);
	CKL();
	return 0;
}

static int bp_check(struct wl_state *st)
{
	struct bp *m = (struct bp *)st->priv;
	size_t nw = (size_t)m->n * BP_HID;
	float *got, *want, hg[BP_HID], hw[BP_HID];
	int rc;

	WL_ALLOC(got, nw);
	WL_ALLOC(want, nw);
	if (bp_unit(st, 0) || wl_down(got, m->wnew, nw) ||
	    wl_down(hg, m->hid, BP_HID))
		return -1;
	ref_bp(m->n, m->hin, m->hw, m->hold, m->htarget, hw, want);
	rc = wl_report("bp hidden", ref_relerr(hg, hw, BP_HID), 1e-5);
	rc |= wl_report("bp weights", ref_relerr(got, want, nw), 1e-5);
	free(got);
	free(want);
	return rc;
}

static void bp_teardown(struct wl_state *st)
{
	struct bp *m = (struct bp *)st->priv;

	if (!m)
		return;
	cudaFree(m->in);
	cudaFree(m->w);
	cudaFree(m->oldw);
	cudaFree(m->wnew);
	cudaFree(m->part);
	cudaFree(m->hid);
	cudaFree(m->delta);
	cudaFree(m->target);
	free(m->hin);
	free(m->hw);
	free(m->hold);
	free(m->htarget);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_bp = { "bp", "weights", bp_setup, bp_unit, bp_check,
			      bp_teardown };
