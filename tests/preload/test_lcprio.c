// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of LC work at the greatest stream priority (libgsp/preload/
 * lcprio.c) against the fake libcuda, whose trace links every
 * stream-ordered call to the previous one on its stream and every wait to
 * the event record it waits for (fake_cuda.c). run.sh puts the interposer
 * in LD_PRELOAD and picks the scenario:
 *
 *   prio    stream creation; launches of every kind on the legacy and the
 *           per-thread default streams, their order with the copies
 *           around them, the events reused, eight threads at once, and
 *           launches during stream capture, cuCtxDestroy and thread exit
 *           destroying the priority streams. LCPRIO_WANT=1: an LC tenant
 *           with GSP_LC_PRIORITY=auto, everything moves to priority -5;
 *           LCPRIO_WANT=0 (BE, GSP_LC_PRIORITY=0, a bad value): nothing
 *           moves. The order checks hold in both. LCPRIO_CASE names the
 *           case in the TAP lines.
 *   charge  40 launches of 1 ms on the legacy stream by an LC tenant are
 *           charged 40 ms, and the board's inflight count returns to 0.
 *   lcgraph an LC tenant launches on S1, then at once captures a launch
 *           on S1 while the reporter (50 us polls) looks at the first:
 *           its marker must not land in the capture (the fake, like the
 *           driver, invalidates a capture whose event is queried), so
 *           EndCapture gives a graph. gsp-check's graph, run as LC on an
 *           H200, failed so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#undef cuGetProcAddress
#include <gsp_board.h>

#include "fake_cuda.h"
#include "fake_gsp.h"
#include "tap.h"

#define CTX ((CUcontext)0xc0)
#define S1 ((CUstream)0x51)
#define DST ((CUdeviceptr)0x7000)
#define GREATEST (-5)
#define THREADS 8
#define PER_THREAD 50

CUresult cuLaunchKernel_ptsz(CUfunction, unsigned int, unsigned int,
			     unsigned int, unsigned int, unsigned int,
			     unsigned int, unsigned int, CUstream, void **,
			     void **);
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr, const void *, size_t,
				   CUstream);

static CUfunction fn1;		/* one int parameter */
static int want;		/* LCPRIO_WANT */
static const char *what;	/* LCPRIO_CASE */
static char pinned[1 << 16];	/* registered host memory */

static void launch(CUstream s, int arg)
{
	int a = arg;
	void *p[] = { &a };

	cuLaunchKernel(fn1, 1, 1, 1, 1, 1, 1, 0, s, p, NULL);
}

static void launch_ptsz(CUstream s, int arg)
{
	int a = arg;
	void *p[] = { &a };

	cuLaunchKernel_ptsz(fn1, 1, 1, 1, 1, 1, 1, 0, s, p, NULL);
}

/* A copy of @n bytes on @s: its trace entry's payload is @n. */
static void copy(CUstream s, size_t n)
{
	cuMemcpyHtoDAsync(DST, pinned, n, s);
}

static struct fake_call get(int i)
{
	struct fake_call c;

	fake_trace_get((unsigned int)i, &c);
	return c;
}

/* The first call whose name starts with @name and has @payload, or -1. */
static int find(const char *name, uint64_t payload)
{
	int i, n = (int)fake_trace_len();

	for (i = 0; i < n; i++) {
		struct fake_call c = get(i);

		if (!strncmp(c.name, name, strlen(name)) && c.payload == payload)
			return i;
	}
	return -1;
}

static unsigned int count(const char *name)
{
	unsigned int i, k = 0;

	for (i = 0; i < fake_trace_len(); i++)
		k += !strcmp(get((int)i).name, name);
	return k;
}

/*
 * Does the call at @later run after the one at @earlier: a path back
 * through stream order and waits (the fake's event semantics)?
 */
