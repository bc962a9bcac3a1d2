// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Spatial sharing, BE side (Documentation/spatial.rst).
 *
 * Images: every module or library load records its image's PTX (fatbin.c)
 * under the handle; functions, kernels and a library's modules map to
 * (image, kernel name). At the first BE launch of a kernel of an image,
 * the image's PTX is cut into its symbols once (gsp_xform_parts_new());
 * at each kernel's first BE launch the kernel is taken from it with what
 * it names, goes through gsp_xform() alone, and its clone is JIT-loaded
 * alone, once per context, so that no launch waits for the transformation
 * or the JIT of a whole image. Launches then run NAME__gsp
 * with a one-wave grid of N x K blocks and a struct gsp_persist_job
 * (kernels/gsp_persist.h), its ctl from a per-context pool. A watcher thread polls
 * the board's partition request and, when it shrinks, launches top-ups
 * for the jobs still running, so the BE takes back the slots it gave up.
 *
 * Green contexts: a launch that runs unchanged while LC work is active
 * goes, if it can, to the stream of a green context of the SMs the LC's
 * request leaves (N - n, rounded down to the driver's granularity), tied
 * to its own stream by an event each way; one green context, stream and
 * event pair per (context, SM count), made at first use and kept.
 *
 * Locking: spatial.mu guards everything here and is never held across a
 * driver call, so no thread can block in the driver while another waits
 * for it. A ctl whose events or launch a thread is using unlocked is
 * "claimed"; no one else touches it, and a context is forgotten only
 * once none of its ctls is claimed. Images are reference-counted: by
 * their handles, by a launch between prepare and issue, and by each live
 * ctl; the last reference frees it, unloading its JIT-ed modules.
 *
 * Over 800 lines: images, contexts, control blocks, JIT, green contexts
 * and launch/top-up share static state; issue 33 splits it by those parts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gsp_persist.h>
#include <ptx.h>
#include <xform.h>

#include "fatbin.h"
#include "spatial.h"

#define HBUCKETS	4096
#define CTL_MAX		256	/* ctls per context */
#define WATCH_BATCH	256	/* live jobs the watcher looks at per poll */
#define FILE_MAX	(1ULL << 30)
#define JOIN_NS		1000000000ULL
#define WAIT_HOST_NS	20000ULL	/* job_wait_host()'s poll */
#define MAX_REASONS	32
#define TOPUP_ATTRS	8	/* cuLaunchKernelEx attributes a top-up repeats */

/* Our own probe: each block marks its %smid; ranks follow smid order. */
static const char probe_ptx[] =
	".version 7.0\n.target sm_70\n.address_size 64\n"
	".visible .entry gsp_sm_probe(.param .u64 gsp_sm_probe_out)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<4>;\n"
	"\tld.param.u64 %rd1, [gsp_sm_probe_out];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tmov.u32 %r1, %smid;\n"
	"\tsetp.ge.u32 %p1, %r1, 256;\n"
	"\t@%p1 bra DONE;\n"
	"\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
	"\tmov.u32 %r2, 1;\n\tst.global.u32 [%rd3], %r2;\n"
	"DONE:\n\tret;\n}\n";

/*
 * The waiter of a waited job (gsp_persist.h, "Stream order"): one warp
 * on the program's stream behind the primary launch, whose thread 0
 * waits until done_tasks >= ntasks. A kernel, not a stream memory wait:
 * a wait would stall the hardware queue it sits in, and a top-up of the
 * job queued there behind it could never start.
 */
static const char waiter_ptx[] =
	".version 7.0\n.target sm_70\n.address_size 64\n"
	".visible .entry gsp_wait_done(.param .u64 gsp_wait_done_p,\n"
	"\t.param .u64 gsp_wait_done_n)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<4>;\n"
	"\tmov.u32 %r1, %tid.x;\n"
	"\tsetp.ne.u32 %p1, %r1, 0;\n"
	"\t@%p1 bra DONE;\n"
	"\tld.param.u64 %rd1, [gsp_wait_done_p];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tld.param.u64 %rd2, [gsp_wait_done_n];\n"
	"LOOP:\n"
	"\tld.acquire.gpu.global.u64 %rd3, [%rd1];\n"
	"\tsetp.ge.u64 %p1, %rd3, %rd2;\n"
	"\t@%p1 bra DONE;\n"
	"\tnanosleep.u32 2000;\n"
	"\tbra.uni LOOP;\n"
	"DONE:\n\tret;\n}\n";

/* What op->sp points at, told apart by the first member. */
enum sp_kind { SP_KFN, SP_GREEN };

/* Why a launch ran without a green context while LC work was active. */
enum {
	GW_NONE, GW_API, GW_CONTEXT, GW_CREATE, GW_SMALL, GW_NOREQ, GW_COOP,
	GW_CLUSTER, GW_CAPTURE, GW_LAUNCH, GW_ORDER, GW_N
};

static const char *const gw_token[GW_N] = {
	[GW_API] = "no-api", [GW_CONTEXT] = "context", [GW_CREATE] = "create",
	[GW_SMALL] = "small", [GW_NOREQ] = "no-request",
	[GW_COOP] = "cooperative", [GW_CLUSTER] = "cluster",
	[GW_CAPTURE] = "capture", [GW_LAUNCH] = "launch", [GW_ORDER] = "order",
};

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
	uint32_t rank[GSP_PERSIST_MAX_SM];
	CUstream topup;		/* non-blocking: never waits on the legacy one */
	CUstream zero;		/* non-blocking: ended jobs' ctls are reset here */
	CUfunction waiter;	/* gsp_wait_done, or NULL: jobs are kept */
	CUdeviceptr ctrl;	/* the control word, as the GPU sees it */
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

/* Real driver functions, set in gsp_sp_start(), read-only afterwards. */
static struct {
	__typeof__(&cuCtxGetDevice) ctx_dev;
	__typeof__(&cuCtxSetCurrent) ctx_set;
	__typeof__(&cuDeviceGet) dev_get;
	__typeof__(&cuDeviceGetAttribute) dev_attr;
	__typeof__(&cuModuleLoadData) mod_load;
	__typeof__(&cuModuleGetFunction) mod_fn;
	__typeof__(&cuModuleUnload) mod_unload;
	__typeof__(&cuModuleGetGlobal) mod_global;
	__typeof__(&cuLibraryGetGlobal) lib_global;	/* NULL before 12.0 */
	__typeof__(&cuMemcpyDtoDAsync) dtod[2];		/* [ptsz] */
	__typeof__(&cuOccupancyMaxActiveBlocksPerMultiprocessor) occ;
	__typeof__(&cuFuncSetAttribute) fn_attr;
	__typeof__(&cuFuncGetAttribute) fn_get;
	__typeof__(&cuMemAlloc) mem_alloc;
	__typeof__(&cuMemFree) mem_free;
	__typeof__(&cuMemsetD32Async) memset32[2];	/* [ptsz] */
	__typeof__(&cuMemcpyHtoDAsync) htod;
	__typeof__(&cuMemcpyDtoHAsync) dtoh;
	__typeof__(&cuStreamCreate) stream_create;
	__typeof__(&cuStreamSynchronize) stream_sync;
	__typeof__(&cuEventCreate) ev_create;
	__typeof__(&cuEventRecord) ev_record[2];
	__typeof__(&cuEventQuery) ev_query;
	__typeof__(&cuLaunchKernel) launch[2];
	__typeof__(&cuLaunchKernelEx) launch_ex[2];
	__typeof__(&cuMemHostRegister) host_reg;
	__typeof__(&cuMemHostGetDevicePointer) host_dptr;
	__typeof__(&cuMemHostAlloc) host_alloc;
	/* green contexts: all set, or green stays off */
	__typeof__(&cuDriverGetVersion) drv_version;
	__typeof__(&cuDevicePrimaryCtxGetState) prim_state;
	__typeof__(&cuDevicePrimaryCtxRetain) prim_retain;
	__typeof__(&cuDevicePrimaryCtxRelease_v2) prim_release;
	__typeof__(&cuDeviceGetDevResource) dev_res;
	__typeof__(&cuDevSmResourceSplitByCount) split;
	__typeof__(&cuDevResourceGenerateDesc) gen_desc;
	__typeof__(&cuGreenCtxCreate) green_create;
	__typeof__(&cuGreenCtxDestroy) green_destroy;
	__typeof__(&cuGreenCtxStreamCreate) green_stream;
	__typeof__(&cuStreamDestroy_v2) stream_destroy;
	__typeof__(&cuEventDestroy_v2) ev_destroy;
	__typeof__(&cuStreamWaitEvent) wait[2];		/* [ptsz] */
} sp_drv;

static struct {
	pthread_mutex_t mu;
	pthread_cond_t wake;	/* the watcher: live jobs, or stop */
	pthread_cond_t cv;	/* claims released */
	atomic_int on;
	struct gsp_spatial_cfg cfg;
	struct sp_handle *hb[HBUCKETS];
	struct sp_ctx *ctxs;
	struct sp_ctl **live;
	unsigned int nlive, cap;
	int stop, watcher_running;
	pthread_t watcher;
	uint64_t *local;	/* fallback control word (mapped host memory) */
	int board_mapped;	/* the board page is registered */
	atomic_uint board_gen;	/* bumped when the board moves to a new page */
	uint64_t mps_checked;	/* devices whose MPS state we looked at */
	struct { const char *name; unsigned long n; } reason[MAX_REASONS];
	unsigned int nreason;
	atomic_ulong launches, topups;
	atomic_ulong waited;		/* launches with a waiter (no keeper) */
	atomic_ulong one_wave;		/* launches left unchanged: one wave */
	atomic_ulong regcaps;		/* clones JIT-ed again, capped */
	atomic_int warned_unknown, warned_map, warned_probe, warned_wait;
	atomic_int warned_moved, warned_wait64;
	int green_api;		/* the driver has what green contexts need */
	int drv_version;
	atomic_ulong green_launches, green_gated[GW_N];
	atomic_int warned_green[GW_N], warned_green_unknown;
} spatial = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
};

/* The fallback control word, or NULL: set once, by the dispatcher. */
static uint64_t *local_word(void)
{
	return __atomic_load_n(&spatial.local, __ATOMIC_ACQUIRE);
}

int gsp_sp_on(void)
{
	return atomic_load_explicit(&spatial.on, memory_order_relaxed);
}

/* Counts a launch that runs unchanged, by @reason (a short token). */
static void count_fallback(const char *reason)
{
	unsigned int i;

	pthread_mutex_lock(&spatial.mu);
	for (i = 0; i < spatial.nreason; i++)
		if (!strcmp(spatial.reason[i].name, reason))
			break;
	if (i == spatial.nreason && i < MAX_REASONS)
		spatial.reason[spatial.nreason++].name = reason;
	if (i < spatial.nreason)
		spatial.reason[i].n++;
	pthread_mutex_unlock(&spatial.mu);
}

static void fallback(struct sp_kern *kn, const char *reason, const char *why)
{
	count_fallback(reason);
	gsp_warn_once(&kn->reported, "spatial: kernel %s runs unchanged: %s",
		      kn->name, why);
}

/* Images and handles (spatial.mu held unless said otherwise) ---------- */

static unsigned int hslot(const void *h)
{
	uint64_t x = (uintptr_t)h;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	return (unsigned int)(x >> 40) % HBUCKETS;
}

static struct sp_handle *hfind(const void *h)
{
	struct sp_handle *e;

	for (e = spatial.hb[hslot(h)]; e; e = e->next)
		if (e->h == h)
			return e;
	return NULL;
}

/* Drops one reference; the image to free (unlocked) when it was the last. */
static struct sp_img *img_unref(struct sp_img *img)
{
	return img && --img->refs == 0 ? img : NULL;
}

