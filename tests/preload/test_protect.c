// SPDX-License-Identifier: GPL-2.0
/*
 * Protection modes in the interposer, against the fake libcuda and the
 * fake libgsp (whose board the tests write as an arbiter and other
 * tenants would). run.sh runs it with the interposer in LD_PRELOAD:
 *
 *   predict   an LC tenant (GSP_CLASS=lc, partition 2,1) launches every
 *             50 ms. With FAKE_GSP_PROTECT=predictive its reporter raises
 *             the slot's reserve, and with it part_req, before the next
 *             launch once 8 intervals are in, never before; the launch
 *             drops it; a launch that does not come has it dropped after
 *             the window. Otherwise (reactive) nothing is ever reserved.
 *   protect   a BE tenant with spatial sharing (132 simulated SMs,
 *             partition 60,1) beside an LC slot the test owns, idle: under
 *             reserved an untransformable kernel runs on a green context
 *             of the 72 SMs the standing request leaves, and one that
 *             cannot be confined runs unheld; under predictive a
 *             reservation confines the first and holds the second back
 *             until it goes; under reactive neither does anything, as
 *             before.
 *   preempt   a BE tenant with spatial sharing (partition 2,1) runs a
 *             transformed kernel that stays in flight (fake_hold()),
 *             quantum 10 us. Under FAKE_GSP_PROTECT=preemptive, once the
 *             board says a job waits for the compute engine, it gives
 *             its lease back: it raises its override word, COMPLETEs,
 *             SUBMITs again and, while the grant is withheld, keeps the
 *             word raised and tops nothing up; once granted, it drops
 *             the word and tops the job up. Nothing of that with no job
 *             waiting, or under reactive.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#include <gsp_board.h>
#include <gsp_persist.h>

#include "fake_cuda.h"
#include "fake_gsp.h"
#include "tap.h"

#define CTX	((CUcontext)0xc0)
#define S1	((CUstream)0x51)
#define MS	1000000ULL
#define PERIOD	(50 * MS)

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ULL),
			       .tv_nsec = (long)(t % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

/* The fake libgsp, which the interposer loaded beside itself. */
static void *fake_gsp(void)
{
	void *h = dlopen("libgsp.so.1", RTLD_NOW | RTLD_NOLOAD);
	char path[4096];
	Dl_info di;

	if (!h && dladdr(dlsym(RTLD_DEFAULT, "cuLaunchKernel"), &di)) {
		snprintf(path, sizeof(path), "%s", di.dli_fname);
		*strrchr(path, '/') = 0;
		strncat(path, "/libgsp.so.1", sizeof(path) - strlen(path) - 1);
		h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	}
	return h;
}

static struct gsp_board *fake_board(void)
{
	void *h = fake_gsp();
	struct gsp_board *(*fn)(void);

	*(void **)&fn = h ? dlsym(h, "fake_gsp_board") : NULL;
	return fn ? fn() : NULL;
}

static uint32_t req_nk(struct gsp_board *b)
{
	return GSP_BOARD_REQ_NK(gsp_board_load(&b->dev[0].part_req));
}

static uint64_t reserve_of(struct gsp_board *b, int slot)
{
	return gsp_board_load(&b->lc[slot].reserve);
}

/* Up to 200 ms for the LC's slot to be idle and unreserved, and part_req 0. */
static int settles(struct gsp_board *b)
{
	int i;

	for (i = 0; i < 200; i++) {
		/* part_req follows the slot a moment later */
		if (!gsp_board_load(&b->lc[3].inflight) && !reserve_of(b, 3) &&
		    !req_nk(b))
			return 1;
		usleep(1000);
	}
	return 0;
}

static void launch1(CUfunction f, CUstream s, int arg)
{
	int a = arg;
	void *p[] = { &a };

	cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, p, NULL);
}

