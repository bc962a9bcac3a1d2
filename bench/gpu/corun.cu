// SPDX-License-Identifier: GPL-2.0
/*
 * corun: the micro-benchmark co-run tables that G-Space's initial
 * selection reads (libgsp/search/select.h, Documentation/search.rst,
 * "Profiles and the micro-benchmark tables"). One process, two roles of
 * the micro-benchmark family (kernels/micro.cuh), per ordered pair of
 * instances and per cell (n, k) of the search's grid:
 *
 *   LC  the plain micro kernel (640 blocks of 256 threads, as gsp-wl's)
 *       on a stream of the highest priority
 *   BE  a persistent, SM-aware build of the same body (the seed's
 *       Algorithm 2): SMs x 8 blocks of 256 threads, each claims a slot
 *       0..7 on its SM and quits if its SM's rank is below n and its
 *       slot is at least K - k (or if the slot is K or above); the rest
 *       pull tasks (one 256-thread block of the LC's grid, 640 tasks a
 *       unit) from a global counter until the host sets a stop flag
 *
 *   corun --out DIR [--instances LIST|FILE|all] [--reps R] [--cells N]
 *         [--grid-n-step S] [--k-max K]
 *   corun --profile [--instances ...] [--out DIR]
 *       launches each instance's LC kernel once, for ncu
 *       (bench/gpu/profile.sh)
 *   corun --list [--instances ...]
 *       prints instances.csv to stdout and exits (no GPU)
 *
 * One cell: the BE is started with (n, k) already set and waited for
 * until every block has decided and the live ones are SMs x K - n x k;
 * then, for each LC instance, a snapshot kernel (%globaltimer and the
 * BE's task count), R LC kernels back to back (each timed by events),
 * and a second snapshot. The LC's ratio is the median of the R times
 * over its median time alone; the BE's rate is its tasks over the
 * snapshots' window divided by its rate alone. The BE is restarted per
 * (BE instance, cell), not per pair: every LC instance is measured
 * under one start, which is what makes the default set fit.
 *
 * Output (select.h's formats; mb indices are positions in the
 * instance list of the run): DIR/instances.csv "mb,name",
 * DIR/solo.csv "mb,name,lc_alone_us,be_alone_tasks_per_s",
 * DIR/tables.csv "lc_mb,be_mb,n,k,lc_ratio,be_rate", and DIR/corun.txt
 * (the device, the options, the time taken). Progress goes to stderr.
 *
 * The default set is 36 instances: the 9 strides x overlaps {0, 0.2} x
 * iters {1, 4}, 1296 ordered pairs x 88 cells. The estimate on an
 * H100/H200: an LC kernel under a memory-bound BE gets about n k / 1056
 * of the DRAM bandwidth, so one launch lasts up to its time alone
 * (about 25 us) x 1056 / (n k); summed over the 88 cells that is about
 * 18 ms, so R = 3 costs at most about 55 ms a pair (less for the
 * compute-bound ones), plus about 5 ms a pair of snapshots and
 * synchronisation and 3168 BE restarts of about 0.3 ms: about 30 s to
 * 80 s in all, well inside 6 minutes. All 180 instances (32400 pairs)
 * would take about 30 minutes; "--instances all" is there for that.
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpu_cli.h"
#include "micro.cuh"

#define CK(x) do {							\
	cudaError_t e_ = (x);						\
	if (e_ != cudaSuccess) {					\
		fprintf(stderr, "corun: %s:%d: %s: %s\n", __FILE__,	\
			__LINE__, #x, cudaGetErrorString(e_));		\
		exit(1);						\
	}								\
} while (0)

#define SLOTS		8	/* 256-thread blocks per SM: 2048 threads */
#define LC_BLOCKS	(MICRO_THREADS / MICRO_NB)	/* 640: a BE unit */
#define DATA_N		((size_t)1 << 24)	/* floats, as gsp-wl micro */
#define MAX_SMS		256	/* GSP_SEARCH_MAX_N */
#define MAX_SMID	1024
#define MAX_INST	180
#define MAX_REPS	99
#define ALONE_REPS	9	/* LC launches of the time alone, at least */
#define BE_ALONE_NS	5000000ULL	/* the BE's window alone */
#define SETTLE_NS	1000000000ULL	/* the BE must settle within this */

