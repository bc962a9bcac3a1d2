// SPDX-License-Identifier: GPL-2.0
/*
 * The board's rules in gsp_board.h, on a board in memory: the partition
 * request (gsp_board_part_update()) under each protection mode, what a
 * BE tenant counts as LC activity (gsp_board_lc_active()), when it
 * confines kernels that cannot yield (gsp_board_lc_confine()), and the
 * layout of dev[].waiting (gsp_board_waiting()). The
 * module has its own copy of the request rule (kmod/gsp_board.c); the
 * selftests run the same cases against it.
 */
#include <string.h>

#include "gsp_board.h"
#include "tap.h"
#include "gsp_persist.h"

/*
 * The transformed kernels read the board's request word as their control
 * word: one layout, and the partition limits are their block's sizes.
 */
_Static_assert(GSP_PERSIST_CTRL(0x1234, 0x56, 0x89abcdefu) ==
	       GSPACE_BOARD_REQ(0x1234, 0x56, 0x89abcdefu) &&
	       GSP_PERSIST_CTRL_N(GSPACE_BOARD_REQ(7, 3, 9)) == 7 &&
	       GSP_PERSIST_CTRL_K(GSPACE_BOARD_REQ(7, 3, 9)) == 3 &&
	       GSP_PERSIST_CTRL_EPOCH(GSPACE_BOARD_REQ(7, 3, 9)) == 9,
	       "GSP_PERSIST_CTRL is uapi's GSPACE_BOARD_REQ");
_Static_assert(GSP_PERSIST_CTRL_EIGHTHS == GSPACE_BOARD_REQ_K_EIGHTHS,
	       "the share bit of k is uapi's");
_Static_assert(GSP_PERSIST_MAX_SM == GSPACE_PART_MAX_N &&
	       GSP_PERSIST_MAX_K == GSPACE_PART_MAX_K,
	       "the partition limits are the control block's sizes");

#define MS		1000000ULL
#define NOW		(1000 * MS)

static struct gsp_board board __attribute__((aligned(GSP_BOARD_SIZE)));

static void reset(uint32_t mode)
{
	int d;

	memset(&board, 0, sizeof(board));
	board.magic = GSP_BOARD_MAGIC;
	board.lc_hold_ns = 200000;
	board.lc_max_ns = 100 * MS;
	board.predict_lead_ns = 500000;
	for (d = 0; d < GSP_BOARD_MAX_DEVICES; d++) {
		board.dev[d].part_n = 8;
		board.dev[d].part_k = 2;
		board.dev[d].protect = mode;
	}
}

/* Slot @i: owned (pid 100 + i) on @dev, stamped @age ns before NOW. */
static struct gsp_board_lc *slot(int i, uint32_t dev, uint64_t age)
{
	struct gsp_board_lc *s = &board.lc[i];

	s->owner = 100 + (uint32_t)i;
	s->device = dev;
	s->stamp_ns = NOW - age;
	return s;
}

static uint32_t nk(uint32_t dev)
{
	return GSP_BOARD_REQ_NK(gsp_board_part_update(&board, dev));
}

#define NK_ON	GSP_BOARD_REQ_NK(GSP_BOARD_REQ(8, 2, 0))
/* What preemptive asks for: the whole device. */
#define NK_ALL	GSP_BOARD_REQ_NK(GSP_BOARD_REQ(GSPACE_PART_MAX_N, \
					       GSPACE_PART_MAX_K, 0))

static void test_names(void)
{
	tap_ok(!strcmp(gsp_protect_name(GSP_PROTECT_REACTIVE), "reactive") &&
	       !strcmp(gsp_protect_name(GSP_PROTECT_RESERVED), "reserved") &&
	       !strcmp(gsp_protect_name(GSP_PROTECT_PREDICTIVE), "predictive") &&
	       !strcmp(gsp_protect_name(GSP_PROTECT_PREEMPTIVE), "preemptive") &&
	       GSP_PROTECT_PREEMPTIVE == 3 && GSP_PROTECT_COUNT == 4 &&
	       !gsp_protect_name(GSP_PROTECT_COUNT),
	       "protect names: reactive, reserved, predictive, preemptive; none beyond");
}

