/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the drm engine's selftests share (gspace_drm_test.c,
 * gspace_drm_sched_test.c, gspace_drmshim_test.c): the helpers of
 * gsp_drm_util.h and the fixture of four tenants, each with its own
 * render node file.
 */
#ifndef GSP_DRM_H
#define GSP_DRM_H

#include "gsp_drm_util.h"

FIXTURE(drm) {
	int fd[4];		/* gspace tenants */
	int drm[4];		/* their render node files */
	struct gsp_info info;
	char policy[32];	/* saved knobs, restored in teardown */
	char period[32];
	char band_wait[32];
	char watchdog[32];
};

FIXTURE_SETUP(drm)
{
	int i;

	for (i = 0; i < 4; i++)
		self->fd[i] = self->drm[i] = -1;
	self->fd[0] = t_open(_metadata);
	t_info(_metadata, self->fd[0], &self->info);
	if (gsp_on_daemon())
		SKIP("gspaced has no drm engine: DRM submissions go through gspace.ko only");
	if (!(self->info.v.features & GSPACE_FEAT_DRM))
		SKIP("no drm engine (GSPACE_FEAT_DRM; ABI %u.%u): gspace_drm.ko is not loaded, and the test VM has it only on kernels with DRM (the debug kernel has none)",
		     self->info.v.abi_major, self->info.v.abi_minor);
	ASSERT_LE(6, self->info.v.abi_minor);
	self->drm[0] = open_render();
	if (self->drm[0] < 0)
		SKIP("no gsp-testdrm render node in /dev/dri (%s): the TEST DEVICE gsp_testdrm.ko is not loaded",
		     strerror(errno));
	for (i = 1; i < 4; i++) {
		self->fd[i] = t_open(_metadata);
		self->drm[i] = open_render();
		ASSERT_LE(0, self->drm[i]);
	}
	for (i = 0; i < 4; i++)
		t_ctx(_metadata, self->fd[i], 0, 100);
	testdrm_quiesce(_metadata, self->drm[0]);
}

FIXTURE_TEARDOWN(drm)
{
	int i;

	for (i = 0; i < 4; i++) {
		t_close(&self->fd[i]);
		if (self->drm[i] >= 0)
			close(self->drm[i]);
	}
	EXPECT_EQ(0, knobs_restore_band(self->policy, self->period,
					self->band_wait));
	if (self->watchdog[0])
		EXPECT_EQ(0, knob_write("watchdog_ms", self->watchdog));
}

/* FIFO for a test that needs it: as it is, or set by root. */
static inline void need_fifo(struct __test_meta *_metadata, FIXTURE_DATA(drm) *self)
{
	char raw[256], cur[32];

	ASSERT_EQ(0, knob_read("policy", raw, sizeof(raw)));
	knob_selected(raw, cur, sizeof(cur));
	if (!strcmp(cur, "fifo"))
		return;
	if (geteuid() != 0)
		SKIP("the policy is %s and only root may set fifo", cur);
	t_knob_save(_metadata, "policy", self->policy, sizeof(self->policy));
	ASSERT_EQ(0, knob_write("policy", "fifo"));
}

#endif /* GSP_DRM_H */
