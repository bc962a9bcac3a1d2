// SPDX-License-Identifier: GPL-2.0
/*
 * The Prophet predictor (libgsp/admit) against the worked examples of
 * the seed digest (fluid kernels, sequential kernels, processor sharing
 * of BS copies, BE priority), the solo replay of a trace (claim C1),
 * admission on synthetic pairs whose answer is computed by hand, and
 * the trace reader's refusals. TAP on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prophet.h"
#include "tap.h"

#define MS	1e6

static const char head[] = "# gsp-trace 1\n"
	"seq,query,type,submit_ns,gap_ns,dur_ns,grid,threads,regs,smem,dram_Bps,bytes,pinned,name\n";

/* The digest's K40-like machine: 15 SMs, GB = 200 GB/s. */
static const struct gsp_hw k40 = { 15, 64, 16, 65536, 49152, 200e9, 0, 0 };
/* An H100-like one. */
static const struct gsp_hw h100 = { 132, 64, 32, 65536, 233472, 3e12,
				    50e9, 50e9 };

static int near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want) + 1e-3;
}

/* A trace from @rows (the lines after the header). */
static int parse(const struct gsp_hw *hw, const char *rows,
		 struct gsp_trace *t, char *err, size_t errlen)
{
	size_t n = strlen(head) + strlen(rows);
	char *buf = malloc(n + 1);
	FILE *f;
	int rc;

	if (!buf)
		return -ENOMEM;
	strcpy(buf, head);
	strcat(buf, rows);
	f = fmemopen(buf, n, "r");
	if (!f) {
		free(buf);
		return -errno;
	}
	rc = gsp_trace_read(f, "mem.csv", hw, t, err, errlen);
	fclose(f);
	free(buf);
	return rc;
}

static void must_parse(const struct gsp_hw *hw, const char *rows,
		       struct gsp_trace *t)
{
	char err[256] = "";

	if (parse(hw, rows, t, err, sizeof(err))) {
		fprintf(stderr, "test trace refused: %s\n", err);
		exit(2);
	}
}

/* The end of each task of each app, for the first few. */
struct ends {
	double end[4][16];
};

static void record(void *arg, unsigned int app, size_t task, double ready,
		   double end)
{
	struct ends *e = arg;

	(void)ready;
	if (app < 4 && task < 16)
		e->end[app][task] = end;
}

static void test_occupancy(void)
{
	tap_ok(gsp_occupancy(&h100, 256, 32, 0) == 8,
	       "occupancy: 256 threads, 32 regs: 8 blocks (warps and registers)");
	tap_ok(gsp_occupancy(&h100, 256, 33, 0) == 6,
	       "occupancy: 33 regs round up to 1280 a warp: 6 blocks, not 7");
	tap_ok(gsp_occupancy(&h100, 256, 0, 46080) == 4,
	       "occupancy: 45 KiB of shared memory + 1 KiB reserved: 4 blocks, not 5");
	tap_ok(gsp_occupancy(&h100, 32, 0, 0) == 32,
	       "occupancy: one warp a block: the 32-block limit");
	tap_ok(gsp_occupancy(&h100, 2080, 0, 0) == 0,
	       "occupancy: 65 warps a block do not fit");
}

/*
 * Digest section 3.3: A (10 ms, 90 blocks of 8 warps, 4 a SM, 10 GB/s
 * per SM) at 0 and B (3 ms, 56 blocks, 8 a SM, 20 GB/s per SM on 7 SMs)
 * at 2 ms.
 */
static const char trace_a[] =
	"0,0,kernel,0,0,10000000,90,256,64,0,150000000000,0,0,A\n";
static const char trace_b[] =
	"0,0,kernel,0,0,3000000,56,256,32,0,140000000000,0,0,B\n";

