// SPDX-License-Identifier: GPL-2.0
/*
 * stream: McCalpin's triad a = b + s * c on 2^26 floats per array
 * (768 MiB moved per unit, 16x an H200's L2), in float4s, each thread
 * loading VEC float4s of b and of c before it stores any.
 *
 * Bandwidth-bound on purpose, for STM's saturating sets
 * (bench/gpu/stm.cu). By Little's law, HBM3e's ~4.8 TB/s at ~0.8 us of
 * loaded latency needs ~4 MB of reads in flight: 29 KB per SM with all
 * 132 SMs, 58 KB with half. A thread here has 128 bytes of loads in
 * flight, an SM up to 160 KB (5 blocks of 256 threads fit, at 43
 * registers), so an SM should move bytes about as fast as its own path
 * to L2 allows, and DRAM, the one resource all SMs share, saturate with
 * part of the SMs: the rest add nothing. The paper's premise.
 */
#include "wl_common.cuh"

#define NB 256
#define VEC 4		/* float4s of each array per thread */
#define TRIAD_S 3.0f

struct stream { size_t n4, pad; float4 *a, *b, *c; float *hb, *hc; };

__global__ void __launch_bounds__(NB) stream_triad(size_t n4, float s,
		const float4 *__restrict__ b, const float4 *__restrict__ c,
		float4 *__restrict__ a)
{
	size_t i0 = (size_t)blockIdx.x * NB * VEC + threadIdx.x;
	float4 x[VEC], y[VEC];

	/* all loads first: 2 * VEC independent 16-byte loads in flight */
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		size_t i = i0 + (size_t)k * NB;

		if (i < n4) {
			x[k] = b[i];
			y[k] = c[i];
		}
	}
#pragma unroll
	for (int k = 0; k < VEC; k++) {
		size_t i = i0 + (size_t)k * NB;

		if (i < n4)
			a[i] = make_float4(fmaf(s, y[k].x, x[k].x),
					   fmaf(s, y[k].y, x[k].y),
					   fmaf(s, y[k].z, x[k].z),
					   fmaf(s, y[k].w, x[k].w));
	}
}

static int stream_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct stream *m;
	size_t n;

	WL_ALLOC(m, 1);
	st->priv = m;
	m->pad = cfg->smem_pad;
	/* small: not a multiple of a block's NB * VEC float4s */
	m->n4 = cfg->small ? 25013 : (size_t)1 << 24;
	n = 4 * m->n4;
	WL_ALLOC(m->hb, n);
	WL_ALLOC(m->hc, n);
	ref_fill(m->hb, n, 31, -1, 1);
	ref_fill(m->hc, n, 32, -1, 1);
	if (wl_up(&m->b, (const float4 *)m->hb, m->n4) ||
	    wl_up(&m->c, (const float4 *)m->hc, m->n4) ||
	    wl_up(&m->a, (float4 *)NULL, m->n4))
		return -1;
	if (!cfg->small) {	/* only the check needs them */
		free(m->hb);
		free(m->hc);
		m->hb = m->hc = NULL;
	}
	if (wl_allow_smem((const void *)stream_triad, m->pad))
		return -1;
	st->in_dev = m->b;
	st->in_bytes = sizeof(float4) * m->n4;
	st->out_dev = m->a;
	st->out_bytes = sizeof(float4) * m->n4;
	st->work = 3.0 * sizeof(float4) * m->n4;	/* bytes moved */
	st->main_kernel = (const void *)stream_triad;
	st->main_block = NB;
	return 0;
}

static int stream_unit(struct wl_state *st, cudaStream_t s)
{
	struct stream *m = (struct stream *)st->priv;
	size_t per = (size_t)NB * VEC;

	stream_triad<<<(unsigned int)((m->n4 + per - 1) / per), NB, m->pad, s>>>(
		m->n4, TRIAD_S, m->b, m->c, m->a);
	CKL();
	return 0;
}

static int stream_check(struct wl_state *st)
{
	struct stream *m = (struct stream *)st->priv;
	size_t n = 4 * m->n4;
	float *got, *want;
	int rc;

	if (!m->hb)
		return -1;	/* set up for the check: small */
	WL_ALLOC(got, n);
	WL_ALLOC(want, n);
	if (stream_unit(st, 0) || wl_down(got, (float *)m->a, n))
		return -1;
	for (size_t i = 0; i < n; i++)
		want[i] = fmaf(TRIAD_S, m->hc[i], m->hb[i]);
	rc = wl_report("stream", ref_relerr(got, want, n), 1e-6);
	free(got);
	free(want);
	return rc;
}

static void stream_teardown(struct wl_state *st)
{
	struct stream *m = (struct stream *)st->priv;

	if (!m)
		return;
	cudaFree(m->a);
	cudaFree(m->b);
	cudaFree(m->c);
	free(m->hb);
	free(m->hc);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_stream = { "stream", "bytes", stream_setup, stream_unit,
				  stream_check, stream_teardown };
