// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-xform corpus, and the kernels of bench/gpu/xform-check's placement,
 * yield and keeper tests: a BE kernel whose tasks last a set time, an LC
 * kernel that records where and when each of its blocks starts, and a
 * clock ping-pong that ties %globaltimer to the host clock. extern "C":
 * the harness looks them up by these names.
 */

static __device__ unsigned long long gtime(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/*
 * One task: every thread spins ns nanoseconds; count[task] += 1 (each task
 * must run exactly once) and *end = the latest task end (was the job
 * still running at some time?).
 */
extern "C" __global__ void xf_spin(unsigned long long ns, unsigned *count,
				   unsigned long long *end)
{
	unsigned long long t0 = gtime();

	while (gtime() - t0 < ns)
		;
	__syncthreads();
	if (threadIdx.x == 0) {
		count[blockIdx.x]++;
		atomicMax(end, gtime());
	}
}

// gsp-xform: skip sm-id xf_lc_place
/* The LC side: where (%smid) and when each block started; then it spins. */
extern "C" __global__ void xf_lc_place(unsigned long long ns, unsigned *smid,
				       unsigned long long *start)
{
	unsigned long long t0 = gtime();

	if (threadIdx.x == 0) {
		unsigned s;

		asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
		start[blockIdx.x] = t0;
		smid[blockIdx.x] = s;
	}
	while (gtime() - t0 < ns)
		;
}

/*
 * n rounds: wait for ping == i (host memory), answer pong[0] = the time,
 * then pong[1] = i. The fence orders the two for the host.
 */
extern "C" __global__ void xf_clock_pong(volatile unsigned *ping,
					 volatile unsigned long long *pong,
					 unsigned n)
{
	for (unsigned i = 1; i <= n; i++) {
		while (*ping != i)
			;
		pong[0] = gtime();
		__threadfence_system();
		pong[1] = i;
	}
}
