// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic generators and CPU references of the benchmark workloads.
 * References accumulate in double where the device accumulates in float.
 */
#include "ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t ref_rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

float ref_unif(uint64_t *s)
{
	return (float)(ref_rng(s) >> 40) * (1.0f / 16777216.0f);
}

void ref_fill(float *x, size_t n, uint64_t seed, float lo, float hi)
{
	uint64_t s = seed;

	for (size_t i = 0; i < n; i++)
		x[i] = lo + (hi - lo) * ref_unif(&s);
}

double ref_relerr(const float *a, const float *b, size_t n)
{
	double num = 0, den = 0;

	for (size_t i = 0; i < n; i++) {
		double d = (double)a[i] - (double)b[i];

		if (!isfinite(a[i]) || !isfinite(b[i]))
			return 1e30;
		num += d * d;
		den += (double)b[i] * b[i];
	}
	if (den == 0)
		return num == 0 ? 0 : 1e30;
	return sqrt(num / den);
}

void ref_sgemm(int m, int n, int k, const float *a, const float *b, float *c)
{
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double acc = 0;

			for (int l = 0; l < k; l++)
				acc += (double)a[(size_t)i * k + l] *
				       b[(size_t)l * n + j];
			c[(size_t)i * n + j] = (float)acc;
		}
}

size_t ref_nn(size_t n, const float *lat, const float *lng, float tlat,
	      float tlng, float *dist)
{
	size_t best = 0;

	for (size_t i = 0; i < n; i++) {
		float dx = lat[i] - tlat, dy = lng[i] - tlng;

		dist[i] = sqrtf(dx * dx + dy * dy);
		if (dist[i] < dist[best])
			best = i;
	}
	return best;
}

/* ---- cfd ---- */

int cfd_mesh_gen(struct cfd_mesh *m, int nel, uint64_t seed, int walls_only)
{
	int w = (int)sqrt((double)nel), h, *perm;
	uint64_t s = seed;

	while (w > 1 && nel % w)
		w--;
	h = nel / w;
	memset(m, 0, sizeof(*m));
	m->nel = nel;
	m->nb = malloc(sizeof(int) * CFD_NNB * nel);
	m->normal = malloc(sizeof(float) * 3 * CFD_NNB * nel);
	m->area = malloc(sizeof(float) * nel);
	m->vars = malloc(sizeof(float) * CFD_NVAR * nel);
	perm = malloc(sizeof(int) * nel);
	if (!m->nb || !m->normal || !m->area || !m->vars || !perm) {
		free(perm);
		cfd_mesh_free(m);
		return -1;
	}
	/* grid position g -> cell id perm[g]: an irregular numbering */
	for (int g = 0; g < nel; g++)
		perm[g] = g;
	for (int g = nel - 1; g > 0; g--) {
		int r = (int)(ref_rng(&s) % (uint64_t)(g + 1)), t = perm[g];

		perm[g] = perm[r];
		perm[r] = t;
	}
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int i = perm[y * w + x];
			/* faces: +x, -x, +y, -y */
			int nx[4] = { x + 1, x - 1, x, x };
			int ny[4] = { y, y, y + 1, y - 1 };

			m->area[i] = 1.0f + 0.2f * ref_unif(&s);
			for (int f = 0; f < CFD_NNB; f++) {
				int in = nx[f] >= 0 && nx[f] < w && ny[f] >= 0 &&
					 ny[f] < h;

				if (in)
					m->nb[f * nel + i] = perm[ny[f] * w + nx[f]];
				else if (walls_only || f < 2)
					m->nb[f * nel + i] = CFD_WALL;
				else
					m->nb[f * nel + i] = CFD_FAR;
			}
		}
	/*
	 * Normals: one per grid edge, a random tilt; the cell on the other
	 * side sees the same face with the opposite sign.
	 */
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int i = perm[y * w + x];

			for (int f = 0; f < CFD_NNB; f += 2) {
				float n[3];
				int j = m->nb[f * nel + i];

				n[0] = f == 0 ? 1.0f : 0.1f * (ref_unif(&s) - 0.5f);
				n[1] = f == 2 ? 1.0f : 0.1f * (ref_unif(&s) - 0.5f);
				n[2] = 0.1f * (ref_unif(&s) - 0.5f);
				for (int d = 0; d < 3; d++) {
					m->normal[(f * 3 + d) * nel + i] = n[d];
					if (j >= 0)
						m->normal[((f + 1) * 3 + d) * nel + j] = -n[d];
				}
			}
			/* boundary faces on the low side get their own normal */
			for (int f = 1; f < CFD_NNB; f += 2)
				if (m->nb[f * nel + i] < 0)
					for (int d = 0; d < 3; d++)
						m->normal[(f * 3 + d) * nel + i] =
							(d == f / 2) ? -1.0f : 0.0f;
		}
	m->far[0] = 1.4f;
	m->far[1] = 1.4f * 0.5f;
	m->far[2] = 0.0f;
	m->far[3] = 0.0f;
	m->far[4] = 1.0f / (CFD_GAMMA - 1.0f) + 0.5f * 1.4f * 0.25f;
	for (int i = 0; i < nel; i++) {
		float r = 1.4f * (1.0f + 0.05f * (ref_unif(&s) - 0.5f));
		float u = 0.5f + 0.05f * (ref_unif(&s) - 0.5f);
		float v = 0.05f * (ref_unif(&s) - 0.5f);

		m->vars[0 * nel + i] = r;
		m->vars[1 * nel + i] = r * u;
		m->vars[2 * nel + i] = r * v;
		m->vars[3 * nel + i] = 0.0f;
		m->vars[4 * nel + i] = 1.0f / (CFD_GAMMA - 1.0f) +
				       0.5f * r * (u * u + v * v);
	}
	free(perm);
	return 0;
}

