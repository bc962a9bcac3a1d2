/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rows of a gsp-trace CSV (version 1, Documentation/tracing.rst) from
 * the records a tracer collected: tasks (kernels and host<->device copies,
 * device times) and API calls (host times, the same clock). Pure C, no
 * CUPTI: gsp_trace.c turns CUPTI's records into these, and the unit test
 * (tests/trace/test_trace_rows.c) makes them up.
 *
 * trace_build() does, in order:
 *
 *  1. submit: each task's API call is the API record of the same
 *     correlation id (the earliest start, if runtime and driver records
 *     share one); a task without one takes the previous task's submit
 *     (counted in @unmatched)
 *  2. syncs: API records marked sync, less those nested inside another
 *     sync of the same thread (cudaStreamSynchronize runs
 *     cuStreamSynchronize: one boundary, not two)
 *  3. order: tasks by device start (then submit, then correlation id)
 *  4. query: the number of sync returns (end <= submit) before the task's
 *     API call, renumbered 0, 1, 2, ... over the intervals that hold a
 *     task, so an empty interval (two syncs in a row) takes no index
 *  5. gap: start minus the previous row's end, at least 0; dur: end minus
 *     start, at least 0; submit_ns: relative to the first row's submit,
 *     at least 0 (a negative one, only possible with several streams, is
 *     counted in @early)
 */
#ifndef GSP_TRACE_ROWS_H
#define GSP_TRACE_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum trace_type { TRACE_KERNEL, TRACE_H2D, TRACE_D2H };

/* The kinds of memory a copy's ends can be, as far as the rows care. */
enum trace_mem { TRACE_MEM_OTHER, TRACE_MEM_PAGEABLE, TRACE_MEM_PINNED,
	TRACE_MEM_DEVICE };

struct trace_task {
	uint64_t start, end;	/* device, ns */
	uint64_t bytes;		/* copies */
	const char *name;	/* kernels; not owned, outlives the rows */
	uint32_t corr;		/* correlation id of the issuing API call */
	uint32_t grid;		/* kernels: blocks, x*y*z */
	uint32_t threads;	/* kernels: threads per block, x*y*z */
	uint32_t regs;		/* kernels: registers per thread */
	uint32_t smem;		/* kernels: static + dynamic, per block */
	uint8_t type;		/* enum trace_type */
	uint8_t pinned;		/* copies: host side page-locked */
};

struct trace_api {
	uint64_t start, end;	/* host, ns */
	uint32_t corr;
	uint32_t tid;		/* the calling thread */
	uint8_t sync;		/* returns only when the device caught up */
};

struct trace_row {
	const struct trace_task *t;
	uint64_t query, submit, gap, dur;
};

struct trace_stats {
	size_t unmatched;	/* tasks without their API record */
	size_t early;		/* submits before the first row's, clamped */
	size_t syncs;		/* boundaries after de-nesting */
	uint64_t queries;	/* distinct query indices among the rows */
};

/*
 * A copy as a task: direction from its two ends, pinned from the host's.
 * Returns 0 and fills @t, or -1 for a copy the format leaves out (device
 * to device, host to host, peer, or an end of unknown kind).
 */
int trace_copy_task(struct trace_task *t, enum trace_mem src,
		    enum trace_mem dst, uint64_t bytes, uint64_t start,
		    uint64_t end, uint32_t corr);

/*
 * Build @nt rows into @rows from @tasks (sorted in place) and @apis
 * (sorted in place). Returns 0, or -1 (errno ENOMEM), @rows then undefined.
 */
int trace_build(struct trace_task *tasks, size_t nt, struct trace_api *apis,
		size_t na, struct trace_row *rows, struct trace_stats *st);

/* The CSV, header lines first. Returns 0, or -1 if a write failed. */
int trace_write_csv(FILE *f, const struct trace_row *rows, size_t n);

#endif
