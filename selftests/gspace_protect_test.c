// SPDX-License-Identifier: GPL-2.0
/*
 * Protection modes (ABI 1.3, GSPACE_FEAT_PROTECT): the knobs protect and
 * predict_lead_us, published on the board, and the partition request
 * under each mode: reserved asks for the partition while an LC tenant
 * holds a slot, in flight or not, from the moment the slot is given out;
 * predictive while a slot is in flight or has its reserve set;
 * preemptive (ABI 1.4, GSPACE_FEAT_PREEMPT) while a slot is in flight,
 * and then for the whole device; every change of the mode recomputes the
 * request at once; a slot is zeroed, reserve included, when its owner
 * goes.
 *
 * Runs on both transports: it maps the board through the transport, like
 * gspace_board_test's "partition" fixture. The arbiters under test are
 * built from this tree, so an arbiter without the feature fails.
 */
#include <signal.h>
#include <sys/wait.h>

#include "gsp_lc.h"

static const char *const knobs[] = {
	"partition", "protect", "predict_lead_us",
};
#define NKNOBS	(sizeof(knobs) / sizeof(knobs[0]))

FIXTURE(protect) {
	struct lc_fixture f;
};

FIXTURE_SETUP(protect)
{
	lc_fixture_setup(_metadata, &self->f, knobs, NKNOBS, GSPACE_FEAT_PROTECT,
			 "GSPACE_FEAT_PROTECT", 3);
}

FIXTURE_TEARDOWN(protect)
{
	lc_fixture_teardown(_metadata, &self->f);
}

/* Every device of the board, present or not, has @mode. */
static int all_devices(const struct gspace_board *b, uint32_t mode)
{
	int d;

	for (d = 0; d < GSPACE_BOARD_MAX_DEVICES; d++)
		if (__atomic_load_n(&b->dev[d].protect, __ATOMIC_ACQUIRE) !=
		    mode)
			return 0;
	return 1;
}

TEST_F(protect, knob_validated_and_published)
{
	static const char *const bad[] = {
		"\n", "reserve", "Reserved", "reactive2", "1", " reserved",
		"reserved ", "reserved\n\n", "predictive,", "off", "preempt",
		"Preemptive", "3",
	};
	size_t i;

	ASSERT_EQ(0, knob_write("protect", "reactive"));
	expect_knob(_metadata, "protect", "reactive");
	ASSERT_TRUE(all_devices(self->f.b, GSPACE_PROTECT_REACTIVE));
	ASSERT_EQ(0, knob_write("protect", "reserved\n"));
	expect_knob(_metadata, "protect", "reserved");
	ASSERT_TRUE(all_devices(self->f.b, GSPACE_PROTECT_RESERVED));
	ASSERT_EQ(0, knob_write("protect", "preemptive\n"));
	expect_knob(_metadata, "protect", "preemptive");
	ASSERT_TRUE(all_devices(self->f.b, GSPACE_PROTECT_PREEMPTIVE));
	ASSERT_EQ(0, knob_write("protect", "predictive"));
	expect_knob(_metadata, "protect", "predictive");
	ASSERT_TRUE(all_devices(self->f.b, GSPACE_PROTECT_PREDICTIVE));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = knob_write("protect", bad[i]);

		if (r != -EINVAL)
			TH_LOG("protect '%s': %d, not -EINVAL", bad[i], r);
		EXPECT_EQ(-EINVAL, r);
	}
	expect_knob(_metadata, "protect", "predictive");
	EXPECT_TRUE(all_devices(self->f.b, GSPACE_PROTECT_PREDICTIVE));
}

TEST_F(protect, lead_validated_and_published)
{
	static const char *const bad[] = {
		"0", "100001", "-1", "x", "5 5", "99999999999999999999",
	};
	uint64_t lead;
	size_t i;

	ASSERT_EQ(0, knob_write("predict_lead_us", "750"));
	expect_knob(_metadata, "predict_lead_us", "750");
	ASSERT_EQ(750000, self->f.b->predict_lead_ns);
	ASSERT_EQ(0, knob_write("predict_lead_us", "1"));
	ASSERT_EQ(1000, self->f.b->predict_lead_ns);
	ASSERT_EQ(0, knob_write("predict_lead_us", "100000"));
	lead = self->f.b->predict_lead_ns;
	ASSERT_EQ(100000000, lead);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = knob_write("predict_lead_us", bad[i]);

		if (r != -EINVAL)
			TH_LOG("predict_lead_us '%s': %d, not -EINVAL", bad[i],
			       r);
		EXPECT_EQ(-EINVAL, r);
	}
	EXPECT_EQ(lead, self->f.b->predict_lead_ns);
}