struct inst {
	int stride, iters;
	float overlap;
	char name[24];
};

/* The BE's control block, in device memory. */
struct ctl {
	unsigned int n, k;		/* the cell, set before the BE starts */
	unsigned int stop;		/* set by the host to end the BE */
	unsigned int arrived;		/* blocks that have decided */
	unsigned int live;		/* of them, those that stayed */
	unsigned int pad;
	unsigned long long next;	/* the next task */
	unsigned long long done;	/* tasks finished */
	unsigned int mask[MAX_SMS];	/* slots claimed, per SM rank */
};
#define CTL_STATE	offsetof(struct ctl, mask)

struct be_args {
	struct ctl *c;
	const short *rank_of;		/* [MAX_SMID]: -1 if not probed */
	unsigned int k_max;
	size_t n;
	const float *d;
	int stride, iters;
	float overlap;
	float *out;
};

__global__ void __launch_bounds__(MICRO_NB) corun_lc(size_t n, const float *d,
		int stride, float overlap, int iters, float *out)
{
	size_t t = (size_t)blockIdx.x * MICRO_NB + threadIdx.x;

	out[t] = micro_body(t, n, d, stride, overlap, iters);
}

static __device__ unsigned int smid(void)
{
	unsigned int id;

	asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
	return id;
}

static __device__ unsigned long long gtimer(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* The lowest free slot of an SM, or SLOTS if all 8 are taken. */
static __device__ unsigned int claim_slot(unsigned int *mask)
{
	for (unsigned int s = 0; s < SLOTS; s++)
		if (!(atomicOr(mask, 1u << s) & (1u << s)))
			return s;
	return SLOTS;
}

/* 8 blocks an SM must fit: 32 registers a thread at most. */
__global__ void __launch_bounds__(MICRO_NB, SLOTS) corun_be(struct be_args a)
{
	__shared__ int keep, stop;
	__shared__ unsigned long long task;

	if (!threadIdx.x) {
		unsigned int sm = smid(), slot = SLOTS, n, k;
		int r = sm < MAX_SMID ? a.rank_of[sm] : -1;

		if (r >= 0)
			slot = claim_slot(&a.c->mask[r]);
		n = *(volatile unsigned int *)&a.c->n;
		k = *(volatile unsigned int *)&a.c->k;
		keep = slot < a.k_max && !((unsigned int)r < n &&
					   slot >= a.k_max - k);
		if (keep)
			atomicAdd(&a.c->live, 1);
		__threadfence();
		atomicAdd(&a.c->arrived, 1);
	}
	__syncthreads();
	if (!keep)
		return;
	for (;;) {
		if (!threadIdx.x) {
			stop = *(volatile unsigned int *)&a.c->stop;
			task = atomicAdd(&a.c->next, 1ULL);
		}
		__syncthreads();
		if (stop)
			break;
		/* task and stop are read only between the two barriers */
		size_t t = (size_t)(task % LC_BLOCKS) * MICRO_NB + threadIdx.x;

		a.out[t] = micro_body(t, a.n, a.d, a.stride, a.overlap, a.iters);
		__syncthreads();
		if (!threadIdx.x)
			atomicAdd(&a.c->done, 1ULL);
	}
}

/* The BE's tasks done, and when: on the LC's stream, around its kernels. */
__global__ void corun_snap(const struct ctl *c, unsigned long long *out)
{
	out[0] = gtimer();
	out[1] = *(volatile const unsigned long long *)&c->done;
}

/* Every block marks its SM and lingers, so that all SMs get blocks. */
__global__ void corun_probe(unsigned int *seen)
{
	unsigned long long t0 = gtimer();
	unsigned int id = smid();

	if (!threadIdx.x && id < MAX_SMID)
		atomicOr(&seen[id / 32], 1u << (id % 32));
	while (gtimer() - t0 < 100000)
		;
}

static struct {
	const char *out, *inst_arg;
	unsigned int reps, cells_max, n_step, k_max;
	int profile, list;
	struct inst in[MAX_INST];
	unsigned int nin;
	/* the device */
	int sms;
	char name[256];
	unsigned int ncells;
	cudaStream_t lc_s, be_s, ctl_s;
	cudaEvent_t ev[MAX_REPS + 1];
	short *rank_of;
	struct ctl *ctl, *h_ctl;	/* h_ctl: pinned */
	unsigned long long *snap, *h_snap;
	unsigned int *h_stop;
	float *lc_d, *be_d, *lc_out, *be_out;
	double *lc_alone_us, *be_alone;
} g;

static void usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "corun: %s\n", msg);
	fprintf(stderr,
		"usage: corun --out DIR [--instances LIST|FILE|all] [--reps R] [--cells N]\n"
		"             [--grid-n-step S] [--k-max K]\n"
		"       corun --profile [--instances LIST|FILE|all] [--out DIR]\n"
		"       corun --list [--instances LIST|FILE|all]\n"
		"  LIST: comma-separated stride:overlap:iters (gsp-wl list, without micro:);\n"
		"  FILE: one per line; default: 36 instances (the comment at the top of\n"
		"  bench/gpu/corun.cu says which and why)\n");
	exit(msg ? 2 : 0);
}

