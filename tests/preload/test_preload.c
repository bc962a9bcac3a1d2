// SPDX-License-Identifier: GPL-2.0
/*
 * Over 800 lines: one program whose scenarios run.sh picks by name; new
 * scenarios go into programs of their own (test_lcprio.c, test_protect.c,
 * test_modes.c, test_faults.c, test_arbiter.c). What still grows here
 * extends a scenario it already has (noarb's refusals, the table's first
 * variants, green's kinds of op: copies, memsets, clusters), whose
 * set-up, fake board and trace checks are this file's.
 *
 * Tests of libgsp_preload.so against the fake libcuda (fake_cuda.c) and,
 * where a scenario needs an arbiter, the fake libgsp (fake_gsp.c). Linked
 * with -lcuda like a program that calls the driver directly; run.sh puts
 * the interposer in LD_PRELOAD and picks the scenario:
 *
 *   table     symbol resolution: dlsym, direct calls, cuGetProcAddress
 *   order     BE deferral keeps program order and copies kernel arguments
 *   sync      every sync point drains what was deferred before it
 *   gate      calls the dispatcher cannot issue run in the calling thread
 *   lease     leases are COMPLETEd with the fake GPU time
 *   lc        the LC fast path stamps the board and is charged
 *   die       the arbiter fails mid-run and comes back: nothing reaches
 *             the driver meanwhile, everything after, in order, under new
 *             leases (GSP_FAIL_OPEN=1: everything passes through at once)
 *   hung      the arbiter marks the tenant hung (SUBMIT: EBUSY): it
 *             rejoins once and stays scheduled
 *   watchdog  a lease ends by the watchdog (COMPLETE: EALREADY): the same
 *   lcrejoin  an LC tenant rejoins: its issues count in its new slot
 *   spmoved   (spatial) a rejoin onto a new board page: transformed
 *             launches then read a local copy of the request
 *   noarb     no tenant (no libgsp, no arbiter, bad settings): with
 *             NOARB=refuse launches and copies fail with
 *             CUDA_ERROR_NOT_PERMITTED and none reaches the driver, while
 *             event records and syncs still work; with NOARB=pass
 *             (GSP_FAIL_OPEN=1, GSP_DISABLE=1) everything passes through
 *   e2e       100 launches of 1 ms against a real arbiter (run.sh checks
 *             the counters); $E2E_SLEEP_US between launches
 *   long      (real time, against gspaced) launches of $E2E_KERNEL_MS
 *             each, one per lease; run.sh sets a short watchdog and
 *             checks renewals, rejoins and the charge
 *   spatial   with a partition on the fake board: a BE launch of a
 *             transformable kernel runs NAME__gsp (one-wave grid, job,
 *             ctl reset before it), gets one top-up when the request
 *             shrinks while it runs and none after; untransformable
 *             kernels run unchanged, and so does a one-wave grid while
 *             nothing is asked (GSP_ONE_WAVE=0: it is transformed);
 *             transformed launches do not wait for LC work, the others do
 *   spvars    module-scope variables of transformed kernels: .const ones
 *             copied into the transformed module before a primary, on
 *             its stream; .global ones reached through a reference bound
 *             to the program's variable at the JIT, never copied; none
 *             for an image without them; kernels whose variables cannot
 *             be paired, or that name a texture reference, run
 *             unchanged (run.sh counts the reports)
 *   nospatial the same program where nothing may be transformed (run.sh:
 *             GSP_SPATIAL=0, or an LC tenant)
 *   green     (132 simulated SMs) while LC work asks for n SMs, a kernel
 *             that cannot be transformed runs on the stream of a green
 *             context of 132 - n SMs rounded down to 8, tied to its own
 *             stream by an event each way, the context reused; below 8
 *             SMs, for a cooperative launch, or outside the primary
 *             context it waits for the LC work (run.sh: the reports,
 *             counters, and that exit destroys the green contexts)
 *   greengate the same kernel waits for the LC work when green contexts
 *             cannot be had (run.sh: a 12.3 driver, GSP_GREEN=0, creation
 *             failing)
 *   flood     with FAKE_CUDA_REALTIME=1: 20000 back-to-back zero-length
 *             BE launches and a sync, then 100 us launches back to back
 *             for 0.5 s and a sync; both must finish in bounded time
 *   bench     not a test: host time per launch (p50/p99) of empty
 *             launches and the rate of back-to-back 100 us launches, one
 *             RESULT line; tests/preload/bench.sh runs it in each mode
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#undef cuGetProcAddress
#include <gsp_board.h>
#include <gsp_persist.h>

#include "fake_cuda.h"
#include "fake_gsp.h"
#include "tap.h"

#define CTX ((CUcontext)0xc0)
#define S1 ((CUstream)0x51)
#define S2 ((CUstream)0x52)

CUresult cuGetProcAddress(const char *, void **, int, cuuint64_t);
CUresult cuLaunchKernel_ptsz(CUfunction, unsigned int, unsigned int,
			     unsigned int, unsigned int, unsigned int,
			     unsigned int, unsigned int, CUstream, void **,
			     void **);

static CUfunction fn1;		/* one int parameter */

static void launch(CUstream s, int arg)
{
	int a = arg;
	void *p[] = { &a };

	cuLaunchKernel(fn1, 1, 1, 1, 1, 1, 1, 0, s, p, NULL);
	a = -1;		/* the driver must still see @arg */
}

/* Index of the first trace entry named @name at or after @from, or -1. */
/* Memsets in [from, to) on @s (NULL: any stream), of @addr (0: any). */
static unsigned int memsets_on(CUstream s, unsigned int from, unsigned int to,
			       uint64_t addr)
{
	unsigned int k = 0;
	struct fake_call c;

	for (; from < to; from++) {
		fake_trace_get(from, &c);
		k += !strncmp(c.name, "cuMemsetD32Async", 16) &&
		     (!s || c.stream == (uintptr_t)s) && (!addr || c.addr == addr);
	}
	return k;
}

static int find(const char *name, unsigned int from)
{
	unsigned int i, n = fake_trace_len();
	struct fake_call c;

	for (i = from; i < n; i++) {
		fake_trace_get(i, &c);
		if (!strcmp(c.name, name))
			return (int)i;
	}
	return -1;
}

/* Launch payloads of the trace, in order, into @out; returns how many. */
static unsigned int launches(uint64_t *out, pid_t *tids, unsigned int max)
{
	unsigned int i, k = 0, n = fake_trace_len();
	struct fake_call c;

	for (i = 0; i < n && k < max; i++) {
		fake_trace_get(i, &c);
		if (strncmp(c.name, "cuLaunchKernel", 14))
			continue;
		if (tids)
			tids[k] = c.tid;
		out[k++] = c.payload;
	}
	return k;
}

static void t_table(void)
{
	static const struct { const char *api, *sym; int ver, ptds; } v[] = {
		{ "cuLaunchKernel", "cuLaunchKernel", 12000, 0 },
		{ "cuLaunchKernel", "cuLaunchKernel_ptsz", 12080, 1 },
		{ "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz", 13000, 1 },
		{ "cuGraphLaunch", "cuGraphLaunch", 13000, 0 },
		{ "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel", 12000, 0 },
		{ "cuMemcpyHtoD", "cuMemcpyHtoD_v2", 12000, 0 },
		{ "cuMemcpyHtoD", "cuMemcpyHtoD_v2_ptds", 13000, 1 },
		{ "cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2_ptsz", 12080, 1 },
		{ "cuEventElapsedTime", "cuEventElapsedTime", 12080, 0 },
		{ "cuEventElapsedTime", "cuEventElapsedTime_v2", 13000, 0 },
		{ "cuStreamSynchronize", "cuStreamSynchronize_ptsz", 12000, 1 },
		{ "cuGetProcAddress", "cuGetProcAddress_v2", 12000, 0 },
		{ "cuCtxSynchronize", "cuCtxSynchronize", 13000, 1 },
		{ "cuModuleLoadData", "cuModuleLoadData", 13000, 0 },
		{ "cuModuleLoadDataEx", "cuModuleLoadDataEx", 12000, 0 },
		{ "cuModuleLoadFatBinary", "cuModuleLoadFatBinary", 13000, 0 },
		{ "cuModuleLoad", "cuModuleLoad", 13000, 0 },
		{ "cuModuleGetFunction", "cuModuleGetFunction", 13000, 1 },
		{ "cuModuleUnload", "cuModuleUnload", 13000, 0 },
		{ "cuLibraryLoadData", "cuLibraryLoadData", 12000, 0 },
		{ "cuLibraryLoadFromFile", "cuLibraryLoadFromFile", 13000, 0 },
		{ "cuLibraryGetKernel", "cuLibraryGetKernel", 13000, 0 },
		{ "cuLibraryGetModule", "cuLibraryGetModule", 13000, 0 },
		{ "cuKernelGetFunction", "cuKernelGetFunction", 13000, 1 },
		{ "cuLibraryUnload", "cuLibraryUnload", 13000, 0 },
		/* the first variants cudart still asks for */
		{ "cuStreamBeginCapture", "cuStreamBeginCapture", 10000, 0 },
		{ "cuStreamBeginCapture", "cuStreamBeginCapture_ptsz", 10000, 1 },
		{ "cuStreamBeginCapture", "cuStreamBeginCapture_v2", 12000, 0 },
		{ "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease", 10020, 0 },
		{ "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2", 12000, 0 },
		{ "cuDevicePrimaryCtxReset", "cuDevicePrimaryCtxReset", 10020, 0 },
	};
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *ours, *p, *real;
	unsigned int i;
	int rv;
	CUdriverProcAddressQueryResult st;

	for (i = 0; i < sizeof(v) / sizeof(*v); i++) {
		uint64_t fl = v[i].ptds ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
					: CU_GET_PROC_ADDRESS_LEGACY_STREAM;

		/* The preload comes first in the global scope: ours. */
		ours = dlsym(RTLD_DEFAULT, v[i].sym);
		real = dlsym(cuda, v[i].sym);
		Dl_info a, b;
		p = NULL;
		rv = cuGetProcAddress_v2(v[i].api, &p, v[i].ver, fl, &st);
		tap_ok(rv == CUDA_SUCCESS && ours && p == ours && real == ours &&
		       dladdr(ours, &a) && strstr(a.dli_fname, "libgsp_preload") &&
		       dladdr(dlsym(RTLD_NEXT, "fake_trace_len"), &b) &&
		       strstr(b.dli_fname, "libcuda"),
		       "table: %s at cudaVersion %d%s resolves to our %s via cuGetProcAddress_v2 and dlsym",
		       v[i].api, v[i].ver, v[i].ptds ? " per-thread" : "", v[i].sym);
	}
	/* Asking cuGetProcAddress for itself gives our wrapper. */
	p = NULL;
	rv = cuGetProcAddress("cuGetProcAddress", &p, 11080, 0);
	tap_ok(rv == CUDA_SUCCESS && p == dlsym(RTLD_DEFAULT, "cuGetProcAddress"),
	       "table: cuGetProcAddress(\"cuGetProcAddress\", 11080) is our v1 wrapper");
	/* Unhooked names come back unchanged. */
	p = NULL;
	rv = cuGetProcAddress_v2("cuDeviceGetCount", &p, 13000, 0, &st);
	tap_ok(rv == CUDA_SUCCESS && p == dlsym(cuda, "cuDeviceGetCount") &&
	       dladdr(p, &(Dl_info){ 0 }),
	       "table: unhooked cuDeviceGetCount passes through unchanged");
	/* A variant we lack (pre-3.2 cuMemcpyHtoD) passes through; run.sh
	 * counts its warning. */
	p = NULL;
	rv = cuGetProcAddress_v2("cuMemcpyHtoD", &p, 3000, 0, &st);
	tap_ok(rv == CUDA_SUCCESS && p == dlsym(cuda, "cuMemcpyHtoD"),
	       "table: pre-3.2 cuMemcpyHtoD (no wrapper) passes through");
	rv = cuGetProcAddress_v2("cuMemcpyHtoD", &p, 3010, 0, &st);
	/* RTLD_NEXT from here still means "after the main program". */
	tap_ok(dlsym(RTLD_NEXT, "dlsym") == dlsym(RTLD_DEFAULT, "dlsym") &&
	       dlsym(RTLD_DEFAULT, "dlsym") != dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34"),
	       "table: dlsym(RTLD_NEXT) keeps the caller's meaning through our dlsym");
	/* A direct call reaches the driver through us. */
	cuCtxSetCurrent(CTX);
	fake_trace_reset();
	launch(S1, 42);
	cuCtxSynchronize();
	{
		uint64_t a[4];

		tap_ok(launches(a, NULL, 4) == 1 && a[0] == 42,
		       "table: a direct cuLaunchKernel call reaches the driver with its argument");
	}
}