static int after(int later, int earlier)
{
	static int stack[2 * (1 << 16) + 1];	/* a push per edge */
	static unsigned char seen[1 << 16];
	int n = (int)fake_trace_len(), sp = 0;

	if (later < 0 || earlier < 0 || later >= n || n > (int)sizeof(seen))
		return 0;
	memset(seen, 0, (size_t)n);
	stack[sp++] = later;
	while (sp) {
		int i = stack[--sp];
		struct fake_call c;

		if (i == earlier)
			return 1;
		if (i < 0 || seen[i])
			continue;
		seen[i] = 1;
		c = get(i);
		stack[sp++] = c.prev;
		if (c.waits >= 0)
			stack[sp++] = c.waits;
	}
	return 0;
}

/* cuStreamDestroy calls on @s in the trace. */
static unsigned int streams_destroyed(uintptr_t s)
{
	unsigned int i, k = 0;

	for (i = 0; i < fake_trace_len(); i++) {
		struct fake_call c = get((int)i);

		k += !strcmp(c.name, "cuStreamDestroy_v2") && c.stream == s;
	}
	return k;
}

static int on_default(uintptr_t s)
{
	return s == 0 || s == (uintptr_t)CU_STREAM_LEGACY ||
	       s == (uintptr_t)CU_STREAM_PER_THREAD;
}

/*
 * The launch at @k ran on a non-blocking stream of the greatest priority,
 * tied both ways to the default stream that the records and waits name
 * @def: before it on its stream, a wait for an event recorded on @def;
 * after it on its stream, a record that @def waits for (with threads at
 * once, another thread's pair may sit in between). *@ps: its stream.
 */
static int moved(int k, uintptr_t def, uintptr_t *ps)
{
	struct fake_call c = get(k), w;
	int i, j, n = (int)fake_trace_len(), in = 0;

	*ps = c.stream;
	if (on_default(c.stream) || c.prio != GREATEST ||
	    !(c.sflags & CU_STREAM_NON_BLOCKING))
		return 0;
	for (i = c.prev; i >= 0 && !in; i = w.prev) {
		w = get(i);
		in = !strcmp(w.name, "cuStreamWaitEvent") && w.waits >= 0 &&
		     get(w.waits).stream == def &&
		     !strcmp(get(w.waits).name, "cuEventRecord");
	}
	for (i = k + 1; in && i < n; i++) {
		w = get(i);
		if (w.stream != c.stream || strcmp(w.name, "cuEventRecord"))
			continue;
		for (j = i + 1; j < n; j++) {
			struct fake_call b = get(j);

			if (b.waits == i && b.stream == def &&
			    !strcmp(b.name, "cuStreamWaitEvent"))
				return 1;
		}
	}
	return 0;
}

/* Stream creation ------------------------------------------------------------ */

