/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An LC tenant's GPU work at the greatest stream priority (lcprio.c,
 * Documentation/interposer.rst "LC work runs at the greatest stream
 * priority"): the stream-creation wrappers, and the kernel launches that
 * the program issues on a default stream, moved to a private stream of
 * that priority and tied back to the default stream by an event each way.
 */
#ifndef GSP_PRELOAD_LCPRIO_H
#define GSP_PRELOAD_LCPRIO_H

#include <gspace.h>

#include "preload.h"

/* GSP_LC_PRIORITY from the environment (read_config); <0 if bad (said). */
GSP_HIDDEN int gsp_lcprio_config(void);
/* The counters, into the stats file. */
GSP_HIDDEN void gsp_lcprio_stats(FILE *f);

/*
 * cuStreamCreate (@with_prio 0) and cuStreamCreateWithPriority: in an LC
 * tenant the stream gets its context's greatest priority, unless @prio is
 * already that high.
 */
GSP_HIDDEN CUresult gsp_lcprio_create(CUstream *s, unsigned int flags,
				      int prio, int with_prio);

/* 1 if a launch on @s (of variant @pt) is to run on a priority stream. */
GSP_HIDDEN int gsp_lcprio_wanted(CUstream s, int pt);

/* A launch moved to a priority stream, between enter and leave. */
struct gsp_lcprio_slot {
	struct lcp_stream *ls;
	unsigned int pair;
	CUstream def;		/* the default stream, as event calls name it */
	CUstream stream;	/* where the launch goes */
};

/*
 * Records an event on the default stream @s and has the priority stream
 * wait for it: 0 and @sl->stream, or -1 (the launch stays where it was).
 */
GSP_HIDDEN int gsp_lcprio_enter(struct gsp_lcprio_slot *sl, CUstream s,
				int pt);
/* After the launch (@r its result): the default stream waits for it. */
GSP_HIDDEN void gsp_lcprio_leave(struct gsp_lcprio_slot *sl, CUresult r);

/*
 * @ctx is about to be destroyed (or, @ctx NULL, the primary context of
 * device @dev released or reset): its priority streams and events go.
 */
GSP_HIDDEN void gsp_lcprio_ctx_gone(CUcontext ctx, CUdevice dev);

static inline const CUlaunchConfig *gsp_lcprio_cfg(CUlaunchConfig *tmp,
						   const CUlaunchConfig *cfg,
						   CUstream s)
{
	*tmp = *cfg;
	tmp->hStream = s;
	return tmp;
}

/*
 * In an LC wrapper, before ROUTE(): a launch on a default stream (not
 * being captured) runs on a priority stream. @CALL_ON is the real call
 * with its stream argument replaced by ps_; the LC bookkeeping (samples,
 * the reporter's marker) stays on the default stream, which waits for the
 * kernel before anything the program issues there later.
 */
#define LCPRIO_ROUTE(R_PT, R_S, R_KEY, CALL_ON)				\
	do {								\
		if (gsp_lcprio_wanted((R_S), (R_PT))) {			\
			struct gsp_lcprio_slot l_;			\
			struct gsp_lc_ticket t_;			\
			CUstream es_ = gsp_event_stream((R_S), (R_PT));	\
			CUstream ps_ = (R_S);				\
			CUresult r_;					\
			int in_;					\
									\
			gsp_lc_begin(&t_, (R_KEY), es_);		\
			in_ = !gsp_lcprio_enter(&l_, (R_S), (R_PT));	\
			if (in_)					\
				ps_ = l_.stream;			\
			r_ = CALL_ON;					\
			if (in_)					\
				gsp_lcprio_leave(&l_, r_);		\
			gsp_lc_end(&t_, (R_KEY), GSPACE_ENGINE_COMPUTE, es_); \
			return r_;					\
		}							\
	} while (0)

#endif /* GSP_PRELOAD_LCPRIO_H */