void cfd_mesh_free(struct cfd_mesh *m)
{
	free(m->nb);
	free(m->normal);
	free(m->area);
	free(m->vars);
	m->nb = NULL;
	m->normal = m->area = m->vars = NULL;
}

struct cfd_prim {
	double r, m[3], e, v[3], p, c;
};

static void cfd_prim(struct cfd_prim *q, const double *u)
{
	double vv = 0;

	q->r = u[0];
	for (int d = 0; d < 3; d++) {
		q->m[d] = u[1 + d];
		q->v[d] = u[1 + d] / u[0];
		vv += q->v[d] * q->v[d];
	}
	q->e = u[4];
	q->p = (CFD_GAMMA - 1.0) * (q->e - 0.5 * q->r * vv);
	q->c = sqrt(fabs(CFD_GAMMA * q->p / q->r));
	q->c += sqrt(vv);	/* c now holds |v| + c: the spectral radius */
}

/* physical flux of state q through normal n, added times s into f */
static void cfd_phys(const struct cfd_prim *q, const double *n, double s,
		     double *f)
{
	double vn = q->v[0] * n[0] + q->v[1] * n[1] + q->v[2] * n[2];

	f[0] += s * q->r * vn;
	for (int d = 0; d < 3; d++)
		f[1 + d] += s * (q->m[d] * vn + q->p * n[d]);
	f[4] += s * vn * (q->e + q->p);
}

void ref_cfd_flux(const struct cfd_mesh *m, const float *vars, float *flux)
{
	int nel = m->nel;

	for (int i = 0; i < nel; i++) {
		double ui[CFD_NVAR], f[CFD_NVAR] = { 0 };
		struct cfd_prim qi;

		for (int v = 0; v < CFD_NVAR; v++)
			ui[v] = vars[v * nel + i];
		cfd_prim(&qi, ui);
		for (int k = 0; k < CFD_NNB; k++) {
			int j = m->nb[k * nel + i];
			double n[3], nn, uj[CFD_NVAR];
			struct cfd_prim qj;

			for (int d = 0; d < 3; d++)
				n[d] = m->normal[(k * 3 + d) * nel + i];
			nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
			if (j == CFD_WALL) {
				for (int d = 0; d < 3; d++)
					f[1 + d] += qi.p * n[d];
				continue;
			}
			for (int v = 0; v < CFD_NVAR; v++)
				uj[v] = j >= 0 ? vars[v * nel + j] : m->far[v];
			cfd_prim(&qj, uj);
			/* central flux with scalar dissipation */
			cfd_phys(&qi, n, 0.5, f);
			cfd_phys(&qj, n, 0.5, f);
			for (int v = 0; v < CFD_NVAR; v++)
				f[v] -= 0.5 * CFD_SMOOTH * nn * (qi.c + qj.c) *
					(uj[v] - ui[v]);
		}
		for (int v = 0; v < CFD_NVAR; v++)
			flux[v * nel + i] = (float)f[v];
	}
}

