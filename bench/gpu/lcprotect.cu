// SPDX-License-Identifier: GPL-2.0
/*
 * lcprotect: the LC and BE programs of the LC-protection benchmark
 * (bench/run-lcprotect.sh, Documentation/spatial.rst). Plain CUDA runtime
 * programs that know nothing of gspace: the runner puts them under
 * gsp-run, MPS thread caps or nothing.
 *
 *   lcprotect calibrate --body B --threads T --target-us U [--blocks N]
 *       prints the --iters that make one block of body B last about U us
 *       while the GPU is full of such blocks (one wave at full occupancy);
 *       with --blocks N, that make a kernel of N blocks last U us alone
 *   lcprotect be --body B --iters I --waves W [--sync 0|1] TIMING
 *       back-to-back kernels of W waves of body B (--waves 0: one block
 *       per SM slot, exactly one wave); --sync 1 synchronises after each
 *       kernel, 0 keeps two in flight. Prints "be blocks_per_s X ..."
 *       over the measured window: blocks of the kernels that ended in it
 *       over the time from the first to the last of those ends.
 *   lcprotect lc --iters I --blocks N [--kernels K] --period-us P
 *       [--arrival periodic|poisson] TIMING
 *       one request every P us (Poisson: exponential gaps of mean P),
 *       each K dependent kernels of N blocks (compute body) and one
 *       cudaStreamSynchronize; latency = first launch call to the end of
 *       the synchronise. Prints "lc p50_us X p99_us Y p999_us Z n N";
 *       --trace F also writes each measured request's start
 *       (CLOCK_MONOTONIC ns) and latency to F; --block-trace F the SM
 *       (%smid) and %globaltimer start and end of every block of the
 *       first 2048 measured requests, with the request's latency.
 *       --prio 1 puts the LC's stream at the device's highest priority.
 *   lcprotect both --prio 1 LC-OPTIONS BE-OPTIONS TIMING
 *       both in one process, the LC on a stream of the highest priority
 *       and the BE on one of the lowest (the single-process alternative)
 *
 * Any role: --carveout C (0..100) sets every kernel's preferred shared
 * memory carveout (the root-cause runs compared carveouts).
 *
 * TIMING: --start-ms T (CLOCK_REALTIME ms when both programs begin work)
 * --warmup-s W --measure-s M: results cover [T + W, T + W + M].
 *
 * Bodies: "compute", a chain of dependent FMAs per thread; "memory", a
 * streaming read of a 512 MiB buffer (coalesced, L2-missing). Both write
 * one word per thread, so the work cannot be optimised away.
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_cli.h"

#define CK(x) do {							\
	cudaError_t e_ = (x);						\
	if (e_ != cudaSuccess) {					\
		fprintf(stderr, "lcprotect: %s:%d: %s: %s\n", __FILE__,	\
			__LINE__, #x, cudaGetErrorString(e_));		\
		exit(1);						\
	}								\
} while (0)

#define MEM_WORDS	(128u << 20)	/* 512 MiB of floats */
#define MAX_REQS	(1u << 20)
#define MAX_TRACED	2048u	/* requests whose blocks --block-trace keeps */

__global__ void k_compute(float *out, const float *in, uint64_t iters)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	float x = in ? in[i % (gridDim.x * blockDim.x)] : (float)threadIdx.x;
	float a = 1.0000001f, b = 1e-7f;

	for (uint64_t n = 0; n < iters; n++)
		x = fmaf(x, a, b);
	out[i] = x;
}

/* Where and when one LC block ran (--block-trace). */
struct blk {
	unsigned long long start, end;	/* %globaltimer, ns */
	unsigned int smid, pad;
};

/*
 * The LC's kernel: k_compute's body, and with @rec each block's SM and
 * times. A kernel of its own, so that the BE's has no %smid read (gsp-xform
 * leaves a kernel that reads %smid unchanged).
 */
__global__ void k_lc(float *out, const float *in, uint64_t iters,
		     struct blk *rec)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	float x = in[i % (gridDim.x * blockDim.x)];
	float a = 1.0000001f, b = 1e-7f;
	unsigned long long t0 = 0;

	if (rec && !threadIdx.x)
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	for (uint64_t n = 0; n < iters; n++)
		x = fmaf(x, a, b);
	out[i] = x;
	if (rec && !threadIdx.x) {
		unsigned long long t1;
		unsigned int sm;

		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
		asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
		rec[blockIdx.x] = (struct blk){ t0, t1, sm, 0 };
	}
}

