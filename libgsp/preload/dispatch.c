// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The process's tenant: configuration from the environment, the arbiter
 * (libgsp, loaded at first use), the BE FIFO and its dispatcher thread
 * with leases and their renewal, synchronous gates, the LC reporter
 * thread, rejoining the arbiter as a new tenant when it marked us hung or
 * went away, and the counters written at exit. See
 * Documentation/interposer.rst.
 *
 * Over 800 lines: its parts share the one tenant state (tenant, below); issue
 * 33 splits it by the banners below (configuration, rejoin, BE leases,
 * gates, LC reporter and charger, set-up) behind an internal header.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <gsp.h>
#include <gsp_board.h>

#include <gsp_persist.h>

#include "lcprio.h"
#include "predict.h"
#include "preload.h"
#include "spatial.h"

#define POLL_NS		10000ULL	/* board and event polls, after ... */
#define SPIN_POLLS	16		/* ... this many polls with sched_yield */
#define BOARD_POLL_NS	50000ULL	/* BE: while LC work is active */
#define LC_FAST_NS	50000ULL	/* LC reporter poll while LC is busy */
#define LC_SLOW_NS	2000000ULL	/* ... after 100 ms without LC work */
#define LC_BUSY_NS	100000000ULL
#define IDLE_LEASE_NS	200000ULL	/* keep an idle lease this long */
#define EXIT_DRAIN_NS	5000000000ULL	/* at exit, wait this long at most */
#define LC_SAMPLE	16		/* time every 16th LC op of a key */
#define LC_RING		4096
#define LC_SAMPLES	64		/* timed LC ops in flight at most */
#define LC_MARKS	64		/* pooled reporter markers kept */
#define KEYS		4096
#define MAX_DEPTH	64
#define AHEAD_NS	200000ULL	/* BE: short ops in flight beyond depth */
#define FIFO_MAX	1024		/* BE: deferred ops before the app waits */
#define RENEW_DEFAULT_NS 500000000ULL	/* a quarter of the default watchdog */
#define REJOIN_MIN_NS	10000000ULL	/* reconnect backoff: 10 ms ... */
#define REJOIN_MAX_NS	1000000000ULL	/* ... doubling up to 1 s */
#define REJOIN_STREAK	8	/* rejoins in a row with no grant: give up */

struct gsp_stats_ctr gsp_ctr;

enum { SPATIAL_OFF, SPATIAL_ON, SPATIAL_AUTO };

/* libgsp, resolved at run time so the interposer loads without it. */
struct gsp_api {
	int (*open)(struct gsp **, const struct gsp_open_opts *);
	void (*close)(struct gsp *);
	int (*reopen)(struct gsp *);
	int (*version)(struct gsp *, struct gspace_version *);
	int (*ctx_set)(struct gsp *, struct gspace_ctx_set *);
	int (*submit)(struct gsp *, struct gspace_submit *);
	int (*wait)(struct gsp *, struct gspace_wait *);
	int (*complete)(struct gsp *, struct gspace_complete *);
	const struct gsp_board *(*board)(struct gsp *);
	struct gsp_board *(*board_rw)(struct gsp *);
	int (*lc_slot)(struct gsp *);
};

struct gsp_gate {
	int state;		/* 0 queued, 1 go, 2 issued */
	uint32_t engine;
	CUstream stream;	/* NULL: synchronous, timed on the host */
	CUevent start, end;	/* from the dispatcher; start only if first */
	uint64_t host_ns;
	int issued_ok;
};

/*
 * An LC tenant's slot on the board: where its issues are counted. A new
 * one is published when the tenant rejoins (and the old one never
 * freed), so a count is taken back only from the slot it went into.
 */
struct lc_view {
	struct gsp_board *rw;	/* the writable board, or NULL */
	int slot;		/* its slot in it, or -1 */
};

/*
 * The one tenant of this process. Global because the driver API has no
 * handle we could hang it on; set up once (pthread_once) and torn down
 * at exit.
 */
static struct {
	pthread_once_t once;
	_Atomic int mode;		/* enum gsp_mode */
	int log;
	uint32_t device, cls, weight;
	uint64_t lc_target_ns, quantum_ns;
	int overlap;	/* GSP_OVERLAP: hand leases over with ops in flight */
	int spatial;	/* GSP_SPATIAL: SPATIAL_* */
	struct gsp_spatial_cfg sp;
	unsigned int depth;
	const char *stats_file;
	int fail_open;	/* GSP_FAIL_OPEN: pass through for good on a loss */
	int progress;	/* the arbiter renews leases (LEASE_PROGRESS) */
	int renew_auto;	/* renew every quarter of the board's watchdog */
	uint64_t renew_ns;	/* else every this long; 0: never */
	struct gsp_api api;
	struct gsp *g;
	const struct gsp_board *board;
	_Atomic(struct lc_view *) lcv;	/* LC: the slot counted in */
	atomic_int warned_arbiter;
	atomic_int warned_rejoin[GSP_REJOIN_N], warned_back;
	unsigned int rejoin_streak;	/* rejoins since the last grant */

	/*
	 * BE FIFO, in program order across threads. Condition variables (on
	 * CLOCK_MONOTONIC): cv for drains and gates, work for the
	 * dispatcher, space for app threads waiting for room in the FIFO.
	 */
	pthread_mutex_t mu;
	pthread_cond_t cv, work, space;
	struct gsp_op *head, *tail;
	uint64_t enq, issued;
	uint64_t drain_at;		/* wake drains when issued reaches it */
	unsigned int space_waiters;
	int dispatcher_idle;
	atomic_ullong pending;		/* enq - issued, for a cheap check */
	CUresult sticky;
	int stop, dispatcher_running, reporter_running, charger_running;
	pthread_t dispatcher, reporter, charger;
	/*
	 * LC: GPU time the reporter has measured and the charger has not
	 * yet charged, per engine (under mu; owed wakes the charger). A
	 * charge waits for the arbiter's grant, which a BE lease can hold
	 * for as long as its kernel runs: the reporter must not wait with
	 * it, or the slot's inflight, and so the partition request, would
	 * stay up until the BE kernel that the request starves ends.
	 */
	uint64_t lc_owed[GSPACE_ENGINE_COUNT];
	pthread_cond_t owed;
	int capturing;			/* streams in capture, all contexts */

	/* LC ring: many app threads push, the reporter pops. */
	struct lc_rec {
		atomic_ullong seq;
		CUcontext ctx;
		CUstream stream;
		const void *key;
		uint32_t engine;
		int sample;		/* as in gsp_lc_ticket */
		const void *view;	/* as in gsp_lc_ticket */
	} ring[LC_RING];
	/*
	 * Event pairs for the sampled LC ops: an app thread claims one with
	 * busy (0 -> 1), the reporter frees it once it has read the time.
	 * Created on first use in a context, then reused: the fast path
	 * never creates or destroys an event in steady state.
	 */
	struct lc_sample {
		atomic_int busy;
		CUcontext ctx;
		CUevent s, e;
	} samples[LC_SAMPLES];
	atomic_uint sample_next;
	atomic_ullong ring_head, ring_tail;
	atomic_ullong lc_overflow;
	atomic_ullong lc_last_ns;
	/* Arrivals for the forecast (lc_arrival()): how many, the last. */
	atomic_ullong lc_arrivals, lc_arrival_ns;
} tenant = {
	.once = PTHREAD_ONCE_INIT,
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.space = PTHREAD_COND_INITIALIZER,
	.owed = PTHREAD_COND_INITIALIZER,
	.drain_at = UINT64_MAX,
};

static struct gsp_key keys[KEYS];	/* see gsp_key() */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	nanosleep(&ts, NULL);
}

static void vmsg(const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "gsp: %s\n", buf);
}

