// per-launch cost of a 512-byte memset and of small DtoD copies between
// back-to-back kernels of one stream (H200), measured side by side
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
__global__ void spin(unsigned long long ns, float *p)
{
	unsigned long long t0, t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
	if (threadIdx.x == 0 && p) p[blockIdx.x] = 1.0f;
}
int main()
{
	cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	CUdeviceptr ctl, a, b; cuMemAlloc(&ctl, 8192); cuMemAlloc(&a, 4096); cuMemAlloc(&b, 4096);
	cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
	const int N = 2000;
	printf("kernel_us,variant,us_per_launch\n");
	for (int kus : {0, 5, 20, 50}) {
		for (int rep = 0; rep < 3; rep++)
		for (int v = 0; v < 5; v++) {
			spin<<<132, 128, 0, s>>>(kus * 1000ull, 0); cudaStreamSynchronize(s);
			cudaEventRecord(e0, s);
			for (int i = 0; i < N; i++) {
				if (v == 1 || v == 3 || v == 4) cuMemsetD32Async(ctl, 0, 128, s);
				if (v == 2 || v == 3) cuMemcpyDtoDAsync(a, b, 20, s);
				if (v == 4) { cuMemcpyDtoDAsync(a, b, 20, s); cuMemcpyDtoDAsync(a + 256, b + 256, 76, s); }
				spin<<<132, 128, 0, s>>>(kus * 1000ull, 0);
			}
			cudaEventRecord(e1, s); cudaEventSynchronize(e1);
			float ms; cudaEventElapsedTime(&ms, e0, e1);
			const char *nm[] = {"kernel", "memset+kernel", "dtod+kernel", "memset+dtod+kernel", "memset+2dtod+kernel"};
			printf("%d,%s,%.3f\n", kus, nm[v], ms * 1000 / N);
		}
	}
	return 0;
}