__global__ void k_memory(float *out, const float *buf, uint64_t iters)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	float s = 0.f;

	for (uint64_t n = 0; n < iters; n++, j += stride)
		s += buf[j & (MEM_WORDS - 1)];
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

struct be_cfg {
	int memory;
	uint64_t iters, threads, waves;
	int sync;
	uint64_t grid;		/* 0: from waves */
};

struct lc_cfg {
	uint64_t iters, blocks, threads, kernels, period_us;
	int poisson;
	const char *trace;	/* NULL, or a file for every request */
	const char *block_trace;	/* NULL, or a file for their blocks */
};

struct timing {
	uint64_t start_ms, warmup_s, measure_s;
	uint64_t t_meas, t_end;		/* CLOCK_MONOTONIC ns */
};

static int sm_count, dev;

static void usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "lcprotect: %s\n", msg);
	fprintf(stderr,
		"usage: lcprotect calibrate --body compute|memory --target-us U [--threads T] [--blocks N]\n"
		"       lcprotect be --body B --iters I --waves W [--sync 0|1] [--threads T] TIMING\n"
		"       lcprotect lc --iters I --blocks N --period-us P [--kernels K]\n"
		"                    [--arrival periodic|poisson] [--threads T] [--trace F]\n"
		"                    [--block-trace F] [--prio 0|1] TIMING\n"
		"       lcprotect both --prio 1 --lc-iters I --lc-blocks N --period-us P [--kernels K]\n"
		"                    [--arrival A] --body B --iters I --waves W [--sync S] TIMING\n"
		"  TIMING: --start-ms T --warmup-s W --measure-s M; any role: [--carveout 0..100]\n"
		"  (see the comment at the top of bench/gpu/lcprotect.cu)\n");
	exit(msg ? 2 : 0);
}

static uint64_t num(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	return cli_num("lcprotect", opt, s, lo, hi);
}

/* Blocks of @threads that fit on one SM for @fn. */
static int occupancy(const void *fn, uint64_t threads)
{
	int n = 0;

	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, (int)threads, 0));
	return n;
}

static void be_launch(const struct be_cfg *c, unsigned int grid, float *out,
		      const float *buf, cudaStream_t st)
{
	if (c->memory)
		k_memory<<<grid, (unsigned int)c->threads, 0, st>>>(out, buf, c->iters);
	else
		k_compute<<<grid, (unsigned int)c->threads, 0, st>>>(out, NULL, c->iters);
	CK(cudaGetLastError());
}

static unsigned int be_wave(const struct be_cfg *c)
{
	return (unsigned int)(occupancy(c->memory ? (const void *)k_memory :
						    (const void *)k_compute,
					c->threads) * sm_count);
}

static float *mem_buf(void)
{
	float *b;

	CK(cudaMalloc((void **)&b, (size_t)MEM_WORDS * sizeof(float)));
	CK(cudaMemset(b, 0, (size_t)MEM_WORDS * sizeof(float)));
	return b;
}

static void calibrate(int memory, uint64_t threads, uint64_t target_us,
		      uint64_t blocks)
{
	struct be_cfg c = { memory, 1000, threads, 1, 1, 0 };
	unsigned int grid = blocks ? (unsigned int)blocks : be_wave(&c);
	float *out, *buf = memory ? mem_buf() : NULL;
	cudaEvent_t e0, e1;
	float ms = 0;

	CK(cudaMalloc((void **)&out, (size_t)grid * threads * sizeof(float)));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	/* Grow until a kernel lasts 2 ms, then scale linearly. */
	for (int round = 0; round < 40; round++) {
		be_launch(&c, grid, out, buf, 0);	/* warm */
		CK(cudaEventRecord(e0, 0));
		be_launch(&c, grid, out, buf, 0);
		CK(cudaEventRecord(e1, 0));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms, e0, e1));
		if (ms >= 2.0f)
			break;
		c.iters *= 2;
	}
	printf("%llu\n", (unsigned long long)ceil((double)c.iters * target_us /
						  (ms * 1000.0)));
}

static struct timing timing_set(struct timing t)
{
	uint64_t r = real_ms(), now = mono_ns();

