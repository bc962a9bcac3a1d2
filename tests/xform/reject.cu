// SPDX-License-Identifier: GPL-2.0
/* gsp-xform corpus: kernels that must be left unchanged, with the reason. */
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// gsp-xform: skip grid-sync grid_sync_sum
__global__ void grid_sync_sum(int *a)
{
	cg::grid_group g = cg::this_grid();

	a[g.thread_rank()] = 1;
	g.sync();
	if (g.thread_rank() == 0)
		a[0] += a[1];
}

// gsp-xform: skip cluster cluster_dims
__global__ void __cluster_dims__(2, 1, 1) cluster_dims(int *a)
{
	a[blockIdx.x] = 3;
}

// gsp-xform: skip cluster cluster_sync
__global__ void cluster_sync(int *a)
{
	cg::cluster_group c = cg::this_cluster();

	a[blockIdx.x] = (int)c.block_rank();
	c.sync();
}

// gsp-xform: skip sm-id reads_smid
__global__ void reads_smid(unsigned *out)
{
	unsigned sm;

	asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
	out[blockIdx.x] = sm;
}

/* The one kernel of this file that is transformable. */
__global__ void plain(int *a)
{
	a[blockIdx.x * blockDim.x + threadIdx.x] = 7;
}
