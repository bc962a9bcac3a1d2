// SPDX-License-Identifier: GPL-2.0
/*
 * The gsp-trace rows (libgsp/trace/trace_rows.c) under ASan and UBSan,
 * from made-up records: an LC-like program of three requests (copy up,
 * two kernels, copy down, a stream sync each) whose records arrive out of
 * order, then each rule on its own: nested syncs, empty intervals, gap
 * clamping, unmatched tasks, the copy classes, name sanitising, and the
 * CSV text itself.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_rows.h"
#include "tap.h"

static struct trace_task kern(uint64_t start, uint64_t end, uint32_t corr,
			      const char *name)
{
	return (struct trace_task){ .start = start, .end = end, .corr = corr,
		.name = name, .type = TRACE_KERNEL, .grid = 132 * 4,
		.threads = 256, .regs = 32, .smem = 1024 };
}

static struct trace_task copy(enum trace_mem src, enum trace_mem dst,
			      uint64_t start, uint64_t end, uint32_t corr)
{
	struct trace_task t;

	if (trace_copy_task(&t, src, dst, 4096, start, end, corr)) {
		tap_diag("copy %d -> %d refused", src, dst);
		exit(1);
	}
	return t;
}

static struct trace_api api(uint64_t start, uint64_t end, uint32_t corr,
			    uint32_t tid, int sync)
{
	return (struct trace_api){ .start = start, .end = end, .corr = corr,
		.tid = tid, .sync = sync };
}

/* The CSV of @n rows, as a string to free. */
static char *csv(const struct trace_row *rows, size_t n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f || trace_write_csv(f, rows, n) || fclose(f)) {
		tap_diag("trace_write_csv failed");
		exit(1);
	}
	return s;
}

/*
 * Three requests, 1000 ns apart on the host; each: H2D (pinned), kernel
 * a, kernel b, D2H (pageable), then cudaStreamSynchronize (runtime, with
 * the driver call nested inside it). Records shuffled.
 */
static void test_requests(void)
{
	struct trace_task t[12];
	struct trace_api a[12 + 6];
	struct trace_row r[12];
	struct trace_stats st;
	size_t nt = 0, na = 0;
	int ok;

	for (int q = 0; q < 3; q++) {
		uint64_t h = 10000 + 1000 * q, d = 50000 + 1000 * q;
		uint32_t c = 100 * (q + 1);

		a[na++] = api(h, h + 10, c, 1, 0);
		a[na++] = api(h + 20, h + 30, c + 1, 1, 0);
		a[na++] = api(h + 40, h + 50, c + 2, 1, 0);
		a[na++] = api(h + 60, h + 70, c + 3, 1, 0);
		/* the sync returns when the D2H is done, on the host clock */
		a[na++] = api(h + 80, h + 900, c + 4, 1, 1);
		a[na++] = api(h + 85, h + 890, c + 5, 1, 1);
		t[nt++] = copy(TRACE_MEM_PINNED, TRACE_MEM_DEVICE, d, d + 100, c);
		t[nt++] = kern(d + 100, d + 300, c + 1, "a");
		t[nt++] = kern(d + 350, d + 500, c + 2, "b");
		t[nt++] = copy(TRACE_MEM_DEVICE, TRACE_MEM_PAGEABLE, d + 500, d + 600, c + 3);
	}
	/* out of order, as CUPTI's buffers deliver them */
	for (size_t i = 0; i < nt; i += 2) {
		struct trace_task x = t[i];

		t[i] = t[nt - 1 - i];
		t[nt - 1 - i] = x;
	}
	for (size_t i = 0; i + 1 < na; i += 3) {
		struct trace_api x = a[i];

		a[i] = a[na - 1 - i];
		a[na - 1 - i] = x;
	}
	tap_ok(!trace_build(t, nt, a, na, r, &st), "build: 12 tasks, 18 API records");
	ok = 1;
	for (size_t i = 0; i < nt; i++)
		ok &= r[i].query == i / 4;
	tap_ok(ok, "query: one per request, the nested driver sync is not a boundary");
	tap_ok(st.syncs == 3 && st.queries == 3 && !st.unmatched && !st.early,
	       "stats: 3 syncs, 3 queries, none unmatched (%zu %llu %zu)",
	       st.syncs, (unsigned long long)st.queries, st.unmatched);
	ok = 1;
	for (size_t i = 0; i < nt; i++)
		ok &= r[i].submit == 1000 * (i / 4) + 20 * (i % 4);
	tap_ok(ok, "submit: relative to the first row's API call");
	tap_ok(r[0].t->type == TRACE_H2D && r[1].t->name && !strcmp(r[1].t->name, "a") &&
	       r[2].t->name && !strcmp(r[2].t->name, "b") && r[3].t->type == TRACE_D2H,
	       "order: device start within the app");
	tap_ok(r[0].gap == 0 && r[1].gap == 0 && r[2].gap == 50 && r[3].gap == 0 &&
	       r[4].gap == 400, "gap: start minus the previous end (0, 0, 50, 0, 400)");
	tap_ok(r[0].dur == 100 && r[1].dur == 200 && r[2].dur == 150,
	       "dur: end minus start");
	tap_ok(r[0].t->pinned && !r[3].t->pinned, "pinned: H2D from pinned, D2H to pageable");
}

