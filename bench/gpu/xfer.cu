// SPDX-License-Identifier: GPL-2.0
/*
 * xfer: a transfer-heavy workload for the CuMAS experiment
 * (bench/run-cumas.sh). Each iteration copies pinned host memory in
 * (H2D), runs one kernel, copies a result out (D2H) and synchronises its
 * stream, as an application that consumes each batch's result would.
 * Everything runs in program order on one stream the program creates
 * (cudaStreamCreate, a blocking stream: it also orders with the legacy
 * default stream), so a process never overlaps its own stages; processes
 * overlap each other's.
 *
 *   xfer --calibrate [--kernel spin|mem]
 *   xfer [--name NAME] [--iters N] [--h2d-us A] [--kern-us B] [--d2h-us C]
 *        [--kernel spin|mem] [--calib FILE] [--start-ms T] [--warmup N]
 *
 * --h2d-us, --kern-us, --d2h-us: each stage's length alone, in us (0 drops
 * the stage; 100..10000 are the experiment's). Copy sizes come from the
 * measured bandwidth, the kernel's work from the measured rate: a
 * calibrated spin (dependent FMAs, one full wave of blocks) or a
 * memory-bound loop (passes of y = a*x + y over two 64 MiB arrays), by
 * --kernel (default spin). --calib FILE takes the rates from the line
 * that --calibrate printed (so that processes started together do not
 * calibrate against each other); without it the program calibrates
 * itself first. --start-ms T: start the timed iterations at T
 * (CLOCK_REALTIME ms, gpu_cli.h), for processes started together.
 * --warmup N untimed iterations first (default 1).
 *
 * Output (stdout), lines the runner's cumas_eval.py parses; times are
 * CLOCK_MONOTONIC in us (3 decimals), comparable across the processes of
 * one host:
 *
 *   calib,h2d_bpus=B,d2h_bpus=B,spin_iters_per_us=R,spin_base_us=U,
 *         mem_us_per_pass=P,mem_base_us=U,sms=N,gpu=NAME   (one line)
 *   cfg,NAME,PID,ITERS,H2D_BYTES,D2H_BYTES,KERNEL,KWORK,H2D_US,KERN_US,D2H_US
 *   it,NAME,PID,I,H2D_START,H2D_END,KERN_END,D2H_END
 *   proc,NAME,PID,START,END,ITERS
 *
 * An "it" line's times are CUDA events recorded on the stream before the
 * copy-in and after each stage, placed on CLOCK_MONOTONIC by an anchor
 * event (the tightest of 5 record-and-synchronise pairs). An event after
 * a stage is when that stage ended; the one before the copy-in is when
 * the stream reached it, which may be earlier than the copy began (a
 * copy that waits for its engine, or for an arbiter's lease, waits after
 * it). cumas_eval.py accounts for that. START: the monotonic time just
 * before the first timed iteration is issued; END: after its last
 * synchronise.
 * Errors: a bad argument exits 2 with a message naming it; a CUDA error
 * exits 1 naming the call.
 */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "gpu_cli.h"

#define PROG "xfer"

#define CK(x)								\
	do {								\
		cudaError_t e_ = (x);					\
		if (e_ != cudaSuccess) {				\
			fprintf(stderr, PROG ": %s: %s\n", #x,		\
				cudaGetErrorString(e_));		\
			exit(1);					\
		}							\
	} while (0)

static const size_t MEM_ELEMS = 16u << 20;	/* 64 MiB of floats per array */

__global__ void spin_kernel(float *out, unsigned long long iters)
{
	float a = threadIdx.x * 1e-3f, b = 0.999999f;

	for (unsigned long long i = 0; i < iters; i++)
		a = fmaf(a, b, 1e-7f);
	if (a == -1.0f)		/* never: keeps the loop */
		out[0] = a;
}

__global__ void mem_kernel(const float *x, float *y, size_t n,
			   unsigned int passes)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (unsigned int p = 0; p < passes; p++)
		for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
		     i < n; i += stride)
			y[i] = 1.0001f * x[i] + y[i];
}

struct calib {
	double h2d_bpus, d2h_bpus;	/* bytes per us */
	double spin_iters_per_us, spin_base_us;
	double mem_us_per_pass, mem_base_us;
	int sms;
};

struct dev {
	cudaStream_t s;
	int spin_grid, spin_block, mem_grid;
	float *sink, *mx, *my;
};

static int use_mem;

