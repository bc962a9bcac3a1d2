// SPDX-License-Identifier: GPL-2.0
/*
 * CuMAS task heads and one lease per engine (Documentation/interposer.rst,
 * "Copy-in, kernel, copy-out: task heads and leases per engine"), a BE
 * tenant against the fake libcuda and the fake libgsp, every GPU op 1 ms
 * of fake GPU time. Scenarios (argv[1]):
 *
 *   heads   6 iterations of copy in (1 MiB, pinned), kernel, copy out (1
 *           MiB) and a stream synchronise, on one stream: from the fourth
 *           on, the copy-in is SUBMITted as a task head (flag, the last
 *           task's kernel and copy-out costs: 1 ms each) and each lease
 *           costs its stage's 1 ms, not the quantum; the first two are
 *           plain (nothing measured yet). Every SUBMIT is COMPLETEd once
 *           and the charges add up to the 18 ms of fake GPU time.
 *           HEADS_WANT=0 (run with GSP_TASK_HEADS=0): no head, every
 *           cost the quantum, as before.
 *   ahead   the copy-in held on the fake GPU (fake_hold_copies): the
 *           kernel's lease is asked for and the kernel and the copy-out
 *           issued behind it in stream order while the copy-in's lease
 *           is still open (not COMPLETEd); released, each lease is
 *           COMPLETEd once. AHEAD_WANT=0 (run with GSP_LEASE_AHEAD=0):
 *           the kernel waits for the copy-in's work and COMPLETE, as
 *           before.
 *   order   two streams, 8 iterations each of copy in, kernel, event
 *           record, copy out; on the second a wait for that event and a
 *           memset: the driver sees every call in program order, and the
 *           charges add up to the fake GPU time (exact, with several
 *           leases open at once). With TH_E2E=1 against gspaced and the
 *           real libgsp (run.sh), the driver's order only.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#include <gspace.h>

#include "fake_cuda.h"
#include "fake_gsp.h"
#include "tap.h"

#define CTX	((CUcontext)0xc0)
#define S1	((CUstream)0x51)
#define S2	((CUstream)0x52)
#define MIB	(1u << 20)
#define DEV	0x40000000ULL	/* fake device memory, registered */
#define OP_NS	1000000ULL
#define QUANTUM	2000000ULL	/* GSP_QUANTUM_US's default */

static CUfunction fn1;
static char pinned[4 * MIB];

static void launch(CUstream s, int arg)
{
	int a = arg;
	void *p[] = { &a };

	cuLaunchKernel(fn1, 1, 1, 1, 1, 1, 1, 0, s, p, NULL);
}

static int e2e;		/* TH_E2E=1: a real arbiter, no fake log */
static unsigned int (*glen)(void);
static struct fake_gsp_rec (*gget)(unsigned int);

/* The fake arbiter's log from @from on; 0 if it is not there. */
static unsigned int gsp_log_get(unsigned int from, struct fake_gsp_rec *out,
				unsigned int max)
{
	unsigned int i, n = 0;

	for (i = from; glen && i < glen() && n < max; i++)
		out[n++] = gget(i);
	return n;
}

/*
 * Every SUBMIT of @r COMPLETEd exactly once, after it; the sum of the
 * charges into *@sum.
 */
static int each_completed_once(const struct fake_gsp_rec *r, unsigned int n,
			       uint64_t *sum)
{
	unsigned int i, k, subs = 0;

	*sum = 0;
	for (i = 0; i < n; i++) {
		unsigned int seen = 0;

		if (r[i].op == FAKE_COMPLETE)
			*sum += r[i].ns;
		if (r[i].op != FAKE_SUBMIT)
			continue;
		subs++;
		for (k = 0; k < n; k++)
			if (r[k].op == FAKE_COMPLETE && r[k].handle == r[i].handle) {
				if (k < i)
					return 0;
				seen++;
			}
		if (seen != 1)
			return 0;
	}
	return subs > 0;
}

static int in_trace(const char *name, uint64_t payload)
{
	unsigned int i, n = fake_trace_len();
	struct fake_call c;

	for (i = 0; i < n; i++) {
		fake_trace_get(i, &c);
		if (!strcmp(c.name, name) && c.payload == payload)
			return 1;
	}
	return 0;
}