static void t_create(void)
{
	typedef CUresult (*create_fn)(CUstream *, unsigned int);
	typedef CUresult (*create_prio_fn)(CUstream *, unsigned int, int);
	CUdriverProcAddressQueryResult st;
	int g = want ? GREATEST : 0, p;
	create_prio_fn cp = NULL;
	create_fn c = NULL;
	unsigned int fl;
	CUstream s;
	Dl_info di;

	cuStreamCreate(&s, 0);
	p = fake_stream_prio(s, &fl);
	tap_ok(p == g && fl == 0, "%s: cuStreamCreate gives priority %d (%d)",
	       what, g, p);
	cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
	p = fake_stream_prio(s, &fl);
	tap_ok(p == g && fl == CU_STREAM_NON_BLOCKING,
	       "%s: cuStreamCreate(NON_BLOCKING) gives priority %d and keeps the flag",
	       what, g);
	cuStreamCreateWithPriority(&s, 0, 0);
	p = fake_stream_prio(s, &fl);
	tap_ok(p == g, "%s: cuStreamCreateWithPriority(0) gives priority %d (%d)",
	       what, g, p);
	cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -2);
	p = fake_stream_prio(s, &fl);
	tap_ok(p == (want ? GREATEST : -2) && fl == CU_STREAM_NON_BLOCKING,
	       "%s: cuStreamCreateWithPriority(-2) gives priority %d (%d)",
	       what, want ? GREATEST : -2, p);
	cuStreamCreateWithPriority(&s, 0, GREATEST);
	tap_ok(fake_stream_prio(s, NULL) == GREATEST,
	       "%s: cuStreamCreateWithPriority(greatest) stays at the greatest",
	       what);
	/* cudart finds them through cuGetProcAddress: our wrappers. */
	cuGetProcAddress_v2("cuStreamCreate", (void **)&c, 13000,
			    CU_GET_PROC_ADDRESS_DEFAULT, &st);
	cuGetProcAddress_v2("cuStreamCreateWithPriority", (void **)&cp, 12000,
			    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st);
	tap_ok(c && cp && dladdr((void *)c, &di) &&
	       strstr(di.dli_fname, "libgsp_preload") &&
	       dladdr((void *)cp, &di) && strstr(di.dli_fname, "libgsp_preload"),
	       "%s: cuGetProcAddress gives our cuStreamCreate and cuStreamCreateWithPriority",
	       what);
	s = NULL;
	if (c)
		c(&s, 0);
	p = fake_stream_prio(s, NULL);
	tap_ok(p == g, "%s: cuStreamCreate through cuGetProcAddress gives priority %d (%d)",
	       what, g, p);
	s = NULL;
	if (cp)
		cp(&s, 0, 0);
	p = fake_stream_prio(s, NULL);
	tap_ok(p == g, "%s: cuStreamCreateWithPriority through cuGetProcAddress gives priority %d (%d)",
	       what, g, p);
}

/* The legacy stream ----------------------------------------------------------- */

/* A launch of @kind on @def between two copies there. */
static void t_legacy(CUstream def, const char *name)
{
	uintptr_t ps = 0, d = (uintptr_t)def;
	int k, b, a;

	fake_trace_reset();
	copy(def, 100);
	launch(def, 11);
	copy(def, 101);
	cuCtxSynchronize();
	b = find("cuMemcpyHtoDAsync", 100);
	k = find("cuLaunchKernel", 11);
	a = find("cuMemcpyHtoDAsync", 101);
	if (want) {
		tap_ok(k >= 0 && moved(k, d, &ps) && get(k).tid == gettid(),
		       "%s: a launch on %s runs in the calling thread on a non-blocking stream of priority -5, tied to %s by an event each way",
		       what, name, name);
	} else {
		tap_ok(k >= 0 && get(k).stream == d && get(k).prio == 0 &&
		       !count("cuStreamWaitEvent"),
		       "%s: a launch on %s stays there, with no event tying it",
		       what, name);
	}
	tap_ok(after(k, b) && after(a, k),
	       "%s: on %s, the launch runs after the copy before it and before the copy after it",
	       what, name);
	tap_ok(a >= 0 && get(a).stream == d && get(b).stream == d,
	       "%s: copies on %s stay there", what, name);
}