static void t_predict(void)
{
	static const size_t one_int[] = { 4 };
	const char *mode = getenv("FAKE_GSP_PROTECT");
	int predictive = mode && !strcmp(mode, "predictive");
	struct gsp_board *b = fake_board();
	CUfunction fn = fake_function(1, one_int);
	uint64_t t0, next, on;
	int i, early = 0;

	if (!b) {
		tap_ok(0, "predict: the fake libgsp is loaded");
		return;
	}
	cuCtxSetCurrent(CTX);
	t0 = mono_ns() + 5 * MS;
	for (i = 0; i < 12; i++) {
		sleep_until(t0 + (uint64_t)i * PERIOD);
		/* 8 intervals (9 arrivals) before any forecast. */
		if (i <= 8)
			early += reserve_of(b, 3) != 0;
		launch1(fn, S1, i);
	}
	tap_ok(!early, "predict: no reservation before 8 intervals (%d)",
	       early);
	next = t0 + 12 * PERIOD;
	/* The window opens 3 ms (lead) + 1.56 ms (period / 32) ahead. */
	sleep_until(next - 2 * MS);
	on = reserve_of(b, 3);
	if (predictive)
		tap_ok(on && on <= mono_ns() && req_nk(b) ==
		       GSP_BOARD_REQ_NK(GSP_BOARD_REQ(2, 1, 0)) &&
		       !gsp_board_load(&b->lc[3].inflight),
		       "predict: 2 ms before the 13th launch, nothing in flight: the slot reserves and part_req is (2, 1)");
	else
		tap_ok(!on && !req_nk(b),
		       "predict: under %s nothing is reserved before a launch",
		       mode ? mode : "reactive (the default)");
	sleep_until(next);
	launch1(fn, S1, 12);
	cuCtxSynchronize();
	tap_ok(settles(b) && !req_nk(b),
	       "predict: the launch ends the reservation; its work done, part_req is (0, 0)");
	/* No 14th launch: raised for it, then dropped after the window. */
	next += PERIOD;
	sleep_until(next - 2 * MS);
	on = reserve_of(b, 3);
	tap_ok(predictive ? on != 0 : !on,
	       "predict: %s for the 14th launch",
	       predictive ? "raised again" : "still nothing");
	sleep_until(next + 10 * MS);
	tap_ok(!reserve_of(b, 3) && !req_nk(b),
	       "predict: the 14th launch does not come: nothing reserved 10 ms after its forecast, part_req (0, 0)");
}

/*
 * The LC's GPU work is done while its charge waits for a grant (a BE lease
 * holds the engine): inflight, and so the request, must come down anyway,
 * or the request would starve the BE kernel whose lease the charge waits
 * for.
 */
static void t_charge(void)
{
	static const size_t one_int[] = { 4 };
	struct gsp_board *b = fake_board();
	CUfunction fn = fake_function(1, one_int);
	void *h = fake_gsp();
	void (*hold)(int);
	int i, down = 0;

	if (!b) {
		tap_ok(0, "charge: the fake libgsp is loaded");
		return;
	}
	*(void **)&hold = h ? dlsym(h, "fake_gsp_hold") : NULL;
	if (!hold) {
		tap_ok(0, "charge: the fake libgsp can hold grants");
		return;
	}
	cuCtxSetCurrent(CTX);
	hold(1);
	for (i = 0; i < 3; i++) {
		launch1(fn, S1, i);
		cuCtxSynchronize();
		down += settles(b) && !req_nk(b);
		usleep(20000);	/* the reporter has charges waiting by now */
	}
	tap_ok(down == 3,
	       "charge: with every grant withheld, each request's work done brings inflight and part_req down (%d of 3)",
	       down);
	hold(0);
}

/* kgs reads %envreg1 (grid sync): it cannot be transformed. */
static const char kgs_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n\n"
	".visible .entry kgs(\n\t.param .u32 kgs_param_0\n)\n{\n"
	"\t.reg .b32 %r<3>;\n\tld.param.u32 %r1, [kgs_param_0];\n"
	"\tmov.u32 %r2, %envreg1;\n\tret;\n}\n";

/* The launches of kgs in the trace: how many, the last one in *@c. */
static unsigned int kgs_launches(struct fake_call *c)
{
	unsigned int i, k = 0, n = fake_trace_len();
	struct fake_call x;

	for (i = 0; i < n; i++) {
		fake_trace_get(i, &x);
		if (!strncmp(x.name, "cuLaunch", 8) && !strcmp(x.fn, "kgs")) {
			*c = x;
			k++;
		}
	}
	return k;
}

static void launch_kgs(CUfunction f, int coop)
{
	int a = 7;
	void *p[] = { &a };

	if (coop)
		cuLaunchCooperativeKernel(f, 10, 2, 1, 64, 1, 1, 0, S1, p);
	else
		cuLaunchKernel(f, 10, 2, 1, 64, 1, 1, 128, S1, p, NULL);
}

