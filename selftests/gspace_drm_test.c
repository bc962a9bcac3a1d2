// SPDX-License-Identifier: GPL-2.0
/*
 * The drm engine (ABI 1.6, GSPACE_FEAT_DRM; Documentation/drm.rst):
 * DRM_BIND and DRM_SUBMIT forwarding to gsp-testdrm, the TEST DEVICE
 * (kmod/testdrm/: a DRM driver whose "engine" is an hrtimer; no hardware
 * runs anything): order, fences, malformed requests, closed and unbound
 * files, dying tenants. Scheduling (BAND, LC priority, the watchdog) and
 * module unload are gspace_drm_sched_test.c. The nouveau adapter cannot
 * be tested here: the VM has no NVIDIA GPU.
 *
 * Skips, saying why, where there is no drm engine (the debug kernel has
 * no DRM, so neither gspace_drm.ko nor gsp_testdrm.ko exists there; and
 * gspaced has none) or no gsp-testdrm render node.
 */
#include "gsp_drm.h"

/*
 * Three tenants' jobs, queued behind a running one, reach the driver one
 * at a time, in the order FIFO grants them (their submission order), and
 * each ends when the driver's fence signals, charged at least its
 * duration (the engine is an hrtimer: never early).
 */
TEST_F_TIMEOUT(drm, forward_in_scheduler_order, 60)
{
	struct drm_gsp_testdrm_info i0, i1;
	uint64_t h[13], tags[13], sum = 0;
	uint32_t so[4];
	struct gspace_stats st;
	struct gspace_wait w;
	int t, j, n = 0;

	need_fifo(_metadata, self);
	for (t = 0; t < 4; t++) {
		ASSERT_OK(bind_raw(self->fd[t], self->drm[t],
				   GSPACE_DRM_ADAPTER_TESTDRM, t));
		so[t] = syncobj_new(_metadata, self->drm[t]);
	}
	testdrm_info(_metadata, self->drm[0], &i0, GSP_TESTDRM_INFO_RESET);
	/* Tenant 0's long job holds the engine while the rest queue. */
	tags[n] = 0xa000;
	h[n++] = t_dsubmit(_metadata, self->fd[0], 0, so[0], 200000, 0xa000);
	t_wait_granted(_metadata, self->fd[0], h[0], GSP_SLOW_NS);
	for (j = 0; j < 4; j++)
		for (t = 1; t < 4; t++) {
			tags[n] = 0xb000 + t * 0x100 + j;
			h[n] = t_dsubmit(_metadata, self->fd[t], t, so[t],
					 5000, tags[n]);
			n++;
		}
	ASSERT_EQ(13, n);
	for (j = 0; j < n; j++) {
		t = j ? 1 + (j - 1) % 3 : 0;
		ASSERT_EQ(0, t_wait_end(_metadata, self->fd[t], h[j],
					30 * NSEC_PER_SEC, &w));
		ASSERT_LE((j ? 5000 : 200000) * 1000ULL, w.gpu_ns);
		ASSERT_LE(w.gpu_ns, w.latency_ns);
		if (t == 1)
			sum += w.gpu_ns;
	}
	for (t = 0; t < 4; t++)
		ASSERT_OK(syncobj_signalled(self->drm[t], so[t]));
	testdrm_info(_metadata, self->drm[0], &i1, 0);
	ASSERT_EQ(i0.submitted + n, i1.submitted);
	ASSERT_EQ(0, i1.inflight);
	/* gspace forwards a job only once the one before has ended. */
	ASSERT_EQ(1, i1.max_inflight);
	for (j = 0; j < n; j++) {
		uint64_t got = i1.log[(i0.submitted + j) % GSP_TESTDRM_LOG];

		if (got != tags[j])
			gsp_diag("driver's job %d: tag 0x%llx, expected 0x%llx",
				 j, (unsigned long long)got,
				 (unsigned long long)tags[j]);
		ASSERT_EQ(tags[j], got);
	}
	/* What WAIT reported is what STATS charged. */
	t_stats(_metadata, self->fd[1], &st);
	ASSERT_EQ(sum, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
	ASSERT_EQ(4, st.completed);
}

/* The gspace out-fence, the in-fence and the driver's error. */
TEST_F_TIMEOUT(drm, fences_and_driver_errors, 60)
{
	struct drm_gsp_testdrm_submit p;
	struct gspace_drm_submit s;
	struct gspace_wait w;
	uint64_t ts;
	uint32_t so;
	uint64_t h;
	int out;

	ASSERT_OK(bind_raw(self->fd[0], self->drm[0],
			   GSPACE_DRM_ADAPTER_TESTDRM, 3));
	so = syncobj_new(_metadata, self->drm[0]);

	/* A sync_file out-fence that signals when the driver's does. */
	payload_init(&p, 3, so, 20000, 1);
	dsubmit_init(&s, &p, sizeof(p), 0);
	s.flags = GSPACE_SUBMIT_FENCE_OUT;
	ASSERT_OK(dsubmit_raw(self->fd[0], &s));
	out = s.out_fence_fd;
	ASSERT_LE(0, out);
	ASSERT_EQ(1, fence_readable(out, 10000));
	ASSERT_EQ(1, fence_info(_metadata, out, &ts));
	ASSERT_OK(syncobj_signalled(self->drm[0], so));
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0], s.handle, GSP_SLOW_NS,
				&w));

	/* That fence as the in-fence of the next, with CHAIN. */
	payload_init(&p, 3, so, 1000, 2);
	dsubmit_init(&s, &p, sizeof(p), 0);
	s.flags = GSPACE_SUBMIT_FENCE_IN | GSPACE_SUBMIT_CHAIN;
	s.in_fence_fd = out;
	ASSERT_OK(dsubmit_raw(self->fd[0], &s));
	close(out);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0], s.handle, GSP_SLOW_NS,
				NULL));

	/* The driver's fence signals -EIO: so does the job. */
	payload_init(&p, 3, so, 1000, 3);
	p.flags = GSP_TESTDRM_SUBMIT_FAIL;
	dsubmit_init(&s, &p, sizeof(p), 0);
	s.flags = GSPACE_SUBMIT_FENCE_OUT;
	ASSERT_OK(dsubmit_raw(self->fd[0], &s));
	ASSERT_EQ(-EIO, t_wait_end(_metadata, self->fd[0], s.handle,
				   GSP_SLOW_NS, NULL));
	ASSERT_EQ(-EIO, fence_info(_metadata, s.out_fence_fd, &ts));
	close(s.out_fence_fd);

	/*
	 * The driver refuses the forward: the syncobj went between submit
	 * and grant. The job ends with the driver's error, nothing waits.
	 */
	h = t_dsubmit(_metadata, self->fd[0], 3, so, 100000, 4);
	t_wait_granted(_metadata, self->fd[0], h, GSP_SLOW_NS);
	{
		uint32_t gone = syncobj_new(_metadata, self->drm[0]);
		uint64_t h2 = t_dsubmit(_metadata, self->fd[0], 3, gone, 1000,
					5);

		ASSERT_OK(syncobj_destroy(self->drm[0], gone));
		ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0], h,
					GSP_SLOW_NS, NULL));
		ASSERT_EQ(-ENOENT, t_wait_end(_metadata, self->fd[0], h2,
					      GSP_SLOW_NS, NULL));
	}
	/* COMPLETE is the lease engine's; CANCEL only before the grant. */
	h = t_dsubmit(_metadata, self->fd[0], 3, so, 100000, 6);
	t_wait_granted(_metadata, self->fd[0], h, GSP_SLOW_NS);
	ASSERT_ERRNO(EINVAL, complete_raw(self->fd[0], h, 1, 0));
	ASSERT_ERRNO(EBUSY, cancel_raw(self->fd[0], h));
	{
		uint64_t h2 = t_dsubmit(_metadata, self->fd[0], 3, so, 1000, 7);

		ASSERT_OK(cancel_raw(self->fd[0], h2));
		ASSERT_EQ(-ECANCELED, t_wait_end(_metadata, self->fd[0], h2,
						 GSP_SLOW_NS, NULL));
	}
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0], h, GSP_SLOW_NS, NULL));
}

