// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The wrappers: every hooked driver entry point, what each does in the
 * three modes (pass-through, BE deferral or gating, LC fast path), how a
 * deferred call's arguments are copied, how the dispatcher issues it, and
 * at the end the hook table and our exported symbols.
 *
 * Over 800 lines: one X-macro table (hooks.h) generates the wrappers, the
 * dispatcher's issue and the exports, and they must stay in one
 * translation unit with the table; issue 33 moves copies and launches
 * apart.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <gspace.h>

#include "lcprio.h"
#include "preload.h"
#include "spatial.h"

#define MAX_PARAMS	4096

static CUcontext cur_ctx(void)
{
	static _Atomic(void *) fn;	/* cached real cuCtxGetCurrent */
	CUresult (*get)(CUcontext *);
	CUcontext c = NULL;

	*(void **)&get = atomic_load_explicit(&fn, memory_order_relaxed);
	if (!get) {
		*(void **)&get = gsp_real_sym("cuCtxGetCurrent");
		atomic_store(&fn, *(void **)&get);
	}
	if (!get || get(&c) != CUDA_SUCCESS)
		return NULL;
	return c;
}

CUstream gsp_event_stream(CUstream s, int ptsz)
{
	return ptsz && !s ? CU_STREAM_PER_THREAD : s;
}

/* The calling thread's own default stream: only it can issue there. */
static int thread_stream(CUstream s, int ptsz)
{
	return s == CU_STREAM_PER_THREAD || (ptsz && !s);
}

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

/* Kernel parameter sizes ---------------------------------------------------- */

struct pinfo {
	int n;			/* -1: the driver cannot tell us */
	size_t size[];
};

static struct pinfo no_pinfo = { .n = -1 };

/*
 * Sizes of @f's parameters: cuFuncGetParamInfo, or cuKernelGetParamInfo
 * for the CUkernel handles cudart passes as functions. Past the last
 * parameter the driver says CUDA_ERROR_INVALID_VALUE; any other error at
 * index 0 means it cannot tell, and the launch is gated instead.
 */
static const struct pinfo *param_info(CUfunction f)
{
	typedef CUresult (*info_fn)(void *, size_t, size_t *, size_t *);
	struct gsp_key *k = gsp_key(f);
	info_fn get;
	struct pinfo *pi;
	void *expect = NULL;
	size_t off, sz, i;
	CUresult r;

	if (!k)
		return &no_pinfo;
	pi = atomic_load_explicit(&k->pinfo, memory_order_acquire);
	if (pi)
		return pi;
	*(void **)&get = gsp_real_sym("cuFuncGetParamInfo");
	r = get ? get(f, 0, &off, &sz) : CUDA_ERROR_NOT_FOUND;
	if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE) {
		*(void **)&get = gsp_real_sym("cuKernelGetParamInfo");
		r = get ? get(f, 0, &off, &sz) : CUDA_ERROR_NOT_FOUND;
	}
	if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE) {
		/* Remember the answer: the driver will not know better later. */
		atomic_compare_exchange_strong(&k->pinfo, &expect, &no_pinfo);
		return &no_pinfo;
	}
	for (i = 0; r == CUDA_SUCCESS && i < MAX_PARAMS; i++)
		r = get(f, i + 1, &off, &sz);
	pi = malloc(sizeof(*pi) + i * sizeof(size_t));
	if (!pi)
		return &no_pinfo;
	pi->n = (int)i;
	for (i = 0; i < (size_t)pi->n; i++)
		get(f, i, &off, &pi->size[i]);
	/* Cached for the life of the process, like the function itself. */
	if (!atomic_compare_exchange_strong(&k->pinfo, &expect, pi)) {
		free(pi);
		return expect;
	}
	return pi;
}

/*
 * Copies a launch's arguments into @op->buf; returns the params and extra
 * arrays the dispatcher passes, or -1 if they cannot be copied safely.
 */
