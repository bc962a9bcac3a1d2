/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deterministic input generators and CPU reference implementations of the
 * gspace benchmark workloads. Plain C11: built with nvcc's host compiler
 * into gsp-wl and with cc -fsanitize=address,undefined into the unit test.
 */
#ifndef GSP_REF_H
#define GSP_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64: the one PRNG of all generators */
uint64_t ref_rng(uint64_t *s);
float ref_unif(uint64_t *s);		/* [0, 1) */
void ref_fill(float *x, size_t n, uint64_t seed, float lo, float hi);

/* relative L2 error ||a - b|| / ||b||; NaN or Inf anywhere gives 1e30 */
double ref_relerr(const float *a, const float *b, size_t n);

/* mm: C[m x n] = A[m x k] * B[k x n], row-major */
void ref_sgemm(int m, int n, int k, const float *a, const float *b, float *c);

/* nn: Euclidean distance of each record to the target; returns argmin */
size_t ref_nn(size_t n, const float *lat, const float *lng, float tlat,
	      float tlng, float *dist);

/* cfd: unstructured mesh, 4 faces per cell, 5 conserved variables (SoA) */
#define CFD_NVAR 5
#define CFD_NNB 4
#define CFD_WALL (-1)
#define CFD_FAR (-2)
struct cfd_mesh {
	int nel;
	int *nb;		/* [CFD_NNB * nel], face-major: nb[f * nel + i] */
	float *normal;		/* [3 * CFD_NNB * nel]: normal[(f*3+d) * nel + i] */
	float *area;		/* [nel] */
	float *vars;		/* [CFD_NVAR * nel]: vars[v * nel + i] */
	float far[CFD_NVAR];	/* far-field state */
};
int cfd_mesh_gen(struct cfd_mesh *m, int nel, uint64_t seed, int walls_only);
void cfd_mesh_free(struct cfd_mesh *m);
void ref_cfd_flux(const struct cfd_mesh *m, const float *vars, float *flux);
void ref_cfd_step(int nel, float dt, const float *area, const float *v0,
		  const float *flux, float *v1);
#define CFD_GAMMA 1.4f
#define CFD_SMOOTH 0.2f
#define CFD_DT 1e-4f

/* md: Lennard-Jones forces over a fixed neighbour list on a periodic box */
#define MD_MAXNB 32
struct md_sys {
	int n;
	float box;
	float *pos;		/* [4 * n], xyz plus padding */
	int *nb;		/* [MD_MAXNB * n], nb[j * n + i] */
};
int md_gen(struct md_sys *s, int side, uint64_t seed);
void md_free(struct md_sys *s);
void ref_md_force(const struct md_sys *s, float *force /* [4 * n] */);
#define MD_CUT2 6.25f
#define MD_LJ1 1.5f
#define MD_LJ2 2.0f

/* bp: one layer forward (n_in -> n_hid, sigmoid), deltas, weight adjust */
#define BP_HID 16
#define BP_ETA 0.3f
#define BP_MOM 0.3f
void ref_bp(int n_in, const float *in, const float *w, const float *oldw,
	    const float *target, float *hid, float *wnew);

/* lbm: D3Q19 BGK, pull streaming, periodic box, SoA f[q * ncell + cell] */
#define LBM_Q 19
extern const int lbm_c[LBM_Q][3];
extern const float lbm_w[LBM_Q];
void lbm_init(int nx, int ny, int nz, float *f, uint64_t seed);
void ref_lbm_step(int nx, int ny, int nz, float omega, const float *fin,
		  float *fout);
#define LBM_OMEGA 1.6f

/* hotspot: explicit 2-D heat step, edges mirror the cell itself */
#define HS_CX 0.1f
#define HS_CY 0.1f
#define HS_CZ 0.001f
#define HS_CP 0.5f
#define HS_AMB 80.0f
void ref_hotspot_step(int rows, int cols, const float *t, const float *p,
		      float *tout);

/* pathfinder: min-cost path DP, returns the last row's costs */
void ref_pathfinder(int rows, int cols, const int *wall, int *out);

/* streamcluster: pgain cost of opening candidate x */
void ref_pgain(int n, int dim, int k, const float *pts, const float *wt,
	       const int *assign, const float *cost, int x, int *sw,
	       float *lower /* [k] */, double *gain);

/* spmv: CSR y = A x */
void ref_spmv(int rows, const int *rowptr, const int *col, const float *val,
	      const float *x, float *y);
int spmv_gen(int rows, uint64_t seed, int **rowptr, int **col, float **val);

/* lud: in-place LU without pivoting (diagonally dominant input) */
void lud_gen(int n, float *a, uint64_t seed);
void ref_lud(int n, float *a);

/* micro: stride x overlap x iterations */
#define MICRO_LOADS 16
#define MICRO_FMA 8
size_t micro_index(size_t gtid, int j, size_t n, int stride, float overlap);
void ref_micro(size_t nthreads, size_t n, const float *data, int stride,
	       float overlap, int iters, float *out);
extern const int micro_strides[9];
extern const float micro_overlaps[5];

#ifdef __cplusplus
}
#endif
#endif
