// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Spatial sharing, BE side (Documentation/spatial.rst): the state its
 * parts share, the fallback counters, and set-up, stats and exit.
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
 * (libgsp/include/gsp_persist.h), its ctl from a per-context pool. A watcher thread polls
 * the board's partition request and, when it shrinks, launches top-ups
 * for the jobs still running, so the BE takes back the slots it gave up.
 *
 * Green contexts: a launch that runs unchanged while LC work is active
 * goes, if it can, to the stream of a green context of the SMs the LC's
 * request leaves (N - n, rounded down to the driver's granularity), tied
 * to its own stream by an event each way; one green context, stream and
 * event pair per (context, SM count), made at first use and kept.
 *
 * The parts, one file each: spatial_image.c (images and handles),
 * spatial_ctl.c (contexts and control blocks), spatial_jit.c
 * (transformation and JIT), spatial_green.c (green contexts),
 * spatial_launch.c (launch, top-ups and the watcher), spatial_preempt.c
 * (the override word of the preemptive time plane). What they share,
 * and the locking rules, are in spatial_internal.h.
 */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "spatial_internal.h"

struct sp_state spatial = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
};

/* The fallback control word, or NULL: set once, by the dispatcher. */
uint64_t *local_word(void)
{
	return __atomic_load_n(&spatial.local, __ATOMIC_ACQUIRE);
}

int gsp_sp_on(void)
{
	return atomic_load_explicit(&spatial.on, memory_order_relaxed);
}

/* Counts a launch that runs unchanged, by @reason (a short token). */
void count_fallback(const char *reason)
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

void fallback(struct sp_kern *kn, const char *reason, const char *why)
{
	count_fallback(reason);
	gsp_warn_once(&kn->reported, "spatial: kernel %s runs unchanged: %s",
		      kn->name, why);
}

/* Set-up, stats, exit ---------------------------------------------------------- */

void gsp_sp_start(const struct gsp_spatial_cfg *cfg)
{
	spatial.cfg = *cfg;
	gsp_cudrv_load();
	/* Green contexts came with 12.4; the version guards their semantics. */
	if (!cudrv.drv_version || cudrv.drv_version(&spatial.drv_version))
		spatial.drv_version = 0;
	spatial.green_api = spatial.drv_version >= 12040 &&
			    gsp_cudrv_has(NEED_GREEN);
	if (!gsp_cudrv_has(NEED_SP)) {
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
	fprintf(f, "spatial_launches %lu\nspatial_waited %lu\nspatial_topups %lu\nspatial_orphans %lu\nspatial_lost %lu\nspatial_one_wave %lu\nspatial_regcap %lu\n",
		atomic_load(&spatial.launches), atomic_load(&spatial.waited),
		atomic_load(&spatial.topups), atomic_load(&spatial.orphans),
		atomic_load(&spatial.lost), atomic_load(&spatial.one_wave),
		atomic_load(&spatial.regcaps));
	pthread_mutex_lock(&spatial.mu);
	for (i = 0; i < spatial.nreason; i++)
		fprintf(f, "spatial_fallback_%s %lu\n", spatial.reason[i].name,
			spatial.reason[i].n);
	pthread_mutex_unlock(&spatial.mu);
	for (i = 1; i < GW_N; i++)
		gated += atomic_load(&spatial.green_gated[i]);
	fprintf(f, "spatial_green_launches %lu\nspatial_green_copies %lu\nspatial_green_unavailable %lu\n",
		atomic_load(&spatial.green_launches),
		atomic_load(&spatial.green_copies), gated);
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