static void test_worked_kernels(void)
{
	struct gsp_trace a, b;
	struct gsp_prophet_app apps[2] = {
		{ .trace = &a }, { .trace = &b, .offset_ns = 2 * MS },
	};
	struct gsp_prophet_cfg cfg = { .model = GSP_PROPHET_FLUID };
	struct gsp_prophet_result r;
	struct ends e = { 0 };
	int rc;

	must_parse(&k40, trace_a, &a);
	must_parse(&k40, trace_b, &b);
	tap_ok(a.task[0].blocks_per_sm == 4 && a.task[0].pes == 15 &&
	       b.task[0].blocks_per_sm == 8 && b.task[0].pes == 7,
	       "3.3: A has 4 blocks a SM on 15 SMs, B 8 on 7 (got %u/%u, %u/%u)",
	       a.task[0].blocks_per_sm, a.task[0].pes,
	       b.task[0].blocks_per_sm, b.task[0].pes);

	rc = gsp_prophet_run(&k40, apps, 2, &cfg, &r, record, &e);
	tap_ok(!rc && near(e.end[1][0], 8.3 * MS, 1e-6),
	       "3.3 fluid: B ends at 8.3 ms (PE-aware calibration; got %.4f)",
	       e.end[1][0] / MS);
	tap_ok(!rc && near(e.end[0][0], 10.3 * MS, 1e-6),
	       "3.3 fluid: A ends at 10.30 ms (got %.4f)", e.end[0][0] / MS);
	tap_ok(!rc && near(r.lat_ns[0], 10.3 * MS, 1e-6),
	       "3.3 fluid: app 0's query latency is A's end");
	if (!rc)
		gsp_prophet_result_free(&r);

	cfg.model = GSP_PROPHET_SEQUENTIAL;
	memset(&e, 0, sizeof(e));
	rc = gsp_prophet_run(&k40, apps, 2, &cfg, &r, record, &e);
	tap_ok(!rc && near(e.end[1][0], 13 * MS, 1e-9) &&
	       near(e.end[0][0], 10 * MS, 1e-9),
	       "3.3 sequential: A ends at 10 ms, B waits for it and ends at 13 ms (got %.4f, %.4f)",
	       e.end[0][0] / MS, e.end[1][0] / MS);
	if (!rc)
		gsp_prophet_result_free(&r);

	/* An SM cap on B: it runs on at most 4 SMs, so in 2 waves. */
	cfg.model = GSP_PROPHET_FLUID;
	apps[1].max_pes = 4;
	memset(&e, 0, sizeof(e));
	rc = gsp_prophet_run(&k40, apps, 2, &cfg, &r, record, &e);
	/* 5..8.3: A 8 SMs, B 4 (s = 160/200 = 1); A's last wave ends at
	 * 10; B's second wave (3 SMs) runs 8..11 */
	tap_ok(!rc && near(e.end[1][0], 11 * MS, 1e-6) &&
	       near(e.end[0][0], 10 * MS, 1e-6),
	       "3.3 with B capped at 4 SMs: B ends at 11 ms in 2 waves, A at 10 (got %.4f, %.4f)",
	       e.end[1][0] / MS, e.end[0][0] / MS);
	if (!rc)
		gsp_prophet_result_free(&r);
	cfg.model = GSP_PROPHET_SEQUENTIAL;
	tap_ok(gsp_prophet_run(&k40, apps, 2, &cfg, &r, NULL, NULL) == -EINVAL,
	       "an SM cap with the sequential model is refused");
	gsp_trace_free(&a);
	gsp_trace_free(&b);
}

/* One copy of @ms ms, h2d or d2h, pinned or not. */
static void copy_trace(struct gsp_trace *t, const char *dir, double ms,
		       int pinned)
{
	char row[256];

	snprintf(row, sizeof(row), "0,0,%s,0,0,%.0f,0,0,0,0,0,4096,%d,%s\n",
		 dir, ms * MS, pinned, dir);
	must_parse(&k40, row, t);
}

