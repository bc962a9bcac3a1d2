// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Issue of deferred calls, on the dispatcher thread: each kind of gsp_op
 * goes to the real driver variant it was deferred from (or, for a
 * spatially shared launch, to spatial.c's gsp_sp_issue()).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <gspace.h>

#include "ops_internal.h"

/* Issue of deferred calls (dispatcher thread) ------------------------------ */

#define REAL_AS(proto_sym, hook) ((__typeof__(&w_##proto_sym))gsp_real(hook))

/* Calls @f (a typed real pointer) if the driver has it. */
#define ISSUE(f, args) ((f) ? (f) args : CUDA_ERROR_NOT_FOUND)

static CUresult issue_copy(struct gsp_op *op)
{
	CUstream s = op->stream;

	switch (op->hook) {
	case H_cuMemcpyHtoDAsync_v2:
	case H_cuMemcpyHtoDAsync_v2_ptsz: {
		__typeof__(&w_cuMemcpyHtoDAsync_v2) f =
			REAL_AS(cuMemcpyHtoDAsync_v2, op->hook);

		return ISSUE(f, (op->u.cp.dst, P(op->u.cp.src), op->u.cp.n, s));
	}
	case H_cuMemcpyDtoHAsync_v2:
	case H_cuMemcpyDtoHAsync_v2_ptsz: {
		__typeof__(&w_cuMemcpyDtoHAsync_v2) f =
			REAL_AS(cuMemcpyDtoHAsync_v2, op->hook);

		return ISSUE(f, ((void *)(uintptr_t)op->u.cp.dst, op->u.cp.src,
				 op->u.cp.n, s));
	}
	default: {
		/* cuMemcpyAsync and cuMemcpyDtoDAsync_v2 share a prototype. */
		__typeof__(&w_cuMemcpyAsync) f = REAL_AS(cuMemcpyAsync, op->hook);

		return ISSUE(f, (op->u.cp.dst, op->u.cp.src, op->u.cp.n, s));
	}
	}
}

static CUresult issue_memset(struct gsp_op *op)
{
	CUstream s = op->stream;

	switch (op->hook) {
	case H_cuMemsetD8Async:
	case H_cuMemsetD8Async_ptsz: {
		__typeof__(&w_cuMemsetD8Async) f = REAL_AS(cuMemsetD8Async, op->hook);

		return ISSUE(f, (op->u.ms.dst, (unsigned char)op->u.ms.val,
				 op->u.ms.w, s));
	}
	case H_cuMemsetD16Async:
	case H_cuMemsetD16Async_ptsz: {
		__typeof__(&w_cuMemsetD16Async) f = REAL_AS(cuMemsetD16Async, op->hook);

		return ISSUE(f, (op->u.ms.dst, (unsigned short)op->u.ms.val,
				 op->u.ms.w, s));
	}
	case H_cuMemsetD2D8Async:
	case H_cuMemsetD2D8Async_ptsz: {
		__typeof__(&w_cuMemsetD2D8Async) f =
			REAL_AS(cuMemsetD2D8Async, op->hook);

		return ISSUE(f, (op->u.ms.dst, op->u.ms.pitch,
				 (unsigned char)op->u.ms.val, op->u.ms.w,
				 op->u.ms.h, s));
	}
	case H_cuMemsetD2D16Async:
	case H_cuMemsetD2D16Async_ptsz: {
		__typeof__(&w_cuMemsetD2D16Async) f =
			REAL_AS(cuMemsetD2D16Async, op->hook);

		return ISSUE(f, (op->u.ms.dst, op->u.ms.pitch,
				 (unsigned short)op->u.ms.val, op->u.ms.w,
				 op->u.ms.h, s));
	}
	case H_cuMemsetD2D32Async:
	case H_cuMemsetD2D32Async_ptsz: {
		__typeof__(&w_cuMemsetD2D32Async) f =
			REAL_AS(cuMemsetD2D32Async, op->hook);

		return ISSUE(f, (op->u.ms.dst, op->u.ms.pitch, op->u.ms.val,
				 op->u.ms.w, op->u.ms.h, s));
	}
	default: {
		__typeof__(&w_cuMemsetD32Async) f = REAL_AS(cuMemsetD32Async, op->hook);

		return ISSUE(f, (op->u.ms.dst, op->u.ms.val, op->u.ms.w, s));
	}
	}
}

CUresult gsp_op_issue(struct gsp_op *op)
{
	CUstream s = op->stream;
	CUresult r;

	/* Transformed, or confined to a green context: spatial*.c issues it. */
	if (op->sp && gsp_sp_issue(op, &r))
		return r;
	switch (op->kind) {
	case OP_LAUNCH: {
		__typeof__(&w_cuLaunchKernel) f = REAL_AS(cuLaunchKernel, op->hook);

		return ISSUE(f, (op->u.k.f, op->u.k.g[0], op->u.k.g[1],
				 op->u.k.g[2], op->u.k.b[0], op->u.k.b[1],
				 op->u.k.b[2], op->u.k.shmem, s,
				 op->u.k.params, op->u.k.extra));
	}
	case OP_COOP: {
		__typeof__(&w_cuLaunchCooperativeKernel) f =
			REAL_AS(cuLaunchCooperativeKernel, op->hook);

		return ISSUE(f, (op->u.k.f, op->u.k.g[0], op->u.k.g[1],
				 op->u.k.g[2], op->u.k.b[0], op->u.k.b[1],
				 op->u.k.b[2], op->u.k.shmem, s,
				 op->u.k.params));
	}
	case OP_LAUNCH_EX: {
		__typeof__(&w_cuLaunchKernelEx) f =
			REAL_AS(cuLaunchKernelEx, op->hook);

		return ISSUE(f, (&op->u.ex.cfg, op->u.ex.f, op->u.ex.params,
				 op->u.ex.extra));
	}
	case OP_GRAPH: {
		__typeof__(&w_cuGraphLaunch) f = REAL_AS(cuGraphLaunch, op->hook);

		return ISSUE(f, (op->u.graph, s));
	}
	case OP_COPY:
		return issue_copy(op);
	case OP_COPY_PEER: {
		__typeof__(&w_cuMemcpyPeerAsync) f =
			REAL_AS(cuMemcpyPeerAsync, op->hook);

		return ISSUE(f, (op->u.cp.dst, op->u.cp.dctx, op->u.cp.src,
				 op->u.cp.sctx, op->u.cp.n, s));
	}
	case OP_COPY_2D: {
		__typeof__(&w_cuMemcpy2DAsync_v2) f =
			REAL_AS(cuMemcpy2DAsync_v2, op->hook);

		return ISSUE(f, (&op->u.c2, s));
	}
	case OP_COPY_3D: {
		__typeof__(&w_cuMemcpy3DAsync_v2) f =
			REAL_AS(cuMemcpy3DAsync_v2, op->hook);

		return ISSUE(f, (&op->u.c3, s));
	}
	case OP_COPY_3D_PEER: {
		__typeof__(&w_cuMemcpy3DPeerAsync) f =
			REAL_AS(cuMemcpy3DPeerAsync, op->hook);

		return ISSUE(f, (&op->u.c3p, s));
	}
	case OP_MEMSET:
	case OP_MEMSET_2D:
		return issue_memset(op);
	case OP_EVENT_RECORD: {
		__typeof__(&w_cuEventRecord) f = REAL_AS(cuEventRecord, op->hook);

		return ISSUE(f, (op->u.ev.ev, s));
	}
	case OP_EVENT_RECORD_FLAGS: {
		__typeof__(&w_cuEventRecordWithFlags) f =
			REAL_AS(cuEventRecordWithFlags, op->hook);

		return ISSUE(f, (op->u.ev.ev, s, op->u.ev.flags));
	}
	case OP_WAIT_EVENT: {
		__typeof__(&w_cuStreamWaitEvent) f =
			REAL_AS(cuStreamWaitEvent, op->hook);

		return ISSUE(f, (s, op->u.ev.ev, op->u.ev.flags));
	}
	case OP_GATE:
		break;
	}
	return CUDA_ERROR_NOT_SUPPORTED;
}
