#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Writes a .cu of N kernels and N __device__ variables, a large image for
gsp-xform and the interposer's JIT (bench/xform-scale.sh,
bench/gpu/jit-latency.sh). Each kernel names three variables and runs a
shared-memory reduction with barriers.

    many-kernels.py N OUT.cu [--main]

--main adds a program: `OUT LAUNCHES` times the first and the second
launch of kernels 0..LAUNCHES-1 (4096 blocks of 256 threads each, more
than one wave) and prints CSV: kernel,first_ms,second_ms."""
import sys

KERNEL = '''__global__ void k%(k)d(float *o, const float *in, int n)
{
	__shared__ float s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	s[threadIdx.x] = (i < n ? in[i] : 0.f) + gv%(a)d[threadIdx.x & 63];
	__syncthreads();
	for (int d = blockDim.x / 2; d > 0; d >>= 1) {
		if (threadIdx.x < d)
			s[threadIdx.x] += s[threadIdx.x + d] * gv%(b)d[d & 63];
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		o[blockIdx.x] = s[0];
		atomicAdd(&gv%(c)d[blockIdx.x & 63], s[0]);
	}
}'''

MAIN = '''
#include <chrono>
#include <cstdio>
#include <cstdlib>

typedef void (*kfn)(float *, const float *, int);
static const kfn ks[] = { %(table)s };

static double launch_ms(kfn f, float *o, const float *in, int n)
{
	auto t0 = std::chrono::steady_clock::now();

	f<<<4096, 256>>>(o, in, n);
	if (cudaDeviceSynchronize() != cudaSuccess)
		return -1;
	return std::chrono::duration<double, std::milli>(
		std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char **argv)
{
	int n = 4096 * 256, launches = argc > 1 ? atoi(argv[1]) : 0;
	float *o, *in;

	if (argc != 2 || launches < 1 || launches > %(n)d) {
		fprintf(stderr, "usage: %%s LAUNCHES (1..%(n)d)\\n", argv[0]);
		return 2;
	}
	if (cudaMalloc(&o, 4096 * sizeof(float)) != cudaSuccess ||
	    cudaMalloc(&in, n * sizeof(float)) != cudaSuccess ||
	    cudaMemset(in, 0, n * sizeof(float)) != cudaSuccess) {
		fprintf(stderr, "many-kernels: no device memory\\n");
		return 2;
	}
	printf("kernel,first_ms,second_ms\\n");
	for (int k = 0; k < launches; k++) {
		double a = launch_ms(ks[k], o, in, n), b = launch_ms(ks[k], o, in, n);

		if (a < 0 || b < 0) {
			fprintf(stderr, "many-kernels: k%%d failed\\n", k);
			return 1;
		}
		printf("k%%d,%%.3f,%%.3f\\n", k, a, b);
	}
	return 0;
}
'''


def main():
    args = [a for a in sys.argv[1:] if a != '--main']
    if len(args) != 2 or not args[0].isdigit() or int(args[0]) < 1:
        sys.exit('usage: many-kernels.py N OUT.cu [--main] (N >= 1)')
    n, path = int(args[0]), args[1]
    src = ['__device__ float gv%d[64];' % v for v in range(n)]
    for k in range(n):
        src.append(KERNEL % {'k': k, 'a': k % n, 'b': (k * 7 + 3) % n,
                             'c': (k * 13 + 5) % n})
    if '--main' in sys.argv[1:]:
        src.append(MAIN % {'n': n,
                           'table': ', '.join('k%d' % k for k in range(n))})
    with open(path, 'w') as f:
        f.write('\n'.join(src) + '\n')


main()