/* Digest section 3.4: processor sharing, and the BE unified rule. */
static void test_worked_copies(void)
{
	struct gsp_trace d, d1, d2, e4, e3, ed;
	struct gsp_prophet_app apps[3] = { { 0 } };
	struct gsp_prophet_result r;
	struct ends e = { 0 };
	int rc;

	/* d1 (4) and d2 (10) from 0 share; at 4 they have 2 and 8 left
	 * and d (5) joins: the digest's T = 4 */
	copy_trace(&d, "h2d", 5, 0);
	copy_trace(&d1, "h2d", 4, 0);
	copy_trace(&d2, "h2d", 10, 0);
	apps[0] = (struct gsp_prophet_app){ .trace = &d, .offset_ns = 4 * MS };
	apps[1] = (struct gsp_prophet_app){ .trace = &d1 };
	apps[2] = (struct gsp_prophet_app){ .trace = &d2 };
	rc = gsp_prophet_run(&k40, apps, 3, NULL, &r, record, &e);
	tap_ok(!rc && near(e.end[1][0] - 4 * MS, 6 * MS, 1e-9) &&
	       near(e.end[0][0] - 4 * MS, 12 * MS, 1e-9) &&
	       near(e.end[2][0] - 4 * MS, 15 * MS, 1e-9),
	       "3.4 PS: d1 at 6, d at 12, d2 at 15 ms after d arrives (got %.3f, %.3f, %.3f)",
	       e.end[1][0] / MS - 4, e.end[0][0] / MS - 4,
	       e.end[2][0] / MS - 4);
	if (!rc)
		gsp_prophet_result_free(&r);
	gsp_trace_free(&d);
	gsp_trace_free(&d1);
	gsp_trace_free(&d2);

	/* BS d1 (4) at 0, BE e (3) at 1: e ends at 4, d1 at 7 */
	copy_trace(&d1, "h2d", 4, 0);
	copy_trace(&e3, "h2d", 3, 1);
	copy_trace(&d2, "h2d", 2, 0);
	apps[0] = (struct gsp_prophet_app){ .trace = &d1 };
	apps[1] = (struct gsp_prophet_app){ .trace = &e3, .offset_ns = 1 * MS };
	memset(&e, 0, sizeof(e));
	rc = gsp_prophet_run(&k40, apps, 2, NULL, &r, record, &e);
	tap_ok(!rc && near(e.end[1][0], 4 * MS, 1e-9) &&
	       near(e.end[0][0], 7 * MS, 1e-9),
	       "3.4 BE: e ends at 4, the paused d1 moves from 4 to 7 ms (got %.3f, %.3f)",
	       e.end[1][0] / MS, e.end[0][0] / MS);
	if (!rc)
		gsp_prophet_result_free(&r);

	/* ... and BS d2 (2) at 2 waits for e, then shares with d1 */
	apps[2] = (struct gsp_prophet_app){ .trace = &d2, .offset_ns = 2 * MS };
	memset(&e, 0, sizeof(e));
	rc = gsp_prophet_run(&k40, apps, 3, NULL, &r, record, &e);
	tap_ok(!rc && near(e.end[1][0], 4 * MS, 1e-9) &&
	       near(e.end[2][0], 8 * MS, 1e-9) &&
	       near(e.end[0][0], 9 * MS, 1e-9),
	       "3.4 BE: with d2 at 2: e at 4, d2 at 8, d1 at 9 ms (got %.3f, %.3f, %.3f)",
	       e.end[1][0] / MS, e.end[2][0] / MS, e.end[0][0] / MS);
	if (!rc)
		gsp_prophet_result_free(&r);

	/* BE copies queue in order: e (3) at 1, e4 (4) at 2 starts at 4 */
	copy_trace(&e4, "h2d", 4, 1);
	apps[2] = (struct gsp_prophet_app){ .trace = &e4, .offset_ns = 2 * MS };
	memset(&e, 0, sizeof(e));
	rc = gsp_prophet_run(&k40, apps, 3, NULL, &r, record, &e);
	tap_ok(!rc && near(e.end[2][0], 8 * MS, 1e-9) &&
	       near(e.end[0][0], 11 * MS, 1e-9),
	       "3.4 BE queue (Eq. 9): e4 runs 4..8 after e, d1 ends at 11 ms (got %.3f, %.3f)",
	       e.end[2][0] / MS, e.end[0][0] / MS);
	if (!rc)
		gsp_prophet_result_free(&r);

	/* The other direction is another channel: no pause */
	copy_trace(&ed, "d2h", 3, 1);
	apps[1] = (struct gsp_prophet_app){ .trace = &ed, .offset_ns = 1 * MS };
	memset(&e, 0, sizeof(e));
	rc = gsp_prophet_run(&k40, apps, 2, NULL, &r, record, &e);
	tap_ok(!rc && near(e.end[0][0], 4 * MS, 1e-9),
	       "a pinned d2h does not pause an h2d: d1 ends at 4 ms (got %.3f)",
	       e.end[0][0] / MS);
	if (!rc)
		gsp_prophet_result_free(&r);
	gsp_trace_free(&d1);
	gsp_trace_free(&d2);
	gsp_trace_free(&e3);
	gsp_trace_free(&e4);
	gsp_trace_free(&ed);
}