static int copy_args(struct gsp_op *op, CUfunction f, void **params,
		     void **extra, void ***oparams, void ***oextra)
{
	*oparams = NULL;
	*oextra = NULL;
	op->nparams = extra ? -1 : 0;
	if (params && extra)
		return -1;
	if (params) {
		const struct pinfo *pi = param_info(f);
		size_t total = 0, at;
		char *data;
		int i;

		if (pi->n < 0)
			return -1;
		if (!pi->n)
			return 0;	/* no parameters: nothing to copy */
		for (i = 0; i < pi->n; i++)
			total += (pi->size[i] + 15) & ~(size_t)15;
		op->buflen = pi->n * sizeof(void *) + total;
		op->buf = malloc(op->buflen);
		if (!op->buf)
			return -1;
		op->nparams = pi->n;
		*oparams = op->buf;
		data = (char *)op->buf + pi->n * sizeof(void *);
		for (i = 0, at = 0; i < pi->n; i++) {
			memcpy(data + at, params[i], pi->size[i]);
			(*oparams)[i] = data + at;
			at += (pi->size[i] + 15) & ~(size_t)15;
		}
		return 0;
	}
	if (extra) {
		void *ptr = NULL;
		size_t *psize = NULL;
		void **x;
		char *data;
		int i;

		for (i = 0; extra[i] && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
			if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
				ptr = extra[i + 1];
			else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
				psize = extra[i + 1];
			else
				return -1;
		}
		if (!ptr || !psize)
			return -1;
		op->buf = malloc(5 * sizeof(void *) + sizeof(size_t) + *psize);
		if (!op->buf)
			return -1;
		x = op->buf;
		data = (char *)(x + 5) + sizeof(size_t);
		memcpy(data, ptr, *psize);
		memcpy(x + 5, psize, sizeof(size_t));
		x[0] = CU_LAUNCH_PARAM_BUFFER_POINTER;
		x[1] = data;
		x[2] = CU_LAUNCH_PARAM_BUFFER_SIZE;
		x[3] = x + 5;
		x[4] = CU_LAUNCH_PARAM_END;
		*oextra = x;
	}
	return 0;
}

/* The three modes, shared by every stream-ordered wrapper ------------------- */

/*
 * DEFER(...): @FILL sets up op (kind, hook, engine, key, u) and evaluates
 * to 0, or -1 when the call cannot be deferred; @CALL is the real call.
 */
#define ROUTE(R_PT, R_S, R_ENG, R_KEY, FILL, CALL)				\
	do {								\
		enum gsp_mode m_ = gsp_mode();				\
		CUcontext c_;						\
		CUresult r_;						\
									\
		if (m_ == GSP_MODE_OFF || gsp_capturing((R_S), (R_PT))) {	\
			atomic_fetch_add_explicit(&gsp_ctr.passthroughs, 1, \
						  memory_order_relaxed); \
			return CALL;					\
		}							\
		if (m_ == GSP_MODE_LC) {				\
			struct gsp_lc_ticket t_;			\
			CUstream es_ = gsp_event_stream((R_S), (R_PT));	\
									\
			gsp_lc_begin(&t_, (R_KEY), es_);			\
			r_ = CALL;					\
			gsp_lc_end(&t_, (R_KEY), (R_ENG), es_);		\
			return r_;					\
		}							\
		c_ = cur_ctx();						\
		if (c_ && !thread_stream((R_S), (R_PT))) {		\
			struct gsp_op *op = calloc(1, sizeof(*op));	\
									\
			if (op) {					\
				op->ctx = c_;				\
				op->stream = (R_S);			\
				op->engine = (R_ENG);			\
				op->key = (R_KEY);			\
				if ((FILL) == 0) {			\
					gsp_enqueue(op);		\
					return CUDA_SUCCESS;		\
				}					\
				free(op->buf);				\
				free(op->buf2);				\
				free(op);				\
			}						\
		}							\
		{							\
			struct gsp_gate_ticket t_;			\
									\
			gsp_gate_begin(&t_, (R_ENG), c_,		\
				       gsp_event_stream((R_S), (R_PT)), (R_KEY)); \
			r_ = CALL;					\
			gsp_gate_end(&t_, r_);				\
			return gsp_sticky(t_.sticky, r_);		\
		}							\
	} while (0)

/* Synchronous calls: drain, gate (timed on the host), call. */
#define SYNC_ROUTE(R_PT, R_ENG, R_KEY, CALL)				\
	do {								\
		enum gsp_mode m_ = gsp_mode();				\
		struct gsp_gate_ticket t_;				\
		CUresult r_;						\
									\
		if (m_ == GSP_MODE_LC) {				\
			struct gsp_lc_ticket l_;			\
			CUstream es_ = gsp_event_stream(NULL, (R_PT));	\
									\
			gsp_lc_begin(&l_, (R_KEY), es_);			\
			r_ = CALL;					\
			gsp_lc_end(&l_, (R_KEY), (R_ENG), es_);		\
			return r_;					\
		}							\
		if (m_ == GSP_MODE_OFF)					\
			atomic_fetch_add_explicit(&gsp_ctr.passthroughs, 1, \
						  memory_order_relaxed); \
		gsp_gate_begin(&t_, (R_ENG), cur_ctx(), NULL, (R_KEY));	\
		r_ = CALL;						\
		gsp_gate_end(&t_, r_);					\
		return gsp_sticky(t_.sticky, r_);			\
	} while (0)

