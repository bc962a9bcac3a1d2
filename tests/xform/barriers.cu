// SPDX-License-Identifier: GPL-2.0
/* gsp-xform corpus: block barriers, early returns before and after them. */

/* Tree reduction: barriers in a loop, a bounds-guarded load. */
// gsp-xform: barriers even reduce_sum
__global__ void reduce_sum(const float *in, float *out, int n)
{
	__shared__ float s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	s[threadIdx.x] = i < n ? in[i] : 0.0f;
	__syncthreads();
	for (int w = blockDim.x / 2; w > 0; w /= 2) {
		if (threadIdx.x < w)
			s[threadIdx.x] += s[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = s[0];
}

/* The classic guard: threads past the end return at once. */
__global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	y[i] = a * x[i] + y[i];
}

/*
 * Whole blocks return early, the others go through two barriers (the
 * flag is loaded, so the analysis cannot tell that it is the block's).
 */
// gsp-xform: barriers joined skip_blocks
__global__ void skip_blocks(const int *flags, float *data, int n)
{
	__shared__ float tile[128];

	if (flags[blockIdx.x] == 0)
		return;
	tile[threadIdx.x] = data[blockIdx.x * 128 + threadIdx.x];
	__syncthreads();
	data[blockIdx.x * 128 + threadIdx.x] = tile[127 - threadIdx.x];
	__syncthreads();
	if (threadIdx.x == 0 && n > 0)
		data[blockIdx.x * 128] += 1.0f;
}

/* Some threads return after the last barrier, some before the store. */
// gsp-xform: barriers even late_return
__global__ void late_return(const float *in, float *out, int n)
{
	__shared__ float s[64];
	int i = blockIdx.x * 64 + threadIdx.x;

	s[threadIdx.x] = i < n ? in[i] : 0.0f;
	__syncthreads();
	if (threadIdx.x & 1)
		return;
	if (i < n)
		out[i] = s[threadIdx.x] + s[63 - threadIdx.x];
}

/* Threads past the end leave before the barrier. */
// gsp-xform: barriers joined partial_tile
__global__ void partial_tile(const float *in, float *out, int n)
{
	__shared__ float s[128];
	int i = blockIdx.x * 128 + threadIdx.x;

	if (i >= n)
		return;
	s[threadIdx.x] = in[i];
	__syncthreads();
	out[i] = 2.0f * s[threadIdx.x];
}

/* __syncthreads_count: a barrier reduction that the join cannot take part in. */
// gsp-xform: skip barrier count_positive
__global__ void count_positive(const int *a, int *out)
{
	int c = __syncthreads_count(a[blockIdx.x * blockDim.x + threadIdx.x] > 0);

	if (threadIdx.x == 0)
		out[blockIdx.x] = c;
}
