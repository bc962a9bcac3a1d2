// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgsp_trace.so: a CUPTI activity tracer for unmodified CUDA programs,
 * writing one gsp-trace CSV (Documentation/tracing.rst) at exit:
 *
 *   CUDA_INJECTION64_PATH=build/lib/libgsp_trace.so GSP_TRACE_OUT=t.csv prog
 *
 * The driver calls InitializeInjection() at cuInit. It enables the
 * activity kinds CONCURRENT_KERNEL (the plain KERNEL kind serialises
 * kernels), MEMCPY, RUNTIME and DRIVER, keeps the records it needs in
 * memory, and at exit flushes CUPTI and hands them to trace_rows.c, which
 * does the rest (submit times, query boundaries, gaps, the CSV).
 *
 * Bounded: CUPTI's buffers are GSP_TRACE_BUF_BYTES each, at most
 * GSP_TRACE_BUFS outstanding (CUPTI drops records past that and says how
 * many); the kept records are capped at GSP_TRACE_MAX_TASKS tasks and 4x
 * that many API records. Every loss is reported on stderr at exit.
 */
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_rows.h"

#define GSP_TRACE_BUF_BYTES	(4u << 20)
#define GSP_TRACE_BUFS		32	/* 128 MiB of CUPTI buffers at most */
#define GSP_TRACE_MAX_TASKS	(1u << 20)
#define GSP_TRACE_MAX_APIS	(4u * GSP_TRACE_MAX_TASKS)
#define GSP_TRACE_NAMES		4096	/* distinct kernel names, a power of 2 */

int InitializeInjection(void) __attribute__((visibility("default")));

/*
 * One tracer per process, static: CUPTI's buffer callbacks and the atexit
 * handler take no argument to carry a pointer, so this is the only place
 * they can find it. @lock guards everything below it; the callbacks run
 * on CUPTI's worker thread and on the application's threads.
 */
static struct tracer {
	char *out;
	pthread_mutex_t lock;
	struct trace_task *tasks;
	struct trace_api *apis;
	size_t nt, capt, na, capa;
	size_t lost_tasks, lost_apis;	/* past our caps */
	size_t no_buffer;		/* buffers refused to CUPTI */
	size_t dropped;			/* CUPTI's own count */
	int bufs;			/* outstanding */
	int failed;			/* out of memory: say so, stop keeping */
	/* kernel names, copied: keyed by CUPTI's pointer, open addressing */
	const char *name_key[GSP_TRACE_NAMES];
	char *name_val[GSP_TRACE_NAMES];
} tr = { .lock = PTHREAD_MUTEX_INITIALIZER };

#define CUPTI_OK(call) cupti_ok((call), #call)

static int cupti_ok(CUptiResult r, const char *what)
{
	const char *s = NULL;

	if (r == CUPTI_SUCCESS)
		return 1;
	cuptiGetResultString(r, &s);
	fprintf(stderr, "gsp_trace: %s: %s\n", what, s ? s : "error");
	return 0;
}

/*
 * The calls that return only once the device has caught up: the query
 * boundaries of the format. Async copies are not, even pageable ones
 * that block in practice (Documentation/tracing.rst, "Limits").
 */
static int api_is_sync(CUpti_ActivityKind kind, CUpti_CallbackId cbid)
{
	if (kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
		switch (cbid) {
		case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_ptds_v7000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000:
			return 1;
		default:
			return 0;
		}
	}
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2_ptds:
		return 1;
	default:
		return 0;
	}
}

static enum trace_mem mem_kind(uint8_t k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
		return TRACE_MEM_PAGEABLE;
	case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
		return TRACE_MEM_PINNED;
	case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
	case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
	case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
		return TRACE_MEM_DEVICE;
	default:
		return TRACE_MEM_OTHER;
	}
}

/* Grow @*v (elements of @size) to hold one more, up to @max. */
static int room(void **v, size_t n, size_t *cap, size_t size, size_t max)
{
	size_t c;
	void *p;

	if (n < *cap)
		return 0;
	if (n >= max)
		return -1;
	c = *cap ? 2 * *cap : 4096;
	if (c > max)
		c = max;
	p = realloc(*v, c * size);
	if (!p) {
		tr.failed = 1;
		return -1;
	}
	*v = p;
	*cap = c;
	return 0;
}

/* Our copy of a kernel name CUPTI shares among records. Locked. */
static const char *intern(const char *name)
{
	size_t h;

	if (!name)
		return NULL;
	h = ((uintptr_t)name >> 3) * 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < GSP_TRACE_NAMES; i++) {
		size_t j = (h + i) & (GSP_TRACE_NAMES - 1);

		if (tr.name_key[j] == name)
			return tr.name_val[j];
		if (!tr.name_key[j]) {
			tr.name_val[j] = strdup(name);
			if (!tr.name_val[j])
				return NULL;
			tr.name_key[j] = name;
			return tr.name_val[j];
		}
	}
	return NULL;	/* table full: the row says "unknown" */
}

static void keep_task(const struct trace_task *t)
{
	if (room((void **)&tr.tasks, tr.nt, &tr.capt, sizeof(*tr.tasks),
		 GSP_TRACE_MAX_TASKS)) {
		tr.lost_tasks++;
		return;
	}
	tr.tasks[tr.nt++] = *t;
}

