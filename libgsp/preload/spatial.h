/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Spatial sharing on the BE side (spatial*.c, Documentation/spatial.rst):
 * module images recorded at load, kernels turned into their persistent
 * form (libgsp/xform) and JIT-compiled at their first BE launch, launches
 * redirected to NAME__gsp, the watcher thread that launches top-ups
 * when the board's partition request shrinks, and green contexts for the
 * kernels that cannot be transformed.
 */
#ifndef GSP_SPATIAL_H
#define GSP_SPATIAL_H

#include <stddef.h>

#include <gsp_board.h>

#include "preload.h"

struct gsp_spatial_cfg {
	const struct gsp_board *board;	/* read-only mapping of the board */
	uint32_t device;		/* the board's device */
	uint32_t refresh_ns, copy_ns, batch_ns;	/* struct gsp_persist_job's */
	uint64_t watch_ns;		/* watcher poll period */
	int green;			/* GSP_GREEN: 1 auto, 0 off */
	int one_wave;			/* GSP_ONE_WAVE: 1 auto, 0 off */
	int keep;			/* GSP_KEEP: 1 every job kept */
	int fill;			/* GSP_FILL: 1 blocks fill SMs' shared memory */
};

/* Turns spatial sharing on (dispatch.c's setup, BE tenants only). */
GSP_HIDDEN void gsp_sp_start(const struct gsp_spatial_cfg *cfg);
GSP_HIDDEN int gsp_sp_on(void);

/*
 * Module tracking, from the load wrappers (after the real call succeeded).
 * @limit: readable bytes of @image, SIZE_MAX when unknown.
 */
GSP_HIDDEN void gsp_sp_image(const void *handle, const void *image,
			     size_t limit);
GSP_HIDDEN void gsp_sp_image_file(const void *handle, const char *path);
/* The same for a library (its module variables are looked up with
 * cuLibraryGetGlobal, not cuModuleGetGlobal). */
GSP_HIDDEN void gsp_sp_lib_image(const void *handle, const void *image,
				 size_t limit);
GSP_HIDDEN void gsp_sp_lib_image_file(const void *handle, const char *path);
/* @child (a function, kernel or module) comes from @parent; @name: the
 * kernel's, NULL for a library's module. */
GSP_HIDDEN void gsp_sp_child(const void *child, const void *parent,
			     const char *name);
/* @handle (a module or library) is unloaded: it and its children go. */
GSP_HIDDEN void gsp_sp_forget(const void *handle);
/*
 * @ctx is about to be destroyed (or, for @ctx NULL, every context of
 * device @dev, for primary context release and reset): our state in it
 * goes, once the watcher is out of it.
 */
GSP_HIDDEN void gsp_sp_ctx_gone(CUcontext ctx, CUdevice dev);

/*
 * Dispatcher thread, @op's context current: 1 if @op (a launch) will run
 * in persistent form (op->sp set; it then needs no time-plane gate), 0 if
 * it runs unchanged (the reason is reported once per kernel).
 */
GSP_HIDDEN int gsp_sp_prepare(struct gsp_op *op);
/*
 * Dispatcher thread, @op's context current, @op not transformed, and
 * kernels that cannot yield to keep off the LC's SMs
 * (gsp_board_lc_confine(): LC work active or, under protect reserved or
 * predictive, a request standing): 1 if @op (a launch) will run on a
 * green context confined to the SMs the LC's request leaves (op->sp set;
 * it needs no time-plane gate), else 0 with a reason code in *@why (0:
 * @op is no candidate), reported once. Cheap to call again while @op
 * waits.
 */
GSP_HIDDEN int gsp_sp_green(struct gsp_op *op, int *why);
/* Counts a launch that ran without a green context for reason @why. */
GSP_HIDDEN void gsp_sp_gated(int why);
/* Issues a prepared @op; 0 if it must be issued unchanged after all. */
GSP_HIDDEN int gsp_sp_issue(struct gsp_op *op, CUresult *r);

/*
 * Dispatcher thread: the board is another page now (the tenant rejoined
 * a restarted gspaced; the host mapping was moved onto the new page in
 * place). What the GPU mapped of the old page is stale: launches from now
 * on read a copy of the request, refreshed at each launch and poll.
 */
GSP_HIDDEN void gsp_sp_board_moved(void);

/*
 * The preemptive time plane (dispatcher thread): whether a live
 * transformed job could be preempted; raise (@on) or drop the override
 * that makes every block of this process's transformed kernels leave at
 * its next task boundary; whether, since the last raise, none of them
 * holds a slot (the watcher looks from the raise until
 * gsp_sp_drain_end()).
 */
GSP_HIDDEN int gsp_sp_preemptible(void);
GSP_HIDDEN void gsp_sp_preempt(int on);
GSP_HIDDEN int gsp_sp_drained(void);
GSP_HIDDEN void gsp_sp_drain_end(void);

GSP_HIDDEN void gsp_sp_stats(FILE *f);
/*
 * At exit: stops the watcher, waiting a bounded time; with @idle (the
 * dispatcher has ended) also destroys the green contexts whose work is
 * done.
 */
GSP_HIDDEN void gsp_sp_stop(int idle);
GSP_HIDDEN void gsp_sp_after_fork(void);

#endif /* GSP_SPATIAL_H */