#define HOOK_KEY(sym) ((const void *)&gsp_hooks[H_##sym])

/* Calls the real variant, or says the driver lacks it. */
#define CALL_REAL(sym, args)						\
	({								\
		__typeof__(&w_##sym) f_ = REAL(sym);			\
		f_ ? f_ args : CUDA_ERROR_NOT_FOUND;			\
	})

static uint32_t copy_engine(const void *dst_host, const void *src_host)
{
	if (src_host)
		return GSPACE_ENGINE_COPY_H2D;
	if (dst_host)
		return GSPACE_ENGINE_COPY_D2H;
	return GSPACE_ENGINE_COMPUTE;
}

/* Launches ------------------------------------------------------------------- */

static int fill_launch(struct gsp_op *op, enum gsp_hook_id h, CUfunction f,
		       unsigned int gx, unsigned int gy, unsigned int gz,
		       unsigned int bx, unsigned int by, unsigned int bz,
		       unsigned int shmem, void **params, void **extra,
		       enum gsp_op_kind kind)
{
	op->kind = kind;
	op->hook = h;
	op->u.k.f = f;
	op->u.k.g[0] = gx;
	op->u.k.g[1] = gy;
	op->u.k.g[2] = gz;
	op->u.k.b[0] = bx;
	op->u.k.b[1] = by;
	op->u.k.b[2] = bz;
	op->u.k.shmem = shmem;
	return copy_args(op, f, params, extra, &op->u.k.params, &op->u.k.extra);
}

#define LAUNCH_WRAPPER(sym, ptsz)					\
static CUresult w_##sym(CUfunction f, unsigned int gx, unsigned int gy,	\
			unsigned int gz, unsigned int bx, unsigned int by, \
			unsigned int bz, unsigned int shmem, CUstream s, \
			void **params, void **extra)			\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.launches, 1, memory_order_relaxed); \
	LCPRIO_ROUTE(ptsz, s, (const void *)f,				\
		     CALL_REAL(sym, (f, gx, gy, gz, bx, by, bz, shmem, ps_, \
				     params, extra)));			\
	ROUTE(ptsz, s, GSPACE_ENGINE_COMPUTE, (const void *)f,		\
	      fill_launch(op, H_##sym, f, gx, gy, gz, bx, by, bz, shmem,	\
			  params, extra, OP_LAUNCH),			\
	      CALL_REAL(sym, (f, gx, gy, gz, bx, by, bz, shmem, s, params, \
			      extra)));					\
}
LAUNCH_WRAPPER(cuLaunchKernel, 0)
LAUNCH_WRAPPER(cuLaunchKernel_ptsz, 1)

#define COOP_WRAPPER(sym, ptsz)						\
static CUresult w_##sym(CUfunction f, unsigned int gx, unsigned int gy,	\
			unsigned int gz, unsigned int bx, unsigned int by, \
			unsigned int bz, unsigned int shmem, CUstream s, \
			void **params)					\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.launches, 1, memory_order_relaxed); \
	LCPRIO_ROUTE(ptsz, s, (const void *)f,				\
		     CALL_REAL(sym, (f, gx, gy, gz, bx, by, bz, shmem, ps_, \
				     params)));				\
	ROUTE(ptsz, s, GSPACE_ENGINE_COMPUTE, (const void *)f,		\
	      fill_launch(op, H_##sym, f, gx, gy, gz, bx, by, bz, shmem,	\
			  params, NULL, OP_COOP),			\
	      CALL_REAL(sym, (f, gx, gy, gz, bx, by, bz, shmem, s, params))); \
}
COOP_WRAPPER(cuLaunchCooperativeKernel, 0)
COOP_WRAPPER(cuLaunchCooperativeKernel_ptsz, 1)

