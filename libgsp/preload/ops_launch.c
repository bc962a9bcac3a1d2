// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The launch wrappers: cuLaunchKernel, cuLaunchCooperativeKernel,
 * cuLaunchKernelEx and cuGraphLaunch, each in its legacy and per-thread
 * variant. A deferred launch keeps a copy of its arguments (copy_args(),
 * ops.c); the dispatcher issues it in ops_issue.c.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <gspace.h>

#include "ops_internal.h"

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
CUresult w_##sym(CUfunction f, unsigned int gx, unsigned int gy,	\
		 unsigned int gz, unsigned int bx, unsigned int by,	\
		 unsigned int bz, unsigned int shmem, CUstream s,	\
		 void **params, void **extra)				\
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
}									\
GSP_EXPORT(sym)
LAUNCH_WRAPPER(cuLaunchKernel, 0)
LAUNCH_WRAPPER(cuLaunchKernel_ptsz, 1)

#define COOP_WRAPPER(sym, ptsz)						\
CUresult w_##sym(CUfunction f, unsigned int gx, unsigned int gy,	\
		 unsigned int gz, unsigned int bx, unsigned int by,	\
		 unsigned int bz, unsigned int shmem, CUstream s,	\
		 void **params)						\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.launches, 1, memory_order_relaxed); \
	LCPRIO_ROUTE(ptsz, s, (const void *)f,				\
		     CALL_REAL(sym, (f, gx, gy, gz, bx, by, bz, shmem, ps_, \
				     params)));				\
	ROUTE(ptsz, s, GSPACE_ENGINE_COMPUTE, (const void *)f,		\
	      fill_launch(op, H_##sym, f, gx, gy, gz, bx, by, bz, shmem,	\
			  params, NULL, OP_COOP),			\
	      CALL_REAL(sym, (f, gx, gy, gz, bx, by, bz, shmem, s, params))); \
}									\
GSP_EXPORT(sym)
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
CUresult w_##sym(const CUlaunchConfig *cfg, CUfunction f,		\
		 void **params, void **extra)				\
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
}									\
GSP_EXPORT(sym)
LAUNCH_EX_WRAPPER(cuLaunchKernelEx, 0)
LAUNCH_EX_WRAPPER(cuLaunchKernelEx_ptsz, 1)

#define GRAPH_WRAPPER(sym, ptsz)					\
CUresult w_##sym(CUgraphExec g, CUstream s)				\
{									\
	atomic_fetch_add_explicit(&gsp_ctr.launches, 1, memory_order_relaxed); \
	LCPRIO_ROUTE(ptsz, s, (const void *)g, CALL_REAL(sym, (g, ps_))); \
	ROUTE(ptsz, s, GSPACE_ENGINE_COMPUTE, (const void *)g,		\
	      (op->kind = OP_GRAPH, op->hook = H_##sym, op->u.graph = g, 0), \
	      CALL_REAL(sym, (g, s)));					\
}									\
GSP_EXPORT(sym)
GRAPH_WRAPPER(cuGraphLaunch, 0)
GRAPH_WRAPPER(cuGraphLaunch_ptsz, 1)