static void *order_thread(void *arg)
{
	int base = (int)(intptr_t)arg, i;

	cuCtxSetCurrent(CTX);
	for (i = 0; i < 100; i++)
		launch(i % 2 ? S1 : S2, base + i);
	return NULL;
}

static void t_order(void)
{
	uint64_t got[512];
	pid_t tids[512];
	unsigned int n, i, ok = 1;
	int ext[2] = { 0, 0 };
	size_t sz = 4;
	CUevent ev;
	pthread_t th[2];
	char extbuf[4];
	void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, extbuf,
			  CU_LAUNCH_PARAM_BUFFER_SIZE, &sz, CU_LAUNCH_PARAM_END };

	cuCtxSetCurrent(CTX);
	cuEventCreate(&ev, 0);
	fake_trace_reset();
	for (i = 0; i < 200; i++) {
		launch(i % 3 ? S1 : S2, (int)i);
		if (i == 100) {
			cuEventRecord(ev, S1);
			cuStreamWaitEvent(S2, ev, 0);
		}
	}
	ext[0] = 777;
	memcpy(extbuf, ext, 4);
	cuLaunchKernel(fn1, 1, 1, 1, 1, 1, 1, 0, S1, NULL, extra);
	memset(extbuf, 0, 4);
	cuCtxSynchronize();
	n = launches(got, tids, 512);
	for (i = 0; i < 200; i++)
		ok &= got[i] == i && tids[i] != gettid();
	tap_ok(n == 201 && ok,
	       "order: 200 launches on two streams reach the driver in program order with their own arguments, from the dispatcher");
	tap_ok(n == 201 && got[200] == 777,
	       "order: a CU_LAUNCH_PARAM_BUFFER launch's buffer is copied at the call");
	{
		int w = find("cuStreamWaitEvent", 0), r = -1, l100 = -1, l101 = -1;
		struct fake_call c, wc;
		unsigned int k, seen = 0;

		if (w >= 0)
			fake_trace_get((unsigned int)w, &wc);
		for (k = 0; w >= 0 && k < fake_trace_len(); k++) {
			fake_trace_get(k, &c);
			if (!strcmp(c.name, "cuEventRecord") &&
			    c.payload == wc.payload && r < 0)
				r = (int)k;
			if (!strcmp(c.name, "cuLaunchKernel")) {
				if (seen == 100)
					l100 = (int)k;
				if (seen == 101)
					l101 = (int)k;
				seen++;
			}
		}
		tap_ok(w >= 0 && l100 >= 0 && l100 < r && r < w && w < l101,
		       "order: the app's cuEventRecord and cuStreamWaitEvent keep their place between launches 100 and 101");
	}
	fake_trace_reset();
	pthread_create(&th[0], NULL, order_thread, (void *)(intptr_t)1000);
	pthread_create(&th[1], NULL, order_thread, (void *)(intptr_t)2000);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	cuCtxSynchronize();
	n = launches(got, NULL, 512);
	{
		uint64_t next[2] = { 1000, 2000 };

		ok = n == 200;
		for (i = 0; i < n; i++) {
			int t = got[i] >= 2000;

			ok &= got[i] == next[t];
			next[t]++;
		}
	}
	tap_ok(ok, "order: two threads' launches each keep their thread's order");
}

static void t_sync(void)
{
	static const char *const names[] = {
		"cuCtxSynchronize", "cuStreamSynchronize", "cuStreamQuery",
		"cuEventSynchronize", "cuMemFree_v2",
	};
	unsigned int k, i;
	CUevent ev;

	cuCtxSetCurrent(CTX);
	cuEventCreate(&ev, 0);
	for (k = 0; k < sizeof(names) / sizeof(*names); k++) {
		int last = -1, at;
		uint64_t got[64];
		unsigned int n;

		fake_trace_reset();
		for (i = 0; i < 50; i++)
			launch(S1, (int)i);
		switch (k) {
		case 0: cuCtxSynchronize(); break;
		case 1: cuStreamSynchronize(S2); break;
		case 2: cuStreamQuery(S2); break;
		case 3: cuEventSynchronize(ev); break;
		case 4: cuMemFree(0x1234); break;
		}
		at = find(names[k], 0);
		n = launches(got, NULL, 64);
		for (i = 0; i < fake_trace_len(); i++) {
			struct fake_call c;

			fake_trace_get(i, &c);
			if (!strcmp(c.name, "cuLaunchKernel"))
				last = (int)i;
		}
		tap_ok(n == 50 && at > last,
		       "sync: %s comes after all 50 launches deferred before it",
		       names[k]);
	}
}

static void t_gate(void)
{
	static char pinned[256];
	char *pageable = malloc(256);
	struct fake_call c;
	int at;

	cuCtxSetCurrent(CTX);
	fake_register(pinned, sizeof(pinned), CU_MEMORYTYPE_HOST);
	fake_register((void *)0x7000, 0x1000, CU_MEMORYTYPE_DEVICE);
	fake_trace_reset();
	cuMemcpyHtoDAsync(0x7000, pageable, 100, S1);
	cuMemcpyHtoDAsync(0x7000, pinned, 200, S1);
	cuCtxSynchronize();
	at = find("cuMemcpyHtoDAsync_v2", 0);
	fake_trace_get(at, &c);
	tap_ok(at >= 0 && c.payload == 100 && c.tid == gettid(),
	       "gate: an async copy from pageable memory is issued in the calling thread");
	at = find("cuMemcpyHtoDAsync_v2", (unsigned int)at + 1);
	fake_trace_get(at, &c);
	tap_ok(at >= 0 && c.payload == 200 && c.tid != gettid(),
	       "gate: an async copy from pinned memory is deferred to the dispatcher");
	fake_trace_reset();
	launch(S1, 1);
	{
		int a = 2;
		void *p[] = { &a };

		cuLaunchKernel_ptsz(fn1, 1, 1, 1, 1, 1, 1, 0, NULL, p, NULL);
		a = 3;
		cuLaunchKernel(fn1, 1, 1, 1, 1, 1, 1, 0, CU_STREAM_PER_THREAD,
			       p, NULL);
		a = 4;
		cuLaunchKernel_ptsz(fn1, 1, 1, 1, 1, 1, 1, 0, S2, p, NULL);
	}
	cuCtxSynchronize();
	{
		uint64_t got[8];
		pid_t tids[8];
		unsigned int n = launches(got, tids, 8);

		tap_ok(n == 4 && got[0] == 1 && got[1] == 2 && got[2] == 3 &&
		       tids[1] == gettid() && tids[2] == gettid(),
		       "gate: per-thread-stream launches (_ptsz on stream 0, CU_STREAM_PER_THREAD) run in the calling thread, after the deferred launch before them");
		tap_ok(n == 4 && got[3] == 4 && tids[3] != gettid(),
		       "gate: a _ptsz launch on an explicit stream is deferred");
	}
	{
		CUfunction opaque = fake_function(-1, NULL);
		int a = 9;
		void *p[] = { &a };

		fake_trace_reset();
		cuLaunchKernel(opaque, 1, 1, 1, 1, 1, 1, 0, S1, p, NULL);
		at = find("cuLaunchKernel", 0);
		fake_trace_get(at, &c);
		tap_ok(at >= 0 && c.tid == gettid() && c.payload == 9,
		       "gate: a launch without parameter info is issued synchronously");
	}
	fake_trace_reset();
	cuMemcpyHtoD(0x7000, pinned, 64);
	at = find("cuMemcpyHtoD_v2", 0);
	fake_trace_get(at, &c);
	tap_ok(at >= 0 && c.tid == gettid(),
	       "gate: a synchronous copy runs in the calling thread");
	free(pageable);
}

/*
 * 40 launches of 1 ms under the 2 ms quantum. LEASE_RUN_ON=1: alone (the
 * board's waiting count 0), the lease runs past its quantum, so there is
 * one; else (GSP_RUN_ON=0, or LEASE_WAITING=N puts N waiting jobs on the
 * board) the quantum ends each lease.
 */
static void t_lease(void)
{
	unsigned int (*len)(void) = (unsigned int (*)(void))fake_gsp_sym("fake_gsp_len");
	struct fake_gsp_rec (*get)(unsigned int) =
		(struct fake_gsp_rec (*)(unsigned int))fake_gsp_sym("fake_gsp_get");
	struct gsp_board *(*board)(void) =
		(struct gsp_board *(*)(void))fake_gsp_sym("fake_gsp_board");
	const char *ro = getenv("LEASE_RUN_ON"), *wt = getenv("LEASE_WAITING");
	int one = ro && !strcmp(ro, "1");
	uint64_t sum = 0, subs = 0, comps = 0;
	unsigned int i;

	if (!len || !get || !board) {
		tap_ok(0, "lease: the fake libgsp is loaded");
		return;
	}
	if (wt)
		board()->dev[0].waiting = strtoull(wt, NULL, 10);
	cuCtxSetCurrent(CTX);
	fake_set_op_ns(1000000);
	for (i = 0; i < 40; i++)
		launch(S1, (int)i);
	cuCtxSynchronize();
	usleep(300000);		/* the idle lease ends after 200 us */
	for (i = 0; i < len(); i++) {
		struct fake_gsp_rec r = get(i);

		if (r.op == FAKE_SUBMIT)
			subs += r.engine == 0;
		else {
			comps++;
			sum += r.ns;
		}
	}
	tap_ok((one ? subs == 1 : subs >= 2) && subs == comps,
	       "lease: 40 launches of 1 ms under a 2 ms quantum took %lu compute leases (%s), each COMPLETEd",
	       (unsigned long)subs, one ? "want 1: it ran on alone" :
				     "want 2 or more: the quantum ended them");
	tap_ok(sum == 40 * 1000000ULL,
	       "lease: COMPLETE reported %lu ns, the fake GPU time of the 40 launches",
	       (unsigned long)sum);
}

static void t_lc(void)
{
	unsigned int (*len)(void) = (unsigned int (*)(void))fake_gsp_sym("fake_gsp_len");
	struct fake_gsp_rec (*get)(unsigned int) =
		(struct fake_gsp_rec (*)(unsigned int))fake_gsp_sym("fake_gsp_get");
	struct gsp_board *(*board)(void) =
		(struct gsp_board *(*)(void))fake_gsp_sym("fake_gsp_board");
	uint64_t sum = 0, stamp;
	unsigned int i;

	if (!len || !get || !board) {
		tap_ok(0, "lc: the fake libgsp is loaded");
		return;
	}
	cuCtxSetCurrent(CTX);
	fake_set_op_ns(1000000);
	fake_trace_reset();
	for (i = 0; i < 40; i++)
		launch(S1, (int)i);
	stamp = board()->lc[3].stamp_ns;
	{
		uint64_t got[64];
		pid_t tids[64];
		unsigned int n = launches(got, tids, 64);

		tap_ok(n == 40 && tids[0] == gettid() && tids[39] == gettid(),
		       "lc: launches go straight to the driver in the calling thread");
	}
	tap_ok(stamp > 0, "lc: the board slot was stamped");
	cuCtxSynchronize();
	usleep(300000);
	tap_ok(board()->lc[3].inflight == 0,
	       "lc: inflight is back to 0 once the reporter saw the work end");
	for (i = 0; i < len(); i++) {
		struct fake_gsp_rec r = get(i);

		if (r.op == FAKE_COMPLETE)
			sum += r.ns;
	}
	tap_ok(sum == 40 * 1000000ULL,
	       "lc: LC jobs were charged %lu ns, the fake GPU time of the 40 launches",
	       (unsigned long)sum);
}

/* How many records of kind @op the fake libgsp logged, from @from on. */
static unsigned int gsp_count(int op, unsigned int from)
{
	unsigned int (*len)(void) = (unsigned int (*)(void))fake_gsp_sym("fake_gsp_len");
	struct fake_gsp_rec (*get)(unsigned int) =
		(struct fake_gsp_rec (*)(unsigned int))fake_gsp_sym("fake_gsp_get");
	unsigned int i, k = 0;

	if (!len || !get)
		return 0;
	for (i = from; i < len(); i++)
		k += get(i).op == op;
	return k;
}

static unsigned int gsp_len(void)
{
	unsigned int (*len)(void) = (unsigned int (*)(void))fake_gsp_sym("fake_gsp_len");

	return len ? len() : 0;
}

