// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The copy and memset wrappers, synchronous and asynchronous: which
 * engine each one uses, and whether its host side lets it be deferred
 * (pinned or registered memory only). The dispatcher issues the deferred
 * ones in ops_issue.c.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <gspace.h>

#include "ops_internal.h"

/* 1 if the driver knows @p (device, pinned or registered host memory). */
static int known_ptr(const void *p)
{
	static _Atomic(void *) fn;	/* cached real cuPointerGetAttribute */
	CUresult (*get)(void *, CUpointer_attribute, CUdeviceptr);
	unsigned int type = 0;

	*(void **)&get = atomic_load_explicit(&fn, memory_order_relaxed);
	if (!get) {
		*(void **)&get = gsp_real_sym("cuPointerGetAttribute");
		atomic_store(&fn, *(void **)&get);
	}
	return get && get(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
			  (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS;
}

static int host_side(const void *p)
{
	static _Atomic(void *) fn;	/* cached real cuPointerGetAttribute */
	CUresult (*get)(void *, CUpointer_attribute, CUdeviceptr);
	unsigned int type = 0;

	*(void **)&get = atomic_load_explicit(&fn, memory_order_relaxed);
	if (!get) {
		*(void **)&get = gsp_real_sym("cuPointerGetAttribute");
		atomic_store(&fn, *(void **)&get);
	}
	if (!get || get(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
			(CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS)
		return 1;
	return type == CU_MEMORYTYPE_HOST;
}

static uint32_t copy_engine(const void *dst_host, const void *src_host)
{
	if (src_host)
		return GSPACE_ENGINE_COPY_H2D;
	if (dst_host)
		return GSPACE_ENGINE_COPY_D2H;
	return GSPACE_ENGINE_COMPUTE;
}

/* Copies and memsets ------------------------------------------------------- */

#define SYNC_COPY(sym, ptds, dt, st, engine)				\
CUresult w_##sym(dt dst, st src, size_t n)				\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	SYNC_ROUTE(ptds, engine, HOOK_KEY(sym),				\
		   CALL_REAL(sym, (dst, src, n)));			\
}									\
GSP_EXPORT(sym)
SYNC_COPY(cuMemcpy, 0, CUdeviceptr, CUdeviceptr,
	  copy_engine(P(host_side(P(dst))), P(host_side(P(src)))))
SYNC_COPY(cuMemcpy_ptds, 1, CUdeviceptr, CUdeviceptr,
	  copy_engine(P(host_side(P(dst))), P(host_side(P(src)))))
SYNC_COPY(cuMemcpyHtoD_v2, 0, CUdeviceptr, const void *, GSPACE_ENGINE_COPY_H2D)
SYNC_COPY(cuMemcpyHtoD_v2_ptds, 1, CUdeviceptr, const void *, GSPACE_ENGINE_COPY_H2D)
SYNC_COPY(cuMemcpyDtoH_v2, 0, void *, CUdeviceptr, GSPACE_ENGINE_COPY_D2H)
SYNC_COPY(cuMemcpyDtoH_v2_ptds, 1, void *, CUdeviceptr, GSPACE_ENGINE_COPY_D2H)
SYNC_COPY(cuMemcpyDtoD_v2, 0, CUdeviceptr, CUdeviceptr, GSPACE_ENGINE_COMPUTE)
SYNC_COPY(cuMemcpyDtoD_v2_ptds, 1, CUdeviceptr, CUdeviceptr, GSPACE_ENGINE_COMPUTE)

#define SYNC_PEER(sym, ptds)						\
CUresult w_##sym(CUdeviceptr dst, CUcontext dc, CUdeviceptr src,	\
		 CUcontext sc, size_t n)				\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	SYNC_ROUTE(ptds, GSPACE_ENGINE_COMPUTE, HOOK_KEY(sym),		\
		   CALL_REAL(sym, (dst, dc, src, sc, n)));		\
}									\
GSP_EXPORT(sym)
SYNC_PEER(cuMemcpyPeer, 0)
SYNC_PEER(cuMemcpyPeer_ptds, 1)