/* Frees an unreferenced image, unloading what we JIT-ed (unlocked). */
static void img_free(struct sp_img *img)
{
	struct sp_kern *kn, *kn2;
	struct sp_mod *md, *md2;
	struct sp_kfn *kf, *kf2;

	if (!img)
		return;
	for (md = img->mods; md; md = md2) {
		md2 = md->next;
		/* A destroyed context took its modules with it. */
		if (md->m && !__atomic_load_n(&md->c->dead, __ATOMIC_ACQUIRE))
			sp_drv.mod_unload(md->m);
		free(md->vars);
		free(md);
	}
	while (img->ngv)
		free(img->gv[--img->ngv].name);
	free(img->gv);
	for (kn = img->kerns; kn; kn = kn2) {
		kn2 = kn->next;
		for (kf = kn->fns; kf; kf = kf2) {
			kf2 = kf->next;
			free(kf);
		}
		while (kn->nvars)
			free(kn->vars[--kn->nvars]);
		free(kn->vars);
		free(kn->text);
		free(kn->name);
		free(kn);
	}
	gsp_xform_parts_free(img->parts);
	free(img->text);
	gsp_fb_ptx_free(&img->ptx);
	free(img);
}

/* Queues @img (unreferenced, or NULL) for img_free_list(), unlocked. */
static void img_queue(struct sp_img *img, struct sp_img **list)
{
	if (img) {
		img->dead_next = *list;
		*list = img;
	}
}

static void img_free_list(struct sp_img *l)
{
	while (l) {
		struct sp_img *nx = l->dead_next;

		img_free(l);
		l = nx;
	}
}

static void img_put(struct sp_img *img)
{
	pthread_mutex_lock(&spatial.mu);
	img = img_unref(img);
	pthread_mutex_unlock(&spatial.mu);
	img_free(img);
}

/* Removes @e from the map; returns the image to free, if any. */
static struct sp_img *hremove(struct sp_handle *e)
{
	struct sp_handle **pp = &spatial.hb[hslot(e->h)];
	struct sp_img *img = e->img;

	while (*pp != e)
		pp = &(*pp)->next;
	*pp = e->next;
	free(e);
	return img_unref(img);
}

/* Adds @h -> (@img, @kern), replacing a stale entry for a reused handle. */
static struct sp_img *hadd(const void *h, const void *root,
			   struct sp_img *img, struct sp_kern *kern)
{
	struct sp_handle *e = hfind(h);
	struct sp_img *dead = NULL;
	unsigned int s = hslot(h);

	if (e)
		dead = hremove(e);
	e = calloc(1, sizeof(*e));
	if (!e)
		return dead;
	e->h = h;
	e->root = root;
	e->img = img;
	e->kern = kern;
	img->refs++;
	e->next = spatial.hb[s];
	spatial.hb[s] = e;
	return dead;
}

/* The architecture loads pick PTX for: the current context's device. */
static unsigned int load_arch(void)
{
	CUdevice d;
	int ma = 0, mi = 0;

	if (sp_drv.ctx_dev(&d) != CUDA_SUCCESS && sp_drv.dev_get(&d, 0) != CUDA_SUCCESS)
		return ~0u;
	if (sp_drv.dev_attr(&ma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d) ||
	    sp_drv.dev_attr(&mi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d))
		return ~0u;
	return (unsigned int)(ma * 10 + mi);
}

static void sp_image(const void *handle, const void *image, size_t limit,
		     int lib)
{
	struct sp_img *img, *dead = NULL;
	const char *why;

	if (!gsp_sp_on() || !handle)
		return;
	img = calloc(1, sizeof(*img));
	if (!img)
		return;
	img->root = handle;
	img->lib = lib;
	/* Copied now: the program may free its image after the load. */
	if (gsp_fb_find_ptx(image, limit, load_arch(), &img->ptx, &why))
		img->noptx = why;
	pthread_mutex_lock(&spatial.mu);
	img_queue(hadd(handle, NULL, img, NULL), &dead);
	if (!img->refs)
		img_queue(img, &dead);	/* no memory for the entry */
	pthread_mutex_unlock(&spatial.mu);
	img_free_list(dead);
}

void gsp_sp_image(const void *handle, const void *image, size_t limit)
{
	sp_image(handle, image, limit, 0);
}

void gsp_sp_lib_image(const void *handle, const void *image, size_t limit)
{
	sp_image(handle, image, limit, 1);
}

static void sp_image_file(const void *handle, const char *path, int lib)
{
	struct stat st;
	char *buf = NULL;
	ssize_t got = 0;
	int fd;

	if (!gsp_sp_on() || !handle || !path)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0 &&
	    (uint64_t)st.st_size < FILE_MAX)
		buf = malloc((size_t)st.st_size + 1);
	while (buf && got < st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)(st.st_size - got));

		if (n <= 0)
			break;
		got += n;
	}
	if (fd >= 0)
		close(fd);
	if (buf) {
		buf[got] = 0;
		/* The NUL after it makes a PTX file plain text. */
		sp_image(handle, buf, (size_t)got + 1, lib);
	}
	free(buf);
}

void gsp_sp_image_file(const void *handle, const char *path)
{
	sp_image_file(handle, path, 0);
}

void gsp_sp_lib_image_file(const void *handle, const char *path)
{
	sp_image_file(handle, path, 1);
}

static struct sp_kern *kern_get(struct sp_img *img, const char *name)
{
	struct sp_kern *kn;

	for (kn = img->kerns; kn; kn = kn->next)
		if (!strcmp(kn->name, name))
			return kn;
	kn = calloc(1, sizeof(*kn));
	if (!kn)
		return NULL;
	kn->name = strdup(name);
	if (!kn->name) {
		free(kn);
		return NULL;
	}
	kn->img = img;
	kn->next = img->kerns;
	img->kerns = kn;
	return kn;
}

void gsp_sp_child(const void *child, const void *parent, const char *name)
{
	struct sp_handle *p;
	struct sp_kern *kn = NULL;
	struct sp_img *dead = NULL;

	if (!gsp_sp_on() || !child)
		return;
	pthread_mutex_lock(&spatial.mu);
	p = hfind(parent);
	if (p) {
		/* A function of a kernel keeps the kernel's name. */
		kn = p->kern;
		if (name && !kn)
			kn = kern_get(p->img, name);
		if (kn || !name)
			dead = hadd(child, p->root ? p->root : parent,
				    p->img, kn);
	}
	pthread_mutex_unlock(&spatial.mu);
	img_free(dead);
}

void gsp_sp_forget(const void *handle)
{
	struct sp_img *dead = NULL;
	int b;

	if (!gsp_sp_on() || !handle)
		return;
	pthread_mutex_lock(&spatial.mu);
	/* One pass: each entry knows the load it came from. */
	for (b = 0; b < HBUCKETS; b++) {
		struct sp_handle *e = spatial.hb[b], *nx;

		for (; e; e = nx) {
			nx = e->next;
			if (e->h != handle && e->root != handle)
				continue;
			img_queue(hremove(e), &dead);
		}
	}
	pthread_mutex_unlock(&spatial.mu);
	img_free_list(dead);
}

/* Contexts (dispatcher thread, the context current) ----------------------- */

/* The partition request as the board has it now. */
static uint64_t req_now(void)
{
	const struct gsp_board *b = spatial.cfg.board;

	return gsp_board_load(&b->dev[spatial.cfg.device].part_req);
}

static uint32_t req_nk(uint64_t w)
{
	return GSP_PERSIST_CTRL_N(w) * GSP_PERSIST_CTRL_K(w);
}

/*
 * The slots @t's blocks give up under the word @w: n SMs of the context
 * at most, k of the job's K slots on each at most.
 */
static uint32_t ctl_slots(const struct sp_ctl *t, uint64_t w)
{
	uint32_t n = GSP_PERSIST_CTRL_N(w), k = GSP_PERSIST_CTRL_K(w);

	if (n > t->c->nsm)
		n = t->c->nsm;
	if (k > t->job.k_slots)
		k = t->job.k_slots;
	return n * k;
}

/*
 * The SM rank table: a probe of 64 x N blocks records each block's %smid;
 * ranks follow smid order. An SM the probe missed keeps GSP_PERSIST_NO_RANK
 * (it never yields); no SM seen at all gives ranks by %smid.
 */
static int probe_ranks(struct sp_ctx *c)
{
	uint32_t seen[GSP_PERSIST_MAX_SM];
	CUdeviceptr out = 0;
	CUmodule m = NULL;
	CUfunction f;
	void *p[] = { &out };
	unsigned int i, n = 0;
	CUresult r;

	memset(seen, 0, sizeof(seen));
	r = sp_drv.mod_load(&m, probe_ptx);
	if (!r)
		r = sp_drv.mod_fn(&f, m, "gsp_sm_probe");
	if (!r)
		r = sp_drv.mem_alloc(&out, sizeof(seen));
	if (!r)
		r = sp_drv.memset32[0](out, 0, GSP_PERSIST_MAX_SM, c->topup);
	if (!r)
		r = sp_drv.launch[0](f, 64 * c->nsm, 1, 1, 128, 1, 1, 0, c->topup, p,
				NULL);
	if (!r)
		r = sp_drv.dtoh(seen, out, sizeof(seen), c->topup);
	if (!r)
		r = sp_drv.stream_sync(c->topup);
	if (out)
		sp_drv.mem_free(out);
	if (m)
		sp_drv.mod_unload(m);
	if (r) {
		snprintf(c->err, sizeof(c->err), "the SM probe failed (error %d)",
			 (int)r);
		return -1;
	}
	for (i = 0; i < GSP_PERSIST_MAX_SM; i++)
		c->rank[i] = seen[i] ? n++ : GSP_PERSIST_NO_RANK;
	if (!n)
		for (i = 0; i < GSP_PERSIST_MAX_SM; i++)
			c->rank[i] = i < c->nsm ? i : GSP_PERSIST_NO_RANK;
	if (n != c->nsm)
		gsp_warn_once(&spatial.warned_probe,
			      "spatial: the SM probe saw %u SMs of %u%s", n,
			      c->nsm, n ? "" : "; ranking SMs by %smid");
	return 0;
}