/* 1 if the first @n launches reached the driver, all of them, in order. */
static int launched_in_order(unsigned int n)
{
	uint64_t got[256];
	unsigned int k = launches(got, NULL, 256), i;

	if (k != n)
		return 0;
	for (i = 0; i < k; i++)
		if (got[i] != i)
			return 0;
	return 1;
}

/*
 * The arbiter goes away mid-run (a dead daemon) and comes back: while it
 * is away nothing reaches the driver, after it every launch does, in
 * order, under leases of a new tenant. With GSP_FAIL_OPEN=1 the old way:
 * everything passes through at once.
 */
static void t_die(void)
{
	void (*fail)(void) = (void (*)(void))fake_gsp_sym("fake_gsp_fail");
	void (*recover)(void) = (void (*)(void))fake_gsp_sym("fake_gsp_recover");
	const char *fo = getenv("GSP_FAIL_OPEN");
	int open = fo && !strcmp(fo, "1");
	unsigned int i, held, mark;
	uint64_t got[256];

	if (!fail || !recover) {
		tap_ok(0, "die: the fake libgsp is loaded");
		return;
	}
	cuCtxSetCurrent(CTX);
	fake_trace_reset();
	for (i = 0; i < 50; i++)
		launch(S1, (int)i);
	cuCtxSynchronize();
	usleep(300000);		/* the idle lease ends, COMPLETEd */
	fail();
	for (i = 50; i < 100; i++)
		launch(S1, (int)i);
	usleep(300000);
	held = launches(got, NULL, 256);
	mark = gsp_len();
	recover();
	cuCtxSynchronize();
	usleep(300000);
	if (open) {
		tap_ok(held == 100 && launched_in_order(100) &&
		       !gsp_count(FAKE_REOPEN, 0),
		       "die: GSP_FAIL_OPEN=1: the launches pass straight through once the arbiter is gone (%u of 100 at once)",
		       held);
		return;
	}
	tap_ok(held == 50,
	       "die: while the arbiter is away no launch reaches the driver (%u of 100; 50 before it went)",
	       held);
	tap_ok(launched_in_order(100),
	       "die: once it is back every launch runs, in program order");
	tap_ok(gsp_count(FAKE_REOPEN, 0) == 1 &&
	       gsp_count(FAKE_SUBMIT, mark) >= 1 &&
	       gsp_count(FAKE_SUBMIT, mark) == gsp_count(FAKE_COMPLETE, mark),
	       "die: the tenant rejoined once and took leases again (%u after)",
	       gsp_count(FAKE_SUBMIT, mark));
}

/*
 * The arbiter marks the tenant hung (@how "hung": SUBMIT gives EBUSY) or
 * ends a lease by its watchdog (@how "watchdog": COMPLETE gives EALREADY
 * and marks it): the tenant rejoins and stays scheduled.
 */
static void t_rejoin(const char *how)
{
	void (*hang)(void) = (void (*)(void))fake_gsp_sym(
		!strcmp(how, "hung") ? "fake_gsp_hang" : "fake_gsp_expire");
	unsigned int i, mark;

	if (!hang) {
		tap_ok(0, "%s: the fake libgsp is loaded", how);
		return;
	}
	cuCtxSetCurrent(CTX);
	fake_set_op_ns(1000000);
	fake_trace_reset();
	for (i = 0; i < 10; i++)
		launch(S1, (int)i);
	cuCtxSynchronize();
	usleep(300000);		/* that lease ends */
	hang();
	for (i = 10; i < 20; i++)
		launch(S1, (int)i);
	cuCtxSynchronize();
	usleep(300000);
	mark = gsp_len();
	for (i = 20; i < 30; i++)
		launch(S1, (int)i);
	cuCtxSynchronize();
	usleep(300000);
	tap_ok(launched_in_order(30),
	       "%s: every launch runs, in program order", how);
	tap_ok(gsp_count(FAKE_REOPEN, 0) == 1,
	       "%s: the tenant rejoined the arbiter once (%u)", how,
	       gsp_count(FAKE_REOPEN, 0));
	tap_ok(gsp_count(FAKE_SUBMIT, mark) >= 1 &&
	       gsp_count(FAKE_SUBMIT, mark) == gsp_count(FAKE_COMPLETE, mark),
	       "%s: after it, launches still take leases (%u), each COMPLETEd",
	       how, gsp_count(FAKE_SUBMIT, mark));
}

/*
 * An LC tenant whose report outlived the watchdog rejoins: its issues are
 * counted in its new slot, and back to 0 once seen done; the old slot
 * stays cleared.
 */
static void t_lc_rejoin(void)
{
	void (*expire)(void) = (void (*)(void))fake_gsp_sym("fake_gsp_expire");
	struct gsp_board *(*board)(void) =
		(struct gsp_board *(*)(void))fake_gsp_sym("fake_gsp_board");
	unsigned int i;

	if (!expire || !board) {
		tap_ok(0, "lcrejoin: the fake libgsp is loaded");
		return;
	}
	cuCtxSetCurrent(CTX);
	fake_set_op_ns(1000000);
	expire();
	for (i = 0; i < 20; i++)
		launch(S1, (int)i);
	cuCtxSynchronize();
	usleep(300000);		/* reported: its COMPLETE gets EALREADY */
	tap_ok(gsp_count(FAKE_REOPEN, 0) == 1 && board()->lc[4].owner,
	       "lcrejoin: the LC tenant rejoined, a new slot (4)");
	for (i = 0; i < 20; i++)
		launch(S1, (int)i);
	tap_ok(board()->lc[4].stamp_ns > 0 && board()->lc[3].stamp_ns == 0,
	       "lcrejoin: issues stamp the new slot, not the old one");
	cuCtxSynchronize();
	usleep(300000);
	tap_ok(board()->lc[4].inflight == 0 && board()->lc[3].inflight == 0,
	       "lcrejoin: both slots' inflight are 0 once the work is seen done (%llu, %llu)",
	       (unsigned long long)board()->lc[4].inflight,
	       (unsigned long long)board()->lc[3].inflight);
}

static void t_noarb(void)
{
	const char *want = getenv("NOARB");
	int pass = want && !strcmp(want, "pass");
	CUresult r1, r2, rc, re, rs;
	uint64_t got[16];
	pid_t tids[16];
	unsigned int n;
	int a = 5;
	void *p[] = { &a };
	CUevent ev;

	cuCtxSetCurrent(CTX);
	cuEventCreate(&ev, 0);
	fake_trace_reset();
	r1 = cuLaunchKernel(fn1, 1, 1, 1, 1, 1, 1, 0, S1, p, NULL);
	a = 6;
	r2 = cuLaunchKernel(fn1, 1, 1, 1, 1, 1, 1, 0, S2, p, NULL);
	rc = cuMemsetD32Async(0x1000, 0, 64, S1);
	re = cuEventRecord(ev, S1);
	rs = cuStreamSynchronize(S1);
	n = launches(got, tids, 16);
	if (pass) {
		tap_ok(r1 == CUDA_SUCCESS && r2 == CUDA_SUCCESS && rc == CUDA_SUCCESS &&
		       n == 2 && got[0] == 5 && got[1] == 6 && tids[0] == gettid() &&
		       memsets_on(S1, 0, fake_trace_len(), 0x1000) == 1,
		       "noarb: asked to pass through, launches go straight to the driver");
		return;
	}
	tap_ok(r1 == CUDA_ERROR_NOT_PERMITTED && r2 == CUDA_ERROR_NOT_PERMITTED &&
	       rc == CUDA_ERROR_NOT_PERMITTED && n == 0 &&
	       memsets_on(NULL, 0, fake_trace_len(), 0) == 0,
	       "noarb: refused: launches and memsets fail with NOT_PERMITTED, none reaches the driver (%d %d %d, %u launches)",
	       (int)r1, (int)r2, (int)rc, n);
	tap_ok(re == CUDA_SUCCESS && rs == CUDA_SUCCESS,
	       "noarb: refused: an event record and a sync still work (%d %d)",
	       (int)re, (int)rs);
}

static void t_e2e(void)
{
	const char *sl = getenv("E2E_SLEEP_US");
	uint64_t got[128];
	unsigned int n, i, ok = 1;

	fake_set_op_ns(1000000);
	fake_trace_reset();
	for (i = 0; i < 100; i++) {
		launch(S1, (int)i);
		if (sl)
			usleep((useconds_t)atoi(sl));
	}
	cuCtxSynchronize();
	usleep(300000);
	n = launches(got, NULL, 128);
	for (i = 0; i < n; i++)
		ok &= got[i] == i;
	tap_ok(n == 100 && ok,
	       "e2e: 100 launches reach the driver in program order");
}

/*
 * Waits, if $E2E_HOLD names a path, until run.sh has looked at the
 * arbiter: PATH.ready made, PATH.go awaited (10 s at most).
 */
static void e2e_hold(void)
{
	const char *p = getenv("E2E_HOLD");
	char path[4096];
	FILE *f;
	int i;

	if (!p)
		return;
	snprintf(path, sizeof(path), "%s.ready", p);
	f = fopen(path, "w");
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s.go", p);
	for (i = 0; i < 1000 && access(path, F_OK); i++)
		usleep(10000);
}

/*
 * With FAKE_CUDA_REALTIME=1 against gspaced: $E2E_N launches (3) of
 * $E2E_KERNEL_MS each (300), each waited for, so that each lease holds
 * one long kernel. run.sh sets the watchdog and checks the counters.
 */
static void t_long(void)
{
	const char *n_s = getenv("E2E_N"), *ms_s = getenv("E2E_KERNEL_MS");
	unsigned int n = n_s ? (unsigned int)atoi(n_s) : 3, i;
	uint64_t ms = ms_s ? (uint64_t)atoll(ms_s) : 300;

	fake_set_op_ns(ms * 1000000ULL);
	fake_trace_reset();
	for (i = 0; i < n; i++) {
		launch(S1, (int)i);
		cuCtxSynchronize();
	}
	usleep(300000);		/* the idle lease ends */
	tap_ok(launched_in_order(n),
	       "long: %u launches of %llu ms reach the driver in program order",
	       n, (unsigned long long)ms);
	e2e_hold();
}

/* Spatial sharing ------------------------------------------------------------ */

/* k1 can be transformed; kgs reads %envreg1 (grid sync): it cannot. */
static const char sp_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n\n"
	".visible .entry k1(\n\t.param .u32 k1_param_0\n)\n{\n"
	"\t.reg .b32 %r<4>;\n\tld.param.u32 %r1, [k1_param_0];\n"
	"\tmov.u32 %r2, %ctaid.x;\n\tadd.s32 %r3, %r1, %r2;\n\tret;\n}\n\n"
	".visible .entry kgs(\n\t.param .u32 kgs_param_0\n)\n{\n"
	"\t.reg .b32 %r<3>;\n\tld.param.u32 %r1, [kgs_param_0];\n"
	"\tmov.u32 %r2, %envreg1;\n\tret;\n}\n";

static void launch_grid(CUfunction f, unsigned int gx, CUstream s, int arg)
{
	int a = arg;
	void *p[] = { &a };

	cuLaunchKernel(f, gx, 2, 1, 64, 1, 1, 128, s, p, NULL);
}

/* 10 x 2 blocks: more than one wave of the fake's 4 SMs x K = 3. */
static void launch_g(CUfunction f, CUstream s, int arg)
{
	launch_grid(f, 10, s, arg);
}

/* Launch trace entries of function @fn, from @from on; at most @max. */
static unsigned int launches_of(const char *fn, unsigned int from, int *idx,
				unsigned int max)
{
	unsigned int i, k = 0, n = fake_trace_len();
	struct fake_call c;

	for (i = from; i < n && k < max; i++) {
		fake_trace_get(i, &c);
		if (!strncmp(c.name, "cuLaunch", 8) && !strcmp(c.fn, fn))
			idx[k++] = (int)i;
	}
	return k;
}

_Static_assert(sizeof(((struct fake_call *)0)->job) == GSP_PERSIST_JOB_SIZE,
	       "the fake libcuda copies a whole job");

static struct gsp_persist_job job_of(unsigned int i)
{
	struct gsp_persist_job j;
	struct fake_call c;

	fake_trace_get(i, &c);
	memcpy(&j, c.job, sizeof(j));
	return j;
}

