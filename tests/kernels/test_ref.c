// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the CPU references and input generators of the benchmark
 * workloads (built with -fsanitize=address,undefined). TAP output.
 */
#include "ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static void ok(int cond, const char *name)
{
	tap_ok(cond, "%s", name);
}

static void t_rng(void)
{
	uint64_t a = 42, b = 42;
	float x[1000], y[1000];
	int in = 1;

	for (int i = 0; i < 100; i++)
		in &= ref_rng(&a) == ref_rng(&b);
	ref_fill(x, 1000, 7, -2, 3);
	ref_fill(y, 1000, 7, -2, 3);
	for (int i = 0; i < 1000; i++)
		in &= x[i] >= -2 && x[i] < 3 && x[i] == y[i];
	ok(in, "generators are deterministic and in range");
	ok(ref_relerr(x, y, 1000) == 0, "relerr of equal arrays is 0");
	y[3] = NAN;
	ok(ref_relerr(x, y, 1000) > 1, "relerr flags NaN");
}

static void t_sgemm(void)
{
	enum { N = 13 };
	float a[N * N], id[N * N] = { 0 }, c[N * N];

	ref_fill(a, N * N, 1, -1, 1);
	for (int i = 0; i < N; i++)
		id[i * N + i] = 1;
	ref_sgemm(N, N, N, a, id, c);
	ok(ref_relerr(c, a, N * N) == 0, "sgemm: A * I = A");
	{
		float p[6] = { 1, 2, 3, 4, 5, 6 }, q[6] = { 7, 8, 9, 10, 11, 12 };
		float r[4], want[4] = { 58, 64, 139, 154 };

		ref_sgemm(2, 2, 3, p, q, r);
		ok(!memcmp(r, want, sizeof(r)), "sgemm: 2x3 * 3x2 by hand");
	}
}

static void t_nn(void)
{
	float lat[4] = { 0, 3, 1, 10 }, lng[4] = { 0, 4, 1, 10 }, d[4];
	size_t b = ref_nn(4, lat, lng, 1, 1.5f, d);

	ok(b == 2 && fabsf(d[1] - sqrtf(4 + 6.25f)) < 1e-6, "nn: distances and argmin");
}

static void t_cfd(void)
{
	struct cfd_mesh m;
	int sym = 1, nel = 12 * 10;
	float *flux;
	double mass = 0, scale = 0;

	ok(!cfd_mesh_gen(&m, nel, 5, 1), "cfd: mesh generated");
	for (int i = 0; i < nel; i++)
		for (int f = 0; f < CFD_NNB; f++) {
			int j = m.nb[f * nel + i], g = f ^ 1;

			if (j < 0)
				continue;
			sym &= m.nb[g * nel + j] == i;
			for (int d = 0; d < 3; d++)
				sym &= m.normal[(f * 3 + d) * nel + i] ==
				       -m.normal[(g * 3 + d) * nel + j];
		}
	ok(sym, "cfd: neighbours symmetric, shared faces have opposite normals");
	flux = malloc(sizeof(float) * CFD_NVAR * nel);
	ref_cfd_flux(&m, m.vars, flux);
	for (int i = 0; i < nel; i++) {
		mass += flux[i];
		scale += fabs(flux[i]);
	}
	ok(fabs(mass) <= 1e-5 * (scale + 1), "cfd: closed box conserves mass");
	free(flux);
	cfd_mesh_free(&m);
}

static void t_md(void)
{
	struct md_sys s;
	float *f;
	double sum[3] = { 0, 0, 0 }, mag = 0;

	ok(!md_gen(&s, 6, 3), "md: lattice with 32 neighbours generated");
	f = malloc(sizeof(float) * 4 * s.n);
	ref_md_force(&s, f);
	for (int i = 0; i < s.n; i++)
		for (int c = 0; c < 3; c++) {
			sum[c] += f[4 * i + c];
			mag += fabs(f[4 * i + c]);
		}
	ok(mag > 0 && fabs(sum[0]) + fabs(sum[1]) + fabs(sum[2]) < 1e-4 * mag,
	   "md: forces sum to zero (Newton's third law)");
	free(f);
	md_free(&s);
}

static void t_bp(void)
{
	enum { N = 50 };
	float in[N], w[N * BP_HID], old[N * BP_HID] = { 0 }, tgt[BP_HID], hid[BP_HID];
	float wn[N * BP_HID];
	int good = 1;

	ref_fill(in, N, 1, 0, 1);
	memset(w, 0, sizeof(w));
	ref_fill(tgt, BP_HID, 2, 0, 1);
	ref_bp(N, in, w, old, tgt, hid, wn);
	for (int j = 0; j < BP_HID; j++) {
		double delta = 0.25 * (tgt[j] - 0.5);

		good &= fabsf(hid[j] - 0.5f) < 1e-7;
		good &= fabs(wn[7 * BP_HID + j] - BP_ETA * delta * in[7]) < 1e-6;
	}
	ok(good, "bp: zero weights give sigmoid 0.5 and the expected update");
}