/* Where kernels read the control word in this context. */
static int map_ctrl(struct sp_ctx *c)
{
	uintptr_t page = (uintptr_t)spatial.cfg.board & ~(uintptr_t)(GSP_BOARD_SIZE - 1);
	uintptr_t at = (uintptr_t)&spatial.cfg.board->dev[spatial.cfg.device].part_req;
	CUdeviceptr d;
	CUresult r = CUDA_SUCCESS;
	int mapped;

	pthread_mutex_lock(&spatial.mu);
	mapped = spatial.board_mapped;
	c->board_gen = atomic_load(&spatial.board_gen);
	pthread_mutex_unlock(&spatial.mu);
	if (mapped >= 0 && !local_word()) {
		if (!mapped) {
			/* Portable: one registration serves every context. */
			r = sp_drv.host_reg((void *)page, GSP_BOARD_SIZE,
				       CU_MEMHOSTREGISTER_PORTABLE |
				       CU_MEMHOSTREGISTER_DEVICEMAP |
				       CU_MEMHOSTREGISTER_READ_ONLY);
			if (r == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
				r = CUDA_SUCCESS;
			pthread_mutex_lock(&spatial.mu);
			spatial.board_mapped = r ? -1 : 1;
			pthread_mutex_unlock(&spatial.mu);
		}
		if (!r)
			r = sp_drv.host_dptr(&d, (void *)page, 0);
		if (!r) {
			c->ctrl = d + (at - page);
			return 0;
		}
		gsp_warn_once(&spatial.warned_map,
			      "spatial: cannot map the board into the GPU (error %d); a copy of the request, refreshed every GSP_WATCH_US, stands in",
			      (int)r);
	}
	if (!local_word()) {
		void *w = NULL;

		/* Only this (dispatcher) thread sets it. */
		r = sp_drv.host_alloc(&w, 64, CU_MEMHOSTALLOC_PORTABLE |
				 CU_MEMHOSTALLOC_DEVICEMAP);
		if (r) {
			snprintf(c->err, sizeof(c->err),
				 "no mapped host memory for the control word (error %d)",
				 (int)r);
			return -1;
		}
		__atomic_store_n((uint64_t *)w, req_now(), __ATOMIC_RELEASE);
		__atomic_store_n(&spatial.local, (uint64_t *)w, __ATOMIC_RELEASE);
	}
	r = sp_drv.host_dptr(&d, local_word(), 0);
	if (r) {
		snprintf(c->err, sizeof(c->err),
			 "cannot map the control word (error %d)", (int)r);
		return -1;
	}
	c->ctrl = d;
	return 0;
}

static void ctx_setup(struct sp_ctx *c)
{
	int v = 0, ma = 0, mi = 0, mps = 1;
	CUresult r;

	r = sp_drv.ctx_dev(&c->dev);
	if (!r)
		r = sp_drv.dev_attr(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, c->dev);
	if (!r)
		r = sp_drv.dev_attr(&ma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
			       c->dev);
	if (!r)
		r = sp_drv.dev_attr(&mi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
			       c->dev);
	if (r || v <= 0) {
		snprintf(c->err, sizeof(c->err),
			 "cannot read the device's attributes (error %d)", (int)r);
		return;
	}
	c->nsm = (unsigned int)v;
	c->arch = (unsigned int)(ma * 10 + mi);
	if (!sp_drv.dev_attr(&v, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
			c->dev) && v > 0)
		c->regs_sm = (unsigned int)v;
	if (c->dev >= 0 && c->dev < 64 &&
	    !(spatial.mps_checked & (1ULL << c->dev))) {
		spatial.mps_checked |= 1ULL << c->dev;
		if (!sp_drv.dev_attr(&mps, CU_DEVICE_ATTRIBUTE_MPS_ENABLED, c->dev) &&
		    !mps)
			fprintf(stderr,
				"gsp: spatial: MPS is off on CUDA device %d: kernels of different processes time-slice and cannot share SMs; start MPS (gspctl mps start) before the programs\n",
				(int)c->dev);
	}
	r = sp_drv.stream_create(&c->topup, CU_STREAM_NON_BLOCKING);
	if (!r)
		r = sp_drv.stream_create(&c->zero, CU_STREAM_NON_BLOCKING);
	if (r) {
		snprintf(c->err, sizeof(c->err),
			 "cannot create the top-up or reset stream (error %d)",
			 (int)r);
		return;
	}
	if (probe_ranks(c) || map_ctrl(c))
		return;
	{
		CUmodule m;

		/* no waiter: every job is kept */
		if (sp_drv.mod_load(&m, waiter_ptx) ||
		    sp_drv.mod_fn(&c->waiter, m, "gsp_wait_done"))
			c->waiter = NULL;
	}
	c->ok = 1;
}

/* Our state for context @ctx, set up on first use; NULL without memory. */
static struct sp_ctx *ctx_get(CUcontext ctx)
{
	struct sp_ctx *c;

	pthread_mutex_lock(&spatial.mu);
	for (c = spatial.ctxs; c; c = c->next)
		if (c->ctx == ctx && !c->dead)
			break;
	pthread_mutex_unlock(&spatial.mu);
	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->ctx = ctx;
	ctx_setup(c);
	pthread_mutex_lock(&spatial.mu);
	c->next = spatial.ctxs;
	spatial.ctxs = c;
	pthread_mutex_unlock(&spatial.mu);
	return c;
}

static struct sp_green *green_take(int all);
static void green_drop(struct sp_green *l, int wait);

void gsp_sp_ctx_gone(CUcontext ctx, CUdevice dev)
{
	struct sp_img *dead = NULL;
	struct sp_green *greens;
	struct sp_ctx *c;
	unsigned int i;
	int busy;

	if (!gsp_sp_on())
		return;
	pthread_mutex_lock(&spatial.mu);
	/* Contexts are never freed: ctls and modules may point at them. */
	for (c = spatial.ctxs; c; c = c->next)
		if (!c->dead && (ctx ? c->ctx == ctx : c->dev == dev))
			__atomic_store_n(&c->dead, 1, __ATOMIC_RELEASE);
	do {
		busy = 0;
		for (i = 0; i < spatial.nlive; i++)
			busy |= spatial.live[i]->c->dead && spatial.live[i]->claimed;
		if (busy)
			pthread_cond_wait(&spatial.cv, &spatial.mu);
	} while (busy);
	for (i = 0; i < spatial.nlive;) {
		struct sp_ctl *t = spatial.live[i];

		if (!t->c->dead) {
			i++;
			continue;
		}
		t->state = CTL_LOST;
		img_queue(img_unref(t->img), &dead);
		t->img = NULL;
		spatial.live[i] = spatial.live[--spatial.nlive];
	}
	greens = green_take(0);
	pthread_mutex_unlock(&spatial.mu);
	img_free_list(dead);
	/* Before the real call: a green context holds the primary one. */
	green_drop(greens, 1);
}

/* Control blocks ------------------------------------------------------------ */

static int ctl_done(struct sp_ctl *t)
{
	if (atomic_load(&t->host_wait) ||
	    sp_drv.ev_query(t->ev_p) == CUDA_ERROR_NOT_READY)
		return 0;
	/* Top-ups run in order on one stream: the last one is enough. */
	return !t->topups || sp_drv.ev_query(t->ev_t) != CUDA_ERROR_NOT_READY;
}

/* Ends a live job (spatial.mu held); its image goes on @dead if unused. */
static void ctl_retire(struct sp_ctl *t, struct sp_img **dead)
{
	unsigned int i;

	for (i = 0; i < spatial.nlive; i++)
		if (spatial.live[i] == t) {
			spatial.live[i] = spatial.live[--spatial.nlive];
			break;
		}
	img_queue(img_unref(t->img), dead);
	t->img = NULL;
	t->state = CTL_FREE;
}

/* A new ctl of @c, clean: device memory, its rank table, three events. */
static struct sp_ctl *ctl_new(struct sp_ctx *c)
{
	struct gsp_persist_ctl init;
	struct sp_ctl *t = calloc(1, sizeof(*t));
	unsigned int i;
	CUresult r;

	if (!t)
		return NULL;
	memset(&init, 0, sizeof(init));
	for (i = 0; i < GSP_PERSIST_MAX_SM; i++)
		init.sm[i].sm_rank = c->rank[i];
	r = sp_drv.mem_alloc(&t->dptr, sizeof(init));
	if (!r)
		r = sp_drv.htod(t->dptr, &init, sizeof(init), c->topup);
	if (!r)
		r = sp_drv.stream_sync(c->topup);
	if (!r)
		r = sp_drv.ev_create(&t->ev_p, CU_EVENT_DISABLE_TIMING);
	if (!r)
		r = sp_drv.ev_create(&t->ev_t, CU_EVENT_DISABLE_TIMING);
	if (!r)
		r = sp_drv.ev_create(&t->ev_z, CU_EVENT_DISABLE_TIMING);
	if (r) {
		/* Events and memory of a half-made ctl: rare, left alone. */
		free(t);
		return NULL;
	}
	t->c = c;
	t->clean = 1;
	return t;
}

/*
 * Resets ended job @t's ctl on its context's zero stream (claimed or
 * taken by the caller, unlocked), so that its next launch needs no reset
 * on the program's stream: 1 if queued, 0 if not (it stays dirty).
 */
static int ctl_zero(struct sp_ctl *t)
{
	struct sp_ctx *c = t->c;

	return !sp_drv.ctx_set(c->ctx) &&
	       !sp_drv.memset32[0](t->dptr, 0, GSP_PERSIST_RESET_BYTES / 4, c->zero) &&
	       !sp_drv.ev_record[0](t->ev_z, c->zero);
}

/*
 * A free ctl of @c, taken. First one known clean; else, looked at
 * unlocked (claimed meanwhile), one whose reset has completed; else a
 * dirty free one, or one whose job has ended (its launch resets it on
 * its stream); else a new one. Ended jobs it does not take are reset on
 * the zero stream for later launches.
 */
static struct sp_ctl *ctl_get(struct sp_ctx *c)
{
	struct sp_ctl *mine[CTL_MAX], *spare[CTL_MAX];
	char done[CTL_MAX], zeroing[CTL_MAX];
	struct sp_img *dead = NULL;
	struct sp_ctl *t = NULL, *dirty = NULL;
	unsigned int i, n = 0, ns = 0;
	int ok;

	pthread_mutex_lock(&spatial.mu);
	for (i = 0; i < c->nctl && !t; i++)
		if (c->ctls[i]->state == CTL_FREE && c->ctls[i]->clean)
			t = c->ctls[i];
	for (i = 0; i < c->nctl && !t; i++) {
		struct sp_ctl *s = c->ctls[i];

		if (s->claimed)
			continue;
		if ((s->state == CTL_FREE && s->zeroing) ||
		    s->state == CTL_LIVE) {
			s->claimed = 1;
			zeroing[n] = s->state == CTL_FREE;
			mine[n++] = s;
		} else if (s->state == CTL_FREE && !dirty) {
			dirty = s;
		}
	}
	if (t)
		t->state = CTL_TAKEN;
	pthread_mutex_unlock(&spatial.mu);
	if (t)
		return t;
	for (i = 0; i < n; i++)
		done[i] = zeroing[i] ?
			  sp_drv.ev_query(mine[i]->ev_z) != CUDA_ERROR_NOT_READY :
			  ctl_done(mine[i]);
	pthread_mutex_lock(&spatial.mu);
	for (i = 0; i < n; i++) {
		struct sp_ctl *s = mine[i];

		s->claimed = 0;
		if (!done[i])
			continue;
		if (zeroing[i]) {
			s->zeroing = 0;
			s->clean = 1;
			if (!t)
				t = s;
			continue;
		}
		ctl_retire(s, &dead);
		s->state = CTL_TAKEN;	/* ours until reset, or taken */
		spare[ns++] = s;
	}
	if (!t && dirty && dirty->state == CTL_FREE && !dirty->claimed)
		t = dirty;
	if (!t && ns)
		t = spare[--ns];
	if (t)
		t->state = CTL_TAKEN;
	pthread_cond_broadcast(&spatial.cv);
	pthread_mutex_unlock(&spatial.mu);
	img_free_list(dead);
	for (i = 0; i < ns; i++) {
		ok = ctl_zero(spare[i]);
		pthread_mutex_lock(&spatial.mu);
		spare[i]->zeroing = ok;
		spare[i]->state = CTL_FREE;
		pthread_mutex_unlock(&spatial.mu);
	}
	if (t || c->nctl == CTL_MAX)
		return t;
	t = ctl_new(c);
	if (!t)
		return NULL;
	t->state = CTL_TAKEN;
	pthread_mutex_lock(&spatial.mu);
	c->ctls[c->nctl++] = t;
	pthread_mutex_unlock(&spatial.mu);
	return t;
}

static void ctl_release(struct sp_ctl *t)
{
	pthread_mutex_lock(&spatial.mu);
	t->state = CTL_FREE;
	pthread_mutex_unlock(&spatial.mu);
}

/* Transformation and JIT (dispatcher thread) --------------------------------- */

/*
 * The module-scope .global and .const variables of @text into img->gv: 0,
 * or -1 with img->xerr (out of memory). Texture, sampler and surface
 * references are the business of the kernels that name them (mod_decls()).
 */
static int img_vars(struct sp_img *img, const char *text, size_t len)
{
	struct ptx_module pm;
	char err[96];
	uint32_t i;

	if (ptx_parse(&pm, text, len, err, sizeof(err))) {
		snprintf(img->xerr, sizeof(img->xerr), "its PTX: %s", err);
		return -1;
	}
	img->gv = calloc(pm.nvars ? pm.nvars : 1, sizeof(*img->gv));
	if (!img->gv) {
		snprintf(img->xerr, sizeof(img->xerr), "out of memory");
		goto fail;
	}
	for (i = 0; i < pm.nvars; i++) {
		const struct ptx_tok *t = &pm.toks[pm.vars[i].name_tok];

		if (pm.vars[i].space == PTX_V_TEXTURE)
			continue;
		img->gv[img->ngv].name = strndup(text + t->off, t->len);
		if (!img->gv[img->ngv].name) {
			snprintf(img->xerr, sizeof(img->xerr), "out of memory");
			goto fail;
		}
		img->gv[img->ngv++].writable = pm.vars[i].space == PTX_V_GLOBAL;
	}
	ptx_free(&pm);
	return 0;
fail:
	ptx_free(&pm);
	return -1;
}

/* The image's PTX text cut into parts, once; 0 or -1 with img->xerr. */
static int img_cut(struct sp_img *img)
{
	const char *why;
	char err[128];
	size_t len = 0;

	if (img->xstate)
		return img->xstate > 0 ? 0 : -1;
	img->xstate = -1;
	if (!img->ptx.data) {
		snprintf(img->xerr, sizeof(img->xerr), "%s", img->noptx);
		return -1;
	}
	img->text = gsp_fb_ptx_text(&img->ptx, &len, &why);
	if (!img->text) {
		snprintf(img->xerr, sizeof(img->xerr), "%s", why);
		return -1;
	}
	if (memchr(img->text, 0, len)) {
		snprintf(img->xerr, sizeof(img->xerr), "the image's PTX is not text");
		return -1;
	}
	if (gsp_xform_parts_new(img->text, len, &img->parts, err, sizeof(err))) {
		snprintf(img->xerr, sizeof(img->xerr), "its PTX: %s", err);
		return -1;
	}
	if (img_vars(img, img->text, len))
		return -1;
	img->xstate = 1;
	return 0;
}

/* The stats' reason for each gsp_xform verdict. */
static const char *const xform_token[] = {
	[GSP_XFORM_OK] = "xform-ok",
	[GSP_XFORM_GRID_SYNC] = "xform-grid-sync",
	[GSP_XFORM_DYN_PAR] = "xform-dynamic-parallelism",
	[GSP_XFORM_CLUSTER] = "xform-cluster",
	[GSP_XFORM_SM_ID] = "xform-sm-id",
	[GSP_XFORM_BARRIER] = "xform-barrier",
	[GSP_XFORM_FUNC] = "xform-function",
	[GSP_XFORM_TARGET] = "xform-target",
	[GSP_XFORM_NAME] = "xform-name",
	[GSP_XFORM_UNSUPPORTED] = "xform-unsupported",
	[GSP_XFORM_NO_BODY] = "xform-no-body",
	[GSP_XFORM_NOT_SELECTED] = "xform-not-selected",
	[GSP_XFORM_NO_PTX] = "xform-no-ptx",
};

/*
 * Squeezes each run of empty lines in @s to one: the kernel's text kept the
 * image's line numbers (GSP_XFORM_PARTS_LINES) for gsp-xform's reports,
 * which the JIT does not need (tens of thousands of lines in a large image).
 */
static void squeeze_lines(char *s)
{
	const char *r;
	char *w = s;

	for (r = s; *r; r++) {
		/* a newline after two in a row would start a second empty line */
		if (*r == '\n' && w - s >= 2 && w[-1] == '\n' && w[-2] == '\n')
			continue;
		*w++ = *r;
	}
	*w = 0;
}

/*
 * @r's verdict on @kn, and on success its clone alone in kn->text with the
 * variables it reaches by reference: 0, or -1 with kn->why/token.
 */
static int kern_take(struct sp_kern *kn, struct gsp_xform_result *r)
{
	char clone[512], err[96];
	const char *keep[] = { clone, NULL };
	struct gsp_xform_parts *pp;
	size_t i, len;

	for (i = 0; i < r->nk && strcmp(r->k[i].name, kn->name); i++)
		;
	if (i == r->nk) {
		snprintf(kn->why, sizeof(kn->why), "not in the image's PTX");
		return -1;
	}
	if (r->k[i].reason != GSP_XFORM_OK) {
		if ((size_t)r->k[i].reason < sizeof(xform_token) /
					     sizeof(*xform_token))
			kn->token = xform_token[r->k[i].reason];
		snprintf(kn->why, sizeof(kn->why), "%s (line %u: %s)",
			 gsp_xform_reason_name(r->k[i].reason), r->k[i].line,
			 r->k[i].detail);
		return -1;
	}
	snprintf(clone, sizeof(clone), "%s%s", kn->name, GSP_PERSIST_SUFFIX);
	if (gsp_xform_parts_new(r->out, r->out_len, &pp, err, sizeof(err))) {
		snprintf(kn->why, sizeof(kn->why), "its transformed form: %s", err);
		return -1;
	}
	if (gsp_xform_parts_take(pp, keep, 0, &kn->text, &len, err,
				 sizeof(err))) {
		snprintf(kn->why, sizeof(kn->why), "its transformed form: %s", err);
		gsp_xform_parts_free(pp);
		return -1;
	}
	gsp_xform_parts_free(pp);
	squeeze_lines(kn->text);
	kn->nparams = r->k[i].nparams;
	kn->vars = r->vars;
	kn->nvars = r->nvars;
	r->vars = NULL;
	r->nvars = 0;
	return 0;
}

/*
 * The xform verdict on @kn, from the kernel and what it names taken out of
 * its image (line numbers kept, for the reasons): 0 transformed, else -1
 * with kn->why/token.
 */
static int kern_verdict(struct sp_kern *kn)
{
	struct sp_img *img = kn->img;
	const char *keep[] = { kn->name, NULL };
	struct gsp_xform_result r;
	char err[160], *text;
	size_t len;
	int rc;

	if (kn->looked)
		return kn->ok ? 0 : -1;
	kn->looked = 1;
	kn->token = "xform";
	if (img_cut(img)) {
		kn->token = img->ptx.data ? "xform" : "no-ptx";
		snprintf(kn->why, sizeof(kn->why), "%s", img->xerr);
		return -1;
	}
	if (gsp_xform_parts_take(img->parts, keep, GSP_XFORM_PARTS_LINES, &text,
				 &len, err, sizeof(err))) {
		snprintf(kn->why, sizeof(kn->why), "its image's PTX: %s", err);
		return -1;
	}
	rc = gsp_xform(text, len, keep, &r, err, sizeof(err));
	free(text);
	if (rc) {
		snprintf(kn->why, sizeof(kn->why), "%s", err);
		return -1;
	}
	rc = kern_take(kn, &r);
	gsp_xform_result_free(&r);
	if (rc)
		return -1;
	kn->ok = 1;
	return 0;
}

/* @name in the program's module (the current context's, for a library). */
static CUresult prog_global(struct sp_img *img, const char *name,
			    CUdeviceptr *d, size_t *size)
{
	if (!img->lib)
		return sp_drv.mod_global(d, size, (CUmodule)img->root, name);
	return sp_drv.lib_global ? sp_drv.lib_global(d, size, (CUlibrary)img->root, name)
			    : CUDA_ERROR_NOT_SUPPORTED;
}

/*
 * Which of the image's variables @text, one kernel's module, declares:
 * has[i] for img->gv[i], and ref[j] for the reference of kn->vars[j]
 * (NAME__gsp_ref). 0, or -1 with md->why: a texture, sampler or surface
 * reference (textures bind per module: ours would never be bound).
 */
static int mod_decls(struct sp_kern *kn, struct sp_mod *md, const char *text,
		     char *has, char *ref)
{
	struct sp_img *img = kn->img;
	size_t rl = strlen(GSP_PERSIST_REF_SUFFIX), j, n;
	struct ptx_module pm;
	char err[96];
	uint32_t i;

	if (ptx_parse(&pm, text, strlen(text), err, sizeof(err))) {
		snprintf(md->why, sizeof(md->why), "its module: %s", err);
		return -1;
	}
	for (i = 0; i < pm.nvars; i++) {
		const struct ptx_tok *t = &pm.toks[pm.vars[i].name_tok];
		const char *name = text + t->off;

		n = t->len;
		if (pm.vars[i].space == PTX_V_TEXTURE) {
			md->token = "module-texture";
			snprintf(md->why, sizeof(md->why),
				 "it names the texture, sampler or surface %.*s",
				 (int)n, name);
			ptx_free(&pm);
			return -1;
		}
		if (n > rl && !memcmp(name + n - rl, GSP_PERSIST_REF_SUFFIX, rl)) {
			for (j = 0; j < kn->nvars; j++)
				if (strlen(kn->vars[j]) == n - rl &&
				    !memcmp(kn->vars[j], name, n - rl))
					ref[j] = 1;
			continue;
		}
		for (j = 0; j < img->ngv; j++)
			if (strlen(img->gv[j].name) == n &&
			    !memcmp(img->gv[j].name, name, n))
				has[j] = 1;
	}
	ptx_free(&pm);
	return 0;
}

/*
 * Pairs each .const variable that @md declares (@has, mod_decls()) with
 * the program's own, to be copied in before each primary launch: 0, or -1
 * with md->why. (.global ones need no copies: the module reaches the
 * program's, mod_bind().)
 */
static int mod_vars(struct sp_img *img, struct sp_mod *md, const char *has)
{
	unsigned int i;

	md->vars = calloc(img->ngv ? img->ngv : 1, sizeof(*md->vars));
	if (!md->vars) {
		snprintf(md->why, sizeof(md->why), "out of memory");
		return -1;
	}
	for (i = 0; i < img->ngv; i++) {
		struct sp_var *v = &md->vars[md->nvars];
		const char *name = img->gv[i].name;
		size_t xs = 0, os = 0;
		CUresult r;

		if (img->gv[i].writable || !has[i])
			continue;
		r = sp_drv.mod_global(&v->xf, &xs, md->m, name);
		if (r) {
			snprintf(md->why, sizeof(md->why),
				 "its module variable %s is not in its transformed module (error %d)",
				 name, (int)r);
			return -1;
		}
		r = prog_global(img, name, &v->orig, &os);
		if (r || os != xs) {
			snprintf(md->why, sizeof(md->why),
				 "its module variable %s is not in the program's module (error %d, %zu bytes, ours %zu)",
				 name, (int)r, os, xs);
			return -1;
		}
		v->size = xs;
		md->nvars++;
	}
	return 0;
}

/*
 * @text with the references it declares (@ref, mod_decls()) bound to the
 * program's variables (gsp_xform_bind()) into *@bound, which stays NULL
 * when it has none: 0, or -1 with md->why.
 */
static int mod_bind(struct sp_kern *kn, struct sp_mod *md, const char *text,
		    const char *ref, char **bound)
{
	unsigned long long *addrs;
	const char **names;
	size_t i, n = 0, len;
	char err[96];
	int rc = -1;

	*bound = NULL;
	for (i = 0; i < kn->nvars; i++)
		n += ref[i];
	if (!n)
		return 0;
	addrs = calloc(n, sizeof(*addrs));
	names = calloc(n, sizeof(*names));
	if (!addrs || !names) {
		snprintf(md->why, sizeof(md->why), "out of memory");
		goto out;
	}
	for (i = 0, n = 0; i < kn->nvars; i++) {
		CUdeviceptr d = 0;
		CUresult r;

		if (!ref[i])
			continue;
		r = prog_global(kn->img, kn->vars[i], &d, NULL);
		if (r) {
			snprintf(md->why, sizeof(md->why),
				 "its module variable %s is not in the program's module (error %d)",
				 kn->vars[i], (int)r);
			goto out;
		}
		names[n] = kn->vars[i];
		addrs[n++] = d;
	}
	rc = gsp_xform_bind(text, strlen(text), names, addrs, n, bound, &len,
			    err, sizeof(err));
	if (rc)
		snprintf(md->why, sizeof(md->why),
			 "its module variables cannot be bound: %s", err);
out:
	free(names);
	free(addrs);
	return rc;
}

/* @text, @kn's clone alone (kn->text or a form of it), JIT-ed in @c. */
static struct sp_mod *mod_jit(struct sp_kern *kn, struct sp_ctx *c,
			      const char *text)
{
	struct sp_img *img = kn->img;
	struct sp_mod *md = calloc(1, sizeof(*md));
	char *has = calloc(img->ngv + 1, 1), *ref = calloc(kn->nvars + 1, 1);
	char *bound = NULL;

	if (!md || !has || !ref) {
		free(md);
		md = NULL;
		goto out;
	}
	md->c = c;
	if (mod_decls(kn, md, text, has, ref) ||
	    mod_bind(kn, md, text, ref, &bound))
		md->err = CUDA_ERROR_NOT_FOUND;
	else
		md->err = sp_drv.mod_load(&md->m, bound ? bound : text);
	free(bound);
	if (md->err)
		md->m = NULL;
	else if (mod_vars(img, md, has))
		md->err = CUDA_ERROR_NOT_FOUND;
	md->next = img->mods;
	img->mods = md;
out:
	free(ref);
	free(has);
	return md;
}

/* NAME__gsp in @c; NULL with @why and the stats' reason in *@token. */
static struct sp_kfn *kfn_get(struct sp_kern *kn, struct sp_ctx *c,
			      char *why, size_t n, const char **token)
{
	char name[512];
	struct sp_kfn *kf;
	struct sp_mod *md;

	for (kf = kn->fns; kf; kf = kf->next)
		if (kf->c == c)
			goto found;
	*token = "jit";
	md = mod_jit(kn, c, kn->text);
	if (!md) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	kf = calloc(1, sizeof(*kf));
	if (!kf) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	kf->kind = SP_KFN;
	kf->c = c;
	kf->kern = kn;
	kf->md = md;
	kf->err = md->err;
	if (!kf->err) {
		snprintf(name, sizeof(name), "%s%s", kn->name, GSP_PERSIST_SUFFIX);
		kf->err = sp_drv.mod_fn(&kf->f, md->m, name);
	}
	kf->next = kn->fns;
	kn->fns = kf;
found:
	*token = "jit";
	if (kf->md->why[0]) {
		*token = kf->md->token ? kf->md->token : "module-variable";
		snprintf(why, n, "%s", kf->md->why);
	} else if (kf->err) {
		snprintf(why, n, "the JIT of its transformed form failed (error %d)",
			 (int)kf->err);
	}
	return kf->err ? NULL : kf;
}

/* Blocks of @f per SM at this block size; 0 if none fit. */
static int fn_occ(CUfunction f, unsigned int threads, unsigned int shmem)
{
	int k = 0;

	/* The original's opt-in to large shared memory is not ours. */
	if (shmem > 48 * 1024)
		sp_drv.fn_attr(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
			  (int)shmem);
	if (sp_drv.occ(&k, f, (int)threads, shmem) != CUDA_SUCCESS || k < 0)
		return 0;
	return k;
}

/*
 * ptxas may give a clone's task loop more registers than the original
 * kernel had (lbm: 106 against 96), and so fewer blocks per SM (4 of 128
 * threads instead of 5). Such a clone is JIT-ed again, once, in another
 * module of its own, with .maxnreg at what the original's occupancy allows
 * (a few bytes of spills at most, Documentation/spatial.rst); the capped
 * one replaces it if more of its blocks fit. Returns K now.
 */
static int kfn_regcap(struct sp_kfn *kf, CUfunction orig,
		      unsigned int threads, unsigned int shmem, int k)
{
	struct sp_kern *kn = kf->kern;
	unsigned int warps = (threads + 31) / 32, cap;
	int ko, regs = 0, k2 = 0;
	char name[512], err[160], *text;
	struct sp_mod *md;
	CUfunction f;
	size_t len;

	if (kf->capped || !kf->c->regs_sm || !sp_drv.fn_get)
		return k;
	ko = fn_occ(orig, threads, shmem);
	if (ko <= k || sp_drv.fn_get(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, kf->f))
		return k;
	/* registers go to a warp in units of 256: 8 per thread */
	cap = kf->c->regs_sm / ((unsigned int)ko * warps * 32) / 8 * 8;
	if (!cap || cap >= (unsigned int)regs)
		return k;	/* not registers: shared memory, say */
	kf->capped = 1;
	snprintf(name, sizeof(name), "%s%s", kn->name, GSP_PERSIST_SUFFIX);
	if (gsp_xform_maxnreg(kn->text, strlen(kn->text), name, cap, &text,
			      &len, err, sizeof(err))) {
		gsp_log(1, "spatial: kernel %s: no register cap: %s",
			kn->name, err);
		return k;
	}
	md = mod_jit(kn, kf->c, text);
	free(text);
	if (md && !md->err && !sp_drv.mod_fn(&f, md->m, name))
		k2 = fn_occ(f, threads, shmem);
	if (k2 <= k) {
		gsp_log(1, "spatial: kernel %s: capped at %u registers its transformed form fits %d blocks per SM, not more than %d; kept as it was",
			kn->name, cap, k2, k);
		if (md && md->m) {
			sp_drv.mod_unload(md->m);
			md->m = NULL;
		}
		return k;
	}
	kf->f = f;
	kf->md = md;
	atomic_fetch_add_explicit(&spatial.regcaps, 1, memory_order_relaxed);
	gsp_log(1, "spatial: kernel %s: its transformed form capped at %u registers (it used %d): %d blocks per SM, as the original, not %d",
		kn->name, cap, regs, k2, k);
	return k2;
}

/* K for this block size and dynamic shared memory, cached. */
static int kfn_k(struct sp_kfn *kf, CUfunction orig, unsigned int threads,
		 unsigned int shmem)
{
	int k;

	if (kf->k && kf->threads == threads && kf->shmem == shmem)
		return kf->k;
	k = fn_occ(kf->f, threads, shmem);
	if (k < 1)
		return 0;
	k = kfn_regcap(kf, orig, threads, shmem, k);
	if (k > GSP_PERSIST_MAX_K)
		k = GSP_PERSIST_MAX_K;
	kf->threads = threads;
	kf->shmem = shmem;
	kf->k = k;
	return k;
}

/* Blocks in @op's grid: the original kernel's tasks. */
static uint64_t grid_tasks(const struct gsp_op *op)
{
	if (op->kind == OP_LAUNCH_EX)
		return (uint64_t)op->u.ex.cfg.gridDimX * op->u.ex.cfg.gridDimY *
		       op->u.ex.cfg.gridDimZ;
	return (uint64_t)op->u.k.g[0] * op->u.k.g[1] * op->u.k.g[2];
}

/* cuLaunchKernelEx attributes a persistent grid cannot honour. */
static const char *ex_attr_reason(const CUlaunchConfig *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->numAttrs; i++) {
		const CUlaunchAttribute *a = &cfg->attrs[i];

		if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && a->value.cooperative)
			return "cooperative";
		if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION ||
		    a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE)
			return "cluster";
	}
	return NULL;
}

