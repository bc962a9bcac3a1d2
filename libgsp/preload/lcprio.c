// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LC work at the greatest stream priority (Documentation/interposer.rst).
 *
 * Why: under MPS, at equal stream priority the GPU dispatches every
 * pending block of an earlier grid before any block of a later one, so an
 * LC kernel launched behind a large BE grid waits for all of it (H200,
 * driver 580: p50 13.3 ms instead of 110 us). At the greatest priority its
 * blocks go first as BE blocks retire (p50 319 us), and top-up blocks of
 * our persistent BE kernels wait behind it.
 *
 * What, in an LC tenant (GSP_LC_PRIORITY=auto): streams the program
 * creates get their context's greatest priority.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lcprio.h"

/*
 * The process's state: the driver has no handle to hang it on. @on is set
 * once by read_config() before the tenant opens and read-only afterwards;
 * the rest is set once (@once) or atomic.
 */
static struct {
	int on;				/* GSP_LC_PRIORITY: 1 auto, 0 off */
	pthread_once_t once;
	atomic_ulong streams;
	atomic_int said;
	struct {			/* the real driver functions */
		__typeof__(&cuCtxGetStreamPriorityRange) range;
		__typeof__(&cuStreamCreate) create;
		__typeof__(&cuStreamCreateWithPriority) create_prio;
	} R;
} P = {
	.on = 1,
	.once = PTHREAD_ONCE_INIT,
};

int gsp_lcprio_config(void)
{
	const char *v = getenv("GSP_LC_PRIORITY");

	P.on = !(v && !strcmp(v, "0"));
	if (v && strcmp(v, "0") && strcmp(v, "auto")) {
		fprintf(stderr, "gsp: GSP_LC_PRIORITY=%s is not auto or 0; passing every CUDA call through\n",
			v);
		return -1;
	}
	return 0;
}

void gsp_lcprio_stats(FILE *f)
{
	fprintf(f, "lc_priority_streams %lu\n", atomic_load(&P.streams));
}

static void init(void)
{
	*(void **)&P.R.range = gsp_real_sym("cuCtxGetStreamPriorityRange");
	*(void **)&P.R.create = gsp_real(H_cuStreamCreate);
	*(void **)&P.R.create_prio = gsp_real(H_cuStreamCreateWithPriority);
}

/* The current context's greatest priority into *@g; 0, or -1. */
static int greatest(int *g)
{
	int least;

	return P.R.range && P.R.range(&least, g) == CUDA_SUCCESS ? 0 : -1;
}

static void say(int prio)
{
	if (!atomic_exchange(&P.said, 1))
		gsp_log(1, "LC work runs at stream priority %d, the greatest: new streams get it (GSP_LC_PRIORITY=0: off)",
			prio);
}

CUresult gsp_lcprio_create(CUstream *s, unsigned int flags, int prio,
			   int with_prio)
{
	int g;
	CUresult r;

	pthread_once(&P.once, init);
	/* gsp_mode() first: the tenant's set-up reads GSP_LC_PRIORITY. */
	if (gsp_mode() == GSP_MODE_LC && P.on && P.R.create_prio &&
	    !greatest(&g)) {
		/* Numerically lower is higher; the driver clamps beyond g. */
		if (!with_prio || prio > g)
			prio = g;
		r = P.R.create_prio(s, flags, prio);
		if (r == CUDA_SUCCESS) {
			atomic_fetch_add(&P.streams, 1);
			say(g);
		}
		return r;
	}
	if (with_prio)
		return P.R.create_prio ? P.R.create_prio(s, flags, prio)
				       : CUDA_ERROR_NOT_FOUND;
	return P.R.create ? P.R.create(s, flags) : CUDA_ERROR_NOT_FOUND;
}
