// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-xform corpus: device functions that stay calls in PTX and read
 * blockIdx/gridDim, on 1-D, 2-D and 3-D grids. Their clones take the
 * task's ids as parameters (Documentation/xform.rst, "Device functions").
 * fn_coords3d and fn_tile2d also run in bench/gpu/xform-check.cu.
 */

/* Reads the whole grid's shape and position: all six ids. */
__device__ __noinline__ unsigned block_linear()
{
	return (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
}

__device__ __noinline__ unsigned grid_blocks()
{
	return gridDim.x * gridDim.y * gridDim.z;
}

/* Reads no id itself: only passes them down to block_linear. */
__device__ __noinline__ unsigned thread_linear()
{
	unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x +
		       threadIdx.x;

	return block_linear() * (blockDim.x * blockDim.y * blockDim.z) + tid;
}

/* Recursion that nvcc keeps as calls. */
__device__ __noinline__ unsigned mix(unsigned d)
{
	return d == 0 ? blockIdx.z : mix(d - 1) * 3u + blockIdx.y;
}

/* No return value; counts its block once, so a task run twice shows. */
__device__ __noinline__ void record(unsigned *out, unsigned *count, unsigned t)
{
	out[4 * t + 0] = blockIdx.x;
	out[4 * t + 1] = blockIdx.y;
	out[4 * t + 2] = blockIdx.z;
	out[4 * t + 3] = grid_blocks();
	if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
		atomicAdd(&count[block_linear()], 1u);
}

/* 3-D: every id through functions, nested, recursive and void calls. */
__global__ void fn_coords3d(unsigned *out, unsigned *count, unsigned *mixed)
{
	unsigned t = thread_linear();

	record(out, count, t);
	mixed[t] = mix(threadIdx.x % 4);
}

__device__ __noinline__ unsigned tile_x(unsigned w)
{
	return blockIdx.x * w + threadIdx.x;
}

__device__ __noinline__ unsigned tile_y(unsigned h)
{
	return blockIdx.y * h + threadIdx.y;
}

/* 2-D: two call sites of one function (tile_x) in one kernel. */
__global__ void fn_tile2d(int w, int h, const float *in, float *out)
{
	unsigned x = tile_x(16), y = tile_y(16);

	if (x >= (unsigned)w || y >= (unsigned)h)
		return;
	out[y * w + x] = in[y * w + x] * 2.0f +
			 (float)(tile_x(1) - threadIdx.x) + (float)gridDim.y;
}

__device__ __noinline__ unsigned stride()
{
	return gridDim.x * blockDim.x;
}

/* 1-D: a grid-stride loop whose start and step come from functions. */
__global__ void fn_stride1d(int n, const float *x, float *y)
{
	for (unsigned i = tile_x(blockDim.x); i < (unsigned)n; i += stride())
		y[i] = 3.0f * x[i];
}

/* The same function from a kernel that cannot be transformed: it keeps
 * calling the original. */
// gsp-xform: skip sm-id fn_smid
__global__ void fn_smid(unsigned *out)
{
	unsigned sm;

	asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
	out[block_linear()] = sm;
}

typedef unsigned (*pick_fn)(unsigned);
__device__ pick_fn picks[2] = { tile_x, tile_y };

/* Through a function pointer the ids cannot follow. */
// gsp-xform: skip function fn_pointer
__global__ void fn_pointer(unsigned *out, int which)
{
	out[threadIdx.x] = picks[which & 1](4);
}