static void test_reactive(void)
{
	struct gsp_board_lc *s;
	uint64_t w0, w;

	reset(GSP_PROTECT_REACTIVE);
	s = slot(0, 0, 50 * MS);
	w0 = gsp_board_part_update(&board, 0);
	tap_ok(!GSP_BOARD_REQ_NK(w0),
	       "reactive: an idle LC slot asks for nothing");
	s->reserve = NOW;
	tap_ok(!nk(0), "reactive: a reserve does not count");
	s->inflight = 1;
	w = gsp_board_part_update(&board, 0);
	tap_ok(GSP_BOARD_REQ_NK(w) == NK_ON &&
	       GSP_BOARD_REQ_EPOCH(w) == GSP_BOARD_REQ_EPOCH(w0) + 2,
	       "reactive: in flight: (8, 2), a new epoch at every update");
	tap_ok(!nk(1), "reactive: another device is not asked");
	s->inflight = 0;
	tap_ok(!nk(0), "reactive: back to 0: withdrawn");
}

static void test_reserved(void)
{
	struct gsp_board_lc *s;

	reset(GSP_PROTECT_RESERVED);
	tap_ok(!nk(0), "reserved: no LC slot: nothing asked");
	s = slot(3, 0, 50 * MS);
	tap_ok(nk(0) == NK_ON,
	       "reserved: an LC slot held, idle: (8, 2)");
	tap_ok(!nk(1), "reserved: only on the slot's device");
	s->inflight = 2;
	tap_ok(nk(0) == NK_ON, "reserved: in flight: (8, 2)");
	s->inflight = 0;
	tap_ok(nk(0) == NK_ON, "reserved: idle again: still (8, 2)");
	s->device = 1;
	tap_ok(!nk(0) && nk(1) == NK_ON, "reserved: the slot moved: it follows");
	s->owner = 0;
	tap_ok(!nk(1), "reserved: the slot freed: withdrawn");
	s = slot(4, 2, 0);
	board.dev[2].part_n = 0;
	board.dev[2].part_k = 0;
	tap_ok(!nk(2), "reserved: partition 0,0 asks for nothing");
	board.dev[2].protect = GSP_PROTECT_REACTIVE;
	board.dev[2].part_n = 8;
	board.dev[2].part_k = 2;
	tap_ok(!nk(2), "reserved -> reactive: the idle slot no longer asks");
}

static void test_predictive(void)
{
	struct gsp_board_lc *s, *t;

	reset(GSP_PROTECT_PREDICTIVE);
	s = slot(0, 0, 50 * MS);
	tap_ok(!nk(0), "predictive: an idle slot without a reserve: nothing");
	s->reserve = NOW - 10;
	tap_ok(nk(0) == NK_ON, "predictive: a reserve: (8, 2)");
	s->reserve = 0;
	s->inflight = 1;
	tap_ok(nk(0) == NK_ON, "predictive: in flight: (8, 2)");
	s->inflight = 0;
	tap_ok(!nk(0), "predictive: neither: withdrawn");
	t = slot(1, 0, 50 * MS);
	t->reserve = NOW;
	tap_ok(nk(0) == NK_ON, "predictive: another slot's reserve counts");
	t->device = 1;
	tap_ok(!nk(0) && nk(1) == NK_ON,
	       "predictive: a reserve asks on its own device only");
}

static void test_preemptive(void)
{
	struct gsp_board_lc *s, *t;
	uint64_t w0, w;

	reset(GSP_PROTECT_PREEMPTIVE);
	tap_ok(!nk(0), "preemptive: no LC slot: nothing asked");
	s = slot(0, 0, 50 * MS);
	w0 = gsp_board_part_update(&board, 0);
	tap_ok(!GSP_BOARD_REQ_NK(w0),
	       "preemptive: an idle LC slot asks for nothing (not reserved)");
	s->reserve = NOW;
	tap_ok(!nk(0), "preemptive: a reserve does not count (not predictive)");
	s->reserve = 0;
	s->inflight = 1;
	w = gsp_board_part_update(&board, 0);
	tap_ok(GSP_BOARD_REQ_NK(w) == NK_ALL &&
	       GSP_BOARD_REQ_N(w) == GSPACE_PART_MAX_N &&
	       GSP_BOARD_REQ_K(w) == GSPACE_PART_MAX_K &&
	       GSP_BOARD_REQ_EPOCH(w) == GSP_BOARD_REQ_EPOCH(w0) + 2,
	       "preemptive: in flight: the whole device (%u, %u), not (8, 2)",
	       GSP_BOARD_REQ_N(w), GSP_BOARD_REQ_K(w));
	tap_ok(!nk(1), "preemptive: another device is not asked");
	t = slot(1, 0, 50 * MS);
	t->inflight = 3;
	s->inflight = 0;
	tap_ok(nk(0) == NK_ALL, "preemptive: another slot in flight keeps it");
	t->inflight = 0;
	tap_ok(!nk(0), "preemptive: none in flight: (0, 0)");
	t->inflight = 1;
	board.dev[0].part_n = 0;
	board.dev[0].part_k = 0;
	tap_ok(!nk(0),
	       "preemptive: partition off (0, 0): nothing asked, in flight or not");
	board.dev[0].part_n = 8;
	board.dev[0].part_k = 2;
	tap_ok(nk(0) == NK_ALL, "preemptive: partition set again: the whole device");
	board.dev[0].protect = GSP_PROTECT_REACTIVE;
	tap_ok(nk(0) == NK_ON,
	       "preemptive -> reactive, in flight: back to the partition (8, 2)");
}

