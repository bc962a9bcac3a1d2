// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tenant's configuration and its ties to the arbiter and the driver:
 * the environment read once at set-up, libgsp and the real driver
 * functions resolved at run time, the event helpers the dispatcher and
 * reporter share, and rejoining the arbiter as a new tenant when it
 * marked us hung or went away. Apart from the threads' files because
 * both of them use it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "dispatch_internal.h"

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
			"\n",
			name, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int read_config(void)
{
	const char *cls = getenv("GSP_CLASS"), *sp = getenv("GSP_SPATIAL");
	const char *green = getenv("GSP_GREEN");
	uint64_t v;
	int bad = 0;

	tenant.cls = GSPACE_CLASS_BE;
	if (cls && !strcmp(cls, "lc"))
		tenant.cls = GSPACE_CLASS_LC;
	else if (cls && strcmp(cls, "be")) {
		fprintf(stderr, "gsp: GSP_CLASS=%s is not be or lc\n",
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
	v = QUANTUM_MIN_NS / 1000;
	tenant.quantum_auto = 1;
	if (getenv("GSP_QUANTUM_US") && strcmp(getenv("GSP_QUANTUM_US"), "auto")) {
		bad |= env_u64("GSP_QUANTUM_US", 10, 10000000, &v) < 0;
		tenant.quantum_auto = 0;
	}
	tenant.quantum_ns = v * 1000;
	v = 2;
	bad |= env_u64("GSP_BE_DEPTH", 1, MAX_DEPTH, &v) < 0;
	tenant.depth = (unsigned int)v;
	v = 0;
	bad |= env_u64("GSP_OVERLAP", 0, 1, &v) < 0;
	tenant.overlap = (int)v;
	v = 1;
	bad |= env_u64("GSP_LEASE_AHEAD", 0, 1, &v) < 0;
	tenant.ahead = (int)v;
	v = 1;
	bad |= env_u64("GSP_RUN_ON", 0, 1, &v) < 0;
	tenant.run_on = (int)v;
	v = 250;
	bad |= env_u64("GSP_AHEAD_US", 0, 10000000, &v) < 0;
	tenant.ahead_lead_ns = v * 1000;
	v = 1;
	bad |= env_u64("GSP_TASK_HEADS", 0, 1, &v) < 0;
	tenant.task_heads = (int)v;
	tenant.spatial = SPATIAL_AUTO;
	if (sp && !strcmp(sp, "0"))
		tenant.spatial = SPATIAL_OFF;
	else if (sp && !strcmp(sp, "1"))
		tenant.spatial = SPATIAL_ON;
	else if (sp && strcmp(sp, "auto")) {
		fprintf(stderr, "gsp: GSP_SPATIAL=%s is not auto, 0 or 1\n",
			sp);
		bad = 1;
	}
	tenant.sp.green = !(green && !strcmp(green, "0"));
	if (green && strcmp(green, "0") && strcmp(green, "auto")) {
		fprintf(stderr, "gsp: GSP_GREEN=%s is not auto or 0\n",
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
	bad |= gsp_lcsearch_config() < 0;
	tenant.sp.one_wave = (int)v;
	v = 0;
	bad |= env_u64("GSP_KEEP", 0, 1, &v) < 0;
	tenant.sp.keep = (int)v;
	v = 1;
	bad |= env_u64("GSP_FILL", 0, 1, &v) < 0;
	tenant.sp.fill = (int)v;
	v = 0;
	bad |= env_u64("GSP_FAIL_OPEN", 0, 1, &v) < 0;
	tenant.fail_open = (int)v;
	v = REJOIN_WAIT_MS;
	bad |= env_u64("GSP_REJOIN_WAIT_MS", 0, 86400000, &v) < 0;
	tenant.rejoin_wait_ns = v * 1000000;
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
		fprintf(stderr, "gsp: GSP_LC_TARGET_US is for GSP_CLASS=lc only\n");
		bad = 1;
	}
	return bad ? -1 : v ? 1 : 0;
}

int load_libgsp(void)
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

/* The real driver functions (real.h): looked up in setup(). */
int find_driver(void)
{
	gsp_cudrv_load();
	return gsp_cudrv_has(NEED_DISP) ? 0 : -ENOSYS;
}

uint64_t elapsed_ns(CUevent a, CUevent b)
{
	float ms = 0;

	if (cudrv.ev_elapsed(&ms, a, b) != CUDA_SUCCESS || ms < 0)
		return 0;
	return (uint64_t)((double)ms * 1e6);
}

/*
 * Waits for @ev by polling; the app's own events are its business. A few
 * polls yield the CPU only, for short waits; then it sleeps POLL_NS (our
 * threads set a 1 ns timer slack, else each sleep lasts 50 us more).
 */
void ev_wait_then(CUevent ev, void (*each)(void))
{
	unsigned int n = 0;

	while (cudrv.ev_query(ev) == CUDA_ERROR_NOT_READY) {
		if (n++ < SPIN_POLLS)
			sched_yield();
		else
			sleep_ns(POLL_NS);
		if (each)
			each();
	}
}

void ev_wait(CUevent ev)
{
	ev_wait_then(ev, NULL);
}

/* Our threads' short sleeps must not be stretched by the timer slack. */
void tight_timers(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

void ensure_ctx(CUcontext ctx)
{
	CUcontext cur = NULL;

	if (cudrv.ctx_get(&cur) != CUDA_SUCCESS || cur != ctx)
		cudrv.ctx_set(ctx);
}

int lc_active(void)
{
	return tenant.board && gsp_board_lc_active(tenant.board, tenant.device, now_ns());
}

/* Kernels that cannot yield keep off the LC's SMs (a green context). */
int lc_confine(void)
{
	return tenant.board && gsp_board_lc_confine(tenant.board, tenant.device, now_ns());
}

/* Rejoining the arbiter -------------------------------------------------- */

/* An LC tenant's slot, as the arbiter has just given it (see lc_view). */
void lc_view_publish(void)
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
 * dispatcher, or the LC charger). 0 once rejoined; -1 if the tenant is
 * not scheduled any more (unschedulable(): refused, or passing through
 * under GSP_FAIL_OPEN=1): the arbiter refusing us, rejoins that never
 * lead to a grant, or GSP_FAIL_OPEN=1; or, passing through, the process
 * exiting while the arbiter is away.
 */
int rejoin(enum gsp_rejoin_why why, const char *what, int err)
{
	uint64_t t0 = now_ns(), backoff = REJOIN_MIN_NS;
	const struct gsp_board *b;
	int ret;

	if (tenant.fail_open) {
		unschedulable(0, "%s failed (%s)", what, strerror(-err));
		return -1;
	}
	if (++tenant.rejoin_streak > REJOIN_STREAK) {
		unschedulable(0, "%s failed (%s) after %u rejoins in a row",
			      what, strerror(-err), REJOIN_STREAK);
		return -1;
	}
	rejoin_say(why, what, err);
	while ((ret = tenant.api.reopen(tenant.g)) < 0) {
		if (!rejoin_transient(ret)) {
			unschedulable(0, "rejoining the arbiter failed (%s)",
				      strerror(-ret));
			return -1;
		}
		if (why != GSP_REJOIN_LOST) {
			/* Marked, and then it went away: a loss after all. */
			why = GSP_REJOIN_LOST;
			rejoin_say(why, "rejoining", ret);
		}
		/*
		 * Bounded: a program whose arbiter never comes back must not
		 * wait at its next sync point for ever.
		 */
		if (tenant.rejoin_wait_ns &&
		    now_ns() - t0 >= tenant.rejoin_wait_ns) {
			unschedulable(0, "the arbiter has not come back in %.1f s (GSP_REJOIN_WAIT_MS) (%s)",
				      (double)(now_ns() - t0) / 1e9,
				      strerror(-ret));
			return -1;
		}
		if (tenant.rejoin_wait_ns &&
		    backoff > t0 + tenant.rejoin_wait_ns - now_ns())
			backoff = t0 + tenant.rejoin_wait_ns - now_ns();
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