/* cuLaunchKernelEx, cooperative and graph launches on the legacy stream. */
static void t_kinds(void)
{
	CUlaunchAttribute at = { .id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE };
	CUlaunchConfig cfg = {
		.gridDimX = 2, .gridDimY = 1, .gridDimZ = 1,
		.blockDimX = 32, .blockDimY = 1, .blockDimZ = 1,
		.hStream = NULL, .attrs = &at, .numAttrs = 1,
	};
	static const struct { const char *name; uint64_t payload; } k[] = {
		{ "cuLaunchKernelEx", 21 + 1000 * CU_LAUNCH_ATTRIBUTE_COOPERATIVE + 100000 },
		{ "cuLaunchCooperativeKernel", 22 },
		{ "cuGraphLaunch", 0x777 },
	};
	int a = 21, i, ok;
	void *p[] = { &a };
	uintptr_t ps;

	fake_trace_reset();
	copy(NULL, 200);
	cuLaunchKernelEx(&cfg, fn1, p, NULL);
	a = 22;
	cuLaunchCooperativeKernel(fn1, 1, 1, 1, 1, 1, 1, 0, NULL, p);
	cuGraphLaunch((CUgraphExec)0x777, NULL);
	copy(NULL, 201);
	cuCtxSynchronize();
	for (i = 0; i < 3; i++) {
		int at_ = find(k[i].name, k[i].payload);

		ok = at_ >= 0 && (want ? moved(at_, 0, &ps) : get(at_).stream == 0);
		if (at_ >= 0 && !strcmp(k[i].name, "cuLaunchKernelEx")) {
			struct fake_call c = get(at_);

			ok &= c.grid[0] == 2 && c.block[0] == 32;
		}
		tap_ok(ok, "%s: %s on the legacy stream %s", what, k[i].name,
		       want ? "runs at priority -5 with its attributes and grid, tied both ways"
			    : "stays there");
		tap_ok(after(at_, find("cuMemcpyHtoDAsync", 200)) &&
		       after(find("cuMemcpyHtoDAsync", 201), at_),
		       "%s: %s stays between the copies around it", what,
		       k[i].name);
	}
	/* A launch on the program's own stream is never moved. */
	fake_trace_reset();
	launch(S1, 23);
	launch_ptsz(S1, 24);
	cuCtxSynchronize();
	tap_ok(get(find("cuLaunchKernel", 23)).stream == (uintptr_t)S1 &&
	       get(find("cuLaunchKernel_ptsz", 24)).stream == (uintptr_t)S1 &&
	       !count("cuStreamWaitEvent"),
	       "%s: launches on the program's own stream stay there", what);
}

/*
 * Events are reused: 200 launches make no stream, and their ties use one
 * pair of events (a fresh event would have a new id in the fake).
 */
static void t_pool(void)
{
	uint64_t ev[2] = { 0, 0 };
	unsigned int same = 0;
	uintptr_t ps;
	int i, k;

	fake_trace_reset();
	for (i = 0; i < 200; i++)
		launch(NULL, 1000 + i);
	cuCtxSynchronize();
	for (i = 0; want && i < 200; i++) {
		k = find("cuLaunchKernel", (uint64_t)(1000 + i));
		if (k >= 0 && moved(k, 0, &ps)) {
			struct fake_call w = get(get(k).prev), r;
			int j = k + 1;

			while (get(j).prev != k)
				j++;
			r = get(j);
			same += !i || (w.payload == ev[0] && r.payload == ev[1]);
			ev[0] = w.payload;
			ev[1] = r.payload;
		}
	}
	tap_ok(!count("cuStreamCreateWithPriority") && !count("cuStreamCreate"),
	       "%s: 200 launches on the legacy stream make no stream", what);
	if (want)
		tap_ok(same == 200 && ev[0] != ev[1],
		       "%s: one thread's 200 moved launches reuse one pair of events (%u)",
		       what, same);
	else
		tap_ok(!count("cuStreamWaitEvent"),
		       "%s: 200 launches on the legacy stream wait for no event", what);
}

/* The per-thread default stream ----------------------------------------- */

struct pt_res {
	int base;
	uintptr_t ps;
	int ok_moved, ok_order, ok_copies;
};

static void *pt_thread(void *arg)
{
	struct pt_res *r = arg;
	int k1, k2, b, a;
	uintptr_t ps2 = 0;

	cuCtxSetCurrent(CTX);
	cuMemcpyHtoDAsync_v2_ptsz(DST, pinned, (size_t)r->base, NULL);
	launch_ptsz(NULL, r->base + 1);
	launch(CU_STREAM_PER_THREAD, r->base + 2);
	cuMemcpyHtoDAsync_v2_ptsz(DST, pinned, (size_t)r->base + 3, NULL);
	cuStreamSynchronize(CU_STREAM_PER_THREAD);
	b = find("cuMemcpyHtoDAsync_v2_ptsz", (uint64_t)r->base);
	k1 = find("cuLaunchKernel_ptsz", (uint64_t)r->base + 1);
	k2 = find("cuLaunchKernel", (uint64_t)r->base + 2);
	a = find("cuMemcpyHtoDAsync_v2_ptsz", (uint64_t)r->base + 3);
	if (want)
		r->ok_moved = k1 >= 0 && k2 >= 0 &&
			      moved(k1, (uintptr_t)CU_STREAM_PER_THREAD, &r->ps) &&
			      moved(k2, (uintptr_t)CU_STREAM_PER_THREAD, &ps2) &&
			      r->ps == ps2;
	else
		r->ok_moved = k1 >= 0 && k2 >= 0 && get(k1).stream == 0 &&
			      get(k2).stream == (uintptr_t)CU_STREAM_PER_THREAD;
	r->ok_order = after(k1, b) && after(k2, k1) && after(a, k2);
	r->ok_copies = a >= 0 && get(a).stream == 0 && get(b).stream == 0;
	return NULL;
}

