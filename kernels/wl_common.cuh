/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the workload sources (device and host side). */
#ifndef GSP_WL_COMMON_CUH
#define GSP_WL_COMMON_CUH

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wl.h"
#include "ref/ref.h"

#define CK(x) do {							\
	cudaError_t e_ = (x);						\
	if (e_ != cudaSuccess) {					\
		fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__,	\
			#x, cudaGetErrorString(e_));			\
		return -1;						\
	}								\
} while (0)
#define CKL() CK(cudaGetLastError())

/* Raise a kernel's dynamic shared-memory limit where the padding needs it. */
static inline int wl_allow_smem(const void *f, size_t bytes)
{
	if (bytes <= 48 * 1024)
		return 0;
	return cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
				    (int)bytes) == cudaSuccess ? 0 : -1;
}

/* Allocate n elements on the device and copy them from h (if h). */
template <class T> static int wl_up(T **d, const T *h, size_t n)
{
	CK(cudaMalloc((void **)d, n * sizeof(T)));
	if (h)
		CK(cudaMemcpy(*d, h, n * sizeof(T), cudaMemcpyHostToDevice));
	return 0;
}

template <class T> static int wl_down(T *h, const T *d, size_t n)
{
	CK(cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost));
	return 0;
}

static inline int wl_report(const char *name, double err, double tol)
{
	int bad = !(err <= tol);

	fprintf(stderr, "%s: check relerr %.3g (tolerance %.1g): %s\n", name,
		err, tol, bad ? "FAIL" : "ok");
	return bad ? -1 : 0;
}

#define WL_ALLOC(p, n) do {						\
	(p) = (decltype(p))calloc((n), sizeof(*(p)));			\
	if (!(p))							\
		return -1;						\
} while (0)

#endif