/*
 * A top-up runs on the context's own stream: it repeats the attributes
 * that say how the kernel runs, not those tied to the program's launch
 * (programmatic serialization and events, completion events: its
 * stream's, not ours) or refused above. Ids we do not know are left out.
 */
static void topup_attrs(struct sp_ctl *t, const CUlaunchConfig *cfg)
{
	unsigned int i;

	t->nattrs = 0;
	for (i = 0; i < cfg->numAttrs && t->nattrs < TOPUP_ATTRS; i++) {
		switch (cfg->attrs[i].id) {
		case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
		case CU_LAUNCH_ATTRIBUTE_PRIORITY:
		case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
		case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
		case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
			t->attrs[t->nattrs++] = cfg->attrs[i];
			break;
		default:
			break;
		}
	}
}

int gsp_sp_prepare(struct gsp_op *op)
{
	struct sp_handle *h;
	struct sp_kern *kn;
	struct sp_img *img;
	struct sp_kfn *kf;
	struct sp_ctx *c;
	const char *reason, *token;
	char why[200];
	unsigned int threads, shmem;
	CUfunction f;

	op->sp = NULL;
	if (op->kind == OP_LAUNCH || op->kind == OP_COOP)
		f = op->u.k.f;
	else if (op->kind == OP_LAUNCH_EX)
		f = op->u.ex.f;
	else
		return 0;
	pthread_mutex_lock(&spatial.mu);
	h = hfind(f);
	kn = h ? h->kern : NULL;
	img = kn ? kn->img : NULL;
	if (img)
		img->refs++;
	pthread_mutex_unlock(&spatial.mu);
	if (!kn) {
		count_fallback("unknown-kernel");
		gsp_warn_once(&spatial.warned_unknown,
			      "spatial: a kernel whose module load the interposer did not see runs unchanged");
		return 0;
	}
	if (op->kind == OP_COOP) {
		fallback(kn, "cooperative", "a cooperative launch");
		goto out;
	}
	if (op->kind == OP_LAUNCH_EX && (reason = ex_attr_reason(&op->u.ex.cfg))) {
		fallback(kn, reason, !strcmp(reason, "cluster") ?
			 "a launch with thread-block clusters" :
			 "a cooperative launch");
		goto out;
	}
	if (op->nparams < 0) {
		fallback(kn, "extra-params",
			 "its parameters come in the launch's `extra` buffer");
		goto out;
	}
	if (kern_verdict(kn)) {
		fallback(kn, kn->token, kn->why);
		goto out;
	}
	if ((unsigned int)op->nparams != kn->nparams) {
		snprintf(why, sizeof(why),
			 "the driver says %d parameters, its PTX %u",
			 op->nparams, kn->nparams);
		fallback(kn, "params", why);
		goto out;
	}
	c = ctx_get(op->ctx);
	if (!c || !c->ok) {
		snprintf(why, sizeof(why), "context set-up failed: %s",
			 c ? c->err : "out of memory");
		fallback(kn, "context", why);
		goto out;
	}
	kf = kfn_get(kn, c, why, sizeof(why), &token);
	if (!kf) {
		fallback(kn, token, why);
		goto out;
	}
	if (op->kind == OP_LAUNCH_EX) {
		threads = op->u.ex.cfg.blockDimX * op->u.ex.cfg.blockDimY *
			  op->u.ex.cfg.blockDimZ;
		shmem = op->u.ex.cfg.sharedMemBytes;
	} else {
		threads = op->u.k.b[0] * op->u.k.b[1] * op->u.k.b[2];
		shmem = op->u.k.shmem;
	}
	if (!kfn_k(kf, f, threads, shmem)) {
		fallback(kn, "occupancy",
			 "its transformed form does not fit on an SM at this block size");
		goto out;
	}
	/*
	 * A grid that fits in one wave has no task boundary to yield at
	 * beyond its blocks' own ends, which the original kernel has too:
	 * while nothing is asked of it, it runs unchanged (no ctl reset,
	 * no copies). Under a request, its transformed form keeps out of
	 * the LC's slots from the start.
	 */
	if (spatial.cfg.one_wave && grid_tasks(op) <= (uint64_t)c->nsm * kf->k &&
	    !req_nk(req_now())) {
		atomic_fetch_add_explicit(&spatial.one_wave, 1, memory_order_relaxed);
		goto out;
	}
	op->sp = kf;
	return 1;	/* the reference goes with op->sp */
out:
	img_put(img);
	return 0;
}

