// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-load: a GPU load generator that records, per kernel, when it ran on
 * the GPU, for the fairness and LC-protection experiments.
 *
 * Each kernel is a spin kernel on %globaltimer: thread 0 of every block
 * spins until it has been *running* for --kernel-us. A jump of more than
 * --gap-us between two consecutive reads of the timer means the block was
 * not running (the GPU time-sliced to another context); such gaps are
 * not counted, and block 0 records up to GAPS of them. %globaltimer is one
 * clock for every process on the GPU, so the records of several processes
 * line up exactly, and a process's GPU time in any window is the sum of
 * its [start, end] intervals minus their gaps, clipped to the window.
 *
 *   --period-us 0   BE: back to back, at most --depth kernels in flight
 *   --period-us P   LC: one kernel every P us (open loop; if a kernel ends
 *                   late, the next starts at once), each launch followed by
 *                   cudaStreamSynchronize; its host latency is recorded
 *
 * Timeline: CUDA set-up; warm-up kernels (not recorded) for --warmup-s,
 * or until --start-at-ms (CLOCK_REALTIME, ms since the epoch: lets
 * several processes start measuring together); then --duration-s of
 * recorded kernels. --out FILE.csv gets one line per recorded kernel:
 *
 *   tag,seq,start_ns,end_ns,active_ns,ngaps,gaps,launch_ns,lat_ns
 *
 * start/end: block 0's first and last timer read (globaltimer ns);
 * active: its running time; gaps: "s:e;s:e..." (first GAPS gaps; ngaps
 * counts all); launch_ns: host time in the launch call; lat_ns: LC
 * only, launch call to the end of cudaStreamSynchronize (else 0).
 * Lines starting with '#' carry the parameters and GSP_* environment.
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_cli.h"

#define GAPS 6

#define CK(x) do {							\
	cudaError_t e_ = (x);						\
	if (e_ != cudaSuccess) {					\
		fprintf(stderr, "gsp-load: %s:%d: %s: %s\n", __FILE__,	\
			__LINE__, #x, cudaGetErrorString(e_));		\
		exit(1);						\
	}								\
} while (0)

struct rec {
	unsigned long long start, end, active, ngaps;
	unsigned long long gap[2 * GAPS];
};

__device__ static inline unsigned long long gtimer(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__global__ void k_spin(unsigned long long run_ns, unsigned long long gap_ns,
		       struct rec *r)
{
	if (threadIdx.x)
		return;
	unsigned long long t0 = gtimer(), last = t0, active = 0, ng = 0;
	unsigned long long gap[2 * GAPS];

	while (active < run_ns) {
		unsigned long long t = gtimer(), d = t - last;

		if (d > gap_ns) {
			if (ng < GAPS) {
				gap[2 * ng] = last;
				gap[2 * ng + 1] = t;
			}
			ng++;
		} else {
			active += d;
		}
		last = t;
	}
	if (blockIdx.x || !r)
		return;
	r->start = t0;
	r->end = last;
	r->active = active;
	r->ngaps = ng;
	for (unsigned long long i = 0; i < 2 * GAPS; i++)
		r->gap[i] = i < 2 * ng ? gap[i] : 0;
}

static void usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "gsp-load: %s\n", msg);
	fprintf(stderr,
		"usage: gsp-load --kernel-us N [--period-us P] [--duration-s S]\n"
		"                [--warmup-s W | --start-at-ms T] [--tag NAME] [--out FILE.csv]\n"
		"                [--blocks B] [--threads T] [--depth D] [--gap-us G]\n"
		"       gsp-load --info\n"
		"  defaults: --period-us 0 (back to back) --duration-s 10 --warmup-s 1\n"
		"            --blocks <SM count> --threads 64 --depth 4 --gap-us 20\n");
	exit(msg ? 2 : 0);
}

static uint64_t num_arg(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	return cli_num("gsp-load", opt, s, lo, hi);
}

