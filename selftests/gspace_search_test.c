// SPDX-License-Identifier: GPL-2.0
/*
 * Partition auto (ABI 1.5, GSPACE_FEAT_PART_AUTO): the partition knob's
 * "auto" and the search knob, published as dev[].search; under auto a
 * claim asks for the greatest n and k of the claiming slots' cells, a
 * claiming slot without a cell for the whole device, preemptive still
 * for the whole device; the arbiter's own recomputation (a knob change)
 * follows the same rule as the tenants' (the module's twin of
 * gsp_board_part_update()); a slot's cell and search words are zeroed
 * when its owner goes.
 *
 * Runs on both transports, like gspace_protect_test.
 */
#include "gsp_lc.h"

static const char *const knobs[] = { "partition", "search", "protect" };
#define NKNOBS	(sizeof(knobs) / sizeof(knobs[0]))

FIXTURE(search) {
	struct lc_fixture f;
};

FIXTURE_SETUP(search)
{
	lc_fixture_setup(_metadata, &self->f, knobs, NKNOBS, GSPACE_FEAT_PART_AUTO,
			 "GSPACE_FEAT_PART_AUTO", 5);
}

FIXTURE_TEARDOWN(search)
{
	lc_fixture_teardown(_metadata, &self->f);
}

/* Every device of the board, present or not, publishes @search. */
static int all_devices(const struct gspace_board *b, uint32_t search)
{
	int d;

	for (d = 0; d < GSPACE_BOARD_MAX_DEVICES; d++)
		if (__atomic_load_n(&b->dev[d].search, __ATOMIC_ACQUIRE) !=
		    search)
			return 0;
	return 1;
}

TEST_F(search, knobs_validated_and_published)
{
	static const char *const bad_search[] = {
		"off", "NS", "ns ", "nn-srs", "1", "grid\n\n", "auto",
	};
	static const char *const bad_part[] = { "Auto", "auto ", "auto,1" };
	size_t i;

	ASSERT_EQ(0, knob_write("search", "ns"));
	ASSERT_EQ(0, knob_write("partition", "auto"));
	expect_knob(_metadata, "partition", "auto");
	ASSERT_TRUE(all_devices(self->f.b, GSPACE_SEARCH_NS));
	ASSERT_EQ(0, self->f.b->dev[0].part_n);
	ASSERT_EQ(0, knob_write("search", "grid\n"));
	expect_knob(_metadata, "search", "grid");
	ASSERT_TRUE(all_devices(self->f.b, GSPACE_SEARCH_GRID));
	ASSERT_EQ(0, knob_write("search", "nn_srs"));
	ASSERT_TRUE(all_devices(self->f.b, GSPACE_SEARCH_NN_SRS));
	for (i = 0; i < sizeof(bad_search) / sizeof(bad_search[0]); i++) {
		int r = knob_write("search", bad_search[i]);

		if (r != -EINVAL)
			TH_LOG("search '%s': %d, not -EINVAL", bad_search[i], r);
		EXPECT_EQ(-EINVAL, r);
	}
	for (i = 0; i < sizeof(bad_part) / sizeof(bad_part[0]); i++)
		EXPECT_EQ(-EINVAL, knob_write("partition", bad_part[i]));
	expect_knob(_metadata, "search", "nn_srs");
	expect_knob(_metadata, "partition", "auto");
	/* a partition by hand: the method stays, dev[].search goes to 0 */
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	expect_knob(_metadata, "partition", "8,2");
	expect_knob(_metadata, "search", "nn_srs");
	ASSERT_TRUE(all_devices(self->f.b, GSPACE_SEARCH_OFF));
	ASSERT_EQ(8, self->f.b->dev[0].part_n);
}

static uint64_t lc_cell(struct lc_tenant *t, uint32_t n, uint32_t k)
{
	return lc_write(t, &t->rw->lc[t->slot].cell,
			n ? GSPACE_BOARD_REQ(n, k, 0) : 0);
}

TEST_F(search, cells_claimed)
{
	int i;

	if (!self->f.info.v.lc_allowed)
		SKIP("this caller may not use GSPACE_CLASS_LC");
	ASSERT_EQ(0, knob_write("protect", "reactive"));
	ASSERT_EQ(0, knob_write("partition", "auto"));
	for (i = 0; i < 2; i++)
		lc_open(_metadata, &self->f.lc[i], 0);
	ASSERT_EQ(0, req_nk(self->f.b, 0));
	lc_cell(&self->f.lc[0], 48, 4);
	ASSERT_EQ(0, req_nk(self->f.b, 0));	/* a cell alone claims nothing */
	lc_inflight(&self->f.lc[0], 1);
	ASSERT_EQ(REQ_8TH(48, 4), req_nk(self->f.b, 0));
	/* in flight without a cell: every slot of every SM */
	lc_inflight(&self->f.lc[1], 1);
	ASSERT_EQ(REQ_AUTO_ALL, req_nk(self->f.b, 0));
	/* two cells: the greatest n and the greatest k */
	lc_cell(&self->f.lc[1], 96, 2);
	ASSERT_EQ(REQ_8TH(96, 4), req_nk(self->f.b, 0));
	lc_inflight(&self->f.lc[1], 0);
	ASSERT_EQ(REQ_8TH(48, 4), req_nk(self->f.b, 0));
	/* the arbiter's own recomputation follows the same rule */
	ASSERT_EQ(0, knob_write("protect", "reserved"));
	ASSERT_EQ(REQ_8TH(96, 4), req_nk(self->f.b, 0));
	ASSERT_EQ(0, knob_write("protect", "preemptive"));
	ASSERT_EQ(REQ_ALL, req_nk(self->f.b, 0));
	ASSERT_EQ(0, knob_write("protect", "reactive"));
	ASSERT_EQ(REQ_8TH(48, 4), req_nk(self->f.b, 0));
	/* off auto, the operator's partition again */
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	ASSERT_EQ(REQ_NK(8, 2), req_nk(self->f.b, 0));
	ASSERT_EQ(0, knob_write("partition", "auto"));
	ASSERT_EQ(REQ_8TH(48, 4), req_nk(self->f.b, 0));
	lc_inflight(&self->f.lc[0], 0);
	ASSERT_EQ(0, req_nk(self->f.b, 0));
}

TEST_F(search, slot_words_zeroed_with_owner)
{
	int slot;

	if (!self->f.info.v.lc_allowed)
		SKIP("this caller may not use GSPACE_CLASS_LC");
	ASSERT_EQ(0, knob_write("partition", "auto"));
	lc_open(_metadata, &self->f.lc[0], 0);
	slot = self->f.lc[0].slot;
	lc_cell(&self->f.lc[0], 24, 8);
	lc_write(&self->f.lc[0], &self->f.lc[0].rw->lc[slot].search,
		 GSPACE_BOARD_SEARCH(GSPACE_SEARCH_NS, 2, 5, 40));
	lc_inflight(&self->f.lc[0], 3);
	ASSERT_EQ(REQ_8TH(24, 8), req_nk(self->f.b, 0));
	lc_close(&self->f.lc[0]);
	slot_freed(_metadata, self->f.b, slot);
	ASSERT_EQ(0, self->f.b->lc[slot].cell);
	ASSERT_EQ(0, self->f.b->lc[slot].search);
	ASSERT_EQ(0, req_nk(self->f.b, 0));
}

TEST_HARNESS_MAIN
