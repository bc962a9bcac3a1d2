// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-wl: the one runner of all benchmark workloads.
 *
 *   gsp-wl list                      workloads and the 180 micro instances
 *   gsp-wl check [WL...]             CPU reference checks on small inputs
 *                                    (digest's list, stream and fma), plus
 *                                    a green-context confinement check
 *   gsp-wl run [options]             LC and/or BE roles, one process
 *   gsp-wl scale --wl WL [options]   solo speedup vs SMs and blocks/SM
 *   gsp-wl digest [WL...]            one unit each, standard input: prints
 *                                    "WL fnv1a64" of the output bytes
 *
 * Over 800 lines: the runner of every workload's roles, with the options,
 * timing and output all of them share; each workload's kernels are files
 * of their own (wl_*.cu).
 *
 * run options:
 *   --lc WL / --be WL   the roles to run (either or both)
 *   --mech M            solo | streams | prio | green | flep (in-process
 *                       sharing of the two roles)
 *   --duration S        measurement window (default 2)
 *   --period-ms P       LC inter-arrival time (default 2; 0: back to back)
 *   --xfer-lc R, --xfer-be R
 *                       host<->device copy ratio per request/unit: R times
 *                       the input bytes up and R times the output bytes down
 *   --depth D           BE units in flight (default 2; flep: always 1)
 *   --green-sms N       SMs of the BE's green context (mech green)
 *   --lat-out FILE      LC latencies, one per line, microseconds
 *   --trace-out FILE    in order: "lc START_NS LAT_NS" per LC request,
 *                       "be END_NS" per BE unit (CLOCK_MONOTONIC)
 *   --sync              print READY after setup, then wait for a line
 *                       "GO <start_ns> <end_ns>" (CLOCK_MONOTONIC) on stdin
 *
 * Results go to stdout as "RESULT key=value ..." lines.
 */
#include <cuda.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include "green.h"
#include "wl_common.cuh"

static const struct wl_ops *const wl_all[] = {
	&wl_mm, &wl_nn, &wl_cfd, &wl_md, &wl_bp, &wl_lbm, &wl_hotspot,
	&wl_pathfinder, &wl_streamcluster, &wl_spmv, &wl_lud, &wl_micro,
	&wl_stream, &wl_fma,
};
#define NWL (int)(sizeof(wl_all) / sizeof(wl_all[0]))

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
	double d = t - now_s();

	if (d > 0) {
		struct timespec ts = { (time_t)d, (long)((d - (time_t)d) * 1e9) };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
}

/* "micro:4:0.1:2" -> ops of micro, arg "4:0.1:2" */
static const struct wl_ops *wl_find(const char *spec, const char **arg)
{
	const char *c = strchr(spec, ':');
	size_t len = c ? (size_t)(c - spec) : strlen(spec);

	*arg = c ? c + 1 : "";
	for (int i = 0; i < NWL; i++)
		if (strlen(wl_all[i]->name) == len &&
		    !strncmp(wl_all[i]->name, spec, len))
			return wl_all[i];
	fprintf(stderr, "gsp-wl: unknown workload '%s' (see gsp-wl list)\n", spec);
	return NULL;
}

#define CU(x) do {							\
	CUresult r_ = (x);						\
	if (r_ != CUDA_SUCCESS) {					\
		const char *s_ = "?";					\
		cuGetErrorString(r_, &s_);				\
		fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__,	\
			#x, s_);					\
		return -1;						\
	}								\
} while (0)

/* ---- one role ---- */

struct role {
	const struct wl_ops *ops;
	const char *spec;
	struct wl_state st;
	int lc;
	double xfer;
	void *hin, *hout;	/* pinned mirrors for the copies */
	size_t xin, xout;
	cudaStream_t s;
	CUcontext ctx;		/* set current in the thread (green) */
	/* run parameters */
	double start, end, period;
	int depth, flep;
	/* results */
	double *lat;
	size_t nlat, cap;
	double *t0s;		/* LC: each request's start; BE: each unit's end */
	size_t nt, tcap;
	long units, yields;
	double busy_first, busy_last;
	int err;
};

