// SPDX-License-Identifier: GPL-2.0
/* gsp-xform corpus: 1-D grid-stride, 2-D and 3-D grids. */

/* No thread meets another: each runs its batch of tasks alone. */
// gsp-xform: barriers none grid_stride
__global__ void grid_stride(int n, const double *x, double *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += gridDim.x * blockDim.x)
		y[i] = 2.0 * x[i];
}

/* 5-point stencil on a 2-D grid of 16 x 16 blocks. */
__global__ void stencil2d(int w, int h, const float *in, float *out)
{
	int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;

	if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1)
		return;
	out[y * w + x] = 0.2f * (in[y * w + x] + in[y * w + x - 1] +
				 in[y * w + x + 1] + in[(y - 1) * w + x] +
				 in[(y + 1) * w + x]);
}

/* Every block writes its own 3-D coordinates and the grid's shape. */
__global__ void coords3d(unsigned *out)
{
	size_t b = ((size_t)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x +
		   blockIdx.x;
	size_t t = b * blockDim.x * blockDim.y * blockDim.z +
		   (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;

	out[4 * t + 0] = blockIdx.x;
	out[4 * t + 1] = blockIdx.y;
	out[4 * t + 2] = blockIdx.z;
	out[4 * t + 3] = gridDim.x * gridDim.y * gridDim.z;
}
