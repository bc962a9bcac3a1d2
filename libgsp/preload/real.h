/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one table of real driver functions the interposer calls for its own
 * work: the dispatcher and LC reporter (dispatch*.c, lc_report.c), spatial
 * sharing (spatial*.c) and LC stream priority (lcprio.c). It generates
 * struct gsp_cudrv, the code that fills it and the checks each part makes,
 * as hooks.h does for the wrappers.
 *
 * ONE(field, proto, how, need): a function pointer @field
 * TWO(field, proto, how0, need0, how1, need1): @field[2], indexed by
 *     stream variant: [0] legacy, [1] per-thread (_ptsz)
 *   proto  the cuda.h function whose type the field has
 *   how    BY_HOOK(sym): gsp_real(H_sym), the hooked variant's real
 *          function (the one our wrapper passes through to);
 *          BY_HOOK_OR(sym, old): the same, or H_old where the driver
 *          lacks sym; BY_SYM("name"): gsp_real_sym(), a function we
 *          call but do not hook
 *   need   the parts (NEED_*) that cannot work without it; 0: optional,
 *          its user checks for NULL where it calls it
 *
 * One struct, filled once (gsp_cudrv_load()) at the first of the
 * dispatcher's set-up, gsp_sp_start() and lcprio's first use, and
 * read-only afterwards. Looking a function up earlier than its part used
 * to finds the same pointer: gsp_real_sym() asks libcuda's handle, which
 * is never closed, and gsp_real() hands back the first pointer it ever
 * found for a hook (the one our wrappers then pass through to as well).
 * Each part still checks only what it needs (gsp_cudrv_has()).
 */
#ifndef GSP_PRELOAD_REAL_H
#define GSP_PRELOAD_REAL_H

#include "preload.h"

/* Who needs an entry: a part without all of its entries stays off. */
#define NEED_DISP	0x1u	/* the dispatcher: else everything passes through */
#define NEED_SP		0x2u	/* spatial sharing: else kernels run unchanged */
#define NEED_GREEN	0x4u	/* green contexts: else green stays off */
#define NEED_LCP	0x8u	/* LC priority streams: else launches stay put */