/* An image with one ELF entry and no PTX, behind a fatbin wrapper. */
static void *elf_only_wrapper(void)
{
	static uint64_t fb[2 + 8 + 8];	/* header, entry, payload */
	static struct {
		uint32_t magic, version;
		const void *data, *name;
	} w = { 0x466243b1u, 1, fb, NULL };
	unsigned char *e = (unsigned char *)&fb[2];
	uint32_t v32;
	uint64_t v64;

	fb[0] = 0xba55ed50u | (1ULL << 32) | (16ULL << 48);
	fb[1] = sizeof(fb) - 16;
	e[0] = 2;			/* kind: ELF */
	v32 = 64;
	memcpy(e + 4, &v32, 4);		/* entry header size */
	v64 = 64;
	memcpy(e + 8, &v64, 8);		/* payload size */
	memcpy(e + 64, "\177ELF", 4);
	return &w;
}

/*
 * Job @j, launched at trace index @at on S1: waited (a waiter kernel for
 * its tasks right behind it) unless GSP_KEEP=1, in every protect mode;
 * kept otherwise. When the waiter cannot be launched, the launch waits
 * on the host for done_tasks.
 */
static void t_spatial_waited(int at, const struct gsp_persist_job *j)
{
	const char *failfn = getenv("FAKE_CUDA_FAIL_FN");
	const char *prot = getenv("FAKE_GSP_PROTECT");
	int kept = getenv("GSP_KEEP") != NULL;
	int fail = failfn && !strcmp(failfn, "gsp_wait_done");
	uint32_t linger = prot && !strcmp(prot, "reserved") ? GSP_PERSIST_LINGER : 0;
	int idx[4], w = -1;
	struct fake_call c;

	if (launches_of("gsp_wait_done", (unsigned int)at, idx, 4))
		w = idx[0];

	tap_ok((j->flags & GSP_PERSIST_LINGER) == linger,
	       linger ? "spatial: under reserved a job's blocks linger to its end (flags %u)" :
			"spatial: outside reserved a job's blocks do not linger (flags %u)",
	       j->flags);
	if (kept) {
		tap_ok(j->flags == (GSP_PERSIST_PRIMARY | linger) && w < 0,
		       "spatial: kept job: the primary flag alone, no waiter (flags %u)",
		       j->flags);
		return;
	}
	tap_ok(j->flags == (GSP_PERSIST_PRIMARY | GSP_PERSIST_WAITED | linger),
	       "spatial: waited job: primary and waited flags (flags %u)",
	       j->flags);
	if (fail) {
		int r = find("cuMemcpyDtoHAsync_v2", (unsigned int)at);

		if (r >= 0)
			fake_trace_get((unsigned int)r, &c);
		tap_ok(w < 0 && r >= 0 &&
		       c.src == j->ctl + GSP_PERSIST_OFF_DONE_TASKS &&
		       c.count == 8 && c.stream != (uintptr_t)S1,
		       "spatial: no waiter to be had: the launch read done_tasks on the host, off the program's stream, before it returned");
		return;
	}
	if (w >= 0)
		fake_trace_get((unsigned int)w, &c);
	tap_ok(w >= 0 && c.stream == (uintptr_t)S1 && c.prev == at &&
	       c.grid[0] * c.grid[1] * c.grid[2] == 1 && c.block[0] == 32 &&
	       c.addr == j->ctl + GSP_PERSIST_OFF_DONE_TASKS &&
	       c.count == j->ntasks,
	       "spatial: right behind it on its stream, one warp of the waiter for done_tasks >= ntasks");
}

/* A top-up's flags: GSP_PERSIST_LINGER under reserved, else none */
static uint32_t sp_linger(void)
{
	const char *prot = getenv("FAKE_GSP_PROTECT");

	return prot && !strcmp(prot, "reserved") ? GSP_PERSIST_LINGER : 0;
}

/* k1__gsp's shared memory per block: k1's 128 bytes, or all of K = 3's */
static unsigned int sp_shmem(void)
{
	const char *fill = getenv("GSP_FILL");

	return fill && !strcmp(fill, "0") ? 128 : 77824 - 1024;
}

/*
 * The LC raises the request to (2, 1) with epoch @ep and drops it (epoch
 * @ep + 1), 20 ms after each, so the watcher sees both.
 */
static void req_pulse(uint64_t *req, uint64_t ep)
{
	__atomic_store_n(req, GSP_BOARD_REQ(2, 1, ep), __ATOMIC_RELEASE);
	usleep(20000);
	__atomic_store_n(req, GSP_BOARD_REQ(0, 0, ep + 1), __ATOMIC_RELEASE);
	usleep(20000);
}

/* t_spatial()'s reserved part (see there); the ctls its jobs took go in @seen */
static void t_spatial_reserved(CUfunction k1, uint64_t *req, uint64_t e,
			       uint64_t seen[3])
{
	struct gsp_persist_job oj;
	struct fake_call c;
	int idx[16], ok;
	unsigned int n;

	fake_hold(1);
	fake_trace_reset();
	launch_g(k1, S1, 43);
	cuCtxSynchronize();
	n = launches_of("k1__gsp", 0, idx, 16);
	memset(&oj, 0, sizeof(oj));
	if (n == 1) {
		struct gsp_persist_ctl *ctl;

		oj = job_of((unsigned int)idx[0]);
		ctl = (void *)(uintptr_t)oj.ctl;
		seen[0] = oj.ctl;
		__atomic_store_n(&ctl->next_task, 5, __ATOMIC_RELEASE);
		__atomic_store_n(&ctl->done_tasks, 5, __ATOMIC_RELEASE);
		__atomic_store_n(&ctl->live, 0, __ATOMIC_RELEASE);
	}
	usleep(40000);
	n = launches_of("k1__gsp", 0, idx, 16);
	ok = n == 2;
	if (ok) {
		struct gsp_persist_job t = job_of((unsigned int)idx[1]);

		fake_trace_get((unsigned int)idx[1], &c);
		ok = t.flags == sp_linger() && t.ctl == oj.ctl && c.grid[0] == 12 &&
		     c.stream != (uintptr_t)S1 && c.payload == 43;
	}
	tap_ok(ok, "spatial: reserved: a job with no block left and 15 of 20 tasks to hand out is topped up by the watcher with every slot, once (launches %u)",
	       n);
	fake_hold(0);
	cuCtxSynchronize();
	usleep(20000);

	fake_hold(1);
	fake_trace_reset();
	launch_g(k1, S1, 44);
	launch_g(k1, S1, 45);
	cuCtxSynchronize();
	req_pulse(req, e + 11);
	usleep(10000);
	n = launches_of("k1__gsp", 0, idx, 16);
	ok = n == 3;
	if (ok) {
		struct fake_call p1, p2, tu;

		fake_trace_get((unsigned int)idx[0], &p1);
		fake_trace_get((unsigned int)idx[1], &p2);
		fake_trace_get((unsigned int)idx[2], &tu);
		seen[1] = job_of((unsigned int)idx[0]).ctl;
		seen[2] = job_of((unsigned int)idx[1]).ctl;
		ok = p1.payload == 44 && p2.payload == 45 && tu.payload == 44 &&
		     tu.stream != (uintptr_t)S1;
	}
	tap_ok(ok, "spatial: reserved: a shrink while a second job waits behind the first on its stream tops up the first only (launches %u)",
	       n);
	fake_hold(0);
	cuCtxSynchronize();
	usleep(20000);
}