/* Green contexts (dispatcher thread) ------------------------------------------ */

/* Says once why a launch is not confined (@why: GW_*); @fmt: the cause. */
static void green_warn(int why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void green_warn(int why, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	/* Called at every poll of a waiting launch: format only once. */
	if (atomic_load_explicit(&spatial.warned_green[why], memory_order_relaxed))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gsp_warn_once(&spatial.warned_green[why], "spatial: %s; %s", msg,
		      why == GW_LAUNCH || why == GW_ORDER ?
		      "the kernel runs on its own stream" :
		      "kernels that cannot be transformed wait while LC work runs");
}

/*
 * Green contexts in @c, looked at once: @c must be its device's primary
 * context (a green context shares its memory and modules; others are
 * untested), and the device's SM resource is read. 0, or a GW_* code.
 */
static int green_ctx(struct sp_ctx *c)
{
	CUcontext prim = NULL;
	unsigned int flags = 0;
	int active = 0;
	CUresult r;

	if (c->gstate)
		return c->gstate > 0 ? 0 : c->gwhy;
	c->gstate = -1;
	c->gwhy = GW_CONTEXT;
	r = sp_drv.ctx_dev(&c->gdev);
	if (!r)
		r = sp_drv.prim_state(c->gdev, &flags, &active);
	/* A retain of an active primary context only counts a reference. */
	if (!r && active) {
		r = sp_drv.prim_retain(&prim, c->gdev);
		if (!r)
			sp_drv.prim_release(c->gdev);
	}
	if (r) {
		green_warn(GW_CONTEXT, "cannot tell whether a context is its device's primary one (error %d)",
			   (int)r);
		return c->gwhy;
	}
	if (prim != c->ctx) {
		green_warn(GW_CONTEXT, "green contexts are used from a device's primary context only, and a kernel runs in another");
		return c->gwhy;
	}
	r = sp_drv.dev_res(c->gdev, &c->gres, CU_DEV_RESOURCE_TYPE_SM);
	if (r || !c->gres.sm.smCount) {
		c->gwhy = GW_CREATE;
		green_warn(GW_CREATE, "cannot read the SMs of CUDA device %d (cuDeviceGetDevResource: error %d)",
			   (int)c->gdev, (int)r);
		return c->gwhy;
	}
	gsp_log(1, "spatial: device %d: %u SMs, green contexts of at least %u in steps of %u",
		(int)c->gdev, c->gres.sm.smCount, c->gres.sm.minSmPartitionSize,
		c->gres.sm.smCoscheduledAlignment);
	c->gstate = 1;
	return 0;
}

static void green_free(struct sp_green *g)
{
	if (g->s)
		sp_drv.stream_destroy(g->s);
	if (g->g)
		sp_drv.green_destroy(g->g);
	if (g->in)
		sp_drv.ev_destroy(g->in);
	if (g->out)
		sp_drv.ev_destroy(g->out);
	free(g);
}

/* Makes @g's green context, stream and events; the failing call's name. */
static const char *green_make(struct sp_green *g)
{
	CUdevResource part, rest;
	CUdevResourceDesc desc;
	unsigned int nb = 1;
	struct sp_ctx *c = g->c;
	const char *fn;

	memset(&part, 0, sizeof(part));
	g->err = sp_drv.split(&part, &nb, &c->gres, &rest, 0, g->sms);
	if (g->err)
		return "cuDevSmResourceSplitByCount";
	/* More than asked would take SMs the LC asked for. */
	if (nb != 1 || !part.sm.smCount || part.sm.smCount > g->sms) {
		g->err = CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
		return "cuDevSmResourceSplitByCount";
	}
	g->got = part.sm.smCount;
	g->err = sp_drv.gen_desc(&desc, &part, 1);
	if (g->err)
		return "cuDevResourceGenerateDesc";
	g->err = sp_drv.green_create(&g->g, desc, c->gdev, CU_GREEN_CTX_DEFAULT_STREAM);
	if (g->err) {
		g->g = NULL;
		return "cuGreenCtxCreate";
	}
	fn = "cuGreenCtxStreamCreate";
	g->err = sp_drv.green_stream(&g->s, g->g, CU_STREAM_NON_BLOCKING, 0);
	if (g->err)
		goto destroy_green;
	/* In the program's context: its streams record and wait on them. */
	fn = "cuEventCreate";
	g->err = sp_drv.ev_create(&g->in, CU_EVENT_DISABLE_TIMING);
	if (g->err)
		goto destroy_stream;
	g->err = sp_drv.ev_create(&g->out, CU_EVENT_DISABLE_TIMING);
	if (g->err)
		goto destroy_in;
	return NULL;
destroy_in:
	sp_drv.ev_destroy(g->in);
	g->in = NULL;
destroy_stream:
	sp_drv.stream_destroy(g->s);
	g->s = NULL;
destroy_green:
	sp_drv.green_destroy(g->g);
	g->g = NULL;
	return fn;
}

/* The green context of @sms SMs in @c, made once; NULL if it cannot be. */
static struct sp_green *green_get(struct sp_ctx *c, unsigned int sms)
{
	struct sp_green *g;
	const char *fn;

	for (g = c->greens; g; g = g->next)
		if (g->sms == sms)
			return g->err ? NULL : g;
	g = calloc(1, sizeof(*g));
	if (!g) {
		green_warn(GW_CREATE, "no memory for a green context");
		return NULL;
	}
	g->kind = SP_GREEN;
	g->c = c;
	g->sms = sms;
	fn = green_make(g);
	if (fn)
		green_warn(GW_CREATE, "cannot make a green context of %u SMs on CUDA device %d (%s: error %d)",
			   sms, (int)c->gdev, fn, (int)g->err);
	else
		gsp_log(1, "spatial: a green context of %u SMs (asked %u) on CUDA device %d",
			g->got, sms, (int)c->gdev);
	pthread_mutex_lock(&spatial.mu);
	g->next = c->greens;
	c->greens = g;
	pthread_mutex_unlock(&spatial.mu);
	return g->err ? NULL : g;
}

/* The green context for @op in *@g, or why not (GW_NONE: no candidate). */
static int green_try(struct gsp_op *op, struct sp_green **g)
{
	unsigned int n, all, sms, step, least;
	int pt = gsp_hooks[op->hook].pt == PT_PTDS;
	const char *ex;
	struct sp_ctx *c;
	int why;

	*g = NULL;
	if (!spatial.cfg.green ||
	    (op->kind != OP_LAUNCH && op->kind != OP_LAUNCH_EX &&
	     op->kind != OP_COOP))
		return GW_NONE;
	if (!spatial.green_api) {
		green_warn(GW_API, "the CUDA driver (version %d) has no green contexts (12.4 or later)",
			   spatial.drv_version);
		return GW_API;
	}
	if (op->kind == OP_COOP ||
	    (op->kind == OP_LAUNCH_EX && (ex = ex_attr_reason(&op->u.ex.cfg)) &&
	     !strcmp(ex, "cooperative"))) {
		green_warn(GW_COOP, "a cooperative launch cannot be confined to a green context");
		return GW_COOP;
	}
	if (op->kind == OP_LAUNCH_EX && ex_attr_reason(&op->u.ex.cfg)) {
		green_warn(GW_CLUSTER, "a launch with thread-block clusters is not confined to a green context");
		return GW_CLUSTER;
	}
	if (gsp_capturing(op->stream, pt)) {
		green_warn(GW_CAPTURE, "a launch into a stream being captured cannot be confined to a green context");
		return GW_CAPTURE;
	}
	/* None: LC work is held for lc_hold_us, or asks for no SMs. */
	n = GSP_PERSIST_CTRL_N(req_now());
	if (!n)
		return GW_NOREQ;
	c = ctx_get(op->ctx);
	if (!c) {
		green_warn(GW_CREATE, "no memory for a context's state");
		return GW_CREATE;
	}
	why = green_ctx(c);
	if (why)
		return why;
	all = c->gres.sm.smCount;
	step = c->gres.sm.smCoscheduledAlignment ?
	       c->gres.sm.smCoscheduledAlignment : 1;
	least = c->gres.sm.minSmPartitionSize > step ?
		c->gres.sm.minSmPartitionSize : step;
	sms = n < all ? (all - n) / step * step : 0;
	if (sms < least) {
		green_warn(GW_SMALL, "the LC asks for %u of the %u SMs of CUDA device %d; the %u left are fewer than a green context's %u",
			   n, all, (int)c->gdev, n < all ? all - n : 0, least);
		return GW_SMALL;
	}
	*g = green_get(c, sms);
	return *g ? GW_NONE : GW_CREATE;
}

int gsp_sp_green(struct gsp_op *op, int *why)
{
	struct sp_green *g;
	int w = green_try(op, &g);

	/* The latest reason, unless it is only the LC asking for no SMs. */
	if (w && (w != GW_NOREQ || !*why))
		*why = w;
	op->sp = g;
	return g != NULL;
}

void gsp_sp_gated(int why)
{
	if (why > GW_NONE && why < GW_N)
		atomic_fetch_add_explicit(&spatial.green_gated[why], 1,
					  memory_order_relaxed);
}

/* Says once that @f (a launch's function) runs confined to @g. */
static void green_report(const struct sp_green *g, CUfunction f)
{
	struct sp_handle *h;

	pthread_mutex_lock(&spatial.mu);
	h = hfind(f);
	if (h && h->kern)
		gsp_warn_once(&h->kern->green_reported,
			      "spatial: kernel %s runs on a green context of %u of %u SMs while LC work runs",
			      h->kern->name, g->got, g->c->gres.sm.smCount);
	else
		gsp_warn_once(&spatial.warned_green_unknown,
			      "spatial: kernels whose module load the interposer did not see run on a green context of %u of %u SMs while LC work runs",
			      g->got, g->c->gres.sm.smCount);
	pthread_mutex_unlock(&spatial.mu);
}

/*
 * @op on its green stream, in its stream's order: the green stream waits
 * for the app's stream, and the app's stream for the kernel. 0 if it must
 * be issued unchanged after all (its stream's order then still holds).
 */
static int green_issue(struct gsp_op *op, CUresult *res)
{
	struct sp_green *g = op->sp;
	int pt = gsp_hooks[op->hook].pt == PT_PTDS;
	CUfunction f;
	CUresult r;

	op->sp = NULL;
	r = sp_drv.ev_record[pt](g->in, op->stream);
	if (!r)
		r = sp_drv.wait[0](g->s, g->in, 0);
	if (r) {
		gsp_sp_gated(GW_ORDER);
		green_warn(GW_ORDER, "a green context's stream cannot wait for the program's (error %d)",
			   (int)r);
		return 0;
	}
	if (op->kind == OP_LAUNCH_EX) {
		CUlaunchConfig cfg = op->u.ex.cfg;

		f = op->u.ex.f;
		cfg.hStream = g->s;
		r = sp_drv.launch_ex[0](&cfg, f, op->u.ex.params, op->u.ex.extra);
	} else {
		f = op->u.k.f;
		r = sp_drv.launch[0](f, op->u.k.g[0], op->u.k.g[1], op->u.k.g[2],
				op->u.k.b[0], op->u.k.b[1], op->u.k.b[2],
				op->u.k.shmem, g->s, op->u.k.params,
				op->u.k.extra);
	}
	if (r) {
		/* On its own stream it fails again if the error is its own. */
		gsp_sp_gated(GW_LAUNCH);
		green_warn(GW_LAUNCH, "a launch on a green context failed (error %d)",
			   (int)r);
		return 0;
	}
	r = sp_drv.ev_record[0](g->out, g->s);
	if (!r)
		r = sp_drv.wait[pt](op->stream, g->out, 0);
	/* Else the program's stream cannot wait for it: we do. */
	*res = r ? sp_drv.stream_sync(g->s) : CUDA_SUCCESS;
	atomic_fetch_add_explicit(&spatial.green_launches, 1, memory_order_relaxed);
	green_report(g, f);
	return 1;
}

/*
 * Takes the green contexts of the dead contexts (@all: of every one) off
 * their lists, spatial.mu held; frees them unlocked in green_drop().
 */
static struct sp_green *green_take(int all)
{
	struct sp_green *l = NULL, *g;
	struct sp_ctx *c;

	for (c = spatial.ctxs; c; c = c->next) {
		if (!all && !c->dead)
			continue;
		while ((g = c->greens)) {
			c->greens = g->next;
			g->next = l;
			l = g;
		}
	}
	return l;
}

/* Frees @l; with @wait after its work, else leaving busy ones be. */
static void green_drop(struct sp_green *l, int wait)
{
	while (l) {
		struct sp_green *nx = l->next;
		int done = 1;

		/* A busy one stays for the driver's teardown. */
		if (l->s && wait)
			done = sp_drv.stream_sync(l->s) == CUDA_SUCCESS;
		else if (l->s)
			done = sp_drv.ev_query(l->out) != CUDA_ERROR_NOT_READY;
		if (done)
			green_free(l);
		l = nx;
	}
}

/* Launch and top-ups ---------------------------------------------------------- */

/* Copies @op's parameters into @t, with &t->job after them. */
static int ctl_params(struct sp_ctl *t, const struct gsp_op *op, void **params)
{
	unsigned int i, np = (unsigned int)op->nparams;
	void **pp = realloc(t->params, (np + 1) * sizeof(void *));

	if (!pp)
		return -1;
	t->params = pp;
	if (op->buflen) {
		void *b = realloc(t->pbuf, op->buflen);

		if (!b)
			return -1;
		t->pbuf = b;
		memcpy(b, op->buf, op->buflen);
	}
	for (i = 0; i < np; i++)
		pp[i] = (char *)t->pbuf + ((char *)params[i] - (char *)op->buf);
	pp[np] = &t->job;
	return 0;
}

/* The .const variables into our module before a primary, on its stream. */
static CUresult vars_copy(const struct sp_mod *md, int pt, CUstream s)
{
	unsigned int i;
	CUresult r;

	for (i = 0; i < md->nvars; i++) {
		const struct sp_var *v = &md->vars[i];

		r = sp_drv.dtod[pt](v->xf, v->orig, v->size, s);
		if (r)
			return r;
	}
	return CUDA_SUCCESS;
}

static int watcher_start(void);

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	nanosleep(&ts, NULL);
}

