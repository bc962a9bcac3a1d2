/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the parts of the spatial side share (Documentation/spatial.rst):
 * its limits, the images, contexts, control blocks and green contexts
 * they pass between them, the one state (spatial) and the functions one
 * part calls in another; the real driver functions are cudrv's (real.h). Internal
 * to libgsp/preload/spatial*.c; spatial.h is the rest of the interposer's
 * view.
 *
 * Locking: spatial.mu guards everything here and is never held across a
 * driver call, so no thread can block in the driver while another waits
 * for it. A ctl whose events or launch a thread is using unlocked is
 * "claimed"; no one else touches it, and a context is forgotten only
 * once none of its ctls is claimed. Images are reference-counted: by
 * their handles, by a launch between prepare and issue, and by each live
 * ctl; the last reference frees it, unloading its JIT-ed modules.
 */
#ifndef GSP_SPATIAL_INTERNAL_H
#define GSP_SPATIAL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <gsp_persist.h>
#include <xform.h>

#include "fatbin.h"
#include "real.h"
#include "spatial.h"

#define HBUCKETS	4096
#define CTL_MAX		256	/* ctls per context */
#define WATCH_BATCH	256	/* live jobs the watcher looks at per poll */
#define FILE_MAX	(1ULL << 30)
#define JOIN_NS		1000000000ULL
#define WAIT_HOST_NS	20000ULL	/* job_wait_host()'s poll */
#define MAX_REASONS	32
#define TOPUP_ATTRS	8	/* cuLaunchKernelEx attributes a top-up repeats */

/* What op->sp points at, told apart by the first member. */
enum sp_kind { SP_KFN, SP_GREEN };

/* Why a launch ran without a green context while LC work was active. */
enum {
	GW_NONE, GW_API, GW_CONTEXT, GW_CREATE, GW_SMALL, GW_NOREQ, GW_COOP,
	GW_CLUSTER, GW_CAPTURE, GW_LAUNCH, GW_ORDER, GW_TIME, GW_N
};

extern const char *const gw_token[GW_N] GSP_HIDDEN;

struct sp_ctx;

/* A green context of @sms SMs in one context, and what ties it in. */
struct sp_green {
	enum sp_kind kind;	/* SP_GREEN */
	struct sp_green *next;
	struct sp_ctx *c;
	unsigned int sms, got;	/* asked for, made */
	CUresult err;		/* set-up failed: never tried again */
	CUgreenCtx g;
	CUstream s;
	CUevent in, out;	/* the app's stream -> s, s -> the app's */
};

struct sp_ctx {
	struct sp_ctx *next;
	CUcontext ctx;
	CUdevice dev;
	int dead, ok;
	char err[96];		/* why setup failed */
	unsigned int nsm, arch;
	unsigned int regs_sm;	/* register file per SM; 0 if unknown */
	/* shared memory per SM, reserved per block, most per block; 0 if unknown */
	unsigned int smem_sm, smem_rsv, smem_blk;
	uint32_t rank[GSP_PERSIST_MAX_SM];
	CUstream topup;		/* non-blocking: never waits on the legacy one */
	CUstream zero;		/* non-blocking: ended jobs' ctls are reset here */
	CUfunction waiter;	/* gsp_wait_done, or NULL: jobs are kept */
	/*
	 * The watcher's look at a job's counters (ctl_peek()): a copy of the
	 * ctl's first PEEK_BYTES into pinned host memory on a stream of its
	 * own, an event behind it; peek_buf NULL: none. The watcher's alone.
	 */
	CUstream peek_s;
	CUevent peek_ev;
	unsigned char *peek_buf;
	int peek_busy;		/* a copy not yet seen landed */
	CUdeviceptr ctrl;	/* the control word, as the GPU sees it */
	CUdeviceptr ovr;	/* the override word, as the GPU sees it; 0: none */
	unsigned int board_gen;	/* spatial.board_gen that @ctrl was made for */
	struct sp_ctl *ctls[CTL_MAX];
	unsigned int nctl;
	/* green contexts (dispatcher thread; the list under spatial.mu) */
	int gstate;		/* 0 not looked at, 1 usable, -1 not */
	int gwhy;		/* GW_* if not */
	CUdevice gdev;
	CUdevResource gres;	/* the device's SMs */
	struct sp_green *greens;
};

enum { CTL_FREE, CTL_TAKEN, CTL_LIVE, CTL_LOST };