	if (!t.start_ms)
		t.start_ms = r;
	if (r > t.start_ms + t.warmup_s * 1000)
		fprintf(stderr, "lcprotect: set-up ended %llu ms after --start-ms; the warm-up is shorter\n",
			(unsigned long long)(r - t.start_ms));
	if (t.start_ms > r)
		sleep_until_mono(now + (t.start_ms - r) * 1000000ULL);
	now = mono_ns();
	t.t_meas = now + (t.start_ms + t.warmup_s * 1000 > real_ms() ?
			  (t.start_ms + t.warmup_s * 1000 - real_ms()) * 1000000ULL : 0);
	t.t_end = t.t_meas + t.measure_s * 1000000000ULL;
	return t;
}

struct be_run {
	struct be_cfg c;
	struct timing t;
	cudaStream_t st;
	double per_s;
	uint64_t kernels;
};

/* A BE kernel ended at @t: count it if it ended in the window. */
static int be_ended(struct be_run *b, uint64_t t, unsigned int grid,
		    uint64_t *first, uint64_t *last, uint64_t *blocks)
{
	b->kernels++;
	if (t >= b->t.t_meas && t <= b->t.t_end) {
		if (*first)
			*blocks += grid;
		else
			*first = t;
		*last = t;
	}
	return t > b->t.t_end;
}