static volatile int lc_active;	/* flep: LC request in progress */

static int role_setup(struct role *r, size_t pad)
{
	struct wl_cfg cfg = { 0, pad, "" };
	const char *arg;

	r->ops = wl_find(r->spec, &arg);
	if (!r->ops)
		return -1;
	cfg.arg = arg;
	if (r->ops->setup(&r->st, &cfg)) {
		fprintf(stderr, "gsp-wl: setup of %s failed\n", r->spec);
		return -1;
	}
	if (r->xfer > 0) {
		r->xin = (size_t)(r->xfer * r->st.in_bytes) & ~(size_t)15;
		r->xout = (size_t)(r->xfer * r->st.out_bytes) & ~(size_t)15;
		if (r->xin > r->st.in_bytes)
			r->xin = r->st.in_bytes;
		if (r->xout > r->st.out_bytes)
			r->xout = r->st.out_bytes;
		CK(cudaMallocHost(&r->hin, r->xin + 16));
		CK(cudaMallocHost(&r->hout, r->xout + 16));
		CK(cudaMemcpy(r->hin, r->st.in_dev, r->xin, cudaMemcpyDeviceToHost));
	}
	return 0;
}

static void role_teardown(struct role *r)
{
	if (r->ops)
		r->ops->teardown(&r->st);
	cudaFreeHost(r->hin);
	cudaFreeHost(r->hout);
	free(r->lat);
	free(r->t0s);
}

/* Appends @t to the role's trace times; -1 if out of memory. */
static int trace_put(struct role *r, double t)
{
	if (r->nt == r->tcap) {
		double *p;

		r->tcap = r->tcap ? 2 * r->tcap : 4096;
		p = (double *)realloc(r->t0s, r->tcap * sizeof(double));
		if (!p)
			return -1;
		r->t0s = p;
	}
	r->t0s[r->nt++] = t;
	return 0;
}

static int role_issue(struct role *r)
{
	if (r->xin)
		CK(cudaMemcpyAsync(r->st.in_dev, r->hin, r->xin,
				   cudaMemcpyHostToDevice, r->s));
	if (r->ops->unit(&r->st, r->s))
		return -1;
	if (r->xout)
		CK(cudaMemcpyAsync(r->hout, r->st.out_dev, r->xout,
				   cudaMemcpyDeviceToHost, r->s));
	return 0;
}

static int lc_loop(struct role *r)
{
	double next = r->start;

	sleep_until(r->start);
	while (1) {
		double t0, t1;

		if (r->period > 0)
			sleep_until(next);
		t0 = now_s();
		if (t0 >= r->end)
			break;
		lc_active = 1;
		__sync_synchronize();
		if (role_issue(r))
			return -1;
		CK(cudaStreamSynchronize(r->s));
		t1 = now_s();
		lc_active = 0;
		__sync_synchronize();
		if (r->nlat == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 4096;
			r->lat = (double *)realloc(r->lat, r->cap * sizeof(double));
			if (!r->lat)
				return -1;
		}
		r->lat[r->nlat++] = t1 - t0;
		if (trace_put(r, t0))
			return -1;
		next += r->period;
		if (next < t1)
			next = t1;
	}
	return 0;
}

