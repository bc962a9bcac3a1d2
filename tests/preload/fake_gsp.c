// SPDX-License-Identifier: GPL-2.0
/*
 * A fake libgsp.so.1 for the interposer's tests: grants every lease at
 * once and logs each SUBMIT, COMPLETE (renewals apart) and reopen, with a
 * board whose LC slot the tenant owns when it set the LC class.
 * fake_gsp_fail() makes every later request fail as if the daemon had
 * died, reopen included, until fake_gsp_recover(). fake_gsp_hang() marks
 * the tenant hung (SUBMIT: EBUSY) and fake_gsp_expire() also ends the
 * next lease COMPLETEd as the watchdog would (EALREADY), both until a
 * reopen. fake_gsp_hold(1) withholds every grant (WAIT GRANTED gives
 * ETIME), as a BE lease on the engine would, until fake_gsp_hold(0).
 * FAKE_GSP_PART=N,K publishes a partition on device 0 at open,
 * FAKE_GSP_PROTECT=MODE its protection mode (reactive, reserved or
 * predictive) and FAKE_GSP_LEAD_US the board's predict_lead_ns;
 * FAKE_GSP_MOVED=1 makes a reopen say the board moved to a new page, and
 * FAKE_GSP_REFUSE=1 makes it refuse the tenant (EPERM). A SUBMIT's
 * record has its flags and task costs. No arbiter is involved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsp.h>
#include <gsp_board.h>

#include "fake_gsp.h"

#define EXPORT __attribute__((visibility("default")))

/* One fake arbiter per process. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct fake_gsp_rec log_[65536];
static unsigned int nlog;
static uint64_t next_handle = 1;
static int failing, hung, expire, holding;
static uint32_t cls;
/* Page-aligned like a real board mapping. */
static struct gsp_board board __attribute__((aligned(GSP_BOARD_SIZE))) = {
	.magic = GSP_BOARD_MAGIC, .version = GSP_BOARD_VERSION,
	.num_devices = 1, .lc_hold_ns = 0, .lc_max_ns = 1000000000ULL,
	.predict_lead_ns = 500000,
};

static struct fake_gsp_rec *add(int op, uint32_t engine, uint64_t handle,
				uint64_t ns)
{
	if (nlog >= sizeof(log_) / sizeof(*log_))
		return NULL;
	log_[nlog] = (struct fake_gsp_rec){ op, engine, handle, ns, 0, 0, 0 };
	return &log_[nlog++];
}

EXPORT unsigned int fake_gsp_len(void) { return nlog; }
EXPORT struct fake_gsp_rec fake_gsp_get(unsigned int i) { return log_[i]; }
EXPORT void fake_gsp_fail(void) { __atomic_store_n(&failing, 1, __ATOMIC_SEQ_CST); }
EXPORT void fake_gsp_recover(void) { __atomic_store_n(&failing, 0, __ATOMIC_SEQ_CST); }
EXPORT void fake_gsp_hang(void) { __atomic_store_n(&hung, 1, __ATOMIC_SEQ_CST); }
EXPORT void fake_gsp_expire(void) { __atomic_store_n(&expire, 1, __ATOMIC_SEQ_CST); }
EXPORT void fake_gsp_hold(int on) { __atomic_store_n(&holding, on, __ATOMIC_SEQ_CST); }
EXPORT struct gsp_board *fake_gsp_board(void) { return &board; }

static int fail(void)
{
	return __atomic_load_n(&failing, __ATOMIC_SEQ_CST) ? -ECONNRESET : 0;
}

EXPORT int gsp_open(struct gsp **out, const struct gsp_open_opts *o)
{
	const char *part = getenv("FAKE_GSP_PART");
	const char *mode = getenv("FAKE_GSP_PROTECT");
	const char *lead = getenv("FAKE_GSP_LEAD_US");
	unsigned int n, k;
	uint32_t m;

	(void)o;
	if (part && sscanf(part, "%u,%u", &n, &k) == 2) {
		board.dev[0].part_n = n;
		board.dev[0].part_k = k;
	}
	for (m = 0; mode && m < GSP_PROTECT_COUNT; m++)
		if (!strcmp(mode, gsp_protect_name(m)))
			board.dev[0].protect = m;
	if (lead)
		board.predict_lead_ns = strtoull(lead, NULL, 10) * 1000;
	*out = (struct gsp *)&board;
	return 0;
}

