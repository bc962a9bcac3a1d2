// SPDX-License-Identifier: GPL-2.0
/*
 * nn: nearest neighbour. Distance of every record (lat, lng) to a target,
 * then a per-block minimum (value and index); the host would finish the
 * k-nearest selection on the block minima.
 */
#include "wl_common.cuh"

#define NB 256
#define TLAT 30.0f
#define TLNG 90.0f

struct nn { size_t n; size_t pad; int nblk; float *lat, *lng, *dist, *hlat, *hlng;
	    float *bmin; int *bidx; };

__global__ void __launch_bounds__(NB) nn_kernel(size_t n, const float *lat,
		const float *lng, float tlat, float tlng, float *dist,
		float *bmin, int *bidx)
{
	__shared__ float sv[NB];
	__shared__ int si[NB];
	size_t i = (size_t)blockIdx.x * NB + threadIdx.x;
	float d = 3.4e38f;

	if (i < n) {
		float dx = lat[i] - tlat, dy = lng[i] - tlng;

		d = sqrtf(dx * dx + dy * dy);
		dist[i] = d;
	}
	sv[threadIdx.x] = d;
	si[threadIdx.x] = (int)i;
	__syncthreads();
	for (int s = NB / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s) {
			float o = sv[threadIdx.x + s];
			int oi = si[threadIdx.x + s];

			if (o < sv[threadIdx.x] ||
			    (o == sv[threadIdx.x] && oi < si[threadIdx.x])) {
				sv[threadIdx.x] = o;
				si[threadIdx.x] = oi;
			}
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		bmin[blockIdx.x] = sv[0];
		bidx[blockIdx.x] = si[0];
	}
}

static int nn_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct nn *m;

	WL_ALLOC(m, 1);
	st->priv = m;
	m->n = cfg->small ? 5000 : ((size_t)32 << 20);
	m->pad = cfg->smem_pad;
	m->nblk = (int)((m->n + NB - 1) / NB);
	WL_ALLOC(m->hlat, m->n);
	WL_ALLOC(m->hlng, m->n);
	ref_fill(m->hlat, m->n, 3, -90, 90);
	ref_fill(m->hlng, m->n, 4, -180, 180);
	if (wl_up(&m->lat, m->hlat, m->n) || wl_up(&m->lng, m->hlng, m->n) ||
	    wl_up(&m->dist, (float *)NULL, m->n) ||
	    wl_up(&m->bmin, (float *)NULL, m->nblk) ||
	    wl_up(&m->bidx, (int *)NULL, m->nblk))
		return -1;
	if (wl_allow_smem((const void *)nn_kernel, m->pad))
		return -1;
	st->in_dev = m->lat;
	st->in_bytes = m->n * sizeof(float);
	st->out_dev = m->dist;
	st->out_bytes = m->n * sizeof(float);
	st->work = (double)m->n;
	st->main_kernel = (const void *)nn_kernel;
	st->main_block = NB;
	return 0;
}

static int nn_unit(struct wl_state *st, cudaStream_t s)
{
	struct nn *m = (struct nn *)st->priv;

	nn_kernel<<<m->nblk, NB, m->pad, s>>>(m->n, m->lat, m->lng, TLAT, TLNG,
					       m->dist, m->bmin, m->bidx);
	CKL();
	return 0;
}

static int nn_check(struct wl_state *st)
{
	struct nn *m = (struct nn *)st->priv;
	float *got, *want, *bmin;
	int *bidx, rc, best = 0;
	size_t ref;

	WL_ALLOC(got, m->n);
	WL_ALLOC(want, m->n);
	WL_ALLOC(bmin, m->nblk);
	WL_ALLOC(bidx, m->nblk);
	if (nn_unit(st, 0) || wl_down(got, m->dist, m->n) ||
	    wl_down(bmin, m->bmin, m->nblk) || wl_down(bidx, m->bidx, m->nblk))
		return -1;
	ref = ref_nn(m->n, m->hlat, m->hlng, TLAT, TLNG, want);
	for (int b = 1; b < m->nblk; b++)
		if (bmin[b] < bmin[best])
			best = b;
	rc = wl_report("nn", ref_relerr(got, want, m->n), 1e-6);
	if ((size_t)bidx[best] != ref) {
		fprintf(stderr, "nn: argmin %d, reference %zu\n", bidx[best], ref);
		rc = -1;
	}
	free(got);
	free(want);
	free(bmin);
	free(bidx);
	return rc;
}

static void nn_teardown(struct wl_state *st)
{
	struct nn *m = (struct nn *)st->priv;

	if (!m)
		return;
	cudaFree(m->lat);
	cudaFree(m->lng);
	cudaFree(m->dist);
	cudaFree(m->bmin);
	cudaFree(m->bidx);
	free(m->hlat);
	free(m->hlng);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_nn = { "nn", "records", nn_setup, nn_unit, nn_check,
			      nn_teardown };