static int be_loop(struct role *r)
{
	cudaEvent_t ev[16];
	int head = 0, n = 0, depth = r->depth < 1 ? 1 : (r->depth > 16 ? 16 : r->depth);

	for (int i = 0; i < depth; i++)
		CK(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));
	r->busy_first = r->busy_last = 0;
	while (1) {
		double t = now_s();

		if (t >= r->end && !n)
			break;
		if (n == depth || (t >= r->end && n) ||
		    (r->flep && lc_active && n)) {
			double tc;

			CK(cudaEventSynchronize(ev[head]));
			tc = now_s();
			head = (head + 1) % depth;
			n--;
			if (tc >= r->start && tc <= r->end) {
				r->units++;
				if (trace_put(r, tc))
					return -1;
			}
			continue;
		}
		if (r->flep && lc_active) {
			r->yields++;
			while (lc_active && now_s() < r->end)
				;
			continue;
		}
		if (role_issue(r))
			return -1;
		CK(cudaEventRecord(ev[(head + n) % depth], r->s));
		n++;
	}
	for (int i = 0; i < depth; i++)
		cudaEventDestroy(ev[i]);
	return 0;
}

static void *role_thread(void *p)
{
	struct role *r = (struct role *)p;

	if (r->ctx && cuCtxSetCurrent(r->ctx) != CUDA_SUCCESS) {
		r->err = -1;
		return NULL;
	}
	r->err = r->lc ? lc_loop(r) : be_loop(r);
	return NULL;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(const double *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return NAN;
	i = (size_t)ceil(p * n) - 1;
	if (i >= n)
		i = n - 1;
	return v[i];
}

/* The trace, in order (before role_report() sorts the latencies). */
static void role_trace(const struct role *r, const char *path)
{
	FILE *f = fopen(path, "a");

	if (!f) {
		perror(path);
		return;
	}
	for (size_t i = 0; i < r->nt; i++) {
		if (r->lc)
			fprintf(f, "lc %.0f %.0f\n", 1e9 * r->t0s[i],
				1e9 * r->lat[i]);
		else
			fprintf(f, "be %.0f\n", 1e9 * r->t0s[i]);
	}
	fclose(f);
}

static void role_report(struct role *r, const char *lat_out)
{
	if (r->lc) {
		double sum = 0;

		qsort(r->lat, r->nlat, sizeof(double), cmp_d);
		for (size_t i = 0; i < r->nlat; i++)
			sum += r->lat[i];
		printf("RESULT role=lc wl=%s n=%zu mean_us=%.1f p50_us=%.1f "
		       "p99_us=%.1f max_us=%.1f\n", r->spec, r->nlat,
		       r->nlat ? 1e6 * sum / r->nlat : NAN,
		       1e6 * pct(r->lat, r->nlat, 0.5),
		       1e6 * pct(r->lat, r->nlat, 0.99),
		       r->nlat ? 1e6 * r->lat[r->nlat - 1] : NAN);
		if (lat_out) {
			FILE *f = fopen(lat_out, "w");

			if (!f) {
				perror(lat_out);
				return;
			}
			for (size_t i = 0; i < r->nlat; i++)
				fprintf(f, "%.1f\n", 1e6 * r->lat[i]);
			fclose(f);
		}
	} else {
		double w = r->end - r->start;

		printf("RESULT role=be wl=%s units=%ld window_s=%.3f "
		       "units_per_s=%.3f work_per_s=%.6g work=%s yields=%ld\n",
		       r->spec, r->units, w, r->units / w,
		       r->units * r->st.work / w, r->ops->work_name, r->yields);
	}
	fflush(stdout);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: gsp-wl list | check [WL...] | info |\n"
		"       run [--lc WL] [--be WL] [--mech solo|streams|prio|green|flep]\n"
		"           [--duration S] [--period-ms P] [--xfer-lc R] [--xfer-be R]\n"
		"           [--depth D] [--green-sms N] [--lat-out F] [--trace-out F]\n"
		"           [--sync] |\n"
		"       scale --wl WL [--sms a,b,..] [--bps a,b,..] [--time S] |\n"
		"       digest [WL...]\n");
}

