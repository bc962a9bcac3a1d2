/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one table of hooked CUDA driver entry points. It drives the dlsym
 * override, the directly exported symbols and the cuGetProcAddress
 * wrappers, so the three cannot disagree (Documentation/interposer.rst).
 *
 * X(sym, proto, api, pt, vmin, vmax):
 *   sym   the driver's exported symbol of this variant, and the name we
 *         export; our wrapper is w_<sym>
 *   proto the cuda.h function (or function type) whose prototype the
 *         wrapper has: sym itself where cuda.h declares it, the legacy
 *         variant for a per-thread one
 *   api   the name a program passes to cuGetProcAddress for it
 *   pt    PT_LEGACY, PT_PTDS (the per-thread-default-stream variant) or
 *         PT_ANY (the function has no stream variants)
 *   vmin, vmax  the cudaVersion range for which cuGetProcAddress(api)
 *         resolves to this variant
 *
 * Variant rules (cuda.h of 13.0, and the driver's documented mapping):
 * the size_t copies and memsets became _v2 in 3.2; the per-thread
 * variants carry _ptds (synchronous) or _ptsz (stream) suffixes;
 * cuEventElapsedTime became _v2 in 13.0; cuGetProcAddress became _v2 in
 * 12.0. A cudaVersion below vmin of every entry of an api (a pre-3.2
 * program) resolves to a variant we do not implement: it passes through.
 */
#ifndef GSP_PRELOAD_HOOKS_H
#define GSP_PRELOAD_HOOKS_H

#include <limits.h>

#define PT_LEGACY	0
#define PT_PTDS		1
#define PT_ANY		2

#define VMAX	INT_MAX

/* A function with a legacy and a per-thread variant, both since vmin. */
#define GSP_PAIR(X, sym, ptsym, api, vmin)			\
	X(sym, sym, api, PT_LEGACY, vmin, VMAX)			\
	X(ptsym, sym, api, PT_PTDS, (vmin) > 7000 ? (vmin) : 7000, VMAX)

/* A function without stream variants, that cuda.h declares. */
#define GSP_ONE(X, sym, api, vmin, vmax)			\
	X(sym, sym, api, PT_ANY, vmin, vmax)

/* cuGetProcAddress before 12.0: cuda.h declares only the _v2 now. */
typedef CUresult gsp_getproc_v1_fn(const char *sym, void **pfn, int ver,
				   cuuint64_t flags);
/*
 * The first variants of two more that cuda.h now declares only as _v2:
 * cudart still asks for them at old cudaVersions, and each unwrapped one
 * would cost every program a warning.
 */
typedef CUresult gsp_capture_v1_fn(CUstream s);		/* until 10.1 */
typedef CUresult gsp_primary_v1_fn(CUdevice d);		/* until 11.0 */

#define GSP_HOOKS(X)							\
	X(cuGetProcAddress, gsp_getproc_v1_fn, "cuGetProcAddress", PT_ANY, \
	  11030, 11999)	\
	GSP_ONE(X, cuGetProcAddress_v2, "cuGetProcAddress", 12000, VMAX)	\
	/* launches */							\
	GSP_PAIR(X, cuLaunchKernel, cuLaunchKernel_ptsz, "cuLaunchKernel", 4000) \
	GSP_PAIR(X, cuLaunchKernelEx, cuLaunchKernelEx_ptsz, "cuLaunchKernelEx", 11060) \
	GSP_PAIR(X, cuLaunchCooperativeKernel, cuLaunchCooperativeKernel_ptsz, \
		 "cuLaunchCooperativeKernel", 9000)			\
	GSP_PAIR(X, cuGraphLaunch, cuGraphLaunch_ptsz, "cuGraphLaunch", 10000) \
	/* synchronous copies and memsets */				\
	GSP_PAIR(X, cuMemcpy, cuMemcpy_ptds, "cuMemcpy", 4000)		\
	GSP_PAIR(X, cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds, "cuMemcpyHtoD", 3020) \
	GSP_PAIR(X, cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds, "cuMemcpyDtoH", 3020) \
	GSP_PAIR(X, cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds, "cuMemcpyDtoD", 3020) \
	GSP_PAIR(X, cuMemcpyPeer, cuMemcpyPeer_ptds, "cuMemcpyPeer", 4000) \
	GSP_PAIR(X, cuMemcpy2D_v2, cuMemcpy2D_v2_ptds, "cuMemcpy2D", 3020) \
	GSP_PAIR(X, cuMemcpy2DUnaligned_v2, cuMemcpy2DUnaligned_v2_ptds, \
		 "cuMemcpy2DUnaligned", 3020)				\
	GSP_PAIR(X, cuMemcpy3D_v2, cuMemcpy3D_v2_ptds, "cuMemcpy3D", 3020) \
	GSP_PAIR(X, cuMemcpy3DPeer, cuMemcpy3DPeer_ptds, "cuMemcpy3DPeer", 4000) \
	GSP_PAIR(X, cuMemsetD8_v2, cuMemsetD8_v2_ptds, "cuMemsetD8", 3020) \
	GSP_PAIR(X, cuMemsetD16_v2, cuMemsetD16_v2_ptds, "cuMemsetD16", 3020) \
	GSP_PAIR(X, cuMemsetD32_v2, cuMemsetD32_v2_ptds, "cuMemsetD32", 3020) \
	GSP_PAIR(X, cuMemsetD2D8_v2, cuMemsetD2D8_v2_ptds, "cuMemsetD2D8", 3020) \
	GSP_PAIR(X, cuMemsetD2D16_v2, cuMemsetD2D16_v2_ptds, "cuMemsetD2D16", 3020) \
	GSP_PAIR(X, cuMemsetD2D32_v2, cuMemsetD2D32_v2_ptds, "cuMemsetD2D32", 3020) \
	/* asynchronous copies and memsets */				\
	GSP_PAIR(X, cuMemcpyAsync, cuMemcpyAsync_ptsz, "cuMemcpyAsync", 4000) \
	GSP_PAIR(X, cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz,	\
		 "cuMemcpyHtoDAsync", 3020)				\
	GSP_PAIR(X, cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz,	\
		 "cuMemcpyDtoHAsync", 3020)				\
	GSP_PAIR(X, cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz,	\
		 "cuMemcpyDtoDAsync", 3020)				\
	GSP_PAIR(X, cuMemcpyPeerAsync, cuMemcpyPeerAsync_ptsz, "cuMemcpyPeerAsync", 4000) \
	GSP_PAIR(X, cuMemcpy2DAsync_v2, cuMemcpy2DAsync_v2_ptsz, "cuMemcpy2DAsync", 3020) \
	GSP_PAIR(X, cuMemcpy3DAsync_v2, cuMemcpy3DAsync_v2_ptsz, "cuMemcpy3DAsync", 3020) \
	GSP_PAIR(X, cuMemcpy3DPeerAsync, cuMemcpy3DPeerAsync_ptsz,	\
		 "cuMemcpy3DPeerAsync", 4000)				\
	GSP_PAIR(X, cuMemsetD8Async, cuMemsetD8Async_ptsz, "cuMemsetD8Async", 3020) \
	GSP_PAIR(X, cuMemsetD16Async, cuMemsetD16Async_ptsz, "cuMemsetD16Async", 3020) \
	GSP_PAIR(X, cuMemsetD32Async, cuMemsetD32Async_ptsz, "cuMemsetD32Async", 3020) \
	GSP_PAIR(X, cuMemsetD2D8Async, cuMemsetD2D8Async_ptsz, "cuMemsetD2D8Async", 3020) \
	GSP_PAIR(X, cuMemsetD2D16Async, cuMemsetD2D16Async_ptsz,	\
		 "cuMemsetD2D16Async", 3020)				\
	GSP_PAIR(X, cuMemsetD2D32Async, cuMemsetD2D32Async_ptsz,	\
		 "cuMemsetD2D32Async", 3020)				\
	/* stream-ordered event operations (deferred) */		\
	GSP_PAIR(X, cuEventRecord, cuEventRecord_ptsz, "cuEventRecord", 2000) \
	GSP_PAIR(X, cuEventRecordWithFlags, cuEventRecordWithFlags_ptsz, \
		 "cuEventRecordWithFlags", 11010)			\
	GSP_PAIR(X, cuStreamWaitEvent, cuStreamWaitEvent_ptsz, "cuStreamWaitEvent", 2000) \
	/* stream creation: an LC tenant's streams get the greatest	\
	 * priority (lcprio.c); no per-thread variants */		\
	GSP_ONE(X, cuStreamCreate, "cuStreamCreate", 2000, VMAX)	\
	GSP_ONE(X, cuStreamCreateWithPriority, "cuStreamCreateWithPriority", \
	  5050, VMAX)							\
	/* sync points: drain the FIFO, then call the driver */		\
	GSP_ONE(X, cuCtxSynchronize, "cuCtxSynchronize", 2000, VMAX)	\
	GSP_PAIR(X, cuStreamSynchronize, cuStreamSynchronize_ptsz, "cuStreamSynchronize", 2000) \
	GSP_PAIR(X, cuStreamQuery, cuStreamQuery_ptsz, "cuStreamQuery", 2000) \
	GSP_ONE(X, cuEventSynchronize, "cuEventSynchronize", 2000, VMAX)	\
	GSP_ONE(X, cuEventQuery, "cuEventQuery", 2000, VMAX)		\
	X(cuEventElapsedTime, cuEventElapsedTime_v2, "cuEventElapsedTime", PT_ANY, \
	  2000, 12999) \
	GSP_ONE(X, cuEventElapsedTime_v2, "cuEventElapsedTime", 13000, VMAX) \
	GSP_ONE(X, cuMemFree_v2, "cuMemFree", 3020, VMAX)		\
	GSP_PAIR(X, cuMemFreeAsync, cuMemFreeAsync_ptsz, "cuMemFreeAsync", 11020) \
	GSP_ONE(X, cuMemFreeHost, "cuMemFreeHost", 2000, VMAX)		\
	GSP_ONE(X, cuMemHostUnregister, "cuMemHostUnregister", 4000, VMAX) \
	GSP_ONE(X, cuCtxDestroy_v2, "cuCtxDestroy", 4000, VMAX)		\
	GSP_ONE(X, cuStreamDestroy_v2, "cuStreamDestroy", 4000, VMAX)	\
	GSP_ONE(X, cuEventDestroy_v2, "cuEventDestroy", 4000, VMAX)	\
	GSP_ONE(X, cuGraphExecDestroy, "cuGraphExecDestroy", 10000, VMAX) \
	X(cuStreamBeginCapture, gsp_capture_v1_fn, "cuStreamBeginCapture", \
	  PT_LEGACY, 10000, 10009)					\
	X(cuStreamBeginCapture_ptsz, gsp_capture_v1_fn,		\
	  "cuStreamBeginCapture", PT_PTDS, 10000, 10009)		\
	GSP_PAIR(X, cuStreamBeginCapture_v2, cuStreamBeginCapture_v2_ptsz, \
		 "cuStreamBeginCapture", 10010)				\
	GSP_PAIR(X, cuStreamEndCapture, cuStreamEndCapture_ptsz, "cuStreamEndCapture", 10000) \
	GSP_PAIR(X, cuStreamAddCallback, cuStreamAddCallback_ptsz, "cuStreamAddCallback", 2000) \
	GSP_PAIR(X, cuLaunchHostFunc, cuLaunchHostFunc_ptsz, "cuLaunchHostFunc", 10000) \
	GSP_ONE(X, cuCtxPopCurrent_v2, "cuCtxPopCurrent", 4000, VMAX)	\
	GSP_ONE(X, cuCtxSetCurrent, "cuCtxSetCurrent", 4000, VMAX)	\
	X(cuDevicePrimaryCtxRelease, gsp_primary_v1_fn,		\
	  "cuDevicePrimaryCtxRelease", PT_ANY, 7000, 10999)		\
	GSP_ONE(X, cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease", 11000, VMAX) \
	X(cuDevicePrimaryCtxReset, gsp_primary_v1_fn,			\
	  "cuDevicePrimaryCtxReset", PT_ANY, 7000, 10999)		\
	GSP_ONE(X, cuDevicePrimaryCtxReset_v2, "cuDevicePrimaryCtxReset", 11000, VMAX) \
	/* module loads: recorded for spatial sharing, passed through */	\
	GSP_ONE(X, cuModuleLoad, "cuModuleLoad", 2000, VMAX)		\
	GSP_ONE(X, cuModuleLoadData, "cuModuleLoadData", 2000, VMAX)	\
	GSP_ONE(X, cuModuleLoadDataEx, "cuModuleLoadDataEx", 2010, VMAX) \
	GSP_ONE(X, cuModuleLoadFatBinary, "cuModuleLoadFatBinary", 2000, VMAX) \
	GSP_ONE(X, cuModuleGetFunction, "cuModuleGetFunction", 2000, VMAX) \
	GSP_ONE(X, cuModuleUnload, "cuModuleUnload", 2000, VMAX)		\
	GSP_ONE(X, cuLibraryLoadData, "cuLibraryLoadData", 12000, VMAX)	\
	GSP_ONE(X, cuLibraryLoadFromFile, "cuLibraryLoadFromFile", 12000, VMAX) \
	GSP_ONE(X, cuLibraryGetKernel, "cuLibraryGetKernel", 12000, VMAX) \
	GSP_ONE(X, cuLibraryGetModule, "cuLibraryGetModule", 12000, VMAX) \
	GSP_ONE(X, cuKernelGetFunction, "cuKernelGetFunction", 12000, VMAX) \
	GSP_ONE(X, cuLibraryUnload, "cuLibraryUnload", 12000, VMAX)

/* H_<sym>: the index of <sym> in gsp_hooks[]. */
#define GSP_HOOK_ENUM(sym, proto, api, pt, vmin, vmax) H_##sym,
enum gsp_hook_id { GSP_HOOKS(GSP_HOOK_ENUM) GSP_NHOOKS };
#undef GSP_HOOK_ENUM

#endif /* GSP_PRELOAD_HOOKS_H */