static void t_spatial(void)
{
	struct gsp_board *(*board)(void) =
		(struct gsp_board *(*)(void))fake_gsp_sym("fake_gsp_board");
	int local = getenv("FAKE_CUDA_NO_REGISTER") != NULL;
	int fill = sp_shmem() != 128;
	CUmodule m;
	CUfunction k1, kgs, kf;
	CUkernel kk;
	CUlibrary lib;
	int idx[16], at, ok;
	unsigned int n, i;
	struct gsp_persist_job j;
	struct fake_call c;
	uint64_t *req, e, seen[3] = { 0, 0, 0 }, nctl;

	if (!board) {
		tap_ok(0, "spatial: the fake libgsp is loaded");
		return;
	}
	req = &board()->dev[0].part_req;
	cuCtxSetCurrent(CTX);
	cuModuleLoadData(&m, sp_ptx);
	cuModuleGetFunction(&k1, m, "k1");
	cuModuleGetFunction(&kgs, m, "kgs");
	fake_hold(1);		/* launches stay "running" */
	fake_trace_reset();
	launch_g(k1, S1, 42);
	cuCtxSynchronize();
	n = launches_of("k1__gsp", 0, idx, 16);
	tap_ok(n == 1, "spatial: a BE launch of k1 becomes one launch of k1__gsp (saw %u)",
	       n);
	if (n != 1)
		return;
	at = idx[0];
	fake_trace_get((unsigned int)at, &c);
	j = job_of((unsigned int)at);
	tap_ok(c.grid[0] == 4 * 3 && c.grid[1] == 1 && c.grid[2] == 1 &&
	       c.block[0] == 64 && c.block[1] == 1 &&
	       c.stream == (uintptr_t)S1 && c.payload == 42,
	       "spatial: k1__gsp runs N*K = 4*3 blocks of k1's block, on k1's stream, with k1's argument");
	/* 3 blocks fill 233472 bytes: 77824 each, 1024 of them reserved */
	tap_ok(c.carveout == (fill ? CU_SHAREDMEM_CARVEOUT_MAX_SHARED : 0),
	       fill ? "spatial: a padded launch runs with the most shared memory as its carveout (%d)" :
		      "spatial: GSP_FILL=0: no carveout preference is set (%d)",
	       c.carveout);
	tap_ok(c.shmem == sp_shmem(),
	       fill ? "spatial: its blocks ask for k1's 128 bytes of shared memory and as much more as makes K = 3 of them fill an SM's (%u bytes, want %u)" :
		      "spatial: GSP_FILL=0: its blocks ask for k1's 128 bytes of shared memory (%u bytes, want %u)",
	       c.shmem, sp_shmem());
	tap_ok(c.has_job && j.ntasks == 20 && j.nctaid[0] == 10 &&
	       j.nctaid[1] == 2 && j.nctaid[2] == 1 && j.k_slots == 3 &&
	       (j.flags & GSP_PERSIST_PRIMARY) && j.copy_ns == GSP_PERSIST_COPY_NS &&
	       j.refresh_ns == GSP_PERSIST_REFRESH_NS &&
	       j.batch_ns == GSP_PERSIST_BATCH_NS && j.ctl && j.word == *req,
	       "spatial: its job: the original grid, K, the primary flag, the default refresh, copy and batch, the request at the launch");
	t_spatial_waited(at, &j);
	tap_ok(local ? j.ctrl_ptr != (uintptr_t)req :
		       j.ctrl_ptr == (uintptr_t)req,
	       local ? "spatial: the board cannot be registered: the job reads a local copy of the request" :
		       "spatial: the job reads the board's partition request in place (registered, mapped)");
	tap_ok(c.ctl_zero && !memsets_on(S1, 0, (unsigned int)at, 0),
	       "spatial: its ctl is a new one, zero: no reset on its stream before it");
	{
		const struct gsp_persist_ctl *ctl = (const void *)(uintptr_t)j.ctl;

		tap_ok(ctl->sm[0].sm_rank == 0 && ctl->sm[3].sm_rank == 3 &&
		       ctl->sm[4].sm_rank == GSP_PERSIST_NO_RANK &&
		       ctl->sm[0].slot_mask == 0 && ctl->sm[0].stamp == 0 &&
		       ctl->refresh_at == 0,
		       "spatial: the ctl's SM ranks come from the probe (4 SMs seen); its caches of the word start empty");
	}

	/* The LC raises the request, then drops it: one top-up. */
	e = GSP_BOARD_REQ_EPOCH(*req);
	__atomic_store_n(req, GSP_BOARD_REQ(2, 1, e + 1), __ATOMIC_RELEASE);
	usleep(20000);
	if (local)
		tap_ok(*(uint64_t *)(uintptr_t)j.ctrl_ptr == *req,
		       "spatial: the watcher copies the request into the local word");
	__atomic_store_n(req, GSP_BOARD_REQ(0, 0, e + 2), __ATOMIC_RELEASE);
	usleep(20000);
	n = launches_of("k1__gsp", 0, idx, 16);
	ok = n == 2;
	if (ok) {
		struct gsp_persist_job t = job_of((unsigned int)idx[1]);

		fake_trace_get((unsigned int)idx[1], &c);
		ok = t.flags == sp_linger() && t.ctl == j.ctl && t.ntasks == 20 &&
		     c.stream != (uintptr_t)S1 && c.stream && c.grid[0] == 2 &&
		     c.shmem == sp_shmem() &&
		     c.payload == 42 && t.word == GSP_BOARD_REQ(0, 0, e + 2);
	}
	tap_ok(ok, "spatial: the request raised and dropped while it runs: one top-up of the 2 x 1 slots given up, not primary, the dropped request, same ctl, argument and shared memory, on another stream (launches %u)",
	       n);
	fake_hold(0);		/* it completes */
	usleep(20000);
	req_pulse(req, e + 3);
	n = launches_of("k1__gsp", 0, idx, 16);
	tap_ok(n == 2, "spatial: once it completed, no more top-ups (launches %u)", n);
	n = memsets_on(NULL, 0, fake_trace_len(), j.ctl);
	tap_ok(n == 1 && !memsets_on(S1, 0, fake_trace_len(), 0),
	       "spatial: once its job ended, its ctl was reset once, not on the program's stream (saw %u)",
	       n);

	/*
	 * Under reserved (the request never falls while the LC runs), an
	 * orphaned job: no block holds a slot and tasks are left to hand out
	 * (the fake's launch marks every task run; undo that), with no
	 * change of the request: the watcher tops it up by itself. Then two
	 * jobs on S1, the second queued behind the first: a shrink tops up
	 * the first only, since the second's tasks must not start before the
	 * work ahead of it on its stream is done.
	 */
	if (sp_linger())
		t_spatial_reserved(k1, req, e, seen);

	/* One wave: unchanged while nothing is asked, unless GSP_ONE_WAVE=0. */
	fake_trace_reset();
	launch_grid(k1, 4, S1, 60);
	cuCtxSynchronize();
	n = launches_of("k1", 0, idx, 16);
	if (getenv("GSP_ONE_WAVE"))
		tap_ok(n == 0 && launches_of("k1__gsp", 0, idx, 16) == 1,
		       "spatial: GSP_ONE_WAVE=0: a one-wave grid is transformed too");
	else
		tap_ok(n == 1 && launches_of("k1__gsp", 0, idx, 16) == 0 &&
		       !memsets_on(S1, 0, fake_trace_len(), 0),
		       "spatial: with no request, a one-wave grid (8 blocks, 4 SMs x 3) runs unchanged, no ctl reset");
	usleep(20000);		/* the watcher resets a transformed one's ctl */
	__atomic_store_n(req, GSP_BOARD_REQ(2, 1, e + 5), __ATOMIC_RELEASE);
	fake_trace_reset();
	launch_grid(k1, 4, S1, 61);
	cuCtxSynchronize();
	tap_ok(launches_of("k1", 0, idx, 16) == 0 &&
	       launches_of("k1__gsp", 0, idx, 16) == 1,
	       "spatial: under a request the one-wave grid is transformed (it keeps out of the LC's slots)");
	if (launches_of("k1__gsp", 0, idx, 16) == 1) {
		fake_trace_get((unsigned int)idx[0], &c);
		nctl = job_of((unsigned int)idx[0]).ctl;
		tap_ok(c.ctl_zero && !memsets_on(S1, 0, (unsigned int)idx[0], 0) &&
		       (nctl == j.ctl || nctl == seen[0] || nctl == seen[1] ||
			nctl == seen[2]),
		       "spatial: the next job takes an ended job's ctl, reset off its stream");
	}
	__atomic_store_n(req, GSP_BOARD_REQ(0, 0, e + 6), __ATOMIC_RELEASE);

	/* Untransformable kernels: unchanged, reported once (run.sh). */
	fake_trace_reset();
	launch_g(kgs, S1, 7);
	launch_g(kgs, S2, 8);
	cuLibraryLoadData(&lib, elf_only_wrapper(), NULL, NULL, 0, NULL, NULL, 0);
	cuLibraryGetKernel(&kk, lib, "kelf");
	cuKernelGetFunction(&kf, kk);
	launch_g((CUfunction)kk, S1, 9);
	launch_g(kf, S1, 10);
	{
		int a = 11;
		void *p[] = { &a };

		cuLaunchCooperativeKernel(k1, 10, 2, 1, 64, 1, 1, 128, S1, p);
	}
	cuCtxSynchronize();
	n = launches_of("kgs", 0, idx, 16);
	ok = n == 2;
	for (i = 0; ok && i < n; i++) {
		fake_trace_get((unsigned int)idx[i], &c);
		ok = c.grid[0] == 10 && c.grid[1] == 2 && !c.has_job;
	}
	tap_ok(ok, "spatial: a grid-sync kernel runs unchanged, original grid");
	n = launches_of("kelf", 0, idx, 16);
	tap_ok(n == 2 && launches_of("kelf__gsp", 0, idx, 16) == 0,
	       "spatial: a kernel of an ELF-only image runs unchanged, as a CUkernel and as its function");
	n = launches_of("k1", 0, idx, 16);
	fake_trace_get((unsigned int)idx[0], &c);
	tap_ok(n == 1 && !strcmp(c.name, "cuLaunchCooperativeKernel") &&
	       c.payload == 11,
	       "spatial: a cooperative launch of a transformable kernel runs unchanged");

	/*
	 * cuLaunchKernelEx: the job keeps the launch's attributes, and its
	 * top-up repeats how the kernel runs (its priority), not what ties
	 * it to the program's stream (programmatic serialization).
	 */
	{
		int a = 12;
		void *p[] = { &a };
		CUlaunchAttribute la[2] = {
			{ .id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION },
			{ .id = CU_LAUNCH_ATTRIBUTE_PRIORITY },
		};
		CUlaunchConfig cfg = {
			.gridDimX = 10, .gridDimY = 2, .gridDimZ = 1,
			.blockDimX = 64, .blockDimY = 1, .blockDimZ = 1,
			.sharedMemBytes = 128, .hStream = S1, .attrs = la,
			.numAttrs = 2,
		};
		struct fake_call t;

		la[0].value.programmaticStreamSerializationAllowed = 1;
		la[1].value.priority = -1;
		fake_hold(1);
		fake_trace_reset();
		cuLaunchKernelEx(&cfg, k1, p, NULL);
		cuCtxSynchronize();
		req_pulse(req, e + 7);
		n = launches_of("k1__gsp", 0, idx, 16);
		ok = n == 2;
		if (ok) {
			fake_trace_get((unsigned int)idx[0], &c);
			fake_trace_get((unsigned int)idx[1], &t);
			ok = !strcmp(c.name, "cuLaunchKernelEx") &&
			     c.payload == 12 + 6000 + 200000 &&
			     c.grid[0] == 12 && c.stream == (uintptr_t)S1 &&
			     !strcmp(t.name, "cuLaunchKernelEx") &&
			     t.payload == 12 + 8000 + 100000 &&
			     t.grid[0] == 2 && t.block[0] == 64 &&
			     c.shmem == sp_shmem() && t.shmem == sp_shmem() &&
			     t.stream != (uintptr_t)S1 &&
			     job_of((unsigned int)idx[1]).flags == sp_linger();
		}
		tap_ok(ok, "spatial: a cuLaunchKernelEx job keeps both attributes and gets the same shared memory as a plain launch; its top-up repeats the priority and the shared memory, not the programmatic serialization (launches %u)",
		       n);
		fake_hold(0);
		cuCtxSynchronize();
		usleep(20000);
	}

	/* LC work active: transformed launches go, the others wait. */
	{
		struct gsp_board_lc *s = &board()->lc[5];
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		s->device = 0;
		s->inflight = 1;
		s->stamp_ns = (uint64_t)ts.tv_sec * 1000000000ULL +
			      (uint64_t)ts.tv_nsec;
		__atomic_store_n(&s->owner, 9, __ATOMIC_RELEASE);
		usleep(1000);
		fake_trace_reset();
		launch_g(k1, S1, 50);
		launch_g(kgs, S1, 51);
		usleep(100000);
		n = launches_of("k1__gsp", 0, idx, 16);
		tap_ok(n == 1 && launches_of("kgs", 0, idx, 16) == 0,
		       "spatial: while LC work is active a transformed launch is issued, an untransformable one waits");
		__atomic_store_n(&s->owner, 0, __ATOMIC_RELEASE);
		cuCtxSynchronize();
		tap_ok(launches_of("kgs", 0, idx, 16) == 1,
		       "spatial: the waiting one goes once the LC work is over");
	}

	/*
	 * A partition of every SM: a request leaves the BE no SM, so the
	 * launch is not padded and its carveout preference goes back to the
	 * driver's default.
	 */
	if (sp_shmem() != 128) {
		uint32_t pn = board()->dev[0].part_n;

		__atomic_store_n(&board()->dev[0].part_n, 4, __ATOMIC_RELEASE);
		fake_trace_reset();
		launch_g(k1, S1, 52);
		cuCtxSynchronize();
		n = launches_of("k1__gsp", 0, idx, 16);
		if (n == 1)
			fake_trace_get((unsigned int)idx[0], &c);
		tap_ok(n == 1 && c.shmem == 128 &&
		       c.carveout == CU_SHAREDMEM_CARVEOUT_DEFAULT,
		       "spatial: under a partition of every SM a launch asks for k1's shared memory alone, with no carveout preference (%u bytes, carveout %d)",
		       c.shmem, c.carveout);
		__atomic_store_n(&board()->dev[0].part_n, pn, __ATOMIC_RELEASE);
	}
	cuModuleUnload(m);
	cuLibraryUnload(lib);
}

/* Module-scope variables -------------------------------------------------- */

/* cvar is copied in, gvar reached through a reference; evar (extern) and svar (shared): neither. */
static const char vars_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n\n"
	".const .align 4 .b8 cvar[16] = {1, 2, 3};\n"
	".global .align 4 .u32 gvar;\n"
	".extern .global .align 4 .u32 evar;\n"
	".shared .align 4 .b8 svar[64];\n\n"
	".visible .entry kv(\n\t.param .u32 kv_param_0\n)\n{\n"
	"\t.reg .b32 %r<4>;\n\tld.param.u32 %r1, [kv_param_0];\n"
	"\tld.const.u32 %r2, [cvar];\n\tadd.s32 %r3, %r1, %r2;\n"
	"\tst.global.u32 [gvar], %r3;\n\tret;\n}\n";

/* Its variable is hidden from one module by fake_hide_global(); kn does
 * not name it. */
static const char hvar_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n\n"
	".global .align 8 .b8 hvar[8];\n\n"
	".visible .entry kh(\n\t.param .u32 kh_param_0\n)\n{\n"
	"\t.reg .b32 %r<2>;\n\tld.param.u32 %r1, [kh_param_0];\n"
	"\tst.global.u32 [hvar], %r1;\n\tret;\n}\n"
	".visible .entry kn(\n\t.param .u32 kn_param_0\n)\n{\n"
	"\t.reg .b32 %r<2>;\n\tld.param.u32 %r1, [kn_param_0];\n\tret;\n}\n";

/* kt names the texture reference, ku does not. */
static const char tex_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n\n"
	".global .texref tref;\n\n"
	".visible .entry kt(\n\t.param .u32 kt_param_0\n)\n{\n"
	"\t.reg .b32 %r<6>;\n\tld.param.u32 %r1, [kt_param_0];\n"
	"\ttex.1d.v4.s32.s32 {%r2, %r3, %r4, %r5}, [tref, {%r1}];\n\tret;\n}\n"
	".visible .entry ku(\n\t.param .u32 ku_param_0\n)\n{\n"
	"\t.reg .b32 %r<2>;\n\tld.param.u32 %r1, [ku_param_0];\n\tret;\n}\n";

/* DtoD copies named @name in the trace [from, to) on @s, into @out. */
static unsigned int copies(const char *name, unsigned int from,
			   unsigned int to, CUstream s, struct fake_call *out,
			   unsigned int max)
{
	unsigned int i, k = 0;
	struct fake_call c;

	for (i = from; i < to; i++) {
		fake_trace_get(i, &c);
		if (!strncmp(c.name, "cuMemcpyDtoD", 12) && k < max)
			out[k++] = c;
		if (!strncmp(c.name, "cuMemcpyDtoD", 12) &&
		    (strcmp(c.name, name) || c.stream != (uintptr_t)s))
			return ~0u;	/* on another stream or variant */
	}
	return k;
}

/* Where the interposer's look-ups found @var other than at @orig. */
static CUdeviceptr xf_addr(const char *var, CUdeviceptr orig)
{
	unsigned int i, n = fake_trace_len();
	struct fake_call c;

	for (i = 0; i < n; i++) {
		fake_trace_get(i, &c);
		if (!strcmp(c.name, "cuModuleGetGlobal_v2") &&
		    !strcmp(c.fn, var) && c.addr != orig)
			return c.addr;
	}
	return 0;
}