static int fill_launch_ex(struct gsp_op *op, enum gsp_hook_id h,
			  const CUlaunchConfig *cfg, CUfunction f,
			  void **params, void **extra)
{
	size_t an = cfg->numAttrs * sizeof(CUlaunchAttribute);

	op->kind = OP_LAUNCH_EX;
	op->hook = h;
	op->u.ex.cfg = *cfg;
	op->u.ex.f = f;
	if (copy_args(op, f, params, extra, &op->u.ex.params, &op->u.ex.extra))
		return -1;
	if (!an)
		return 0;
	op->buf2 = malloc(an);
	if (!op->buf2)
		return -1;
	memcpy(op->buf2, cfg->attrs, an);
	op->u.ex.cfg.attrs = op->buf2;
	return 0;
}

#define LAUNCH_EX_WRAPPER(sym, ptsz)					\
static CUresult w_##sym(const CUlaunchConfig *cfg, CUfunction f,	\
			void **params, void **extra)			\
{									\
	CUstream s_ = cfg ? cfg->hStream : NULL;			\
	CUlaunchConfig lc_;						\
									\
	atomic_fetch_add_explicit(&gsp_ctr.launches, 1, memory_order_relaxed); \
	if (!cfg)							\
		return CALL_REAL(sym, (cfg, f, params, extra));		\
	LCPRIO_ROUTE(ptsz, s_, (const void *)f,				\
		     CALL_REAL(sym, (gsp_lcprio_cfg(&lc_, cfg, ps_), f,	\
				     params, extra)));			\
	ROUTE(ptsz, s_, GSPACE_ENGINE_COMPUTE, (const void *)f,		\
	      fill_launch_ex(op, H_##sym, cfg, f, params, extra),	\
	      CALL_REAL(sym, (cfg, f, params, extra)));			\
}
LAUNCH_EX_WRAPPER(cuLaunchKernelEx, 0)
LAUNCH_EX_WRAPPER(cuLaunchKernelEx_ptsz, 1)

#define GRAPH_WRAPPER(sym, ptsz)					\
static CUresult w_##sym(CUgraphExec g, CUstream s)			\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.launches, 1, memory_order_relaxed); \
	LCPRIO_ROUTE(ptsz, s, (const void *)g, CALL_REAL(sym, (g, ps_))); \
	ROUTE(ptsz, s, GSPACE_ENGINE_COMPUTE, (const void *)g,		\
	      (op->kind = OP_GRAPH, op->hook = H_##sym, op->u.graph = g, 0), \
	      CALL_REAL(sym, (g, s)));					\
}
GRAPH_WRAPPER(cuGraphLaunch, 0)
GRAPH_WRAPPER(cuGraphLaunch_ptsz, 1)

/* Copies and memsets ------------------------------------------------------- */

#define P(x) ((const void *)(uintptr_t)(x))
#define U(x) ((CUdeviceptr)(uintptr_t)(x))

#define SYNC_COPY(sym, ptds, dt, st, engine)				\
static CUresult w_##sym(dt dst, st src, size_t n)			\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	SYNC_ROUTE(ptds, engine, HOOK_KEY(sym),				\
		   CALL_REAL(sym, (dst, src, n)));			\
}
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
static CUresult w_##sym(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, \
			CUcontext sc, size_t n)				\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	SYNC_ROUTE(ptds, GSPACE_ENGINE_COMPUTE, HOOK_KEY(sym),		\
		   CALL_REAL(sym, (dst, dc, src, sc, n)));		\
}
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
static CUresult w_##sym(const T *c)					\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	SYNC_ROUTE(ptds, c ? (engine) : GSPACE_ENGINE_COMPUTE,		\
		   HOOK_KEY(sym), CALL_REAL(sym, (c)));			\
}
SYNC_STRUCT(cuMemcpy2D_v2, 0, CUDA_MEMCPY2D, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy2D_v2_ptds, 1, CUDA_MEMCPY2D, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy2DUnaligned_v2, 0, CUDA_MEMCPY2D, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy2DUnaligned_v2_ptds, 1, CUDA_MEMCPY2D, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy3D_v2, 0, CUDA_MEMCPY3D, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy3D_v2_ptds, 1, CUDA_MEMCPY3D, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy3DPeer, 0, CUDA_MEMCPY3D_PEER, ENGINE_OF(c))
SYNC_STRUCT(cuMemcpy3DPeer_ptds, 1, CUDA_MEMCPY3D_PEER, ENGINE_OF(c))