void ref_cfd_step(int nel, float dt, const float *area, const float *v0,
		  const float *flux, float *v1)
{
	for (int v = 0; v < CFD_NVAR; v++)
		for (int i = 0; i < nel; i++)
			v1[v * nel + i] = v0[v * nel + i] -
					  dt / area[i] * flux[v * nel + i];
}

/* ---- md ---- */

int md_gen(struct md_sys *s, int side, uint64_t seed)
{
	int n = side * side * side, k = 0;
	int off[MD_MAXNB][3];
	uint64_t r = seed;

	/* all lattice offsets with 0 < |d|^2 <= 4: 6 + 12 + 8 + 6 = 32 */
	for (int dz = -2; dz <= 2; dz++)
		for (int dy = -2; dy <= 2; dy++)
			for (int dx = -2; dx <= 2; dx++) {
				int d2 = dx * dx + dy * dy + dz * dz;

				if (d2 == 0 || d2 > 4)
					continue;
				off[k][0] = dx;
				off[k][1] = dy;
				off[k][2] = dz;
				k++;
			}
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->box = (float)side;
	s->pos = malloc(sizeof(float) * 4 * n);
	s->nb = malloc(sizeof(int) * MD_MAXNB * n);
	if (!s->pos || !s->nb || k != MD_MAXNB) {
		md_free(s);
		return -1;
	}
	for (int z = 0; z < side; z++)
		for (int y = 0; y < side; y++)
			for (int x = 0; x < side; x++) {
				int i = (z * side + y) * side + x;

				s->pos[4 * i + 0] = x + 0.1f * (ref_unif(&r) - 0.5f);
				s->pos[4 * i + 1] = y + 0.1f * (ref_unif(&r) - 0.5f);
				s->pos[4 * i + 2] = z + 0.1f * (ref_unif(&r) - 0.5f);
				s->pos[4 * i + 3] = 0.0f;
				for (int j = 0; j < MD_MAXNB; j++) {
					int ax = (x + off[j][0] + side) % side;
					int ay = (y + off[j][1] + side) % side;
					int az = (z + off[j][2] + side) % side;

					s->nb[j * n + i] = (az * side + ay) * side + ax;
				}
			}
	return 0;
}

void md_free(struct md_sys *s)
{
	free(s->pos);
	free(s->nb);
	s->pos = NULL;
	s->nb = NULL;
}

void ref_md_force(const struct md_sys *s, float *force)
{
	int n = s->n;
	double box = s->box;

	for (int i = 0; i < n; i++) {
		double f[3] = { 0, 0, 0 };

		for (int j = 0; j < MD_MAXNB; j++) {
			int a = s->nb[j * n + i];
			double d[3], r2 = 0;

			for (int c = 0; c < 3; c++) {
				d[c] = (double)s->pos[4 * i + c] - s->pos[4 * a + c];
				d[c] -= box * rint(d[c] / box);
				r2 += d[c] * d[c];
			}
			if (r2 < MD_CUT2) {
				double ri = 1.0 / r2, r6 = ri * ri * ri;
				double fr = ri * r6 * (MD_LJ1 * r6 - MD_LJ2);

				for (int c = 0; c < 3; c++)
					f[c] += d[c] * fr;
			}
		}
		for (int c = 0; c < 3; c++)
			force[4 * i + c] = (float)f[c];
		force[4 * i + 3] = 0.0f;
	}
}

/* ---- bp ---- */

void ref_bp(int n_in, const float *in, const float *w, const float *oldw,
	    const float *target, float *hid, float *wnew)
{
	double delta[BP_HID];

	for (int j = 0; j < BP_HID; j++) {
		double acc = 0;

		for (int i = 0; i < n_in; i++)
			acc += (double)in[i] * w[(size_t)i * BP_HID + j];
		hid[j] = (float)(1.0 / (1.0 + exp(-acc)));
		delta[j] = hid[j] * (1.0 - hid[j]) * (target[j] - hid[j]);
	}
	for (int i = 0; i < n_in; i++)
		for (int j = 0; j < BP_HID; j++) {
			size_t k = (size_t)i * BP_HID + j;

			wnew[k] = (float)(w[k] + BP_ETA * delta[j] * in[i] +
					  BP_MOM * oldw[k]);
		}
}

/* ---- lbm ---- */