void gsp_warn_once(atomic_int *once, const char *fmt, ...)
{
	va_list ap;

	if (atomic_exchange(once, 1))
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void gsp_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (tenant.log < level)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/*
 * Fall back to pass-through for good: the arbiter is unusable, or
 * GSP_FAIL_OPEN=1 asked for it on any loss.
 */
static void arbiter_lost(const char *what, int err)
{
	gsp_warn_once(&tenant.warned_arbiter,
		      "%s failed (%s); passing every CUDA call through from now on",
		      what, strerror(-err));
	atomic_store(&tenant.mode, GSP_MODE_OFF);
}

struct gsp_key *gsp_key(const void *key)
{
	uintptr_t h = (uintptr_t)key;
	unsigned int i, n;

	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ULL;
	for (n = 0, i = (unsigned int)(h >> 52) % KEYS; n < KEYS;
	     n++, i = (i + 1) % KEYS) {
		const void *k = atomic_load_explicit(&keys[i].key,
						     memory_order_acquire);
		const void *expect = NULL;

		if (k == key)
			return &keys[i];
		if (k)
			continue;
		if (atomic_compare_exchange_strong(&keys[i].key, &expect, key) ||
		    expect == key)
			return &keys[i];
	}
	return NULL;
}

void gsp_cost_put(const void *key, uint64_t ns)
{
	struct gsp_key *k = gsp_key(key);
	uint64_t old;

	if (!k)
		return;
	old = atomic_load_explicit(&k->ewma_ns, memory_order_relaxed);
	/* EWMA, 1/8 new; the first measurement seeds it. */
	atomic_store_explicit(&k->ewma_ns, old ? old - old / 8 + ns / 8 : ns,
			      memory_order_relaxed);
}

static uint64_t cost_get(const void *key)
{
	struct gsp_key *k = gsp_key(key);

	return k ? atomic_load_explicit(&k->ewma_ns, memory_order_relaxed) : 0;
}

/* Configuration ------------------------------------------------------- */

static int env_u64(const char *name, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-' || v < lo || v > hi) {
		fprintf(stderr,
			"gsp: %s=%s is not a number in %" PRIu64 "..%" PRIu64
			"; fix it (see gsp-run --help); passing every CUDA call through\n",
			name, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

static int read_config(void)
{
	const char *cls = getenv("GSP_CLASS"), *sp = getenv("GSP_SPATIAL");
	const char *green = getenv("GSP_GREEN");
	uint64_t v;
	int bad = 0;

	tenant.cls = GSPACE_CLASS_BE;
	if (cls && !strcmp(cls, "lc"))
		tenant.cls = GSPACE_CLASS_LC;
	else if (cls && strcmp(cls, "be")) {
		fprintf(stderr, "gsp: GSP_CLASS=%s is not be or lc; passing every CUDA call through\n",
			cls);
		bad = 1;
	}
	v = 0;
	bad |= env_u64("GSP_LOG", 0, 2, &v) < 0;
	tenant.log = (int)v;
	v = GSPACE_WEIGHT_DEFAULT;
	bad |= env_u64("GSP_WEIGHT", GSPACE_WEIGHT_MIN, GSPACE_WEIGHT_MAX, &v) < 0;
	tenant.weight = (uint32_t)v;
	v = 0;
	bad |= env_u64("GSP_LC_TARGET_US", 0, GSPACE_COST_MAX_NS / 1000, &v) < 0;
	tenant.lc_target_ns = v * 1000;
	v = 0;
	bad |= env_u64("GSP_DEVICE", 0, GSP_BOARD_MAX_DEVICES - 1, &v) < 0;
	tenant.device = (uint32_t)v;
	v = 2000;
	bad |= env_u64("GSP_QUANTUM_US", 10, 10000000, &v) < 0;
	tenant.quantum_ns = v * 1000;
	v = 2;
	bad |= env_u64("GSP_BE_DEPTH", 1, MAX_DEPTH, &v) < 0;
	tenant.depth = (unsigned int)v;
	v = 0;
	bad |= env_u64("GSP_OVERLAP", 0, 1, &v) < 0;
	tenant.overlap = (int)v;
	tenant.spatial = SPATIAL_AUTO;
	if (sp && !strcmp(sp, "0"))
		tenant.spatial = SPATIAL_OFF;
	else if (sp && !strcmp(sp, "1"))
		tenant.spatial = SPATIAL_ON;
	else if (sp && strcmp(sp, "auto")) {
		fprintf(stderr, "gsp: GSP_SPATIAL=%s is not auto, 0 or 1; passing every CUDA call through\n",
			sp);
		bad = 1;
	}
	tenant.sp.green = !(green && !strcmp(green, "0"));
	if (green && strcmp(green, "0") && strcmp(green, "auto")) {
		fprintf(stderr, "gsp: GSP_GREEN=%s is not auto or 0; passing every CUDA call through\n",
			green);
		bad = 1;
	}
	v = 50;
	bad |= env_u64("GSP_WATCH_US", 1, 1000000, &v) < 0;
	tenant.sp.watch_ns = v * 1000;
	v = GSP_PERSIST_REFRESH_NS;
	bad |= env_u64("GSP_REFRESH_NS", 0, UINT32_MAX, &v) < 0;
	tenant.sp.refresh_ns = (uint32_t)v;
	v = GSP_PERSIST_COPY_NS;
	bad |= env_u64("GSP_COPY_NS", 0, UINT32_MAX, &v) < 0;
	tenant.sp.copy_ns = (uint32_t)v;
	v = GSP_PERSIST_BATCH_NS;
	bad |= env_u64("GSP_BATCH_NS", 0, UINT32_MAX, &v) < 0;
	tenant.sp.batch_ns = (uint32_t)v;
	v = 1;
	bad |= env_u64("GSP_ONE_WAVE", 0, 1, &v) < 0;
	bad |= gsp_lcprio_config() < 0;
	tenant.sp.one_wave = (int)v;
	v = 0;
	bad |= env_u64("GSP_KEEP", 0, 1, &v) < 0;
	tenant.sp.keep = (int)v;
	v = 0;
	bad |= env_u64("GSP_FAIL_OPEN", 0, 1, &v) < 0;
	tenant.fail_open = (int)v;
	tenant.renew_auto = 1;
	if (getenv("GSP_RENEW_US") && strcmp(getenv("GSP_RENEW_US"), "auto")) {
		v = 0;
		bad |= env_u64("GSP_RENEW_US", 0, 3600000000ULL, &v) < 0;
		tenant.renew_auto = 0;
		tenant.renew_ns = v * 1000;
	}
	v = 0;
	bad |= env_u64("GSP_DISABLE", 0, 1, &v) < 0;
	tenant.stats_file = getenv("GSP_STATS_FILE");
	if (tenant.cls == GSPACE_CLASS_BE && tenant.lc_target_ns) {
		fprintf(stderr, "gsp: GSP_LC_TARGET_US is for GSP_CLASS=lc only; passing every CUDA call through\n");
		bad = 1;
	}
	return bad || v ? -1 : 0;
}

static int load_libgsp(void)
{
	char path[PATH_MAX];
	Dl_info di;
	void *h = NULL;

	/* Next to us first: build/lib/ and the install directory alike. */
	if (dladdr((void *)load_libgsp, &di) && di.dli_fname) {
		const char *slash = strrchr(di.dli_fname, '/');

		if (slash && (size_t)(slash - di.dli_fname) + 14 < sizeof(path)) {
			snprintf(path, sizeof(path), "%.*s/libgsp.so.1",
				 (int)(slash - di.dli_fname), di.dli_fname);
			h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		}
	}
	if (!h)
		h = dlopen("libgsp.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -ENOENT;
#define API(field, name)						\
	do {								\
		*(void **)&tenant.api.field = dlsym(h, name);		\
		if (!tenant.api.field)					\
			return -ENOSYS;					\
	} while (0)
	API(open, "gsp_open");
	API(close, "gsp_close");
	API(reopen, "gsp_reopen");
	API(version, "gsp_version");
	API(ctx_set, "gsp_ctx_set");
	API(submit, "gsp_submit");
	API(wait, "gsp_wait");
	API(complete, "gsp_complete");
	API(board, "gsp_board");
	API(board_rw, "gsp_board_rw");
	API(lc_slot, "gsp_board_lc_slot");
#undef API
	return 0;
}

/* Real driver functions the dispatcher and reporter call. */
typedef CUresult (*ctx_get_fn)(CUcontext *);
typedef CUresult (*ctx_set_fn)(CUcontext);
typedef CUresult (*ev_create_fn)(CUevent *, unsigned int);
typedef CUresult (*ev_destroy_fn)(CUevent);
typedef CUresult (*ev_record_fn)(CUevent, CUstream);
typedef CUresult (*ev_query_fn)(CUevent);
typedef CUresult (*ev_elapsed_fn)(float *, CUevent, CUevent);

/* Set once in setup(), read-only afterwards. */
static struct {
	ctx_get_fn ctx_get;
	ctx_set_fn ctx_set;
	ev_create_fn ev_create;
	ev_destroy_fn ev_destroy;
	ev_record_fn ev_record;
	ev_query_fn ev_query;
	ev_elapsed_fn ev_elapsed;
} drv;

static int find_driver(void)
{
	*(void **)&drv.ctx_get = gsp_real_sym("cuCtxGetCurrent");
	drv.ctx_set = (ctx_set_fn)gsp_real(H_cuCtxSetCurrent);
	*(void **)&drv.ev_create = gsp_real_sym("cuEventCreate");
	drv.ev_destroy = (ev_destroy_fn)gsp_real(H_cuEventDestroy_v2);
	drv.ev_record = (ev_record_fn)gsp_real(H_cuEventRecord);
	drv.ev_query = (ev_query_fn)gsp_real(H_cuEventQuery);
	drv.ev_elapsed = (ev_elapsed_fn)gsp_real(H_cuEventElapsedTime_v2);
	if (!drv.ev_elapsed)
		drv.ev_elapsed = (ev_elapsed_fn)gsp_real(H_cuEventElapsedTime);
	return drv.ctx_get && drv.ctx_set && drv.ev_create && drv.ev_destroy &&
	       drv.ev_record && drv.ev_query && drv.ev_elapsed ? 0 : -ENOSYS;
}

static uint64_t elapsed_ns(CUevent a, CUevent b)
{
	float ms = 0;

	if (drv.ev_elapsed(&ms, a, b) != CUDA_SUCCESS || ms < 0)
		return 0;
	return (uint64_t)((double)ms * 1e6);
}

/*
 * Waits for @ev by polling; the app's own events are its business. A few
 * polls yield the CPU only, for short waits; then it sleeps POLL_NS (our
 * threads set a 1 ns timer slack, else each sleep lasts 50 us more).
 */
static void ev_wait_then(CUevent ev, void (*each)(void))
{
	unsigned int n = 0;

	while (drv.ev_query(ev) == CUDA_ERROR_NOT_READY) {
		if (n++ < SPIN_POLLS)
			sched_yield();
		else
			sleep_ns(POLL_NS);
		if (each)
			each();
	}
}

static void ev_wait(CUevent ev)
{
	ev_wait_then(ev, NULL);
}

/* Our threads' short sleeps must not be stretched by the timer slack. */
static void tight_timers(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

static void ensure_ctx(CUcontext ctx)
{
	CUcontext cur = NULL;

	if (drv.ctx_get(&cur) != CUDA_SUCCESS || cur != ctx)
		drv.ctx_set(ctx);
}

static int lc_active(void)
{
	return tenant.board && gsp_board_lc_active(tenant.board, tenant.device, now_ns());
}

/* Kernels that cannot yield keep off the LC's SMs (a green context). */
static int lc_confine(void)
{
	return tenant.board && gsp_board_lc_confine(tenant.board, tenant.device, now_ns());
}

/* Rejoining the arbiter -------------------------------------------------- */

/* An LC tenant's slot, as the arbiter has just given it (see lc_view). */
static void lc_view_publish(void)
{
	struct lc_view *v = calloc(1, sizeof(*v));

	if (v) {
		v->rw = tenant.api.board_rw(tenant.g);
		v->slot = tenant.api.lc_slot(tenant.g);
		if (!v->rw || v->slot < 0 || v->slot >= GSP_BOARD_LC_SLOTS) {
			v->rw = NULL;
			v->slot = -1;
		}
	}
	atomic_store_explicit(&tenant.lcv, v, memory_order_release);
}

/*
 * Errors of gsp_reopen() worth waiting out: the arbiter is not (yet)
 * back. The others say it is there and refuses us.
 */
static int rejoin_transient(int err)
{
	return err != -EPERM && err != -EACCES && err != -EINVAL &&
	       err != -EPROTO && err != -ENODEV && err != -ENOSYS;
}

/* Sleeps @ns, or less if the process exits meanwhile: 1 if it does. */
static int rejoin_sleep(uint64_t ns)
{
	uint64_t until = now_ns() + ns;
	struct timespec ts = { .tv_sec = (time_t)(until / 1000000000ULL),
			       .tv_nsec = (long)(until % 1000000000ULL) };
	int stop;

	pthread_mutex_lock(&tenant.mu);
	while (!tenant.stop && now_ns() < until)
		if (pthread_cond_timedwait(&tenant.cv, &tenant.mu, &ts) == ETIMEDOUT)
			break;
	stop = tenant.stop;
	pthread_mutex_unlock(&tenant.mu);
	return stop;
}

static void rejoin_say(enum gsp_rejoin_why why, const char *what, int err)
{
	switch (why) {
	case GSP_REJOIN_WATCHDOG:
		gsp_warn_once(&tenant.warned_rejoin[why],
			      "%s: a lease outlived the arbiter's watchdog without being renewed, and the arbiter ended it; rejoining as a new tenant, still scheduled (GSP_STATS_FILE counts rejoins)",
			      what);
		break;
	case GSP_REJOIN_HUNG:
		gsp_warn_once(&tenant.warned_rejoin[why],
			      "%s: the arbiter marked this tenant hung (%s); rejoining as a new tenant, still scheduled (GSP_STATS_FILE counts rejoins)",
			      what, strerror(-err));
		break;
	default:
		if (tenant.cls == GSPACE_CLASS_LC)
			gsp_warn_once(&tenant.warned_rejoin[why],
				      "%s: lost the arbiter (%s); LC work goes on unreported while rejoining is retried, every second at most, until it is back",
				      what, strerror(-err));
		else
			gsp_warn_once(&tenant.warned_rejoin[why],
				      "%s: lost the arbiter (%s); holding the program's GPU work (%llu operations queued) while rejoining is retried, every second at most, until it is back",
				      what, strerror(-err),
				      (unsigned long long)atomic_load(&tenant.pending));
		break;
	}
}

/*
 * The arbiter ended a lease by its watchdog, marked this tenant hung, or
 * went away (@what failed with @err): ends the tenant and joins again as
 * a new one, set up as before (gsp_reopen(): class, weight, device, LC
 * target, the board in place), retrying with backoff while the arbiter
 * is away. The program's queued work waits meanwhile: nothing runs
 * unscheduled. Called only by the thread that talks to the arbiter (the
 * dispatcher, or the LC charger). 0 once rejoined; -1 if everything
 * passes through from now on: GSP_FAIL_OPEN=1, the arbiter refusing us,
 * rejoins that never lead to a grant, or the process exiting meanwhile.
 */
static int rejoin(enum gsp_rejoin_why why, const char *what, int err)
{
	uint64_t t0 = now_ns(), backoff = REJOIN_MIN_NS;
	const struct gsp_board *b;
	int ret;

	if (tenant.fail_open) {
		arbiter_lost(what, err);
		return -1;
	}
	if (++tenant.rejoin_streak > REJOIN_STREAK) {
		gsp_warn_once(&tenant.warned_arbiter,
			      "%s keeps failing (%s) after %u rejoins in a row; passing every CUDA call through from now on",
			      what, strerror(-err), REJOIN_STREAK);
		atomic_store(&tenant.mode, GSP_MODE_OFF);
		return -1;
	}
	rejoin_say(why, what, err);
	while ((ret = tenant.api.reopen(tenant.g)) < 0) {
		if (!rejoin_transient(ret)) {
			arbiter_lost("rejoining the arbiter", ret);
			return -1;
		}
		if (why != GSP_REJOIN_LOST) {
			/* Marked, and then it went away: a loss after all. */
			why = GSP_REJOIN_LOST;
			rejoin_say(why, "rejoining", ret);
		}
		if (rejoin_sleep(backoff)) {
			gsp_warn_once(&tenant.warned_arbiter,
				      "exiting while the arbiter is away; what is still queued is issued unscheduled");
			atomic_store(&tenant.mode, GSP_MODE_OFF);
			return -1;
		}
		backoff = backoff * 2 < REJOIN_MAX_NS ? backoff * 2 :
							REJOIN_MAX_NS;
	}
	if (why == GSP_REJOIN_LOST)
		gsp_warn_once(&tenant.warned_back,
			      "the arbiter is back after %.1f s; rejoined as a new tenant, scheduled again",
			      (double)(now_ns() - t0) / 1e9);
	/* The same mapping, unless it could not be moved onto the new one. */
	b = tenant.api.board(tenant.g);
	if (b)
		tenant.board = b;
	/* gspaced restarted: a new board page, which the GPU has not mapped. */
	if (ret == 1 && gsp_sp_on())
		gsp_sp_board_moved();
	if (tenant.cls == GSPACE_CLASS_LC)
		lc_view_publish();
	atomic_fetch_add(&gsp_ctr.rejoins, 1);
	atomic_fetch_add(&gsp_ctr.rejoin_why[why], 1);
	gsp_log(1, "rejoined the arbiter (%s)", what);
	return 0;
}

/* BE leases (dispatcher thread only) ------------------------------------ */

#define RING	(MAX_DEPTH + 2)

static struct {
	int open;
	uint32_t engine;
	CUcontext ctx;
	uint64_t handle, t0, est_ns, host_ns;
	uint64_t renewed;		/* grant or last renewal, host time */
	int renew_err;			/* a renewal failed: stop trying */
	CUcontext ev_ctx;		/* events below belong to it */
	/*
	 * End events of the ops in flight, oldest at head. A ring of
	 * MAX_DEPTH + 2 so that a new slot never reuses prev, created once
	 * per context, never per op.
	 */
	CUevent start, ring[RING];
	const void *rkey[RING];
	uint64_t rcost[RING];		/* estimate of each, for ahead_ns */
	unsigned int rgen[RING];	/* the lease (gen) that issued each */
	unsigned int gen;		/* this lease */
	CUevent lprev;			/* last retired op of this lease */
	uint64_t ahead_ns;		/* estimated GPU time in flight */
	unsigned int head, count;	/* outstanding ops in ring */
	int started;
	CUevent prev;			/* last retired marker */
	unsigned int nops;
} lease;

static void retire_one(void);

/* How often a lease that waits on the GPU is renewed; 0: never. */
static uint64_t renew_every(void)
{
	uint64_t wd;

	if (!tenant.progress)
		return 0;
	if (!tenant.renew_auto)
		return tenant.renew_ns;
	wd = tenant.board ? gsp_board_load(&tenant.board->watchdog_ns) : 0;
	return wd ? wd / 4 : RENEW_DEFAULT_NS;
}

/*
 * While the dispatcher waits on the GPU for the open lease's work (or a
 * gated call), it renews the lease every renew_every(), so the watchdog
 * tells a long kernel from a stuck process: a renewal says the holder is
 * alive (GSPACE_COMPLETE_PROGRESS). The GPU time so far it reports is
 * the host time since the grant, which for a lease held by a long kernel
 * is that kernel's time; COMPLETE then charges only what the measured
 * span adds. A failed renewal is left to lease_end(), whose COMPLETE
 * fails the same way.
 */
static void lease_tick(void)
{
	struct gspace_complete c = { .size = sizeof(c) };
	uint64_t now, every;
	int err;

	if (!lease.open || lease.renew_err)
		return;
	every = renew_every();
	now = now_ns();
	if (!every || now - lease.renewed < every)
		return;
	lease.renewed = now;
	c.flags = GSPACE_COMPLETE_PROGRESS;
	c.handle = lease.handle;
	c.gpu_ns = now - lease.t0 < GSPACE_COST_MAX_NS ? now - lease.t0 :
						     GSPACE_COST_MAX_NS;
	err = tenant.api.complete(tenant.g, &c);
	if (err) {
		lease.renew_err = err;
		return;
	}
	atomic_fetch_add(&gsp_ctr.renewals, 1);
	gsp_log(2, "lease %" PRIu64 " renewed, %llu ns so far", lease.handle,
		(unsigned long long)c.gpu_ns);
}

/* ev_wait() for an op of the open lease: renews it meanwhile. */
static void lease_ev_wait(CUevent ev)
{
	ev_wait_then(ev, lease_tick);
}

static void lease_events(CUcontext ctx)
{
	unsigned int i, n = RING;

	if (lease.ev_ctx == ctx)
		return;
	while (lease.count)
		retire_one();
	lease.prev = NULL;
	if (lease.ev_ctx) {
		drv.ev_destroy(lease.start);
		for (i = 0; i < n; i++)
			drv.ev_destroy(lease.ring[i]);
	}
	lease.ev_ctx = NULL;
	if (drv.ev_create(&lease.start, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
		return;
	for (i = 0; i < n; i++)
		if (drv.ev_create(&lease.ring[i], CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
			while (i--)
				drv.ev_destroy(lease.ring[i]);
			drv.ev_destroy(lease.start);
			return;
		}
	lease.ev_ctx = ctx;
}

/* Retires the oldest outstanding op: waits for it, learns its cost. */
static void retire_one(void)
{
	CUevent ev = lease.ring[lease.head];

	lease_ev_wait(ev);
	if (lease.prev && lease.rkey[lease.head])
		gsp_cost_put(lease.rkey[lease.head], elapsed_ns(lease.prev, ev));
	lease.prev = ev;
	if (lease.rgen[lease.head] == lease.gen)
		lease.lprev = ev;
	lease.ahead_ns -= lease.rcost[lease.head];
	lease.head = (lease.head + 1) % RING;
	lease.count--;
}

/*
 * A slot for the end event of the next op. At most depth ops are in
 * flight, or more (up to MAX_DEPTH) while their estimated GPU time stays
 * under AHEAD_NS: short kernels then do not wait for each other, and BE
 * work queued on the GPU is still bounded in time. An op never measured
 * counts as AHEAD_NS.
 */
static CUevent next_end_event(const void *key)
{
	uint64_t c = key ? cost_get(key) : 0;
	unsigned int slot;

	if (!c)
		c = AHEAD_NS;
	while (lease.count >= tenant.depth &&
	       (lease.count >= MAX_DEPTH || lease.ahead_ns + c > AHEAD_NS))
		retire_one();
	slot = (lease.head + lease.count) % RING;
	lease.rkey[slot] = key;
	lease.rcost[slot] = c;
	lease.rgen[slot] = lease.gen;
	lease.ahead_ns += c;
	lease.count++;
	return lease.ring[slot];
}

/* Gives back the slot next_end_event() just handed out: nothing recorded. */
static void forget_last(void)
{
	lease.count--;
	lease.ahead_ns -= lease.rcost[(lease.head + lease.count) % RING];
}

/*
 * Ends the lease. With @wait_all it first waits for all its ops: the
 * default, because the next tenant's events would otherwise time our tail
 * as theirs (on the H200, 4 BE tenants with 100 us and 1 ms kernels got
 * 4.5 % and 45 % instead of 25 % each). With GSP_OVERLAP=1, a lease that
 * ends for the quantum, another engine or context, or LC work leaves its
 * ops in flight, charged at their EWMA, so the GPU does not idle for the
 * arbiter round trips at the boundary: better for one tenant alone.
 */
static void lease_end(int wait_all)
{
	struct gspace_complete c = { .size = sizeof(c) };
	uint64_t gpu = lease.host_ns;
	unsigned int i;
	int err;

	if (!lease.open)
		return;
	if (wait_all)
		while (lease.count)
			retire_one();
	if (lease.started && lease.lprev)
		gpu += elapsed_ns(lease.start, lease.lprev);
	for (i = 0; i < lease.count; i++) {
		unsigned int slot = (lease.head + i) % RING;

		if (lease.rgen[slot] == lease.gen && lease.rkey[slot])
			gpu += cost_get(lease.rkey[slot]);
	}
	lease.open = 0;
	if (gpu > GSPACE_COST_MAX_NS)
		gpu = GSPACE_COST_MAX_NS;
	c.handle = lease.handle;
	c.gpu_ns = gpu;
	err = tenant.api.complete(tenant.g, &c);
	gsp_log(2, "lease %" PRIu64 " engine %u: %u ops, %" PRIu64 " ns",
		lease.handle, lease.engine, lease.nops, gpu);
	if (err == -EALREADY) {
		gsp_log(1, "lease %" PRIu64 " had already ended (watchdog)",
			lease.handle);
		rejoin(GSP_REJOIN_WATCHDOG, "COMPLETE", err);
	} else if (err) {
		rejoin(GSP_REJOIN_LOST, "COMPLETE", err);
	}
}

/*
 * Submits a job of @cost_ns on @engine and waits until it is granted,
 * rejoining the arbiter first if it marked us hung or went away. 0 and
 * *@handle, or <0 once the interposer passes through (reported).
 */
static int job_granted(uint32_t engine, uint64_t cost_ns, uint64_t *handle)
{
	for (;;) {
		struct gspace_submit sub = { .size = sizeof(sub) };
		struct gspace_wait w = { .size = sizeof(w) };
		int err;

		sub.engine = engine;
		sub.cost_ns = cost_ns;
		err = tenant.api.submit(tenant.g, &sub);
		if (err) {
			if (rejoin(err == -EBUSY ? GSP_REJOIN_HUNG :
						   GSP_REJOIN_LOST, "SUBMIT", err))
				return err;
			continue;
		}
		w.flags = GSPACE_WAIT_GRANTED;
		w.handle = sub.handle;
		do {
			w.deadline_ns = now_ns() + 100000000ULL;
			err = tenant.api.wait(tenant.g, &w);
		} while (err == -ETIME || err == -EINTR);
		if (err || w.status) {
			if (rejoin(!err && w.status == -ETIMEDOUT ?
				   GSP_REJOIN_WATCHDOG : GSP_REJOIN_LOST,
				   "WAIT", err ? err : w.status))
				return err ? err : w.status;
			continue;
		}
		*handle = sub.handle;
		/* A lease again: rejoining worked, whatever comes next. */
		tenant.rejoin_streak = 0;
		return 0;
	}
}

/*
 * Takes a lease for @op's engine in its context; 0, or <0 if the arbiter
 * is lost. A *@spatial op (a transformed launch, or one confined to a
 * green context) does not wait for LC work: it runs beside it. Another
 * waits, unless the LC's request comes to leave room for a green context
 * meanwhile (*@spatial then set; *@why: see gsp_sp_green()).
 */
static int lease_begin(struct gsp_op *op, int *spatial, int *why)
{
	uint32_t engine = op->engine;
	CUcontext ctx = op->ctx;
	uint64_t handle;
	int err;

	while (!*spatial && lc_active()) {
		sleep_ns(BOARD_POLL_NS);
		*spatial = gsp_sp_on() && gsp_sp_green(op, why);
	}
	err = job_granted(engine, tenant.quantum_ns, &handle);
	if (err)
		return err;
	atomic_fetch_add(&gsp_ctr.leases, 1);
	atomic_fetch_add(&gsp_ctr.jobs, 1);
	/* Ops of the last lease may still be in flight: keep the ring. */
	lease.nops = 0;
	lease.gen++;
	lease.lprev = NULL;
	lease.started = 0;
	lease.est_ns = lease.host_ns = 0;
	lease.open = 1;
	lease.engine = engine;
	lease.ctx = ctx;
	lease.handle = handle;
	lease.t0 = now_ns();
	lease.renewed = lease.t0;
	lease.renew_err = 0;
	lease_events(ctx);
	return 0;
}

/* Does @op (@spatial: a transformed launch) fit in the open lease? */
static int lease_fits(const struct gsp_op *op, int spatial)
{
	uint64_t c;

	if (!lease.open || lease.engine != op->engine || lease.ctx != op->ctx)
		return 0;
	if (now_ns() - lease.t0 >= tenant.quantum_ns)
		return 0;
	c = op->key ? cost_get(op->key) : 0;
	if (lease.nops && lease.est_ns + c > tenant.quantum_ns)
		return 0;
	return spatial || !lc_active();
}

/*
 * One wait of the dispatcher for a gated call (tenant.mu held): a synchronous
 * call can take long, and the lease is renewed as for GPU work.
 */
static void gate_wait_renewing(void)
{
	uint64_t every = renew_every(), until;
	struct timespec ts;

	if (!lease.open || lease.renew_err || !every) {
		pthread_cond_wait(&tenant.cv, &tenant.mu);
		return;
	}
	until = lease.renewed + every;
	ts.tv_sec = (time_t)(until / 1000000000ULL);
	ts.tv_nsec = (long)(until % 1000000000ULL);
	if (pthread_cond_timedwait(&tenant.cv, &tenant.mu, &ts) == ETIMEDOUT) {
		pthread_mutex_unlock(&tenant.mu);
		lease_tick();
		pthread_mutex_lock(&tenant.mu);
	}
}

/* Issues one op under the lease, with events around it. */
static CUresult issue_leased(struct gsp_op *op)
{
	CUstream evs = op->stream;
	int timed = lease.ev_ctx == op->ctx;
	CUresult r;

	if (op->kind == OP_GATE) {
		struct gsp_gate *gt = op->u.gate;

		gt->start = NULL;
		gt->end = NULL;
		if (timed && gt->stream) {
			if (!lease.started) {
				gt->start = lease.start;
				lease.started = 1;
				if (!lease.count)
					lease.prev = lease.start;
			}
			gt->end = next_end_event(op->key);
		}
		pthread_mutex_lock(&tenant.mu);
		gt->state = 1;
		pthread_cond_broadcast(&tenant.cv);
		while (gt->state != 2)
			gate_wait_renewing();
		pthread_mutex_unlock(&tenant.mu);
		if (gt->end && !gt->issued_ok)
			forget_last();
		lease.host_ns += gt->host_ns;
		return CUDA_SUCCESS;
	}
	if (timed && !lease.started) {
		if (drv.ev_record(lease.start, evs) == CUDA_SUCCESS) {
			lease.started = 1;
			/* Else an op in flight would be timed from it. */
			if (!lease.count)
				lease.prev = lease.start;
		}
	}
	r = gsp_op_issue(op);
	if (r == CUDA_SUCCESS && timed && lease.started) {
		CUevent e = next_end_event(op->key);

		if (drv.ev_record(e, evs) != CUDA_SUCCESS)
			forget_last();
	}
	lease.est_ns += op->key ? cost_get(op->key) : 0;
	return r;
}

static void dispatch_one(struct gsp_op *op)
{
	int spatial = 0, why = 0;
	CUresult r;

	ensure_ctx(op->ctx);
	if (op->engine >= GSPACE_ENGINE_COUNT) {
		/* Event records and waits: no GPU time, no lease. */
		r = gsp_op_issue(op);
		goto done;
	}
	if (atomic_load(&tenant.mode) == GSP_MODE_BE) {
		/*
		 * Transformed, or confined to a green context while LC work
		 * runs, is known before the time-plane gate.
		 */
		spatial = gsp_sp_on() && gsp_sp_prepare(op);
		if (!spatial && gsp_sp_on() && lc_confine())
			spatial = gsp_sp_green(op, &why);
		if (lease.open && !lease_fits(op, spatial))
			lease_end(!tenant.overlap);
		if (!lease.open && atomic_load(&tenant.mode) == GSP_MODE_BE)
			lease_begin(op, &spatial, &why);
		if (!spatial)
			gsp_sp_gated(why);
	}
	if (lease.open) {
		r = issue_leased(op);
		lease.nops++;
	} else if (op->kind == OP_GATE) {
		pthread_mutex_lock(&tenant.mu);
		op->u.gate->start = op->u.gate->end = NULL;
		op->u.gate->state = 1;
		pthread_cond_broadcast(&tenant.cv);
		while (op->u.gate->state != 2)
			pthread_cond_wait(&tenant.cv, &tenant.mu);
		pthread_mutex_unlock(&tenant.mu);
		r = CUDA_SUCCESS;
	} else {
		r = gsp_op_issue(op);
	}
done:
	if (r != CUDA_SUCCESS) {
		gsp_log(1, "deferred call failed with error %d; reported at the next sync point",
			(int)r);
		atomic_fetch_add(&gsp_ctr.errors_sticky, 1);
	}
	pthread_mutex_lock(&tenant.mu);
	if (r != CUDA_SUCCESS && tenant.sticky == CUDA_SUCCESS)
		tenant.sticky = r;
	tenant.issued++;
	atomic_fetch_sub(&tenant.pending, 1);
	/* Wake only whom this op concerns: a drain it ends, room it makes. */
	if (tenant.issued >= tenant.drain_at) {
		tenant.drain_at = UINT64_MAX;
		pthread_cond_broadcast(&tenant.cv);
	}
	if (tenant.space_waiters && tenant.enq - tenant.issued <= FIFO_MAX / 2)
		pthread_cond_broadcast(&tenant.space);
	pthread_mutex_unlock(&tenant.mu);
}

static void *dispatcher_main(void *arg)
{
	(void)arg;
	tight_timers();
	pthread_mutex_lock(&tenant.mu);
	for (;;) {
		struct gsp_op *op;

		while (!tenant.head && !tenant.stop) {
			tenant.dispatcher_idle = 1;
			if (lease.open) {
				struct timespec ts;
				uint64_t until = now_ns() + IDLE_LEASE_NS;

				ts.tv_sec = (time_t)(until / 1000000000ULL);
				ts.tv_nsec = (long)(until % 1000000000ULL);
				if (pthread_cond_timedwait(&tenant.work, &tenant.mu, &ts) ==
				    ETIMEDOUT && !tenant.head) {
					tenant.dispatcher_idle = 0;
					pthread_mutex_unlock(&tenant.mu);
					lease_end(1);
					pthread_mutex_lock(&tenant.mu);
				}
			} else {
				pthread_cond_wait(&tenant.work, &tenant.mu);
			}
		}
		tenant.dispatcher_idle = 0;
		if (!tenant.head)
			break;
		op = tenant.head;
		tenant.head = op->next;
		if (!tenant.head)
			tenant.tail = NULL;
		pthread_mutex_unlock(&tenant.mu);
		dispatch_one(op);
		if (op->kind == OP_GATE)
			free(op->u.gate);
		free(op->buf);
		free(op->buf2);
		free(op);
		pthread_mutex_lock(&tenant.mu);
	}
	pthread_mutex_unlock(&tenant.mu);
	lease_end(1);
	return NULL;
}

void gsp_enqueue(struct gsp_op *op)
{
	op->next = NULL;
	atomic_fetch_add(&gsp_ctr.deferred, 1);
	pthread_mutex_lock(&tenant.mu);
	/*
	 * Back-pressure, as the driver's own queue gives: without it a
	 * program launching in a loop would queue minutes of GPU work that
	 * its next sync then waits for.
	 */
	while (tenant.enq - tenant.issued >= FIFO_MAX && tenant.dispatcher_running) {
		tenant.space_waiters++;
		pthread_cond_wait(&tenant.space, &tenant.mu);
		tenant.space_waiters--;
	}
	if (tenant.tail)
		tenant.tail->next = op;
	else
		tenant.head = op;
	tenant.tail = op;
	tenant.enq++;
	atomic_fetch_add(&tenant.pending, 1);
	if (tenant.dispatcher_idle)
		pthread_cond_signal(&tenant.work);
	pthread_mutex_unlock(&tenant.mu);
}

/* Waits until everything enqueued so far is issued, for at most @max_ns. */
static CUresult drain_for(uint64_t max_ns, int take_sticky)
{
	uint64_t target, until = now_ns() + max_ns;
	CUresult sticky;

	if (!atomic_load(&tenant.pending) &&
	    __atomic_load_n(&tenant.sticky, __ATOMIC_RELAXED) == CUDA_SUCCESS)
		return CUDA_SUCCESS;
	atomic_fetch_add(&gsp_ctr.drains, 1);
	pthread_mutex_lock(&tenant.mu);
	target = tenant.enq;
	while (tenant.issued < target && tenant.dispatcher_running) {
		struct timespec ts = { .tv_sec = (time_t)(until / 1000000000ULL),
				       .tv_nsec = (long)(until % 1000000000ULL) };

		if (target < tenant.drain_at)
			tenant.drain_at = target;
		if (pthread_cond_timedwait(&tenant.cv, &tenant.mu, &ts) == ETIMEDOUT)
			break;
	}
	sticky = tenant.sticky;
	if (take_sticky)
		tenant.sticky = CUDA_SUCCESS;
	pthread_mutex_unlock(&tenant.mu);
	return sticky;
}

CUresult gsp_drain(void)
{
	return drain_for(UINT64_MAX / 2, 1);
}

/* Synchronous gates -------------------------------------------------------- */

void gsp_gate_begin(struct gsp_gate_ticket *t, uint32_t engine, CUcontext ctx,
		    CUstream stream, const void *key)
{
	struct gsp_gate *gt;
	struct gsp_op *op;

	t->gate = NULL;
	t->sticky = gsp_drain();
	t->t0 = now_ns();
	if (gsp_mode() != GSP_MODE_BE || !ctx)
		return;
	gt = calloc(1, sizeof(*gt));
	op = calloc(1, sizeof(*op));
	if (!gt || !op) {
		free(gt);
		free(op);
		return;
	}
	gt->engine = engine;
	gt->stream = stream;
	op->kind = OP_GATE;
	op->engine = engine;
	op->ctx = ctx;
	op->stream = stream;
	op->key = key;
	op->u.gate = gt;
	gsp_enqueue(op);
	pthread_mutex_lock(&tenant.mu);
	while (gt->state == 0)
		pthread_cond_wait(&tenant.cv, &tenant.mu);
	pthread_mutex_unlock(&tenant.mu);
	t->gate = gt;
	if (gt->start)
		drv.ev_record(gt->start, stream);
	t->t0 = now_ns();
}

void gsp_gate_end(struct gsp_gate_ticket *t, CUresult r)
{
	struct gsp_gate *gt = t->gate;

	if (!gt)
		return;
	gt->issued_ok = 0;
	if (gt->end && r == CUDA_SUCCESS)
		gt->issued_ok = drv.ev_record(gt->end, gt->stream) == CUDA_SUCCESS;
	if (!gt->stream)
		gt->host_ns = now_ns() - t->t0;
	pthread_mutex_lock(&tenant.mu);
	gt->state = 2;
	pthread_cond_broadcast(&tenant.cv);
	/* From here on the gate is the dispatcher's; it frees it. */
	pthread_mutex_unlock(&tenant.mu);
}

/* LC fast path and reporter ----------------------------------------------- */

/* Claims a sample pair in @ctx; 1 + its index, or 0 (none free). */
static int sample_claim(CUcontext ctx)
{
	unsigned int i = atomic_fetch_add_explicit(&tenant.sample_next, 1,
						   memory_order_relaxed) %
			 LC_SAMPLES;
	struct lc_sample *sp = &tenant.samples[i];
	int expect = 0;

	if (!atomic_compare_exchange_strong(&sp->busy, &expect, 1))
		return 0;
	if (sp->ctx != ctx) {
		/* First use, or another context: (re)create, rarely. */
		if (sp->ctx) {
			drv.ev_destroy(sp->s);
			drv.ev_destroy(sp->e);
			sp->ctx = NULL;
		}
		if (drv.ev_create(&sp->s, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
			goto fail;
		if (drv.ev_create(&sp->e, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
			drv.ev_destroy(sp->s);
			goto fail;
		}
		sp->ctx = ctx;
	}
	return (int)i + 1;
fail:
	atomic_store(&sp->busy, 0);
	return 0;
}

static void sample_free(int sample)
{
	if (sample)
		atomic_store_explicit(&tenant.samples[sample - 1].busy, 0,
				      memory_order_release);
}

/*
 * An arrival for the forecast of protect predictive (predict.h): in
 * flight from none, at least lc_hold_ns after the last issue @prev, so
 * that the host's gaps inside one request do not count. The reporter
 * reads the count, then the time.
 */
static void lc_arrival(const struct gsp_board *b, uint64_t now,
		       uint64_t prev)
{
	uint64_t hold = gsp_board_load(&b->lc_hold_ns);

	if (prev && now > prev && now - prev < hold)
		return;
	atomic_store_explicit(&tenant.lc_arrival_ns, now, memory_order_relaxed);
	atomic_fetch_add_explicit(&tenant.lc_arrivals, 1, memory_order_release);
}

/*
 * The per-op cost on the app thread: a key lookup, a clock read, a few
 * relaxed atomics and one ring slot; every LC_SAMPLE-th op of a key also
 * records two pooled events around the call.
 */
void gsp_lc_begin(struct gsp_lc_ticket *t, const void *key, CUstream evstream)
{
	struct gsp_key *k = key ? gsp_key(key) : NULL;
	struct lc_view *v = atomic_load_explicit(&tenant.lcv, memory_order_acquire);
	uint64_t now = now_ns();

	t->sample = 0;
	t->view = v;
	if (v && v->rw) {
		struct gsp_board_lc *slot = &v->rw->lc[v->slot];
		uint64_t prev = __atomic_load_n(&slot->stamp_ns,
						__ATOMIC_RELAXED);

		/* 0 -> 1 and back: the partition request follows. */
		if (!__atomic_fetch_add(&slot->inflight, 1, __ATOMIC_RELAXED)) {
			lc_arrival(v->rw, now, prev);
			gsp_board_part_update(v->rw, tenant.device);
		}
		__atomic_store_n(&slot->stamp_ns, now, __ATOMIC_RELAXED);
	}
	atomic_store_explicit(&tenant.lc_last_ns, now, memory_order_relaxed);
	if (k && atomic_fetch_add_explicit(&k->ticks, 1, memory_order_relaxed) %
			 LC_SAMPLE == 0) {
		CUcontext ctx = NULL;

		if (drv.ctx_get(&ctx) == CUDA_SUCCESS && ctx)
			t->sample = sample_claim(ctx);
		if (t->sample &&
		    drv.ev_record(tenant.samples[t->sample - 1].s, evstream) !=
			    CUDA_SUCCESS) {
			sample_free(t->sample);
			t->sample = 0;
		}
	}
}

static uint64_t reserve_poll(void);

/*
 * Takes back @n issues counted in slot @view, if it is still this
 * tenant's: those counted before a rejoin went with the old slot, which
 * the arbiter cleared. The @reporter thread, which owns the reservation,
 * lets the arrival drop it before the request is recomputed.
 */
static void lc_uncount(const void *view, uint64_t n, int reporter)
{
	const struct lc_view *v = view;

	if (!v || !v->rw || v != atomic_load_explicit(&tenant.lcv,
						      memory_order_acquire))
		return;
	if (__atomic_fetch_sub(&v->rw->lc[v->slot].inflight, n,
			       __ATOMIC_RELAXED) == n) {
		if (reporter)
			reserve_poll();
		gsp_board_part_update(v->rw, tenant.device);
	}
}

void gsp_lc_end(struct gsp_lc_ticket *t, const void *key, uint32_t engine,
		CUstream evstream)
{
	CUcontext ctx = NULL;
	uint64_t pos, seq;
	struct lc_rec *r;

	atomic_fetch_add_explicit(&gsp_ctr.lc_ops, 1, memory_order_relaxed);
	if (t->sample &&
	    drv.ev_record(tenant.samples[t->sample - 1].e, evstream) != CUDA_SUCCESS) {
		sample_free(t->sample);
		t->sample = 0;
	}
	drv.ctx_get(&ctx);
	/* Bounded MPSC ring (sequence numbers per cell). */
	pos = atomic_load_explicit(&tenant.ring_head, memory_order_relaxed);
	for (;;) {
		r = &tenant.ring[pos % LC_RING];
		seq = atomic_load_explicit(&r->seq, memory_order_acquire);
		if (seq == pos) {
			if (atomic_compare_exchange_weak(&tenant.ring_head, &pos,
							 pos + 1))
				break;
		} else if (seq < pos) {
			/* Full: charge it later from the EWMA, unreported. */
			atomic_fetch_add(&tenant.lc_overflow,
					 key ? cost_get(key) : 0);
			sample_free(t->sample);
			lc_uncount(t->view, 1, 0);
			return;
		} else {
			pos = atomic_load_explicit(&tenant.ring_head,
						   memory_order_relaxed);
		}
	}
	r->ctx = ctx;
	r->stream = evstream;
	r->key = key;
	r->engine = engine;
	r->sample = t->sample;
	r->view = t->view;
	atomic_store_explicit(&r->seq, pos + 1, memory_order_release);
}

/* Reports @gpu_ns of LC work on @engine as one job. */
static void lc_charge(uint32_t engine, uint64_t gpu_ns)
{
	struct gspace_complete c = { .size = sizeof(c) };
	uint64_t handle;
	int err;

	if (atomic_load(&tenant.mode) != GSP_MODE_LC)
		return;
	if (gpu_ns > GSPACE_COST_MAX_NS)
		gpu_ns = GSPACE_COST_MAX_NS;
	if (job_granted(engine, gpu_ns, &handle))
		return;
	c.handle = handle;
	c.gpu_ns = gpu_ns;
	err = tenant.api.complete(tenant.g, &c);
	if (err) {
		rejoin(err == -EALREADY ? GSP_REJOIN_WATCHDOG :
					  GSP_REJOIN_LOST, "COMPLETE", err);
		return;
	}
	atomic_fetch_add(&gsp_ctr.jobs, 1);
}

/* Hands @gpu_ns of LC work on @engine to the charger. */
static void lc_owe(uint32_t engine, uint64_t gpu_ns)
{
	if (!gpu_ns)
		return;
	pthread_mutex_lock(&tenant.mu);
	tenant.lc_owed[engine < GSPACE_ENGINE_COUNT ? engine : 0] += gpu_ns;
	pthread_cond_signal(&tenant.owed);
	pthread_mutex_unlock(&tenant.mu);
}

/* Charges what the reporter measured; the only LC thread that may wait
 * for the arbiter (and rejoin it). Drains what is owed before it stops. */
static void *charger_main(void *arg)
{
	uint64_t owed[GSPACE_ENGINE_COUNT];
	unsigned int e;
	int any;
	(void)arg;

	pthread_mutex_lock(&tenant.mu);
	for (;;) {
		any = 0;
		for (e = 0; e < GSPACE_ENGINE_COUNT; e++) {
			owed[e] = tenant.lc_owed[e];
			tenant.lc_owed[e] = 0;
			any |= owed[e] != 0;
		}
		if (!any) {
			if (tenant.stop && !tenant.reporter_running)
				break;
			pthread_cond_wait(&tenant.owed, &tenant.mu);
			continue;
		}
		pthread_mutex_unlock(&tenant.mu);
		for (e = 0; e < GSPACE_ENGINE_COUNT; e++)
			if (owed[e])
				lc_charge(e, owed[e]);
		pthread_mutex_lock(&tenant.mu);
	}
	pthread_mutex_unlock(&tenant.mu);
	return NULL;
}

#define LC_BATCH 256

/*
 * The reporter's markers (reporter thread only): DISABLE_TIMING events
 * kept for reuse, each with the context it belongs to.
 */
static struct {
	CUcontext ctx[LC_MARKS];
	CUevent ev[LC_MARKS];
	unsigned int n;
} marks;

static CUevent mark_get(CUcontext ctx)
{
	unsigned int i;
	CUevent ev;

	for (i = marks.n; i-- > 0;)
		if (marks.ctx[i] == ctx) {
			ev = marks.ev[i];
			marks.n--;
			marks.ctx[i] = marks.ctx[marks.n];
			marks.ev[i] = marks.ev[marks.n];
			return ev;
		}
	if (drv.ev_create(&ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
		return NULL;
	return ev;
}

static void mark_put(CUcontext ctx, CUevent ev)
{
	if (marks.n == LC_MARKS) {
		drv.ev_destroy(ev);
		return;
	}
	marks.ctx[marks.n] = ctx;
	marks.ev[marks.n++] = ev;
}

/*
 * protect predictive: our slot's reservation follows the forecast of our
 * arrivals (predict.c; reporter thread only). reserver.b is NULL without
 * a slot.
 */
static struct gsp_reserver reserver;

/* Feeds the arrivals, raises or drops the reservation: when to look again. */
static uint64_t reserve_poll(void)
{
	struct lc_view *v = atomic_load_explicit(&tenant.lcv, memory_order_acquire);
	uint64_t n, t;

	if (!v || !v->rw)
		return UINT64_MAX;
	/* a rejoin: the arbiter cleared the old slot, its reserve with it */
	if (reserver.b != v->rw || reserver.slot != v->slot)
		gsp_reserver_init(&reserver, v->rw, v->slot, tenant.device);
	n = atomic_load_explicit(&tenant.lc_arrivals, memory_order_acquire);
	t = atomic_load_explicit(&tenant.lc_arrival_ns, memory_order_relaxed);
	return gsp_reserver_poll(&reserver, now_ns(), n, t);
}

/* Sleeps until @until (CLOCK_MONOTONIC), exactly: no timer slack here. */
static void sleep_until(uint64_t until)
{
	struct timespec ts = { .tv_sec = (time_t)(until / 1000000000ULL),
			       .tv_nsec = (long)(until % 1000000000ULL) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/*
 * The records of one batch on one (context, stream), and their marker;
 * @count of them counted in the board slot @view (a rejoin in the batch
 * makes two groups).
 */
struct lc_group {
	CUcontext ctx;
	CUstream stream;
	const void *view;
	CUevent mark;
	unsigned int count;
};

/*
 * Picks up LC records in batches. Per batch and (context, stream) it
 * records one pooled marker after the records' ops; when the marker has
 * completed, so have they: it charges them (measured for sampled ops,
 * else the EWMA) and lowers the board's inflight by their number. Under
 * protect predictive it also keeps the slot's reservation, waking for
 * the forecast's window as well as for its polls.
 */
static void *reporter_main(void *arg)
{
	static struct lc_rec batch[LC_BATCH];	/* reporter thread only */
	static struct lc_group grp[LC_BATCH];
	(void)arg;

	tight_timers();
	for (;;) {
		uint64_t charge[GSPACE_ENGINE_COUNT] = { 0 };
		uint64_t tail = atomic_load(&tenant.ring_tail), last, wake, now;
		unsigned int n = 0, ng = 0, i, g, e;
		int stop;

		wake = reserve_poll();

		while (n < LC_BATCH) {
			struct lc_rec *r = &tenant.ring[tail % LC_RING];

			if (atomic_load_explicit(&r->seq, memory_order_acquire) !=
			    tail + 1)
				break;
			batch[n++] = *r;
			atomic_store_explicit(&r->seq, tail + LC_RING,
					      memory_order_release);
			tail++;
		}
		atomic_store(&tenant.ring_tail, tail);
		pthread_mutex_lock(&tenant.mu);
		stop = tenant.stop;
		pthread_mutex_unlock(&tenant.mu);
		if (!n) {
			uint64_t over = atomic_exchange(&tenant.lc_overflow, 0);

			lc_owe(GSPACE_ENGINE_COMPUTE, over);
			if (stop)
				break;
			last = atomic_load_explicit(&tenant.lc_last_ns,
						    memory_order_relaxed);
			now = now_ns();
			now += now - last < LC_BUSY_NS ? LC_FAST_NS : LC_SLOW_NS;
			sleep_until(wake < now ? wake : now);
			continue;
		}
		for (i = 0; i < n; i++) {
			for (g = 0; g < ng; g++)
				if (grp[g].ctx == batch[i].ctx &&
				    grp[g].stream == batch[i].stream &&
				    grp[g].view == batch[i].view)
					break;
			if (g == ng)
				grp[ng++] = (struct lc_group){
					.ctx = batch[i].ctx,
					.stream = batch[i].stream,
					.view = batch[i].view,
				};
			grp[g].count++;
		}
		for (g = 0; g < ng; g++) {
			ensure_ctx(grp[g].ctx);
			grp[g].mark = mark_get(grp[g].ctx);
			/*
			 * Our own per-thread stream is not the app's; the
			 * legacy stream waits for the app's (it is blocking).
			 */
			if (grp[g].mark &&
			    drv.ev_record(grp[g].mark,
					grp[g].stream == CU_STREAM_PER_THREAD ?
						CU_STREAM_LEGACY : grp[g].stream) !=
				    CUDA_SUCCESS) {
				mark_put(grp[g].ctx, grp[g].mark);
				grp[g].mark = NULL;
			}
		}
		for (g = 0; g < ng; g++) {
			/* No marker: the ops are charged and counted now. */
			if (grp[g].mark) {
				ev_wait(grp[g].mark);
				mark_put(grp[g].ctx, grp[g].mark);
			}
			lc_uncount(grp[g].view, grp[g].count, 1);
		}
		for (i = 0; i < n; i++) {
			struct lc_rec *r = &batch[i];
			uint64_t ns;

			if (r->sample) {
				struct lc_sample *sp = &tenant.samples[r->sample - 1];

				/* Before the marker on its stream: done. */
				ev_wait(sp->e);
				ns = elapsed_ns(sp->s, sp->e);
				if (r->key)
					gsp_cost_put(r->key, ns);
				sample_free(r->sample);
			} else {
				ns = r->key ? cost_get(r->key) : 0;
			}
			charge[r->engine < GSPACE_ENGINE_COUNT ? r->engine : 0] += ns;
		}
		for (e = 0; e < GSPACE_ENGINE_COUNT; e++)
			lc_owe(e, charge[e]);
	}
	if (reserver.b)
		gsp_reserver_drop(&reserver);
	return NULL;
}

/* Stream capture ----------------------------------------------------------- */

void gsp_capture_note(int delta)
{
	pthread_mutex_lock(&tenant.mu);
	tenant.capturing += delta;
	if (tenant.capturing < 0)
		tenant.capturing = 0;
	pthread_mutex_unlock(&tenant.mu);
}

int gsp_capturing(CUstream s, int ptsz)
{
	static _Atomic(void *) is_capturing;	/* cached real pointer */
	CUresult (*fn)(CUstream, CUstreamCaptureStatus *);
	CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;

	if (!__atomic_load_n(&tenant.capturing, __ATOMIC_RELAXED))
		return 0;
	*(void **)&fn = atomic_load(&is_capturing);
	if (!fn) {
		*(void **)&fn = gsp_real_sym("cuStreamIsCapturing");
		atomic_store(&is_capturing, *(void **)&fn);
	}
	/* Unknown: let it through, capture does not run work anyway. */
	if (!fn)
		return 1;
	if (fn(gsp_event_stream(s, ptsz), &st) != CUDA_SUCCESS)
		return 1;
	return st != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* Set-up, exit and fork ------------------------------------------------------ */

static void write_stats(void)
{
	FILE *f;

	if (!tenant.stats_file || !*tenant.stats_file)
		return;
	f = fopen(tenant.stats_file, "w");
	if (!f) {
		fprintf(stderr, "gsp: cannot write GSP_STATS_FILE %s: %s\n",
			tenant.stats_file, strerror(errno));
		return;
	}
	fprintf(f, "launches %lu\ncopies %lu\njobs %lu\nleases %lu\n"
		"passthroughs %lu\ndeferred %lu\ndrains %lu\nlc_ops %lu\n"
		"sticky_errors %lu\nlease_renewals %lu\nrejoins %lu\n"
		"rejoin_watchdog %lu\nrejoin_hung %lu\nrejoin_lost %lu\n",
		atomic_load(&gsp_ctr.launches), atomic_load(&gsp_ctr.copies),
		atomic_load(&gsp_ctr.jobs), atomic_load(&gsp_ctr.leases),
		atomic_load(&gsp_ctr.passthroughs),
		atomic_load(&gsp_ctr.deferred), atomic_load(&gsp_ctr.drains),
		atomic_load(&gsp_ctr.lc_ops),
		atomic_load(&gsp_ctr.errors_sticky),
		atomic_load(&gsp_ctr.renewals), atomic_load(&gsp_ctr.rejoins),
		atomic_load(&gsp_ctr.rejoin_why[GSP_REJOIN_WATCHDOG]),
		atomic_load(&gsp_ctr.rejoin_why[GSP_REJOIN_HUNG]),
		atomic_load(&gsp_ctr.rejoin_why[GSP_REJOIN_LOST]));
	gsp_sp_stats(f);
	gsp_lcprio_stats(f);
	fclose(f);
}

static void at_exit(void)
{
	int joined_d = 0, joined_r = 0;
	struct timespec ts;

	/* Deferred work is issued before the program's exit goes on. */
	drain_for(EXIT_DRAIN_NS, 0);
	pthread_mutex_lock(&tenant.mu);
	tenant.stop = 1;
	pthread_cond_broadcast(&tenant.cv);
	pthread_cond_broadcast(&tenant.work);
	pthread_mutex_unlock(&tenant.mu);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	/* Bounded: a driver torn down under us must not hang the exit. */
	if (tenant.dispatcher_running)
		joined_d = !pthread_timedjoin_np(tenant.dispatcher, NULL, &ts);
	if (tenant.reporter_running)
		joined_r = !pthread_timedjoin_np(tenant.reporter, NULL, &ts);
	if (tenant.charger_running) {
		/* what the reporter owed last is charged before it goes */
		pthread_mutex_lock(&tenant.mu);
		tenant.reporter_running = tenant.reporter_running && !joined_r;
		pthread_cond_broadcast(&tenant.owed);
		pthread_mutex_unlock(&tenant.mu);
		if (pthread_timedjoin_np(tenant.charger, NULL, &ts))
			fprintf(stderr, "gsp: LC charger did not finish at exit\n");
	}
	if (tenant.dispatcher_running && !joined_d)
		fprintf(stderr, "gsp: dispatcher did not finish at exit\n");
	if (tenant.reporter_running && !joined_r)
		fprintf(stderr, "gsp: LC reporter did not finish at exit\n");
	gsp_sp_stop(!tenant.dispatcher_running || joined_d);
}

static void stats_only_exit(void)
{
	write_stats();
}

/* Our timed waits use CLOCK_MONOTONIC deadlines (now_ns()). */
static void init_conds(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&tenant.cv, &a);
	pthread_cond_init(&tenant.work, &a);
	pthread_cond_init(&tenant.space, &a);
	pthread_cond_init(&tenant.owed, &a);
	pthread_condattr_destroy(&a);
}

/*
 * A forked child has none of our threads; it runs in pass-through and
 * starts with an empty FIFO (the parent issues its own).
 */

static void after_fork_child(void)
{
	pthread_mutex_init(&tenant.mu, NULL);
	init_conds();
	tenant.drain_at = UINT64_MAX;
	tenant.space_waiters = 0;
	tenant.dispatcher_idle = 0;
	tenant.head = tenant.tail = NULL;
	tenant.enq = tenant.issued = 0;
	atomic_store(&tenant.pending, 0);
	tenant.dispatcher_running = tenant.reporter_running = tenant.charger_running = 0;
	memset(tenant.lc_owed, 0, sizeof(tenant.lc_owed));
	tenant.g = NULL;
	tenant.board = NULL;
	atomic_store(&tenant.lcv, NULL);
	atomic_store(&tenant.mode, GSP_MODE_OFF);
	gsp_sp_after_fork();
}

/*
 * Spatial sharing (Documentation/spatial.rst): BE tenants only; auto
 * means on when the board publishes a partition at start. The mode is
 * reported once; "off" only when asked for (GSP_LOG) or when
 * GSP_SPATIAL=1 cannot be honoured.
 */
static void spatial_setup(void)
{
	uint32_t n = 0, k = 0;

	if (tenant.board) {
		n = gsp_board_load(&tenant.board->dev[tenant.device].part_n);
		k = gsp_board_load(&tenant.board->dev[tenant.device].part_k);
	}
	if (tenant.spatial == SPATIAL_OFF) {
		gsp_log(1, "spatial sharing off (GSP_SPATIAL=0)");
		return;
	}
	if (tenant.cls == GSPACE_CLASS_LC) {
		if (tenant.spatial == SPATIAL_ON)
			fprintf(stderr, "gsp: spatial sharing is for BE tenants; this LC tenant's kernels run unchanged (drop GSP_SPATIAL=1)\n");
		return;
	}
	if (!tenant.board) {
		if (tenant.spatial == SPATIAL_ON)
			fprintf(stderr, "gsp: spatial sharing off: the arbiter publishes no board; kernels run unchanged\n");
		return;
	}
	if (tenant.spatial == SPATIAL_AUTO && !(n && k)) {
		gsp_log(1, "spatial sharing off: device %u has no partition (gspctl set partition N,K)",
			tenant.device);
		return;
	}
	tenant.sp.board = tenant.board;
	tenant.sp.device = tenant.device;
	gsp_sp_start(&tenant.sp);
	if (gsp_sp_on())
		fprintf(stderr, "gsp: spatial sharing on: BE kernels give up k=%u block slots on n=%u SMs of device %u while LC work runs\n",
			k, n, tenant.device);
}

static void setup(void)
{
	struct gspace_ctx_set cs = { .size = sizeof(cs) };
	struct gspace_version v = { .size = sizeof(v) };
	int err;

	atomic_store(&tenant.mode, GSP_MODE_OFF);
	init_conds();
	pthread_atfork(NULL, NULL, after_fork_child);
	if (read_config()) {
		atexit(stats_only_exit);
		return;
	}
	atexit(stats_only_exit);
	if (find_driver()) {
		fprintf(stderr, "gsp: the CUDA driver lacks functions the interposer needs; passing every CUDA call through\n");
		return;
	}
	err = load_libgsp();
	if (err) {
		gsp_warn_once(&tenant.warned_arbiter,
			      "libgsp.so.1 not found or incomplete (%s); passing every CUDA call through",
			      strerror(-err));
		return;
	}
	err = tenant.api.open(&tenant.g, NULL);
	if (err) {
		gsp_warn_once(&tenant.warned_arbiter,
			      "no arbiter (%s; start gspaced or load gspace.ko, or set GSP_ARBITER/GSP_SOCKET); passing every CUDA call through",
			      strerror(-err));
		return;
	}
	cs.device = tenant.device;
	cs.class = tenant.cls;
	cs.weight = tenant.weight;
	cs.lc_target_ns = tenant.lc_target_ns;
	err = tenant.api.ctx_set(tenant.g, &cs);
	if (err) {
		gsp_warn_once(&tenant.warned_arbiter,
			      "the arbiter refused class %s weight %u on device %u (%s); passing every CUDA call through",
			      tenant.cls == GSPACE_CLASS_LC ? "lc" : "be", tenant.weight,
			      tenant.device, strerror(-err));
		tenant.api.close(tenant.g);
		tenant.g = NULL;
		return;
	}
	tenant.board = tenant.api.board(tenant.g);
	tenant.progress = !tenant.api.version(tenant.g, &v) &&
		     (v.features & GSPACE_FEAT_LEASE_PROGRESS);
	spatial_setup();
	if (tenant.cls == GSPACE_CLASS_LC)
		lc_view_publish();
	for (err = 0; err < LC_RING; err++)
		atomic_store(&tenant.ring[err].seq, (uint64_t)err);
	if (tenant.cls == GSPACE_CLASS_LC) {
		if (pthread_create(&tenant.charger, NULL, charger_main, NULL)) {
			fprintf(stderr, "gsp: cannot start the LC charger; passing every CUDA call through\n");
			return;
		}
		tenant.charger_running = 1;
		if (pthread_create(&tenant.reporter, NULL, reporter_main, NULL)) {
			fprintf(stderr, "gsp: cannot start the LC reporter; passing every CUDA call through\n");
			return;
		}
		tenant.reporter_running = 1;
		atomic_store(&tenant.mode, GSP_MODE_LC);
	} else {
		if (pthread_create(&tenant.dispatcher, NULL, dispatcher_main, NULL)) {
			fprintf(stderr, "gsp: cannot start the dispatcher; passing every CUDA call through\n");
			return;
		}
		tenant.dispatcher_running = 1;
		atomic_store(&tenant.mode, GSP_MODE_BE);
	}
	atexit(at_exit);
	gsp_log(1, "tenant %s weight %u device %u",
		tenant.cls == GSPACE_CLASS_LC ? "lc" : "be", tenant.weight, tenant.device);
}

enum gsp_mode gsp_mode(void)
{
	enum gsp_mode m;

	pthread_once(&tenant.once, setup);
	m = atomic_load_explicit(&tenant.mode, memory_order_relaxed);
	/* Lost the arbiter with work queued: keep program order. */
	if (m == GSP_MODE_OFF &&
	    atomic_load_explicit(&tenant.pending, memory_order_relaxed))
		drain_for(UINT64_MAX / 2, 0);
	return m;
}