static uint32_t struct_engine(CUmemorytype st, const void *sh, CUdeviceptr sd,
			      CUmemorytype dt, const void *dh, CUdeviceptr dd)
{
	int src_host = st == CU_MEMORYTYPE_HOST ||
		       (st == CU_MEMORYTYPE_UNIFIED && host_side(P(sd)));
	int dst_host = dt == CU_MEMORYTYPE_HOST ||
		       (dt == CU_MEMORYTYPE_UNIFIED && host_side(P(dd)));

	(void)sh;
	(void)dh;
	return copy_engine(dst_host ? P(1) : NULL, src_host ? P(1) : NULL);
}

/* Can the dispatcher issue it later: no pageable host side. */
static int side_ok(CUmemorytype t, const void *host, CUdeviceptr dev)
{
	if (t == CU_MEMORYTYPE_HOST)
		return known_ptr(host);
	if (t == CU_MEMORYTYPE_UNIFIED)
		return known_ptr(P(dev));
	return 1;
}

#define ENGINE_OF(c) struct_engine((c)->srcMemoryType, (c)->srcHost,	\
				   (c)->srcDevice, (c)->dstMemoryType,	\
				   (c)->dstHost, (c)->dstDevice)
#define DEFERRABLE(c) (side_ok((c)->srcMemoryType, (c)->srcHost,	\
			       (c)->srcDevice) &&			\
		       side_ok((c)->dstMemoryType, (c)->dstHost,	\
			       (c)->dstDevice))

#define SYNC_STRUCT(sym, ptds, T, engine)				\
CUresult w_##sym(const T *c)						\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	SYNC_ROUTE(ptds, c ? (engine) : GSPACE_ENGINE_COMPUTE,		\
		   HOOK_KEY(sym), CALL_REAL(sym, (c)));			\
}									\
GSP_EXPORT(sym)
SYNC_STRUCT(cuMemcpy2D_v2, 0, CUDA_MEMCPY2D, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy2D_v2_ptds, 1, CUDA_MEMCPY2D, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy2DUnaligned_v2, 0, CUDA_MEMCPY2D, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy2DUnaligned_v2_ptds, 1, CUDA_MEMCPY2D, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy3D_v2, 0, CUDA_MEMCPY3D, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy3D_v2_ptds, 1, CUDA_MEMCPY3D, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy3DPeer, 0, CUDA_MEMCPY3D_PEER, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy3DPeer_ptds, 1, CUDA_MEMCPY3D_PEER, ENGINE_OF(c))

#define SYNC_MEMSET(sym, ptds, VT)					\
CUresult w_##sym(CUdeviceptr d, VT v, size_t n)				\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	SYNC_ROUTE(ptds, GSPACE_ENGINE_COMPUTE, HOOK_KEY(sym),		\
		   CALL_REAL(sym, (d, v, n)));				\
}									\
GSP_EXPORT(sym)
SYNC_MEMSET(cuMemsetD8_v2, 0, unsigned char)
SYNC_MEMSET(cuMemsetD8_v2_ptds, 1, unsigned char)
SYNC_MEMSET(cuMemsetD16_v2, 0, unsigned short)
SYNC_MEMSET(cuMemsetD16_v2_ptds, 1, unsigned short)
SYNC_MEMSET(cuMemsetD32_v2, 0, unsigned int)
SYNC_MEMSET(cuMemsetD32_v2_ptds, 1, unsigned int)