static void test_lc_active(void)
{
	struct gsp_board_lc *s;

	reset(GSP_PROTECT_REACTIVE);
	s = slot(0, 0, 50 * MS);
	s->reserve = NOW - MS;
	tap_ok(!gsp_board_lc_active(&board, 0, NOW),
	       "lc_active, reactive: an idle slot with a reserve is not active");
	board.dev[0].protect = GSP_PROTECT_RESERVED;
	tap_ok(!gsp_board_lc_active(&board, 0, NOW),
	       "lc_active, reserved: an idle slot is not active (BE work is not held back)");
	board.dev[0].protect = GSP_PROTECT_PREDICTIVE;
	tap_ok(gsp_board_lc_active(&board, 0, NOW),
	       "lc_active, predictive: a fresh reserve is active");
	tap_ok(!gsp_board_lc_active(&board, 1, NOW),
	       "lc_active, predictive: on its own device only");
	s->reserve = NOW - 100 * MS;
	tap_ok(!gsp_board_lc_active(&board, 0, NOW),
	       "lc_active, predictive: a reserve lc_max_ns old no longer holds BE work");
	s->reserve = NOW + MS;
	tap_ok(gsp_board_lc_active(&board, 0, NOW),
	       "lc_active, predictive: a reserve stamped after now counts as new");
	s->reserve = 0;
	tap_ok(!gsp_board_lc_active(&board, 0, NOW),
	       "lc_active, predictive: no reserve, idle: not active");
	s->stamp_ns = NOW - 100000;
	tap_ok(gsp_board_lc_active(&board, 0, NOW),
	       "lc_active: younger than lc_hold_ns: active, as before");
	tap_ok(!gsp_board_lc_active(&board, GSP_BOARD_MAX_DEVICES, NOW),
	       "lc_active: a device beyond the board: nothing");
}

static void test_confine(void)
{
	reset(GSP_PROTECT_RESERVED);
	slot(0, 0, 50 * MS);
	gsp_board_part_update(&board, 0);
	tap_ok(gsp_board_lc_confine(&board, 0, NOW) &&
	       !gsp_board_lc_active(&board, 0, NOW),
	       "confine, reserved: an idle LC slot confines untransformed BE kernels without holding them back");
	board.dev[0].protect = GSP_PROTECT_REACTIVE;
	tap_ok(!gsp_board_lc_confine(&board, 0, NOW),
	       "confine, reactive: the word alone does not confine");
	gsp_board_part_update(&board, 0);
	board.dev[0].protect = GSP_PROTECT_PREDICTIVE;
	tap_ok(!gsp_board_lc_confine(&board, 0, NOW),
	       "confine, predictive: no request, no LC work: nothing");
	board.lc[0].reserve = NOW;
	gsp_board_part_update(&board, 0);
	tap_ok(gsp_board_lc_confine(&board, 0, NOW),
	       "confine, predictive: a reserve confines");
	reset(GSP_PROTECT_PREEMPTIVE);
	slot(0, 0, 200 * MS)->inflight = 1;
	tap_ok(nk(0) == NK_ALL && !gsp_board_lc_active(&board, 0, NOW) &&
	       !gsp_board_lc_confine(&board, 0, NOW),
	       "confine, preemptive: the word alone does not confine (a slot in flight past lc_max_ns, as reactive)");
	board.lc[0].stamp_ns = NOW - MS;
	tap_ok(gsp_board_lc_confine(&board, 0, NOW),
	       "confine, preemptive: LC work active confines");
	tap_ok(!gsp_board_lc_confine(&board, GSP_BOARD_MAX_DEVICES, NOW),
	       "confine: a device beyond the board: nothing");
}