static unsigned int num(const char *opt, const char *s, uint64_t lo,
			uint64_t hi)
{
	return (unsigned int)cli_num("corun", opt, s, lo, hi);
}

static void inst_set(struct inst *in, int stride, float overlap, int iters)
{
	in->stride = stride;
	in->overlap = overlap;
	in->iters = iters;
	snprintf(in->name, sizeof(in->name), "%d:%.2f:%d", stride, overlap,
		 iters);
}

/* One name, "stride:overlap:iters" (or micro:...), into g.in. */
static void inst_add(const char *s, size_t len)
{
	char buf[64];
	int stride, iters, used = -1, ok_s = 0, ok_o = -1;
	float overlap;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, s, len);
	buf[len] = 0;
	s = !strncmp(buf, "micro:", 6) ? buf + 6 : buf;
	if (sscanf(s, "%d:%f:%d%n", &stride, &overlap, &iters, &used) == 3 &&
	    used == (int)strlen(s)) {
		for (int i = 0; i < 9; i++)
			ok_s |= micro_strides[i] == stride;
		for (int i = 0; i < 5; i++)
			if (fabsf(micro_overlaps[i] - overlap) < 1e-4f)
				ok_o = i;
	}
	if (!ok_s || ok_o < 0 || iters < 1 || iters > 4) {
		fprintf(stderr, "corun: --instances: '%s' is not an instance: stride:overlap:iters with stride one of 1,2,3,4,6,8,12,16,32, overlap one of 0,0.05,0.10,0.15,0.20 and iters 1..4 (gsp-wl list prints them)\n",
			buf);
		exit(2);
	}
	if (g.nin == MAX_INST) {
		fprintf(stderr, "corun: --instances: more than %d instances\n",
			MAX_INST);
		exit(2);
	}
	inst_set(&g.in[g.nin], stride, micro_overlaps[ok_o], iters);
	for (unsigned int i = 0; i < g.nin; i++)
		if (!strcmp(g.in[i].name, g.in[g.nin].name)) {
			fprintf(stderr, "corun: --instances: %s is given twice\n",
				g.in[i].name);
			exit(2);
		}
	g.nin++;
}

static void inst_parse(const char *arg)
{
	FILE *f;

	if (!arg) {
		/* the default set: every stride, overlaps 0 and 0.2, iters 1, 4 */
		for (int s = 0; s < 9; s++)
			for (int o = 0; o < 5; o += 4)
				for (int it = 1; it <= 4; it += 3)
					inst_set(&g.in[g.nin++], micro_strides[s],
						 micro_overlaps[o], it);
		return;
	}
	if (!strcmp(arg, "all")) {
		for (int s = 0; s < 9; s++)
			for (int o = 0; o < 5; o++)
				for (int it = 1; it <= 4; it++)
					inst_set(&g.in[g.nin++], micro_strides[s],
						 micro_overlaps[o], it);
		return;
	}
	f = fopen(arg, "r");
	if (f) {
		char line[256];

		while (fgets(line, sizeof(line), f)) {
			size_t b = strspn(line, " \t"), e = strcspn(line + b, " \t\r\n#");

			if (e)
				inst_add(line + b, e);
		}
		fclose(f);
	} else {
		while (*arg) {
			size_t e = strcspn(arg, ",");

			if (!e)
				usage("--instances has an empty name");
			inst_add(arg, e);
			arg += e + (arg[e] == ',');
		}
	}
	if (!g.nin)
		usage("--instances names no instance");
}