/*
 * Three queries: a kernel over DRAM bandwidth in its own solo run (3 full
 * waves and a partial one), copies of both kinds, a query that arrives
 * while the GPU is idle, one that arrives before its predecessor ends.
 */
static const char trace_c1[] =
	"0,0,kernel,0,0,400000,3500,256,32,0,4500000000000,0,0,k0\n"
	"1,0,d2h,10000,3000,50000,0,0,0,0,0,65536,0,d2h\n"
	"2,1,h2d,1000000,550000,20000,0,0,0,0,0,65536,1,h2d\n"
	"3,1,kernel,1001000,2000,80000,100,1024,64,0,1000000000000,0,0,k1\n"
	"4,1,kernel,1002000,1000,300000,5000,128,16,0,2000000000000,0,0,k2\n"
	"5,3,kernel,1100000,5000,10000,64,256,32,0,0,0,0,k3\n"
	"6,3,d2h,1101000,1000,7000,0,0,0,0,0,4096,1,d2h\n";

static void test_solo_replay(void)
{
	struct gsp_trace t;
	struct gsp_prophet_app app = { 0 };
	struct gsp_prophet_cfg cfg = { .model = GSP_PROPHET_FLUID };
	struct gsp_prophet_result r;
	int rc, ok;
	size_t q;

	must_parse(&h100, trace_c1, &t);
	tap_ok(t.nqueries == 3 && t.query[2].first == 5 &&
	       t.query[1].host_ns == 3000 && t.query[2].host_ns == 5000 &&
	       t.query[1].solo_ns == 406000 && t.query[2].solo_ns == 23000,
	       "the trace's queries: 3 (query 2 is empty), host times and solo latencies as computed by hand");
	app.trace = &t;
	for (cfg.model = GSP_PROPHET_FLUID; cfg.model <= GSP_PROPHET_SEQUENTIAL;
	     cfg.model++) {
		const char *name = cfg.model ? "sequential" : "fluid";

		rc = gsp_prophet_run(&h100, &app, 1, &cfg, &r, NULL, NULL);
		ok = !rc && r.nq == 3;
		for (q = 0; ok && q < 3; q++) {
			ok = near(r.lat_ns[q], t.query[q].solo_ns, 1e-3);
			if (!ok)
				tap_diag("query %zu: %.1f ns, solo %.1f", q,
					 r.lat_ns[q], t.query[q].solo_ns);
		}
		tap_ok(ok, "C1 %s: the solo replay gives each query's own latency within 0.1 %%",
		       name);
		tap_ok(!rc && near(r.end_ns, t.solo_end_ns, 1e-3),
		       "C1 %s: the replay ends with the trace (%.0f, %.0f ns)",
		       name, rc ? 0 : r.end_ns, t.solo_end_ns);
		if (!rc)
			gsp_prophet_result_free(&r);
	}
	gsp_trace_free(&t);
}

/*
 * fluid2's host time per query (MPS's synchronisation, missing from a
 * trace taken without MPS): 3 queries of one 1 ms copy, arriving at 0,
 * 1.2 and 5 ms, with 0.5 ms a query. Query 0 ends at 1 + 0.5; query 1,
 * arrived at 1.2, is ready only then, so its copy runs 1.5..2.5 and it
 * ends at 3; query 2 runs 5..6 and ends at 6.5: 1.5 ms each. The fluid
 * model ignores the field: 1 ms each, query 1's copy at 1.2..2.2.
 */