/* Every mode, through the 16 devices: the rule never asks elsewhere. */
static void test_matrix(void)
{
	uint32_t mode, d;
	int ok = 1;

	for (mode = 0; mode < GSP_PROTECT_COUNT; mode++) {
		uint32_t on = mode == GSP_PROTECT_PREEMPTIVE ? NK_ALL : NK_ON;

		reset(mode);
		slot(0, 5, 50 * MS)->inflight = 1;
		slot(1, 9, 50 * MS)->reserve = NOW;
		slot(2, 12, 50 * MS);
		for (d = 0; d < GSP_BOARD_MAX_DEVICES; d++) {
			int want = d == 5 ||
				   (d == 9 && (mode == GSP_PROTECT_PREDICTIVE ||
					       mode == GSP_PROTECT_RESERVED)) ||
				   (d == 12 && mode == GSP_PROTECT_RESERVED);
			uint32_t got = nk(d);

			if (got != (want ? on : 0)) {
				tap_diag("mode %s device %u: asked (%u, %u)",
					 gsp_protect_name(mode), d,
					 GSP_BOARD_REQ_N(got),
					 GSP_BOARD_REQ_K(got));
				ok = 0;
			}
		}
	}
	tap_ok(ok, "every mode, 16 devices: in flight, reserving and held slots ask exactly what the mode says");
}

/* dev[].waiting: the arbiter's, read where the uapi puts it. */
static void test_waiting(void)
{
	reset(GSP_PROTECT_PREEMPTIVE);
	board.dev[3].waiting = 2;
	tap_ok(gsp_board_waiting(&board, 3) == 2 &&
	       !gsp_board_waiting(&board, 2) &&
	       !gsp_board_waiting(&board, GSP_BOARD_MAX_DEVICES) &&
	       offsetof(struct gsp_board_dev, waiting) == 40 &&
	       offsetof(struct gspace_board_dev, waiting) == 40 &&
	       sizeof(((struct gspace_board_dev *)0)->reserved) == 16,
	       "waiting: dev[].waiting at offset 40 of each 64-byte entry, 0 beyond the board");
}

/*
 * Partition auto: the claim is the greatest n and k of the claiming
 * slots' cells, k a share of each kernel's slots in eighths; a slot with
 * no cell asks for every slot of every SM; a kernel of K slots gives up
 * ceil(k K / 8).
 */
static void test_auto(void)
{
	uint32_t k8 = GSPACE_BOARD_REQ_K_EIGHTHS;

	reset(GSP_PROTECT_REACTIVE);
	board.dev[0].search = GSPACE_SEARCH_NS;
	slot(0, 0, 0)->cell = GSPACE_BOARD_REQ(48, 4, 0);
	board.lc[0].inflight = 1;
	tap_ok(nk(0) == GSP_BOARD_REQ_NK(GSP_BOARD_REQ(48, 4 | k8, 0)),
	       "auto: a cell (48, 4) claims 48 SMs and 4 eighths of each K");
	slot(1, 0, 0)->cell = GSPACE_BOARD_REQ(96, 2, 0);
	board.lc[1].inflight = 1;
	tap_ok(nk(0) == GSP_BOARD_REQ_NK(GSP_BOARD_REQ(96, 4 | k8, 0)),
	       "auto: two cells: the greatest n and the greatest share");
	board.lc[1].cell = GSPACE_BOARD_REQ(24, 30, 0);
	tap_ok(nk(0) == GSP_BOARD_REQ_NK(GSP_BOARD_REQ(48, 8 | k8, 0)),
	       "auto: a share over 8 eighths counts as all of each K");
	board.lc[1].cell = 0;
	tap_ok(nk(0) == GSP_BOARD_REQ_NK(GSP_BOARD_REQ(GSPACE_PART_MAX_N,
						       8 | k8, 0)),
	       "auto: a slot in flight without a cell asks for every slot");
	board.dev[0].protect = GSP_PROTECT_PREEMPTIVE;
	tap_ok(nk(0) == NK_ALL, "auto, preemptive: the whole device, a count");
	tap_ok(gsp_persist_ctrl_slots(4 | k8, 32) == 16 &&
	       gsp_persist_ctrl_slots(4 | k8, 8) == 4 &&
	       gsp_persist_ctrl_slots(1 | k8, 6) == 1 &&
	       gsp_persist_ctrl_slots(3 | k8, 5) == 2 &&
	       gsp_persist_ctrl_slots(8 | k8, 32) == 32 &&
	       gsp_persist_ctrl_slots(30 | k8, 4) == 4 &&
	       gsp_persist_ctrl_slots(4, 32) == 4 &&
	       gsp_persist_ctrl_slots(40, 32) == 32,
	       "a share gives up ceil(k K / 8) of K; a count k, at most K");
}

int main(void)
{
	test_names();
	test_reactive();
	test_reserved();
	test_predictive();
	test_preemptive();
	test_lc_active();
	test_confine();
	test_matrix();
	test_waiting();
	test_auto();
	return tap_done();
}