static FILE *out_open(const char *file)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", g.out, file);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "corun: cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return f;
}

static void out_close(FILE *f, const char *file)
{
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "corun: writing %s/%s failed\n", g.out, file);
		exit(1);
	}
}

static void lc_launch(const struct inst *in, cudaStream_t s)
{
	corun_lc<<<LC_BLOCKS, MICRO_NB, 0, s>>>(DATA_N, g.lc_d, in->stride,
			in->overlap, in->iters, g.lc_out);
	CK(cudaGetLastError());
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* @reps LC kernels back to back on the LC's stream: the median, us. */
static double lc_timed(const struct inst *in, unsigned int reps)
{
	double t[MAX_REPS];
	float ms;

	CK(cudaEventRecord(g.ev[0], g.lc_s));
	for (unsigned int r = 0; r < reps; r++) {
		lc_launch(in, g.lc_s);
		CK(cudaEventRecord(g.ev[r + 1], g.lc_s));
	}
	CK(cudaStreamSynchronize(g.lc_s));
	for (unsigned int r = 0; r < reps; r++) {
		CK(cudaEventElapsedTime(&ms, g.ev[r], g.ev[r + 1]));
		t[r] = ms * 1000.0;
	}
	return median(t, reps);
}

/* Which SMs exist: ranks in %smid order, into g.rank_of. */
static void probe(void)
{
	unsigned int *d, h[MAX_SMID / 32];
	short rank[MAX_SMID];
	int n = 0;

	CK(cudaMalloc((void **)&d, sizeof(h)));
	CK(cudaMemset(d, 0, sizeof(h)));
	corun_probe<<<g.sms * SLOTS, MICRO_NB>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	for (int id = 0; id < MAX_SMID; id++)
		rank[id] = h[id / 32] & (1u << (id % 32)) ? (short)n++ : -1;
	if (n != g.sms) {
		fprintf(stderr, "corun: the probe saw %d SMs of %d; is another process using the GPU?\n",
			n, g.sms);
		exit(1);
	}
	CK(cudaMalloc((void **)&g.rank_of, sizeof(rank)));
	CK(cudaMemcpy(g.rank_of, rank, sizeof(rank), cudaMemcpyHostToDevice));
}

static void ctl_read(void)
{
	CK(cudaMemcpyAsync(g.h_ctl, g.ctl, CTL_STATE, cudaMemcpyDeviceToHost,
			   g.ctl_s));
	CK(cudaStreamSynchronize(g.ctl_s));
}

/*
 * Starts the BE of instance @be under (n, k) and waits until it holds
 * exactly its slots: every block has decided and the live ones are
 * SMs x K - n x k (as many as the GPU fits when it is idle).
 */
static void be_start(const struct inst *be, unsigned int n, unsigned int k)
{
	unsigned int grid = (unsigned int)g.sms * SLOTS;
	unsigned int want = (unsigned int)g.sms * g.k_max - n * k;
	struct be_args a = { g.ctl, g.rank_of, g.k_max, DATA_N, g.be_d,
			     be->stride, be->iters, be->overlap, g.be_out };
	uint64_t t0;

	memset(g.h_ctl, 0, sizeof(*g.h_ctl));
	g.h_ctl->n = n;
	g.h_ctl->k = k;
	/* reset before the launch, so no poll reads the last run's state */
	CK(cudaMemcpyAsync(g.ctl, g.h_ctl, sizeof(*g.h_ctl),
			   cudaMemcpyHostToDevice, g.be_s));
	CK(cudaStreamSynchronize(g.be_s));
	corun_be<<<grid, MICRO_NB, 0, g.be_s>>>(a);
	CK(cudaGetLastError());
	t0 = mono_ns();
	for (;;) {
		ctl_read();
		if (g.h_ctl->arrived == grid && g.h_ctl->live == want)
			return;
		if (mono_ns() - t0 > SETTLE_NS) {
			fprintf(stderr, "corun: the BE (%s) did not settle under (%u, %u): %u of %u blocks decided, %u live of %u; is another process using the GPU?\n",
				be->name, n, k, g.h_ctl->arrived, grid,
				g.h_ctl->live, want);
			exit(1);
		}
	}
}

static void be_stop(void)
{
	*g.h_stop = 1;
	CK(cudaMemcpyAsync(&g.ctl->stop, g.h_stop, sizeof(*g.h_stop),
			   cudaMemcpyHostToDevice, g.ctl_s));
	CK(cudaStreamSynchronize(g.be_s));
	CK(cudaStreamSynchronize(g.ctl_s));
}

/* The BE alone (n = k = 0, no LC): tasks per second over BE_ALONE_NS. */
static double be_alone(const struct inst *be)
{
	unsigned long long d0, d1;
	uint64_t t0, t1;

	be_start(be, 0, 0);
	ctl_read();
	t0 = mono_ns();
	d0 = g.h_ctl->done;
	sleep_until_mono(t0 + BE_ALONE_NS);
	ctl_read();
	t1 = mono_ns();
	d1 = g.h_ctl->done;
	be_stop();
	return (double)(d1 - d0) * 1e9 / (double)(t1 - t0);
}

/* One LC instance under the running BE: its median time (us), BE tasks/s. */
static void corun_one(const struct inst *lc, double *lc_us, double *be_rate)
{
	unsigned long long *h = g.h_snap;

	corun_snap<<<1, 1, 0, g.lc_s>>>(g.ctl, g.snap);
	CK(cudaGetLastError());
	*lc_us = lc_timed(lc, g.reps);
	corun_snap<<<1, 1, 0, g.lc_s>>>(g.ctl, g.snap + 2);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(h, g.snap, 4 * sizeof(*h), cudaMemcpyDeviceToHost,
			   g.lc_s));
	CK(cudaStreamSynchronize(g.lc_s));
	*be_rate = h[2] > h[0] ? (double)(h[3] - h[1]) * 1e9 / (double)(h[2] - h[0]) : 0;
}