static void t_perthread(uintptr_t legacy_ps)
{
	struct pt_res r[2] = { { .base = 300 }, { .base = 400 } };
	pthread_t th[2];
	int i;

	fake_trace_reset();
	for (i = 0; i < 2; i++) {
		pthread_create(&th[i], NULL, pt_thread, &r[i]);
		/* One after the other: the fake's stream order is per tid. */
		pthread_join(th[i], NULL);
	}
	tap_ok(r[0].ok_moved && r[1].ok_moved &&
	       (!want || (r[0].ps != r[1].ps && r[0].ps != legacy_ps)),
	       "%s: launches on the per-thread default stream (_ptsz on 0, CU_STREAM_PER_THREAD) %s",
	       what, want ? "run on a priority stream of their thread's own, tied both ways"
			  : "stay there");
	tap_ok(r[0].ok_order && r[1].ok_order,
	       "%s: on the per-thread default stream, launches run after the copy before them and before the copy after them",
	       what);
	tap_ok(r[0].ok_copies && r[1].ok_copies,
	       "%s: copies on the per-thread default stream stay there", what);
	if (want)
		tap_ok(streams_destroyed(r[0].ps) == 1 &&
		       streams_destroyed(r[1].ps) == 1,
		       "%s: a thread's priority stream is destroyed when the thread exits",
		       what);
}

/* cuCtxDestroy: the context's priority streams go first; then new ones. */
static void t_gone(void)
{
	uintptr_t ps = 0, ps2 = 0;
	int k1, k2, gone;

	fake_trace_reset();
	launch(NULL, 61);
	cuCtxDestroy(CTX);
	launch(NULL, 62);
	cuCtxSynchronize();
	k1 = find("cuLaunchKernel", 61);
	k2 = find("cuLaunchKernel", 62);
	gone = find("cuCtxDestroy_v2", (uint64_t)(uintptr_t)CTX);
	if (!want) {
		tap_ok(k1 >= 0 && k2 >= 0 && get(k1).stream == 0 &&
		       get(k2).stream == 0 && !count("cuStreamDestroy_v2"),
		       "%s: around cuCtxDestroy, launches stay on the legacy stream",
		       what);
		return;
	}
	tap_ok(moved(k1, 0, &ps) && streams_destroyed(ps) == 1 &&
	       find("cuStreamDestroy_v2", 0) < gone,
	       "%s: cuCtxDestroy destroys the context's priority stream before the driver sees it",
	       what);
	tap_ok(moved(k2, 0, &ps2) && ps2 != ps,
	       "%s: a launch after cuCtxDestroy gets a new priority stream", what);
}

/* Eight threads on the legacy stream at once ------------------------------- */

static void *busy_thread(void *arg)
{
	int base = (int)(intptr_t)arg, i;

	cuCtxSetCurrent(CTX);
	for (i = 0; i < PER_THREAD; i++) {
		launch(NULL, base + i);
		copy(NULL, (size_t)(base + i));
	}
	return NULL;
}

