// SPDX-License-Identifier: GPL-2.0
/*
 * micro: the G-Space micro-benchmark family. 160K threads; each warp reads
 * MICRO_LOADS x 32 floats at a stride, warps' windows overlap by a given
 * fraction, and each loaded value goes through iters x MICRO_FMA fused
 * multiply-adds. 9 strides x 5 overlaps x 4 iteration counts = 180
 * instances, chosen at run time with the argument "stride:overlap:iters".
 * The per-thread body is micro_body() (micro.cuh), which
 * bench/gpu/corun.cu runs too.
 */
#include "wl_common.cuh"
#include "micro.cuh"

#define NB MICRO_NB
#define THREADS MICRO_THREADS
#define LAUNCHES 4

struct micro { size_t n; size_t pad; int stride, iters; float overlap;
	       float *d, *out, *h; };

__global__ void __launch_bounds__(NB) micro_kernel(size_t n, const float *d,
		int stride, float overlap, int iters, float *out)
{
	size_t t = (size_t)blockIdx.x * NB + threadIdx.x;

	out[t] = micro_body(t, n, d, stride, overlap, iters);
}

static int micro_parse(struct micro *m, const char *arg)
{
	if (!arg || !*arg) {
		m->stride = 1;
		m->overlap = 0;
		m->iters = 1;
		return 0;
	}
	if (sscanf(arg, "%d:%f:%d", &m->stride, &m->overlap, &m->iters) != 3 ||
	    m->stride < 1 || m->stride > 1024 || m->overlap < 0 ||
	    m->overlap >= 1 || m->iters < 1 || m->iters > 64) {
		fprintf(stderr, "micro: bad argument '%s' (want stride:overlap:iters)\n",
			arg);
		return -1;
	}
	return 0;
}

static int micro_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct micro *m;

	WL_ALLOC(m, 1);
	st->priv = m;
	if (micro_parse(m, cfg->arg))
		return -1;
	m->pad = cfg->smem_pad;
	m->n = cfg->small ? 100003 : (size_t)1 << 24;
	WL_ALLOC(m->h, m->n);
	ref_fill(m->h, m->n, 20, -1, 1);
	if (wl_up(&m->d, m->h, m->n) || wl_up(&m->out, (float *)NULL, THREADS))
		return -1;
	if (wl_allow_smem((const void *)micro_kernel, m->pad))
		return -1;
	st->in_dev = m->d;
	st->in_bytes = m->n * sizeof(float);
	st->out_dev = m->out;
	st->out_bytes = THREADS * sizeof(float);
	st->work = (double)THREADS * MICRO_LOADS * LAUNCHES;
	st->main_kernel = (const void *)micro_kernel;
	st->main_block = NB;
	return 0;
}

static int micro_unit(struct wl_state *st, cudaStream_t s)
{
	struct micro *m = (struct micro *)st->priv;

	for (int i = 0; i < LAUNCHES; i++)
		micro_kernel<<<THREADS / NB, NB, m->pad, s>>>(m->n, m->d, m->stride,
				m->overlap, m->iters, m->out);
	CKL();
	return 0;
}

static int micro_check(struct wl_state *st)
{
	struct micro *m = (struct micro *)st->priv;
	float *got, *want;
	int rc;

	WL_ALLOC(got, THREADS);
	WL_ALLOC(want, THREADS);
	if (micro_unit(st, 0) || wl_down(got, m->out, THREADS))
		return -1;
	ref_micro(THREADS, m->n, m->h, m->stride, m->overlap, m->iters, want);
	rc = wl_report("micro", ref_relerr(got, want, THREADS), 1e-6);
	free(got);
	free(want);
	return rc;
}

static void micro_teardown(struct wl_state *st)
{
	struct micro *m = (struct micro *)st->priv;

	if (!m)
		return;
	cudaFree(m->d);
	cudaFree(m->out);
	free(m->h);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_micro = { "micro", "loads", micro_setup, micro_unit,
				 micro_check, micro_teardown };