/*
 * Whether a job of @c is waited rather than kept (gsp_persist.h, "Stream
 * order"). Kept, the last primary block holds a slot on one SM while
 * tasks remain, and the hardware then places the LC's blocks around it:
 * one SM gets a block too many, and a one-wave LC kernel takes half as
 * long again (Documentation/spatial.rst). Waited, a yield leaves the SMs
 * empty, and only top-ups finish the job: so only with the watcher
 * running, and not under reserved, whose request stands as long as an LC
 * tenant does. GSP_KEEP=1 keeps every job.
 */
static int job_waited(const struct sp_ctx *c)
{
	return c->waiter && !spatial.cfg.keep &&
	       gsp_board_protect(spatial.cfg.board, spatial.cfg.device) !=
		       GSP_PROTECT_RESERVED &&
	       watcher_start();
}

/*
 * The waiter behind waited job @t (live) could not be launched: the
 * launching thread waits for the job's tasks itself, so that nothing
 * after it on the program's stream @s starts early; top-ups finish it
 * (the watcher). Then ev_p, which ctl_done() ignored meanwhile.
 */
static void job_wait_host(struct sp_ctl *t, int pt, CUstream s)
{
	struct sp_img *dead = NULL;
	uint64_t done = 0;

	gsp_warn_once(&spatial.warned_wait64,
		      "spatial: cannot launch the waiter behind a transformed kernel; its launch waits for its tasks on the host");
	while (!sp_drv.dtoh(&done, t->dptr + GSP_PERSIST_OFF_DONE_TASKS,
		       sizeof(done), t->c->zero) &&
	       !sp_drv.stream_sync(t->c->zero) && done < t->job.ntasks)
		sleep_ns(WAIT_HOST_NS);
	if (!sp_drv.ev_record[pt](t->ev_p, s)) {
		atomic_store(&t->host_wait, 0);
		return;
	}
	/* Its end cannot be seen: never reused. */
	pthread_mutex_lock(&spatial.mu);
	while (t->claimed)
		pthread_cond_wait(&spatial.cv, &spatial.mu);
	ctl_retire(t, &dead);
	t->state = CTL_LOST;
	pthread_mutex_unlock(&spatial.mu);
	img_free_list(dead);
}

