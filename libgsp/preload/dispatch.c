// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The process's tenant: configuration from the environment, the arbiter
 * (libgsp, loaded at first use), the BE FIFO and its dispatcher thread
 * with leases and their renewal, synchronous gates, the LC reporter
 * thread, rejoining the arbiter as a new tenant when it marked us hung or
 * went away, and the counters written at exit. See
 * Documentation/interposer.rst.
 *
 * This file holds the tenant state, logging, the per-key cost estimates,
 * stream capture, and set-up, exit and fork. The parts, one file each:
 * dispatch_tenant.c (configuration, the arbiter's and driver's functions,
 * rejoining), dispatch_loop.c (the BE FIFO, the dispatcher and gates),
 * dispatch_lease.c (the BE leases), dispatch_task.c (CuMAS task shapes),
 * lc_report.c (the LC fast path, reporter and charger). What they share
 * is in dispatch_internal.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dispatch_internal.h"

struct gsp_stats_ctr gsp_ctr;

struct gsp_tenant tenant = {
	.once = PTHREAD_ONCE_INIT,
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.space = PTHREAD_COND_INITIALIZER,
	.owed = PTHREAD_COND_INITIALIZER,
	.drain_at = UINT64_MAX,
};

static struct gsp_key keys[KEYS];	/* see gsp_key() */

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void sleep_ns(uint64_t ns)
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

uint64_t cost_get(const void *key)
{
	struct gsp_key *k = gsp_key(key);

	return k ? atomic_load_explicit(&k->ewma_ns, memory_order_relaxed) : 0;
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
		"rejoin_watchdog %lu\nrejoin_hung %lu\nrejoin_lost %lu\n"
		"lease_preemptions %lu\nlease_preempt_unseen %lu\nrefused %lu\n"
		"lc_waits %lu\nlc_waits_sync %lu\nlc_wait_us %lu\n"
		"lease_ahead %lu\ntask_heads %lu\nlease_run_on %lu\n",
		atomic_load(&gsp_ctr.launches), atomic_load(&gsp_ctr.copies),
		atomic_load(&gsp_ctr.jobs), atomic_load(&gsp_ctr.leases),
		atomic_load(&gsp_ctr.passthroughs),
		atomic_load(&gsp_ctr.deferred), atomic_load(&gsp_ctr.drains),
		atomic_load(&gsp_ctr.lc_ops),
		atomic_load(&gsp_ctr.errors_sticky),
		atomic_load(&gsp_ctr.renewals), atomic_load(&gsp_ctr.rejoins),
		atomic_load(&gsp_ctr.rejoin_why[GSP_REJOIN_WATCHDOG]),
		atomic_load(&gsp_ctr.rejoin_why[GSP_REJOIN_HUNG]),
		atomic_load(&gsp_ctr.rejoin_why[GSP_REJOIN_LOST]),
		atomic_load(&gsp_ctr.preemptions),
		atomic_load(&gsp_ctr.preempt_unseen),
		atomic_load(&gsp_ctr.refused), atomic_load(&gsp_ctr.lc_waits),
		atomic_load(&gsp_ctr.lc_waits_sync),
		atomic_load(&gsp_ctr.lc_wait_us),
		atomic_load(&gsp_ctr.lease_ahead),
		atomic_load(&gsp_ctr.task_heads),
		atomic_load(&gsp_ctr.run_on));
	gsp_sp_stats(f);
	gsp_lcprio_stats(f);
	gsp_lcsearch_stats(f);
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

/*
 * The child has no tenant and none of the threads: it passes through if
 * the parent did, and is refused otherwise (GSP_FAIL_OPEN=1 aside).
 */