static void info(void)
{
	int drv = 0, rt = 0, dev = 0;
	cudaDeviceProp p;

	CK(cudaDriverGetVersion(&drv));
	CK(cudaRuntimeGetVersion(&rt));
	CK(cudaGetDevice(&dev));
	CK(cudaGetDeviceProperties(&p, dev));
	printf("device: %s, %d SMs, compute capability %d.%d\n", p.name,
	       p.multiProcessorCount, p.major, p.minor);
	printf("cuda driver API version: %d\ncuda runtime version: %d\n", drv, rt);
}

int main(int argc, char **argv)
{
	uint64_t kus = 0, period = 0, dur = 10, warm = 1, start_at = 0;
	uint64_t blocks = 0, threads = 64, depth = 4, gap_us = 20;
	const char *tag = "load", *out = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--info")) {
			info();
			return 0;
		} else if (!strcmp(a, "--kernel-us")) {
			kus = num_arg(a, v, 1, 10000000), i++;
		} else if (!strcmp(a, "--period-us")) {
			period = num_arg(a, v, 0, 10000000), i++;
		} else if (!strcmp(a, "--duration-s")) {
			dur = num_arg(a, v, 1, 3600), i++;
		} else if (!strcmp(a, "--warmup-s")) {
			warm = num_arg(a, v, 0, 3600), i++;
		} else if (!strcmp(a, "--start-at-ms")) {
			start_at = num_arg(a, v, 1, UINT64_MAX), i++;
		} else if (!strcmp(a, "--blocks")) {
			blocks = num_arg(a, v, 1, 1 << 20), i++;
		} else if (!strcmp(a, "--threads")) {
			threads = num_arg(a, v, 32, 1024), i++;
		} else if (!strcmp(a, "--depth")) {
			depth = num_arg(a, v, 1, 1024), i++;
		} else if (!strcmp(a, "--gap-us")) {
			gap_us = num_arg(a, v, 1, 1000000), i++;
		} else if (!strcmp(a, "--tag") && v) {
			tag = v, i++;
		} else if (!strcmp(a, "--out") && v) {
			out = v, i++;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(NULL);
		} else {
			usage("unknown or incomplete option");
		}
	}
	if (!kus)
		usage("--kernel-us is required (the running time of one kernel)");
	if (period && period < kus)
		usage("--period-us must be 0 (back to back) or at least --kernel-us");
	if (!out)
		usage("--out FILE.csv is required");
	if (strchr(tag, ',') || strchr(tag, '\n'))
		usage("--tag must not contain a comma or newline");

	int dev = 0, sms = 0;
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	if (!blocks)
		blocks = sms;

	/* Room for every recorded kernel, with a margin for short ones. */
	uint64_t cap = dur * 1000000 / (period > kus ? period : kus) * 5 / 4 + 64;
	struct rec *d_rec, *h_rec;
	uint64_t *lat = (uint64_t *)calloc(cap, sizeof(*lat));
	uint64_t *lcall = (uint64_t *)calloc(cap, sizeof(*lcall));
	cudaStream_t st;
	cudaEvent_t *ev = (cudaEvent_t *)calloc(depth, sizeof(*ev));

	if (!lat || !lcall || !ev) {
		fprintf(stderr, "gsp-load: out of memory\n");
		return 1;
	}
	CK(cudaMalloc((void **)&d_rec, cap * sizeof(struct rec)));
	CK(cudaMemset(d_rec, 0, cap * sizeof(struct rec)));
	CK(cudaMallocHost((void **)&h_rec, cap * sizeof(struct rec)));
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	for (uint64_t i = 0; i < depth; i++)
		CK(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));

	uint64_t t_meas, now = mono_ns();
	if (start_at) {
		uint64_t r = real_ms();

		if (r > start_at)
			fprintf(stderr, "gsp-load %s: set-up ended %llu ms after --start-at-ms; measuring now\n",
				tag, (unsigned long long)(r - start_at));
		t_meas = now + (start_at > r ? (start_at - r) * 1000000ULL : 0);
	} else {
		t_meas = now + warm * 1000000000ULL;
	}
	uint64_t t_end = t_meas + dur * 1000000000ULL;
	uint64_t run_ns = kus * 1000, gap_ns = gap_us * 1000, n = 0, k = 0;
	uint64_t next = mono_ns();

	/* k counts every launch (events ring); n the recorded ones. */
	for (;; k++) {
		uint64_t t = mono_ns();

		if (t >= t_end || n >= cap)
			break;
		if (period) {
			sleep_until_mono(next);
			next += period * 1000;
			if (next < mono_ns())
				next = mono_ns();
		} else if (k >= depth) {
			CK(cudaEventSynchronize(ev[k % depth]));
		}
		int rec = mono_ns() >= t_meas;
		uint64_t t0 = mono_ns();

		k_spin<<<(unsigned)blocks, (unsigned)threads, 0, st>>>(
			run_ns, gap_ns, rec ? d_rec + n : NULL);
		uint64_t t1 = mono_ns();
		CK(cudaGetLastError());
		if (period) {
			CK(cudaStreamSynchronize(st));
			if (rec)
				lat[n] = mono_ns() - t0;
		} else {
			CK(cudaEventRecord(ev[k % depth], st));
		}
		if (rec)
			lcall[n++] = t1 - t0;
	}
	CK(cudaStreamSynchronize(st));
	CK(cudaMemcpy(h_rec, d_rec, n * sizeof(struct rec), cudaMemcpyDeviceToHost));
	if (n >= cap)
		fprintf(stderr, "gsp-load %s: record buffer full after %llu kernels; stopped early\n",
			tag, (unsigned long long)n);

	FILE *f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "gsp-load: %s: %s\n", out, strerror(errno));
		return 1;
	}
	fprintf(f, "# tag=%s kernel_us=%llu period_us=%llu duration_s=%llu blocks=%llu threads=%llu depth=%llu gap_us=%llu\n",
		tag, (unsigned long long)kus, (unsigned long long)period,
		(unsigned long long)dur, (unsigned long long)blocks,
		(unsigned long long)threads, (unsigned long long)depth,
		(unsigned long long)gap_us);
	fprintf(f, "# env");
	static const char *const envs[] = { "GSP_CLASS", "GSP_WEIGHT",
		"GSP_LC_TARGET_US", "GSP_ARBITER", "GSP_QUANTUM_US", "GSP_DISABLE" };
	for (size_t i = 0; i < sizeof(envs) / sizeof(envs[0]); i++)
		fprintf(f, " %s=%s", envs[i], getenv(envs[i]) ? getenv(envs[i]) : "");
	fprintf(f, " LD_PRELOAD=%s\n", getenv("LD_PRELOAD") ? "set" : "");
	fprintf(f, "tag,seq,start_ns,end_ns,active_ns,ngaps,gaps,launch_ns,lat_ns\n");
	for (uint64_t i = 0; i < n; i++) {
		const struct rec *r = &h_rec[i];

		fprintf(f, "%s,%llu,%llu,%llu,%llu,%llu,", tag,
			(unsigned long long)i, r->start, r->end, r->active,
			r->ngaps);
		for (unsigned long long g = 0; g < r->ngaps && g < GAPS; g++)
			fprintf(f, "%s%llu:%llu", g ? ";" : "", r->gap[2 * g],
				r->gap[2 * g + 1]);
		fprintf(f, ",%llu,%llu\n", (unsigned long long)lcall[i],
			(unsigned long long)lat[i]);
	}
	if (fclose(f)) {
		fprintf(stderr, "gsp-load: writing %s: %s\n", out, strerror(errno));
		return 1;
	}
	fprintf(stderr, "gsp-load %s: %llu kernels recorded (%llu launched)\n",
		tag, (unsigned long long)n, (unsigned long long)k);
	return 0;
}
