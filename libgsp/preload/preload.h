/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libgsp_preload.so internals: resolution of real driver functions
 * (resolve.c), the process's tenant and its dispatcher (dispatch*.c,
 * lc_report.c), and the operations the wrappers hand to it (ops*.c).
 */
#ifndef GSP_PRELOAD_H
#define GSP_PRELOAD_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda.h>
/* Plain names here: we export each variant under its own symbol. */
#undef cuGetProcAddress
#undef cuEventElapsedTime
#undef cuStreamBeginCapture
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset

#define GSP_ENGINE_NONE	0xffffffffu	/* event ops: no GPU time */

#include "hooks.h"

#define GSP_HIDDEN __attribute__((visibility("hidden")))

/* resolve.c ---------------------------------------------------------- */

struct gsp_hook {
	const char *sym;
	const char *api;
	int pt;
	int vmin, vmax;
	void *wrapper;
	_Atomic(void *) real;
	atomic_int warned;
};

extern struct gsp_hook gsp_hooks[GSP_NHOOKS] GSP_HIDDEN;

/* The real driver function of a hooked variant, or NULL. */
GSP_HIDDEN void *gsp_real(enum gsp_hook_id id);
/* A driver function we call but do not hook (cuCtxGetCurrent...). */
GSP_HIDDEN void *gsp_real_sym(const char *sym);
/* Index of the table entry for exported symbol @sym, or -1. */
GSP_HIDDEN int gsp_hook_by_sym(const char *sym);
/* Index of the first entry for cuGetProcAddress name @api, or -1. */
GSP_HIDDEN int gsp_hook_by_api(const char *api);
/* Index of the variant cuGetProcAddress(api, ver, flags) gives, or -1. */
GSP_HIDDEN int gsp_hook_select(const char *api, int ver, uint64_t flags,
			       int *known_api);

#define REAL(sym) ((__typeof__(&w_##sym))gsp_real(H_##sym))

/* CLOCK_MONOTONIC in ns, and a sleep of @ns (dispatch.c) */
GSP_HIDDEN uint64_t now_ns(void);
GSP_HIDDEN void sleep_ns(uint64_t ns);

/* dispatch*.c, lc_report.c ------------------------------------------- */

enum gsp_mode {
	GSP_MODE_OFF,		/* pass everything through */
	GSP_MODE_BE,		/* deferred dispatch under leases */
	GSP_MODE_LC,		/* fast path, reported after the fact */
	GSP_MODE_REFUSED,	/* no tenant: work fails, nothing runs unscheduled */
};

/* Why the tenant rejoined the arbiter (dispatch_tenant.c's rejoin()). */
enum gsp_rejoin_why {
	GSP_REJOIN_WATCHDOG,	/* a lease ended by the watchdog */
	GSP_REJOIN_HUNG,	/* SUBMIT refused: the tenant is marked hung */
	GSP_REJOIN_LOST,	/* the arbiter went away (gspaced died) */
	GSP_REJOIN_N,
};

struct gsp_stats_ctr {
	atomic_ulong launches, copies, jobs, leases, passthroughs;
	atomic_ulong deferred, drains, lc_ops, errors_sticky;
	atomic_ulong refused;	/* work calls failed in GSP_MODE_REFUSED */
	atomic_ulong renewals, rejoins, rejoin_why[GSP_REJOIN_N];
	atomic_ulong preemptions;	/* leases given back before their kernels ended */
	atomic_ulong preempt_unseen;	/* ... whose drain no look saw in a quantum */
	/* ops that waited for LC work before their lease; those synchronous */
	atomic_ulong lc_waits, lc_waits_sync, lc_wait_us;
	/* leases asked for while another engine's still had work in flight */
	atomic_ulong lease_ahead;
	atomic_ulong task_heads;	/* copy-ins submitted as CuMAS task heads */
	atomic_ulong run_on;	/* compute leases run past their quantum alone */
};

extern struct gsp_stats_ctr gsp_ctr GSP_HIDDEN;

