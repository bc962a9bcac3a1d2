/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Solo traces and the machine's constants for the Prophet predictor
 * (prophet.h; Documentation/admission.rst). The formats are the
 * gsp-trace CSV version 1 and hw.csv that the CUPTI tracer writes; this
 * reader is strict: a file that breaks the format is refused with the
 * file, the line and what is wrong, never half read.
 *
 * Every reader returns 0, or a negative errno and leaves its output
 * empty: -EINVAL for a file that breaks its format (the message goes to
 * @err, @errlen bytes, if @err is not NULL), -ENOMEM, -EIO for a read
 * error, or open()'s errno for the _load() variants.
 */
#ifndef GSP_TRACE_H
#define GSP_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GSP_TRACE_LINE_MAX	(1U << 20)	/* a mangled name can be long */
#define GSP_TRACE_TASKS_MAX	(1U << 24)	/* rows of one trace */

/* hw.csv: one machine. */
struct gsp_hw {
	uint32_t sms;			/* PEs */
	uint32_t max_warps_per_sm;
	uint32_t max_blocks_per_sm;
	uint32_t regs_per_sm;
	uint32_t smem_per_sm;		/* bytes */
	double dram_Bps;		/* effective device memory bandwidth */
	double h2d_Bps, d2h_Bps;	/* pinned copies; the model ignores */
};

enum gsp_task_type {
	GSP_TASK_KERNEL,
	GSP_TASK_H2D,
	GSP_TASK_D2H,
};

/* One row of a trace; the last two fields are derived when it is read. */
struct gsp_task {
	uint32_t query;
	enum gsp_task_type type;
	uint64_t submit_ns;		/* host time of the API call */
	uint64_t gap_ns;		/* device idle before it, solo */
	uint64_t dur_ns;		/* solo duration */
	uint32_t grid, threads, regs, smem;
	double dram_Bps;		/* the kernel's DRAM bytes per s */
	uint64_t bytes;
	int pinned;			/* copy: 1 BE (pinned), 0 BS */
	uint32_t blocks_per_sm;		/* kernel: gsp_occupancy() */
	uint32_t pes;			/* kernel: SMs it uses solo, >= 1 */
};

/*
 * A query: the tasks of one host synchronisation interval, [first,
 * first + ntasks). The solo timeline is the trace's own: task 0 starts
 * at 0 and task i at the end of task i - 1 plus its gap_ns. arrive_ns
 * is the first task's submit_ns, but never after its solo start (the
 * clocks of host and device differ by the launch latency); ready is
 * max(arrive, previous query's end) and host_ns the solo time from ready
 * to the first task's start; solo_ns is the query's solo latency, from
 * ready to the end of its last task.
 */
struct gsp_query {
	size_t first, ntasks;
	uint64_t arrive_ns;
	double host_ns;
	double solo_ns;
};

struct gsp_trace {
	struct gsp_task *task;
	size_t ntasks;
	struct gsp_query *query;
	size_t nqueries;		/* non-empty ones, in order */
	double solo_end_ns;		/* the last task's end, solo */
};

/*
 * Blocks of one kernel resident on one SM at a time, an approximation
 * of NVIDIA's occupancy calculator: the least of the warp limit, the
 * block limit, the register file (registers allocated per warp in units
 * of 256) and shared memory (1 KiB reserved per block). 0 when a block
 * does not fit at all.
 */
uint32_t gsp_occupancy(const struct gsp_hw *hw, uint32_t threads,
		       uint32_t regs, uint32_t smem);

int gsp_hw_read(FILE *f, const char *what, struct gsp_hw *hw, char *err,
		size_t errlen);
int gsp_hw_load(const char *path, struct gsp_hw *hw, char *err,
		size_t errlen);

/*
 * A trace of at least one task on machine @hw (for occupancy and pes).
 * @what names the file in messages.
 */
int gsp_trace_read(FILE *f, const char *what, const struct gsp_hw *hw,
		   struct gsp_trace *t, char *err, size_t errlen);
int gsp_trace_load(const char *path, const struct gsp_hw *hw,
		   struct gsp_trace *t, char *err, size_t errlen);
/* Frees what a reader allocated, and zeroes @t. */
void gsp_trace_free(struct gsp_trace *t);

/* Mean of the queries' solo_ns. */
double gsp_trace_solo_mean_ns(const struct gsp_trace *t);

#endif /* GSP_TRACE_H */