struct sp_ctl {
	struct sp_ctx *c;
	CUdeviceptr dptr;
	CUevent ev_s;		/* before the primary: its stream's work done */
	CUevent ev_p, ev_t;	/* after the primary, after the last top-up */
	CUevent ev_z;		/* after its reset on the context's zero stream */
	int state, claimed;
	/*
	 * clean: its first GSP_PERSIST_RESET_BYTES are zero, so a launch
	 * needs no reset on its stream; zeroing: a reset is queued behind
	 * ev_z, clean once that completes. Under spatial.mu, like state, or
	 * by whoever has the ctl taken or claimed.
	 */
	int clean, zeroing;
	int waited;		/* its stream waits for its tasks: no keeper */
	atomic_int host_wait;	/* ev_p not recorded yet: job_wait_host() */
	unsigned int topups;
	uint64_t looked_ns;	/* launch, or the watcher's last orphan check */
	uint32_t hw;		/* slots given up at its last look (ctl_slots) */
	uint32_t ep;		/* the request's epoch then */
	struct sp_img *img;	/* referenced while live */
	/* what a top-up repeats */
	CUfunction f;
	unsigned int grid, b[3], shmem;
	CUlaunchAttribute attrs[TOPUP_ATTRS];	/* topup_attrs() */
	unsigned int nattrs;
	void *pbuf;
	void **params;		/* nparams copies, then &job */
	struct gsp_persist_job job;
};

/* A .const variable: its copy in the program's module and ours. */
struct sp_var {
	CUdeviceptr orig, xf;
	size_t size;
};

struct sp_mod {
	struct sp_mod *next;
	struct sp_ctx *c;		/* one kernel's clone, in this context */
	CUmodule m;
	CUresult err;		/* the JIT's error, or CUDA_SUCCESS */
	char why[200];		/* if a variable cannot be paired */
	const char *token;	/* the stats' reason with why */
	struct sp_var *vars;
	unsigned int nvars;
};

struct sp_kfn {			/* NAME__gsp in one context */
	enum sp_kind kind;	/* SP_KFN */
	struct sp_kfn *next;
	struct sp_ctx *c;
	struct sp_kern *kern;
	struct sp_mod *md;
	CUfunction f;
	CUresult err;
	unsigned int threads, shmem;	/* of the cached occupancy */
	int k;
	unsigned int pad;	/* dynamic shared memory added per block */
	int maxsh;		/* its carveout preference is the most shared memory */
	int capped;		/* kfn_regcap() looked: never again */
};

struct sp_kern {
	struct sp_kern *next;
	struct sp_img *img;
	char *name;
	int looked;		/* xform result looked up */
	int ok;			/* transformed */
	const char *token;	/* else the stats' reason */
	unsigned int nparams;
	char why[200];		/* if not */
	char *text;		/* ok: NAME__gsp and what it names, alone */
	char **vars;		/* ok: .global variables text reaches by reference */
	size_t nvars;
	atomic_int reported;
	atomic_int green_reported;
	struct sp_kfn *fns;
};

struct sp_gvar {
	char *name;
	int writable;
};

struct sp_img {
	int refs;
	const void *root;	/* the program's module or library */
	int lib;		/* root is a library */
	struct gsp_fb_ptx ptx;	/* data NULL: none, see noptx */
	const char *noptx;
	int xstate;		/* 0 not yet, 1 done, -1 failed */
	char xerr[160];
	char *text;		/* its PTX, decompressed, cut into parts */
	struct gsp_xform_parts *parts;
	struct sp_gvar *gv;	/* its module-scope variables */
	unsigned int ngv;
	struct sp_kern *kerns;
	struct sp_mod *mods;
	struct sp_img *dead_next;	/* see img_queue() */
};

struct sp_handle {
	struct sp_handle *next;
	const void *h;
	const void *root;	/* the module or library it came from */
	struct sp_img *img;
	struct sp_kern *kern;	/* NULL: a module or library */
};

/*
 * The spatial side's state, one per process. Locking: @mu guards every
 * member not marked otherwise, and is never held across a driver call.
 */