/* Every malformed request fails with its errno and leaves nothing. */
TEST_F_TIMEOUT(drm, malformed_requests, 60)
{
	struct drm_gsp_testdrm_info i0, i1;
	struct drm_gsp_testdrm_submit p;
	struct gspace_drm_submit s;
	struct gspace_drm_bind b;
	struct gspace_stats st;
	uint8_t big[GSPACE_DRM_PAYLOAD_MAX + 8];
	int nul, pfd[2], card;
	uint32_t so;

	testdrm_info(_metadata, self->drm[0], &i0, 0);
	so = syncobj_new(_metadata, self->drm[0]);

	/* DRM_SUBMIT before any DRM_BIND. */
	payload_init(&p, 0, so, 1000, 1);
	dsubmit_init(&s, &p, sizeof(p), 0);
	ASSERT_ERRNO(ENOLINK, dsubmit_raw(self->fd[0], &s));

	/* DRM_BIND: the fd. */
	ASSERT_ERRNO(EBADF, bind_raw(self->fd[0], -1, 1, 0));
	ASSERT_ERRNO(EBADF, bind_raw(self->fd[0], 1000000, 1, 0));
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, nul);
	ASSERT_ERRNO(ENOTTY, bind_raw(self->fd[0], nul, 1, 0));
	close(nul);
	ASSERT_OK(pipe(pfd));
	ASSERT_ERRNO(ENOTTY, bind_raw(self->fd[0], pfd[0], 1, 0));
	close(pfd[0]);
	close(pfd[1]);
	if (!gsp_on_daemon())
		ASSERT_ERRNO(ENOTTY, bind_raw(self->fd[0], self->fd[1], 1, 0));
	/* The primary node of the same device: render nodes only. */
	card = open_testdrm("/dev/dri/card", 0, 63);
	if (card >= 0) {
		ASSERT_ERRNO(EACCES, bind_raw(self->fd[0], card,
					      GSPACE_DRM_ADAPTER_TESTDRM, 0));
		close(card);
	} else {
		gsp_diag("gsp-testdrm's card node not opened (%s): EACCES not checked",
			 strerror(errno));
	}
	/* The test driver's node, bound with the nouveau adapter. */
	ASSERT_ERRNO(ENXIO, bind_raw(self->fd[0], self->drm[0],
				     GSPACE_DRM_ADAPTER_NOUVEAU, 0));
	/* The adapter, the channel, the flags, the padding, the size. */
	ASSERT_ERRNO(EINVAL, bind_raw(self->fd[0], self->drm[0], 0, 0));
	ASSERT_ERRNO(EINVAL, bind_raw(self->fd[0], self->drm[0], 99, 0));
	ASSERT_ERRNO(EINVAL, bind_raw(self->fd[0], self->drm[0],
				      GSPACE_DRM_ADAPTER_TESTDRM,
				      GSP_TESTDRM_CONTEXTS));
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.drm_fd = self->drm[0];
	b.adapter = GSPACE_DRM_ADAPTER_TESTDRM;
	b.flags = 1U << 7;
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd[0], GSPACE_IOCTL_DRM_BIND, &b));
	b.flags = 0;
	b.pad = 1;
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd[0], GSPACE_IOCTL_DRM_BIND, &b));
	b.pad = 0;
	b.size = offsetof(struct gspace_drm_bind, pad);
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd[0], GSPACE_IOCTL_DRM_BIND, &b));
	b.size = sizeof(b);
	b.flags = GSPACE_DRM_BIND_UNBIND;
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd[0], GSPACE_IOCTL_DRM_BIND, &b));
	/* None of those bound anything. */
	ASSERT_ERRNO(ENOLINK, dsubmit_raw(self->fd[0], &s));

	ASSERT_OK(bind_raw(self->fd[0], self->drm[0],
			   GSPACE_DRM_ADAPTER_TESTDRM, 0));
	/* DRM_SUBMIT: gspace's own fields. */
	dsubmit_init(&s, &p, 0, 0);
	ASSERT_ERRNO(EINVAL, dsubmit_raw(self->fd[0], &s));
	memset(big, 0, sizeof(big));
	memcpy(big, &p, sizeof(p));
	dsubmit_init(&s, big, GSPACE_DRM_PAYLOAD_MAX + 1, 0);
	ASSERT_ERRNO(E2BIG, dsubmit_raw(self->fd[0], &s));
	dsubmit_init(&s, &p, sizeof(p), 0);
	s.flags = GSPACE_SUBMIT_TASK_HEAD;
	ASSERT_ERRNO(EINVAL, dsubmit_raw(self->fd[0], &s));
	dsubmit_init(&s, &p, sizeof(p), 0);
	s.pad = 1;
	ASSERT_ERRNO(EINVAL, dsubmit_raw(self->fd[0], &s));
	dsubmit_init(&s, &p, sizeof(p), 0);
	s.in_fence_fd = 3;
	ASSERT_ERRNO(EINVAL, dsubmit_raw(self->fd[0], &s));
	dsubmit_init(&s, &p, sizeof(p), GSPACE_COST_MAX_NS + 1);
	ASSERT_ERRNO(EINVAL, dsubmit_raw(self->fd[0], &s));
	dsubmit_init(&s, (void *)16, sizeof(p), 0);
	ASSERT_ERRNO(EFAULT, dsubmit_raw(self->fd[0], &s));
	/* The payload's layout, as the adapter knows it. */
	dsubmit_init(&s, big, sizeof(p) + 8, 0);
	ASSERT_ERRNO(EINVAL, dsubmit_raw(self->fd[0], &s));
	dsubmit_init(&s, &p, sizeof(p) - 8, 0);
	ASSERT_ERRNO(EINVAL, dsubmit_raw(self->fd[0], &s));
	dsubmit_init(&s, &p, sizeof(p), 0);
	p.size = sizeof(p) - 8;
	ASSERT_ERRNO(EINVAL, dsubmit_raw(self->fd[0], &s));
	payload_init(&p, 0, so, 1000, 1);
	p.flags = 1U << 5;
	ASSERT_ERRNO(EINVAL, dsubmit_raw(self->fd[0], &s));
	payload_init(&p, 1, so, 1000, 1);	/* not the bound channel */
	ASSERT_ERRNO(EINVAL, dsubmit_raw(self->fd[0], &s));
	payload_init(&p, 0, so, GSP_TESTDRM_MAX_US + 1, 1);
	ASSERT_ERRNO(EINVAL, dsubmit_raw(self->fd[0], &s));
	payload_init(&p, 0, so, 1000, 1);
	p.seqno = 1;				/* an out field */
	ASSERT_ERRNO(EINVAL, dsubmit_raw(self->fd[0], &s));
	payload_init(&p, 0, so + 1000, 1000, 1);	/* no such syncobj */
	ASSERT_ERRNO(ENOENT, dsubmit_raw(self->fd[0], &s));
	payload_init(&p, 0, 0, 1000, 1);
	ASSERT_ERRNO(ENOENT, dsubmit_raw(self->fd[0], &s));
	/* A handle of another file does not exist in the bound one. */
	syncobj_new(_metadata, self->drm[1]);
	syncobj_new(_metadata, self->drm[1]);
	payload_init(&p, 0, syncobj_new(_metadata, self->drm[1]), 1000, 1);
	ASSERT_LT(so, p.out_syncobj);
	ASSERT_ERRNO(ENOENT, dsubmit_raw(self->fd[0], &s));

	/* Nothing was queued, nothing reached the driver. */
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_EQ(0, st.queued);
	ASSERT_EQ(0, st.completed);
	testdrm_info(_metadata, self->drm[0], &i1, 0);
	ASSERT_EQ(i0.submitted, i1.submitted);
	/* And the binding still works. */
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0],
				t_dsubmit(_metadata, self->fd[0], 0, so, 1000, 9),
				GSP_SLOW_NS, NULL));
	testdrm_info(_metadata, self->drm[0], &i1, 0);
	ASSERT_EQ(i0.submitted + 1, i1.submitted);
}

