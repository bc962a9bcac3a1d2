// SPDX-License-Identifier: GPL-2.0
/*
 * launch-overhead: host time of one cuLaunchKernel, driver API only (no
 * cudart call), for the interposer's overhead measurement. Run it plain,
 * with GSP_DISABLE=1 and under gsp-run; run-experiment.sh does all in one
 * go. Three phases:
 *
 *   empty  --n launches of an empty 1-block kernel; each launch is timed
 *          with CLOCK_MONOTONIC around the call, the stream is drained
 *          (untimed) every 64 launches so the queue never fills
 *   spin   --n launches of a --kernel-us spin kernel (one block per SM),
 *          each timed, then waited for (untimed)
 *   tput   spin kernels launched back to back for --tput-s seconds; the
 *          rate is launches / (time from the first launch to the end of
 *          the last kernel)
 *
 * Each phase starts with --warmup untimed launches. Prints one line
 * "RESULT tag=... empty_p50_ns=... ..." on stdout; --out FILE writes
 * every timed sample as CSV (tag,phase,ns) for analyze.py.
 */
#include <cuda.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_cli.h"

#include "spin_ptx.h"	/* generated from spin.ptx: const char spin_ptx[] */

#define CU(x) do {							\
	CUresult r_ = (x);						\
	if (r_ != CUDA_SUCCESS) {					\
		const char *s_ = "unknown error";			\
		cuGetErrorString(r_, &s_);				\
		fprintf(stderr, "launch-overhead: %s:%d: %s: %s\n",	\
			__FILE__, __LINE__, #x, s_);			\
		exit(1);						\
	}								\
} while (0)

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static uint64_t pct(const uint64_t *v, size_t n, double p)
{
	size_t r = (size_t)(p / 100.0 * n + 0.999999);

	return v[r ? r - 1 : 0];
}

static void usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "launch-overhead: %s\n", msg);
	fprintf(stderr,
		"usage: launch-overhead [--n N] [--warmup N] [--kernel-us US] [--tput-s S]\n"
		"                       [--tag NAME] [--out FILE.csv]\n"
		"  defaults: --n 20000 --warmup 2000 --kernel-us 100 --tput-s 5 --tag plain\n");
	exit(msg ? 2 : 0);
}

static uint64_t num_arg(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	return cli_num("launch-overhead", opt, s, lo, hi);
}

static void write_samples(FILE *f, const char *tag, const char *phase,
			  const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s,%s,%llu\n", tag, phase, (unsigned long long)v[i]);
}

int main(int argc, char **argv)
{
	uint64_t n = 20000, warm = 2000, kus = 100, tput_s = 5;
	const char *tag = "plain", *out = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--n"))
			n = num_arg(a, v, 100, 10000000), i++;
		else if (!strcmp(a, "--warmup"))
			warm = num_arg(a, v, 0, 10000000), i++;
		else if (!strcmp(a, "--kernel-us"))
			kus = num_arg(a, v, 1, 1000000), i++;
		else if (!strcmp(a, "--tput-s"))
			tput_s = num_arg(a, v, 1, 3600), i++;
		else if (!strcmp(a, "--tag") && v)
			tag = v, i++;
		else if (!strcmp(a, "--out") && v)
			out = v, i++;
		else if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			usage(NULL);
		else
			usage("unknown or incomplete option");
	}
	if (strchr(tag, ',') || strchr(tag, '\n'))
		usage("--tag must not contain a comma or newline");

	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_empty, f_spin;
	CUstream st;
	int sms;

	CU(cuInit(0));
	CU(cuDeviceGet(&dev, 0));
	CU(cuDevicePrimaryCtxRetain(&ctx, dev));
	CU(cuCtxSetCurrent(ctx));
	CU(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
	CU(cuModuleLoadData(&mod, spin_ptx));
	CU(cuModuleGetFunction(&f_empty, mod, "gsp_empty"));
	CU(cuModuleGetFunction(&f_spin, mod, "gsp_spin"));
	CU(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));

	uint64_t *e = (uint64_t *)malloc(n * sizeof(*e));
	uint64_t *s = (uint64_t *)malloc(n * sizeof(*s));
	if (!e || !s) {
		fprintf(stderr, "launch-overhead: out of memory for %llu samples\n",
			(unsigned long long)n);
		return 1;
	}
	uint64_t spin_ns = kus * 1000;
	void *sp[] = { &spin_ns };

	for (uint64_t i = 0; i < warm + n; i++) {
		uint64_t t0 = mono_ns();

		CU(cuLaunchKernel(f_empty, 1, 1, 1, 32, 1, 1, 0, st, NULL, NULL));
		uint64_t t1 = mono_ns();
		if (i >= warm)
			e[i - warm] = t1 - t0;
		if (i % 64 == 63)
			CU(cuStreamSynchronize(st));
	}
	CU(cuStreamSynchronize(st));

	for (uint64_t i = 0; i < warm / 10 + n; i++) {
		uint64_t t0 = mono_ns();

		CU(cuLaunchKernel(f_spin, sms, 1, 1, 32, 1, 1, 0, st, sp, NULL));
		uint64_t t1 = mono_ns();
		if (i >= warm / 10)
			s[i - warm / 10] = t1 - t0;
		CU(cuStreamSynchronize(st));
	}

	for (uint64_t i = 0; i < warm / 10; i++)
		CU(cuLaunchKernel(f_spin, sms, 1, 1, 32, 1, 1, 0, st, sp, NULL));
	CU(cuStreamSynchronize(st));
	uint64_t k = 0, t_start = mono_ns(), t_stop = t_start + tput_s * 1000000000ULL;
	do {
		CU(cuLaunchKernel(f_spin, sms, 1, 1, 32, 1, 1, 0, st, sp, NULL));
		k++;
	} while (mono_ns() < t_stop);
	CU(cuStreamSynchronize(st));
	double tput = k / ((mono_ns() - t_start) * 1e-9);

	if (out) {
		FILE *f = fopen(out, "w");

		if (!f) {
			fprintf(stderr, "launch-overhead: %s: %s\n", out, strerror(errno));
			return 1;
		}
		fprintf(f, "tag,phase,ns\n");
		write_samples(f, tag, "empty", e, n);
		write_samples(f, tag, "spin", s, n);
		if (fclose(f)) {
			fprintf(stderr, "launch-overhead: writing %s: %s\n", out, strerror(errno));
			return 1;
		}
	}
	qsort(e, n, sizeof(*e), cmp_u64);
	qsort(s, n, sizeof(*s), cmp_u64);
	printf("RESULT tag=%s n=%llu kernel_us=%llu sms=%d empty_p50_ns=%llu empty_p99_ns=%llu "
	       "spin_p50_ns=%llu spin_p99_ns=%llu tput_s=%llu tput_kernels=%llu tput_per_s=%.1f\n",
	       tag, (unsigned long long)n, (unsigned long long)kus, sms,
	       (unsigned long long)pct(e, n, 50), (unsigned long long)pct(e, n, 99),
	       (unsigned long long)pct(s, n, 50), (unsigned long long)pct(s, n, 99),
	       (unsigned long long)tput_s, (unsigned long long)k, tput);
	free(e);
	free(s);
	CU(cuStreamDestroy(st));
	CU(cuModuleUnload(mod));
	CU(cuDevicePrimaryCtxRelease(dev));
	return 0;
}
