// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-xform corpus, and the kernels of bench/gpu/xform-check's yield
 * latency test: a BE kernel whose tasks last a set time, an LC kernel
 * that records when each of its blocks starts, and a clock ping-pong that
 * ties %globaltimer to the host clock. extern "C": the harness looks them
 * up by these names.
 */

static __device__ unsigned long long gtime(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* One task: every thread spins ns nanoseconds; count[task] += 1. */
extern "C" __global__ void xf_spin(unsigned long long ns, unsigned *count)
{
	unsigned long long t0 = gtime();

	while (gtime() - t0 < ns)
		;
	__syncthreads();
	if (threadIdx.x == 0)
		count[blockIdx.x]++;
}

/* The LC side: the %globaltimer at which each block started. */
extern "C" __global__ void xf_lc_start(unsigned long long *start)
{
	if (threadIdx.x == 0)
		start[blockIdx.x] = gtime();
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
