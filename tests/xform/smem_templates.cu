// SPDX-License-Identifier: GPL-2.0
/* gsp-xform corpus: dynamic shared memory, templates, several kernels. */

/* Dynamic shared memory only: reverse each block's chunk. */
__global__ void reverse_dyn(float *d, int n)
{
	extern __shared__ float buf[];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	buf[threadIdx.x] = i < n ? d[i] : 0.0f;
	__syncthreads();
	if (i < n)
		d[i] = buf[blockDim.x - 1 - threadIdx.x];
}

/* Static and dynamic shared memory together. */
__global__ void histogram(const unsigned char *in, unsigned *bins, int n)
{
	__shared__ unsigned local[256];
	extern __shared__ unsigned scratch[];

	local[threadIdx.x] = 0;
	scratch[threadIdx.x] = threadIdx.x;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += gridDim.x * blockDim.x)
		atomicAdd(&local[in[i]], 1u);
	__syncthreads();
	atomicAdd(&bins[scratch[threadIdx.x]], local[threadIdx.x]);
}

template <typename T, int TILE>
__global__ void transpose(const T *in, T *out, int w, int h)
{
	__shared__ T tile[TILE][TILE + 1];
	int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;

	if (x < w && y < h)
		tile[threadIdx.y][threadIdx.x] = in[y * w + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	if (x < h && y < w)
		out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}

template __global__ void transpose<float, 32>(const float *, float *, int, int);
template __global__ void transpose<double, 16>(const double *, double *, int, int);
template __global__ void transpose<int, 8>(const int *, int *, int, int);

/* Warp primitives after an early return of whole warps. */
/* No block barrier, but the shuffles meet the warp: it joins every task. */
// gsp-xform: barriers even warp_sum
__global__ void warp_sum(const int *in, int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x, v;

	if (blockIdx.x * blockDim.x + (threadIdx.x & ~31) >= n)
		return;
	v = i < n ? in[i] : 0;
	for (int o = 16; o > 0; o /= 2)
		v += __shfl_down_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(out, v);
}