/* Opens the tenant on first use; the mode every wrapper then follows. */
GSP_HIDDEN enum gsp_mode gsp_mode(void);
/* A work call in GSP_MODE_REFUSED: counted, and the error it returns. */
GSP_HIDDEN CUresult gsp_refused(void);
/* Warn (once per @once flag) on stderr with the "gsp: " prefix. */
GSP_HIDDEN void gsp_warn_once(atomic_int *once, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
GSP_HIDDEN void gsp_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

enum gsp_op_kind {
	OP_LAUNCH, OP_LAUNCH_EX, OP_COOP, OP_GRAPH,
	OP_COPY, OP_COPY_PEER, OP_COPY_2D, OP_COPY_3D, OP_COPY_3D_PEER,
	OP_MEMSET, OP_MEMSET_2D,
	OP_EVENT_RECORD, OP_EVENT_RECORD_FLAGS, OP_WAIT_EVENT,
	OP_GATE,		/* the app thread issues it itself, see gsp_gate */
};

struct gsp_gate;

/* One intercepted driver call, with owned copies of what it points at. */
struct gsp_op {
	struct gsp_op *next;
	enum gsp_op_kind kind;
	enum gsp_hook_id hook;
	uint32_t engine;	/* GSPACE_ENGINE_* */
	CUcontext ctx;
	CUstream stream;
	const void *key;	/* cost key: the function, graph or hook */
	union {
		struct {
			CUfunction f;
			unsigned int g[3], b[3], shmem;
			void **params;
			void **extra;
		} k;
		struct {
			CUlaunchConfig cfg;
			CUfunction f;
			void **params;
			void **extra;
		} ex;
		CUgraphExec graph;
		struct {
			CUdeviceptr dst, src;
			CUcontext dctx, sctx;
			size_t n;
		} cp;
		CUDA_MEMCPY2D c2;
		CUDA_MEMCPY3D c3;
		CUDA_MEMCPY3D_PEER c3p;
		struct {
			CUdeviceptr dst;
			size_t pitch, w, h;
			unsigned int val;
		} ms;
		struct {
			CUevent ev;
			unsigned int flags;
		} ev;
		struct gsp_gate *gate;
	} u;
	void *buf, *buf2;	/* owned argument storage, freed with the op */
	size_t buflen;		/* of buf, for a launch's parameters */
	int nparams;		/* a launch's parameters in buf; -1: extra */
	void *sp;		/* spatial_launch.c: runs transformed */
};

/* Issues @op to the real driver in the calling thread (ops_issue.c). */
GSP_HIDDEN CUresult gsp_op_issue(struct gsp_op *op);
/* The stream an op on @s of variant @pt really runs on, for events. */
GSP_HIDDEN CUstream gsp_event_stream(CUstream s, int ptsz);

/*
 * Hands @op (malloc'd, owned from now on) to the dispatcher. The app
 * thread returns CUDA_SUCCESS; a later error is sticky (gsp_sync_begin).
 */
GSP_HIDDEN void gsp_enqueue(struct gsp_op *op);
/*
 * A sync point: waits until everything enqueued before is issued; returns
 * the first sticky error of deferred work, or CUDA_SUCCESS.
 */
GSP_HIDDEN CUresult gsp_drain(void);
/* Combines a sticky error with the result of the real call. */
static inline CUresult gsp_sticky(CUresult sticky, CUresult r)
{
	return r == CUDA_SUCCESS ? sticky : r;
}

/*
 * Synchronous gating in the app thread: drains, waits for a lease on
 * @engine (BE with an arbiter; else returns at once), then the caller
 * issues and calls gsp_gate_end(). @stream is the real stream (NULL for a
 * synchronous call, timed on the host).
 */
struct gsp_gate_ticket {
	struct gsp_gate *gate;
	uint64_t t0;
	CUresult sticky;
};
GSP_HIDDEN void gsp_gate_begin(struct gsp_gate_ticket *t, uint32_t engine,
			       CUcontext ctx, CUstream stream, const void *key);
GSP_HIDDEN void gsp_gate_end(struct gsp_gate_ticket *t, CUresult r);

/* LC fast path: around a direct issue in the app thread. */
struct gsp_lc_ticket {
	int sample;		/* 1 + index of a pooled event pair, or 0 */
	const void *view;	/* the board slot it counted in, or NULL */
};
GSP_HIDDEN void gsp_lc_begin(struct gsp_lc_ticket *t, const void *key,
			     CUstream evstream);
GSP_HIDDEN void gsp_lc_end(struct gsp_lc_ticket *t, const void *key,
			   uint32_t engine, CUstream evstream);

/* Before a capture begins: the reporter is done with every LC op so far. */
GSP_HIDDEN void gsp_lc_settle(void);
/* Stream capture: 1 if @s (of variant @ptsz) is capturing now. */
GSP_HIDDEN int gsp_capturing(CUstream s, int ptsz);
GSP_HIDDEN void gsp_capture_note(int delta);

/*
 * Per-key state (key: a CUfunction, a CUgraphExec, or a hook for copies):
 * the EWMA of measured GPU time, the LC sampling tick, and the cached
 * kernel parameter sizes (ops.c). Lock-free; NULL when the table is full.
 */
struct gsp_key {
	_Atomic(const void *) key;
	atomic_ullong ewma_ns;
	atomic_uint ticks;
	_Atomic(void *) pinfo;
};
GSP_HIDDEN struct gsp_key *gsp_key(const void *key);
GSP_HIDDEN void gsp_cost_put(const void *key, uint64_t ns);

#endif /* GSP_PRELOAD_H */