/*
 * The binding holds the DRM file: jobs still run after the tenant closed
 * its fd. Unbinding (or binding anew) ends the jobs not yet forwarded
 * with ENOLINK; the one the driver runs completes.
 */
TEST_F_TIMEOUT(drm, drm_fd_closed_and_unbound, 60)
{
	struct drm_gsp_testdrm_info i0, i1;
	uint64_t h[4];
	uint32_t so;
	int j;

	so = syncobj_new(_metadata, self->drm[1]);
	ASSERT_OK(bind_raw(self->fd[1], self->drm[1],
			   GSPACE_DRM_ADAPTER_TESTDRM, 2));
	/* Queue, then close the DRM fd. */
	for (j = 0; j < 3; j++)
		h[j] = t_dsubmit(_metadata, self->fd[1], 2, so, 10000, 0xc0 + j);
	ASSERT_OK(close(self->drm[1]));
	self->drm[1] = -1;
	for (j = 0; j < 3; j++)
		ASSERT_EQ(0, t_wait_end(_metadata, self->fd[1], h[j],
					GSP_SLOW_NS, NULL));
	/* Still bound: submit more, then unbind with them queued. */
	testdrm_info(_metadata, self->drm[0], &i0, 0);
	for (j = 0; j < 4; j++)
		h[j] = t_dsubmit(_metadata, self->fd[1], 2, so, 100000,
				 0xd0 + j);
	t_wait_granted(_metadata, self->fd[1], h[0], GSP_SLOW_NS);
	/* Granted, then forwarded by a worker: wait for the driver. */
	for (j = 0; j < 500; j++) {
		testdrm_info(_metadata, self->drm[0], &i1, 0);
		if (i1.submitted > i0.submitted)
			break;
		sleep_ms(2);
	}
	ASSERT_EQ(i0.submitted + 1, i1.submitted);
	ASSERT_OK(unbind_raw(self->fd[1]));
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[1], h[0], GSP_SLOW_NS,
				NULL));
	for (j = 1; j < 4; j++) {
		int st = t_wait_end(_metadata, self->fd[1], h[j], GSP_SLOW_NS,
				    NULL);

		ASSERT_EQ(-ENOLINK, st);
	}
	testdrm_info(_metadata, self->drm[0], &i1, 0);
	ASSERT_EQ(i0.submitted + 1, i1.submitted);
	ASSERT_ERRNO(ENOLINK, dsubmit_raw(self->fd[1],
					  &(struct gspace_drm_submit){
						.size = sizeof(struct gspace_drm_submit),
						.payload_size = 8,
						.payload_ptr = (uintptr_t)&i1,
					  }));
	/* Unbinding twice is fine. */
	ASSERT_OK(unbind_raw(self->fd[1]));
}

