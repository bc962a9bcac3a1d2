// SPDX-License-Identifier: GPL-2.0
/*
 * The arbiter dies in the middle of a run (issue 31), against gspaced
 * and the real libgsp (run.sh's gspaced section): the program SIGKILLs
 * the daemon ($ARB_PID) after 20 of its launches, a BE tenant with
 * deferred launches queued behind a lease, an LC tenant while its
 * charger talks to the daemon, then goes on launching for up to 3 s and
 * synchronises. $ARB_WANT says what the interposer must do:
 *
 *   rejoin  gspaced is started again (run.sh does, once $ARB_HOLD.killed
 *           appears, and then touches $ARB_HOLD.back); the program
 *           launches on until 1.5 s after that (the rejoin's backoff is
 *           1 s at most): every call succeeds, every launch reaches the
 *           driver in program order, nothing is said twice
 *   refuse  gspaced stays dead past GSP_REJOIN_WAIT_MS: the work fails
 *           closed, CUDA_ERROR_NOT_PERMITTED (for BE at the first sync
 *           point after the loss, for LC at a launch), later launches
 *           fail at once and reach no driver, and the program finishes
 *   pass    GSP_FAIL_OPEN=1: every call succeeds, every launch reaches
 *           the driver
 *
 * Never a crash or a hang: run.sh's timeout and exit status say so.
 * run.sh checks the lines said and the counters.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>

#include "fake_cuda.h"
#include "tap.h"

#define S1	((CUstream)0x51)
#define BEFORE	20		/* launches before the kill */

static CUfunction fn;

static CUresult launch(int arg)
{
	void *p[] = { &arg };

	return cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, S1, p, NULL);
}

/* Launches that reached the fake driver, and whether in order. */
static unsigned int launched(int *in_order)
{
	unsigned int i, n = 0;
	struct fake_call c;

	*in_order = 1;
	for (i = 0; i < fake_trace_len(); i++) {
		fake_trace_get(i, &c);
		if (strcmp(c.name, "cuLaunchKernel"))
			continue;
		*in_order &= c.payload == n;
		n++;
	}
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds since the kill to launch for: until 1.5 s after @hold.back. */
static double back_by(const char *hold)
{
	static double back;
	static double t_kill;
	char path[4096];

	if (!t_kill)
		t_kill = now_s();
	snprintf(path, sizeof(path), "%s.back", hold);
	if (!back && !access(path, F_OK))
		back = now_s();
	return back ? back - t_kill + 1.5 : 1e9;
}

int main(void)
{
	static const size_t one_int[] = { sizeof(int) };
	const char *want = getenv("ARB_WANT"), *pid = getenv("ARB_PID");
	const char *hold = getenv("ARB_HOLD");
	const char *cls = getenv("GSP_CLASS");
	int lc = cls && !strcmp(cls, "lc"), n = 0, in_order, first_bad = -1;
	CUresult r = CUDA_SUCCESS, sync, later;
	double t0;
	unsigned int ran, before;

	if (!want || !pid) {
		fprintf(stderr, "test_arbiter: ARB_WANT and ARB_PID, please\n");
		return 2;
	}
	fn = fake_function(1, one_int);
	fake_set_op_ns(1000000);
	cuCtxSetCurrent((CUcontext)0xc0);
	fake_trace_reset();
	for (; n < BEFORE; n++) {
		launch(n);
		usleep(2000);
	}
	kill((pid_t)atoi(pid), SIGKILL);
	if (hold) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s.killed", hold);
		f = fopen(path, "w");
		if (f)
			fclose(f);
	}
	/* On launching, 2 ms apart, to the first error or for as above. */
	t0 = now_s();
	while (now_s() - t0 < (hold ? back_by(hold) :
			       strcmp(want, "refuse") ? 1.0 : 3.0) &&
	       now_s() - t0 < 10.0) {
		r = launch(n);
		if (r != CUDA_SUCCESS) {
			first_bad = n;
			break;
		}
		n++;
		usleep(2000);
	}
	sync = cuCtxSynchronize();
	before = launched(&in_order);
	later = launch(n++);
	cuCtxSynchronize();
	ran = launched(&in_order);
	if (!strcmp(want, "refuse")) {
		/* BE: the queued work was refused, said at the sync. */
		tap_ok(first_bad > BEFORE && r == CUDA_ERROR_NOT_PERMITTED &&
		       (lc || sync == CUDA_ERROR_NOT_PERMITTED),
		       "arbiter (%s): gone for good: the work fails closed (launch %d fails with %d, the sync with %d)",
		       lc ? "lc" : "be", first_bad, (int)r, (int)sync);
		tap_ok(later == CUDA_ERROR_NOT_PERMITTED && ran == before &&
		       ran >= BEFORE,
		       "arbiter (%s): gone for good: a later launch fails at once (%d) and reaches no driver (%u of %d ran)",
		       lc ? "lc" : "be", (int)later, ran, n);
		return tap_done();
	}
	tap_ok(first_bad < 0 && sync == CUDA_SUCCESS && later == CUDA_SUCCESS,
	       "arbiter (%s, %s): every call succeeds (first failed launch %d, sync %d, later %d)",
	       lc ? "lc" : "be", want, first_bad, (int)sync, (int)later);
	tap_ok(ran == (unsigned int)n && in_order,
	       "arbiter (%s, %s): all %d launches reached the driver, in order (%u, %s)",
	       lc ? "lc" : "be", want, n, ran,
	       in_order ? "in order" : "out of order");
	return tap_done();
}