#define SYNC_MEMSET(sym, ptds, VT)					\
static CUresult w_##sym(CUdeviceptr d, VT v, size_t n)			\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	SYNC_ROUTE(ptds, GSPACE_ENGINE_COMPUTE, HOOK_KEY(sym),		\
		   CALL_REAL(sym, (d, v, n)));				\
}
SYNC_MEMSET(cuMemsetD8_v2, 0, unsigned char)
SYNC_MEMSET(cuMemsetD8_v2_ptds, 1, unsigned char)
SYNC_MEMSET(cuMemsetD16_v2, 0, unsigned short)
SYNC_MEMSET(cuMemsetD16_v2_ptds, 1, unsigned short)
SYNC_MEMSET(cuMemsetD32_v2, 0, unsigned int)
SYNC_MEMSET(cuMemsetD32_v2_ptds, 1, unsigned int)

#define SYNC_MEMSET2D(sym, ptds, VT)					\
static CUresult w_##sym(CUdeviceptr d, size_t pitch, VT v, size_t w,	\
			size_t h)					\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	SYNC_ROUTE(ptds, GSPACE_ENGINE_COMPUTE, HOOK_KEY(sym),		\
		   CALL_REAL(sym, (d, pitch, v, w, h)));		\
}
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
static CUresult w_##sym(dt dst, st src, size_t n, CUstream s)		\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	ROUTE(ptsz, s, engine, HOOK_KEY(sym),				\
	      fill_copy(op, H_##sym, U(dst), U(src), n, ok),		\
	      CALL_REAL(sym, (dst, src, n, s)));			\
}
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
static CUresult w_##sym(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, \
			CUcontext sc, size_t n, CUstream s)		\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	ROUTE(ptsz, s, GSPACE_ENGINE_COMPUTE, HOOK_KEY(sym),		\
	      (op->u.cp.dctx = dc, op->u.cp.sctx = sc,			\
	       fill_copy(op, H_##sym, dst, src, n, 1),			\
	       op->kind = OP_COPY_PEER, 0),				\
	      CALL_REAL(sym, (dst, dc, src, sc, n, s)));		\
}
ASYNC_PEER(cuMemcpyPeerAsync, 0)
ASYNC_PEER(cuMemcpyPeerAsync_ptsz, 1)

#define ASYNC_STRUCT(sym, ptsz, T, field, KIND)				\
static CUresult w_##sym(const T *c, CUstream s)				\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	if (!c)								\
		return CALL_REAL(sym, (c, s));				\
	ROUTE(ptsz, s, ENGINE_OF(c), HOOK_KEY(sym),			\
	      (op->kind = KIND, op->hook = H_##sym, op->u.field = *c,	\
	       DEFERRABLE(c) ? 0 : -1),					\
	      CALL_REAL(sym, (c, s)));					\
}
ASYNC_STRUCT(cuMemcpy2DAsync_v2, 0, CUDA_MEMCPY2D, c2, OP_COPY_2D)
ASYNC_STRUCT(cuMemcpy2DAsync_v2_ptsz, 1, CUDA_MEMCPY2D, c2, OP_COPY_2D)
ASYNC_STRUCT(cuMemcpy3DAsync_v2, 0, CUDA_MEMCPY3D, c3, OP_COPY_3D)
ASYNC_STRUCT(cuMemcpy3DAsync_v2_ptsz, 1, CUDA_MEMCPY3D, c3, OP_COPY_3D)
ASYNC_STRUCT(cuMemcpy3DPeerAsync, 0, CUDA_MEMCPY3D_PEER, c3p, OP_COPY_3D_PEER)
ASYNC_STRUCT(cuMemcpy3DPeerAsync_ptsz, 1, CUDA_MEMCPY3D_PEER, c3p,
	     OP_COPY_3D_PEER)

#define ASYNC_MEMSET(sym, ptsz, VT)					\
static CUresult w_##sym(CUdeviceptr d, VT v, size_t n, CUstream s)	\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	ROUTE(ptsz, s, GSPACE_ENGINE_COMPUTE, HOOK_KEY(sym),		\
	      (op->kind = OP_MEMSET, op->hook = H_##sym, op->u.ms.dst = d, \
	       op->u.ms.val = v, op->u.ms.w = n, 0),			\
	      CALL_REAL(sym, (d, v, n, s)));				\
}
ASYNC_MEMSET(cuMemsetD8Async, 0, unsigned char)
ASYNC_MEMSET(cuMemsetD8Async_ptsz, 1, unsigned char)
ASYNC_MEMSET(cuMemsetD16Async, 0, unsigned short)
ASYNC_MEMSET(cuMemsetD16Async_ptsz, 1, unsigned short)
ASYNC_MEMSET(cuMemsetD32Async, 0, unsigned int)
ASYNC_MEMSET(cuMemsetD32Async_ptsz, 1, unsigned int)

