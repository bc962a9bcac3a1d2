// SPDX-License-Identifier: GPL-2.0
/*
 * The drm engine under the scheduler (Documentation/drm.rst), on
 * gsp-testdrm, the TEST DEVICE: BAND shares of drm tenants, LC priority
 * over BE, the watchdog bounding a late driver's jobs and a dead
 * tenant's hold, and gspace_drm.ko's unload with bound files. Forwarding
 * and lifetimes are gspace_drm_test.c; it skips where that one does.
 */
#include "gsp_drm.h"

/*
 * BAND between drm tenants of weights 1, 2 and 5 that always have work
 * queued (BAND_DEPTH jobs each): BAND's contract is then that each gets
 * its weight's share of the charged time, w / sum(w), within 2 points in
 * every window (the sim engine's 100 ms windows, Documentation/
 * scheduler.rst, scaled to the job length).
 *
 * Sizes: the charge of a drm job is the driver's time, and TCG's timers
 * make a 10 ms job of the TEST DEVICE cost anything from 10 to 40 ms on
 * 6.12. Jobs of 40 ms, a BAND period of 10 of them (400 ms), windows of
 * 16 s: one job is a quarter of a point of a window, and a window holds a
 * whole number of periods, since where a window cuts a period moves a
 * share by up to a job or two (with 5 s windows, 12.5 periods, the last
 * of three windows came out 1.6 to 2.0 points off in three runs of four;
 * with 8 s windows, beside a host busy with another build, one came out
 * 2.25 points off, 60.25 % against 62.5 %). gsp-sim,
 * which gspace_fairness_test uses as its reference, was no better here:
 * modelling the engine's charge by its mean and spread, it put the
 * heaviest tenant 1.4 to 2.2 points under its weight where the kernel was
 * within 1.
 */
#define BAND_TENANTS	3
#define BAND_DEPTH	3
#define BAND_JOB_US	40000
#define BAND_PERIOD_US	400000
#define BAND_WARMUP_MS	1000
#define BAND_WINDOW_MS	16000
#define BAND_WINDOWS	2

/* A thread that keeps BAND_DEPTH jobs submitted for one tenant. */
struct band_tenant {
	int fd;
	uint32_t context, so;
	const volatile int *stop;
	int err;
	int status;
	uint64_t jobs, sum_ns, min_ns, max_ns;	/* jobs' charges */
};

static void *band_loop(void *arg)
{
	struct band_tenant *t = arg;
	struct drm_gsp_testdrm_submit p;
	struct gspace_drm_submit s;
	struct gspace_wait w;
	uint64_t q[BAND_DEPTH];
	int n = 0, i = 0;

	while (!*t->stop) {
		if (n == BAND_DEPTH) {
			if (wait_raw(t->fd, q[i], 0,
				     now_ns() + 30 * NSEC_PER_SEC, &w)) {
				t->err = errno;
				break;
			}
			if (w.status) {
				t->status = w.status;
				break;
			}
			i = (i + 1) % BAND_DEPTH;
			n--;
			t->jobs++;
			t->sum_ns += w.gpu_ns;
			if (!t->min_ns || w.gpu_ns < t->min_ns)
				t->min_ns = w.gpu_ns;
			if (w.gpu_ns > t->max_ns)
				t->max_ns = w.gpu_ns;
		}
		payload_init(&p, t->context, t->so, BAND_JOB_US, t->context);
		dsubmit_init(&s, &p, sizeof(p), BAND_JOB_US * 1000ULL);
		if (dsubmit_raw(t->fd, &s)) {
			t->err = errno;
			break;
		}
		q[(i + n) % BAND_DEPTH] = s.handle;
		n++;
	}
	return NULL;
}

static double band_tol(void)
{
	const char *e = getenv("GSP_FAIR_TOL_PP");
	char *end;
	double v;

	if (!e)
		return DRM_FAIR_TOL_PP;
	v = strtod(e, &end);
	return *e && !*end && v > 0 && v <= 10 ? v : -1;
}