static const char trace_q[] =
	"0,0,h2d,0,0,1000000,0,0,0,0,0,4096,0,h2d\n"
	"1,1,h2d,1200000,200000,1000000,0,0,0,0,0,4096,0,h2d\n"
	"2,2,h2d,5000000,2800000,1000000,0,0,0,0,0,4096,0,h2d\n";

static void test_fluid2_query(void)
{
	struct gsp_trace t;
	struct gsp_prophet_app app = { 0 };
	struct gsp_prophet_cfg cfg = { .model = GSP_PROPHET_FLUID2,
				       .query_ns = 0.5 * MS };
	struct gsp_prophet_result r;
	struct ends e = { 0 };
	int rc;

	must_parse(&k40, trace_q, &t);
	app.trace = &t;
	rc = gsp_prophet_run(&k40, &app, 1, &cfg, &r, record, &e);
	tap_ok(!rc && near(r.lat_ns[0], 1.5 * MS, 1e-9) &&
	       near(r.lat_ns[1], 1.5 * MS, 1e-9) &&
	       near(r.lat_ns[2], 1.5 * MS, 1e-9) && near(r.lc_mean_ns, 1.5 * MS, 1e-9),
	       "fluid2: 0.5 ms a query on 1 ms queries: 1.5 ms each (got %.3f, %.3f, %.3f)",
	       rc ? 0 : r.lat_ns[0] / MS, rc ? 0 : r.lat_ns[1] / MS,
	       rc ? 0 : r.lat_ns[2] / MS);
	tap_ok(!rc && near(e.end[0][1], 2.5 * MS, 1e-9),
	       "fluid2: the next query waits for the host time: query 1's copy ends at 2.5 ms (got %.3f)",
	       e.end[0][1] / MS);
	if (!rc)
		gsp_prophet_result_free(&r);

	cfg.model = GSP_PROPHET_FLUID;
	memset(&e, 0, sizeof(e));
	rc = gsp_prophet_run(&k40, &app, 1, &cfg, &r, record, &e);
	tap_ok(!rc && near(r.lc_mean_ns, 1 * MS, 1e-9) &&
	       near(e.end[0][1], 2.2 * MS, 1e-9),
	       "fluid ignores query_ns: 1 ms each, query 1's copy ends at 2.2 ms");
	if (!rc)
		gsp_prophet_result_free(&r);

	cfg.model = GSP_PROPHET_FLUID2;
	cfg.query_ns = -1;
	tap_ok(gsp_prophet_run(&k40, &app, 1, &cfg, &r, NULL, NULL) == -EINVAL,
	       "fluid2: a negative query_ns is refused");
	gsp_trace_free(&t);
}

/*
 * LC: 10 queries, each one 1 ms pageable copy, every 10 ms. BE: one
 * 100 ms pageable copy, looped. With k BE instances always sharing the
 * channel, each LC copy takes (k + 1) ms.
 */