int gsp_sp_issue(struct gsp_op *op, CUresult *res)
{
	struct sp_kfn *kf = op->sp;
	struct sp_kern *kn = kf->kern;
	struct sp_ctx *c = kf->c;
	int pt = gsp_hooks[op->hook].pt == PT_PTDS;
	unsigned int g[3], grid;
	struct sp_ctl *t;
	uint64_t word;
	CUresult r;
	int clean;

	if (kf->kind == SP_GREEN)
		return green_issue(op, res);
	op->sp = NULL;
	if (op->kind == OP_LAUNCH_EX) {
		g[0] = op->u.ex.cfg.gridDimX;
		g[1] = op->u.ex.cfg.gridDimY;
		g[2] = op->u.ex.cfg.gridDimZ;
	} else {
		memcpy(g, op->u.k.g, sizeof(g));
	}
	t = ctl_get(c);
	if (!t) {
		fallback(kn, "ctl", "no control block (device memory) for it");
		img_put(kn->img);
		return 0;
	}
	if (ctl_params(t, op, op->kind == OP_LAUNCH_EX ? op->u.ex.params :
							  op->u.k.params)) {
		ctl_release(t);
		fallback(kn, "ctl", "out of memory");
		img_put(kn->img);
		return 0;
	}
	/*
	 * One wave, but no more blocks than tasks: the surplus would only
	 * claim a slot and leave, which costs a small kernel more than it
	 * runs.
	 */
	grid = c->nsm * (unsigned int)kf->k;
	if ((uint64_t)g[0] * g[1] * g[2] < grid)
		grid = g[0] * g[1] * g[2];
	/* The board moved (gsp_sp_board_moved()): this context reads anew. */
	if (c->board_gen != atomic_load(&spatial.board_gen) && map_ctrl(c)) {
		ctl_release(t);
		fallback(kn, "context", c->err);
		img_put(kn->img);
		return 0;
	}
	word = req_now();
	if (local_word())
		__atomic_store_n(local_word(), word, __ATOMIC_RELEASE);
	/* reset on its stream unless the zero stream did it (ctl_get()) */
	clean = t->clean;
	t->clean = 0;
	memset(&t->job, 0, sizeof(t->job));
	t->job.ctl = t->dptr;
	t->job.ctrl_ptr = c->ctrl;
	t->job.ntasks = (uint64_t)g[0] * g[1] * g[2];
	memcpy(t->job.nctaid, g, sizeof(g));
	t->job.k_slots = (uint32_t)kf->k;
	t->job.refresh_ns = spatial.cfg.refresh_ns;
	t->job.copy_ns = spatial.cfg.copy_ns;
	t->job.batch_ns = spatial.cfg.batch_ns;
	t->waited = job_waited(c);
	t->job.flags = GSP_PERSIST_PRIMARY |
		       (t->waited ? GSP_PERSIST_WAITED : 0);
	t->job.word = word;
	t->f = kf->f;
	t->grid = grid;
	if (op->kind == OP_LAUNCH_EX) {
		CUlaunchConfig cfg = op->u.ex.cfg;

		t->b[0] = cfg.blockDimX;
		t->b[1] = cfg.blockDimY;
		t->b[2] = cfg.blockDimZ;
		t->shmem = cfg.sharedMemBytes;
		topup_attrs(t, &cfg);
		cfg.gridDimX = grid;
		cfg.gridDimY = cfg.gridDimZ = 1;
		r = vars_copy(kf->md, pt, op->stream);
		if (!r && !clean)
			r = sp_drv.memset32[pt](t->dptr, 0,
					   GSP_PERSIST_RESET_BYTES / 4, op->stream);
		if (!r)
			r = sp_drv.launch_ex[pt](&cfg, t->f, t->params, NULL);
	} else {
		memcpy(t->b, op->u.k.b, sizeof(t->b));
		t->shmem = op->u.k.shmem;
		t->nattrs = 0;
		r = vars_copy(kf->md, pt, op->stream);
		if (!r && !clean)
			r = sp_drv.memset32[pt](t->dptr, 0,
					   GSP_PERSIST_RESET_BYTES / 4, op->stream);
		if (!r)
			r = sp_drv.launch[pt](t->f, grid, 1, 1, t->b[0], t->b[1],
					 t->b[2], t->shmem, op->stream,
					 t->params, NULL);
	}
	if (r) {
		char why[96];

		ctl_release(t);
		snprintf(why, sizeof(why),
			 "the launch of its transformed form failed (error %d)",
			 (int)r);
		fallback(kn, "launch", why);
		img_put(kn->img);
		return 0;
	}
	atomic_fetch_add_explicit(&spatial.launches, 1, memory_order_relaxed);
	*res = CUDA_SUCCESS;
	if (t->waited) {
		CUdeviceptr done = t->dptr + GSP_PERSIST_OFF_DONE_TASKS;
		void *wp[] = { &done, &t->job.ntasks };

		atomic_fetch_add_explicit(&spatial.waited, 1, memory_order_relaxed);
		/* ev_p then follows the host's wait, once it is live (below) */
		atomic_store(&t->host_wait,
			     sp_drv.launch[pt](c->waiter, 1, 1, 1, 32, 1, 1, 0,
					  op->stream, wp, NULL) != CUDA_SUCCESS);
	}
	if (!atomic_load(&t->host_wait) && sp_drv.ev_record[pt](t->ev_p, op->stream)) {
		/* Its end cannot be seen: never reused, never topped up. */
		pthread_mutex_lock(&spatial.mu);
		t->state = CTL_LOST;
		pthread_mutex_unlock(&spatial.mu);
		img_put(kn->img);
		return 1;
	}
	pthread_mutex_lock(&spatial.mu);
	if (spatial.nlive == spatial.cap) {
		unsigned int cap = spatial.cap ? 2 * spatial.cap : 64;
		struct sp_ctl **l = realloc(spatial.live, cap * sizeof(*l));

		if (!l) {
			t->state = CTL_LOST;
			pthread_mutex_unlock(&spatial.mu);
			img_put(kn->img);
			return 1;
		}
		spatial.live = l;
		spatial.cap = cap;
	}
	t->img = kn->img;	/* the prepare's reference */
	t->topups = 0;
	t->hw = ctl_slots(t, word);
	t->ep = GSP_PERSIST_CTRL_EPOCH(word);
	t->state = CTL_LIVE;
	spatial.live[spatial.nlive++] = t;
	pthread_cond_signal(&spatial.wake);
	pthread_mutex_unlock(&spatial.mu);
	watcher_start();
	if (atomic_load(&t->host_wait))
		job_wait_host(t, pt, op->stream);
	return 1;
}

/*
 * A top-up of @t (claimed, in the watcher): @blocks blocks (at most the
 * job's grid), flags 0, the word the watcher just read and the
 * attributes topup_attrs() kept, on its context's own stream. No more
 * blocks than slots were given up: a block that finds its SM full stays
 * queued in the hardware until a slot frees, and the hardware hands a
 * freed slot to the oldest queued grid of the highest priority first,
 * which would be the top-up's, not the LC kernel's. -1 if its end
 * cannot be seen (the ctl is then lost), 1 if it was not launched (a
 * waited job needs it: the watcher tries again), else 0.
 */
static int topup(struct sp_ctl *t, uint64_t word, uint32_t blocks)
{
	struct sp_ctx *c = t->c;
	unsigned int grid = blocks < t->grid ? blocks : t->grid;
	CUresult r;

	if (sp_drv.ctx_set(c->ctx))
		return 1;
	t->job.flags = 0;
	t->job.word = word;
	if (t->nattrs) {
		CUlaunchConfig cfg = {
			.gridDimX = grid, .gridDimY = 1, .gridDimZ = 1,
			.blockDimX = t->b[0], .blockDimY = t->b[1],
			.blockDimZ = t->b[2], .sharedMemBytes = t->shmem,
			.hStream = c->topup, .attrs = t->attrs,
			.numAttrs = t->nattrs,
		};

		r = sp_drv.launch_ex[0](&cfg, t->f, t->params, NULL);
	} else {
		r = sp_drv.launch[0](t->f, grid, 1, 1, t->b[0], t->b[1], t->b[2],
				t->shmem, c->topup, t->params, NULL);
	}
	if (r)
		return 1;
	atomic_fetch_add_explicit(&spatial.topups, 1, memory_order_relaxed);
	if (sp_drv.ev_record[0](t->ev_t, c->topup))
		return -1;
	t->topups++;
	return 0;
}


/*
 * Polls the request while transformed jobs run. A job whose request
 * shrank since its launch (or last top-up) gets a top-up; jobs whose
 * events completed are retired, their ctls free again.
 */