TEST_F_TIMEOUT(drm, band_fairness, 120)
{
	static const uint32_t weight[BAND_TENANTS] = { 100, 200, 500 };
	struct gspace_stats st[BAND_TENANTS][BAND_WINDOWS + 1];
	struct band_tenant bt[BAND_TENANTS];
	pthread_t th[BAND_TENANTS];
	volatile int stop = 0;
	double tol = band_tol();
	uint32_t wsum = 0;
	uint64_t t0;
	char text[32];
	int t, k, bad = 0;

	ASSERT_LT(0, tol);
	t_knob_save(_metadata, "policy", self->policy, sizeof(self->policy));
	t_knob_save(_metadata, "period_us", self->period,
		    sizeof(self->period));
	t_knob_save(_metadata, "band_wait_us", self->band_wait,
		    sizeof(self->band_wait));
	ASSERT_EQ(0, knob_write("band_wait_us", "1"));
	snprintf(text, sizeof(text), "%u", BAND_PERIOD_US);
	ASSERT_EQ(0, knob_write("period_us", text));
	ASSERT_EQ(0, knob_write("band_wait_us", "20000"));
	ASSERT_EQ(0, knob_write("policy", "band"));

	memset(bt, 0, sizeof(bt));
	for (t = 0; t < BAND_TENANTS; t++) {
		t_ctx(_metadata, self->fd[t], 0, weight[t]);
		ASSERT_OK(bind_raw(self->fd[t], self->drm[t],
				   GSPACE_DRM_ADAPTER_TESTDRM, 8 + t));
		bt[t].fd = self->fd[t];
		bt[t].context = 8 + t;
		bt[t].so = syncobj_new(_metadata, self->drm[t]);
		bt[t].stop = &stop;
		wsum += weight[t];
	}
	for (t = 0; t < BAND_TENANTS; t++)
		ASSERT_EQ(0, pthread_create(&th[t], NULL, band_loop, &bt[t]));
	t0 = now_ns();
	for (k = 0; k <= BAND_WINDOWS; k++) {
		while (now_ns() < t0 + (BAND_WARMUP_MS +
					(uint64_t)k * BAND_WINDOW_MS) * MS)
			sleep_ms(5);
		for (t = 0; t < BAND_TENANTS; t++)
			t_stats(_metadata, self->fd[t], &st[t][k]);
	}
	stop = 1;
	for (t = 0; t < BAND_TENANTS; t++)
		pthread_join(th[t], NULL);
	for (t = 0; t < BAND_TENANTS; t++) {
		if (bt[t].err || bt[t].status)
			gsp_diag("tenant %d: errno %d (%s), job status %d", t,
				 bt[t].err, gsp_errname(bt[t].err),
				 bt[t].status);
		ASSERT_EQ(0, bt[t].err);
		ASSERT_EQ(0, bt[t].status);
		ASSERT_LT(0, bt[t].jobs);
		gsp_diag("tenant %d: %llu jobs of %u us charged %.2f ms each on average, %.1f to %.1f ms",
			 t, (unsigned long long)bt[t].jobs, BAND_JOB_US,
			 bt[t].sum_ns / 1e6 / bt[t].jobs, bt[t].min_ns / 1e6,
			 bt[t].max_ns / 1e6);
		ASSERT_LE(BAND_JOB_US * 1000ULL, bt[t].min_ns);
	}
	for (k = 1; k <= BAND_WINDOWS; k++) {
		uint64_t d[BAND_TENANTS], sum = 0;

		for (t = 0; t < BAND_TENANTS; t++) {
			d[t] = st[t][k].gpu_ns[GSPACE_ENGINE_COMPUTE] -
			       st[t][k - 1].gpu_ns[GSPACE_ENGINE_COMPUTE];
			sum += d[t];
		}
		ASSERT_LT(0, sum);
		for (t = 0; t < BAND_TENANTS; t++) {
			double want = 100.0 * weight[t] / wsum;
			double got = 100.0 * (double)d[t] / (double)sum;

			gsp_diag("window %d: tenant %d weight %u: %.2f%% of %.1f ms (want %.2f%% +- %.1f)",
				 k, t, weight[t], got, sum / 1e6, want, tol);
			if (got - want > tol || want - got > tol)
				bad = 1;
		}
	}
	ASSERT_FALSE(bad);
}

/*
 * An LC tenant's drm job goes ahead of a BE tenant's queued ones: it is
 * the next job the driver sees once the running one ends. The same
 * tenant as BE waits behind them (the control: the test can tell).
 */
