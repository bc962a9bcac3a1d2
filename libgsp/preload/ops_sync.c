// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Event records and waits, which keep their place among deferred work;
 * the sync points, which drain it before calling the driver (and, for a
 * context or module going away, drop our state of it); and stream
 * capture, during which calls pass through.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <gspace.h>

#include "ops_internal.h"

/* Event records and waits: ordered with the rest, but no GPU time. ------- */

/*
 * In LC mode they go straight to the driver (not charged); otherwise they
 * join the FIFO so that they keep their place among deferred work.
 */
#define EVENT_ROUTE(ptsz, s, FILL, CALL)				\
	do {								\
		if (gsp_mode() == GSP_MODE_LC)				\
			return CALL;					\
		ROUTE(ptsz, s, GSP_ENGINE_NONE, NULL, FILL, CALL);	\
	} while (0)

#define EVREC(sym, ptsz)						\
CUresult w_##sym(CUevent e, CUstream s)					\
{									\
	EVENT_ROUTE(ptsz, s, (op->kind = OP_EVENT_RECORD, op->hook = H_##sym, \
			      op->u.ev.ev = e, 0),			\
		    CALL_REAL(sym, (e, s)));				\
}									\
GSP_EXPORT(sym)
EVREC(cuEventRecord, 0)
EVREC(cuEventRecord_ptsz, 1)

#define EVRECF(sym, ptsz)						\
CUresult w_##sym(CUevent e, CUstream s, unsigned int fl)		\
{									\
	EVENT_ROUTE(ptsz, s, (op->kind = OP_EVENT_RECORD_FLAGS,		\
			      op->hook = H_##sym, op->u.ev.ev = e,	\
			      op->u.ev.flags = fl, 0),			\
		    CALL_REAL(sym, (e, s, fl)));			\
}									\
GSP_EXPORT(sym)
EVRECF(cuEventRecordWithFlags, 0)
EVRECF(cuEventRecordWithFlags_ptsz, 1)

#define WAITEV(sym, ptsz)						\
CUresult w_##sym(CUstream s, CUevent e, unsigned int fl)		\
{									\
	EVENT_ROUTE(ptsz, s, (op->kind = OP_WAIT_EVENT, op->hook = H_##sym, \
			      op->u.ev.ev = e, op->u.ev.flags = fl, 0),	\
		    CALL_REAL(sym, (s, e, fl)));			\
}									\
GSP_EXPORT(sym)
WAITEV(cuStreamWaitEvent, 0)
WAITEV(cuStreamWaitEvent_ptsz, 1)

/* Sync points ------------------------------------------------------------------ */

static CUresult sync_enter(void)
{
	gsp_mode();
	return gsp_drain();
}

#define SYNCPT(sym, params, args)					\
CUresult w_##sym params							\
{									\
	CUresult s_ = sync_enter();					\
									\
	return gsp_sticky(s_, CALL_REAL(sym, args));			\
}									\
GSP_EXPORT(sym)
SYNCPT(cuCtxSynchronize, (void), ())
SYNCPT(cuStreamSynchronize, (CUstream s), (s))
SYNCPT(cuStreamSynchronize_ptsz, (CUstream s), (s))
SYNCPT(cuStreamQuery, (CUstream s), (s))
SYNCPT(cuStreamQuery_ptsz, (CUstream s), (s))
SYNCPT(cuEventSynchronize, (CUevent e), (e))
SYNCPT(cuEventQuery, (CUevent e), (e))
SYNCPT(cuEventElapsedTime, (float *ms, CUevent a, CUevent b), (ms, a, b))
SYNCPT(cuEventElapsedTime_v2, (float *ms, CUevent a, CUevent b), (ms, a, b))
SYNCPT(cuMemFree_v2, (CUdeviceptr p), (p))
SYNCPT(cuMemFreeAsync, (CUdeviceptr p, CUstream s), (p, s))
SYNCPT(cuMemFreeAsync_ptsz, (CUdeviceptr p, CUstream s), (p, s))
SYNCPT(cuMemFreeHost, (void *p), (p))
SYNCPT(cuMemHostUnregister, (void *p), (p))
SYNCPT(cuCtxPopCurrent_v2, (CUcontext *c), (c))
SYNCPT(cuCtxSetCurrent, (CUcontext c), (c))
SYNCPT(cuStreamDestroy_v2, (CUstream s), (s))
SYNCPT(cuEventDestroy_v2, (CUevent e), (e))
SYNCPT(cuGraphExecDestroy, (CUgraphExec g), (g))
SYNCPT(cuStreamAddCallback, (CUstream s, CUstreamCallback cb, void *u,
			     unsigned int fl), (s, cb, u, fl))