#define ASYNC_MEMSET2D(sym, ptsz, VT)					\
static CUresult w_##sym(CUdeviceptr d, size_t pitch, VT v, size_t w,	\
			size_t h, CUstream s)				\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.copies, 1, memory_order_relaxed); \
	ROUTE(ptsz, s, GSPACE_ENGINE_COMPUTE, HOOK_KEY(sym),		\
	      (op->kind = OP_MEMSET_2D, op->hook = H_##sym,		\
	       op->u.ms.dst = d, op->u.ms.pitch = pitch, op->u.ms.val = v, \
	       op->u.ms.w = w, op->u.ms.h = h, 0),			\
	      CALL_REAL(sym, (d, pitch, v, w, h, s)));			\
}
ASYNC_MEMSET2D(cuMemsetD2D8Async, 0, unsigned char)
ASYNC_MEMSET2D(cuMemsetD2D8Async_ptsz, 1, unsigned char)
ASYNC_MEMSET2D(cuMemsetD2D16Async, 0, unsigned short)
ASYNC_MEMSET2D(cuMemsetD2D16Async_ptsz, 1, unsigned short)
ASYNC_MEMSET2D(cuMemsetD2D32Async, 0, unsigned int)
ASYNC_MEMSET2D(cuMemsetD2D32Async_ptsz, 1, unsigned int)

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
static CUresult w_##sym(CUevent e, CUstream s)				\
{									\
	EVENT_ROUTE(ptsz, s, (op->kind = OP_EVENT_RECORD, op->hook = H_##sym, \
			      op->u.ev.ev = e, 0),			\
		    CALL_REAL(sym, (e, s)));				\
}
EVREC(cuEventRecord, 0)
EVREC(cuEventRecord_ptsz, 1)

#define EVRECF(sym, ptsz)						\
static CUresult w_##sym(CUevent e, CUstream s, unsigned int fl)		\
{									\
	EVENT_ROUTE(ptsz, s, (op->kind = OP_EVENT_RECORD_FLAGS,		\
			      op->hook = H_##sym, op->u.ev.ev = e,	\
			      op->u.ev.flags = fl, 0),			\
		    CALL_REAL(sym, (e, s, fl)));			\
}
EVRECF(cuEventRecordWithFlags, 0)
EVRECF(cuEventRecordWithFlags_ptsz, 1)

#define WAITEV(sym, ptsz)						\
static CUresult w_##sym(CUstream s, CUevent e, unsigned int fl)		\
{									\
	EVENT_ROUTE(ptsz, s, (op->kind = OP_WAIT_EVENT, op->hook = H_##sym, \
			      op->u.ev.ev = e, op->u.ev.flags = fl, 0),	\
		    CALL_REAL(sym, (s, e, fl)));			\
}
WAITEV(cuStreamWaitEvent, 0)
WAITEV(cuStreamWaitEvent_ptsz, 1)

/* Sync points ------------------------------------------------------------------ */

static CUresult sync_enter(void)
{
	gsp_mode();
	return gsp_drain();
}

#define SYNCPT(sym, params, args)					\
static CUresult w_##sym params						\
{									\
	CUresult s_ = sync_enter();					\
									\
	return gsp_sticky(s_, CALL_REAL(sym, args));			\
}
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
static CUresult w_##sym params						\
{									\
	CUresult s_ = sync_enter(), r_;					\
									\
	GONE;								\
	r_ = CALL_REAL(sym, args);					\
	return gsp_sticky(s_, r_);					\
}
SYNC_GONE(cuCtxDestroy_v2, (CUcontext c), (c),
	  (gsp_sp_ctx_gone(c, 0), gsp_lcprio_ctx_gone(c, 0)))
SYNC_GONE(cuDevicePrimaryCtxRelease_v2, (CUdevice d), (d),
	  (gsp_sp_ctx_gone(NULL, d), gsp_lcprio_ctx_gone(NULL, d)))
SYNC_GONE(cuDevicePrimaryCtxReset_v2, (CUdevice d), (d),
	  (gsp_sp_ctx_gone(NULL, d), gsp_lcprio_ctx_gone(NULL, d)))