static int init_device(void)
{
	CK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
	CK(cudaFree(0));
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	struct role lc, be;
	const char *mech = "solo", *lat_out = NULL, *trace_out = NULL;
	double duration = 2, period = 2e-3;
	int depth = 2, green_sms = 0, sync = 0, rc = 0;
	struct green gr;
	pthread_t th[2];
	int nth = 0, lo, hi;

	memset(&lc, 0, sizeof(lc));
	memset(&be, 0, sizeof(be));
	memset(&gr, 0, sizeof(gr));
	lc.lc = 1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--sync")) {
			sync = 1;
			continue;
		}
		if (!v) {
			usage();
			return 2;
		}
		i++;
		if (!strcmp(a, "--lc"))
			lc.spec = v;
		else if (!strcmp(a, "--be"))
			be.spec = v;
		else if (!strcmp(a, "--mech"))
			mech = v;
		else if (!strcmp(a, "--duration"))
			duration = atof(v);
		else if (!strcmp(a, "--period-ms"))
			period = atof(v) * 1e-3;
		else if (!strcmp(a, "--xfer-lc"))
			lc.xfer = atof(v);
		else if (!strcmp(a, "--xfer-be"))
			be.xfer = atof(v);
		else if (!strcmp(a, "--depth"))
			depth = atoi(v);
		else if (!strcmp(a, "--green-sms"))
			green_sms = atoi(v);
		else if (!strcmp(a, "--lat-out"))
			lat_out = v;
		else if (!strcmp(a, "--trace-out"))
			trace_out = v;
		else {
			usage();
			return 2;
		}
	}
	if (!lc.spec && !be.spec) {
		usage();
		return 2;
	}
	if (strcmp(mech, "solo") && strcmp(mech, "streams") &&
	    strcmp(mech, "prio") && strcmp(mech, "green") && strcmp(mech, "flep")) {
		fprintf(stderr, "gsp-wl: unknown mechanism '%s'\n", mech);
		return 2;
	}
	if (init_device())
		return 1;
	CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
	if ((lc.spec && role_setup(&lc, 0)) || (be.spec && role_setup(&be, 0)))
		return 1;
	if (lc.spec)
		CK(cudaStreamCreateWithPriority(&lc.s, cudaStreamNonBlocking,
				!strcmp(mech, "prio") ? hi : lo));
	if (be.spec) {
		if (!strcmp(mech, "green")) {
			if (green_make(&gr, green_sms > 0 ? green_sms : 66, lo))
				return 1;
			be.s = gr.s;
			be.ctx = gr.ctx;
			fprintf(stderr, "gsp-wl: BE confined to a green context of %d SMs\n",
				gr.sms);
		} else {
			CK(cudaStreamCreateWithPriority(&be.s, cudaStreamNonBlocking, lo));
		}
	}
	/* warm up: module load, first-touch, clocks */
	for (int i = 0; i < 3; i++) {
		if ((lc.spec && role_issue(&lc)) || (be.spec && role_issue(&be)))
			return 1;
	}
	CK(cudaDeviceSynchronize());
	if (be.spec && be.ctx) {
		CU(cuCtxSetCurrent(be.ctx));
		if (role_issue(&be))
			return 1;
		CK(cudaStreamSynchronize(be.s));
	}
	if (sync) {
		char line[256];
		long long s0, s1;

		printf("READY\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin) ||
		    sscanf(line, "GO %lld %lld", &s0, &s1) != 2) {
			fprintf(stderr, "gsp-wl: expected 'GO start end' on stdin\n");
			return 1;
		}
		lc.start = be.start = s0 * 1e-9;
		lc.end = be.end = s1 * 1e-9;
	} else {
		lc.start = be.start = now_s() + 0.2;
		lc.end = be.end = lc.start + duration;
	}
	lc.period = period;
	be.flep = !strcmp(mech, "flep");
	/* flep: one unit in flight, so that the BE yields at the next unit */
	be.depth = be.flep ? 1 : depth;
	if (be.spec)
		pthread_create(&th[nth++], NULL, role_thread, &be);
	if (lc.spec)
		pthread_create(&th[nth++], NULL, role_thread, &lc);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	if (lc.err || be.err) {
		fprintf(stderr, "gsp-wl: a role failed\n");
		rc = 1;
	}
	if (!rc && trace_out && be.spec)
		role_trace(&be, trace_out);
	if (!rc && trace_out && lc.spec)
		role_trace(&lc, trace_out);
	if (!rc && be.spec)
		role_report(&be, NULL);
	if (!rc && lc.spec)
		role_report(&lc, lat_out);
	if (be.spec && be.ctx) {
		cuCtxSetCurrent(NULL);
		cudaSetDevice(0);
	}
	role_teardown(&lc);
	role_teardown(&be);
	if (gr.g)
		green_free(&gr);
	return rc;
}