static void t_heads(void)
{
	const char *want = getenv("HEADS_WANT");
	int heads = !want || strcmp(want, "0");
	struct fake_gsp_rec r[256];
	unsigned int n, i, it, from = glen();
	int ok_head = 1, ok_plain = 1, ok_cost = 1, ok_eng = 1;
	uint64_t sum = 0;
	int once;

	for (it = 0; it < 6; it++) {
		cuMemcpyHtoDAsync(DEV, pinned, MIB, S1);
		launch(S1, (int)it);
		cuMemcpyDtoHAsync(pinned + MIB, DEV + MIB, MIB, S1);
		cuStreamSynchronize(S1);
	}
	usleep(300000);		/* the idle lease ends after 200 us */
	n = gsp_log_get(from, r, 256);
	for (i = 0, it = 0; i < n; i++) {
		static const uint32_t eng[3] = { GSPACE_ENGINE_COPY_H2D,
						 GSPACE_ENGINE_COMPUTE,
						 GSPACE_ENGINE_COPY_D2H };
		const struct fake_gsp_rec *x = &r[i];
		int head = !!(x->flags & GSPACE_SUBMIT_TASK_HEAD);
		unsigned int k = it / 3;

		if (x->op != FAKE_SUBMIT)
			continue;
		ok_eng &= x->engine == eng[it % 3];
		if (!heads) {
			ok_plain &= !head && !x->task_compute_ns && !x->task_d2h_ns;
			ok_cost &= x->ns == QUANTUM;
		} else if (k < 2) {
			ok_plain &= !head;
		} else if (k >= 3) {
			if (x->engine == GSPACE_ENGINE_COPY_H2D)
				ok_head &= head && x->task_compute_ns == OP_NS &&
					   x->task_d2h_ns == OP_NS;
			else
				ok_head &= !head;
			ok_cost &= x->ns == OP_NS;
		}
		if (!ok_head || !ok_cost)
			tap_diag("SUBMIT %u: engine %u flags %#x cost %llu task %llu %llu",
				 it, x->engine, x->flags, (unsigned long long)x->ns,
				 (unsigned long long)x->task_compute_ns,
				 (unsigned long long)x->task_d2h_ns);
		it++;
	}
	tap_ok(it == 18 && ok_eng,
	       "heads: one lease per stage, 18 SUBMITs in stage order (saw %u)", it);
	if (heads) {
		tap_ok(ok_plain, "heads: the first two copy-ins, before any measurement, are plain jobs");
		tap_ok(ok_head, "heads: from the fourth iteration on, each copy-in is a task head with the last task's kernel and copy-out costs (1 ms each)");
		tap_ok(ok_cost, "heads: ... and each lease's cost_ns is its stage's measured 1 ms, not the quantum");
	} else {
		tap_ok(ok_plain && ok_cost,
		       "heads: GSP_TASK_HEADS=0: plain jobs, each of the quantum, as before");
	}
	once = each_completed_once(r, n, &sum);
	tap_ok(once && sum == 18 * OP_NS,
	       "heads: every lease COMPLETEd once, charged %llu ns in all (the fake GPU time, 18 ms)",
	       (unsigned long long)sum);
}

/* Waits up to @ms for a call @name with @payload to reach the driver. */
static int seen_within(const char *name, uint64_t payload, unsigned int ms)
{
	unsigned int t;

	for (t = 0; t < ms; t++) {
		if (in_trace(name, payload))
			return 1;
		usleep(1000);
	}
	return in_trace(name, payload);
}

static void t_ahead(void)
{
	const char *want = getenv("AHEAD_WANT");
	int ahead = !want || strcmp(want, "0");
	struct fake_gsp_rec r[64];
	unsigned int n, i, from = glen(), subs[3] = { 0 }, done = 0;
	int ran, d2h;
	uint64_t sum = 0;
	int once;

	fake_trace_reset();
	fake_hold_copies(1);
	fake_hold(1);
	cuMemcpyHtoDAsync(DEV, pinned, MIB, S1);
	launch(S1, 41);
	cuMemcpyDtoHAsync(pinned + MIB, DEV + MIB, MIB, S1);
	ran = seen_within("cuLaunchKernel", 41, ahead ? 2000 : 300);
	d2h = ran && seen_within("cuMemcpyDtoHAsync_v2", MIB, ahead ? 2000 : 0);
	n = gsp_log_get(from, r, 64);
	for (i = 0; i < n; i++) {
		if (r[i].op == FAKE_SUBMIT && r[i].engine < 3)
			subs[r[i].engine]++;
		done += r[i].op == FAKE_COMPLETE;
	}
	if (ahead) {
		tap_ok(ran && d2h,
		       "ahead: the kernel and the copy-out reach the driver while the copy-in still runs");
		tap_ok(subs[GSPACE_ENGINE_COPY_H2D] == 1 &&
		       subs[GSPACE_ENGINE_COMPUTE] == 1 &&
		       subs[GSPACE_ENGINE_COPY_D2H] == 1 && done == 0,
		       "ahead: the kernel's and copy-out's leases were asked for before the copy-in's was COMPLETEd (%u COMPLETEs)",
		       done);
	} else {
		tap_ok(!ran && subs[GSPACE_ENGINE_COMPUTE] == 0 && done == 0,
		       "ahead: GSP_LEASE_AHEAD=0: the kernel waits for the copy-in's work, its lease not yet asked for");
	}
	fake_hold(0);
	fake_hold_copies(0);
	cuStreamSynchronize(S1);
	usleep(300000);
	n = gsp_log_get(from, r, 64);
	once = each_completed_once(r, n, &sum);
	tap_ok(once && sum == 3 * OP_NS,
	       "ahead: released, each lease is COMPLETEd once, %llu ns in all",
	       (unsigned long long)sum);
	{
		static const char *const names[] = { "cuMemcpyHtoDAsync_v2",
						      "cuLaunchKernel",
						      "cuMemcpyDtoHAsync_v2" };
		unsigned int k = 0, t = fake_trace_len();
		struct fake_call c;

		for (i = 0; i < t && k < 3; i++) {
			fake_trace_get(i, &c);
			if (!strcmp(c.name, names[k]))
				k++;
			else if (!strcmp(c.name, names[(k + 1) % 3]) ||
				 !strcmp(c.name, names[(k + 2) % 3]))
				break;
		}
		tap_ok(k == 3, "ahead: the driver saw copy-in, kernel, copy-out in program order");
	}
}