struct sp_state {
	pthread_mutex_t mu;
	pthread_cond_t wake;	/* the watcher: live jobs, or stop */
	pthread_cond_t cv;	/* claims released */
	atomic_int on;		/* atomic; set last by gsp_sp_start() */
	struct gsp_spatial_cfg cfg;	/* gsp_sp_start(); read-only after */
	struct sp_handle *hb[HBUCKETS];
	struct sp_ctx *ctxs;
	struct sp_ctl **live;
	unsigned int nlive, cap;
	int stop, watcher_running;
	pthread_t watcher;
	/*
	 * fallback control word (mapped host memory): set once, by the
	 * dispatcher, with a release store; read with local_word()
	 */
	uint64_t *local;
	/*
	 * the override word (spatial_preempt.c): allocated once, by the
	 * dispatcher, with a release store; read with ovr_word()
	 */
	uint64_t *ovr;
	atomic_uint ovr_seq;		/* atomic: the dispatcher's last raise */
	atomic_uint drained;		/* atomic: the raise the watcher saw done */
	atomic_uint look;		/* atomic: the raise to look at; 0: none */
	int board_mapped;	/* the board page is registered */
	atomic_uint board_gen;	/* bumped when the board moves to a new page */
	/* devices whose MPS state we looked at (dispatcher thread only) */
	uint64_t mps_checked;
	struct { const char *name; unsigned long n; } reason[MAX_REASONS];
	unsigned int nreason;
	/* counters and warn-once flags below: atomic, no lock */
	atomic_ulong launches, topups;
	atomic_ulong waited;		/* launches with a waiter (no keeper) */
	atomic_ulong one_wave;		/* launches left unchanged: one wave */
	atomic_ulong regcaps;		/* clones JIT-ed again, capped */
	atomic_ulong orphans;		/* jobs topped up with no block left */
	atomic_ulong lost;		/* jobs whose top-up failed: unfinished */
	atomic_int warned_unknown, warned_map, warned_probe, warned_wait;
	atomic_int warned_moved, warned_wait64;
	/* green_api, drv_version: gsp_sp_start(); read-only after */
	int green_api;		/* the driver has what green contexts need */
	int drv_version;
	atomic_ulong green_launches, green_copies, green_gated[GW_N];
	atomic_int warned_green[GW_N], warned_green_unknown;
};

extern struct sp_state spatial GSP_HIDDEN;

/*
 * Called across the parts, grouped by the file that defines them; each
 * keeps the locking rule written at its definition.
 */
/* spatial.c */
GSP_HIDDEN void count_fallback(const char *reason);
GSP_HIDDEN void fallback(struct sp_kern *kn, const char *reason, const char *why);
GSP_HIDDEN uint64_t *local_word(void);

/* spatial_image.c */
GSP_HIDDEN struct sp_handle *hfind(const void *h);
GSP_HIDDEN void img_free_list(struct sp_img *l);
GSP_HIDDEN void img_put(struct sp_img *img);
GSP_HIDDEN void img_queue(struct sp_img *img, struct sp_img **list);
GSP_HIDDEN struct sp_img *img_unref(struct sp_img *img);

/* spatial_ctl.c */
GSP_HIDDEN int ctl_done(struct sp_ctl *t);
GSP_HIDDEN struct sp_ctl *ctl_get(struct sp_ctx *c);
GSP_HIDDEN void ctl_release(struct sp_ctl *t);
GSP_HIDDEN void ctl_retire(struct sp_ctl *t, struct sp_img **dead);
GSP_HIDDEN uint32_t ctl_slots(const struct sp_ctl *t, uint64_t w);
GSP_HIDDEN int ctl_zero(struct sp_ctl *t);
GSP_HIDDEN struct sp_ctx *ctx_get(CUcontext ctx);
GSP_HIDDEN int map_ctrl(struct sp_ctx *c);
GSP_HIDDEN uint32_t req_nk(uint64_t w);
GSP_HIDDEN int ctl_peek(struct sp_ctl *t, uint64_t *next, uint32_t *live);
GSP_HIDDEN uint64_t req_now(void);

/* spatial_jit.c */
GSP_HIDDEN int kern_verdict(struct sp_kern *kn);
GSP_HIDDEN struct sp_kfn *kfn_get(struct sp_kern *kn, struct sp_ctx *c,
				  char *why, size_t n, const char **token);
GSP_HIDDEN int kfn_k(struct sp_kfn *kf, CUfunction orig,
		     unsigned int threads, unsigned int shmem);
GSP_HIDDEN void kfn_carveout(struct sp_kfn *kf, int max);

/* spatial_green.c */
GSP_HIDDEN void green_drop(struct sp_green *l, int wait);
GSP_HIDDEN int green_issue(struct gsp_op *op, CUresult *res);
GSP_HIDDEN struct sp_green *green_take(int all);

/* spatial_launch.c */
GSP_HIDDEN const char *ex_attr_reason(const CUlaunchConfig *cfg);
GSP_HIDDEN unsigned int ex_cluster_blocks(const CUlaunchConfig *cfg);

/* spatial_preempt.c */
GSP_HIDDEN void ovr_map(struct sp_ctx *c);
GSP_HIDDEN uint64_t ovr_word(void);
GSP_HIDDEN void preempt_look(struct sp_ctl *const *batch, const int *done,
			     unsigned int n, unsigned int all, uint64_t w);

#endif /* GSP_SPATIAL_INTERNAL_H */