/*
 * One transformed launch of kv through @ptsz's variant, checked. *@xc:
 * our module's cvar, found at the first launch's look-ups.
 */
static void spvars_launch(CUfunction kv, CUstream s, int ptsz,
			  CUdeviceptr oc, CUdeviceptr og, CUdeviceptr *xc)
{
	const char *cp = ptsz ? "cuMemcpyDtoDAsync_v2_ptsz" :
				"cuMemcpyDtoDAsync_v2";
	struct fake_call fw[4], bw[4];
	unsigned int nf, nb, n;
	int idx[4], a = 3, ok;
	void *p[] = { &a };

	fake_trace_reset();
	if (ptsz)
		cuLaunchKernel_ptsz(kv, 10, 2, 1, 64, 1, 1, 0, s, p, NULL);
	else
		cuLaunchKernel(kv, 10, 2, 1, 64, 1, 1, 0, s, p, NULL);
	cuCtxSynchronize();
	n = launches_of("kv__gsp", 0, idx, 4);
	tap_ok(n == 1, "spvars: %s: kv runs transformed (saw %u)",
	       cp, n);
	if (n != 1)
		return;
	if (!*xc)
		*xc = xf_addr("cvar", oc);
	nf = copies(cp, 0, (unsigned int)idx[0], s, fw, 4);
	nb = copies(cp, (unsigned int)idx[0] + 1, fake_trace_len(), s, bw, 4);
	ok = *xc && nf == 1 && fw[0].addr == *xc && fw[0].src == oc &&
	     fw[0].count == 16;
	tap_ok(ok, "spvars: %s: before it on its stream, only cvar (16 bytes) is copied into the transformed module (copies %u)",
	       cp, nf);
	tap_ok(nb == 0 && xf_addr("gvar", og) == 0,
	       "spvars: %s: nothing is copied back, and our gvar is never looked up (copies %u)",
	       cp, nb);
	ok = *xc && !memcmp((void *)(uintptr_t)*xc, (void *)(uintptr_t)oc, 16) &&
	     ((unsigned char *)(uintptr_t)*xc)[2] == 3;
	tap_ok(ok, "spvars: %s: the transformed module's cvar holds the program's values",
	       cp);
	fake_trace_get((unsigned int)idx[0], &fw[0]);
	tap_ok(fw[0].ctl_zero, "spvars: %s: its ctl was reset when it launched", cp);
}

/* One launch of @k1 from a fresh trace: its trace index, or -1. */
static int one_launch(CUfunction k1, int arg, struct fake_call *c)
{
	int idx[4];

	fake_trace_reset();
	launch_g(k1, S1, arg);
	cuCtxSynchronize();
	if (launches_of("k1__gsp", 0, idx, 4) != 1) {
		tap_ok(0, "ctlreset: launch %d is one transformed launch", arg);
		return -1;
	}
	fake_trace_get((unsigned int)idx[0], c);
	return idx[0];
}

/*
 * Where a ctl is reset (run with GSP_WATCH_US=1000000, so that the watcher
 * usually sleeps through it): two jobs end unseen; the next launch
 * retires both, takes one and resets it on its own stream, and resets the
 * other on the zero stream, which the launch after takes with no reset of
 * its own. If the watcher saw them end first (a loaded machine), it reset
 * both, and neither launch resets on its stream.
 */
static void t_ctlreset(void)
{
	struct fake_call c;
	struct gsp_persist_job a, b;
	CUfunction k1;
	CUmodule m;
	int idx[4], at;
	unsigned int in_stream;
	uint64_t x;

	cuCtxSetCurrent(CTX);
	cuModuleLoadData(&m, sp_ptx);
	cuModuleGetFunction(&k1, m, "k1");
	fake_hold(1);
	fake_trace_reset();
	launch_g(k1, S1, 1);
	launch_g(k1, S1, 2);
	cuCtxSynchronize();
	if (launches_of("k1__gsp", 0, idx, 4) != 2) {
		tap_ok(0, "ctlreset: two transformed launches");
		fake_hold(0);
		return;
	}
	a = job_of((unsigned int)idx[0]);
	b = job_of((unsigned int)idx[1]);
	tap_ok(a.ctl != b.ctl && !memsets_on(NULL, 0, fake_trace_len(), a.ctl) &&
	       !memsets_on(NULL, 0, fake_trace_len(), b.ctl),
	       "ctlreset: a job still running: the next one takes a new ctl; new ctls need no reset");
	usleep(20000);		/* the watcher looks once, sees both run, sleeps */
	fake_hold(0);
	at = one_launch(k1, 3, &c);
	if (at < 0)
		return;
	x = job_of((unsigned int)at).ctl;
	in_stream = memsets_on(S1, 0, (unsigned int)at, 0);
	tap_ok(c.ctl_zero &&
	       memsets_on(NULL, 0, fake_trace_len(), a.ctl) == 1 &&
	       memsets_on(NULL, 0, fake_trace_len(), b.ctl) == 1 &&
	       memsets_on(S1, 0, fake_trace_len(), 0) == in_stream &&
	       (!in_stream || (in_stream == 1 &&
			       memsets_on(S1, 0, (unsigned int)at, x) == 1)),
	       "ctlreset: two ended jobs: each ctl reset once; the one taken %s",
	       in_stream ? "on the launch's stream, right before it, the other off it" :
			   "off the program's stream, like the other (the watcher saw both end first)");
	at = one_launch(k1, 4, &c);
	if (at < 0)
		return;
	tap_ok(c.ctl_zero && !memsets_on(S1, 0, (unsigned int)at, 0),
	       "ctlreset: the next launch takes a ctl reset off its stream, with no reset of its own");
	cuCtxSynchronize();
}

/*
 * Registers (fake-regs, fake_cuda.c): kr's clone takes 112 registers to its
 * original's 96, 4 blocks of 128 threads per SM instead of 5, so it is
 * capped; ks's clone takes 100, still 5 blocks, so it is not.
 */
static const char regs_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n\n"
	".visible .entry kr(\n\t.param .u32 kr_param_0\n)\n{\n"
	"\t// fake-regs 96 112\n"
	"\t.reg .b32 %r<4>;\n\tld.param.u32 %r1, [kr_param_0];\n"
	"\tmov.u32 %r2, %ctaid.x;\n\tadd.s32 %r3, %r1, %r2;\n\tret;\n}\n\n"
	".visible .entry ks(\n\t.param .u32 ks_param_0\n)\n{\n"
	"\t// fake-regs 96 100\n"
	"\t.reg .b32 %r<4>;\n\tld.param.u32 %r1, [ks_param_0];\n"
	"\tmov.u32 %r2, %ctaid.x;\n\tadd.s32 %r3, %r1, %r2;\n\tret;\n}\n";

/* Trace entries named @name from @from on. */
static unsigned int calls_of(const char *name, unsigned int from)
{
	unsigned int i, k = 0, n = fake_trace_len();
	struct fake_call c;

	for (i = from; i < n; i++) {
		fake_trace_get(i, &c);
		k += !strcmp(c.name, name);
	}
	return k;
}

/* @f: 100 blocks of 128 threads, more than a wave of 4 SMs x 5. */
static int regs_launch(CUfunction f, const char *clone, int arg,
		       struct fake_call *c, unsigned int *loads)
{
	int a = arg, idx[4];
	void *p[] = { &a };

	fake_trace_reset();
	cuLaunchKernel(f, 100, 1, 1, 128, 1, 1, 0, S1, p, NULL);
	cuCtxSynchronize();
	*loads = calls_of("cuModuleLoadData", 0);
	if (launches_of(clone, 0, idx, 4) != 1)
		return -1;
	fake_trace_get((unsigned int)idx[0], c);
	return (int)job_of((unsigned int)idx[0]).k_slots;
}

static void t_regcap(void)
{
	unsigned int loads;
	struct fake_call c;
	CUfunction kr, ks, f;
	CUmodule m, mk;
	int k;

	cuCtxSetCurrent(CTX);
	cuModuleLoadData(&m, regs_ptx);
	cuModuleGetFunction(&kr, m, "kr");
	cuModuleGetFunction(&ks, m, "ks");
	k = regs_launch(ks, "ks__gsp", 1, &c, &loads);
	mk = fake_last_module();
	tap_ok(k == 5 && c.grid[0] == 4 * 5 && c.payload == 1 && loads == 3,
	       "regcap: a clone at the original's occupancy is not capped: K %d, three JITs (the SM probe, the waiter, the clone; saw %u)",
	       k, loads);
	tap_ok(!cuModuleGetFunction(&f, mk, "ks__gsp") &&
	       cuModuleGetFunction(&f, mk, "kr__gsp") == CUDA_ERROR_NOT_FOUND &&
	       cuModuleGetFunction(&f, mk, "ks") == CUDA_ERROR_NOT_FOUND &&
	       cuModuleGetFunction(&f, mk, "kr") == CUDA_ERROR_NOT_FOUND &&
	       fake_module_text(mk) && !strstr(fake_module_text(mk), "\n\n\n"),
	       "jit: the module JIT-ed for ks holds ks__gsp alone, not the image's other kernels or originals, nor runs of empty lines");
	k = regs_launch(kr, "kr__gsp", 2, &c, &loads);
	tap_ok(k == 5 && c.grid[0] == 4 * 5 && c.payload == 2 && loads == 2,
	       "regcap: a clone that loses a block per SM to registers is JIT-ed alone, then again with .maxnreg: K 5 as the original, grid 20 (K %d, grid %u, %u JITs)",
	       k, k > 0 ? c.grid[0] : 0, loads);
	k = regs_launch(kr, "kr__gsp", 3, &c, &loads);
	tap_ok(k == 5 && loads == 0,
	       "regcap: the capped clone is kept: K %d, no JIT on the next launch",
	       k);
}

static void t_spvars(void)
{
	CUmodule m, mp, mh, mt;
	CUfunction kv, k1, kh, kn, kt, ku;
	CUdeviceptr oc, og, xc = 0, xg = 0;
	size_t sc = 0, sg = 0;
	int idx[4], i, ok;
	unsigned int n;
	struct fake_call c;

	cuCtxSetCurrent(CTX);
	cuModuleLoadData(&m, vars_ptx);
	cuModuleGetFunction(&kv, m, "kv");
	if (cuModuleGetGlobal(&oc, &sc, m, "cvar") ||
	    cuModuleGetGlobal(&og, &sg, m, "gvar") || sc != 16 || sg != 4) {
		tap_ok(0, "spvars: the fake has the program's cvar and gvar");
		return;
	}
	for (i = 0; i < 16; i++)
		((unsigned char *)(uintptr_t)oc)[i] = (unsigned char)(i + 1);
	spvars_launch(kv, S1, 0, oc, og, &xc);
	spvars_launch(kv, S2, 1, oc, og, &xc);
	/* the JIT-ed module reaches the program's gvar through its reference */
	ok = !cuModuleGetGlobal(&xg, &sg, fake_last_module(), "gvar__gsp_ref") &&
	     sg == 8 && *(CUdeviceptr *)(uintptr_t)xg == og &&
	     cuModuleGetGlobal(&xc, &sc, fake_last_module(), "cvar__gsp_ref");
	tap_ok(ok, "spvars: the transformed module's gvar__gsp_ref holds the program's gvar's address (no reference for cvar)");

	/* An image without variables: no copies. */
	cuModuleLoadData(&mp, sp_ptx);
	cuModuleGetFunction(&k1, mp, "k1");
	fake_trace_reset();
	launch_g(k1, S1, 4);
	cuCtxSynchronize();
	tap_ok(launches_of("k1__gsp", 0, idx, 4) == 1 &&
	       find("cuMemcpyDtoDAsync_v2", 0) < 0 &&
	       find("cuModuleGetGlobal_v2", 0) < 0,
	       "spvars: an image without module variables: transformed, no look-up, no copy");

	/* hvar is not in the program's module: unchanged (run.sh: once). */
	fake_hide_global("hvar", 0);
	cuModuleLoadData(&mh, hvar_ptx);
	cuModuleGetFunction(&kh, mh, "kh");
	fake_trace_reset();
	launch_g(kh, S1, 5);
	launch_g(kh, S1, 6);
	cuCtxSynchronize();
	n = launches_of("kh", 0, idx, 4);
	ok = n == 2 && launches_of("kh__gsp", 0, idx, 4) == 0 &&
	     find("cuMemcpyDtoDAsync_v2", 0) < 0;
	for (i = 0; ok && i < 2; i++) {
		fake_trace_get((unsigned int)idx[i], &c);
		ok = c.grid[0] == 10 && c.grid[1] == 2 && !c.has_job;
	}
	tap_ok(ok, "spvars: a variable missing in the program's module: its kernel runs unchanged, twice");
	cuModuleGetFunction(&kn, mh, "kn");
	fake_trace_reset();
	launch_g(kn, S1, 8);
	cuCtxSynchronize();
	tap_ok(launches_of("kn__gsp", 0, idx, 4) == 1,
	       "spvars: a kernel of that image that does not name the variable runs transformed");

	/* A texture reference: the kernel that names it runs unchanged. */
	cuModuleLoadData(&mt, tex_ptx);
	cuModuleGetFunction(&kt, mt, "kt");
	cuModuleGetFunction(&ku, mt, "ku");
	fake_trace_reset();
	launch_g(kt, S1, 7);
	launch_g(ku, S1, 8);
	cuCtxSynchronize();
	tap_ok(launches_of("kt", 0, idx, 4) == 1 &&
	       launches_of("kt__gsp", 0, idx, 4) == 0 &&
	       launches_of("ku__gsp", 0, idx, 4) == 1,
	       "spvars: a kernel that names a texture reference runs unchanged, one of its image that does not is transformed");
	cuModuleUnload(m);
	cuModuleUnload(mp);
	cuModuleUnload(mh);
	cuModuleUnload(mt);
}

