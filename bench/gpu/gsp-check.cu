// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-check: a deterministic CUDA program for the interposer's
 * correctness test. It drives the CUDA paths that gsp-run intercepts
 * (several streams, events and cross-stream waits, sync and async copies
 * from pinned and pageable memory, 2-D and 3-D copies, device-to-device
 * copies, memsets, a 2-D grid kernel with __syncthreads, a CUDA graph
 * launched several times, cudaStreamPerThread from two host threads, a
 * cooperative launch, and one cuLaunchKernel through the driver API),
 * checks every output against a CPU reference, and prints one FNV-1a
 * hash per output buffer on stdout:
 *
 *   gsp-check > plain.txt
 *   gsp-run --class be -- gsp-check > be.txt
 *   diff plain.txt be.txt
 *
 * Exit status: 0 if every output matched its reference, 1 otherwise or
 * on a CUDA error. Diagnostics go to stderr.
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) do {							\
	cudaError_t e_ = (x);						\
	if (e_ != cudaSuccess) {					\
		fprintf(stderr, "gsp-check: %s:%d: %s: %s\n", __FILE__,	\
			__LINE__, #x, cudaGetErrorString(e_));		\
		exit(1);						\
	}								\
} while (0)

enum {
	N = 1 << 20,		/* elements of the 1-D buffers */
	MW = 1024, MH = 1024,	/* the 1-D buffers seen as a matrix */
	TILE = 32,
	P_W = 300, P_H = 200,	/* the pitched 2-D copy, bytes x rows */
	V_X = 64, V_Y = 32, V_Z = 16,	/* the 3-D copy, u32 elements */
	G_LAUNCHES = 5,		/* graph launches */
	PT_THREADS = 2,		/* host threads on cudaStreamPerThread */
	PT_N = N / 4,		/* elements per host thread */
};

/* Any bijective integer mixer will do; these are our own odd constants. */
__host__ __device__ static inline uint32_t mix32(uint32_t x)
{
	x = (x ^ (x >> 15)) * 0x2c1b3c6dU;
	x = (x ^ (x >> 12)) * 0x297a2d39U;
	return x ^ (x >> 15);
}

__host__ __device__ static inline uint32_t rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

__global__ void k_combine(uint32_t *c, const uint32_t *a, const uint32_t *b)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < N)
		c[i] += mix32(a[i] ^ rotl32(b[i], 7));
}

/* out = in^T + 1 through a shared tile: 2-D grid, block TILE x 8. */
__global__ void k_transpose(uint32_t *out, const uint32_t *in)
{
	__shared__ uint32_t t[TILE][TILE + 1];
	uint32_t x = blockIdx.x * TILE + threadIdx.x;
	uint32_t y = blockIdx.y * TILE + threadIdx.y;

	for (int j = 0; j < TILE; j += 8)
		t[threadIdx.y + j][threadIdx.x] = in[(y + j) * MW + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += 8)
		out[(y + j) * MH + x] = t[threadIdx.x][threadIdx.y + j] + 1;
}

/* One 64-bit weighted sum per block of 256, a fixed-order tree. */
__global__ void k_blocksum(unsigned long long *s, const uint32_t *in)
{
	__shared__ unsigned long long p[256];
	uint32_t i = blockIdx.x * 256 + threadIdx.x;

	p[threadIdx.x] = (unsigned long long)in[i] * (threadIdx.x % 7 + 1);
	__syncthreads();
	for (int w = 128; w > 0; w >>= 1) {
		if ((int)threadIdx.x < w)
			p[threadIdx.x] += p[threadIdx.x + w];
		__syncthreads();
	}
	if (!threadIdx.x)
		s[blockIdx.x] = p[0];
}

/* Launched with cuLaunchKernel, the driver API. */
__global__ void k_scale(uint32_t *d)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < N)
		d[i] = d[i] * 2654435761U + i;
}