TEST_F_TIMEOUT(drm, lc_priority_over_be, 60)
{
	struct drm_gsp_testdrm_info i0, i1;
	uint32_t so_be, so_lc;
	uint64_t h[8], hl;
	int j, lc, pos;

	if (!self->info.v.lc_allowed)
		SKIP("this caller may not use GSPACE_CLASS_LC");
	need_fifo(_metadata, self);
	ASSERT_OK(bind_raw(self->fd[0], self->drm[0],
			   GSPACE_DRM_ADAPTER_TESTDRM, 12));
	ASSERT_OK(bind_raw(self->fd[1], self->drm[1],
			   GSPACE_DRM_ADAPTER_TESTDRM, 13));
	so_be = syncobj_new(_metadata, self->drm[0]);
	so_lc = syncobj_new(_metadata, self->drm[1]);
	for (lc = 1; lc >= 0; lc--) {
		ASSERT_OK(ctx_set_raw(self->fd[1], 0,
				      lc ? GSPACE_CLASS_LC : GSPACE_CLASS_BE,
				      100, 0));
		testdrm_info(_metadata, self->drm[0], &i0, 0);
		for (j = 0; j < 8; j++)
			h[j] = t_dsubmit(_metadata, self->fd[0], 12, so_be,
					 20000, 0x100 + j);
		t_wait_granted(_metadata, self->fd[0], h[0], GSP_SLOW_NS);
		hl = t_dsubmit(_metadata, self->fd[1], 13, so_lc, 1000, 0x200);
		ASSERT_EQ(0, t_wait_end(_metadata, self->fd[1], hl,
					30 * NSEC_PER_SEC, NULL));
		for (j = 0; j < 8; j++)
			ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0], h[j],
						30 * NSEC_PER_SEC, NULL));
		testdrm_info(_metadata, self->drm[0], &i1, 0);
		ASSERT_EQ(i0.submitted + 9, i1.submitted);
		for (pos = 0; pos < 9; pos++)
			if (i1.log[(i0.submitted + pos) % GSP_TESTDRM_LOG] ==
			    0x200)
				break;
		gsp_diag("%s tenant's job reached the driver at %d of 9",
			 lc ? "LC" : "BE", pos);
		if (lc)
			ASSERT_GE(2, pos);	/* after the running BE job */
		else
			ASSERT_EQ(8, pos);	/* FIFO: after every BE job */
	}
}

/*
 * The lease watchdog bounds a drm job whose driver is late: the job ends
 * with ETIMEDOUT, the engine goes on and the tenant is not marked hung.
 * It bounds the hold of a dead tenant's job too: the next tenant's job is
 * forwarded a watchdog period after the grant, not when the driver ends.
 */
TEST_F_TIMEOUT(drm, watchdog_bounds_late_drivers, 60)
{
	struct drm_gsp_testdrm_info info;
	struct gspace_stats st;
	struct gspace_wait w;
	uint32_t so;
	uint64_t h1, h2, t0;
	int go[2], status;
	pid_t pid;
	char c;

	t_knob_save(_metadata, "watchdog_ms", self->watchdog,
		    sizeof(self->watchdog));
	ASSERT_EQ(0, knob_write("watchdog_ms", "300"));
	ASSERT_OK(bind_raw(self->fd[0], self->drm[0],
			   GSPACE_DRM_ADAPTER_TESTDRM, 4));
	so = syncobj_new(_metadata, self->drm[0]);

	/* 2 s in the driver, against a 300 ms watchdog. */
	h1 = t_dsubmit(_metadata, self->fd[0], 4, so, 2000000, 0x400);
	h2 = t_dsubmit(_metadata, self->fd[0], 4, so, 1000, 0x401);
	ASSERT_EQ(-ETIMEDOUT, t_wait_end(_metadata, self->fd[0], h1,
					 10 * NSEC_PER_SEC, &w));
	ASSERT_LE(300 * MS, w.gpu_ns);
	ASSERT_GT(2000 * MS, w.gpu_ns);
	/* Forwarded at once, then queued in the driver behind the first. */
	ASSERT_EQ(-ETIMEDOUT, t_wait_end(_metadata, self->fd[0], h2,
					 10 * NSEC_PER_SEC, NULL));
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_EQ(0, st.ctx_flags & GSPACE_CTX_F_HUNG);
	testdrm_quiesce(_metadata, self->drm[0]);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0],
				t_dsubmit(_metadata, self->fd[0], 4, so, 1000,
					  0x402),
				GSP_SLOW_NS, NULL));

	/* A dead tenant's 3 s job holds the engine for 300 ms, not 3 s. */
	ASSERT_OK(pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = gsp_open(), drm = open_render();
		struct t_drm_syncobj_create cc = { 0 };
		struct drm_gsp_testdrm_submit p;
		struct gspace_drm_submit s;

		if (fd < 0 || drm < 0 || ctx_set_raw(fd, 0, 0, 100, 0) ||
		    bind_raw(fd, drm, GSPACE_DRM_ADAPTER_TESTDRM, 5) ||
		    ioctl(drm, T_DRM_IOCTL_SYNCOBJ_CREATE, &cc))
			_exit(2);
		payload_init(&p, 5, cc.handle, 3000000, 0x500);
		dsubmit_init(&s, &p, sizeof(p), 0);
		if (dsubmit_raw(fd, &s))
			_exit(3);
		if (write(go[1], "x", 1) != 1)
			_exit(4);
		pause();
		_exit(0);
	}
	close(go[1]);
	ASSERT_EQ(1, read(go[0], &c, 1));
	close(go[0]);
	/* The driver has it: the kill leaves the engine held. */
	for (t0 = now_ns(); now_ns() < t0 + 5 * NSEC_PER_SEC; sleep_ms(5)) {
		testdrm_info(_metadata, self->drm[0], &info, 0);
		if (info.submitted &&
		    info.log[(info.submitted - 1) % GSP_TESTDRM_LOG] == 0x500)
			break;
	}
	ASSERT_EQ(0x500, info.log[(info.submitted - 1) % GSP_TESTDRM_LOG]);
	t0 = now_ns();
	ASSERT_OK(kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_OK(bind_raw(self->fd[1], self->drm[0],
			   GSPACE_DRM_ADAPTER_TESTDRM, 6));
	so = syncobj_new(_metadata, self->drm[0]);
	h1 = t_dsubmit(_metadata, self->fd[1], 6, so, 1000, 0x403);
	/* Granted once the hold ends, then late in the driver: ETIMEDOUT. */
	ASSERT_EQ(-ETIMEDOUT, t_wait_end(_metadata, self->fd[1], h1,
					 10 * NSEC_PER_SEC, &w));
	gsp_diag("the next tenant's job ended %.0f ms after the kill",
		 (now_ns() - t0) / 1e6);
	ASSERT_GT(2500 * MS, now_ns() - t0);
	testdrm_quiesce(_metadata, self->drm[0]);
}

