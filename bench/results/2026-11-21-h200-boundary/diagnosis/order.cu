// Does running tasks in persistent-batch order (concurrent tasks B apart)
// cost time against hardware order? Hotspot-like stencil and a streaming
// kernel, blocks launched normally, block id permuted.
#include <cstdio>
#include <cuda_runtime.h>
#define TX 32
#define TY 8
__device__ __forceinline__ unsigned perm(unsigned i, unsigned n, unsigned G, unsigned B)
{
	unsigned W = G * B, base = i - i % W, l = i % W;
	if (base + W > n) return i;
	return base + (l % G) * B + l / G;
}
__global__ void __launch_bounds__(TX * TY) hs(int rows, int cols, const float *t, const float *p, float *tout, unsigned G, unsigned B)
{
	__shared__ float s[TY + 2][TX + 2];
	unsigned n = gridDim.x, id = perm(blockIdx.x, n, G, B);
	unsigned gx = (cols + TX - 1) / TX;
	int bx = id % gx, by = id / gx;
	int c = bx * TX + threadIdx.x, r = by * TY + threadIdx.y;
	int cc = min(c, cols - 1), rr = min(r, rows - 1);
	float tc = t[(size_t)rr * cols + cc];
	s[threadIdx.y + 1][threadIdx.x + 1] = tc;
	if (threadIdx.x == 0) s[threadIdx.y + 1][0] = t[(size_t)rr * cols + max(cc - 1, 0)];
	if (threadIdx.x == TX - 1) s[threadIdx.y + 1][TX + 1] = t[(size_t)rr * cols + min(cc + 1, cols - 1)];
	if (threadIdx.y == 0) s[0][threadIdx.x + 1] = t[(size_t)max(rr - 1, 0) * cols + cc];
	if (threadIdx.y == TY - 1) s[TY + 1][threadIdx.x + 1] = t[(size_t)min(rr + 1, rows - 1) * cols + cc];
	__syncthreads();
	if (c >= cols || r >= rows) return;
	float tw = c > 0 ? s[threadIdx.y + 1][threadIdx.x] : tc;
	float te = c < cols - 1 ? s[threadIdx.y + 1][threadIdx.x + 2] : tc;
	float tn = r > 0 ? s[threadIdx.y][threadIdx.x + 1] : tc;
	float ts = r < rows - 1 ? s[threadIdx.y + 2][threadIdx.x + 1] : tc;
	size_t i = (size_t)r * cols + c;
	tout[i] = tc + 0.1f * (te + tw - 2.0f * tc) + 0.1f * (tn + ts - 2.0f * tc) + 0.01f * (80.f - tc) + 0.2f * p[i];
}
__global__ void __launch_bounds__(256) stream(const float *a, const float *b, float *o, unsigned G, unsigned B)
{
	unsigned id = perm(blockIdx.x, gridDim.x, G, B);
	size_t i = (size_t)id * 256 + threadIdx.x;
	o[i] = a[i] * 1.5f + b[i];
}
int main()
{
	int rows = 4096, cols = 4096; size_t n = (size_t)rows * cols;
	float *t, *p, *o; cudaMalloc(&t, n * 4); cudaMalloc(&p, n * 4); cudaMalloc(&o, n * 4);
	cudaMemset(t, 0, n * 4); cudaMemset(p, 0, n * 4);
	int nsm; cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0);
	unsigned G = nsm * 8;
	cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
	unsigned Bs[] = {1, 2, 4, 8, 16, 32, 3, 7, 13};
	printf("kernel,B,us_per_launch,rep\n");
	for (int rep = 0; rep < 3; rep++)
	for (unsigned B : Bs) {
		dim3 blk(TX, TY); unsigned nb = (cols / TX) * (rows / TY);
		for (int w = 0; w < 20; w++) hs<<<nb, blk>>>(rows, cols, t, p, o, G, B);
		cudaEventRecord(e0);
		for (int w = 0; w < 200; w++) hs<<<nb, blk>>>(rows, cols, t, p, o, G, B);
		cudaEventRecord(e1); cudaEventSynchronize(e1);
		float ms; cudaEventElapsedTime(&ms, e0, e1);
		printf("hs,%u,%.2f,%d\n", B, ms * 1000 / 200, rep);
		unsigned ns = n / 256;
		for (int w = 0; w < 20; w++) stream<<<ns, 256>>>(t, p, o, G, B);
		cudaEventRecord(e0);
		for (int w = 0; w < 200; w++) stream<<<ns, 256>>>(t, p, o, G, B);
		cudaEventRecord(e1); cudaEventSynchronize(e1);
		cudaEventElapsedTime(&ms, e0, e1);
		printf("stream,%u,%.2f,%d\n", B, ms * 1000 / 200, rep);
	}
	printf("err %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