static void t_threads(void)
{
	static int kat[THREADS * PER_THREAD], cat[THREADS * PER_THREAD];
	unsigned int i, n, order_ok = 0, moved_ok = 0;
	pthread_t th[THREADS];
	uintptr_t ps;

	fake_trace_reset();
	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, busy_thread,
			       (void *)(intptr_t)(10000 * (i + 1)));
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	cuCtxSynchronize();
	memset(kat, -1, sizeof(kat));
	memset(cat, -1, sizeof(cat));
	n = fake_trace_len();
	for (i = 0; i < n; i++) {
		struct fake_call c = get((int)i);
		unsigned int t = (unsigned int)(c.payload / 10000) - 1;
		unsigned int j = (unsigned int)(c.payload % 10000);

		if (c.payload < 10000 || t >= THREADS || j >= PER_THREAD)
			continue;
		if (!strcmp(c.name, "cuLaunchKernel"))
			kat[t * PER_THREAD + j] = (int)i;
		else if (!strcmp(c.name, "cuMemcpyHtoDAsync_v2"))
			cat[t * PER_THREAD + j] = (int)i;
	}
	for (i = 0; i < THREADS * PER_THREAD; i++) {
		order_ok += after(cat[i], kat[i]) &&
			    (i % PER_THREAD == 0 || after(kat[i], cat[i - 1]));
		moved_ok += want ? kat[i] >= 0 && moved(kat[i], 0, &ps)
				 : kat[i] >= 0 && get(kat[i]).stream == 0;
	}
	tap_ok(order_ok == THREADS * PER_THREAD,
	       "%s: %d threads launching and copying on the legacy stream at once: each launch runs after its thread's copy before it and before the copy after it (%u of %d)",
	       what, THREADS, order_ok, THREADS * PER_THREAD);
	tap_ok(moved_ok == THREADS * PER_THREAD,
	       "%s: %d threads at once: every launch %s (%u)", what, THREADS,
	       want ? "ran at priority -5, tied both ways" : "stayed on the legacy stream",
	       moved_ok);
}

/* Stream capture ---------------------------------------------------------- */

static void *capture_thread(void *arg)
{
	int *ok = arg, k1, k2, k3, beg, end;
	CUgraph g;
	uintptr_t ps;

	cuCtxSetCurrent(CTX);
	fake_trace_reset();
	cuStreamBeginCapture(CU_STREAM_PER_THREAD, CU_STREAM_CAPTURE_MODE_GLOBAL);
	launch_ptsz(NULL, 51);
	launch(NULL, 52);
	cuStreamEndCapture(CU_STREAM_PER_THREAD, &g);
	launch(NULL, 53);
	cuCtxSynchronize();
	beg = find("cuStreamBeginCapture_v2", 0);
	end = find("cuStreamEndCapture", 0);
	k1 = find("cuLaunchKernel_ptsz", 51);
	k2 = find("cuLaunchKernel", 52);
	k3 = find("cuLaunchKernel", 53);
	ok[0] = beg >= 0 && k1 > beg && k1 < end && get(k1).stream == 0;
	ok[1] = k2 > beg && k2 < end && get(k2).stream == 0;
	ok[2] = k3 > end && (want ? moved(k3, 0, &ps) : get(k3).stream == 0);
	return NULL;
}

static void t_capture(void)
{
	int ok[3] = { 0, 0, 0 };
	pthread_t th;
	unsigned int i, waits = 0;

	pthread_create(&th, NULL, capture_thread, ok);
	pthread_join(th, NULL);
	for (i = 0; i < fake_trace_len(); i++) {
		struct fake_call c = get((int)i);

		if (!strcmp(c.name, "cuStreamEndCapture"))
			break;
		waits += !strcmp(c.name, "cuStreamWaitEvent");
	}
	tap_ok(ok[0] && !waits,
	       "%s: a launch on the per-thread default stream while it is captured stays there, nothing tied",
	       what);
	tap_ok(ok[1],
	       "%s: a launch on the legacy stream during a global capture elsewhere stays there",
	       what);
	tap_ok(ok[2], "%s: after the capture, a legacy-stream launch %s", what,
	       want ? "moves again" : "stays");
}

/* LC charging --------------------------------------------------------------- */

