// Latency of a batch boundary's pieces, taken by one thread per block
// while the block's other warps (and 7 other blocks per SM) stream memory.
#include <cstdio>
#include <cuda_runtime.h>
__device__ unsigned long long ctr;
__device__ __forceinline__ unsigned long long gt() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ __forceinline__ long long ck() { return clock64(); }
__global__ void __launch_bounds__(256) k(const float4 *buf, size_t n, float *sink, unsigned long long *out, int load, unsigned nx, unsigned ny, int iters)
{
	__shared__ unsigned ent[3 * 40];
	__shared__ unsigned long long acc[8];
	if (threadIdx.x == 0) for (int i = 0; i < 8; i++) acc[i] = 0;
	__syncthreads();
	float s = 0;
	for (int it = 0; it < iters; it++) {
		if (threadIdx.x == 0) {
			long long t0 = ck();
			unsigned long long g = gt();
			long long t1 = ck();
			unsigned v = (unsigned)(g ^ (g >> 20)) + it * 977u;
			unsigned x = v % nx, q = v / nx, y = q % ny, z = q / ny;
			long long t2 = ck();
			unsigned long long c = atomicAdd(&ctr, 8ull);
			long long t3 = ck();
			x += (unsigned)c & 1;
			unsigned *e = ent;
			for (int j = 0; j < 8; j++) {
				e[0] = x; e[1] = y; e[2] = z; e += 3;
				if (++x == nx) { x = 0; if (++y == ny) { y = 0; z++; } }
			}
			__threadfence_block();
			long long t4 = ck();
			volatile unsigned *ve = ent;
			unsigned w = ve[5] + ve[7];
			long long t5 = ck();
			acc[0] += t1 - t0; acc[1] += t2 - t1; acc[2] += t3 - t2; acc[3] += t4 - t3; acc[4] += t5 - t4 + (w & 1);
		}
		long long b0 = ck();
		__syncthreads();
		long long b1 = ck();
		if (threadIdx.x == 0) acc[5] += b1 - b0;
		if (load && threadIdx.x >= 32) {
			size_t i = ((size_t)blockIdx.x * 224 + threadIdx.x - 32 + (size_t)it * gridDim.x * 224) % n;
			for (int r = 0; r < load; r++) { float4 f = buf[(i + (size_t)r * 7919 * 224) % n]; s += f.x + f.w; }
		}
		__syncthreads();
	}
	if (s == 12345.f) sink[0] = s;
	if (threadIdx.x == 0) for (int i = 0; i < 6; i++) atomicAdd(&out[i], acc[i]);
}
__global__ void gres(unsigned long long *o)
{
	unsigned long long a = gt(), mn = ~0ull, steps = 0; long long c0 = ck();
	for (int i = 0; i < 100000; i++) { unsigned long long b = gt(); if (b != a) { if (b - a < mn) mn = b - a; steps++; a = b; } }
	o[0] = mn; o[1] = steps; o[2] = ck() - c0;
}
int main()
{
	int nsm; cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0);
	int clk; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
	size_t n = 1 << 26; float4 *buf; float *sink; unsigned long long *out;
	cudaMalloc(&buf, n * 16); cudaMemset(buf, 0, n * 16); cudaMalloc(&sink, 4);
	cudaMallocManaged(&out, 6 * 8);
	const char *nm[6] = {"globaltimer", "div/rem x2", "atom.add", "fill 8", "lds", "bar(leader)"};
	for (int load : {0, 4, 16}) for (int bps : {1, 8}) {
		for (int i = 0; i < 6; i++) out[i] = 0;
		int g = nsm * bps, iters = 200;
		cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
		cudaEventRecord(e0);
		k<<<g, 256>>>(buf, n, sink, out, load, 128, 512, iters);
		cudaEventRecord(e1); cudaDeviceSynchronize();
		float ms; cudaEventElapsedTime(&ms, e0, e1);
		printf("load=%d blocks/SM=%d kernel %.1f us, per iter %.3f us;", load, bps, ms * 1e3, ms * 1e3 / iters);
		for (int i = 0; i < 6; i++) printf(" %s=%.0f cyc", nm[i], (double)out[i] / g / iters);
		printf("  (clock %d MHz)\n", clk / 1000);
	}
	gres<<<1, 1>>>(out); cudaDeviceSynchronize();
	printf("globaltimer: min step %llu ns, %llu steps in 100000 reads, %.1f cyc/read\n", out[0], out[1], out[2] / 1e5);
	printf("err %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