static void launch(struct dev *d, unsigned long long work)
{
	if (use_mem)
		mem_kernel<<<d->mem_grid, 256, 0, d->s>>>(d->mx, d->my, MEM_ELEMS,
							 (unsigned int)work);
	else
		spin_kernel<<<d->spin_grid, d->spin_block, 0, d->s>>>(d->sink, work);
	CK(cudaGetLastError());
}

/* GPU time of @f in us: the median of 5, after one untimed run. */
template <typename F> static double time_us(struct dev *d, F f)
{
	cudaEvent_t a, b;
	std::vector<double> v;

	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	f();
	for (int i = 0; i < 5; i++) {
		float ms;

		CK(cudaEventRecord(a, d->s));
		f();
		CK(cudaEventRecord(b, d->s));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		v.push_back(ms * 1e3);
	}
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
	std::sort(v.begin(), v.end());
	return v[2];
}

static void calibrate(struct dev *d, struct calib *c)
{
	const size_t nb = 64u << 20;
	void *h, *g;
	double t1, t2;

	CK(cudaMallocHost(&h, nb));
	CK(cudaMalloc(&g, nb));
	memset(h, 1, nb);
	c->h2d_bpus = nb / time_us(d, [&] { CK(cudaMemcpyAsync(g, h, nb, cudaMemcpyHostToDevice, d->s)); });
	c->d2h_bpus = nb / time_us(d, [&] { CK(cudaMemcpyAsync(h, g, nb, cudaMemcpyDeviceToHost, d->s)); });
	CK(cudaFree(g));
	CK(cudaFreeHost(h));
	int saved = use_mem;

	use_mem = 0;
	t1 = time_us(d, [&] { launch(d, 20000); });
	t2 = time_us(d, [&] { launch(d, 200000); });
	c->spin_iters_per_us = t2 > t1 ? 180000.0 / (t2 - t1) : 1.0;
	c->spin_base_us = std::max(0.0, t1 - 20000.0 / c->spin_iters_per_us);
	use_mem = 1;
	t1 = time_us(d, [&] { launch(d, 2); });
	t2 = time_us(d, [&] { launch(d, 12); });
	c->mem_us_per_pass = t2 > t1 ? (t2 - t1) / 10.0 : 1.0;
	c->mem_base_us = std::max(0.0, t1 - 2 * c->mem_us_per_pass);
	use_mem = saved;
}

static void read_calib(const char *path, struct calib *c)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int got = 0;

	if (!f) {
		fprintf(stderr, PROG ": --calib %s: cannot open it\n", path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "calib,h2d_bpus=%lf,d2h_bpus=%lf,spin_iters_per_us=%lf,spin_base_us=%lf,mem_us_per_pass=%lf,mem_base_us=%lf,sms=%d",
			   &c->h2d_bpus, &c->d2h_bpus, &c->spin_iters_per_us,
			   &c->spin_base_us, &c->mem_us_per_pass,
			   &c->mem_base_us, &c->sms) == 7)
			got = 1;
	fclose(f);
	if (!got || c->h2d_bpus <= 0 || c->d2h_bpus <= 0 ||
	    c->spin_iters_per_us <= 0 || c->mem_us_per_pass <= 0) {
		fprintf(stderr, PROG ": --calib %s: no valid \"calib,h2d_bpus=...\" line (write it with xfer --calibrate)\n",
			path);
		exit(2);
	}
}

static void print_calib(const struct calib *c)
{
	cudaDeviceProp p;
	int dv;

	CK(cudaGetDevice(&dv));
	CK(cudaGetDeviceProperties(&p, dv));
	for (char *q = p.name; *q; q++)
		if (*q == ',')
			*q = ' ';
	printf("calib,h2d_bpus=%.1f,d2h_bpus=%.1f,spin_iters_per_us=%.4f,spin_base_us=%.2f,mem_us_per_pass=%.3f,mem_base_us=%.2f,sms=%d,gpu=%s\n",
	       c->h2d_bpus, c->d2h_bpus, c->spin_iters_per_us, c->spin_base_us,
	       c->mem_us_per_pass, c->mem_base_us, c->sms, p.name);
}