#define SYNC_MEMSET2D(sym, ptds, VT)					\
CUresult w_##sym(CUdeviceptr d, size_t pitch, VT v, size_t w,		\
		 size_t h)						\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	SYNC_ROUTE(ptds, GSPACE_ENGINE_COMPUTE, HOOK_KEY(sym),		\
		   CALL_REAL(sym, (d, pitch, v, w, h)));		\
}									\
GSP_EXPORT(sym)
SYNC_MEMSET2D(cuMemsetD2D8_v2, 0, unsigned char)
SYNC_MEMSET2D(cuMemsetD2D8_v2_ptds, 1, unsigned char)
SYNC_MEMSET2D(cuMemsetD2D16_v2, 0, unsigned short)
SYNC_MEMSET2D(cuMemsetD2D16_v2_ptds, 1, unsigned short)
SYNC_MEMSET2D(cuMemsetD2D32_v2, 0, unsigned int)
SYNC_MEMSET2D(cuMemsetD2D32_v2_ptds, 1, unsigned int)

static int fill_copy(struct gsp_op *op, enum gsp_hook_id h, CUdeviceptr dst,
		     CUdeviceptr src, size_t n, int ok)
{
	op->kind = OP_COPY;
	op->hook = h;
	op->u.cp.dst = dst;
	op->u.cp.src = src;
	op->u.cp.n = n;
	return ok ? 0 : -1;
}

#define ASYNC_COPY(sym, ptsz, dt, st, engine, ok)			\
CUresult w_##sym(dt dst, st src, size_t n, CUstream s)			\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	ROUTE(ptsz, s, engine, HOOK_KEY(sym),				\
	      fill_copy(op, H_##sym, U(dst), U(src), n, ok),		\
	      CALL_REAL(sym, (dst, src, n, s)));			\
}									\
GSP_EXPORT(sym)
ASYNC_COPY(cuMemcpyAsync, 0, CUdeviceptr, CUdeviceptr,
	   copy_engine(P(host_side(P(dst))), P(host_side(P(src)))),
	   known_ptr(P(dst)) && known_ptr(P(src)))
ASYNC_COPY(cuMemcpyAsync_ptsz, 1, CUdeviceptr, CUdeviceptr,
	   copy_engine(P(host_side(P(dst))), P(host_side(P(src)))),
	   known_ptr(P(dst)) && known_ptr(P(src)))
ASYNC_COPY(cuMemcpyHtoDAsync_v2, 0, CUdeviceptr, const void *,
	   GSPACE_ENGINE_COPY_H2D, known_ptr(src))
ASYNC_COPY(cuMemcpyHtoDAsync_v2_ptsz, 1, CUdeviceptr, const void *,
	   GSPACE_ENGINE_COPY_H2D, known_ptr(src))
ASYNC_COPY(cuMemcpyDtoHAsync_v2, 0, void *, CUdeviceptr,
	   GSPACE_ENGINE_COPY_D2H, known_ptr(dst))
ASYNC_COPY(cuMemcpyDtoHAsync_v2_ptsz, 1, void *, CUdeviceptr,
	   GSPACE_ENGINE_COPY_D2H, known_ptr(dst))
ASYNC_COPY(cuMemcpyDtoDAsync_v2, 0, CUdeviceptr, CUdeviceptr,
	   GSPACE_ENGINE_COMPUTE, 1)
ASYNC_COPY(cuMemcpyDtoDAsync_v2_ptsz, 1, CUdeviceptr, CUdeviceptr,
	   GSPACE_ENGINE_COMPUTE, 1)

#define ASYNC_PEER(sym, ptsz)						\
CUresult w_##sym(CUdeviceptr dst, CUcontext dc, CUdeviceptr src,	\
		 CUcontext sc, size_t n, CUstream s)			\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	ROUTE(ptsz, s, GSPACE_ENGINE_COMPUTE, HOOK_KEY(sym),		\
	      (op->u.cp.dctx = dc, op->u.cp.sctx = sc,			\
	       fill_copy(op, H_##sym, dst, src, n, 1),			\
	       op->kind = OP_COPY_PEER, 0),				\
	      CALL_REAL(sym, (dst, dc, src, sc, n, s)));		\
}									\
GSP_EXPORT(sym)
ASYNC_PEER(cuMemcpyPeerAsync, 0)
ASYNC_PEER(cuMemcpyPeerAsync_ptsz, 1)

