// SPDX-License-Identifier: GPL-2.0
/*
 * hwprobe: the machine's constants for the Prophet predictor, as the
 * hw.csv of Documentation/tracing.rst:
 *
 *   sms,max_warps_per_sm,max_blocks_per_sm,regs_per_sm,smem_per_sm,
 *   dram_Bps,h2d_Bps,d2h_Bps
 *
 * The limits come from cudaGetDeviceProperties. dram_Bps is the effective
 * device-memory bandwidth of a streaming copy kernel (16-byte loads and
 * stores, grid-stride) over two --dram-mib buffers, far above L2 (50 MB
 * on H100) so that every byte goes to DRAM: bytes read plus written over
 * the kernel's time, the best of --reps. h2d_Bps and d2h_Bps: one
 * cudaMemcpy of --copy-mib between pinned host memory and the device,
 * the best of --reps.
 *
 *   hwprobe --out hw.csv [--dram-mib 1024] [--copy-mib 256] [--reps 5]
 *
 * Exit 2 for a bad argument, 1 for a CUDA error.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_cli.h"

#define CK(x) do {							\
	cudaError_t e_ = (x);						\
	if (e_ != cudaSuccess) {					\
		fprintf(stderr, "hwprobe: %s:%d: %s: %s\n", __FILE__,	\
			__LINE__, #x, cudaGetErrorString(e_));		\
		exit(1);						\
	}								\
} while (0)

__global__ void stream_copy(const uint4 *__restrict__ src,
			    uint4 *__restrict__ dst, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride)
		dst[i] = src[i];
}

/* Seconds of the fastest of @reps runs of what @run issues on stream 0. */
template <typename F> static double best_s(int reps, F run)
{
	cudaEvent_t a, b;
	float best = 0;

	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int i = 0; i < reps; i++) {
		float ms;

		CK(cudaEventRecord(a));
		run();
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		if (!i || ms < best)
			best = ms;
	}
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
	return best * 1e-3;
}

static void usage(void)
{
	fprintf(stderr, "usage: hwprobe --out FILE [--dram-mib N] [--copy-mib N] [--reps N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	size_t dram_mib = 1024, copy_mib = 256;
	int reps = 5, blocks;
	cudaDeviceProp p;
	double dram, h2d, d2h;
	void *src, *dst, *host;
	size_t n, bytes;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--out") && v)
			out = v;
		else if (!strcmp(argv[i], "--dram-mib"))
			dram_mib = cli_num("hwprobe", "--dram-mib", v, 1024, 1 << 16);
		else if (!strcmp(argv[i], "--copy-mib"))
			copy_mib = cli_num("hwprobe", "--copy-mib", v, 1, 1 << 16);
		else if (!strcmp(argv[i], "--reps"))
			reps = (int)cli_num("hwprobe", "--reps", v, 1, 100);
		else
			usage();
		i++;
	}
	if (!out)
		usage();

	CK(cudaGetDeviceProperties(&p, 0));

	/* DRAM: two buffers of dram_mib, copied one into the other */
	bytes = dram_mib << 20;
	n = bytes / sizeof(uint4);
	CK(cudaMalloc(&src, bytes));
	CK(cudaMalloc(&dst, bytes));
	CK(cudaMemset(src, 1, bytes));
	CK(cudaMemset(dst, 0, bytes));
	/* enough blocks to fill every SM at full occupancy */
	blocks = p.multiProcessorCount * (p.maxThreadsPerMultiProcessor / 256);
	stream_copy<<<blocks, 256>>>((const uint4 *)src, (uint4 *)dst, n);
	CK(cudaGetLastError());
	dram = 2.0 * bytes / best_s(reps, [&] {
		stream_copy<<<blocks, 256>>>((const uint4 *)src, (uint4 *)dst, n);
	});
	CK(cudaGetLastError());

	/* PCIe: pinned copies, one direction at a time */
	bytes = copy_mib << 20;
	CK(cudaMallocHost(&host, bytes));
	memset(host, 1, bytes);
	CK(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice));
	h2d = bytes / best_s(reps, [&] {
		CK(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice));
	});
	d2h = bytes / best_s(reps, [&] {
		CK(cudaMemcpyAsync(host, dst, bytes, cudaMemcpyDeviceToHost));
	});
	CK(cudaFreeHost(host));
	CK(cudaFree(src));
	CK(cudaFree(dst));

	f = fopen(out, "w");
	if (!f) {
		perror(out);
		return 1;
	}
	fprintf(f, "sms,max_warps_per_sm,max_blocks_per_sm,regs_per_sm,"
		"smem_per_sm,dram_Bps,h2d_Bps,d2h_Bps\n");
	fprintf(f, "%d,%d,%d,%d,%zu,%.0f,%.0f,%.0f\n", p.multiProcessorCount,
		p.maxThreadsPerMultiProcessor / p.warpSize,
		p.maxBlocksPerMultiProcessor, p.regsPerMultiprocessor,
		p.sharedMemPerMultiprocessor, dram, h2d, d2h);
	if (fclose(f)) {
		perror(out);
		return 1;
	}
	printf("hwprobe: %s: %d SMs, DRAM %.0f GB/s (copy kernel, 2 x %zu MiB), "
	       "H2D %.1f GB/s, D2H %.1f GB/s (pinned, %zu MiB)\n", p.name,
	       p.multiProcessorCount, dram * 1e-9, dram_mib, h2d * 1e-9,
	       d2h * 1e-9, copy_mib);
	return 0;
}