/* Event -> CLOCK_MONOTONIC us: the tightest record-and-synchronise pair. */
static void anchor(struct dev *d, cudaEvent_t *ev, double *mono_us)
{
	double best = 1e30;

	for (int i = 0; i < 5; i++) {
		cudaEvent_t e;
		uint64_t t0, t1;

		CK(cudaEventCreate(&e));
		CK(cudaStreamSynchronize(d->s));
		t0 = mono_ns();
		CK(cudaEventRecord(e, d->s));
		CK(cudaEventSynchronize(e));
		t1 = mono_ns();
		if ((double)(t1 - t0) < best) {
			best = (double)(t1 - t0);
			if (*ev)
				CK(cudaEventDestroy(*ev));
			*ev = e;
			*mono_us = (t0 + t1) / 2e3;
		} else {
			CK(cudaEventDestroy(e));
		}
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: " PROG " --calibrate [--kernel spin|mem]\n"
		"       " PROG " [--name NAME] [--iters N] [--h2d-us A] [--kern-us B] [--d2h-us C]\n"
		"            [--kernel spin|mem] [--calib FILE] [--start-ms T] [--warmup N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *name = "xfer", *calib_path = NULL;
	uint64_t iters = 100, h2d_us = 1000, kern_us = 1000, d2h_us = 1000;
	uint64_t start_ms = 0, warmup = 1;
	int do_calib = 0;
	struct calib c = {};
	struct dev d = {};

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--calibrate")) {
			do_calib = 1;
			continue;
		}
		if (!strcmp(o, "--help") || !strcmp(o, "-h"))
			usage();
		if (strncmp(o, "--", 2)) {
			fprintf(stderr, PROG ": unexpected argument '%s'\n", o);
			usage();
		}
		if (!v) {
			fprintf(stderr, PROG ": %s needs a value\n", o);
			exit(2);
		}
		i++;
		if (!strcmp(o, "--name")) {
			if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != strlen(v) ||
			    strlen(v) > 64) {
				fprintf(stderr, PROG ": --name needs 1..64 letters, digits, '_', '-' or '.', got '%s'\n", v);
				exit(2);
			}
			name = v;
		} else if (!strcmp(o, "--iters")) {
			iters = cli_num(PROG, o, v, 1, 20000);
		} else if (!strcmp(o, "--h2d-us")) {
			h2d_us = cli_num(PROG, o, v, 0, 100000);
		} else if (!strcmp(o, "--kern-us")) {
			kern_us = cli_num(PROG, o, v, 0, 100000);
		} else if (!strcmp(o, "--d2h-us")) {
			d2h_us = cli_num(PROG, o, v, 0, 100000);
		} else if (!strcmp(o, "--start-ms")) {
			start_ms = cli_num(PROG, o, v, 1, UINT64_MAX / 2);
		} else if (!strcmp(o, "--warmup")) {
			warmup = cli_num(PROG, o, v, 0, 1000);
		} else if (!strcmp(o, "--calib")) {
			calib_path = v;
		} else if (!strcmp(o, "--kernel")) {
			if (!strcmp(v, "spin"))
				use_mem = 0;
			else if (!strcmp(v, "mem"))
				use_mem = 1;
			else {
				fprintf(stderr, PROG ": --kernel needs spin or mem, got '%s'\n", v);
				exit(2);
			}
		} else {
			fprintf(stderr, PROG ": unknown option %s\n", o);
			usage();
		}
	}
	if (calib_path)
		read_calib(calib_path, &c);

	/* Device state: one stream, a full wave of spin blocks. */
	int dv, per_sm = 0;

	CK(cudaGetDevice(&dv));
	CK(cudaDeviceGetAttribute(&c.sms, cudaDevAttrMultiProcessorCount, dv));
	CK(cudaStreamCreate(&d.s));
	d.spin_block = 256;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, spin_kernel,
							 d.spin_block, 0));
	d.spin_grid = c.sms * std::max(per_sm, 1);
	d.mem_grid = c.sms * 4;
	CK(cudaMalloc(&d.sink, sizeof(float)));
	CK(cudaMalloc(&d.mx, MEM_ELEMS * sizeof(float)));
	CK(cudaMalloc(&d.my, MEM_ELEMS * sizeof(float)));
	CK(cudaMemsetAsync(d.mx, 0, MEM_ELEMS * sizeof(float), d.s));
	CK(cudaMemsetAsync(d.my, 0, MEM_ELEMS * sizeof(float), d.s));
	CK(cudaStreamSynchronize(d.s));

	if (do_calib || !calib_path)
		calibrate(&d, &c);
	if (do_calib) {
		print_calib(&c);
		return 0;
	}

	/* Sizes from the rates. */
	size_t h2d_bytes = (size_t)llround(h2d_us * c.h2d_bpus) & ~(size_t)4095;
	size_t d2h_bytes = (size_t)llround(d2h_us * c.d2h_bpus) & ~(size_t)4095;
	unsigned long long kwork = 0;

	if (h2d_us && !h2d_bytes)
		h2d_bytes = 4096;
	if (d2h_us && !d2h_bytes)
		d2h_bytes = 4096;
	if (h2d_bytes > (8ull << 30) || d2h_bytes > (8ull << 30)) {
		fprintf(stderr, PROG ": a copy of more than 8 GiB: lower --h2d-us or --d2h-us\n");
		exit(2);
	}
	if (kern_us) {
		double w = use_mem ? (kern_us - c.mem_base_us) / c.mem_us_per_pass
				   : (kern_us - c.spin_base_us) * c.spin_iters_per_us;

		kwork = (unsigned long long)std::max(1.0, floor(w + 0.5));
	}
	void *hin = NULL, *hout = NULL, *gin = NULL, *gout = NULL;

	if (h2d_bytes) {
		CK(cudaMallocHost(&hin, h2d_bytes));
		CK(cudaMalloc(&gin, h2d_bytes));
		memset(hin, 1, h2d_bytes);
	}
	if (d2h_bytes) {
		CK(cudaMallocHost(&hout, d2h_bytes));
		CK(cudaMalloc(&gout, d2h_bytes));
		CK(cudaMemsetAsync(gout, 2, d2h_bytes, d.s));
	}

	auto iteration = [&](cudaEvent_t *ev) {
		if (ev)
			CK(cudaEventRecord(ev[0], d.s));
		if (h2d_bytes)
			CK(cudaMemcpyAsync(gin, hin, h2d_bytes, cudaMemcpyHostToDevice, d.s));
		if (ev)
			CK(cudaEventRecord(ev[1], d.s));
		if (kwork)
			launch(&d, kwork);
		if (ev)
			CK(cudaEventRecord(ev[2], d.s));
		if (d2h_bytes)
			CK(cudaMemcpyAsync(hout, gout, d2h_bytes, cudaMemcpyDeviceToHost, d.s));
		if (ev)
			CK(cudaEventRecord(ev[3], d.s));
		CK(cudaStreamSynchronize(d.s));
	};
	for (uint64_t i = 0; i < warmup; i++)
		iteration(NULL);

	std::vector<cudaEvent_t> ev(iters * 4);
	cudaEvent_t anc = NULL;
	double anc_us = 0;

	for (auto &e : ev)
		CK(cudaEventCreate(&e));
	anchor(&d, &anc, &anc_us);
	printf("cfg,%s,%d,%llu,%zu,%zu,%s,%llu,%llu,%llu,%llu\n", name, (int)getpid(),
	       (unsigned long long)iters, h2d_bytes, d2h_bytes,
	       use_mem ? "mem" : "spin", kwork, (unsigned long long)h2d_us,
	       (unsigned long long)kern_us, (unsigned long long)d2h_us);
	fflush(stdout);
	if (start_ms) {
		int64_t dt = (int64_t)start_ms - (int64_t)real_ms();

		if (dt > 0)
			sleep_until_mono(mono_ns() + (uint64_t)dt * 1000000ULL);
		else if (dt < 0)
			fprintf(stderr, PROG ": %s was ready %lld ms after --start-ms; start the processes earlier\n",
				name, (long long)-dt);
	}
	uint64_t t0 = mono_ns();

	for (uint64_t i = 0; i < iters; i++)
		iteration(&ev[i * 4]);
	uint64_t t1 = mono_ns();

	for (uint64_t i = 0; i < iters; i++) {
		double t[4];

		for (int k = 0; k < 4; k++) {
			float ms;

			CK(cudaEventElapsedTime(&ms, anc, ev[i * 4 + k]));
			t[k] = anc_us + ms * 1e3;
		}
		printf("it,%s,%d,%llu,%.3f,%.3f,%.3f,%.3f\n", name, (int)getpid(),
		       (unsigned long long)i, t[0], t[1], t[2], t[3]);
	}
	printf("proc,%s,%d,%.3f,%.3f,%llu\n", name, (int)getpid(), t0 / 1e3,
	       t1 / 1e3, (unsigned long long)iters);
	return 0;
}
