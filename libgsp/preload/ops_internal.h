/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the wrapper files share (ops.c, ops_launch.c, ops_copy.c,
 * ops_sync.c, ops_issue.c): every wrapper's prototype, generated from the
 * hook table (hooks.h); the export of a wrapper under its driver symbol;
 * the three modes every stream-ordered wrapper follows; and the helpers
 * one file defines for the others. Internal to those files.
 */
#ifndef GSP_PRELOAD_OPS_INTERNAL_H
#define GSP_PRELOAD_OPS_INTERNAL_H

#include "lcprio.h"
#include "preload.h"
#include "spatial.h"

/* w_<sym>, our wrapper of each hooked variant, with its driver prototype. */
#define GSP_HOOK_PROTO(sym_, proto_, api_, pt_, vmin_, vmax_)		\
	GSP_HIDDEN __typeof__(proto_) w_##sym_;
GSP_HOOKS(GSP_HOOK_PROTO)
#undef GSP_HOOK_PROTO

/*
 * Exports w_<sym> as <sym>, for programs linked with -lcuda; where cuda.h
 * declares the symbol, this also checks the wrapper's prototype against
 * it. An alias must be in its target's file: each file exports the
 * wrappers it defines, and ops.c checks that none is missing.
 */
#define GSP_EXPORT(sym)							\
	extern __typeof__(w_##sym) sym					\
		__attribute__((alias("w_" #sym), visibility("default")));

/* Integers of the gsp_op to the pointers the driver takes, and back. */
#define P(x) ((const void *)(uintptr_t)(x))
#define U(x) ((CUdeviceptr)(uintptr_t)(x))

/* ops.c */
GSP_HIDDEN CUcontext cur_ctx(void);
GSP_HIDDEN int thread_stream(CUstream s, int ptsz);
GSP_HIDDEN int copy_args(struct gsp_op *op, CUfunction f, void **params,
			 void **extra, void ***oparams, void ***oextra);

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
		if (m_ == GSP_MODE_REFUSED && (R_ENG) != GSP_ENGINE_NONE) \
			return gsp_refused();				\
		if (m_ == GSP_MODE_OFF || m_ == GSP_MODE_REFUSED ||	\
		    gsp_capturing((R_S), (R_PT))) {			\
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
			/* Refused while it waited for its turn? */	\
			r_ = gsp_mode() == GSP_MODE_REFUSED ?		\
			     gsp_refused() : CALL;			\
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
		if (m_ == GSP_MODE_REFUSED)				\
			return gsp_refused();				\
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
		r_ = gsp_mode() == GSP_MODE_REFUSED ? gsp_refused() : CALL; \
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

#endif /* GSP_PRELOAD_OPS_INTERNAL_H */