static void t_order(void)
{
	struct { char name[40]; uint64_t payload; } want[160];
	struct fake_gsp_rec r[512];
	unsigned int nw = 0, i, k, t, it, from = e2e ? 0 : glen(), n;
	struct fake_call c;
	CUevent ev;
	uint64_t sum = 0;
	int once;
	int same = 1;

#define WANT(nm, pl) do { snprintf(want[nw].name, sizeof(want[nw].name), "%s", nm); \
			  want[nw++].payload = (pl); } while (0)
	cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING);
	fake_trace_reset();
	for (it = 0; it < 8; it++) {
		cuMemcpyHtoDAsync(DEV, pinned, MIB + it, S1);
		WANT("cuMemcpyHtoDAsync_v2", MIB + it);
		launch(S1, (int)it);
		WANT("cuLaunchKernel", it);
		cuEventRecord(ev, S1);
		cuMemcpyDtoHAsync(pinned + MIB, DEV + MIB, 2 * MIB + it, S1);
		WANT("cuMemcpyDtoHAsync_v2", 2 * MIB + it);
		cuMemcpyHtoDAsync(DEV + 2 * MIB, pinned + 2 * MIB, 65536 + it, S2);
		WANT("cuMemcpyHtoDAsync_v2", 65536 + it);
		cuStreamWaitEvent(S2, ev, 0);
		launch(S2, 100 + (int)it);
		WANT("cuLaunchKernel", 100 + it);
		cuMemsetD32Async(DEV + 3 * MIB, it, 16, S2);
		cuMemcpyDtoHAsync(pinned + 3 * MIB, DEV + 3 * MIB, 4096 + it, S2);
		WANT("cuMemcpyDtoHAsync_v2", 4096 + it);
	}
	cuCtxSynchronize();
	usleep(300000);
	cuEventDestroy(ev);
	t = fake_trace_len();
	for (i = 0, k = 0; i < t; i++) {
		fake_trace_get(i, &c);
		if (strcmp(c.name, "cuMemcpyHtoDAsync_v2") &&
		    strcmp(c.name, "cuLaunchKernel") &&
		    strcmp(c.name, "cuMemcpyDtoHAsync_v2"))
			continue;
		if (k >= nw || strcmp(c.name, want[k].name) ||
		    c.payload != want[k].payload) {
			tap_diag("driver call %u: %s %llu, program order has %s %llu",
				 k, c.name, (unsigned long long)c.payload,
				 k < nw ? want[k].name : "nothing",
				 (unsigned long long)(k < nw ? want[k].payload : 0));
			same = 0;
			break;
		}
		k++;
	}
	tap_ok(same && k == nw,
	       "order: the driver saw the %u copies and kernels of two streams in program order", nw);
	if (e2e)
		return;
	n = gsp_log_get(from, r, 512);
	/* 16 copies in, 16 kernels, 8 memsets, 16 copies out: 1 ms each. */
	once = each_completed_once(r, n, &sum);
	tap_ok(once && sum == 56 * OP_NS,
	       "order: every lease COMPLETEd once, charged %llu ns in all (the fake GPU time, 56 ms)",
	       (unsigned long long)sum);
}

int main(int argc, char **argv)
{
	static const size_t one_int[] = { 4 };

	if (argc != 2) {
		fprintf(stderr, "usage: test_task_heads heads|ahead|order\n");
		return 2;
	}
	cuInit(0);
	fn1 = fake_function(1, one_int);
	cuCtxSetCurrent(CTX);
	fake_register(pinned, sizeof(pinned), CU_MEMORYTYPE_HOST);
	fake_register((void *)(uintptr_t)DEV, 4 * MIB, CU_MEMORYTYPE_DEVICE);
	fake_set_op_ns(OP_NS);
	glen = (unsigned int (*)(void))fake_gsp_sym("fake_gsp_len");
	gget = (struct fake_gsp_rec (*)(unsigned int))fake_gsp_sym("fake_gsp_get");
	e2e = getenv("TH_E2E") && !strcmp(getenv("TH_E2E"), "1");
	if ((!glen || !gget) && !(e2e && !strcmp(argv[1], "order"))) {
		tap_ok(0, "%s: the fake libgsp is loaded", argv[1]);
		return tap_done();
	}
	if (!strcmp(argv[1], "heads"))
		t_heads();
	else if (!strcmp(argv[1], "ahead"))
		t_ahead();
	else if (!strcmp(argv[1], "order"))
		t_order();
	else {
		fprintf(stderr, "test_task_heads: unknown scenario %s\n", argv[1]);
		return 2;
	}
	return tap_done();
}