#define GSP_CUDRV_FNS(ONE, TWO)						\
	/* contexts and devices */					\
	ONE(ctx_get, cuCtxGetCurrent, BY_SYM("cuCtxGetCurrent"), NEED_DISP | NEED_LCP) \
	ONE(ctx_set, cuCtxSetCurrent, BY_HOOK(cuCtxSetCurrent), NEED_DISP | NEED_SP) \
	ONE(ctx_dev, cuCtxGetDevice, BY_SYM("cuCtxGetDevice"), NEED_SP | NEED_LCP) \
	ONE(dev_get, cuDeviceGet, BY_SYM("cuDeviceGet"), NEED_SP)	\
	ONE(dev_attr, cuDeviceGetAttribute, BY_SYM("cuDeviceGetAttribute"), NEED_SP) \
	ONE(prio_range, cuCtxGetStreamPriorityRange,			\
	    BY_SYM("cuCtxGetStreamPriorityRange"), NEED_LCP)		\
	/* modules, libraries and functions */				\
	ONE(mod_load, cuModuleLoadData, BY_HOOK(cuModuleLoadData), NEED_SP) \
	ONE(mod_fn, cuModuleGetFunction, BY_HOOK(cuModuleGetFunction), NEED_SP) \
	ONE(mod_unload, cuModuleUnload, BY_HOOK(cuModuleUnload), NEED_SP) \
	ONE(mod_global, cuModuleGetGlobal, BY_SYM("cuModuleGetGlobal_v2"), NEED_SP) \
	ONE(lib_global, cuLibraryGetGlobal, BY_SYM("cuLibraryGetGlobal"), 0) /* 12.0 */ \
	ONE(occ, cuOccupancyMaxActiveBlocksPerMultiprocessor,		\
	    BY_SYM("cuOccupancyMaxActiveBlocksPerMultiprocessor"), NEED_SP) \
	ONE(fn_attr, cuFuncSetAttribute, BY_SYM("cuFuncSetAttribute"), NEED_SP) \
	ONE(fn_get, cuFuncGetAttribute, BY_SYM("cuFuncGetAttribute"), 0) \
	/* memory and copies */						\
	ONE(mem_alloc, cuMemAlloc, BY_SYM("cuMemAlloc_v2"), NEED_SP)	\
	ONE(mem_free, cuMemFree, BY_HOOK(cuMemFree_v2), NEED_SP)	\
	TWO(dtod, cuMemcpyDtoDAsync, BY_HOOK(cuMemcpyDtoDAsync_v2), NEED_SP, \
	    BY_HOOK(cuMemcpyDtoDAsync_v2_ptsz), NEED_SP)		\
	TWO(memset32, cuMemsetD32Async, BY_HOOK(cuMemsetD32Async), NEED_SP, \
	    BY_HOOK(cuMemsetD32Async_ptsz), NEED_SP)			\
	ONE(htod, cuMemcpyHtoDAsync, BY_HOOK(cuMemcpyHtoDAsync_v2), NEED_SP) \
	ONE(dtoh, cuMemcpyDtoHAsync, BY_HOOK(cuMemcpyDtoHAsync_v2), NEED_SP) \
	ONE(host_reg, cuMemHostRegister, BY_SYM("cuMemHostRegister_v2"), NEED_SP) \
	ONE(host_dptr, cuMemHostGetDevicePointer,			\
	    BY_SYM("cuMemHostGetDevicePointer_v2"), NEED_SP)		\
	ONE(host_alloc, cuMemHostAlloc, BY_SYM("cuMemHostAlloc"), NEED_SP) \
	/* streams: lcprio's by hook, spatial's own by symbol */	\
	ONE(stream_create, cuStreamCreate, BY_HOOK(cuStreamCreate), 0)	\
	ONE(stream_create_sym, cuStreamCreate, BY_SYM("cuStreamCreate"), NEED_SP) \
	ONE(stream_create_prio, cuStreamCreateWithPriority,		\
	    BY_HOOK(cuStreamCreateWithPriority), NEED_LCP)		\
	ONE(stream_sync, cuStreamSynchronize, BY_HOOK(cuStreamSynchronize), \
	    NEED_SP | NEED_LCP)						\
	ONE(stream_destroy, cuStreamDestroy_v2, BY_HOOK(cuStreamDestroy_v2), \
	    NEED_GREEN | NEED_LCP)					\
	TWO(wait, cuStreamWaitEvent, BY_HOOK(cuStreamWaitEvent), NEED_GREEN | NEED_LCP, \
	    BY_HOOK(cuStreamWaitEvent_ptsz), NEED_GREEN)		\
	/* events */							\
	ONE(ev_create, cuEventCreate, BY_SYM("cuEventCreate"),	\
	    NEED_DISP | NEED_SP | NEED_LCP)				\
	ONE(ev_destroy, cuEventDestroy_v2, BY_HOOK(cuEventDestroy_v2),	\
	    NEED_DISP | NEED_GREEN | NEED_LCP)				\
	TWO(ev_record, cuEventRecord, BY_HOOK(cuEventRecord),		\
	    NEED_DISP | NEED_SP | NEED_LCP,				\
	    BY_HOOK(cuEventRecord_ptsz), NEED_SP)			\
	ONE(ev_query, cuEventQuery, BY_HOOK(cuEventQuery), NEED_DISP | NEED_SP) \
	ONE(ev_elapsed, cuEventElapsedTime_v2,				\
	    BY_HOOK_OR(cuEventElapsedTime_v2, cuEventElapsedTime), NEED_DISP) \
	/* launches */							\
	TWO(launch, cuLaunchKernel, BY_HOOK(cuLaunchKernel), NEED_SP,	\
	    BY_HOOK(cuLaunchKernel_ptsz), NEED_SP)			\
	TWO(launch_ex, cuLaunchKernelEx, BY_HOOK(cuLaunchKernelEx), NEED_SP, \
	    BY_HOOK(cuLaunchKernelEx_ptsz), NEED_SP)			\
	/* green contexts (12.4): the version guards their semantics */ \
	ONE(drv_version, cuDriverGetVersion, BY_SYM("cuDriverGetVersion"), 0) \
	ONE(prim_state, cuDevicePrimaryCtxGetState,			\
	    BY_SYM("cuDevicePrimaryCtxGetState"), NEED_GREEN)		\
	ONE(prim_retain, cuDevicePrimaryCtxRetain,			\
	    BY_SYM("cuDevicePrimaryCtxRetain"), NEED_GREEN)		\
	ONE(prim_release, cuDevicePrimaryCtxRelease_v2,		\
	    BY_HOOK(cuDevicePrimaryCtxRelease_v2), NEED_GREEN)		\
	ONE(dev_res, cuDeviceGetDevResource, BY_SYM("cuDeviceGetDevResource"), \
	    NEED_GREEN)							\
	ONE(split, cuDevSmResourceSplitByCount,			\
	    BY_SYM("cuDevSmResourceSplitByCount"), NEED_GREEN)		\
	ONE(gen_desc, cuDevResourceGenerateDesc,			\
	    BY_SYM("cuDevResourceGenerateDesc"), NEED_GREEN)		\
	ONE(green_create, cuGreenCtxCreate, BY_SYM("cuGreenCtxCreate"), NEED_GREEN) \
	ONE(green_destroy, cuGreenCtxDestroy, BY_SYM("cuGreenCtxDestroy"), NEED_GREEN) \
	ONE(green_stream, cuGreenCtxStreamCreate,			\
	    BY_SYM("cuGreenCtxStreamCreate"), NEED_GREEN)

#define GSP_CUDRV_ONE(field, proto, how, need) __typeof__(&proto) field;
#define GSP_CUDRV_TWO(field, proto, how0, need0, how1, need1)		\
	__typeof__(&proto) field[2];

/* Filled by gsp_cudrv_load(), read-only afterwards. */
struct gsp_cudrv {
	GSP_CUDRV_FNS(GSP_CUDRV_ONE, GSP_CUDRV_TWO)
};

#undef GSP_CUDRV_ONE
#undef GSP_CUDRV_TWO

extern struct gsp_cudrv cudrv GSP_HIDDEN;

/* Fills cudrv, once; any thread, any number of times. */
GSP_HIDDEN void gsp_cudrv_load(void);
/* 1 if every entry that one of the parts in @need needs is there. */
GSP_HIDDEN int gsp_cudrv_has(unsigned int need);

#endif /* GSP_PRELOAD_REAL_H */