/* ---- check ---- */

__global__ void smid_kernel(unsigned int *seen)
{
	unsigned int id;

	asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
	if (threadIdx.x == 0)
		atomicOr(&seen[id / 32], 1u << (id % 32));
	/* linger so that blocks spread over every SM they may use */
	long long t0 = clock64();
	while (clock64() - t0 < 200000)
		;
}

static int green_check(int *tapn)
{
	struct green gr;
	unsigned int *d, h[16];
	int n = 0, want = 16;

	if (green_make(&gr, want, 0))
		return -1;
	CK(cudaMalloc(&d, sizeof(h)));
	CK(cudaMemset(d, 0, sizeof(h)));
	smid_kernel<<<1024, 128, 0, gr.s>>>(d);
	CKL();
	CK(cudaStreamSynchronize(gr.s));
	CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int i = 0; i < 16; i++)
		n += __builtin_popcount(h[i]);
	printf("%s %d - green context of %d SMs ran on %d distinct SMs\n",
	       n >= 1 && n <= gr.sms ? "ok" : "not ok", ++*tapn, gr.sms, n);
	cudaFree(d);
	green_free(&gr);
	return n >= 1 && n <= gr.sms ? 0 : -1;
}

/* check and digest: every workload and three micro instances */
static const char *const def_wls[] = { "mm", "nn", "cfd", "md", "bp", "lbm",
	"hotspot", "pathfinder", "streamcluster", "spmv", "lud",
	"micro:1:0:1", "micro:32:0.2:4", "micro:6:0.1:2" };
#define NDEF_WLS (int)(sizeof(def_wls) / sizeof(def_wls[0]))
/*
 * check also runs these: STM's saturating-set workloads (bench/gpu/stm.cu).
 * digest's default (def_wls), which run-be-cost.sh and run-spatial.sh
 * take as their workloads, stays as it was.
 */
static const char *const check_more[] = { "stream", "fma" };
#define NCHECK_MORE (int)(sizeof(check_more) / sizeof(check_more[0]))

static int cmd_check(int argc, char **argv)
{
	const char *const *names = argc ? (const char *const *)argv : def_wls;
	int n = argc ? argc : NDEF_WLS + NCHECK_MORE;
	int fails = 0, tapn = 0;

	if (init_device())
		return 1;
	for (int i = 0; i < n; i++) {
		const char *name = argc || i < NDEF_WLS ? names[i] :
			check_more[i - NDEF_WLS];
		struct wl_state st;
		struct wl_cfg cfg = { 1, 0, "" };
		const struct wl_ops *ops = wl_find(name, &cfg.arg);
		int bad;

		memset(&st, 0, sizeof(st));
		bad = !ops || ops->setup(&st, &cfg) || ops->check(&st);
		if (ops)
			ops->teardown(&st);
		if (cudaGetLastError() != cudaSuccess)
			bad = 1;
		printf("%s %d - %s matches the CPU reference\n",
		       bad ? "not ok" : "ok", ++tapn, name);
		fails += bad;
	}
	if (!argc && green_check(&tapn))
		fails++;
	printf("1..%d\n", tapn);
	return fails ? 1 : 0;
}

/* ---- scale ---- */

static int parse_list(const char *s, int *v, int max)
{
	int n = 0;

	while (s && *s && n < max) {
		v[n++] = atoi(s);
		s = strchr(s, ',');
		if (s)
			s++;
	}
	return n;
}

