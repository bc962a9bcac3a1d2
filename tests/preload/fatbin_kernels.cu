// SPDX-License-Identifier: GPL-2.0
// Two kernels for test_fatbin: run.sh builds fatbins of them with nvcc.
__global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i] + y[i];
}

__global__ void scale(float *y, float a)
{
	y[blockIdx.x * blockDim.x + threadIdx.x] *= a;
}