static void test_admit_copies(void)
{
	struct gsp_trace lc, be;
	struct gsp_prophet_target tg = { 2, 0, 0 };
	struct gsp_prophet_admission ad;
	char rows[2048];
	size_t n = 0;
	unsigned int q, k;
	int rc, ok;

	for (q = 0; q < 10; q++)
		n += snprintf(rows + n, sizeof(rows) - n,
			      "%u,%u,h2d,%u,%u,1000000,0,0,0,0,0,4096,0,h2d\n",
			      q, q, q * 10000000, q ? 9000000 : 0);
	must_parse(&k40, rows, &lc);
	copy_trace(&be, "h2d", 100, 0);

	rc = gsp_prophet_admit(&k40, &lc, &be, 8, &tg, NULL, &ad);
	ok = !rc;
	for (k = 0; ok && k <= 8; k++)
		ok = near(ad.lc_mean_ns[k], (k + 1) * MS, 1e-9);
	tap_ok(ok, "admit: k BE copies make each 1 ms LC copy (k + 1) ms");
	tap_ok(!rc && ad.k == 1 && near(ad.target_ns, 2 * MS, 1e-9) &&
	       ad.ok[1] && !ad.ok[2],
	       "admit q = 2: k = 1 (got %d)", ad.k);
	tg.q = 3.5;
	rc = gsp_prophet_admit(&k40, &lc, &be, 8, &tg, NULL, &ad);
	tap_ok(!rc && ad.k == 2, "admit q = 3.5: k = 2 (got %d)", ad.k);
	tg.target_ns = 4.5 * MS;
	rc = gsp_prophet_admit(&k40, &lc, &be, 8, &tg, NULL, &ad);
	tap_ok(!rc && ad.k == 3,
	       "admit target 4500 us (q ignored): k = 3 (got %d)", ad.k);
	tg = (struct gsp_prophet_target){ 10, 0, 2.5 * MS };
	rc = gsp_prophet_admit(&k40, &lc, &be, 8, &tg, NULL, &ad);
	tap_ok(!rc && ad.k == 1 && near(ad.target_ns, 2.5 * MS, 1e-9),
	       "admit q = 10 capped at 2.5 ms: k = 1 (got %d)", ad.k);
	tg = (struct gsp_prophet_target){ 0.5, 0, 0 };
	rc = gsp_prophet_admit(&k40, &lc, &be, 8, &tg, NULL, &ad);
	tap_ok(!rc && ad.k == -1 && !ad.ok[0],
	       "admit q = 0.5: not even k = 0 (got %d)", ad.k);
	gsp_trace_free(&lc);
	gsp_trace_free(&be);
}

/*
 * On 15 SMs: the LC runs a 1 ms kernel of 5 one-block-a-SM blocks every
 * 10 ms; the BE a 10 ms kernel of 1500 such blocks (100 waves). The BE
 * kernel, submitted first, keeps every SM it frees (Obs. 3), so an LC
 * kernel waits for its last wave; capped at 5 SMs, one BE instance
 * leaves the LC its 5 SMs, two take 10 and the LC still fits, three do
 * not leave it any.
 */
static void test_admit_kernels(void)
{
	struct gsp_trace lc, be;
	struct gsp_prophet_target tg = { 2, 0, 0 };
	struct gsp_prophet_cfg cfg = { .model = GSP_PROPHET_FLUID };
	struct gsp_prophet_admission ad;
	char rows[2048];
	size_t n = 0;
	unsigned int q;
	int rc;

	for (q = 0; q < 10; q++)
		n += snprintf(rows + n, sizeof(rows) - n,
			      "%u,%u,kernel,%u,%u,1000000,5,1024,64,0,0,0,0,lc\n",
			      q, q, q * 10000000, q ? 9000000 : 0);
	must_parse(&k40, rows, &lc);
	must_parse(&k40, "0,0,kernel,0,0,10000000,1500,1024,64,0,0,0,0,be\n",
		   &be);
	rc = gsp_prophet_admit(&k40, &lc, &be, 4, &tg, &cfg, &ad);
	tap_ok(!rc && ad.k == 0 && ad.lc_mean_ns[1] > 2 * MS,
	       "admit, whole GPU: an LC kernel waits behind the BE kernel's waves, k = 0 (got %d, %.1f ms at k = 1)",
	       ad.k, ad.lc_mean_ns[1] / MS);
	cfg.be_pes = 5;
	rc = gsp_prophet_admit(&k40, &lc, &be, 4, &tg, &cfg, &ad);
	tap_ok(!rc && ad.k == 2 && near(ad.lc_mean_ns[2], 1 * MS, 1e-9) &&
	       !ad.ok[3],
	       "admit, BE capped at 5 SMs: k = 2 at solo latency, not 3 (got %d)",
	       ad.k);
	tap_ok(!rc && ad.be_tasks_per_s[2] > 1.9 * ad.be_tasks_per_s[1],
	       "BE throughput doubles from k = 1 to 2 (%.2f, %.2f tasks/s)",
	       ad.be_tasks_per_s[1], ad.be_tasks_per_s[2]);
	gsp_trace_free(&lc);
	gsp_trace_free(&be);
}