/* One launch of kgs: 1 if it ran within 100 ms, its trace entry in *@c. */
static int runs_at_once(CUfunction f, int coop, struct fake_call *c)
{
	fake_trace_reset();
	launch_kgs(f, coop);
	usleep(100000);		/* no sync: it would wait for the LC */
	return kgs_launches(c) == 1;
}

/* The idle LC slot 5 of the test, stamped long ago, with @reserve. */
static void lc_slot(struct gsp_board *b, uint32_t mode, uint64_t reserve)
{
	struct gsp_board_lc *s = &b->lc[5];

	s->device = 0;
	s->inflight = 0;
	s->stamp_ns = 1;
	gsp_board_store(&s->reserve, reserve);
	gsp_board_store(&s->owner, 9);
	gsp_board_store(&b->dev[0].protect, mode);
	gsp_board_part_update(b, 0);
}

static void t_protect(void)
{
	struct gsp_board *b = fake_board();
	struct fake_call c;
	CUmodule m;
	CUfunction kgs;
	int ok;

	if (!b) {
		tap_ok(0, "protect: the fake libgsp is loaded");
		return;
	}
	cuCtxSetCurrent(CTX);
	cuModuleLoadData(&m, kgs_ptx);
	cuModuleGetFunction(&kgs, m, "kgs");

	lc_slot(b, GSP_PROTECT_RESERVED, 0);
	ok = req_nk(b) == GSP_BOARD_REQ_NK(GSP_BOARD_REQ(60, 1, 0)) &&
	     !gsp_board_lc_active(b, 0, mono_ns());
	ok = ok && runs_at_once(kgs, 0, &c);
	tap_ok(ok && c.sms == 72 && c.stream != (uintptr_t)S1,
	       "protect: reserved, an idle LC registered: an untransformable kernel runs at once on a green context of the 72 SMs the request leaves");
	ok = runs_at_once(kgs, 1, &c);
	tap_ok(ok && !c.sms && c.stream == (uintptr_t)S1,
	       "protect: reserved: a cooperative launch, which cannot be confined, is not held back by an idle LC");

	lc_slot(b, GSP_PROTECT_PREDICTIVE, mono_ns());
	ok = req_nk(b) == GSP_BOARD_REQ_NK(GSP_BOARD_REQ(60, 1, 0)) &&
	     runs_at_once(kgs, 0, &c);
	tap_ok(ok && c.sms == 72 && c.stream != (uintptr_t)S1,
	       "protect: predictive, an LC reserving: an untransformable kernel runs on the green context");
	ok = !runs_at_once(kgs, 1, &c);
	lc_slot(b, GSP_PROTECT_PREDICTIVE, 0);
	cuCtxSynchronize();
	tap_ok(ok && kgs_launches(&c) == 1 && !c.sms &&
	       c.stream == (uintptr_t)S1,
	       "protect: predictive: a cooperative launch waits while the LC reserves, then runs on its own stream");

	/* reactive: a reserve and a word left standing change nothing. */
	lc_slot(b, GSP_PROTECT_REACTIVE, mono_ns());
	gsp_board_store(&b->dev[0].part_req, GSP_BOARD_REQ(60, 1, 99));
	ok = runs_at_once(kgs, 0, &c);
	tap_ok(ok && !c.sms && c.stream == (uintptr_t)S1,
	       "protect: reactive: with no LC work active, neither a reserve nor a standing word confines the kernel");
	gsp_board_store(&b->lc[5].owner, 0);
	gsp_board_part_update(b, 0);
	cuCtxSynchronize();
	cuModuleUnload(m);
}

/* k1 can be transformed: it reads %ctaid.x. */
static const char k1_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n\n"
	".visible .entry k1(\n\t.param .u32 k1_param_0\n)\n{\n"
	"\t.reg .b32 %r<4>;\n\tld.param.u32 %r1, [k1_param_0];\n"
	"\tmov.u32 %r2, %ctaid.x;\n\tadd.s32 %r3, %r1, %r2;\n\tret;\n}\n";

/* The fake libgsp's log: how many @op records from @from on. */
static unsigned int gsp_ops(int op, unsigned int from)
{
	void *h = fake_gsp();
	unsigned int (*len)(void);
	struct fake_gsp_rec (*get)(unsigned int);
	unsigned int i, n = 0;

	*(void **)&len = h ? dlsym(h, "fake_gsp_len") : NULL;
	*(void **)&get = h ? dlsym(h, "fake_gsp_get") : NULL;
	if (!len || !get)
		return 0;
	for (i = from; i < len(); i++)
		n += get(i).op == op;
	return n;
}