static void *watcher_main(void *arg)
{
	struct sp_ctl *batch[WATCH_BATCH];
	int done[WATCH_BATCH], lost[WATCH_BATCH], zeroed[WATCH_BATCH];
	(void)arg;

	/* Our 50 us sleeps must not be stretched by the timer slack. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	pthread_mutex_lock(&spatial.mu);
	for (;;) {
		struct sp_img *dead = NULL;
		unsigned int i, n = 0;
		const struct gsp_board_dev *dv = &spatial.cfg.board->dev[spatial.cfg.device];
		uint64_t word, full_word;

		while (!spatial.stop && !spatial.nlive)
			pthread_cond_wait(&spatial.wake, &spatial.mu);
		if (spatial.stop)
			break;
		for (i = 0; i < spatial.nlive && n < WATCH_BATCH; i++)
			if (!spatial.live[i]->claimed) {
				spatial.live[i]->claimed = 1;
				batch[n++] = spatial.live[i];
			}
		pthread_mutex_unlock(&spatial.mu);
		word = req_now();
		if (local_word())
			__atomic_store_n(local_word(), word, __ATOMIC_RELEASE);
		full_word = GSP_PERSIST_CTRL(gsp_board_load(&dv->part_n),
					     gsp_board_load(&dv->part_k), 0);
		for (i = 0; i < n; i++) {
			struct sp_ctl *t = batch[i];
			uint32_t nk = ctl_slots(t, word);
			uint32_t full = ctl_slots(t, full_word);
			int r = 0;

			done[i] = ctl_done(t);
			/*
			 * A shrink since its last look, or a change it did not
			 * see that may have been a raise and a fall between two
			 * polls: slots may be free, as many as were given up.
			 * A block too many stays queued, and leaves at once
			 * when it starts under a request (its first boundary
			 * reads the word afresh).
			 */
			if (!done[i] && nk < t->hw)
				r = topup(t, word, t->hw - nk);
			else if (!done[i] && GSP_PERSIST_CTRL_EPOCH(word) != t->ep &&
				 nk < full)
				r = topup(t, word, full - nk);
			lost[i] = r < 0;
			/* a waited job has no keeper: its top-up is tried again */
			if (r > 0 && t->waited) {
				zeroed[i] = 0;
				continue;
			}
			t->hw = nk;
			t->ep = GSP_PERSIST_CTRL_EPOCH(word);
			/* ended: reset now, off the program's streams */
			zeroed[i] = done[i] && ctl_zero(t);
		}
		pthread_mutex_lock(&spatial.mu);
		for (i = 0; i < n; i++) {
			batch[i]->claimed = 0;
			if (lost[i]) {
				ctl_retire(batch[i], &dead);
				batch[i]->state = CTL_LOST;
			} else if (done[i]) {
				ctl_retire(batch[i], &dead);
				batch[i]->zeroing = zeroed[i];
			}
		}
		pthread_cond_broadcast(&spatial.cv);
		pthread_mutex_unlock(&spatial.mu);
		img_free_list(dead);
		sleep_ns(spatial.cfg.watch_ns);
		pthread_mutex_lock(&spatial.mu);
	}
	pthread_mutex_unlock(&spatial.mu);
	return NULL;
}

/* 1 if the watcher runs (started now if it did not). */
static int watcher_start(void)
{
	int running;

	pthread_mutex_lock(&spatial.mu);
	if (!spatial.watcher_running && !spatial.stop &&
	    !pthread_create(&spatial.watcher, NULL, watcher_main, NULL))
		spatial.watcher_running = 1;
	else if (!spatial.watcher_running)
		gsp_warn_once(&spatial.warned_wait,
			      "spatial: cannot start the watcher thread; BE kernels give slots up but take them back only at their next launch");
	running = spatial.watcher_running;
	pthread_mutex_unlock(&spatial.mu);
	return running;
}

/* Set-up, stats, exit ---------------------------------------------------------- */

#define RSYM(field, name) (*(void **)&sp_drv.field = gsp_real_sym(name))
#define RHOOK(field, id) (*(void **)&sp_drv.field = gsp_real(id))

void gsp_sp_start(const struct gsp_spatial_cfg *cfg)
{
	spatial.cfg = *cfg;
	RSYM(ctx_dev, "cuCtxGetDevice");
	RHOOK(ctx_set, H_cuCtxSetCurrent);
	RSYM(dev_get, "cuDeviceGet");
	RSYM(dev_attr, "cuDeviceGetAttribute");
	RHOOK(mod_load, H_cuModuleLoadData);
	RHOOK(mod_fn, H_cuModuleGetFunction);
	RHOOK(mod_unload, H_cuModuleUnload);
	RSYM(mod_global, "cuModuleGetGlobal_v2");
	RSYM(lib_global, "cuLibraryGetGlobal");
	RHOOK(dtod[0], H_cuMemcpyDtoDAsync_v2);
	RHOOK(dtod[1], H_cuMemcpyDtoDAsync_v2_ptsz);
	RSYM(occ, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
	RSYM(fn_attr, "cuFuncSetAttribute");
	RSYM(fn_get, "cuFuncGetAttribute");
	RSYM(mem_alloc, "cuMemAlloc_v2");
	RHOOK(mem_free, H_cuMemFree_v2);
	RHOOK(memset32[0], H_cuMemsetD32Async);
	RHOOK(memset32[1], H_cuMemsetD32Async_ptsz);
	RHOOK(htod, H_cuMemcpyHtoDAsync_v2);
	RHOOK(dtoh, H_cuMemcpyDtoHAsync_v2);
	RSYM(stream_create, "cuStreamCreate");
	RHOOK(stream_sync, H_cuStreamSynchronize);
	RSYM(ev_create, "cuEventCreate");
	RHOOK(ev_record[0], H_cuEventRecord);
	RHOOK(ev_record[1], H_cuEventRecord_ptsz);
	RHOOK(ev_query, H_cuEventQuery);
	RHOOK(launch[0], H_cuLaunchKernel);
	RHOOK(launch[1], H_cuLaunchKernel_ptsz);
	RHOOK(launch_ex[0], H_cuLaunchKernelEx);
	RHOOK(launch_ex[1], H_cuLaunchKernelEx_ptsz);
	RSYM(host_reg, "cuMemHostRegister_v2");
	RSYM(host_dptr, "cuMemHostGetDevicePointer_v2");
	RSYM(host_alloc, "cuMemHostAlloc");
	RSYM(drv_version, "cuDriverGetVersion");
	RSYM(prim_state, "cuDevicePrimaryCtxGetState");
	RSYM(prim_retain, "cuDevicePrimaryCtxRetain");
	RHOOK(prim_release, H_cuDevicePrimaryCtxRelease_v2);
	RSYM(dev_res, "cuDeviceGetDevResource");
	RSYM(split, "cuDevSmResourceSplitByCount");
	RSYM(gen_desc, "cuDevResourceGenerateDesc");
	RSYM(green_create, "cuGreenCtxCreate");
	RSYM(green_destroy, "cuGreenCtxDestroy");
	RSYM(green_stream, "cuGreenCtxStreamCreate");
	RHOOK(stream_destroy, H_cuStreamDestroy_v2);
	RHOOK(ev_destroy, H_cuEventDestroy_v2);
	RHOOK(wait[0], H_cuStreamWaitEvent);
	RHOOK(wait[1], H_cuStreamWaitEvent_ptsz);
	/* Green contexts came with 12.4; the version guards their semantics. */
	if (!sp_drv.drv_version || sp_drv.drv_version(&spatial.drv_version))
		spatial.drv_version = 0;
	spatial.green_api = spatial.drv_version >= 12040 && sp_drv.prim_state &&
		       sp_drv.prim_retain && sp_drv.prim_release && sp_drv.dev_res &&
		       sp_drv.split && sp_drv.gen_desc && sp_drv.green_create &&
		       sp_drv.green_destroy && sp_drv.green_stream && sp_drv.stream_destroy &&
		       sp_drv.ev_destroy && sp_drv.wait[0] && sp_drv.wait[1];
	if (!sp_drv.ctx_dev || !sp_drv.ctx_set || !sp_drv.dev_get || !sp_drv.dev_attr ||
	    !sp_drv.mod_load || !sp_drv.mod_fn || !sp_drv.mod_unload || !sp_drv.mod_global ||
	    !sp_drv.dtod[0] || !sp_drv.dtod[1] || !sp_drv.occ || !sp_drv.fn_attr ||
	    !sp_drv.mem_alloc || !sp_drv.mem_free || !sp_drv.memset32[0] || !sp_drv.memset32[1] ||
	    !sp_drv.htod || !sp_drv.dtoh || !sp_drv.stream_create || !sp_drv.stream_sync ||
	    !sp_drv.ev_create || !sp_drv.ev_record[0] || !sp_drv.ev_record[1] || !sp_drv.ev_query ||
	    !sp_drv.launch[0] || !sp_drv.launch[1] || !sp_drv.launch_ex[0] ||
	    !sp_drv.launch_ex[1] || !sp_drv.host_reg || !sp_drv.host_dptr || !sp_drv.host_alloc) {
		fprintf(stderr, "gsp: spatial: the CUDA driver lacks functions spatial sharing needs; kernels run unchanged\n");
		return;
	}
	atomic_store(&spatial.on, 1);
}

void gsp_sp_board_moved(void)
{
	pthread_mutex_lock(&spatial.mu);
	/* The old page stays registered: running kernels still read it. */
	if (spatial.board_mapped > 0)
		spatial.board_mapped = -1;
	atomic_fetch_add(&spatial.board_gen, 1);
	pthread_mutex_unlock(&spatial.mu);
	gsp_warn_once(&spatial.warned_moved,
		      "spatial: the arbiter's board is a new page (gspaced restarted); kernels launched from now on read a copy of the request, refreshed every GSP_WATCH_US");
}

void gsp_sp_stats(FILE *f)
{
	unsigned long gated = 0;
	unsigned int i;

	if (!gsp_sp_on())
		return;
	fprintf(f, "spatial_launches %lu\nspatial_waited %lu\nspatial_topups %lu\nspatial_one_wave %lu\nspatial_regcap %lu\n",
		atomic_load(&spatial.launches), atomic_load(&spatial.waited),
		atomic_load(&spatial.topups), atomic_load(&spatial.one_wave),
		atomic_load(&spatial.regcaps));
	pthread_mutex_lock(&spatial.mu);
	for (i = 0; i < spatial.nreason; i++)
		fprintf(f, "spatial_fallback_%s %lu\n", spatial.reason[i].name,
			spatial.reason[i].n);
	pthread_mutex_unlock(&spatial.mu);
	for (i = 1; i < GW_N; i++)
		gated += atomic_load(&spatial.green_gated[i]);
	fprintf(f, "spatial_green_launches %lu\nspatial_green_unavailable %lu\n",
		atomic_load(&spatial.green_launches), gated);
	for (i = 1; i < GW_N; i++)
		if (atomic_load(&spatial.green_gated[i]))
			fprintf(f, "spatial_green_unavailable_%s %lu\n",
				gw_token[i], atomic_load(&spatial.green_gated[i]));
}

void gsp_sp_stop(int idle)
{
	struct sp_green *greens = NULL;
	struct timespec ts;
	int running;

	pthread_mutex_lock(&spatial.mu);
	spatial.stop = 1;
	running = spatial.watcher_running;
	pthread_cond_broadcast(&spatial.wake);
	if (idle)
		greens = green_take(1);
	pthread_mutex_unlock(&spatial.mu);
	/* Without waiting: a kernel still running keeps its own. */
	green_drop(greens, 0);
	if (!running)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(JOIN_NS / 1000000000ULL);
	/* Bounded: a driver call torn down under it must not hang the exit. */
	if (pthread_timedjoin_np(spatial.watcher, NULL, &ts))
		fprintf(stderr, "gsp: spatial: the watcher did not finish at exit\n");
	else
		spatial.watcher_running = 0;
}

void gsp_sp_after_fork(void)
{
	/* The child has no watcher and runs in pass-through. */
	pthread_mutex_init(&spatial.mu, NULL);
	pthread_cond_init(&spatial.wake, NULL);
	pthread_cond_init(&spatial.cv, NULL);
	spatial.watcher_running = 0;
	spatial.nlive = 0;
	atomic_store(&spatial.on, 0);
}