static void setup(void)
{
	float *h = (float *)malloc(DATA_N * sizeof(float));
	size_t outb = (size_t)MICRO_THREADS * sizeof(float);
	cudaDeviceProp p;
	int lo, hi, occ = 0;

	if (!h) {
		fprintf(stderr, "corun: out of memory\n");
		exit(1);
	}
	CK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
	CK(cudaGetDeviceProperties(&p, 0));
	g.sms = p.multiProcessorCount;
	snprintf(g.name, sizeof(g.name), "%s", p.name);
	ref_fill(h, DATA_N, 20, -1, 1);		/* gsp-wl micro's input */
	CK(cudaMalloc((void **)&g.lc_d, DATA_N * sizeof(float)));
	CK(cudaMalloc((void **)&g.be_d, DATA_N * sizeof(float)));
	CK(cudaMemcpy(g.lc_d, h, DATA_N * sizeof(float), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(g.be_d, h, DATA_N * sizeof(float), cudaMemcpyHostToDevice));
	free(h);
	CK(cudaMalloc((void **)&g.lc_out, outb));
	CK(cudaMalloc((void **)&g.be_out, outb));
	CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
	CK(cudaStreamCreateWithPriority(&g.lc_s, cudaStreamNonBlocking, hi));
	if (g.profile)
		return;
	if (g.sms > MAX_SMS) {
		fprintf(stderr, "corun: %d SMs; the search's grid has at most %d\n",
			g.sms, MAX_SMS);
		exit(1);
	}
	if (g.n_step > (unsigned int)g.sms) {
		fprintf(stderr, "corun: --grid-n-step %u is more than the device's %d SMs\n",
			g.n_step, g.sms);
		exit(2);
	}
	g.ncells = ((g.sms - 1) / g.n_step + 1) * g.k_max;
	if (g.cells_max > g.ncells) {
		fprintf(stderr, "corun: --cells %u is more than the grid's %u cells\n",
			g.cells_max, g.ncells);
		exit(2);
	}
	if (!g.cells_max)
		g.cells_max = g.ncells;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, corun_be,
							 MICRO_NB, 0));
	if (occ != SLOTS) {
		fprintf(stderr, "corun: the BE kernel fits %d blocks of %d threads per SM, not %d\n",
			occ, MICRO_NB, SLOTS);
		exit(1);
	}
	CK(cudaStreamCreateWithPriority(&g.be_s, cudaStreamNonBlocking, lo));
	CK(cudaStreamCreateWithFlags(&g.ctl_s, cudaStreamNonBlocking));
	for (unsigned int r = 0; r <= MAX_REPS; r++)
		CK(cudaEventCreate(&g.ev[r]));
	CK(cudaMalloc((void **)&g.ctl, sizeof(*g.ctl)));
	CK(cudaMalloc((void **)&g.snap, 4 * sizeof(*g.snap)));
	CK(cudaMallocHost((void **)&g.h_ctl, sizeof(*g.h_ctl)));
	CK(cudaMallocHost((void **)&g.h_snap, 4 * sizeof(*g.h_snap)));
	CK(cudaMallocHost((void **)&g.h_stop, sizeof(*g.h_stop)));
	g.lc_alone_us = (double *)calloc(g.nin, sizeof(double));
	g.be_alone = (double *)calloc(g.nin, sizeof(double));
	if (!g.lc_alone_us || !g.be_alone) {
		fprintf(stderr, "corun: out of memory\n");
		exit(1);
	}
	probe();
}