static void t_lbm(void)
{
	enum { X = 6, Y = 5, Z = 4, NC = X * Y * Z };
	float *a = malloc(sizeof(float) * LBM_Q * NC), *b = malloc(sizeof(float) * LBM_Q * NC);
	double m0 = 0, m1 = 0, p0[3] = { 0 }, p1[3] = { 0 };

	lbm_init(X, Y, Z, a, 3);
	ref_lbm_step(X, Y, Z, LBM_OMEGA, a, b);
	for (int q = 0; q < LBM_Q; q++)
		for (int c = 0; c < NC; c++) {
			m0 += a[q * NC + c];
			m1 += b[q * NC + c];
			for (int d = 0; d < 3; d++) {
				p0[d] += a[q * NC + c] * lbm_c[q][d];
				p1[d] += b[q * NC + c] * lbm_c[q][d];
			}
		}
	ok(fabs(m0 - m1) < 1e-4 && fabs(p0[0] - p1[0]) < 1e-4 &&
	   fabs(p0[1] - p1[1]) < 1e-4 && fabs(p0[2] - p1[2]) < 1e-4,
	   "lbm: a step conserves mass and momentum");
	for (int q = 0; q < LBM_Q; q++)
		for (int c = 0; c < NC; c++)
			a[q * NC + c] = lbm_w[q];
	ref_lbm_step(X, Y, Z, LBM_OMEGA, a, b);
	ok(ref_relerr(b, a, (size_t)LBM_Q * NC) < 1e-6, "lbm: rest state is a fixed point");
	free(a);
	free(b);
}

static void t_hotspot(void)
{
	enum { R = 7, C = 9 };
	float t[R * C], p[R * C] = { 0 }, o[R * C];

	for (int i = 0; i < R * C; i++)
		t[i] = HS_AMB;
	ref_hotspot_step(R, C, t, p, o);
	ok(ref_relerr(o, t, R * C) == 0, "hotspot: ambient with no power stays");
	p[10] = 2;
	ref_hotspot_step(R, C, t, p, o);
	ok(fabsf(o[10] - (HS_AMB + 2 * HS_CP)) < 1e-4 && o[11] == HS_AMB,
	   "hotspot: power heats only its cell in one step");
}

static void t_pathfinder(void)
{
	int wall[3 * 4] = { 1, 5, 2, 9, 3, 1, 7, 2, 4, 4, 1, 8 }, out[4];
	int want[4] = { 6, 6, 3, 12 };

	/* row1: 3+1,1+1,7+2,2+2 = 4,2,9,4; row2: 4+2,4+2,1+2,8+4 */
	ref_pathfinder(3, 4, wall, out);
	ok(!memcmp(out, want, sizeof(out)), "pathfinder: 3x4 by hand");
}

static void t_pgain(void)
{
	/* dim 1, points 0, 1, 5, 6; candidate x = 3 (value 6) */
	float pts[4] = { 0, 1, 5, 6 }, wt[4] = { 1, 1, 1, 2 };
	int asg[4] = { 0, 0, 1, 1 }, sw[4];
	float cost[4] = { 0.5f, 0.5f, 4, 1 }, lo[2];
	double g;

	ref_pgain(4, 1, 2, pts, wt, asg, cost, 3, sw, lo, &g);
	ok(sw[0] == 0 && sw[1] == 0 && sw[2] == 1 && sw[3] == 1 &&
	   fabs(g - (1 - 4 + 0 - 1)) < 1e-9 && fabsf(lo[0] - (0.5f - 36 + 0.5f - 25)) < 1e-5 &&
	   lo[1] == 0, "pgain: switches, gain and per-centre savings by hand");
}

static void t_spmv(void)
{
	int *rp, *col, rows = 300, good = 1;
	float *val, x[300], y[300];

	ok(!spmv_gen(rows, 1, &rp, &col, &val), "spmv: matrix generated");
	for (int r = 0; r < rows; r++) {
		int n = rp[r + 1] - rp[r];

		good &= n >= 16 && n <= 48;
		for (int k = rp[r]; k < rp[r + 1]; k++)
			good &= col[k] >= 0 && col[k] < rows;
	}
	ok(good, "spmv: 16..48 entries per row, columns in range");
	for (int i = 0; i < rows; i++)
		x[i] = 1;
	ref_spmv(rows, rp, col, val, x, y);
	good = 1;
	for (int r = 0; r < rows; r++) {
		double s = 0;

		for (int k = rp[r]; k < rp[r + 1]; k++)
			s += val[k];
		good &= fabs(s - y[r]) < 1e-5;
	}
	ok(good, "spmv: A * ones = row sums");
	free(rp);
	free(col);
	free(val);
}

static void t_lud(void)
{
	enum { N = 24 };
	float a[N * N], lu[N * N], r[N * N];

	lud_gen(N, a, 2);
	memcpy(lu, a, sizeof(a));
	ref_lud(N, lu);
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;

			for (int k = 0; k <= (i < j ? i : j); k++)
				s += (k == i ? 1.0 : lu[i * N + k]) * lu[k * N + j];
			r[i * N + j] = (float)s;
		}
	ok(ref_relerr(r, a, N * N) < 1e-6, "lud: L * U reconstructs A");
}

static void t_micro(void)
{
	size_t n = 1 << 16;
	float *d = malloc(sizeof(float) * n), out[64];
	int good = 1;

	ok(micro_index(33, 0, n, 4, 0) == (size_t)32 * MICRO_LOADS * 4 + 4,
	   "micro: warp 1 lane 1 starts one window in, one stride over");
	ok(micro_index(32, 0, n, 2, 0.25f) == (size_t)(32 * MICRO_LOADS * 2 * 0.75),
	   "micro: overlap shifts the next warp's window back");
	for (size_t i = 0; i < n; i++)
		d[i] = 1.0f;
	ref_micro(64, n, d, 3, 0.1f, 2, out);
	for (int i = 0; i < 64; i++)
		good &= fabsf(out[i] - MICRO_LOADS) < 1e-3;
	ok(good, "micro: FMA chain keeps 1.0 at its fixed point");
	free(d);
}

int main(void)
{
	t_rng();
	t_sgemm();
	t_nn();
	t_cfd();
	t_md();
	t_bp();
	t_lbm();
	t_hotspot();
	t_pathfinder();
	t_pgain();
	t_spmv();
	t_lud();
	t_micro();
	return tap_done();
}