const int lbm_c[LBM_Q][3] = {
	{ 0, 0, 0 },
	{ 1, 0, 0 }, { -1, 0, 0 }, { 0, 1, 0 }, { 0, -1, 0 }, { 0, 0, 1 },
	{ 0, 0, -1 },
	{ 1, 1, 0 }, { -1, -1, 0 }, { 1, -1, 0 }, { -1, 1, 0 },
	{ 1, 0, 1 }, { -1, 0, -1 }, { 1, 0, -1 }, { -1, 0, 1 },
	{ 0, 1, 1 }, { 0, -1, -1 }, { 0, 1, -1 }, { 0, -1, 1 },
};

const float lbm_w[LBM_Q] = {
	1.0f / 3,
	1.0f / 18, 1.0f / 18, 1.0f / 18, 1.0f / 18, 1.0f / 18, 1.0f / 18,
	1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36,
	1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36,
};

static double lbm_feq(int q, double r, const double *u)
{
	double cu = lbm_c[q][0] * u[0] + lbm_c[q][1] * u[1] + lbm_c[q][2] * u[2];
	double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];

	return lbm_w[q] * r * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * uu);
}

void lbm_init(int nx, int ny, int nz, float *f, uint64_t seed)
{
	size_t nc = (size_t)nx * ny * nz;
	uint64_t s = seed;

	for (size_t c = 0; c < nc; c++) {
		double r = 1.0 + 0.01 * (ref_unif(&s) - 0.5), u[3];

		for (int d = 0; d < 3; d++)
			u[d] = 0.02 * (ref_unif(&s) - 0.5);
		for (int q = 0; q < LBM_Q; q++)
			f[q * nc + c] = (float)lbm_feq(q, r, u);
	}
}

void ref_lbm_step(int nx, int ny, int nz, float omega, const float *fin,
		  float *fout)
{
	size_t nc = (size_t)nx * ny * nz;

	for (int z = 0; z < nz; z++)
		for (int y = 0; y < ny; y++)
			for (int x = 0; x < nx; x++) {
				size_t c = ((size_t)z * ny + y) * nx + x;
				double fl[LBM_Q], r = 0, u[3] = { 0, 0, 0 };

				for (int q = 0; q < LBM_Q; q++) {
					int sx = (x - lbm_c[q][0] + nx) % nx;
					int sy = (y - lbm_c[q][1] + ny) % ny;
					int sz = (z - lbm_c[q][2] + nz) % nz;
					size_t sc = ((size_t)sz * ny + sy) * nx + sx;

					fl[q] = fin[q * nc + sc];
					r += fl[q];
					for (int d = 0; d < 3; d++)
						u[d] += fl[q] * lbm_c[q][d];
				}
				for (int d = 0; d < 3; d++)
					u[d] /= r;
				for (int q = 0; q < LBM_Q; q++)
					fout[q * nc + c] = (float)(fl[q] +
						omega * (lbm_feq(q, r, u) - fl[q]));
			}
}

/* ---- hotspot ---- */

void ref_hotspot_step(int rows, int cols, const float *t, const float *p,
		      float *tout)
{
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++) {
			size_t i = (size_t)r * cols + c;
			float tc = t[i];
			float tn = r > 0 ? t[i - cols] : tc;
			float ts = r < rows - 1 ? t[i + cols] : tc;
			float tw = c > 0 ? t[i - 1] : tc;
			float te = c < cols - 1 ? t[i + 1] : tc;

			tout[i] = tc + HS_CX * (te + tw - 2.0f * tc) +
				  HS_CY * (tn + ts - 2.0f * tc) +
				  HS_CZ * (HS_AMB - tc) + HS_CP * p[i];
		}
}

/* ---- pathfinder ---- */

void ref_pathfinder(int rows, int cols, const int *wall, int *out)
{
	int *prev = malloc(sizeof(int) * cols);

	if (!prev)
		return;
	for (int c = 0; c < cols; c++)
		out[c] = wall[c];
	for (int r = 1; r < rows; r++) {
		memcpy(prev, out, sizeof(int) * cols);
		for (int c = 0; c < cols; c++) {
			int m = prev[c];

			if (c > 0 && prev[c - 1] < m)
				m = prev[c - 1];
			if (c < cols - 1 && prev[c + 1] < m)
				m = prev[c + 1];
			out[c] = wall[(size_t)r * cols + c] + m;
		}
	}
	free(prev);
}

/* ---- streamcluster ---- */