struct bad {
	const char *text;	/* the whole file */
	const char *want;	/* in the message */
};

#define H1 "# gsp-trace 1\n"
#define H2 "seq,query,type,submit_ns,gap_ns,dur_ns,grid,threads,regs,smem,dram_Bps,bytes,pinned,name\n"

static const struct bad bad_traces[] = {
	{ "", "line 1: the file ends before its first line" },
	{ "# gsp-trace 2\n" H2, "line 1: the first line is not" },
	{ H1 "seq,query,type\n", "line 2: the header line is not" },
	{ H1 H2, "no task after the header" },
	{ H1 H2 "0,0,kernel,0,0,1000,10,256,32,0,1000,0,0\n",
	  "line 3: fewer fields where 14" },
	{ H1 H2 "0,0,kernel,0,0,1000,10,256,32,0,1000,0,0,k,x\n",
	  "line 3: more fields where 14" },
	{ H1 H2 "0,0,kernel,0,0,1e3,10,256,32,0,1000,0,0,k\n",
	  "line 3: dur_ns ('1e3') is not an integer" },
	{ H1 H2 "0,0,kernel,0,-5,1000,10,256,32,0,1000,0,0,k\n",
	  "line 3: gap_ns ('-5') is negative" },
	{ H1 H2 "0,0,kernel,0,0,1000,4294967296,256,32,0,1000,0,0,k\n",
	  "line 3: grid ('4294967296') is over 4294967295" },
	{ H1 H2 "0,0,kernel,0,0,18446744073709551616,1,256,32,0,1000,0,0,k\n",
	  "line 3: dur_ns ('18446744073709551616') is over" },
	{ H1 H2 "0,0,memset,0,0,1000,10,256,32,0,1000,0,0,k\n",
	  "line 3: unknown type 'memset'" },
	{ H1 H2 "0,0,kernel,0,0,1000,10,256,32,0,nan,0,0,k\n",
	  "line 3: dram_Bps ('nan') is not a number" },
	{ H1 H2 "0,0,kernel,0,0,1000,10,256,32,0,-1.5,0,0,k\n",
	  "line 3: dram_Bps ('-1.5') is negative" },
	{ H1 H2 "0,0,kernel,0,0,1000,10,256,32,0,1e999,0,0,k\n",
	  "line 3: dram_Bps ('1e999') is out of range" },
	{ H1 H2 "0,0,h2d,0,0,1000,0,0,0,0,0,64,2,h2d\n",
	  "line 3: pinned ('2') is over 1" },
	{ H1 H2 "0,0,h2d,0,0,1000,1,0,0,0,0,64,0,h2d\n",
	  "line 3: a copy with grid" },
	{ H1 H2 "0,0,h2d,0,0,1000,0,0,0,0,0,64,0,d2h\n",
	  "line 3: a h2d copy named 'd2h'" },
	{ H1 H2 "0,0,kernel,0,0,1000,10,4096,32,0,1000,0,0,k\n",
	  "line 3: a block of 4096 threads" },
	{ H1 H2 "0,0,kernel,0,0,1000,0,256,32,0,1000,0,0,k\n",
	  "line 3: a kernel of 0 blocks" },
	{ H1 H2 "0,0,kernel,5,0,1000,10,256,32,0,1000,0,0,k\n",
	  "line 3: the first row's submit_ns" },
	{ H1 H2 "0,0,kernel,0,0,1000,10,256,32,0,1000,0,0,k\n"
	  "2,0,kernel,0,0,1000,10,256,32,0,1000,0,0,k\n",
	  "line 4: seq is 2 where 1 is expected" },
	{ H1 H2 "0,1,kernel,0,0,1000,10,256,32,0,1000,0,0,k\n"
	  "1,0,kernel,0,0,1000,10,256,32,0,1000,0,0,k\n",
	  "line 4: query goes back from 1 to 0" },
	{ H1 H2 "0,0,kernel,0,0,1000,10,256,32,0,1000,0,0,\n",
	  "line 3: name is empty" },
	{ H1 H2 "0,0,kernel,0,0,18446744073709551615,10,256,32,0,1000,0,0,k\n"
	  "1,0,kernel,0,0,1000,10,256,32,0,1000,0,0,k\n",
	  "mem.csv: the solo timeline overflows" },
};