/* reserved: the request stands from the slot's start to its end. */
TEST_F(protect, reserved_follows_the_slot)
{
	uint64_t w;

	if (!self->f.info.v.lc_allowed)
		SKIP("this caller may not use GSPACE_CLASS_LC");
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	ASSERT_EQ(0, knob_write("protect", "reserved"));
	ASSERT_EQ(0, req_nk(self->f.b, 0));

	/* Given a slot: asked at once, nothing in flight. */
	lc_open(_metadata, &self->f.lc[0], 0);
	w = part_req(self->f.b, 0);
	ASSERT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(w));
	/* In flight and back: it stays. */
	lc_inflight(&self->f.lc[0], 1);
	ASSERT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 0));
	lc_inflight(&self->f.lc[0], 0);
	ASSERT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 0));

	/* The mode changes: recomputed at once, both ways. */
	ASSERT_EQ(0, knob_write("protect", "reactive"));
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	ASSERT_EQ(0, knob_write("protect", "predictive"));
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	ASSERT_EQ(0, knob_write("protect", "reserved"));
	ASSERT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 0));
	/* Other devices are not asked. */
	if (self->f.info.num_devices > 1)
		EXPECT_EQ(0, req_nk(self->f.b, 1));

	/* Back to BE: withdrawn; LC again: asked again. */
	ASSERT_OK(ctx_set_raw(self->f.lc[0].fd, 0, GSPACE_CLASS_BE, 100, 0));
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	ASSERT_OK(ctx_set_raw(self->f.lc[0].fd, 0, GSPACE_CLASS_LC, 100, 0));
	ASSERT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 0));

	/* Two tenants: up until both are gone. */
	lc_open(_metadata, &self->f.lc[1], 0);
	lc_close(&self->f.lc[0]);
	slot_freed(_metadata, self->f.b, self->f.lc[0].slot);
	ASSERT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 0));
	w = part_req(self->f.b, 0);
	lc_close(&self->f.lc[1]);
	slot_freed(_metadata, self->f.b, self->f.lc[1].slot);
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	ASSERT_NE(GSP_BOARD_REQ_EPOCH(w),
		  GSP_BOARD_REQ_EPOCH(part_req(self->f.b, 0)));
	/* Partition off is off, in any mode. */
	lc_open(_metadata, &self->f.lc[0], 0);
	ASSERT_EQ(0, knob_write("partition", "0,0"));
	ASSERT_EQ(0, req_nk(self->f.b, 0));
}

TEST_F(protect, reserved_moves_with_the_device)
{
	if (!self->f.info.v.lc_allowed)
		SKIP("this caller may not use GSPACE_CLASS_LC");
	if (self->f.info.num_devices < 2)
		SKIP("one device only");
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	ASSERT_EQ(0, knob_write("protect", "reserved"));
	lc_open(_metadata, &self->f.lc[0], 0);
	ASSERT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 0));
	ASSERT_OK(ctx_set_raw(self->f.lc[0].fd, 1, GSPACE_CLASS_LC, 100, 0));
	EXPECT_EQ(0, req_nk(self->f.b, 0));
	EXPECT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 1));
	/* A tenant that starts on device 1 asks there at once. */
	lc_open(_metadata, &self->f.lc[1], 1);
	lc_close(&self->f.lc[0]);
	slot_freed(_metadata, self->f.b, self->f.lc[0].slot);
	EXPECT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 1));
	EXPECT_EQ(0, req_nk(self->f.b, 0));
}

/* predictive: in flight or reserving. */
TEST_F(protect, predictive_follows_reserve)
{
	uint64_t w;

	if (!self->f.info.v.lc_allowed)
		SKIP("this caller may not use GSPACE_CLASS_LC");
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	ASSERT_EQ(0, knob_write("protect", "predictive"));
	lc_open(_metadata, &self->f.lc[0], 0);
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	ASSERT_EQ(0, self->f.b->lc[self->f.lc[0].slot].reserve);

	/* The BE tenant's read-only mapping sees the reservation. */
	w = lc_reserve(&self->f.lc[0], 1);
	ASSERT_EQ(w, part_req(self->f.b, 0));
	ASSERT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(w));
	ASSERT_NE(0, self->f.b->lc[self->f.lc[0].slot].reserve);
	/* The work starts, then the reservation goes: still asked. */
	lc_inflight(&self->f.lc[0], 1);
	lc_reserve(&self->f.lc[0], 0);
	ASSERT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 0));
	lc_inflight(&self->f.lc[0], 0);
	ASSERT_EQ(0, req_nk(self->f.b, 0));

	/* Reserving when the mode goes reactive: withdrawn, and back. */
	lc_reserve(&self->f.lc[0], 1);
	ASSERT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 0));
	ASSERT_EQ(0, knob_write("protect", "reactive"));
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	ASSERT_EQ(0, knob_write("protect", "predictive"));
	ASSERT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 0));

	/* Its slot goes with the tenant, the reservation with it. */
	lc_close(&self->f.lc[0]);
	slot_freed(_metadata, self->f.b, self->f.lc[0].slot);
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	ASSERT_EQ(0, self->f.b->lc[self->f.lc[0].slot].reserve);
}