static void print_instances(FILE *f)
{
	fprintf(f, "mb,name\n");
	for (unsigned int i = 0; i < g.nin; i++)
		fprintf(f, "%u,%s\n", i, g.in[i].name);
}

static void write_instances(void)
{
	FILE *f = out_open("instances.csv");

	print_instances(f);
	out_close(f, "instances.csv");
}

/* --profile: each instance's LC kernel once, nothing else, for ncu. */
static void profile_run(void)
{
	for (unsigned int i = 0; i < g.nin; i++) {
		lc_launch(&g.in[i], g.lc_s);
		CK(cudaStreamSynchronize(g.lc_s));
	}
	if (g.out)
		write_instances();
	fprintf(stderr, "corun: launched %u instances once each\n", g.nin);
}

/* Each instance alone: the LC's median time and the BE's rate. */
static void alone(unsigned int reps)
{
	FILE *solo = out_open("solo.csv");

	fprintf(solo, "mb,name,lc_alone_us,be_alone_tasks_per_s\n");
	for (unsigned int i = 0; i < g.nin; i++) {
		lc_timed(&g.in[i], 1);		/* warm: the module, the clocks */
		g.lc_alone_us[i] = lc_timed(&g.in[i], reps);
	}
	for (unsigned int i = 0; i < g.nin; i++) {
		g.be_alone[i] = be_alone(&g.in[i]);
		if (!(g.be_alone[i] > 0)) {
			fprintf(stderr, "corun: the BE %s ran no task alone\n",
				g.in[i].name);
			exit(1);
		}
		fprintf(solo, "%u,%s,%.3f,%.1f\n", i, g.in[i].name,
			g.lc_alone_us[i], g.be_alone[i]);
	}
	out_close(solo, "solo.csv");
}

/* BE instance @j under each cell, with every LC instance. */
static void be_row(FILE *tab, unsigned int j)
{
	for (unsigned int c = 0; c < g.cells_max; c++) {
		/* gsp_grid_cell(): cell c is i * rows + j, rows = K */
		unsigned int n = g.sms - c / g.k_max * g.n_step;
		unsigned int k = g.k_max - c % g.k_max;

		be_start(&g.in[j], n, k);
		for (unsigned int i = 0; i < g.nin; i++) {
			double us, rate;

			corun_one(&g.in[i], &us, &rate);
			fprintf(tab, "%u,%u,%u,%u,%.6g,%.6g\n", i, j, n, k,
				us / g.lc_alone_us[i], rate / g.be_alone[j]);
		}
		be_stop();
	}
}