static void after_fork_child(void)
{
	enum gsp_mode parent = atomic_load(&tenant.mode);

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
	atomic_store(&tenant.mode, parent == GSP_MODE_OFF || tenant.fail_open ?
				   GSP_MODE_OFF : GSP_MODE_REFUSED);
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
	uint32_t n = 0, k = 0, search = 0;

	if (tenant.board) {
		n = gsp_board_load(&tenant.board->dev[tenant.device].part_n);
		k = gsp_board_load(&tenant.board->dev[tenant.device].part_k);
		search = gsp_board_load(&tenant.board->dev[tenant.device].search);
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
	if (tenant.spatial == SPATIAL_AUTO && !(n && k) && !search) {
		gsp_log(1, "spatial sharing off: device %u has no partition (gspctl set partition N,K or auto)",
			tenant.device);
		return;
	}
	tenant.sp.board = tenant.board;
	tenant.sp.device = tenant.device;
	gsp_sp_start(&tenant.sp);
	if (gsp_sp_on() && search)
		fprintf(stderr, "gsp: spatial sharing on: BE kernels give up the block slots the LC tenants' searches ask for on device %u while LC work runs\n",
			tenant.device);
	else if (gsp_sp_on())
		fprintf(stderr, "gsp: spatial sharing on: BE kernels give up k=%u block slots on n=%u SMs of device %u while LC work runs\n",
			k, n, tenant.device);
}

CUresult gsp_refused(void)
{
	atomic_fetch_add_explicit(&gsp_ctr.refused, 1, memory_order_relaxed);
	return CUDA_ERROR_NOT_PERMITTED;
}

/*
 * The tenant cannot be scheduled (@fmt says why): at set-up, or once the
 * arbiter is lost where rejoining cannot help. Its GPU work running
 * unscheduled would take the GPU from every scheduled tenant without a
 * word, so from now on the program's launches, copies and memsets fail
 * (what is queued fails at the next sync point), unless it asked to run
 * unscheduled (GSP_FAIL_OPEN=1). Bad settings refuse either way: they
 * asked for something that cannot be honoured.
 */
void unschedulable(int bad_settings, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (tenant.fail_open && !bad_settings) {
		gsp_warn_once(&tenant.warned_arbiter,
			      "%s; GSP_FAIL_OPEN=1: passing every CUDA call through from now on",
			      why);
		atomic_store(&tenant.mode, GSP_MODE_OFF);
		return;
	}
	gsp_warn_once(&tenant.warned_arbiter,
		      "%s; refusing the program's GPU work from now on: its launches, copies and memsets fail with CUDA_ERROR_NOT_PERMITTED%s",
		      why, bad_settings ? "" :
		      " (GSP_FAIL_OPEN=1, gsp-run --fail-open, runs them unscheduled instead)");
	atomic_store(&tenant.mode, GSP_MODE_REFUSED);
}

static void setup(void)
{
	struct gspace_ctx_set cs = { .size = sizeof(cs) };
	struct gspace_version v = { .size = sizeof(v) };
	int err;

	atomic_store(&tenant.mode, GSP_MODE_OFF);
	init_conds();
	pthread_atfork(NULL, NULL, after_fork_child);
	atexit(stats_only_exit);
	err = read_config();
	if (err) {
		if (err > 0)	/* GSP_DISABLE=1: asked for */
			return;
		unschedulable(1, "the settings above are not valid (fix them; see gsp-run --help)");
		return;
	}
	if (find_driver()) {
		unschedulable(0, "the CUDA driver lacks functions the interposer needs");
		return;
	}
	err = load_libgsp();
	if (err) {
		unschedulable(0, "libgsp.so.1 not found or incomplete (%s)",
			      strerror(-err));
		return;
	}
	err = tenant.api.open(&tenant.g, NULL);
	if (err) {
		unschedulable(0, "no arbiter (%s; start gspaced or load gspace.ko, or set GSP_ARBITER/GSP_SOCKET)",
			      strerror(-err));
		return;
	}
	cs.device = tenant.device;
	cs.class = tenant.cls;
	cs.weight = tenant.weight;
	cs.lc_target_ns = tenant.lc_target_ns;
	err = tenant.api.ctx_set(tenant.g, &cs);
	if (err) {
		tenant.api.close(tenant.g);
		tenant.g = NULL;
		unschedulable(0, "the arbiter refused class %s weight %u on device %u (%s)",
			      tenant.cls == GSPACE_CLASS_LC ? "lc" : "be",
			      tenant.weight, tenant.device, strerror(-err));
		return;
	}
	tenant.board = tenant.api.board(tenant.g);
	tenant.progress = !tenant.api.version(tenant.g, &v) &&
		     (v.features & GSPACE_FEAT_LEASE_PROGRESS);
	tenant.waiting_seen = tenant.progress &&
			      (v.features & GSPACE_FEAT_PREEMPT);
	spatial_setup();
	if (tenant.cls == GSPACE_CLASS_LC)
		lc_view_publish();
	for (err = 0; err < LC_RING; err++)
		atomic_store(&tenant.ring[err].seq, (uint64_t)err);
	if (tenant.cls == GSPACE_CLASS_LC) {
		if (pthread_create(&tenant.charger, NULL, charger_main, NULL)) {
			unschedulable(0, "cannot start the LC charger");
			return;
		}
		tenant.charger_running = 1;
		if (pthread_create(&tenant.reporter, NULL, reporter_main, NULL)) {
			unschedulable(0, "cannot start the LC reporter");
			return;
		}
		tenant.reporter_running = 1;
		atomic_store(&tenant.mode, GSP_MODE_LC);
	} else {
		if (pthread_create(&tenant.dispatcher, NULL, dispatcher_main, NULL)) {
			unschedulable(0, "cannot start the dispatcher");
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