#define SYNC_UNLOAD(sym, T)						\
static CUresult w_##sym(T h)						\
{									\
	CUresult s_ = sync_enter(), r_ = CALL_REAL(sym, (h));		\
									\
	if (r_ == CUDA_SUCCESS)						\
		gsp_sp_forget(h);					\
	return gsp_sticky(s_, r_);					\
}
SYNC_UNLOAD(cuModuleUnload, CUmodule)
SYNC_UNLOAD(cuLibraryUnload, CUlibrary)

/* Module loads: passed through unchanged, recorded for spatial sharing. --- */

/*
 * gsp_mode() first: the first intercepted call opens the tenant, which
 * decides whether spatial sharing is on.
 */
static CUresult w_cuModuleLoad(CUmodule *m, const char *fname)
{
	CUresult r;

	gsp_mode();
	r = CALL_REAL(cuModuleLoad, (m, fname));
	if (r == CUDA_SUCCESS && m)
		gsp_sp_image_file(*m, fname);
	return r;
}

static CUresult w_cuModuleLoadData(CUmodule *m, const void *image)
{
	CUresult r;

	gsp_mode();
	r = CALL_REAL(cuModuleLoadData, (m, image));
	if (r == CUDA_SUCCESS && m)
		gsp_sp_image(*m, image, SIZE_MAX);
	return r;
}

static CUresult w_cuModuleLoadDataEx(CUmodule *m, const void *image,
				     unsigned int n, CUjit_option *o, void **v)
{
	CUresult r;

	gsp_mode();
	r = CALL_REAL(cuModuleLoadDataEx, (m, image, n, o, v));
	if (r == CUDA_SUCCESS && m)
		gsp_sp_image(*m, image, SIZE_MAX);
	return r;
}

static CUresult w_cuModuleLoadFatBinary(CUmodule *m, const void *fat)
{
	CUresult r;

	gsp_mode();
	r = CALL_REAL(cuModuleLoadFatBinary, (m, fat));
	if (r == CUDA_SUCCESS && m)
		gsp_sp_image(*m, fat, SIZE_MAX);
	return r;
}

static CUresult w_cuLibraryLoadData(CUlibrary *l, const void *code,
				    CUjit_option *jo, void **jv, unsigned int jn,
				    CUlibraryOption *lo, void **lv,
				    unsigned int ln)
{
	CUresult r;

	gsp_mode();
	r = CALL_REAL(cuLibraryLoadData, (l, code, jo, jv, jn, lo, lv, ln));
	if (r == CUDA_SUCCESS && l)
		gsp_sp_lib_image(*l, code, SIZE_MAX);
	return r;
}

static CUresult w_cuLibraryLoadFromFile(CUlibrary *l, const char *fname,
					CUjit_option *jo, void **jv,
					unsigned int jn, CUlibraryOption *lo,
					void **lv, unsigned int ln)
{
	CUresult r;

	gsp_mode();
	r = CALL_REAL(cuLibraryLoadFromFile, (l, fname, jo, jv, jn, lo, lv, ln));
	if (r == CUDA_SUCCESS && l)
		gsp_sp_lib_image_file(*l, fname);
	return r;
}

static CUresult w_cuModuleGetFunction(CUfunction *f, CUmodule m,
				      const char *name)
{
	CUresult r = CALL_REAL(cuModuleGetFunction, (f, m, name));

	if (r == CUDA_SUCCESS && f && name)
		gsp_sp_child(*f, m, name);
	return r;
}

static CUresult w_cuLibraryGetKernel(CUkernel *k, CUlibrary l,
				     const char *name)
{
	CUresult r = CALL_REAL(cuLibraryGetKernel, (k, l, name));

	if (r == CUDA_SUCCESS && k && name)
		gsp_sp_child(*k, l, name);
	return r;
}

static CUresult w_cuLibraryGetModule(CUmodule *m, CUlibrary l)
{
	CUresult r = CALL_REAL(cuLibraryGetModule, (m, l));

	if (r == CUDA_SUCCESS && m)
		gsp_sp_child(*m, l, NULL);
	return r;
}

static CUresult w_cuKernelGetFunction(CUfunction *f, CUkernel k)
{
	CUresult r = CALL_REAL(cuKernelGetFunction, (f, k));

	/* The function keeps its kernel's name (a NULL name says so). */
	if (r == CUDA_SUCCESS && f)
		gsp_sp_child(*f, k, NULL);
	return r;
}

