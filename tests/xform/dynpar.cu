// SPDX-License-Identifier: GPL-2.0
/* gsp-xform corpus: dynamic parallelism (device-side launches). */
// gsp-xform: nvcc -rdc=true

__global__ void child(int *a)
{
	a[threadIdx.x] = 2;
}

// gsp-xform: skip dynamic-parallelism parent
__global__ void parent(int *a)
{
	if (threadIdx.x == 0)
		child<<<1, 32>>>(a);
}