SYNCPT(cuStreamAddCallback_ptsz, (CUstream s, CUstreamCallback cb, void *u,
				  unsigned int fl), (s, cb, u, fl))
SYNCPT(cuLaunchHostFunc, (CUstream s, CUhostFn fn, void *u), (s, fn, u))
SYNCPT(cuLaunchHostFunc_ptsz, (CUstream s, CUhostFn fn, void *u), (s, fn, u))

/* Sync points after which our state in a context or module is stale. */
#define SYNC_GONE(sym, params, args, GONE)				\
CUresult w_##sym params							\
{									\
	CUresult s_ = sync_enter(), r_;					\
									\
	GONE;								\
	r_ = CALL_REAL(sym, args);					\
	return gsp_sticky(s_, r_);					\
}									\
GSP_EXPORT(sym)
SYNC_GONE(cuCtxDestroy_v2, (CUcontext c), (c),
	  (gsp_sp_ctx_gone(c, 0), gsp_lcprio_ctx_gone(c, 0)))
#define PRIMARY_GONE(sym)						\
	SYNC_GONE(sym, (CUdevice d), (d),				\
		  (gsp_sp_ctx_gone(NULL, d), gsp_lcprio_ctx_gone(NULL, d)))
PRIMARY_GONE(cuDevicePrimaryCtxRelease)
PRIMARY_GONE(cuDevicePrimaryCtxRelease_v2)
PRIMARY_GONE(cuDevicePrimaryCtxReset)
PRIMARY_GONE(cuDevicePrimaryCtxReset_v2)

#define SYNC_UNLOAD(sym, T)						\
CUresult w_##sym(T h)							\
{									\
	CUresult s_ = sync_enter(), r_ = CALL_REAL(sym, (h));		\
									\
	if (r_ == CUDA_SUCCESS)						\
		gsp_sp_forget(h);					\
	return gsp_sticky(s_, r_);					\
}									\
GSP_EXPORT(sym)
SYNC_UNLOAD(cuModuleUnload, CUmodule)
SYNC_UNLOAD(cuLibraryUnload, CUlibrary)

/* The first variants (before 10.1) take no mode. */
#define BEGIN_CAPTURE(sym, params, args)				\
CUresult w_##sym params							\
{									\
	CUresult s_ = sync_enter(), r_;					\
									\
	gsp_lc_settle();						\
	r_ = CALL_REAL(sym, args);					\
									\
	if (r_ == CUDA_SUCCESS)						\
		gsp_capture_note(1);					\
	return gsp_sticky(s_, r_);					\
}									\
GSP_EXPORT(sym)
BEGIN_CAPTURE(cuStreamBeginCapture, (CUstream s), (s))
BEGIN_CAPTURE(cuStreamBeginCapture_ptsz, (CUstream s), (s))
BEGIN_CAPTURE(cuStreamBeginCapture_v2, (CUstream s, CUstreamCaptureMode mode),
	      (s, mode))
BEGIN_CAPTURE(cuStreamBeginCapture_v2_ptsz,
	      (CUstream s, CUstreamCaptureMode mode), (s, mode))

#define END_CAPTURE(sym)						\
CUresult w_##sym(CUstream s, CUgraph *g)				\
{									\
	CUresult s_ = sync_enter(), r_ = CALL_REAL(sym, (s, g));	\
									\
	/* Capture ends whether or not the graph is valid. */		\
	gsp_capture_note(-1);						\
	return gsp_sticky(s_, r_);					\
}									\
GSP_EXPORT(sym)
END_CAPTURE(cuStreamEndCapture)
END_CAPTURE(cuStreamEndCapture_ptsz)