/*
 * A tenant dies with a job in the driver and more queued: its queued jobs
 * never reach the driver, the engine stays held until the driver is done
 * with the running one (never two jobs in the driver at once), and
 * another tenant's job then runs. Then tenants are killed anywhere in a
 * loop of requests. As root, gspace's objects go back to where they were
 * (the bindings' release is checked by the modules' unload: each pins
 * gspace_drm.ko and the driver).
 */
TEST_F_TIMEOUT(drm, tenant_dies_mid_submission, 180)
{
	struct drm_gsp_testdrm_info i0, i1;
	struct gsp_objects base, now;
	int have_objects = 0, round;

	/*
	 * The survivor's binding and its last fence (kept for CHAIN) exist
	 * before the baseline: only the dead tenant's things are counted.
	 */
	ASSERT_OK(bind_raw(self->fd[2], self->drm[2],
			   GSPACE_DRM_ADAPTER_TESTDRM, 6));
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[2],
				t_dsubmit(_metadata, self->fd[2], 6,
					  syncobj_new(_metadata, self->drm[2]),
					  1000, 0xeff),
				GSP_SLOW_NS, NULL));
	if (geteuid() == 0 && !gsp_on_daemon()) {
		t_objects_baseline(_metadata, &base);
		have_objects = 1;
	}
	for (round = 0; round < 8; round++) {
		int go[2], status;
		uint64_t h;
		pid_t pid;
		uint32_t so;
		char c;

		testdrm_info(_metadata, self->drm[0], &i0,
			     GSP_TESTDRM_INFO_RESET);
		ASSERT_OK(pipe(go));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			int fd = gsp_open(), drm = open_render(), j;
			struct drm_gsp_testdrm_submit p;
			struct gspace_drm_submit s;
			uint32_t cso;
			struct t_drm_syncobj_create cc = { 0 };

			if (fd < 0 || drm < 0 || ctx_set_raw(fd, 0, 0, 100, 0) ||
			    bind_raw(fd, drm, GSPACE_DRM_ADAPTER_TESTDRM, 5) ||
			    ioctl(drm, T_DRM_IOCTL_SYNCOBJ_CREATE, &cc))
				_exit(2);
			cso = cc.handle;
			close(drm);	/* the binding keeps it */
			for (j = 0; j < 5; j++) {
				payload_init(&p, 5, cso, 300000, 0xe00 + j);
				dsubmit_init(&s, &p, sizeof(p), 0);
				if (dsubmit_raw(fd, &s))
					_exit(3);
			}
			if (write(go[1], "x", 1) != 1)
				_exit(4);
			pause();
			_exit(0);
		}
		close(go[1]);
		ASSERT_EQ(1, read(go[0], &c, 1));
		close(go[0]);
		/* 0 to 35 ms into the child's first job, of 300 ms. */
		sleep_ms(round * 5);
		ASSERT_OK(kill(pid, SIGKILL));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFSIGNALED(status));

		/* Another tenant is served, after the driver is done. */
		so = syncobj_new(_metadata, self->drm[2]);
		h = t_dsubmit(_metadata, self->fd[2], 6, so, 1000, 0xf00 + round);
		ASSERT_EQ(0, t_wait_end(_metadata, self->fd[2], h,
					10 * NSEC_PER_SEC, NULL));
		testdrm_info(_metadata, self->drm[0], &i1, 0);
		/* The dead tenant's first job, at most, then ours. */
		ASSERT_GE(i0.submitted + 2, i1.submitted);
		if (i1.submitted == i0.submitted + 2)
			ASSERT_EQ(0xe00, i1.log[i0.submitted % GSP_TESTDRM_LOG]);
		ASSERT_EQ(0xf00 + round,
			  i1.log[(i1.submitted - 1) % GSP_TESTDRM_LOG]);
		ASSERT_EQ(1, i1.max_inflight);
	}
	/*
	 * Tenants killed anywhere in a loop of DRM_BIND, DRM_SUBMIT and WAIT
	 * (inside the ioctls too): the survivor is still served.
	 */
	for (round = 0; round < 10; round++) {
		uint64_t h;
		pid_t pid;
		int status;

		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			struct drm_gsp_testdrm_submit p;
			struct gspace_drm_submit s;
			struct t_drm_syncobj_create cc = { 0 };
			int fd, drm;

			for (;;) {
				fd = gsp_open();
				drm = open_render();
				if (fd < 0 || drm < 0 ||
				    ctx_set_raw(fd, 0, 0, 100, 0) ||
				    bind_raw(fd, drm, GSPACE_DRM_ADAPTER_TESTDRM,
					     7) ||
				    ioctl(drm, T_DRM_IOCTL_SYNCOBJ_CREATE, &cc))
					_exit(2);
				payload_init(&p, 7, cc.handle, 200, 0xd00);
				dsubmit_init(&s, &p, sizeof(p), 0);
				if (dsubmit_raw(fd, &s) ||
				    wait_raw(fd, s.handle, 0,
					     now_ns() + 5 * NSEC_PER_SEC, NULL))
					_exit(3);
				dsubmit_raw(fd, &s);	/* left queued */
				close(drm);
				gsp_close(fd);
			}
		}
		sleep_ms(10 + 7 * round);
		ASSERT_OK(kill(pid, SIGKILL));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFSIGNALED(status));
		h = t_dsubmit(_metadata, self->fd[2], 6,
			      syncobj_new(_metadata, self->drm[2]), 1000,
			      0xf80 + round);
		ASSERT_EQ(0, t_wait_end(_metadata, self->fd[2], h,
					10 * NSEC_PER_SEC, NULL));
	}
	if (have_objects) {
		if (!objects_settle(&base, &now, 5000))
			gsp_diag("objects: contexts %lld jobs %lld fences %lld, were %lld %lld %lld",
				 now.contexts, now.jobs, now.fences,
				 base.contexts, base.jobs, base.fences);
		ASSERT_EQ(base.contexts, now.contexts);
		ASSERT_EQ(base.jobs, now.jobs);
		ASSERT_EQ(base.fences, now.fences);
	}
}

TEST_HARNESS_MAIN
