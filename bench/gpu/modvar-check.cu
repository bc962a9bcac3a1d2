// SPDX-License-Identifier: GPL-2.0
/*
 * Module-scope variables of a BE program whose kernels gsp-run transforms:
 * kernels on two streams add to one __device__ counter at the same time.
 * Every add must land in the program's own variable, whatever runs the
 * kernels (Documentation/xform.rst, "Module variables").
 *
 *   modvar-check [ROUNDS]   (default 100)
 *
 * Prints one RESULT line; exit status 0 when every count is exact.
 */
#include <cstdio>
#include <cstdlib>

__device__ unsigned long long hits;
__device__ unsigned int per_stream[2];

static __device__ unsigned long long now_ns()
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* One add per block to both counters, then a wait, so that the two
 * streams' kernels overlap. */
__global__ void bump(int s, unsigned int wait_ns)
{
	unsigned long long t0 = now_ns();

	if (threadIdx.x == 0) {
		atomicAdd(&hits, 1ull);
		atomicAdd(&per_stream[s], 1u);
	}
	while (now_ns() - t0 < wait_ns)
		;
}

#define CK(x)								\
	do {								\
		cudaError_t e_ = (x);					\
		if (e_ != cudaSuccess) {				\
			fprintf(stderr, "modvar-check: %s: %s\n", #x,	\
				cudaGetErrorString(e_));		\
			return 2;					\
		}							\
	} while (0)

int main(int argc, char **argv)
{
	const int grid = 4096;	/* more than one wave of 128-thread blocks */
	unsigned long long zero = 0, got;
	unsigned int zeros[2] = { 0, 0 }, per[2];
	cudaStream_t s[2];
	char *end = NULL;
	long rounds = 100;
	int ok;

	if (argc > 2 || (argc == 2 && ((rounds = strtol(argv[1], &end, 10)) < 1 ||
				       rounds > 100000 || *end))) {
		fprintf(stderr, "usage: modvar-check [ROUNDS]: ROUNDS is 1..100000 (default 100)\n");
		return 2;
	}
	CK(cudaMemcpyToSymbol(hits, &zero, sizeof(zero)));
	CK(cudaMemcpyToSymbol(per_stream, zeros, sizeof(zeros)));
	for (int i = 0; i < 2; i++)
		CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
	for (long r = 0; r < rounds; r++)
		for (int i = 0; i < 2; i++)
			bump<<<grid, 128, 0, s[i]>>>(i, 2000);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpyFromSymbol(&got, hits, sizeof(got)));
	CK(cudaMemcpyFromSymbol(per, per_stream, sizeof(per)));
	ok = got == 2ull * rounds * grid && per[0] == rounds * grid &&
	     per[1] == rounds * grid;
	printf("RESULT modvar rounds=%ld hits=%llu want=%llu stream0=%u stream1=%u want_each=%ld %s\n",
	       rounds, got, 2ull * rounds * grid, per[0], per[1],
	       rounds * grid, ok ? "ok" : "LOST");
	return ok ? 0 : 1;
}