static void *be_main(void *arg)
{
	struct be_run *b = (struct be_run *)arg;
	unsigned int wave = be_wave(&b->c);
	unsigned int grid = b->c.grid ? (unsigned int)b->c.grid :
			    b->c.waves ? wave * (unsigned int)b->c.waves : wave;
	float *out, *buf = b->c.memory ? mem_buf() : NULL;
	uint64_t k, first = 0, last = 0, blocks = 0;
	cudaEvent_t ev[2];

	CK(cudaMalloc((void **)&out, (size_t)grid * b->c.threads * sizeof(float)));
	CK(cudaEventCreateWithFlags(&ev[0], cudaEventDisableTiming));
	CK(cudaEventCreateWithFlags(&ev[1], cudaEventDisableTiming));
	for (k = 0;; k++) {
		be_launch(&b->c, grid, out, buf, b->st);
		if (b->c.sync) {
			CK(cudaStreamSynchronize(b->st));
			if (be_ended(b, mono_ns(), grid, &first, &last, &blocks))
				break;
			continue;
		}
		/* two in flight: wait for the one before this */
		CK(cudaEventRecord(ev[k % 2], b->st));
		if (!k)
			continue;
		CK(cudaEventSynchronize(ev[(k - 1) % 2]));
		if (be_ended(b, mono_ns(), grid, &first, &last, &blocks))
			break;
	}
	CK(cudaStreamSynchronize(b->st));
	b->per_s = last > first ? blocks * 1e9 / (double)(last - first) : 0;
	return NULL;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double exp_gap(double mean)
{
	double u;

	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	u = ((rng_state >> 11) + 0.5) / 9007199254740992.0;
	return -log(u) * mean;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, uint64_t n, double p)
{
	uint64_t i = (uint64_t)ceil(p * n) - 1;

	return n ? v[i < n ? i : n - 1] / 1000.0 : 0;
}

/* --block-trace: every block of the first @n measured requests. */
static void block_trace(const struct lc_cfg *c, const struct blk *rec,
			const uint64_t *lat, uint64_t n)
{
	size_t per_req = (size_t)c->kernels * c->blocks;
	struct blk *h = (struct blk *)malloc(n * per_req * sizeof(*h) + 1);
	FILE *f = fopen(c->block_trace, "w");

	if (!h || !f) {
		fprintf(stderr, "lcprotect: %s: %s\n", c->block_trace,
			h ? strerror(errno) : "out of memory");
		exit(1);
	}
	CK(cudaMemcpy(h, rec, n * per_req * sizeof(*h), cudaMemcpyDeviceToHost));
	fprintf(f, "req,lat_ns,kernel,block,smid,start_gt_ns,end_gt_ns\n");
	for (uint64_t q = 0; q < n; q++)
		for (size_t j = 0; j < per_req; j++) {
			const struct blk *b = &h[q * per_req + j];

			fprintf(f, "%llu,%llu,%zu,%zu,%u,%llu,%llu\n",
				(unsigned long long)q, (unsigned long long)lat[q],
				j / c->blocks, j % c->blocks, b->smid, b->start,
				b->end);
		}
	if (fclose(f)) {
		fprintf(stderr, "lcprotect: writing %s: %s\n", c->block_trace,
			strerror(errno));
		exit(1);
	}
	free(h);
}

static void lc_run(const struct lc_cfg *c, struct timing t, cudaStream_t st)
{
	uint64_t *lat = (uint64_t *)calloc(MAX_REQS, sizeof(*lat)), n = 0;
	uint64_t *at = (uint64_t *)calloc(MAX_REQS, sizeof(*at));
	size_t words = (size_t)c->blocks * c->threads;
	size_t per_req = (size_t)c->kernels * c->blocks;
	struct blk *rec = NULL;
	float *a, *b;
	uint64_t next;

	if (!lat || !at) {
		fprintf(stderr, "lcprotect: out of memory\n");
		exit(1);
	}
	if (c->block_trace) {
		CK(cudaMalloc((void **)&rec, MAX_TRACED * per_req * sizeof(*rec)));
		CK(cudaMemset(rec, 0, MAX_TRACED * per_req * sizeof(*rec)));
	}
	CK(cudaMalloc((void **)&a, words * sizeof(float)));
	CK(cudaMalloc((void **)&b, words * sizeof(float)));
	CK(cudaMemset(a, 0, words * sizeof(float)));
	CK(cudaStreamSynchronize(st));
	next = mono_ns();
	while (n < MAX_REQS) {
		uint64_t t0, t1;

		sleep_until_mono(next);
		next += c->poisson ? (uint64_t)exp_gap(c->period_us * 1000.0) :
				     c->period_us * 1000;
		t0 = mono_ns();
		if (t0 > t.t_end)
			break;
		for (uint64_t k = 0; k < c->kernels; k++) {
			struct blk *r = rec && t0 >= t.t_meas && n < MAX_TRACED ?
					rec + (n * c->kernels + k) * c->blocks : NULL;

			/* each reads the last one's output: dependent */
			k_lc<<<(unsigned int)c->blocks, (unsigned int)c->threads,
			       0, st>>>(k & 1 ? a : b, k & 1 ? b : a,
					c->iters / c->kernels, r);
			CK(cudaGetLastError());
		}
		CK(cudaStreamSynchronize(st));
		t1 = mono_ns();
		if (t0 >= t.t_meas) {
			at[n] = t0;
			lat[n++] = t1 - t0;
		}
		if (next < t1)
			next = t1;	/* open loop, but never a backlog */
	}
	if (c->trace) {
		FILE *f = fopen(c->trace, "w");

		if (!f) {
			fprintf(stderr, "lcprotect: %s: %s\n", c->trace, strerror(errno));
			exit(1);
		}
		fprintf(f, "start_mono_ns,lat_ns\n");
		for (uint64_t i = 0; i < n; i++)
			fprintf(f, "%llu,%llu\n", (unsigned long long)at[i],
				(unsigned long long)lat[i]);
		if (fclose(f)) {
			fprintf(stderr, "lcprotect: writing %s: %s\n", c->trace, strerror(errno));
			exit(1);
		}
	}
	if (rec)
		block_trace(c, rec, lat, n < MAX_TRACED ? n : MAX_TRACED);
	free(at);
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("lc p50_us %.1f p99_us %.1f p999_us %.1f n %llu\n",
	       pct(lat, n, 0.50), pct(lat, n, 0.99), pct(lat, n, 0.999),
	       (unsigned long long)n);
	free(lat);
}

int main(int argc, char **argv)
{
	struct be_cfg be = { 0, 0, 256, 0, 1, 0 };
	struct lc_cfg lc = { 0, 0, 256, 1, 0, 0, NULL, NULL };
	struct timing t = { 0, 1, 3, 0, 0 };
	uint64_t target = 0, blocks = 0, prio = 0;
	int carve = -1;
	const char *role = argc > 1 ? argv[1] : "";
	int is_both = !strcmp(role, "both");

	if (strcmp(role, "calibrate") && strcmp(role, "be") &&
	    strcmp(role, "lc") && !is_both)
		usage(argc < 2 ? "a role comes first: calibrate, be, lc or both" :
		      strcmp(role, "--help") ? "unknown role" : NULL);
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage("an option lacks its value");
		i++;
		if (!strcmp(a, "--body")) {
			if (strcmp(v, "compute") && strcmp(v, "memory"))
				usage("--body is compute or memory");
			be.memory = !strcmp(v, "memory");
		} else if (!strcmp(a, "--iters") && !strcmp(role, "lc")) {
			lc.iters = num(a, v, 1, UINT64_MAX / 2);
		} else if (!strcmp(a, "--iters")) {
			be.iters = num(a, v, 1, UINT64_MAX / 2);
		} else if (!strcmp(a, "--lc-iters")) {
			lc.iters = num(a, v, 1, UINT64_MAX / 2);
		} else if (!strcmp(a, "--threads")) {
			be.threads = lc.threads = num(a, v, 32, 1024);
		} else if (!strcmp(a, "--waves")) {
			be.waves = num(a, v, 0, 1000000);
		} else if (!strcmp(a, "--grid")) {
			be.grid = num(a, v, 1, 1u << 31);
		} else if (!strcmp(a, "--sync")) {
			be.sync = (int)num(a, v, 0, 1);
		} else if (!strcmp(a, "--target-us")) {
			target = num(a, v, 1, 10000000);
		} else if (!strcmp(a, "--blocks") || !strcmp(a, "--lc-blocks")) {
			blocks = lc.blocks = num(a, v, 1, 1u << 24);
		} else if (!strcmp(a, "--kernels")) {
			lc.kernels = num(a, v, 1, 64);
		} else if (!strcmp(a, "--period-us")) {
			lc.period_us = num(a, v, 1, 10000000);
		} else if (!strcmp(a, "--arrival")) {
			if (strcmp(v, "periodic") && strcmp(v, "poisson"))
				usage("--arrival is periodic or poisson");
			lc.poisson = !strcmp(v, "poisson");
		} else if (!strcmp(a, "--carveout")) {
			carve = (int)num(a, v, 0, 100);
		} else if (!strcmp(a, "--trace")) {
			lc.trace = v;
		} else if (!strcmp(a, "--block-trace")) {
			lc.block_trace = v;
		} else if (!strcmp(a, "--prio")) {
			prio = num(a, v, 0, 1);
		} else if (!strcmp(a, "--start-ms")) {
			t.start_ms = num(a, v, 1, UINT64_MAX);
		} else if (!strcmp(a, "--warmup-s")) {
			t.warmup_s = num(a, v, 0, 3600);
		} else if (!strcmp(a, "--measure-s")) {
			t.measure_s = num(a, v, 1, 3600);
		} else {
			usage("unknown option");
		}
	}
	if (!strcmp(role, "calibrate") && !target)
		usage("calibrate needs --target-us");
	if ((!strcmp(role, "be") || is_both) && !be.iters)
		usage("the BE needs --iters (from lcprotect calibrate)");
	if ((!strcmp(role, "lc") || is_both) &&
	    (!lc.iters || !lc.blocks || !lc.period_us))
		usage("the LC needs --iters/--lc-iters, --blocks and --period-us");
	if (is_both && !prio)
		usage("both needs --prio 1");
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
	if (!strcmp(role, "calibrate")) {
		calibrate(be.memory, be.threads, target, blocks);
		return 0;
	}
	t = timing_set(t);
	int lo = 0, hi = 0;

	CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
	if (carve >= 0) {
		CK(cudaFuncSetAttribute(k_compute,
					cudaFuncAttributePreferredSharedMemoryCarveout,
					carve));
		CK(cudaFuncSetAttribute(k_memory,
					cudaFuncAttributePreferredSharedMemoryCarveout,
					carve));
		CK(cudaFuncSetAttribute(k_lc,
					cudaFuncAttributePreferredSharedMemoryCarveout,
					carve));
	}
	if (!strcmp(role, "lc")) {
		cudaStream_t st;

		CK(cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking,
						prio ? hi : lo));
		lc_run(&lc, t, st);
		return 0;
	}
	struct be_run b = { be, t, NULL, 0, 0 };

	CK(cudaStreamCreateWithPriority(&b.st, cudaStreamNonBlocking, lo));
	if (is_both) {
		cudaStream_t st;
		pthread_t th;

		CK(cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking, hi));
		if (pthread_create(&th, NULL, be_main, &b)) {
			fprintf(stderr, "lcprotect: cannot start the BE thread\n");
			return 1;
		}
		lc_run(&lc, t, st);
		pthread_join(th, NULL);
	} else {
		be_main(&b);
	}
	printf("be blocks_per_s %.1f kernels %llu\n", b.per_s,
	       (unsigned long long)b.kernels);
	return 0;
}