static void tables_run(void)
{
	unsigned int reps = g.reps > ALONE_REPS ? g.reps : ALONE_REPS;
	uint64_t t0 = mono_ns(), t1;
	double el;
	FILE *tab, *f;

	write_instances();
	alone(reps);
	tab = out_open("tables.csv");
	fprintf(tab, "lc_mb,be_mb,n,k,lc_ratio,be_rate\n");
	fprintf(stderr, "corun: %u instances alone in %.1f s; %u x %u pairs x %u cells to go\n",
		g.nin, (mono_ns() - t0) * 1e-9, g.nin, g.nin, g.cells_max);
	t1 = mono_ns();
	for (unsigned int j = 0; j < g.nin; j++) {
		be_row(tab, j);
		fflush(tab);
		el = (mono_ns() - t1) * 1e-9;
		fprintf(stderr, "corun: BE %u/%u (%s) done, %.1f s, about %.0f s to go\n",
			j + 1, g.nin, g.in[j].name, el,
			el / (j + 1) * (g.nin - j - 1));
	}
	out_close(tab, "tables.csv");
	el = (mono_ns() - t0) * 1e-9;
	f = out_open("corun.txt");
	fprintf(f, "device: %s, %d SMs\ninstances: %u\nreps: %u (alone: %u)\n"
		"grid: n %d..%d step %u, k %u..1, %u cells (measured %u a pair)\n"
		"seconds: %.1f\n", g.name, g.sms, g.nin, g.reps, reps, g.sms,
		g.sms - (int)((g.ncells / g.k_max - 1) * g.n_step), g.n_step,
		g.k_max, g.ncells, g.cells_max, el);
	out_close(f, "corun.txt");
	fprintf(stderr, "corun: done in %.1f s; the tables are in %s\n", el,
		g.out);
}

int main(int argc, char **argv)
{
	g.reps = 3;
	g.n_step = 12;
	g.k_max = SLOTS;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			usage(NULL);
		if (!strcmp(a, "--profile") || !strcmp(a, "--list")) {
			*(a[2] == 'p' ? &g.profile : &g.list) = 1;
			continue;
		}
		if (strncmp(a, "--", 2)) {
			fprintf(stderr, "corun: '%s' is not an option; every value follows its option\n",
				a);
			exit(2);
		}
		if (!v) {
			fprintf(stderr, "corun: %s needs a value\n", a);
			exit(2);
		}
		i++;
		if (!strcmp(a, "--out"))
			g.out = v;
		else if (!strcmp(a, "--instances"))
			g.inst_arg = v;
		else if (!strcmp(a, "--reps"))
			g.reps = num(a, v, 1, MAX_REPS);
		else if (!strcmp(a, "--cells"))
			g.cells_max = num(a, v, 1, MAX_SMS * SLOTS);
		else if (!strcmp(a, "--grid-n-step"))
			g.n_step = num(a, v, 1, MAX_SMS);
		else if (!strcmp(a, "--k-max"))
			g.k_max = num(a, v, 1, SLOTS);
		else {
			fprintf(stderr, "corun: unknown option '%s'\n", a);
			usage("see the usage below");
		}
	}
	if (g.profile && g.list)
		usage("--profile and --list are two modes; give one");
	if (!g.out && !g.profile && !g.list)
		usage("--out DIR is required: the folder for instances.csv, solo.csv and tables.csv");
	if (g.out && (!*g.out || *g.out == '-'))
		usage("--out wants a folder, not an option or nothing");
	inst_parse(g.inst_arg);
	if (g.list) {
		print_instances(stdout);
		return 0;
	}
	if (g.out && mkdir(g.out, 0777) && errno != EEXIST) {
		fprintf(stderr, "corun: cannot create %s: %s\n", g.out,
			strerror(errno));
		exit(2);
	}
	setup();
	if (g.profile)
		profile_run();
	else
		tables_run();
	return 0;
}