#define BEGIN_CAPTURE(sym)						\
static CUresult w_##sym(CUstream s, CUstreamCaptureMode mode)		\
{									\
	CUresult s_ = sync_enter(), r_ = CALL_REAL(sym, (s, mode));	\
									\
	if (r_ == CUDA_SUCCESS)						\
		gsp_capture_note(1);					\
	return gsp_sticky(s_, r_);					\
}
BEGIN_CAPTURE(cuStreamBeginCapture_v2)
BEGIN_CAPTURE(cuStreamBeginCapture_v2_ptsz)

#define END_CAPTURE(sym)						\
static CUresult w_##sym(CUstream s, CUgraph *g)				\
{									\
	CUresult s_ = sync_enter(), r_ = CALL_REAL(sym, (s, g));	\
									\
	/* Capture ends whether or not the graph is valid. */		\
	gsp_capture_note(-1);						\
	return gsp_sticky(s_, r_);					\
}
END_CAPTURE(cuStreamEndCapture)
END_CAPTURE(cuStreamEndCapture_ptsz)

/* Stream creation: an LC tenant's streams get the greatest priority. ------ */

static CUresult w_cuStreamCreate(CUstream *s, unsigned int flags)
{
	return gsp_lcprio_create(s, flags, 0, 0);
}

static CUresult w_cuStreamCreateWithPriority(CUstream *s, unsigned int flags,
					     int prio)
{
	return gsp_lcprio_create(s, flags, prio, 1);
}

/* cuGetProcAddress ---------------------------------------------------------- */

/* Swaps in our wrapper when the driver resolved a variant we implement. */
static void proc_fixup(const char *api, void **pfn, int ver, uint64_t flags)
{
	int known, i;

	if (!api || !pfn || !*pfn)
		return;
	i = gsp_hook_select(api, ver, flags, &known);
	if (i >= 0) {
		struct gsp_hook *h = &gsp_hooks[i];
		void *expect = NULL;

		if (*pfn != h->wrapper) {
			atomic_compare_exchange_strong(&h->real, &expect, *pfn);
			*pfn = h->wrapper;
		}
		return;
	}
	if (known) {
		i = gsp_hook_by_api(api);
		gsp_warn_once(&gsp_hooks[i].warned,
			      "passing through %s (no wrapper for its variant at cudaVersion %d, flags %#llx)",
			      api, ver, (unsigned long long)flags);
	}
}

static CUresult w_cuGetProcAddress(const char *sym, void **pfn, int ver,
				   cuuint64_t flags)
{
	CUresult r = CALL_REAL(cuGetProcAddress, (sym, pfn, ver, flags));

	if (r == CUDA_SUCCESS)
		proc_fixup(sym, pfn, ver, flags);
	return r;
}

static CUresult w_cuGetProcAddress_v2(const char *sym, void **pfn, int ver,
				      cuuint64_t flags,
				      CUdriverProcAddressQueryResult *st)
{
	CUresult r = CALL_REAL(cuGetProcAddress_v2, (sym, pfn, ver, flags, st));

	if (r == CUDA_SUCCESS && (!st || *st == CU_GET_PROC_ADDRESS_SUCCESS))
		proc_fixup(sym, pfn, ver, flags);
	return r;
}

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

	switch (op->kind) {
	case OP_LAUNCH: {
		__typeof__(&w_cuLaunchKernel) f = REAL_AS(cuLaunchKernel, op->hook);
		CUresult r;

		if (op->sp && gsp_sp_issue(op, &r))
			return r;

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
		CUresult r;

		if (op->sp && gsp_sp_issue(op, &r))
			return r;

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

/* The table and our exported symbols ------------------------------------------ */

#define GSP_HOOK_ENTRY(sym_, api_, pt_, vmin_, vmax_)			\
	[H_##sym_] = { .sym = #sym_, .api = api_, .pt = pt_,		\
		       .vmin = vmin_, .vmax = vmax_,			\
		       .wrapper = (void *)w_##sym_ },
struct gsp_hook gsp_hooks[GSP_NHOOKS] = { GSP_HOOKS(GSP_HOOK_ENTRY) };

/*
 * Programs linked with -lcuda bind to these; where cuda.h declares the
 * symbol, the alias also checks our wrapper's prototype against it.
 */
#define GSP_HOOK_EXPORT(sym_, api_, pt_, vmin_, vmax_)			\
	extern __typeof__(w_##sym_) sym_				\
		__attribute__((alias("w_" #sym_), visibility("default")));
GSP_HOOKS(GSP_HOOK_EXPORT)
