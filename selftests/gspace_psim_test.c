// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-psim on the arbiter's own board, as make run shows it: the
 * SIMULATED GPU's LC tenant and BE kernels (libgsp/sim/psim.c) on the
 * board of an LC tenant of the arbiter, the protection mode and the
 * partition set through the arbiter's knobs, so that its own request
 * update runs at every mode change (psim_board_arb() checks the word it
 * leaves against the rule of gsp_board.h). Every mode must then give
 * exactly the results of the same run on a board in memory, whose
 * arbiter is that rule.
 *
 * Runs on both transports. Needs the right to set knobs and to be LC,
 * and skips without them.
 */
#include <sys/mman.h>

#include "gsp_util.h"
#include "psim.h"

static const char *const knobs[] = {
	"partition", "protect", "predict_lead_us",
};
#define NKNOBS	(sizeof(knobs) / sizeof(knobs[0]))

FIXTURE(psim) {
	int fd;
	struct gsp_info info;
	struct gspace_board *rw;
	struct psim_arb arb;
	struct psim_board pb;
	char saved[NKNOBS][64];
	int restore;
};

FIXTURE_SETUP(psim)
{
	struct gspace_stats st = { .size = sizeof(st) };
	char err[256];
	unsigned int i;

	self->fd = -1;
	self->rw = NULL;
	self->restore = 0;
	self->fd = t_open(_metadata);
	t_info(_metadata, self->fd, &self->info);
	ASSERT_TRUE(self->info.v.features & GSPACE_FEAT_PROTECT);
	if (!self->info.v.lc_allowed)
		SKIP("this caller may not use GSPACE_CLASS_LC");
	/* Skips without the right to set knobs. */
	for (i = 0; i < NKNOBS; i++)
		t_knob_save(_metadata, knobs[i], self->saved[i],
			    sizeof(self->saved[i]));
	ASSERT_OK(ctx_set_raw(self->fd, 0, GSPACE_CLASS_LC, 100, 0));
	ASSERT_OK(gsp_ioctl(self->fd, GSPACE_IOCTL_STATS, &st));
	ASSERT_LE(0, st.lc_slot);
	self->rw = gsp_board_map(self->fd, 1);
	ASSERT_NE(NULL, self->rw);
	self->pb = (struct psim_board){
		.b = (struct gsp_board *)self->rw, .device = 0,
		.slot = st.lc_slot, .clock_ns = now_ns(),
		.what = "the arbiter's",
	};
	self->arb = (struct psim_arb){
		.knob_read = knob_read, .knob_write = knob_write,
	};
	if (psim_board_arb(&self->pb, &self->arb, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(PSIM_ARB_KNOBS, self->arb.nsaved);
	self->restore = 1;
}

FIXTURE_TEARDOWN(psim)
{
	if (self->restore)
		EXPECT_EQ(0, psim_arb_restore(&self->arb));
	if (self->rw)
		munmap(self->rw, GSPACE_BOARD_SIZE);
	t_close(&self->fd);
}

static void log_res(const char *board, const struct psim_res *r)
{
	TH_LOG("  %s: LC p50 %llu p99 %llu max %llu ns, %llu runs; BE %llu tasks, %llu yields, %llu top-ups, %llu reserves",
	       board, (unsigned long long)r->p50, (unsigned long long)r->p99,
	       (unsigned long long)r->max, (unsigned long long)r->lc_n,
	       (unsigned long long)r->be_tasks, (unsigned long long)r->yields,
	       (unsigned long long)r->topups, (unsigned long long)r->reserves);
}

TEST_F(psim, every_mode_as_on_a_board_in_memory)
{
	static const uint32_t parts[][2] = { { 16, 4 }, { 8, 4 }, { 8, 2 } };
	static struct gsp_board mem;	/* 4 KiB, off the stack */
	struct psim_board mb;
	struct psim_res a, b;
	struct psim_cfg c;
	struct gsp_board_lc *sl;
	char err[256];
	uint64_t runs = 0;
	unsigned int m, p;

	psim_board_mem(&mb, &mem);
	/* The arbiter's time-plane knobs, which these runs do not set. */
	mem.lc_hold_ns = __atomic_load_n(&self->rw->lc_hold_ns,
					 __ATOMIC_ACQUIRE);
	mem.lc_max_ns = __atomic_load_n(&self->rw->lc_max_ns,
					__ATOMIC_ACQUIRE);
	psim_cfg_default(&c);
	c.sms = 16;
	c.slots = 4;
	c.tasks = 16 * 16 * 4;
	c.lc_sms = 16;
	c.count = 60;
	for (m = 0; m < PSIM_MODE_COUNT; m++) {
		for (p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
			if (p && !psim_mode_spatial(m))
				break;
			c.mode = m;
			c.part_n = parts[p][0];
			c.part_k = parts[p][1];
			if (psim_run(&c, &self->pb, &a, err, sizeof(err)))
				TH_LOG("%s on the arbiter's board: %s",
				       psim_mode_name(m), err);
			ASSERT_EQ(++runs, self->arb.setups);
			ASSERT_EQ(0, psim_run(&c, &mb, &b, err, sizeof(err)));
			if (memcmp(&a, &b, sizeof(a))) {
				TH_LOG("%s %u,%u: the two boards differ",
				       psim_mode_name(m), c.part_n, c.part_k);
				log_res("arbiter", &a);
				log_res("memory", &b);
			}
			EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
			EXPECT_EQ(c.count - c.warmup,
				  a.lc_n + a.lc_missed + a.lc_unfinished);
		}
	}
	/* Our slot idle again; its word the rule's (psim_board_arb). */
	sl = &((struct gsp_board *)self->rw)->lc[self->pb.slot];
	EXPECT_EQ(0, __atomic_load_n(&sl->inflight, __ATOMIC_ACQUIRE));
	EXPECT_EQ(0, __atomic_load_n(&sl->reserve, __ATOMIC_ACQUIRE));
}

/* reserved, from the arbiter's own update alone: no LC write asked. */
TEST_F(psim, reserved_asked_by_the_arbiter)
{
	struct gsp_board_dev *d = &((struct gsp_board *)self->rw)->dev[0];

	ASSERT_EQ(0, self->pb.setup(&self->pb, GSP_PROTECT_REACTIVE, 8, 2,
				    500000));
	ASSERT_EQ(0, GSP_BOARD_REQ_NK(__atomic_load_n(&d->part_req,
						      __ATOMIC_ACQUIRE)));
	if (self->pb.setup(&self->pb, GSP_PROTECT_RESERVED, 8, 2, 500000))
		TH_LOG("%s", self->pb.err);
	ASSERT_EQ(GSP_BOARD_REQ_NK(GSP_BOARD_REQ(8, 2, 0)),
		  GSP_BOARD_REQ_NK(__atomic_load_n(&d->part_req,
						   __ATOMIC_ACQUIRE)));
}

TEST_HARNESS_MAIN