__global__ void k_pitch(uint8_t *m, size_t pitch)
{
	uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t y = blockIdx.y;

	if (x < P_W)
		m[y * pitch + x] = (uint8_t)(m[y * pitch + x] * 3 + (x ^ y));
}

__global__ void k_vol(cudaPitchedPtr v)
{
	uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t y = blockIdx.y, z = blockIdx.z;
	uint32_t *row = (uint32_t *)((char *)v.ptr + (z * V_Y + y) * v.pitch);

	if (x < V_X)
		row[x] = mix32(row[x] + x + 100 * y + 10000 * z);
}

__global__ void k_step(uint32_t *g, uint32_t salt)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < N)
		g[i] = mix32(g[i] + salt);
}

__global__ void k_fill(uint32_t *p, uint32_t seed)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < PT_N)
		p[i] = mix32(i * 0x9e3779b9U + seed);
}

/*
 * Two phases separated by a grid-wide barrier. A cooperative launch
 * guarantees that all blocks are resident, which is what makes this
 * spinning barrier safe. @cnt is zero at launch.
 */
__global__ void k_coop(uint32_t *k, uint32_t *k2, unsigned int *cnt)
{
	uint32_t stride = gridDim.x * blockDim.x;
	uint32_t i0 = blockIdx.x * blockDim.x + threadIdx.x;

	for (uint32_t i = i0; i < N; i += stride)
		k[i] = mix32(i + 7);
	__syncthreads();
	if (!threadIdx.x) {
		__threadfence();
		atomicAdd(cnt, 1);
		while (atomicAdd(cnt, 0) < gridDim.x)
			;
		__threadfence();
	}
	__syncthreads();
	for (uint32_t i = i0; i < N; i += stride)
		k2[i] = k[i] ^ __ldcg(&k[(i + 1) % N]);
}

static uint64_t fnv1a(const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static int failures;

/* Prints the hash of @got and compares it with the CPU's @want. */
static void report(const char *name, const void *got, const void *want,
		   size_t bytes)
{
	printf("%-10s %016llx\n", name, (unsigned long long)fnv1a(got, bytes));
	if (memcmp(got, want, bytes)) {
		const unsigned char *g = (const unsigned char *)got;
		const unsigned char *w = (const unsigned char *)want;
		size_t i = 0;

		while (g[i] == w[i])
			i++;
		fprintf(stderr, "gsp-check: %s differs from the CPU reference at byte %zu\n",
			name, i);
		failures++;
	}
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		fprintf(stderr, "gsp-check: out of memory\n");
		exit(1);
	}
	return p;
}

struct pt_arg {
	uint32_t *d, *h;
	uint32_t seed;
	cudaError_t err;
};

/* One host thread: a kernel and a copy on its own per-thread stream. */
static void *pt_main(void *v)
{
	struct pt_arg *a = (struct pt_arg *)v;

	k_fill<<<PT_N / 256, 256, 0, cudaStreamPerThread>>>(a->d, a->seed);
	a->err = cudaGetLastError();
	if (a->err == cudaSuccess)
		a->err = cudaMemcpyAsync(a->h, a->d, PT_N * 4,
					 cudaMemcpyDeviceToHost,
					 cudaStreamPerThread);
	if (a->err == cudaSuccess)
		a->err = cudaStreamSynchronize(cudaStreamPerThread);
	return NULL;
}

