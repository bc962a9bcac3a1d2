// SPDX-License-Identifier: GPL-2.0
/* gsp-xform corpus: device functions that stay calls in PTX, printf. */
#include <cstdio>

__device__ __noinline__ float poly(float x)
{
	return ((x * 0.5f + 1.0f) * x - 2.0f) * x;
}

/* A call to a function that does not care about the block: transformable. */
__global__ void apply_poly(float *d, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		d[i] = poly(d[i]);
}

__device__ __noinline__ int block_base(int w)
{
	return blockIdx.x * w;
}

/* The callee reads blockIdx: the clone calls block_base's clone, which
 * takes the task's blockIdx.x as a parameter. */
__global__ void uses_block_base(int *d)
{
	d[block_base(blockDim.x) + threadIdx.x] = 1;
}

__device__ __noinline__ void stage(float *s, const float *g)
{
	s[threadIdx.x] = g[threadIdx.x];
	__syncthreads();
}

/* The callee synchronises the block: not joined by early exits. */
// gsp-xform: skip function uses_stage
__global__ void uses_stage(const float *g, float *o)
{
	__shared__ float s[128];

	stage(s, g + blockIdx.x * 128);
	o[blockIdx.x * 128 + threadIdx.x] = s[127 - threadIdx.x];
}

/* printf is an external call (vprintf): transformable. */
__global__ void hello(int n)
{
	if (threadIdx.x == 0 && blockIdx.x < n)
		printf("block %d of %d\n", blockIdx.x, gridDim.x);
}
