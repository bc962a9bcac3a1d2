// SPDX-License-Identifier: GPL-2.0
/*
 * The interposer's modes at their edges, one scenario per run (run.sh):
 *
 * "lost": a scheduled BE tenant that the arbiter stops taking: the fake libgsp
 * marks it hung (SUBMIT: EBUSY) and, with FAKE_GSP_REFUSE=1, refuses the
 * reopen with EPERM, so rejoining cannot help. Without GSP_FAIL_OPEN the
 * program's GPU work is refused from then on: the launch that was queued
 * fails at the next sync point, later launches return
 * CUDA_ERROR_NOT_PERMITTED at once, and none of them reaches the driver.
 * With GSP_FAIL_OPEN=1 (REFUSE_WANT=pass) they all pass through.
 * "fork": a child forked from a scheduled tenant has no tenant of its
 * own; its launches are refused likewise (passed with GSP_FAIL_OPEN=1).
 * "capture": stream capture begun through the first cuStreamBeginCapture
 * (no mode; what cuGetProcAddress gives below cudaVersion 10.1) drains
 * the deferred BE work before it, and what follows on the stream is
 * captured in program order.
 * run.sh puts the interposer and the fake libgsp in place.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

#include "fake_cuda.h"
#include "tap.h"

#define CTX	((CUcontext)0xc0)
#define S1	((CUstream)0x51)

static CUfunction fn;

static CUresult launch(int arg)
{
	void *p[] = { &arg };

	return cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, S1, p, NULL);
}

/* Launches that reached the fake driver since the trace's reset. */
static unsigned int launched(void)
{
	unsigned int i, n = 0;
	struct fake_call c;

	for (i = 0; i < fake_trace_len(); i++) {
		fake_trace_get(i, &c);
		n += !strcmp(c.name, "cuLaunchKernel");
	}
	return n;
}

/* Index of the first call named @name in the fake's trace, or -1. */
static int first(const char *name)
{
	unsigned int i;
	struct fake_call c;

	for (i = 0; i < fake_trace_len(); i++) {
		fake_trace_get(i, &c);
		if (!strcmp(c.name, name))
			return (int)i;
	}
	return -1;
}

static void t_capture(void)
{
	CUresult (*begin)(CUstream) = NULL;
	CUresult (*end)(CUstream, CUgraph *) = NULL;
	CUdriverProcAddressQueryResult st;
	struct fake_call c;
	Dl_info di;
	CUgraph g;
	int b, e, i, ok = 1;

	cuGetProcAddress_v2("cuStreamBeginCapture", (void **)&begin, 10000,
			    0, &st);
	cuGetProcAddress_v2("cuStreamEndCapture", (void **)&end, 10000, 0,
			    &st);
	tap_ok(begin && end && dladdr((void *)begin, &di) &&
	       strstr(di.dli_fname, "libgsp_preload"),
	       "capture: cudaVersion 10.0 gets our first cuStreamBeginCapture");
	if (!begin || !end)
		return;
	fake_trace_reset();
	for (i = 0; i < 3; i++)
		launch(10 + i);		/* deferred */
	begin(S1);
	launch(20);			/* captured: straight through */
	end(S1, &g);
	cuCtxSynchronize();
	b = first("cuStreamBeginCapture");
	e = first("cuStreamEndCapture");
	for (i = 0; i < (int)fake_trace_len(); i++) {
		fake_trace_get((unsigned int)i, &c);
		if (strcmp(c.name, "cuLaunchKernel"))
			continue;
		ok &= c.payload < 20 ? i < b : i > b && i < e;
	}
	tap_ok(b >= 0 && e > b && launched() == 4 && ok,
	       "capture: the 3 deferred launches reach the driver before the capture begins, the captured one inside it (begin %d, end %d, %u launches)",
	       b, e, launched());
}

/* The fake libgsp's control, loaded by the interposer next to itself. */
static void (*hang_fn(void))(void)
{
	Dl_info di;
	char path[4096];
	void *h;

	if (!dladdr(dlsym(RTLD_DEFAULT, "cuLaunchKernel"), &di))
		return NULL;
	snprintf(path, sizeof(path), "%s", di.dli_fname);
	*strrchr(path, '/') = 0;
	strncat(path, "/libgsp.so.1", sizeof(path) - strlen(path) - 1);
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	return h ? (void (*)(void))dlsym(h, "fake_gsp_hang") : NULL;
}

/* The child's launch, in its exit status: 0 refused, 1 passed, 2 else. */
static void t_fork(int pass)
{
	int status = -1;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		unsigned int before = launched();
		CUresult r = launch(2);

		if (r == CUDA_ERROR_NOT_PERMITTED && launched() == before)
			_exit(0);
		_exit(r == CUDA_SUCCESS && launched() == before + 1 ? 1 : 2);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == (pass ? 1 : 0),
	       "fork: the child of a scheduled tenant has its launch %s (status %d)",
	       pass ? "passed through (GSP_FAIL_OPEN=1)" :
		      "refused, not reaching the driver", status);
}

int main(int argc, char **argv)
{
	static const size_t one_int[] = { sizeof(int) };
	const char *want = getenv("REFUSE_WANT");
	int pass = want && !strcmp(want, "pass");
	void (*hang)(void);
	CUresult queued, sync, later, again;
	unsigned int before, after;

	fn = fake_function(1, one_int);
	cuCtxSetCurrent(CTX);
	fake_trace_reset();
	launch(1);
	cuCtxSynchronize();
	if (argc > 1 && !strcmp(argv[1], "capture")) {
		t_capture();
		return tap_done();
	}
	if (argc > 1 && !strcmp(argv[1], "fork")) {
		tap_ok(launched() == 1, "fork: the parent's launch ran (%u)",
		       launched());
		t_fork(pass);
		return tap_done();
	}
	usleep(300000);		/* the idle lease ends, COMPLETEd */
	hang = hang_fn();
	before = launched();
	if (!hang) {
		tap_ok(0, "refuse: the fake libgsp is loaded");
		return tap_done();
	}
	hang();
	queued = launch(2);	/* deferred: SUBMIT gives EBUSY */
	sync = cuCtxSynchronize();
	later = launch(3);
	again = cuCtxSynchronize();
	after = launched();
	tap_ok(before == 1, "refuse: the first launch ran under a lease (%u)",
	       before);
	if (pass) {
		tap_ok(queued == CUDA_SUCCESS && later == CUDA_SUCCESS &&
		       after == 3,
		       "refuse: GSP_FAIL_OPEN=1: the launches pass through once the arbiter refuses the tenant (%u of 3)",
		       after);
		tap_ok(sync == CUDA_SUCCESS && again == CUDA_SUCCESS,
		       "refuse: GSP_FAIL_OPEN=1: the syncs succeed");
		return tap_done();
	}
	tap_ok(queued == CUDA_SUCCESS && sync == CUDA_ERROR_NOT_PERMITTED &&
	       later == CUDA_ERROR_NOT_PERMITTED,
	       "refuse: the queued launch fails at the sync (%d), the next at once (%d)",
	       (int)sync, (int)later);
	tap_ok(after == 1 && again == CUDA_SUCCESS,
	       "refuse: neither reaches the driver (%u launches in all), and a later sync succeeds (%d)",
	       after, (int)again);
	return tap_done();
}
