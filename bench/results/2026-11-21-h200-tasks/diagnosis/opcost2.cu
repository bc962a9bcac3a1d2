// per-launch cost of resetting a ctl's counters between back-to-back
// kernels of one stream: memset kernel vs stream memory operations
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
__global__ void spin(unsigned long long ns, unsigned long long *p)
{
	unsigned long long t0, t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
	if (threadIdx.x == 0 && blockIdx.x == 0 && p) {
		/* check the reset happened: p[0] must be 0, then dirty it */
		if (p[0] != 0) p[1] += 1;
		p[0] = 7; p[16] = 7; p[32] = 7; p[48] = 7; p[49] = 7; p[50] = 7;
	}
}
int main()
{
	cuInit(0);
	cudaFree(0);
	cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	CUdeviceptr ctl; cuMemAlloc(&ctl, 8192); cuMemsetD8(ctl, 0, 8192);
	int can = 0; CUdevice d; cuCtxGetDevice(&d);
	cuDeviceGetAttribute(&can, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, d);
	fprintf(stderr, "64-bit stream mem ops: %d\n", can);
	cudaEvent_t e0, e1, ev; cudaEventCreate(&e0); cudaEventCreate(&e1);
	cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
	const int N = 2000;
	unsigned long long *p = (unsigned long long *)ctl;
	CUstreamBatchMemOpParams ops[6] = {};
	unsigned offs[6] = {0, 128, 256, 384, 392, 400};
	for (int i = 0; i < 6; i++) {
		ops[i].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
		ops[i].writeValue.address = ctl + offs[i];
		ops[i].writeValue.value64 = 0;
		ops[i].writeValue.flags = 0;
	}
	printf("kernel_us,variant,us_per_launch,bad_resets\n");
	const char *nm[] = {"kernel", "memset512+kernel", "batch6x64+kernel", "write64+kernel", "event+kernel", "memset512+event+kernel", "batch6x64+event+kernel"};
	for (int kus : {0, 20, 50}) {
		for (int rep = 0; rep < 3; rep++)
		for (int v = 0; v < 7; v++) {
			spin<<<132, 128, 0, s>>>(kus * 1000ull, 0); cudaStreamSynchronize(s);
			cuMemsetD8(ctl, 0, 8192);
			cudaEventRecord(e0, s);
			CUresult r = CUDA_SUCCESS;
			for (int i = 0; i < N; i++) {
				if (v == 1 || v == 5) r = cuMemsetD32Async(ctl, 0, 128, s);
				if (v == 2 || v == 6) r = cuStreamBatchMemOp(s, 6, ops, 0);
				if (v == 3) r = cuStreamWriteValue64(s, ctl, 0, 0);
				if (r) { fprintf(stderr, "variant %d: error %d\n", v, (int)r); return 1; }
				spin<<<132, 128, 0, s>>>(kus * 1000ull, (v == 0 || v == 4) ? 0 : p);
				if (v >= 4) cudaEventRecord(ev, s);
			}
			cudaEventRecord(e1, s); cudaEventSynchronize(e1);
			float ms; cudaEventElapsedTime(&ms, e0, e1);
			unsigned long long bad = 0;
			cuMemcpyDtoH(&bad, ctl + 8, 8);
			printf("%d,%s,%.3f,%llu\n", kus, nm[v], ms * 1000 / N, bad);
		}
	}
	return 0;
}