/* A synchronous copy closes its own query; empty intervals take no index. */
static void test_sync_copy(void)
{
	struct trace_task t[3];
	struct trace_api a[6];
	struct trace_row r[3];
	struct trace_stats st;

	/* kernel, then cudaMemcpy D2H (sync), two empty syncs, a kernel */
	a[0] = api(0, 10, 1, 7, 0);
	a[1] = api(20, 500, 2, 7, 1);
	a[2] = api(600, 610, 90, 7, 1);
	a[3] = api(620, 630, 91, 7, 1);
	a[4] = api(700, 710, 3, 7, 0);
	a[5] = api(720, 900, 92, 8, 1);	/* another thread's sync */
	t[0] = kern(100, 200, 1, "k");
	t[1] = copy(TRACE_MEM_DEVICE, TRACE_MEM_PINNED, 210, 400, 2);
	t[2] = kern(800, 850, 3, "k");
	tap_ok(!trace_build(t, 3, a, 6, r, &st), "sync copy: build");
	tap_ok(r[0].query == 0 && r[1].query == 0 && r[2].query == 1,
	       "sync copy: the copy is in the query it ends; the next query is 1, not 3 (%llu %llu %llu)",
	       (unsigned long long)r[0].query, (unsigned long long)r[1].query,
	       (unsigned long long)r[2].query);
	tap_ok(st.syncs == 4 && st.queries == 2, "sync copy: 4 boundaries, 2 queries");
}

/* Overlapping tasks (two streams): gap 0, not negative; an early submit. */
static void test_overlap(void)
{
	struct trace_task t[3] = {
		kern(1000, 5000, 1, "long"),
		kern(2000, 3000, 2, "inside"),
		kern(2500, 2600, 3, "after-submit-before"),
	};
	struct trace_api a[3] = {
		api(500, 510, 1, 1, 0), api(520, 530, 2, 1, 0), api(400, 410, 3, 2, 0),
	};
	struct trace_row r[3];
	struct trace_stats st;

	tap_ok(!trace_build(t, 3, a, 3, r, &st), "overlap: build");
	tap_ok(r[1].gap == 0 && r[2].gap == 0, "overlap: gap clamped at 0");
	tap_ok(r[2].submit == 0 && st.early == 1, "overlap: a submit before the first row's is 0, counted");
}

