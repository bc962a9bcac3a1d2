// SPDX-License-Identifier: GPL-2.0
/*
 * md: Lennard-Jones forces over a fixed neighbour list (32 lattice
 * neighbours per atom, cutoff, periodic box with minimum image).
 */
#include "wl_common.cuh"

#define NB 128

struct md { struct md_sys h; size_t pad; float4 *pos, *force; int *nb; };

__global__ void __launch_bounds__(NB) md_kernel(int n, float box,
		const float4 *pos, const int *nb, float4 *force)
{
	int i = blockIdx.x * NB + threadIdx.x;

	if (i >= n)
		return;
	float4 p = pos[i];
	float f[3] = { 0, 0, 0 };
	float ib = 1.0f / box;

#pragma unroll 4
	for (int j = 0; j < MD_MAXNB; j++) {
		float4 q = pos[nb[j * n + i]];
		float d[3] = { p.x - q.x, p.y - q.y, p.z - q.z };
		float r2 = 0;

#pragma unroll
		for (int c = 0; c < 3; c++) {
			d[c] -= box * rintf(d[c] * ib);
			r2 += d[c] * d[c];
		}
		if (r2 < MD_CUT2) {
			float ri = 1.0f / r2, r6 = ri * ri * ri;
			float fr = ri * r6 * (MD_LJ1 * r6 - MD_LJ2);

#pragma unroll
			for (int c = 0; c < 3; c++)
				f[c] += d[c] * fr;
		}
	}
	force[i] = make_float4(f[0], f[1], f[2], 0.0f);
}

static int md_setup(struct wl_state *st, const struct wl_cfg *cfg)
{
	struct md *m;

	WL_ALLOC(m, 1);
	st->priv = m;
	m->pad = cfg->smem_pad;
	if (md_gen(&m->h, cfg->small ? 12 : 96, 6))
		return -1;
	if (wl_up(&m->pos, (const float4 *)m->h.pos, m->h.n) ||
	    wl_up(&m->force, (float4 *)NULL, m->h.n) ||
	    wl_up(&m->nb, m->h.nb, (size_t)MD_MAXNB * m->h.n))
		return -1;
	if (wl_allow_smem((const void *)md_kernel, m->pad))
		return -1;
	st->in_dev = m->pos;
	st->in_bytes = sizeof(float4) * m->h.n;
	st->out_dev = m->force;
	st->out_bytes = sizeof(float4) * m->h.n;
	st->work = (double)m->h.n * MD_MAXNB;
	st->main_kernel = (const void *)md_kernel;
	st->main_block = NB;
	return 0;
}

static int md_unit(struct wl_state *st, cudaStream_t s)
{
	struct md *m = (struct md *)st->priv;

	md_kernel<<<(m->h.n + NB - 1) / NB, NB, m->pad, s>>>(m->h.n, m->h.box,
			m->pos, m->nb, m->force);
	CKL();
	return 0;
}

static int md_check(struct wl_state *st)
{
	struct md *m = (struct md *)st->priv;
	size_t n4 = (size_t)4 * m->h.n;
	float *got, *want;
	int rc;

	WL_ALLOC(got, n4);
	WL_ALLOC(want, n4);
	if (md_unit(st, 0) || wl_down(got, (float *)m->force, n4))
		return -1;
	ref_md_force(&m->h, want);
	rc = wl_report("md", ref_relerr(got, want, n4), 1e-5);
	free(got);
	free(want);
	return rc;
}

static void md_teardown(struct wl_state *st)
{
	struct md *m = (struct md *)st->priv;

	if (!m)
		return;
	cudaFree(m->pos);
	cudaFree(m->force);
	cudaFree(m->nb);
	md_free(&m->h);
	free(m);
	st->priv = NULL;
}

const struct wl_ops wl_md = { "md", "pair-interactions", md_setup, md_unit,
			      md_check, md_teardown };