static void t_charge(void)
{
	unsigned int (*len)(void) = (unsigned int (*)(void))fake_gsp_sym("fake_gsp_len");
	struct fake_gsp_rec (*rec)(unsigned int) =
		(struct fake_gsp_rec (*)(unsigned int))fake_gsp_sym("fake_gsp_get");
	struct gsp_board *(*board)(void) =
		(struct gsp_board *(*)(void))fake_gsp_sym("fake_gsp_board");
	unsigned int i, nmoved = 0;
	uint64_t sum = 0;
	uintptr_t ps;

	if (!len || !rec || !board) {
		tap_ok(0, "charge: the fake libgsp is loaded");
		return;
	}
	fake_set_op_ns(1000000);
	fake_trace_reset();
	for (i = 0; i < 40; i++)
		launch(NULL, (int)i);
	for (i = 0; i < 40; i++)
		nmoved += moved(find("cuLaunchKernel", i), 0, &ps);
	cuCtxSynchronize();
	usleep(300000);
	for (i = 0; i < len(); i++) {
		struct fake_gsp_rec r = rec(i);

		if (r.op == FAKE_COMPLETE)
			sum += r.ns;
	}
	tap_ok(nmoved == 40, "charge: 40 LC launches on the legacy stream ran at priority -5 (%u)",
	       nmoved);
	tap_ok(board()->lc[3].inflight == 0,
	       "charge: inflight is back to 0: the reporter's marker on the legacy stream saw them end");
	tap_ok(sum == 40 * 1000000ULL,
	       "charge: they were charged %lu ns, their fake GPU time",
	       (unsigned long)sum);
}

static void t_lcgraph(void)
{
	CUgraph g = NULL;
	CUresult b, e;
	int i, bad = 0;

	for (i = 0; i < 20; i++) {
		launch(S1, i);
		b = cuStreamBeginCapture(S1, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
		launch(S1, i);
		usleep(2000);	/* the reporter polls every 50 us meanwhile */
		e = cuStreamEndCapture(S1, &g);
		bad += b != CUDA_SUCCESS || e != CUDA_SUCCESS || !g;
	}
	cuCtxSynchronize();
	tap_ok(!bad, "lcgraph: 20 captures right after an LC launch on the same stream end with a graph (%d failed)",
	       bad);
}

int main(int argc, char **argv)
{
	static const size_t one_int[] = { 4 };
	uintptr_t legacy_ps = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: test_lcprio prio|charge|lcgraph\n");
		return 2;
	}
	want = getenv("LCPRIO_WANT") && !strcmp(getenv("LCPRIO_WANT"), "1");
	what = getenv("LCPRIO_CASE") ? getenv("LCPRIO_CASE") : "lcprio";
	cuInit(0);
	fn1 = fake_function(1, one_int);
	fake_register(pinned, sizeof(pinned), CU_MEMORYTYPE_HOST);
	/* The first intercepted call opens the tenant (and loads libgsp). */
	cuCtxSetCurrent(CTX);
	if (!strcmp(argv[1], "prio")) {
		t_create();
		t_legacy(NULL, "the legacy stream (NULL)");
		if (want)
			moved(find("cuLaunchKernel", 11), 0, &legacy_ps);
		t_legacy(CU_STREAM_LEGACY, "CU_STREAM_LEGACY");
		if (want)
			tap_ok(moved(find("cuLaunchKernel", 11), 1, &(uintptr_t){ 0 }) &&
			       get(find("cuLaunchKernel", 11)).stream == legacy_ps,
			       "%s: NULL and CU_STREAM_LEGACY share one priority stream",
			       what);
		t_kinds();
		t_pool();
		t_perthread(legacy_ps);
		t_threads();
		t_capture();
		t_gone();
	} else if (!strcmp(argv[1], "charge")) {
		t_charge();
	} else if (!strcmp(argv[1], "lcgraph")) {
		t_lcgraph();
	} else {
		fprintf(stderr, "test_lcprio: unknown scenario %s\n", argv[1]);
		return 2;
	}
	return tap_done();
}