/* back-to-back units for t seconds on stream s: units per second */
static double rate(struct wl_state *st, const struct wl_ops *ops,
		   cudaStream_t s, double t)
{
	double t0, t1;
	long n = 0;

	for (int i = 0; i < 2; i++)
		ops->unit(st, s);
	cudaStreamSynchronize(s);
	t0 = now_s();
	do {
		for (int i = 0; i < 4; i++, n++)
			if (ops->unit(st, s))
				return NAN;
		if (cudaStreamSynchronize(s) != cudaSuccess)
			return NAN;
		t1 = now_s();
	} while (t1 - t0 < t);
	return n / (t1 - t0);
}

static int cmd_scale(int argc, char **argv)
{
	const char *spec = NULL, *sms_s = "8,16,32,48,64,96,128", *bps_s = "1,2,4,8";
	int sms[32], bps[32], nsms, nbps, nsm_dev, maxb;
	double t = 0.3, full;
	struct wl_state st;
	struct wl_cfg cfg = { 0, 0, "" };
	const struct wl_ops *ops;
	cudaDeviceProp prop;
	cudaStream_t s;
	cudaFuncAttributes fa;

	for (int i = 0; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--wl"))
			spec = argv[i + 1];
		else if (!strcmp(argv[i], "--sms"))
			sms_s = argv[i + 1];
		else if (!strcmp(argv[i], "--bps"))
			bps_s = argv[i + 1];
		else if (!strcmp(argv[i], "--time"))
			t = atof(argv[i + 1]);
	}
	if (!spec || !(ops = wl_find(spec, &cfg.arg))) {
		usage();
		return 2;
	}
	nsms = parse_list(sms_s, sms, 32);
	nbps = parse_list(bps_s, bps, 32);
	if (init_device())
		return 1;
	CK(cudaGetDeviceProperties(&prop, 0));
	nsm_dev = prop.multiProcessorCount;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	memset(&st, 0, sizeof(st));
	if (ops->setup(&st, &cfg))
		return 1;
	full = rate(&st, ops, s, t);
	printf("SCALE wl=%s kind=sms value=%d got=%d units_per_s=%.3f speedup=1.000\n",
	       spec, nsm_dev, nsm_dev, full);
	for (int i = 0; i < nsms; i++) {
		struct green gr;
		double r;

		if (sms[i] >= nsm_dev)
			continue;
		if (green_make(&gr, sms[i], 0))
			return 1;
		r = rate(&st, ops, gr.s, t);
		printf("SCALE wl=%s kind=sms value=%d got=%d units_per_s=%.3f "
		       "speedup=%.3f\n", spec, sms[i], gr.sms, r, r / full);
		fflush(stdout);
		green_free(&gr);
	}
	/* blocks per SM: pad dynamic shared memory so that k blocks fit */
	CK(cudaFuncGetAttributes(&fa, st.main_kernel));
	CK(cudaFuncSetAttribute(st.main_kernel,
				cudaFuncAttributeMaxDynamicSharedMemorySize,
				(int)(prop.sharedMemPerBlockOptin - fa.sharedSizeBytes)));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&maxb, st.main_kernel,
			st.main_block, st.main_dyn_smem));
	ops->teardown(&st);
	printf("SCALE wl=%s kind=bps value=%d got=%d units_per_s=%.3f speedup=1.000\n",
	       spec, maxb, maxb, full);
	for (int i = 0; i < nbps; i++) {
		size_t lo = 0, hi = prop.sharedMemPerBlockOptin - fa.sharedSizeBytes;
		int got = -1;
		double r;

		if (bps[i] >= maxb)
			continue;
		/* smallest pad with at most bps[i] blocks per SM */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int b;

			CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b,
				st.main_kernel, st.main_block, mid + st.main_dyn_smem));
			if (b <= bps[i])
				hi = mid;
			else
				lo = mid + 1;
		}
		cfg.smem_pad = lo;
		memset(&st, 0, sizeof(st));
		if (ops->setup(&st, &cfg))
			return 1;
		CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, st.main_kernel,
				st.main_block, lo + st.main_dyn_smem));
		r = rate(&st, ops, s, t);
		printf("SCALE wl=%s kind=bps value=%d got=%d units_per_s=%.3f "
		       "speedup=%.3f pad=%zu\n", spec, bps[i], got, r, r / full, lo);
		fflush(stdout);
		ops->teardown(&st);
	}
	return 0;
}