/* Nothing may be transformed here: k1 runs as k1. */
/*
 * A rejoin onto a restarted gspaced (the fake's reopen says the board
 * moved to a new page): transformed launches after it read a local copy
 * of the request, no longer the board in place.
 */
static void t_spmoved(void)
{
	struct gsp_board *(*board)(void) =
		(struct gsp_board *(*)(void))fake_gsp_sym("fake_gsp_board");
	void (*expire)(void) = (void (*)(void))fake_gsp_sym("fake_gsp_expire");
	struct gsp_persist_job j1, j2;
	CUfunction k1;
	uint64_t *req;
	CUmodule m;
	int idx[16];
	unsigned int n;

	if (!board || !expire) {
		tap_ok(0, "spmoved: the fake libgsp is loaded");
		return;
	}
	req = &board()->dev[0].part_req;
	cuCtxSetCurrent(CTX);
	cuModuleLoadData(&m, sp_ptx);
	cuModuleGetFunction(&k1, m, "k1");
	fake_trace_reset();
	expire();
	launch_g(k1, S1, 1);
	cuCtxSynchronize();
	usleep(300000);		/* its lease ends by the "watchdog": rejoin */
	launch_g(k1, S1, 2);
	cuCtxSynchronize();
	n = launches_of("k1__gsp", 0, idx, 16);
	tap_ok(n == 2 && gsp_count(FAKE_REOPEN, 0) == 1,
	       "spmoved: two transformed launches, a rejoin between them (launches %u)",
	       n);
	if (n != 2)
		return;
	j1 = job_of((unsigned int)idx[0]);
	j2 = job_of((unsigned int)idx[1]);
	tap_ok(j1.ctrl_ptr == (uintptr_t)req,
	       "spmoved: before the rejoin the job reads the board in place");
	tap_ok(j2.ctrl_ptr && j2.ctrl_ptr != (uintptr_t)req &&
	       *(uint64_t *)(uintptr_t)j2.ctrl_ptr == *req,
	       "spmoved: after it, a local copy of the request, not the old page's registration");
}