/* Ties and tasks without an API record. */
static void test_unmatched(void)
{
	struct trace_task t[3] = {
		kern(100, 200, 5, "x"), kern(300, 400, 77, "lost"), kern(100, 150, 4, "y"),
	};
	struct trace_api a[3] = {
		api(10, 20, 4, 1, 0), api(10, 20, 5, 1, 0), api(30, 40, 4, 1, 0),
	};
	struct trace_row r[3];
	struct trace_stats st;

	tap_ok(!trace_build(t, 3, a, 3, r, &st), "unmatched: build");
	tap_ok(r[0].t->corr == 4 && r[1].t->corr == 5,
	       "order: same start and submit, by correlation id");
	tap_ok(r[2].submit == r[1].submit && st.unmatched == 1,
	       "unmatched: takes the previous submit, counted");
	tap_ok(r[0].submit == 0, "submit: the earliest record of a shared correlation id");
}

static void test_copy_classes(void)
{
	struct trace_task t;

	tap_ok(trace_copy_task(&t, TRACE_MEM_DEVICE, TRACE_MEM_DEVICE, 1, 0, 1, 1) == -1,
	       "copy: d2d left out");
	tap_ok(trace_copy_task(&t, TRACE_MEM_PINNED, TRACE_MEM_PAGEABLE, 1, 0, 1, 1) == -1,
	       "copy: h2h left out");
	tap_ok(trace_copy_task(&t, TRACE_MEM_OTHER, TRACE_MEM_DEVICE, 1, 0, 1, 1) == -1,
	       "copy: unknown source left out");
	tap_ok(!trace_copy_task(&t, TRACE_MEM_PAGEABLE, TRACE_MEM_DEVICE, 9, 0, 1, 1) &&
	       t.type == TRACE_H2D && !t.pinned && t.bytes == 9 && !t.grid,
	       "copy: pageable H2D");
	tap_ok(!trace_copy_task(&t, TRACE_MEM_DEVICE, TRACE_MEM_PINNED, 9, 0, 1, 1) &&
	       t.type == TRACE_D2H && t.pinned, "copy: pinned D2H");
}

static void test_csv(void)
{
	struct trace_task t[2] = {
		kern(100, 300, 1, "_Z1fPKc,int\nx\r"),
		copy(TRACE_MEM_DEVICE, TRACE_MEM_PINNED, 400, 450, 2),
	};
	struct trace_api a[2] = { api(10, 20, 1, 1, 0), api(30, 40, 2, 1, 0) };
	struct trace_row r[2];
	struct trace_stats st;
	const char *want =
		"# gsp-trace 1\n"
		"seq,query,type,submit_ns,gap_ns,dur_ns,grid,threads,regs,smem,"
		"dram_Bps,bytes,pinned,name\n"
		"0,0,kernel,0,0,200,528,256,32,1024,0,0,0,_Z1fPKc_int_x_\n"
		"1,0,d2h,20,100,50,0,0,0,0,0,4096,1,d2h\n";
	char *s;

	tap_ok(!trace_build(t, 2, a, 2, r, &st), "csv: build");
	s = csv(r, 2);
	tap_ok(!strcmp(s, want), "csv: the exact text, the name sanitised");
	if (strcmp(s, want))
		for (char *l = strtok(s, "\n"); l; l = strtok(NULL, "\n"))
			tap_diag("got: %s", l);
	free(s);
	s = csv(r, 0);
	tap_ok(!strcmp(s, "# gsp-trace 1\nseq,query,type,submit_ns,gap_ns,dur_ns,grid,"
		       "threads,regs,smem,dram_Bps,bytes,pinned,name\n"),
	       "csv: no tasks, the two header lines");
	free(s);
	tap_ok(!trace_build(NULL, 0, NULL, 0, NULL, &st) && !st.queries,
	       "build: nothing at all");
}

int main(void)
{
	test_requests();
	test_sync_copy();
	test_overlap();
	test_unmatched();
	test_copy_classes();
	test_csv();
	return tap_done();
}