/* ---- digest ---- */

static uint64_t fnv1a64(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* zero the output (bytes a unit leaves alone hash alike), one unit, hash */
static int digest_one(const char *name, cudaStream_t s, uint64_t *h)
{
	struct wl_state st;
	struct wl_cfg cfg = { 0, 0, "" };
	const struct wl_ops *ops = wl_find(name, &cfg.arg);
	unsigned char *host = NULL;
	int rc = -1;

	if (!ops)
		return -1;
	memset(&st, 0, sizeof(st));
	if (ops->setup(&st, &cfg))
		goto out_teardown;
	host = (unsigned char *)malloc(st.out_bytes);
	if (!host ||
	    cudaMemsetAsync(st.out_dev, 0, st.out_bytes, s) != cudaSuccess ||
	    ops->unit(&st, s) || cudaStreamSynchronize(s) != cudaSuccess ||
	    cudaMemcpy(host, st.out_dev, st.out_bytes, cudaMemcpyDeviceToHost) !=
	    cudaSuccess)
		goto out_free;
	*h = fnv1a64(host, st.out_bytes);
	rc = 0;
out_free:
	free(host);
out_teardown:
	ops->teardown(&st);
	return rc;
}

/*
 * A run under gsp-run --spatial (transformed kernels) must print the same
 * lines as a plain run: the outputs are then equal bit for bit.
 */
static int cmd_digest(int argc, char **argv)
{
	const char *const *names = argc ? (const char *const *)argv : def_wls;
	int n = argc ? argc : NDEF_WLS, fails = 0;
	cudaStream_t s;

	if (init_device())
		return 1;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	for (int i = 0; i < n; i++) {
		uint64_t h;

		if (digest_one(names[i], s, &h)) {
			fprintf(stderr, "gsp-wl: digest: %s failed\n", names[i]);
			fails++;
			continue;
		}
		printf("%s %016llx\n", names[i], (unsigned long long)h);
		fflush(stdout);
	}
	cudaStreamDestroy(s);
	return fails ? 1 : 0;
}

static int cmd_info(void)
{
	cudaDeviceProp p;
	int drv = 0, rt = 0;

	if (init_device())
		return 1;
	CK(cudaGetDeviceProperties(&p, 0));
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	printf("INFO name=\"%s\" sms=%d cc=%d.%d smem_per_sm=%zu l2=%d "
	       "driver_api=%d runtime=%d\n", p.name, p.multiProcessorCount,
	       p.major, p.minor, p.sharedMemPerMultiprocessor, p.l2CacheSize,
	       drv, rt);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage();
		return 2;
	}
	if (!strcmp(argv[1], "list")) {
		for (int i = 0; i < NWL; i++)
			if (wl_all[i] != &wl_micro)
				printf("%s\n", wl_all[i]->name);
		for (int s = 0; s < 9; s++)
			for (int o = 0; o < 5; o++)
				for (int it = 1; it <= 4; it++)
					printf("micro:%d:%.2f:%d\n", micro_strides[s],
					       micro_overlaps[o], it);
		return 0;
	}
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 2, argv + 2);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(argv[1], "scale"))
		return cmd_scale(argc - 2, argv + 2);
	if (!strcmp(argv[1], "info"))
		return cmd_info();
	if (!strcmp(argv[1], "digest"))
		return cmd_digest(argc - 2, argv + 2);
	usage();
	return 2;
}