/* preemptive: in flight, as reactive, but the whole device. */
TEST_F(protect, preemptive_asks_for_the_whole_device)
{
	uint64_t w;

	if (!self->f.info.v.lc_allowed)
		SKIP("this caller may not use GSPACE_CLASS_LC");
	ASSERT_TRUE(self->f.info.v.features & GSPACE_FEAT_PREEMPT);
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	ASSERT_EQ(0, knob_write("protect", "preemptive"));
	ASSERT_TRUE(all_devices(self->f.b, GSPACE_PROTECT_PREEMPTIVE));

	/* A slot held, idle or reserving, asks for nothing. */
	lc_open(_metadata, &self->f.lc[0], 0);
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	lc_reserve(&self->f.lc[0], 1);
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	lc_reserve(&self->f.lc[0], 0);

	/* In flight: the whole device, seen by the BE's read-only mapping. */
	w = lc_inflight(&self->f.lc[0], 1);
	ASSERT_EQ(w, part_req(self->f.b, 0));
	ASSERT_EQ(REQ_ALL, GSP_BOARD_REQ_NK(w));
	ASSERT_EQ(GSPACE_PART_MAX_N, GSP_BOARD_REQ_N(w));
	ASSERT_EQ(GSPACE_PART_MAX_K, GSP_BOARD_REQ_K(w));
	if (self->f.info.num_devices > 1)
		EXPECT_EQ(0, req_nk(self->f.b, 1));

	/* The arbiter's own recomputation follows the same rule. */
	ASSERT_EQ(0, knob_write("protect", "reactive"));
	ASSERT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 0));
	ASSERT_EQ(0, knob_write("protect", "preemptive"));
	ASSERT_EQ(REQ_ALL, req_nk(self->f.b, 0));
	ASSERT_EQ(0, knob_write("partition", "4,1"));
	ASSERT_EQ(REQ_ALL, req_nk(self->f.b, 0));
	/* Spatial sharing off is off, in flight or not. */
	ASSERT_EQ(0, knob_write("partition", "0,0"));
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	ASSERT_EQ(REQ_ALL, req_nk(self->f.b, 0));

	/* Done: withdrawn. A second tenant keeps it up while in flight. */
	lc_inflight(&self->f.lc[0], 0);
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	lc_open(_metadata, &self->f.lc[1], 0);
	lc_inflight(&self->f.lc[1], 2);
	ASSERT_EQ(REQ_ALL, req_nk(self->f.b, 0));
	/* Its slot goes with its file: withdrawn by the arbiter. */
	lc_close(&self->f.lc[1]);
	slot_freed(_metadata, self->f.b, self->f.lc[1].slot);
	ASSERT_EQ(0, req_nk(self->f.b, 0));
}

/* A reserving LC tenant killed must not leave BE kernels partitioned. */
TEST_F(protect, killed_reserving_lc_withdrawn)
{
	int pipefd[2], slot = -1, status, i;
	pid_t pid;

	if (!self->f.info.v.lc_allowed)
		SKIP("this caller may not use GSPACE_CLASS_LC");
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	ASSERT_EQ(0, knob_write("protect", "predictive"));
	ASSERT_OK(pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct gspace_stats st = { .size = sizeof(st) };
		struct lc_tenant t;

		t.fd = gsp_open();
		if (t.fd < 0 || ctx_set_raw(t.fd, 0, GSPACE_CLASS_LC, 100, 0) ||
		    gsp_ioctl(t.fd, GSPACE_IOCTL_STATS, &st) || st.lc_slot < 0)
			_exit(1);
		t.slot = st.lc_slot;
		t.rw = gsp_board_map(t.fd, 1);
		if (!t.rw)
			_exit(1);
		lc_reserve(&t, 1);
		if (write(pipefd[1], &t.slot, sizeof(int)) != sizeof(int))
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(sizeof(int), read(pipefd[0], &slot, sizeof(int)));
	close(pipefd[0]);
	ASSERT_LE(0, slot);
	ASSERT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 0));
	ASSERT_NE(0, self->f.b->lc[slot].reserve);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	for (i = 0; i < 500 && req_nk(self->f.b, 0); i++)
		sleep_ms(10);
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	ASSERT_EQ(0, self->f.b->lc[slot].owner);
	ASSERT_EQ(0, self->f.b->lc[slot].reserve);
}

TEST_HARNESS_MAIN
