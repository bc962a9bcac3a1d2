// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-psim's SIMULATED GPU (libgsp/sim/psim.c) on a board in memory,
 * under ASan and UBSan: each mode's behaviour, as the model's rules say
 * it must be, and the default scenario against the H200 measurements the
 * rules come from (Documentation/spatial.rst, "Simulated partition
 * plane").
 */
#include <math.h>
#include <string.h>

#include "psim.h"
#include "tap.h"

#define US	1000ULL
#define MS	1000000ULL

/* One board for every run, as one arbiter serves them; 4 KiB, off the
 * stack. test_board() checks each run leaves it as it found it.
 */
static struct gsp_board mem;
static struct psim_board pb;

/* A small GPU, so each run is quick: 16 SMs x 4 slots, 64-wave kernels. */
static void small(struct psim_cfg *c)
{
	psim_cfg_default(c);
	c->sms = 16;
	c->slots = 4;
	c->tasks = 64 * 16 * 4;
	c->lc_sms = 16;
	c->part_n = 16;
	c->part_k = 4;
	c->count = 200;
}

static uint64_t task_max(const struct psim_cfg *c)
{
	return c->task_ns + c->task_ns * c->task_jitter_pct / 100;
}

static uint64_t kernel_ns(const struct psim_cfg *c)
{
	return (c->tasks + c->sms * c->slots - 1) / (c->sms * c->slots) *
	       c->task_ns;
}

static struct psim_res run(const struct psim_cfg *c)
{
	struct psim_res r;
	char err[256];

	if (psim_run(c, &pb, &r, err, sizeof(err))) {
		tap_ok(0, "psim_run %s: %s", psim_mode_name(c->mode), err);
		memset(&r, 0, sizeof(r));
	}
	return r;
}

static struct psim_res run_mode(struct psim_cfg c, enum psim_mode m,
				uint32_t n, uint32_t k)
{
	c.mode = m;
	c.part_n = n;
	c.part_k = k;
	return run(&c);
}

static double be_solo(struct psim_cfg c)
{
	c.mode = PSIM_NONE;
	c.lc = 0;
	return run(&c).be_tput;
}

static void diag(const char *what, const struct psim_res *r)
{
	tap_diag("%s: LC p50 %.1f p99 %.1f max %.1f us, drops %llu; BE %.3f M tasks/s; yields %llu, top-ups %llu, reserves %llu",
		 what, r->p50 / 1e3, r->p99 / 1e3, r->max / 1e3,
		 (unsigned long long)r->lc_missed, r->be_tput / 1e6,
		 (unsigned long long)r->yields, (unsigned long long)r->topups,
		 (unsigned long long)r->reserves);
}

static void test_solo(void)
{
	struct psim_cfg c;
	struct psim_res r;
	double ideal;

	small(&c);
	c.be = 0;
	r = run(&c);
	tap_ok(r.lc_n == c.count - c.warmup && r.p50 == c.lc_ns &&
	       r.max == c.lc_ns, "solo: the LC alone takes its solo time, every time");
	c.be = 1;
	c.lc = 0;
	r = run(&c);
	ideal = (double)(c.sms * c.slots) * 1e9 / (double)c.task_ns;
	tap_ok(r.be_tput > 0.97 * ideal && r.be_tput <= 1.01 * ideal,
	       "solo: the BE alone keeps every slot busy (%.3f of N x K / task)",
	       r.be_tput / ideal);
}

static void test_none(void)
{
	struct psim_cfg c;
	struct psim_res r;
	uint64_t kern;

	small(&c);
	kern = kernel_ns(&c);
	r = run_mode(c, PSIM_NONE, 0, 0);
	diag("none", &r);
	tap_ok(r.p50 >= kern - c.period_ns &&
	       r.p50 <= kern + task_max(&c) + c.lc_ns,
	       "none: equal priority, the LC waits for the BE grid: p50 %.2f ms, a kernel %.2f ms",
	       r.p50 / 1e6, kern / 1e6);
	tap_ok(r.lc_missed > 0, "none: releases during the wait are dropped (%llu)",
	       (unsigned long long)r.lc_missed);
	tap_ok(r.launch_in_lc > 0 && !r.yields && !r.reserves,
	       "none: plain kernels, issued while the LC runs (%llu)",
	       (unsigned long long)r.launch_in_lc);
}

static void test_priority(void)
{
	struct psim_cfg c;
	struct psim_res r;

	small(&c);
	r = run_mode(c, PSIM_MPS_PRIORITY, 0, 0);
	diag("mps-priority", &r);
	tap_ok(r.max <= task_max(&c) + c.lc_ns && r.p50 > c.lc_ns,
	       "mps-priority: the LC waits at most one BE task (max %.1f us)",
	       r.max / 1e3);
	tap_ok(!r.lc_missed, "mps-priority: no release dropped");
}

static void test_time(void)
{
	struct psim_cfg c;
	struct psim_res r, n;

	small(&c);
	r = run_mode(c, PSIM_TIME, 0, 0);
	n = run_mode(c, PSIM_NONE, 0, 0);
	diag("time", &r);
	tap_ok(r.gated > 0 && !r.launch_in_lc,
	       "time: no BE kernel issued while the LC runs (%llu launches held)",
	       (unsigned long long)r.gated);
	/*
	 * A running BE kernel is not interrupted, but the LC's blocks go
	 * ahead of its queued ones (the LC runs at the greatest stream
	 * priority): one BE task at most, where none waits for the grid.
	 */
	tap_ok(r.max <= task_max(&c) + c.lc_ns && n.p50 >= kernel_ns(&c) / 2,
	       "time: the LC waits at most one BE task (max %.1f us), not the BE grid as with none (p50 %.2f ms)",
	       r.max / 1e3, n.p50 / 1e6);
	/* one-wave kernels: the LC waits for the one in flight, no more */
	c.tasks = c.sms * c.slots;
	c.gap_ns = 500 * US;
	r = run_mode(c, PSIM_TIME, 0, 0);
	tap_ok(r.gated > 0 && !r.launch_in_lc &&
	       r.max <= task_max(&c) + c.lc_ns,
	       "time: one-wave kernels, the LC waits at most the one in flight (max %.1f us)",
	       r.max / 1e3);
}

static void test_reactive(void)
{
	struct psim_cfg c;
	struct psim_res r;
	double solo, req;

	small(&c);
	solo = be_solo(c);
	r = run_mode(c, PSIM_REACTIVE, c.sms, c.slots);
	diag("reactive N,K", &r);
	tap_ok(r.max <= task_max(&c) + c.lc_ns && r.p50 > c.lc_ns,
	       "reactive: the LC waits at most one BE task (max %.1f us)",
	       r.max / 1e3);
	req = (double)r.req_ns / (double)r.window_ns;
	tap_ok(r.free_occupancy > 0.9 && r.be_tput > (1 - req - 0.1) * solo,
	       "reactive: BE tasks run outside requests (%.3f of slots busy; BE %.2f of solo, asked %.2f of the time)",
	       r.free_occupancy, r.be_tput / solo, req);
	tap_ok(r.yields > 0 && r.topups > 0 && !r.reserves,
	       "reactive: blocks yield, top-ups refill");
	r = run_mode(c, PSIM_REACTIVE, c.sms / 2, c.slots / 2);
	diag("reactive N/2,K/2", &r);
	tap_ok(r.yield_slots == c.sms / 2 * (c.slots / 2),
	       "reactive: only the top k slots of the first n SMs yield (%u)",
	       r.yield_slots);
	tap_ok(r.p50 > 3 * c.lc_ns && !r.lc_unfinished,
	       "reactive: beside BE blocks the LC runs slower (rule 2: p50 %.1f us)",
	       r.p50 / 1e3);
}

static void test_reserved(void)
{
	struct psim_cfg c;
	struct psim_res r;
	double solo;

	small(&c);
	solo = be_solo(c);
	r = run_mode(c, PSIM_RESERVED, c.sms / 2, c.slots);
	diag("reserved N/2,K", &r);
	tap_ok(r.p50 == c.lc_ns * c.lc_sms / (c.sms / 2) &&
	       r.max <= c.lc_ns * c.lc_sms / (c.sms / 2),
	       "reserved: the LC never waits for a task: solo on its n SMs (%.1f us)",
	       r.p50 / 1e3);
	tap_ok(fabs(r.be_tput / solo - (double)(c.sms - c.sms / 2) / c.sms) <
	       0.05, "reserved: BE throughput %.3f of solo, (N - n) / N = %.3f",
	       r.be_tput / solo, (double)(c.sms - c.sms / 2) / c.sms);
	r = run_mode(c, PSIM_RESERVED, c.sms, c.slots);
	tap_ok(r.max == c.lc_ns && r.be_tasks == 0,
	       "reserved N,K: the LC at solo speed, the BE with nothing");
}

static void test_predictive(void)
{
	struct psim_cfg c;
	struct psim_res r, re;
	double solo;

	small(&c);
	solo = be_solo(c);
	r = run_mode(c, PSIM_PREDICTIVE, c.sms, c.slots);
	diag("predictive periodic", &r);
	tap_ok(r.p99 == c.lc_ns && r.max <= c.lc_ns + c.lc_ns / 20,
	       "predictive, periodic: the LC at its solo time after warm-up (p99 %.1f us)",
	       r.p99 / 1e3);
	tap_ok(r.reserves >= c.count - c.warmup - 1 &&
	       r.be_tput > 0.3 * solo,
	       "predictive, periodic: reserved ahead of each arrival (%llu), BE keeps %.2f",
	       (unsigned long long)r.reserves, r.be_tput / solo);
	re = run_mode(c, PSIM_REACTIVE, c.sms, c.slots);
	tap_ok(r.p99 < re.p99 && r.be_tput < re.be_tput,
	       "predictive, periodic: the LC gains, the BE pays, against reactive");

	c.poisson = 1;
	r = run_mode(c, PSIM_PREDICTIVE, c.sms, c.slots);
	re = run_mode(c, PSIM_REACTIVE, c.sms, c.slots);
	diag("predictive poisson", &r);
	tap_ok(!r.reserves && r.p50 == re.p50 && r.p99 == re.p99 &&
	       r.be_tasks == re.be_tasks,
	       "predictive, Poisson: no forecast, the same run as reactive");
}

static void test_preemptive(void)
{
	struct psim_cfg c;
	struct psim_res r;

	small(&c);
	r = run_mode(c, PSIM_PREEMPTIVE, 1, 1);
	diag("preemptive", &r);
	tap_ok(r.yield_slots == c.sms * c.slots &&
	       r.max_held == c.sms * c.slots,
	       "preemptive: every slot yields, the LC gets all %u",
	       r.max_held);
	tap_ok(r.max <= task_max(&c) + c.lc_ns,
	       "preemptive: the LC waits at most one BE task (max %.1f us)",
	       r.max / 1e3);
}

/* The board is left as found, and the runs are repeatable. */
static void test_board(void)
{
	struct psim_cfg c;
	struct psim_res a, b;
	int m, clean = 1, same = 1;

	small(&c);
	c.count = 40;
	for (m = 0; m < PSIM_MODE_COUNT; m++) {
		a = run_mode(c, m, c.sms / 2, c.slots);
		b = run_mode(c, m, c.sms / 2, c.slots);
		same &= !memcmp(&a, &b, sizeof(a));
		clean &= !mem.lc[0].inflight && !mem.lc[0].reserve &&
			 GSP_BOARD_REQ_NK(mem.dev[0].part_req) ==
			 (m == PSIM_RESERVED ?
			  GSP_BOARD_REQ_NK(GSP_BOARD_REQ(c.sms / 2, c.slots, 0)) :
			  0);
	}
	tap_ok(same, "every mode: the same run twice, the same results");
	tap_ok(clean, "every mode: the LC's slot back to idle after a run, the word the rule's");
	c.warmup = c.count;
	tap_ok(psim_run(&c, &pb, &a, (char[64]){ 0 }, 64) == -1,
	       "a warm-up of every arrival is refused");
}

/*
 * The default scenario against the H200 under MPS: LC p50 13.3 ms beside
 * 14 ms BE kernels at equal priority, 319 us (p99 357 us) at a higher
 * priority; an LC kernel beside BE blocks on every SM 1.2 ms.
 */
static void test_measured(void)
{
	struct psim_cfg c;
	struct psim_res r;

	psim_cfg_default(&c);
	c.count = 100;
	r = run_mode(c, PSIM_NONE, 0, 0);
	tap_ok(fabs(r.p50 / 13.3e6 - 1) < 0.15,
	       "measured: none, p50 %.2f ms against 13.3 ms", r.p50 / 1e6);
	r = run_mode(c, PSIM_MPS_PRIORITY, 0, 0);
	tap_ok(fabs(r.p50 / 319e3 - 1) < 0.25 && fabs(r.p99 / 357e3 - 1) < 0.25,
	       "measured: mps-priority, p50 %.0f p99 %.0f us against 319 and 357",
	       r.p50 / 1e3, r.p99 / 1e3);
	r = run_mode(c, PSIM_REACTIVE, c.sms, 2);
	tap_ok(fabs(r.p50 / 1.2e6 - 1) < 0.1,
	       "measured: LC beside 6 BE blocks per SM, p50 %.2f ms against 1.2 ms",
	       r.p50 / 1e6);
}

int main(void)
{
	psim_board_mem(&pb, &mem);
	test_solo();
	test_none();
	test_priority();
	test_time();
	test_reactive();
	test_reserved();
	test_predictive();
	test_preemptive();
	test_board();
	test_measured();
	return tap_done();
}
