/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The micro-benchmark family's per-thread body, in one place: gsp-wl's
 * micro kernel (wl_micro.cu) and the co-run harness's LC and persistent
 * BE kernels (bench/gpu/corun.cu) all run it, so the tables corun.cu
 * measures are of the very code gsp-wl runs.
 */
#ifndef GSP_MICRO_CUH
#define GSP_MICRO_CUH

#include <stddef.h>
#include "ref/ref.h"

#define MICRO_NB	256		/* threads per block */
#define MICRO_THREADS	(160 * 1024)	/* threads of one kernel */

/*
 * Thread @t of the family's kernel: MICRO_LOADS loads of @d (n floats)
 * at @stride, from a window that overlaps the previous warp's by
 * @overlap, each through @iters x MICRO_FMA dependent FMAs; returns
 * their sum (ref_micro() is the CPU reference).
 */
static __device__ __forceinline__ float micro_body(size_t t, size_t n,
		const float *d, int stride, float overlap, int iters)
{
	size_t warp = t / 32, lane = t % 32;
	size_t win = (size_t)32 * MICRO_LOADS * stride;
	size_t base = (size_t)((double)warp * win * (1.0 - (double)overlap));
	float acc = 0.0f;

#pragma unroll 4
	for (int j = 0; j < MICRO_LOADS; j++) {
		float v = d[(base + ((size_t)j * 32 + lane) * stride) % n];

		for (int it = 0; it < iters * MICRO_FMA; it++)
			v = fmaf(v, 0.999f, 0.001f);
		acc += v;
	}
	return acc;
}

#endif /* GSP_MICRO_CUH */