EXPORT void gsp_close(struct gsp *g) { (void)g; }

EXPORT int gsp_reopen(struct gsp *g)
{
	const char *moved = getenv("FAKE_GSP_MOVED");
	const char *refuse = getenv("FAKE_GSP_REFUSE");

	(void)g;
	if (fail())
		return -ECONNREFUSED;
	if (refuse && !strcmp(refuse, "1"))
		return -EPERM;
	pthread_mutex_lock(&mu);
	hung = 0;
	expire = 0;
	add(FAKE_REOPEN, 0, 0, 0);
	pthread_mutex_unlock(&mu);
	if (cls == GSPACE_CLASS_LC) {
		/* A new slot; the old one is cleared, as an arbiter does. */
		board.lc[3] = (struct gsp_board_lc){ 0 };
		board.lc[4].owner = 7;
	}
	return moved && !strcmp(moved, "1");
}

EXPORT int gsp_version(struct gsp *g, struct gspace_version *v)
{
	(void)g;
	v->abi_major = GSPACE_ABI_MAJOR;
	v->abi_minor = GSPACE_ABI_MINOR;
	v->features = GSPACE_FEAT_LEASE_ENGINE | GSPACE_FEAT_BOARD |
		      GSPACE_FEAT_LEASE_PROGRESS | GSPACE_FEAT_PREEMPT;
	v->num_devices = 1;
	v->lc_allowed = 1;
	return fail();
}

EXPORT int gsp_ctx_set(struct gsp *g, struct gspace_ctx_set *a)
{
	(void)g;
	cls = a->class;
	if (cls == GSPACE_CLASS_LC) {
		board.lc[3].owner = 7;
		board.lc[3].device = a->device;
	}
	return 0;
}

EXPORT int gsp_submit(struct gsp *g, struct gspace_submit *a)
{
	struct fake_gsp_rec *r;

	(void)g;
	if (fail())
		return fail();
	if (__atomic_load_n(&hung, __ATOMIC_SEQ_CST))
		return -EBUSY;
	pthread_mutex_lock(&mu);
	a->handle = next_handle++;
	r = add(FAKE_SUBMIT, a->engine, a->handle, a->cost_ns);
	if (r) {
		r->flags = a->flags;
		r->task_compute_ns = a->task_compute_ns;
		r->task_d2h_ns = a->task_d2h_ns;
	}
	pthread_mutex_unlock(&mu);
	return 0;
}

EXPORT int gsp_wait(struct gsp *g, struct gspace_wait *a)
{
	(void)g;
	/* A BE lease holding the engine: no grant before the deadline. */
	if ((a->flags & GSPACE_WAIT_GRANTED) &&
	    __atomic_load_n(&holding, __ATOMIC_SEQ_CST)) {
		usleep(1000);
		return -ETIME;
	}
	a->status = 0;
	return fail();
}

EXPORT int gsp_complete(struct gsp *g, struct gspace_complete *a)
{
	(void)g;
	if (fail())
		return fail();
	pthread_mutex_lock(&mu);
	if (!(a->flags & GSPACE_COMPLETE_PROGRESS) && expire) {
		/* The watchdog got there first, and marked the tenant. */
		expire = 0;
		hung = 1;
		pthread_mutex_unlock(&mu);
		return -EALREADY;
	}
	add(a->flags & GSPACE_COMPLETE_PROGRESS ? FAKE_PROGRESS :
						  FAKE_COMPLETE,
	    0, a->handle, a->gpu_ns);
	pthread_mutex_unlock(&mu);
	return 0;
}

EXPORT const struct gsp_board *gsp_board(struct gsp *g)
{
	(void)g;
	return &board;
}

EXPORT struct gsp_board *gsp_board_rw(struct gsp *g)
{
	(void)g;
	return cls == GSPACE_CLASS_LC ? &board : NULL;
}

EXPORT int gsp_board_lc_slot(struct gsp *g)
{
	(void)g;
	if (cls != GSPACE_CLASS_LC)
		return -ENOENT;
	return board.lc[4].owner ? 4 : 3;
}