static void t_nospatial(void)
{
	CUmodule m;
	CUfunction k1;
	int idx[4];
	struct fake_call c;
	unsigned int n;

	cuCtxSetCurrent(CTX);
	cuModuleLoadData(&m, sp_ptx);
	cuModuleGetFunction(&k1, m, "k1");
	fake_trace_reset();
	launch_g(k1, S1, 5);
	cuCtxSynchronize();
	usleep(20000);
	n = launches_of("k1", 0, idx, 4);
	fake_trace_get((unsigned int)idx[0], &c);
	tap_ok(n == 1 && c.grid[0] == 10 && c.grid[1] == 2 && !c.has_job &&
	       launches_of("k1__gsp", 0, idx, 4) == 0 && find("cuMemAlloc_v2", 0) < 0,
	       "nospatial: k1 runs unchanged, nothing allocated for it");
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Green contexts ------------------------------------------------------------- */

/*
 * LC work on device 0: active with the request (@n, 1), or over. The slot
 * is stamped now, so it counts as active for the fake board's lc_max_ns.
 */
static void lc_set(struct gsp_board *b, unsigned int n, int active)
{
	struct gsp_board_lc *s = &b->lc[5];
	uint64_t *req = &b->dev[0].part_req;
	uint64_t e = GSP_BOARD_REQ_EPOCH(*req);

	s->device = 0;
	s->inflight = (uint64_t)active;
	s->stamp_ns = mono_ns();
	__atomic_store_n(req, active ? GSP_BOARD_REQ(n, 1, e + 1) :
				       GSP_BOARD_REQ(0, 0, e + 1),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&s->owner, active ? 9 : 0, __ATOMIC_RELEASE);
}

/* Trace entries named @name in [from, to), optionally on @s only. */
static unsigned int count_of(const char *name, unsigned int from,
			     unsigned int to, uintptr_t s)
{
	unsigned int i, k = 0;
	struct fake_call c;

	for (i = from; i < to; i++) {
		fake_trace_get(i, &c);
		k += !strcmp(c.name, name) && (!s || c.stream == s);
	}
	return k;
}

/* The entry named @name on @s with @payload nearest @at: before (@dir -1) or after (1). */
static int near(const char *name, uintptr_t s, uint64_t payload, int any,
		int at, int dir)
{
	int i, n = (int)fake_trace_len();
	struct fake_call c;

	for (i = at + dir; i >= 0 && i < n; i += dir) {
		fake_trace_get((unsigned int)i, &c);
		if (!strcmp(c.name, name) && c.stream == s &&
		    (any || c.payload == payload))
			return i;
	}
	return -1;
}

/*
 * The launch at trace index @at ran on a green stream, tied to @s both
 * ways: @s records an event the green stream waits for before it, the
 * green stream records one @s waits for after it (before @before, if not
 * -1). The events' ids into @ev.
 */
static int tied(int at, uintptr_t s, int before, uint64_t ev[2])
{
	struct fake_call c, w;
	int w1, r1, r2, w2;

	fake_trace_get((unsigned int)at, &c);
	if (!c.sms || c.stream == s)
		return 0;
	w1 = near("cuStreamWaitEvent", c.stream, 0, 1, at, -1);
	if (w1 < 0)
		return 0;
	fake_trace_get((unsigned int)w1, &w);
	r1 = near("cuEventRecord", s, w.payload, 0, w1, -1);
	r2 = near("cuEventRecord", c.stream, 0, 1, at, 1);
	if (r1 < 0 || r2 < 0)
		return 0;
	ev[0] = w.payload;
	fake_trace_get((unsigned int)r2, &w);
	ev[1] = w.payload;
	w2 = near("cuStreamWaitEvent", s, w.payload, 0, r2, 1);
	return w2 > r2 && (before < 0 || w2 < before);
}

/*
 * Just after one launch of kgs on S1 with LC work active: nothing is
 * issued for 100 ms; once the LC work is over, it runs on S1 unconfined.
 */
static int gated_once(struct gsp_board *b)
{
	struct fake_call c;
	unsigned int n;
	int idx[16], ok;

	usleep(100000);
	ok = launches_of("kgs", 0, idx, 16) == 0;
	lc_set(b, 0, 0);
	cuCtxSynchronize();
	n = launches_of("kgs", 0, idx, 16);
	if (!n)
		return 0;
	fake_trace_get((unsigned int)idx[0], &c);
	return ok && n == 1 && c.stream == (uintptr_t)S1 && !c.sms;
}

static void t_green(void)
{
	struct gsp_board *(*board)(void) =
		(struct gsp_board *(*)(void))fake_gsp_sym("fake_gsp_board");
	struct gsp_board *b;
	CUmodule m;
	CUfunction k1, kgs;
	int idx[16], ok, a = 13;
	unsigned int n, i, to;
	uint64_t ev[2] = { 0, 0 }, ev2[2];
	uintptr_t gs = 0;
	struct fake_call c;
	void *p[] = { &a };

	if (!board) {
		tap_ok(0, "green: the fake libgsp is loaded");
		return;
	}
	b = board();
	cuCtxSetCurrent(CTX);
	cuModuleLoadData(&m, sp_ptx);
	cuModuleGetFunction(&k1, m, "k1");
	cuModuleGetFunction(&kgs, m, "kgs");

	/* No LC work: the whole GPU, as before. */
	fake_trace_reset();
	launch_g(kgs, S1, 1);
	cuCtxSynchronize();
	n = launches_of("kgs", 0, idx, 16);
	fake_trace_get((unsigned int)idx[0], &c);
	tap_ok(n == 1 && c.stream == (uintptr_t)S1 && !c.sms &&
	       find("cuGreenCtxCreate", 0) < 0 &&
	       find("cuStreamWaitEvent", 0) < 0,
	       "green: no LC work: an untransformable kernel runs on its own stream, no green context made");

	/* The LC asks for 60 of 132 SMs: 72 are left, a multiple of 8. */
	lc_set(b, 60, 1);
	usleep(1000);
	fake_trace_reset();
	launch_g(k1, S1, 10);
	launch_g(kgs, S1, 11);
	launch_g(k1, S1, 12);
	usleep(100000);		/* no sync: it would wait for the LC */
	n = launches_of("kgs", 0, idx, 16);
	ok = n == 1;
	if (ok) {
		int l = idx[0], k[2];

		fake_trace_get((unsigned int)l, &c);
		gs = c.stream;
		ok = launches_of("k1__gsp", 0, k, 2) == 2 && c.sms == 72 &&
		     c.payload == 11 && c.grid[0] == 10 && c.grid[1] == 2 &&
		     c.block[0] == 64 && c.shmem == 128 && !c.has_job &&
		     tied(l, (uintptr_t)S1, k[1], ev) &&
		     near("cuEventRecord", (uintptr_t)S1, ev[0], 0, l, -1) > k[0];
	}
	tap_ok(ok, "green: LC asks for 60 of 132 SMs: the untransformable kernel runs at once on a green stream of 72 SMs, after the app's earlier launch on its stream and before its later one (events both ways)");
	to = fake_trace_len();
	i = (unsigned int)find("cuGreenCtxStreamCreate", 0);
	fake_trace_get(i, &c);
	ok = count_of("cuGreenCtxCreate", 0, to, 0) == 1 &&
	     count_of("cuGreenCtxStreamCreate", 0, to, 0) == 1 &&
	     c.stream == gs && c.payload == CU_STREAM_NON_BLOCKING &&
	     c.count == 72;
	fake_trace_get((unsigned int)find("cuDevSmResourceSplitByCount", 0), &c);
	tap_ok(ok && c.payload == 72 && c.count == 72,
	       "green: one green context of 72 SMs (split by count 72), one non-blocking stream in it");

	/* Many more launches, two streams and a kernel we never saw loaded. */
	fake_trace_reset();
	for (i = 0; i < 4; i++)
		launch_g(kgs, i % 2 ? S2 : S1, 20 + (int)i);
	cuLaunchKernel(fn1, 3, 1, 1, 32, 1, 1, 0, S2, p, NULL);
	usleep(100000);
	n = launches_of("kgs", 0, idx, 16);
	ok = n == 4 && count_of("cuGreenCtxCreate", 0, fake_trace_len(), 0) == 0 &&
	     count_of("cuGreenCtxStreamCreate", 0, fake_trace_len(), 0) == 0;
	for (i = 0; ok && i < n; i++) {
		fake_trace_get((unsigned int)idx[i], &c);
		ok = c.stream == gs && c.payload == 20 + i &&
		     tied(idx[i], (uintptr_t)(i % 2 ? S2 : S1), -1, ev2) &&
		     ev2[0] == ev[0] && ev2[1] == ev[1];
	}
	tap_ok(ok, "green: four more launches from two streams reuse the green context, its stream and its two events");
	n = launches_of("", 0, idx, 16);
	ok = n == 1;
	if (ok) {
		fake_trace_get((unsigned int)idx[0], &c);
		ok = c.stream == gs && c.payload == 13 &&
		     tied(idx[0], (uintptr_t)S2, -1, ev2);
	}
	tap_ok(ok, "green: a kernel whose module load was not seen runs on the green stream too");

	/*
	 * A memset and a copy on the device during LC work: green too, in
	 * S1's order, each tied in after what S1 had and tied out.
	 */
	fake_trace_reset();
	cuMemsetD32Async(0x1000, 7, 64, S1);
	cuMemcpyDtoDAsync(0x2000, 0x1000, 256, S1);
	usleep(100000);
	idx[0] = find("cuMemsetD32Async", 0);
	idx[1] = find("cuMemcpyDtoDAsync_v2", 0);
	ok = idx[0] >= 0 && idx[1] > idx[0];
	for (i = 0; ok && i < 2; i++) {
		fake_trace_get((unsigned int)idx[i], &c);
		ok = c.stream == gs &&
		     near("cuStreamWaitEvent", gs, 0, 1, idx[i], -1) >= 0 &&
		     near("cuStreamWaitEvent", (uintptr_t)S1, ev[1], 0, idx[i],
			  1) > idx[i];
	}
	tap_ok(ok, "green: a memset and a device copy during LC work run on the green stream, in their stream's order");

	/* 132 - 62 = 70 SMs left: rounded down to 64. */
	lc_set(b, 62, 1);
	fake_trace_reset();
	launch_g(kgs, S1, 30);
	usleep(100000);
	n = launches_of("kgs", 0, idx, 16);
	ok = n == 1;
	if (ok) {
		fake_trace_get((unsigned int)idx[0], &c);
		ok = c.sms == 64 && c.stream != gs &&
		     tied(idx[0], (uintptr_t)S1, -1, ev2);
		fake_trace_get((unsigned int)find("cuGreenCtxCreate", 0), &c);
		ok = ok && c.payload == 64;
	}
	tap_ok(ok, "green: LC asks for 62: a second green context, of 64 SMs (70 rounded down to 8s)");

	/* 4 SMs left, fewer than 8: the time-plane gate. */
	lc_set(b, 128, 1);
	fake_trace_reset();
	launch_g(kgs, S1, 40);
	launch_g(kgs, S1, 41);
	usleep(100000);
	tap_ok(launches_of("kgs", 0, idx, 16) == 0,
	       "green: LC asks for 128 of 132 SMs: the kernel waits (4 SMs are below a green context's 8)");
	lc_set(b, 0, 0);
	cuCtxSynchronize();
	n = launches_of("kgs", 0, idx, 16);
	ok = n == 2;
	for (i = 0; ok && i < n; i++) {
		fake_trace_get((unsigned int)idx[i], &c);
		ok = c.stream == (uintptr_t)S1 && !c.sms;
	}
	tap_ok(ok, "green: once the LC work is over both run on their own stream");

	/* A cooperative launch is never confined. */
	lc_set(b, 60, 1);
	fake_trace_reset();
	cuLaunchCooperativeKernel(kgs, 10, 2, 1, 64, 1, 1, 0, S1, p);
	tap_ok(gated_once(b),
	       "green: a cooperative launch waits for the LC work, then runs on its own stream");

	/*
	 * Clusters: of 2 blocks, confined (a green context keeps groups of
	 * 8 SMs on one GPC); of 16, more than a group, they wait.
	 */
	{
		CUlaunchAttribute la = { .id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION };
		CUlaunchConfig cfg = {
			.gridDimX = 16, .gridDimY = 1, .gridDimZ = 1,
			.blockDimX = 64, .blockDimY = 1, .blockDimZ = 1,
			.hStream = S1, .attrs = &la, .numAttrs = 1,
		};

		la.value.clusterDim.x = 2;
		la.value.clusterDim.y = la.value.clusterDim.z = 1;
		lc_set(b, 60, 1);
		fake_trace_reset();
		cuLaunchKernelEx(&cfg, kgs, p, NULL);
		usleep(100000);
		n = launches_of("kgs", 0, idx, 16);
		ok = n == 1;
		if (ok) {
			fake_trace_get((unsigned int)idx[0], &c);
			ok = c.stream == gs && c.sms == 72 &&
			     !strcmp(c.name, "cuLaunchKernelEx") &&
			     tied(idx[0], (uintptr_t)S1, -1, ev2);
		}
		tap_ok(ok, "green: a launch with clusters of 2 blocks runs on the green stream");
		la.value.clusterDim.x = la.value.clusterDim.y = 4;
		fake_trace_reset();
		cuLaunchKernelEx(&cfg, kgs, p, NULL);
		tap_ok(gated_once(b),
		       "green: a launch with clusters of 16 blocks waits for the LC work, then runs on its own stream");
	}

	/* Not the primary context: the gate. */
	cuCtxSetCurrent((CUcontext)0xc1);
	lc_set(b, 60, 1);
	fake_trace_reset();
	launch_g(kgs, S1, 50);
	tap_ok(gated_once(b),
	       "green: in a context other than the primary one the kernel waits for the LC work");
	cuCtxSetCurrent(CTX);
	cuModuleUnload(m);
}

/*
 * A driver without green contexts, GSP_GREEN=0, or creation failing: an
 * untransformable kernel keeps the time-plane gate.
 */
static void t_greengate(void)
{
	struct gsp_board *(*board)(void) =
		(struct gsp_board *(*)(void))fake_gsp_sym("fake_gsp_board");
	const char *why = getenv("GSP_GREEN") ? "GSP_GREEN=0" :
			  getenv("FAKE_CUDA_VERSION") ? "a 12.3 driver" :
			  "green context creation failing";
	CUmodule m;
	CUfunction kgs;
	int idx[16], ok;
	unsigned int n, i;
	struct fake_call c;

	if (!board) {
		tap_ok(0, "greengate: the fake libgsp is loaded");
		return;
	}
	cuCtxSetCurrent(CTX);
	cuModuleLoadData(&m, sp_ptx);
	cuModuleGetFunction(&kgs, m, "kgs");
	lc_set(board(), 60, 1);
	usleep(1000);
	fake_trace_reset();
	launch_g(kgs, S1, 1);
	launch_g(kgs, S2, 2);
	usleep(100000);
	tap_ok(launches_of("kgs", 0, idx, 16) == 0,
	       "greengate: %s: while the LC asks for 60 SMs an untransformable kernel waits",
	       why);
	lc_set(board(), 0, 0);
	cuCtxSynchronize();
	n = launches_of("kgs", 0, idx, 16);
	ok = n == 2;
	for (i = 0; ok && i < n; i++) {
		fake_trace_get((unsigned int)idx[i], &c);
		ok = c.stream == (uintptr_t)(i ? S2 : S1) && !c.sms;
	}
	tap_ok(ok, "greengate: %s: after the LC work both run on their own streams",
	       why);
	n = count_of("cuGreenCtxCreate", 0, fake_trace_len(), 0);
	tap_ok(n <= 1 && count_of("cuGreenCtxStreamCreate", 0,
				  fake_trace_len(), 0) == 0,
	       "greengate: %s: no green stream, at most one try at a green context (saw %u)",
	       why, n);
	cuModuleUnload(m);
}

static CUfunction fn0;		/* no parameters, like an empty kernel */

static void launch0(CUstream s)
{
	cuLaunchKernel(fn0, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL);
}

/* Launches 100 us ops back to back for @secs; returns ops per second. */
static double tput(double secs, uint64_t *drain_ns)
{
	uint64_t k = 0, t0 = mono_ns(), stop = t0 + (uint64_t)(secs * 1e9), t1;

	fake_set_op_ns(100000);
	do {
		launch(S1, (int)k);
		k++;
	} while (mono_ns() < stop);
	t1 = mono_ns();
	cuStreamSynchronize(S1);
	*drain_ns = mono_ns() - t1;
	return (double)k / ((double)(mono_ns() - t0) * 1e-9);
}

static void t_flood(void)
{
	uint64_t t0, ns, drain;
	double rate;
	unsigned int i;

	cuCtxSetCurrent(CTX);
	fake_set_op_ns(0);
	t0 = mono_ns();
	for (i = 0; i < 20000; i++)
		launch0(S1);
	cuStreamSynchronize(S1);
	ns = mono_ns() - t0;
	tap_diag("flood: 20000 empty launches + sync: %.3f s", (double)ns * 1e-9);
	tap_ok(ns < 10000000000ULL,
	       "flood: 20000 back-to-back zero-length BE launches and a sync finish in %.3f s (bound 10 s)",
	       (double)ns * 1e-9);
	rate = tput(0.5, &drain);
	tap_diag("flood: back-to-back 100 us ops: %.0f/s (the fake GPU's limit is 10000/s), sync after the loop %.3f s",
		 rate, (double)drain * 1e-9);
	tap_ok(drain < 3000000000ULL,
	       "flood: 0.5 s of back-to-back 100 us launches leave a bounded queue: the sync after them takes %.3f s (bound 3 s)",
	       (double)drain * 1e-9);
	tap_ok(rate > 2500,
	       "flood: back-to-back 100 us launches run at %.0f/s (fake GPU limit 10000/s, bound 2500/s)",
	       rate);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void t_bench(void)
{
	enum { N = 20000, WARM = 2000 };
	static uint64_t v[N];
	uint64_t drain;
	double rate;
	unsigned int i;

	cuCtxSetCurrent(CTX);
	fake_set_op_ns(0);
	for (i = 0; i < WARM + N; i++) {
		uint64_t t0 = mono_ns();

		launch0(S1);
		if (i >= WARM)
			v[i - WARM] = mono_ns() - t0;
		if (i % 64 == 63)
			cuStreamSynchronize(S1);
	}
	cuStreamSynchronize(S1);
	qsort(v, N, sizeof(*v), cmp_u64);
	rate = tput(1.0, &drain);
	printf("RESULT mode=%s empty_p50_ns=%llu empty_p99_ns=%llu tput_100us_per_s=%.0f final_sync_ms=%.1f\n",
	       getenv("BENCH_MODE") ? getenv("BENCH_MODE") : "?",
	       (unsigned long long)v[N / 2], (unsigned long long)v[N * 99 / 100],
	       rate, (double)drain * 1e-6);
}

int main(int argc, char **argv)
{
	static const size_t one_int[] = { 4 };

	if (argc != 2) {
		fprintf(stderr, "usage: test_preload table|order|sync|gate|lease|lc|die|hung|watchdog|lcrejoin|spmoved|noarb|e2e|long|flood|spatial|spvars|nospatial|green|greengate|bench\n");
		return 2;
	}
	cuInit(0);
	fn1 = fake_function(1, one_int);
	fn0 = fake_function(0, NULL);
	/* The first intercepted call opens the tenant (and loads libgsp). */
	cuCtxSetCurrent(CTX);
	if (!strcmp(argv[1], "table"))
		t_table();
	else if (!strcmp(argv[1], "order"))
		t_order();
	else if (!strcmp(argv[1], "sync"))
		t_sync();
	else if (!strcmp(argv[1], "gate"))
		t_gate();
	else if (!strcmp(argv[1], "lease"))
		t_lease();
	else if (!strcmp(argv[1], "lc"))
		t_lc();
	else if (!strcmp(argv[1], "hung") || !strcmp(argv[1], "watchdog"))
		t_rejoin(argv[1]);
	else if (!strcmp(argv[1], "lcrejoin"))
		t_lc_rejoin();
	else if (!strcmp(argv[1], "spmoved"))
		t_spmoved();
	else if (!strcmp(argv[1], "long"))
		t_long();
	else if (!strcmp(argv[1], "die"))
		t_die();
	else if (!strcmp(argv[1], "noarb"))
		t_noarb();
	else if (!strcmp(argv[1], "e2e"))
		t_e2e();
	else if (!strcmp(argv[1], "flood"))
		t_flood();
	else if (!strcmp(argv[1], "spatial"))
		t_spatial();
	else if (!strcmp(argv[1], "nospatial"))
		t_nospatial();
	else if (!strcmp(argv[1], "ctlreset"))
		t_ctlreset();
	else if (!strcmp(argv[1], "regcap"))
		t_regcap();
	else if (!strcmp(argv[1], "spvars"))
		t_spvars();
	else if (!strcmp(argv[1], "green"))
		t_green();
	else if (!strcmp(argv[1], "greengate"))
		t_greengate();
	else if (!strcmp(argv[1], "bench")) {
		t_bench();
		return 0;
	}
	else {
		fprintf(stderr, "test_preload: unknown scenario %s\n", argv[1]);
		return 2;
	}
	return tap_done();
}