void ref_pgain(int n, int dim, int k, const float *pts, const float *wt,
	       const int *assign, const float *cost, int x, int *sw,
	       float *lower, double *gain)
{
	double *lo = calloc((size_t)k, sizeof(double)), g = 0;

	if (!lo)
		return;
	for (int i = 0; i < n; i++) {
		double d = 0;

		for (int j = 0; j < dim; j++) {
			double t = (double)pts[(size_t)j * n + i] -
				   pts[(size_t)j * n + x];

			d += t * t;
		}
		d *= wt[i];
		if (d < cost[i]) {
			sw[i] = 1;
			g += d - cost[i];
		} else {
			sw[i] = 0;
			lo[assign[i]] += cost[i] - d;
		}
	}
	for (int c = 0; c < k; c++)
		lower[c] = (float)lo[c];
	*gain = g;
	free(lo);
}

/* ---- spmv ---- */

int spmv_gen(int rows, uint64_t seed, int **rowptr, int **col, float **val)
{
	uint64_t s = seed;
	int *rp = malloc(sizeof(int) * (rows + 1)), *c;
	float *v;
	size_t nnz = 0;

	if (!rp)
		return -1;
	rp[0] = 0;
	for (int r = 0; r < rows; r++) {
		nnz += 16 + ref_rng(&s) % 33;	/* 16..48 per row */
		rp[r + 1] = (int)nnz;
	}
	c = malloc(sizeof(int) * nnz);
	v = malloc(sizeof(float) * nnz);
	if (!c || !v) {
		free(rp);
		free(c);
		free(v);
		return -1;
	}
	for (int r = 0; r < rows; r++)
		for (int k = rp[r]; k < rp[r + 1]; k++) {
			/* half near the diagonal, half anywhere */
			if (ref_rng(&s) & 1)
				c[k] = (int)((r + rows - 512 + ref_rng(&s) % 1024) %
					     (uint64_t)rows);
			else
				c[k] = (int)(ref_rng(&s) % (uint64_t)rows);
			v[k] = ref_unif(&s) - 0.5f;
		}
	*rowptr = rp;
	*col = c;
	*val = v;
	return 0;
}

void ref_spmv(int rows, const int *rowptr, const int *col, const float *val,
	      const float *x, float *y)
{
	for (int r = 0; r < rows; r++) {
		double acc = 0;

		for (int k = rowptr[r]; k < rowptr[r + 1]; k++)
			acc += (double)val[k] * x[col[k]];
		y[r] = (float)acc;
	}
}

/* ---- lud ---- */

void lud_gen(int n, float *a, uint64_t seed)
{
	uint64_t s = seed;

	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++)
			a[(size_t)i * n + j] = ref_unif(&s) - 0.5f;
		a[(size_t)i * n + i] += (float)n;
	}
}

void ref_lud(int n, float *a)
{
	double *m = malloc(sizeof(double) * n * n);

	if (!m)
		return;
	for (size_t i = 0; i < (size_t)n * n; i++)
		m[i] = a[i];
	for (int k = 0; k < n; k++)
		for (int i = k + 1; i < n; i++) {
			double l = m[(size_t)i * n + k] / m[(size_t)k * n + k];

			m[(size_t)i * n + k] = l;
			for (int j = k + 1; j < n; j++)
				m[(size_t)i * n + j] -= l * m[(size_t)k * n + j];
		}
	for (size_t i = 0; i < (size_t)n * n; i++)
		a[i] = (float)m[i];
	free(m);
}

/* ---- micro ---- */

const int micro_strides[9] = { 1, 2, 3, 4, 6, 8, 12, 16, 32 };
const float micro_overlaps[5] = { 0.0f, 0.05f, 0.10f, 0.15f, 0.20f };

size_t micro_index(size_t gtid, int j, size_t n, int stride, float overlap)
{
	size_t warp = gtid / 32, lane = gtid % 32;
	size_t win = (size_t)32 * MICRO_LOADS * stride;
	size_t base = (size_t)((double)warp * win * (1.0 - overlap));

	return (base + ((size_t)j * 32 + lane) * stride) % n;
}

void ref_micro(size_t nthreads, size_t n, const float *data, int stride,
	       float overlap, int iters, float *out)
{
	for (size_t t = 0; t < nthreads; t++) {
		float acc = 0.0f;

		for (int j = 0; j < MICRO_LOADS; j++) {
			float v = data[micro_index(t, j, n, stride, overlap)];

			for (int it = 0; it < iters * MICRO_FMA; it++)
				v = fmaf(v, 0.999f, 0.001f);
			acc += v;
		}
		out[t] = acc;
	}
}