int main(int argc, char **argv)
{
	const size_t nb = N * sizeof(uint32_t);
	uint32_t *dA, *dB, *dC, *dT, *dD, *dG, *dG2, *dP, *dK, *dK2;
	unsigned long long *dS;
	unsigned int *dCnt;
	uint8_t *dM;
	size_t mpitch;
	cudaStream_t s1, s2, s3, sg;
	cudaEvent_t eB, eC, eT;
	int coop = 0, sms = 0, dev = 0;

	if (argc > 1) {
		fprintf(stderr, "usage: %s (no arguments; prints one hash per output buffer)\n",
			argv[0]);
		return 2;
	}

	uint32_t *hA = (uint32_t *)xmalloc(nb), *hB, *hOut;
	for (uint32_t i = 0; i < N; i++)
		hA[i] = mix32(i ^ 0xa5a5a5a5U);
	CK(cudaMallocHost((void **)&hB, nb));
	CK(cudaMallocHost((void **)&hOut, 2 * nb));
	for (uint32_t i = 0; i < N; i++)
		hB[i] = mix32(3 * i + 1);

	CK(cudaMalloc((void **)&dA, nb));
	CK(cudaMalloc((void **)&dB, nb));
	CK(cudaMalloc((void **)&dC, nb));
	CK(cudaMalloc((void **)&dT, nb));
	CK(cudaMalloc((void **)&dD, nb));
	CK(cudaMalloc((void **)&dG, nb));
	CK(cudaMalloc((void **)&dG2, nb));
	CK(cudaMalloc((void **)&dP, PT_THREADS * PT_N * 4));
	CK(cudaMalloc((void **)&dK, nb));
	CK(cudaMalloc((void **)&dK2, nb));
	CK(cudaMalloc((void **)&dS, N / 256 * 8));
	CK(cudaMalloc((void **)&dCnt, 4));
	CK(cudaStreamCreate(&s1));
	CK(cudaStreamCreate(&s2));
	CK(cudaStreamCreate(&s3));
	CK(cudaStreamCreateWithFlags(&sg, cudaStreamNonBlocking));
	CK(cudaEventCreateWithFlags(&eB, cudaEventDisableTiming));
	CK(cudaEventCreateWithFlags(&eC, cudaEventDisableTiming));
	CK(cudaEventCreate(&eT));

	/* Pageable sync copy, pinned async copy, memset, cross-stream waits. */
	CK(cudaMemcpy(dA, hA, nb, cudaMemcpyHostToDevice));
	CK(cudaMemcpyAsync(dB, hB, nb, cudaMemcpyHostToDevice, s1));
	CK(cudaEventRecord(eB, s1));
	CK(cudaMemsetAsync(dC, 0x5a, nb, s2));
	CK(cudaStreamWaitEvent(s2, eB, 0));
	k_combine<<<N / 256, 256, 0, s2>>>(dC, dA, dB);
	CK(cudaGetLastError());
	CK(cudaEventRecord(eC, s2));
	CK(cudaStreamWaitEvent(s3, eC, 0));
	k_transpose<<<dim3(MW / TILE, MH / TILE), dim3(TILE, 8), 0, s3>>>(dT, dC);
	CK(cudaGetLastError());
	k_blocksum<<<N / 256, 256, 0, s3>>>(dS, dT);
	CK(cudaGetLastError());
	CK(cudaEventRecord(eT, s3));
	CK(cudaStreamWaitEvent(s1, eT, 0));
	CK(cudaMemcpyAsync(dD, dT, nb, cudaMemcpyDeviceToDevice, s1));

	/* The same kernel object, launched through the driver API. */
	cudaFunction_t fn;
	void *kp[] = { &dD };
	CK(cudaGetFuncBySymbol(&fn, (const void *)k_scale));
	CUresult cr = cuLaunchKernel((CUfunction)fn, N / 256, 1, 1, 256, 1, 1,
				     0, (CUstream)s1, kp, NULL);
	if (cr != CUDA_SUCCESS) {
		const char *es = "?";

		cuGetErrorString(cr, &es);
		fprintf(stderr, "gsp-check: cuLaunchKernel: %s\n", es);
		return 1;
	}

	/* Pitched 2-D copies on the legacy default stream. */
	uint8_t *hM = (uint8_t *)xmalloc(P_W * P_H);
	uint8_t *hM2 = (uint8_t *)xmalloc(P_W * P_H);
	for (int i = 0; i < P_W * P_H; i++)
		hM[i] = (uint8_t)mix32(i + 11);
	CK(cudaMallocPitch((void **)&dM, &mpitch, P_W, P_H));
	CK(cudaMemcpy2D(dM, mpitch, hM, P_W, P_W, P_H, cudaMemcpyHostToDevice));
	k_pitch<<<dim3((P_W + 127) / 128, P_H), 128>>>(dM, mpitch);
	CK(cudaGetLastError());
	CK(cudaMemcpy2D(hM2, P_W, dM, mpitch, P_W, P_H, cudaMemcpyDeviceToHost));

	/* 3-D copies, a 3-D grid. */
	const size_t vn = V_X * V_Y * V_Z;
	uint32_t *hV = (uint32_t *)xmalloc(vn * 4), *hV2 = (uint32_t *)xmalloc(vn * 4);
	for (uint32_t i = 0; i < vn; i++)
		hV[i] = mix32(i + 13);
	cudaExtent ext = make_cudaExtent(V_X * 4, V_Y, V_Z);
	cudaPitchedPtr dV;
	CK(cudaMalloc3D(&dV, ext));
	cudaMemcpy3DParms p3;
	memset(&p3, 0, sizeof(p3));
	p3.srcPtr = make_cudaPitchedPtr(hV, V_X * 4, V_X, V_Y);
	p3.dstPtr = dV;
	p3.extent = ext;
	p3.kind = cudaMemcpyHostToDevice;
	CK(cudaMemcpy3D(&p3));
	k_vol<<<dim3(V_X / 32, V_Y, V_Z), 32>>>(dV);
	CK(cudaGetLastError());
	memset(&p3, 0, sizeof(p3));
	p3.srcPtr = dV;
	p3.dstPtr = make_cudaPitchedPtr(hV2, V_X * 4, V_X, V_Y);
	p3.extent = ext;
	p3.kind = cudaMemcpyDeviceToHost;
	CK(cudaMemcpy3D(&p3));

	/* A captured graph: two kernels and a copy, launched G_LAUNCHES times. */
	cudaGraph_t graph;
	cudaGraphExec_t gexec;
	CK(cudaMemcpyAsync(dG, dA, nb, cudaMemcpyDeviceToDevice, sg));
	CK(cudaStreamSynchronize(sg));
	CK(cudaStreamBeginCapture(sg, cudaStreamCaptureModeThreadLocal));
	k_step<<<N / 256, 256, 0, sg>>>(dG, 1);
	k_step<<<N / 256, 256, 0, sg>>>(dG, 2);
	CK(cudaMemcpyAsync(dG2, dG, nb, cudaMemcpyDeviceToDevice, sg));
	CK(cudaStreamEndCapture(sg, &graph));
	CK(cudaGraphInstantiate(&gexec, graph, 0));
	for (int l = 0; l < G_LAUNCHES; l++)
		CK(cudaGraphLaunch(gexec, sg));

	/* cudaStreamPerThread from two host threads. */
	pthread_t th[PT_THREADS];
	struct pt_arg pa[PT_THREADS];
	uint32_t *hP;
	CK(cudaMallocHost((void **)&hP, PT_THREADS * PT_N * 4));
	for (int t = 0; t < PT_THREADS; t++) {
		pa[t] = (struct pt_arg){ dP + t * PT_N, hP + t * PT_N,
					 0x1000u * (t + 1), cudaSuccess };
		if (pthread_create(&th[t], NULL, pt_main, &pa[t])) {
			fprintf(stderr, "gsp-check: pthread_create failed\n");
			return 1;
		}
	}
	for (int t = 0; t < PT_THREADS; t++) {
		pthread_join(th[t], NULL);
		CK(pa[t].err);
	}

	/* A cooperative launch, where the device supports it. */
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	if (coop) {
		int per_sm = 0;
		void *ca[] = { &dK, &dK2, &dCnt };

		CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_coop,
								 256, 0));
		CK(cudaMemsetAsync(dCnt, 0, 4, s2));
		CK(cudaLaunchCooperativeKernel((const void *)k_coop,
					       sms * (per_sm < 2 ? per_sm : 2),
					       256, ca, 0, s2));
	}

	/* Results: sync pageable and async pinned copies back. */
	uint32_t *rC = (uint32_t *)xmalloc(nb), *rK2 = (uint32_t *)xmalloc(nb);
	uint32_t *rT = (uint32_t *)xmalloc(nb);
	unsigned long long *rS = (unsigned long long *)xmalloc(N / 256 * 8);
	CK(cudaMemcpy(rC, dC, nb, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(rT, dT, nb, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(rS, dS, N / 256 * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpyAsync(hOut, dD, nb, cudaMemcpyDeviceToHost, s1));
	CK(cudaMemcpyAsync(hOut + N, dG2, nb, cudaMemcpyDeviceToHost, sg));
	if (coop)
		CK(cudaMemcpyAsync(rK2, dK2, nb, cudaMemcpyDeviceToHost, s2));
	CK(cudaDeviceSynchronize());

	/* The CPU references, step by step as above. */
	uint32_t *wC = (uint32_t *)xmalloc(nb), *wT = (uint32_t *)xmalloc(nb);
	uint32_t *w = (uint32_t *)xmalloc(nb);
	unsigned long long *wS = (unsigned long long *)xmalloc(N / 256 * 8);
	for (uint32_t i = 0; i < N; i++)
		wC[i] = 0x5a5a5a5aU + mix32(hA[i] ^ rotl32(hB[i], 7));
	for (uint32_t y = 0; y < MH; y++)
		for (uint32_t x = 0; x < MW; x++)
			wT[x * MH + y] = wC[y * MW + x] + 1;
	for (uint32_t b = 0; b < N / 256; b++) {
		wS[b] = 0;
		for (uint32_t t = 0; t < 256; t++)
			wS[b] += (unsigned long long)wT[b * 256 + t] * (t % 7 + 1);
	}
	report("combine", rC, wC, nb);
	report("transpose", rT, wT, nb);
	report("blocksum", rS, wS, N / 256 * 8);
	for (uint32_t i = 0; i < N; i++)
		w[i] = wT[i] * 2654435761U + i;
	report("dtod-drv", hOut, w, nb);

	uint8_t *wM = (uint8_t *)xmalloc(P_W * P_H);
	for (uint32_t y = 0; y < P_H; y++)
		for (uint32_t x = 0; x < P_W; x++)
			wM[y * P_W + x] = (uint8_t)(hM[y * P_W + x] * 3 + (x ^ y));
	report("pitch2d", hM2, wM, P_W * P_H);

	for (uint32_t z = 0; z < V_Z; z++)
		for (uint32_t y = 0; y < V_Y; y++)
			for (uint32_t x = 0; x < V_X; x++) {
				uint32_t i = (z * V_Y + y) * V_X + x;

				hV[i] = mix32(hV[i] + x + 100 * y + 10000 * z);
			}
	report("vol3d", hV2, hV, vn * 4);

	for (uint32_t i = 0; i < N; i++) {
		uint32_t g = hA[i];

		for (int l = 0; l < G_LAUNCHES; l++)
			g = mix32(mix32(g + 1) + 2);
		w[i] = g;
	}
	report("graph", hOut + N, w, nb);

	for (uint32_t t = 0; t < PT_THREADS; t++)
		for (uint32_t i = 0; i < PT_N; i++)
			w[t * PT_N + i] = mix32(i * 0x9e3779b9U + 0x1000u * (t + 1));
	report("perthread", hP, w, PT_THREADS * PT_N * 4);

	if (coop) {
		for (uint32_t i = 0; i < N; i++)
			w[i] = mix32(i + 7) ^ mix32((i + 1) % N + 7);
		report("coop", rK2, w, nb);
	} else {
		printf("%-10s unsupported\n", "coop");
	}

	if (failures)
		fprintf(stderr, "gsp-check: %d output(s) differ from the CPU reference\n",
			failures);
	return failures ? 1 : 0;
}