#define ASYNC_STRUCT(sym, ptsz, T, field, KIND)				\
CUresult w_##sym(const T *c, CUstream s)				\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	if (!c)								\
		return CALL_REAL(sym, (c, s));				\
	ROUTE(ptsz, s, ENGINE_OF(c), HOOK_KEY(sym),			\
	      (op->kind = KIND, op->hook = H_##sym, op->u.field = *c,	\
	       DEFERRABLE(c) ? 0 : -1),					\
	      CALL_REAL(sym, (c, s)));					\
}									\
GSP_EXPORT(sym)
ASYNC_STRUCT(cuMemcpy2DAsync_v2, 0, CUDA_MEMCPY2D, c2, OP_COPY_2D)
ASYNC_STRUCT(cuMemcpy2DAsync_v2_ptsz, 1, CUDA_MEMCPY2D, c2, OP_COPY_2D)
ASYNC_STRUCT(cuMemcpy3DAsync_v2, 0, CUDA_MEMCPY3D, c3, OP_COPY_3D)
ASYNC_STRUCT(cuMemcpy3DAsync_v2_ptsz, 1, CUDA_MEMCPY3D, c3, OP_COPY_3D)
ASYNC_STRUCT(cuMemcpy3DPeerAsync, 0, CUDA_MEMCPY3D_PEER, c3p, OP_COPY_3D_PEER)
ASYNC_STRUCT(cuMemcpy3DPeerAsync_ptsz, 1, CUDA_MEMCPY3D_PEER, c3p,
	     OP_COPY_3D_PEER)

#define ASYNC_MEMSET(sym, ptsz, VT)					\
CUresult w_##sym(CUdeviceptr d, VT v, size_t n, CUstream s)		\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	ROUTE(ptsz, s, GSPACE_ENGINE_COMPUTE, HOOK_KEY(sym),		\
	      (op->kind = OP_MEMSET, op->hook = H_##sym, op->u.ms.dst = d, \
	       op->u.ms.val = v, op->u.ms.w = n, 0),			\
	      CALL_REAL(sym, (d, v, n, s)));				\
}									\
GSP_EXPORT(sym)
ASYNC_MEMSET(cuMemsetD8Async, 0, unsigned char)
ASYNC_MEMSET(cuMemsetD8Async_ptsz, 1, unsigned char)
ASYNC_MEMSET(cuMemsetD16Async, 0, unsigned short)
ASYNC_MEMSET(cuMemsetD16Async_ptsz, 1, unsigned short)
ASYNC_MEMSET(cuMemsetD32Async, 0, unsigned int)
ASYNC_MEMSET(cuMemsetD32Async_ptsz, 1, unsigned int)

#define ASYNC_MEMSET2D(sym, ptsz, VT)					\
CUresult w_##sym(CUdeviceptr d, size_t pitch, VT v, size_t w,		\
		 size_t h, CUstream s)					\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	ROUTE(ptsz, s, GSPACE_ENGINE_COMPUTE, HOOK_KEY(sym),		\
	      (op->kind = OP_MEMSET_2D, op->hook = H_##sym,		\
	       op->u.ms.dst = d, op->u.ms.pitch = pitch, op->u.ms.val = v, \
	       op->u.ms.w = w, op->u.ms.h = h, 0),			\
	      CALL_REAL(sym, (d, pitch, v, w, h, s)));			\
}									\
GSP_EXPORT(sym)
ASYNC_MEMSET2D(cuMemsetD2D8Async, 0, unsigned char)
ASYNC_MEMSET2D(cuMemsetD2D8Async_ptsz, 1, unsigned char)
ASYNC_MEMSET2D(cuMemsetD2D16Async, 0, unsigned short)
ASYNC_MEMSET2D(cuMemsetD2D16Async_ptsz, 1, unsigned short)
ASYNC_MEMSET2D(cuMemsetD2D32Async, 0, unsigned int)
ASYNC_MEMSET2D(cuMemsetD2D32Async_ptsz, 1, unsigned int)