#define HWH "sms,max_warps_per_sm,max_blocks_per_sm,regs_per_sm,smem_per_sm,dram_Bps,h2d_Bps,d2h_Bps\n"

static const struct bad bad_hws[] = {
	{ "sms,warps\n132,64\n", "line 1: the header line is not" },
	{ HWH, "no line of values" },
	{ HWH "132,64,32,65536,233472,3e12,5e10\n", "fewer fields where 8" },
	{ HWH "0,64,32,65536,233472,3e12,5e10,5e10\n", "line 2: sms is 0" },
	{ HWH "132,64,32,65536,233472,0,5e10,5e10\n", "dram_Bps is 0" },
	{ HWH "132,64,32,65536,233472,x,5e10,5e10\n",
	  "dram_Bps ('x') is not a number" },
	{ HWH "132,64,32,65536,233472,3e12,5e10,5e10\n"
	  "132,64,32,65536,233472,3e12,5e10,5e10\n",
	  "line 3: a second line of values" },
};

static void test_refusals(void)
{
	struct gsp_trace t;
	struct gsp_hw hw;
	char err[512];
	unsigned int i;
	size_t n;
	int rc;
	FILE *f;

	for (i = 0; i < sizeof(bad_traces) / sizeof(bad_traces[0]); i++) {
		const struct bad *b = &bad_traces[i];

		err[0] = 0;
		n = strlen(b->text);
		f = fmemopen((void *)b->text, n ? n : 1, "r");
		if (!n && f)
			fseek(f, 0, SEEK_END);	/* an empty stream */
		rc = f ? gsp_trace_read(f, "mem.csv", &k40, &t, err,
					sizeof(err)) : -errno;
		if (f)
			fclose(f);
		tap_ok(rc == -EINVAL && strstr(err, b->want) &&
		       !strncmp(err, "mem.csv", 7) && !t.task && !t.query,
		       "trace refused: %s", b->want);
		if (rc != -EINVAL || !strstr(err, b->want))
			tap_diag("rc %d, message '%s'", rc, err);
		if (!rc)
			gsp_trace_free(&t);
	}
	for (i = 0; i < sizeof(bad_hws) / sizeof(bad_hws[0]); i++) {
		const struct bad *b = &bad_hws[i];

		err[0] = 0;
		f = fmemopen((void *)b->text, strlen(b->text), "r");
		rc = f ? gsp_hw_read(f, "hw.csv", &hw, err, sizeof(err)) :
			 -errno;
		if (f)
			fclose(f);
		tap_ok(rc == -EINVAL && strstr(err, b->want) &&
		       !strncmp(err, "hw.csv", 6),
		       "hw refused: %s", b->want);
		if (rc != -EINVAL || !strstr(err, b->want))
			tap_diag("rc %d, message '%s'", rc, err);
	}
	rc = gsp_trace_load("/nonexistent/lc.csv", &k40, &t, err, sizeof(err));
	tap_ok(rc == -ENOENT && strstr(err, "/nonexistent/lc.csv"),
	       "a missing trace file: -ENOENT and its name");
	rc = parse(&k40, "0,0,kernel,0,0,1000,10,256,32,0,1000,0,0,k\r\n\r\n"
		   "1,0,h2d,5,0,10,0,0,0,0,0,8,1,h2d\n", &t, err, sizeof(err));
	tap_ok(!rc && t.ntasks == 2 && t.task[1].pinned,
	       "CRLF line ends and a blank line are accepted");
	if (!rc)
		gsp_trace_free(&t);
}

int main(void)
{
	test_occupancy();
	test_worked_kernels();
	test_worked_copies();
	test_solo_replay();
	test_fluid2_query();
	test_admit_copies();
	test_admit_kernels();
	test_refusals();
	return tap_done();
}