/* Launches of k1's clone in the trace: how many, the first one's job. */
static unsigned int k1_launches(struct gsp_persist_job *first)
{
	unsigned int i, k = 0, n = fake_trace_len();
	struct fake_call x;

	for (i = 0; i < n; i++) {
		fake_trace_get(i, &x);
		if (strncmp(x.name, "cuLaunch", 8) || strcmp(x.fn, "k1__gsp"))
			continue;
		if (!k++)
			memcpy(first, x.job, sizeof(*first));
	}
	return k;
}

static void t_preempt(void)
{
	const char *mode = getenv("FAKE_GSP_PROTECT");
	int on = mode && !strcmp(mode, "preemptive");
	struct gsp_board *b = fake_board();
	void *h = fake_gsp();
	void (*hold)(int);
	struct gsp_persist_job j;
	const volatile uint64_t *ovr = NULL;
	unsigned int submits;
	uint64_t w = 0;
	CUfunction k1;
	CUmodule m;
	int a = 5;
	void *p[] = { &a };

	*(void **)&hold = h ? dlsym(h, "fake_gsp_hold") : NULL;
	if (!b || !hold) {
		tap_ok(0, "preempt: the fake libgsp is loaded and can hold grants");
		return;
	}
	cuCtxSetCurrent(CTX);
	cuModuleLoadData(&m, k1_ptx);
	cuModuleGetFunction(&k1, m, "k1");
	fake_hold(1);		/* the kernel stays in flight */
	fake_trace_reset();
	cuLaunchKernel(k1, 10, 2, 1, 64, 1, 1, 0, S1, p, NULL);
	usleep(30000);
	submits = gsp_ops(FAKE_SUBMIT, 0);
	tap_ok(k1_launches(&j) == 1 && submits == 1 &&
	       !gsp_ops(FAKE_COMPLETE, 0),
	       "preempt: no job waits for the engine: the lease holds on past its quantum (launches %u, SUBMITs %u)",
	       k1_launches(&j), submits);
	{
		const struct gsp_persist_ctl *ctl = (const void *)(uintptr_t)j.ctl;

		ovr = ctl ? (const volatile uint64_t *)(uintptr_t)ctl->ovr_ptr : NULL;
	}
	tap_ok(ovr && !*ovr,
	       "preempt: the job's ctl carries the process's override word, down");
	if (!ovr)
		goto out;

	hold(1);		/* the next grant is withheld */
	gsp_board_store(&b->dev[0].waiting, 1);
	usleep(30000);
	w = *ovr;
	if (on)
		tap_ok(gsp_ops(FAKE_COMPLETE, 0) == 1 &&
		       gsp_ops(FAKE_SUBMIT, 0) == 2 &&
		       GSP_PERSIST_CTRL_N(w) == GSP_PERSIST_MAX_SM &&
		       GSP_PERSIST_CTRL_K(w) == GSP_PERSIST_MAX_K &&
		       k1_launches(&j) == 1,
		       "preempt: a job waits: the lease is COMPLETEd and SUBMITted again, the override asks every slot back meanwhile, nothing is topped up (word %#llx)",
		       (unsigned long long)w);
	else
		tap_ok(!gsp_ops(FAKE_COMPLETE, 0) && !w && k1_launches(&j) == 1,
		       "preempt: under %s a waiting job changes nothing",
		       mode ? mode : "reactive");
	gsp_board_store(&b->dev[0].waiting, 0);
	hold(0);
	usleep(30000);
	if (on)
		tap_ok(!*ovr && k1_launches(&j) == 2,
		       "preempt: granted again: the override is down and the job is topped up (launches %u)",
		       k1_launches(&j));
out:
	fake_hold(0);
	cuCtxSynchronize();
	cuModuleUnload(m);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_protect predict|protect|charge|preempt\n");
		return 2;
	}
	cuInit(0);
	cuCtxSetCurrent(CTX);
	if (!strcmp(argv[1], "predict"))
		t_predict();
	else if (!strcmp(argv[1], "protect"))
		t_protect();
	else if (!strcmp(argv[1], "charge"))
		t_charge();
	else if (!strcmp(argv[1], "preempt"))
		t_preempt();
	else {
		fprintf(stderr, "test_protect: unknown scenario %s\n", argv[1]);
		return 2;
	}
	return tap_done();
}