static int finit_module_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = (int)syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return r;
}

static int delete_module(const char *name)
{
	return (int)syscall(SYS_delete_module, name, O_NONBLOCK);
}

/*
 * Neither gspace_drm.ko nor the driver unloads while a DRM file is bound;
 * once its tenant is gone, gspace_drm.ko unloads (DRM_BIND then gives
 * EOPNOTSUPP) and loads again.
 */
TEST_F_TIMEOUT(drm, module_unload_with_bound_files, 60)
{
	const char *ko = getenv("GSP_DRM_KO");
	struct gspace_version v;
	uint64_t end;
	uint32_t so;
	int r;

	REQUIRE_ROOT();
	if (!ko || !*ko)
		ko = DRM_KO_DEFAULT;
	if (access(ko, R_OK))
		SKIP("no %s to load gspace_drm.ko again from (GSP_DRM_KO)",
		     ko);
	ASSERT_OK(bind_raw(self->fd[3], self->drm[3],
			   GSPACE_DRM_ADAPTER_TESTDRM, 15));
	so = syncobj_new(_metadata, self->drm[3]);
	t_dsubmit(_metadata, self->fd[3], 15, so, 300000, 0x300);
	t_dsubmit(_metadata, self->fd[3], 15, so, 1000, 0x301);
	close(self->drm[3]);
	self->drm[3] = -1;

	r = delete_module("gspace_drm");
	ASSERT_EQ(-1, r);
	ASSERT_TRUE(errno == EWOULDBLOCK || errno == EBUSY);
	r = delete_module("gsp_testdrm");
	ASSERT_EQ(-1, r);
	ASSERT_TRUE(errno == EWOULDBLOCK || errno == EBUSY);

	/* The tenant goes with a job in the driver and one queued. */
	t_close(&self->fd[3]);
	end = now_ns() + 10 * NSEC_PER_SEC;
	while ((r = delete_module("gspace_drm")) && now_ns() < end)
		sleep_ms(20);
	if (r)
		gsp_diag("delete_module(gspace_drm): %s", strerror(errno));
	ASSERT_OK(r);
	t_version(_metadata, self->fd[0], &v);
	ASSERT_EQ(0, v.features & GSPACE_FEAT_DRM);
	ASSERT_ERRNO(EOPNOTSUPP, bind_raw(self->fd[0], self->drm[0],
					  GSPACE_DRM_ADAPTER_TESTDRM, 0));
	ASSERT_OK(finit_module_path(ko));
	t_version(_metadata, self->fd[0], &v);
	ASSERT_NE(0, v.features & GSPACE_FEAT_DRM);
	ASSERT_OK(bind_raw(self->fd[0], self->drm[0],
			   GSPACE_DRM_ADAPTER_TESTDRM, 0));
	so = syncobj_new(_metadata, self->drm[0]);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0],
				t_dsubmit(_metadata, self->fd[0], 0, so, 1000,
					  0x302),
				GSP_SLOW_NS, NULL));
}

TEST_HARNESS_MAIN