static void keep_record(const CUpti_Activity *rec)
{
	struct trace_task t = { 0 };

	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const void *)rec;
		uint64_t grid = (uint64_t)k->gridX * k->gridY * k->gridZ;

		t.type = TRACE_KERNEL;
		t.start = k->start;
		t.end = k->end;
		t.corr = k->correlationId;
		t.grid = grid > UINT32_MAX ? UINT32_MAX : (uint32_t)grid;
		t.threads = (uint32_t)(k->blockX * k->blockY * k->blockZ);
		t.regs = k->registersPerThread;
		t.smem = (uint32_t)(k->staticSharedMemory + k->dynamicSharedMemory);
		t.name = intern(k->name);
		keep_task(&t);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const void *)rec;
		enum trace_mem src = mem_kind(m->srcKind), dst = mem_kind(m->dstKind);

		/* an unknown host side: take it as pageable, the slower kind */
		if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD && src == TRACE_MEM_OTHER)
			src = TRACE_MEM_PAGEABLE;
		if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH && dst == TRACE_MEM_OTHER)
			dst = TRACE_MEM_PAGEABLE;
		if (!trace_copy_task(&t, src, dst, m->bytes, m->start, m->end,
				     m->correlationId))
			keep_task(&t);
		break;
	}
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: {
		const CUpti_ActivityAPI *a = (const void *)rec;

		if (room((void **)&tr.apis, tr.na, &tr.capa, sizeof(*tr.apis),
			 GSP_TRACE_MAX_APIS)) {
			tr.lost_apis++;
			break;
		}
		tr.apis[tr.na++] = (struct trace_api){
			.start = a->start, .end = a->end,
			.corr = a->correlationId, .tid = a->threadId,
			.sync = (uint8_t)api_is_sync(a->kind, a->cbid),
		};
		break;
	}
	default:
		break;
	}
}

static void CUPTIAPI buf_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	*buf = NULL;
	*size = 0;
	*max_records = 0;
	pthread_mutex_lock(&tr.lock);
	if (tr.bufs < GSP_TRACE_BUFS) {
		*buf = aligned_alloc(8, GSP_TRACE_BUF_BYTES);
		if (*buf) {
			*size = GSP_TRACE_BUF_BYTES;
			tr.bufs++;
		}
	}
	if (!*buf)
		tr.no_buffer++;
	pthread_mutex_unlock(&tr.lock);
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream, uint8_t *buf,
				   size_t size, size_t valid)
{
	CUpti_Activity *rec = NULL;
	size_t dropped = 0;
	CUptiResult r;

	(void)size;
	pthread_mutex_lock(&tr.lock);
	while ((r = cuptiActivityGetNextRecord(buf, valid, &rec)) == CUPTI_SUCCESS)
		if (!tr.failed)
			keep_record(rec);
	if (r != CUPTI_ERROR_MAX_LIMIT_REACHED)
		CUPTI_OK(r);
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
		tr.dropped += dropped;
	tr.bufs--;
	pthread_mutex_unlock(&tr.lock);
	free(buf);
}

static void write_trace(void)
{
	struct trace_row *rows;
	struct trace_stats st;
	FILE *f;

	rows = malloc((tr.nt ? tr.nt : 1) * sizeof(*rows));
	if (!rows || trace_build(tr.tasks, tr.nt, tr.apis, tr.na, rows, &st)) {
		fprintf(stderr, "gsp_trace: out of memory building %zu rows\n", tr.nt);
		free(rows);
		return;
	}
	f = fopen(tr.out, "w");
	if (!f) {
		perror(tr.out);
		free(rows);
		return;
	}
	if (trace_write_csv(f, rows, tr.nt) | fclose(f))
		fprintf(stderr, "gsp_trace: writing %s failed\n", tr.out);
	else
		fprintf(stderr, "gsp_trace: %zu tasks, %llu queries (%zu syncs) in %s\n",
			tr.nt, (unsigned long long)st.queries, st.syncs, tr.out);
	if (st.unmatched)
		fprintf(stderr, "gsp_trace: %zu tasks without their API record "
			"(submit_ns copied from the previous task)\n", st.unmatched);
	if (st.early)
		fprintf(stderr, "gsp_trace: %zu tasks submitted before the first "
			"(several streams?), submit_ns 0\n", st.early);
	free(rows);
}

static void at_exit(void)
{
	CUPTI_OK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
	pthread_mutex_lock(&tr.lock);
	if (tr.dropped || tr.no_buffer)
		fprintf(stderr, "gsp_trace: CUPTI dropped %zu records (%zu buffers "
			"refused): the trace is incomplete\n", tr.dropped, tr.no_buffer);
	if (tr.lost_tasks || tr.lost_apis || tr.failed)
		fprintf(stderr, "gsp_trace: %zu tasks and %zu API records past the "
			"caps%s: the trace is incomplete\n", tr.lost_tasks,
			tr.lost_apis, tr.failed ? ", out of memory" : "");
	write_trace();
	pthread_mutex_unlock(&tr.lock);
}

int InitializeInjection(void)
{
	static const CUpti_ActivityKind kinds[] = {
		CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
		CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
	};
	const char *out = getenv("GSP_TRACE_OUT");

	if (tr.out)	/* called again (a second cuInit): already tracing */
		return 1;
	if (!out || !*out) {
		fprintf(stderr, "gsp_trace: GSP_TRACE_OUT is not set, not tracing\n");
		return 1;
	}
	tr.out = strdup(out);
	if (!tr.out)
		return 1;
	if (!CUPTI_OK(cuptiActivityRegisterCallbacks(buf_requested, buf_completed)))
		return 1;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!CUPTI_OK(cuptiActivityEnable(kinds[i])))
			return 1;
	atexit(at_exit);
	return 1;
}
