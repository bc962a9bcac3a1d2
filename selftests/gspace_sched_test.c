// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling: FIFO order across tenants, the lease engine (grants,
 * COMPLETE, errors, the watchdog), LC QoS accounting, and 64 tenants
 * hammering the arbiter at once.
 */
#include <pthread.h>
#include <stdint.h>

#include "gsp_util.h"

#define NT 4		/* tenants in the ordering tests */

FIXTURE(sched) {
	int fd[NT];
	struct gsp_info info;
	char policy[32];	/* saved knobs, restored in teardown */
	char watchdog[32];
};

FIXTURE_SETUP(sched)
{
	int i;

	for (i = 0; i < NT; i++)
		self->fd[i] = -1;
	for (i = 0; i < NT; i++)
		self->fd[i] = t_open(_metadata);
	t_info(_metadata, self->fd[0], &self->info);
}

FIXTURE_TEARDOWN(sched)
{
	int i;

	for (i = 0; i < NT; i++)
		if (self->fd[i] >= 0)
			gsp_close(self->fd[i]);
	if (self->policy[0])
		EXPECT_EQ(0, knob_write("policy", self->policy));
	if (self->watchdog[0])
		EXPECT_EQ(0, knob_write("watchdog_ms", self->watchdog));
}

static void need_lease(struct __test_meta *_metadata, FIXTURE_DATA(sched) *self)
{
	if (self->info.lease_dev < 0)
		SKIP("no lease device");
}

TEST_F(sched, fifo_completes_in_submission_order)
{
	enum { N = 16 };
	const uint64_t cost = 3 * NSEC_PER_MSEC;
	uint64_t h[N], sub[N], acked[N], first[N], last[N], blocker;
	int who[N], i;
	char cur[64];

	t_knob_save(_metadata, "policy", self->policy, sizeof(self->policy));
	ASSERT_EQ(0, knob_write("policy", "fifo"));
	ASSERT_EQ(0, knob_read("policy", cur, sizeof(cur)));
	knob_selected(cur, cur, sizeof(cur));
	ASSERT_EQ(0, strcmp(cur, "fifo"));

	/* Heavier weights must not matter under FIFO. */
	for (i = 0; i < NT; i++)
		t_ctx(_metadata, self->fd[i], 0, 100 + 3000 * i);
	/* Everything below queues behind this one. */
	blocker = t_submit(_metadata, self->fd[0], 100 * NSEC_PER_MSEC);
	for (i = 0; i < N; i++) {
		who[i] = (i * 3 + i / NT) % NT;
		sub[i] = now_ns();
		h[i] = t_submit(_metadata, self->fd[who[i]], cost);
		acked[i] = now_ns();
	}
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0], blocker, GSP_SLOW_NS,
				NULL));
	for (i = 0; i < N; i++) {
		struct gspace_wait w;

		ASSERT_EQ(0, t_wait_end(_metadata, self->fd[who[i]], h[i],
					GSP_SLOW_NS, &w));
		/*
		 * The scheduler took the job somewhere between the two
		 * clock reads around SUBMIT, so its end lies in
		 * [first, last]; on a loaded machine that window is wide.
		 */
		first[i] = sub[i] + w.latency_ns;
		last[i] = acked[i] + w.latency_ns;
	}
	/* Out of order only when a job surely ended after its successor. */
	for (i = 1; i < N; i++) {
		if (first[i - 1] > last[i])
			gsp_diag("job %d (tenant %d) ended %llu ns after job %d (tenant %d)",
				 i - 1, who[i - 1],
				 (unsigned long long)(first[i - 1] - last[i]),
				 i, who[i]);
		ASSERT_LE(first[i - 1], last[i]);
	}
}

TEST_F(sched, fifo_order_with_fences)
{
	enum { N = 12 };
	uint64_t h[N], ts[N], blocker;
	int f[N], who[N], i;

	t_knob_save(_metadata, "policy", self->policy, sizeof(self->policy));
	ASSERT_EQ(0, knob_write("policy", "fifo"));
	for (i = 0; i < NT; i++)
		t_ctx(_metadata, self->fd[i], 0, 100);
	blocker = t_submit(_metadata, self->fd[NT - 1], 100 * NSEC_PER_MSEC);
	for (i = 0; i < N; i++) {
		who[i] = (N - i) % NT;
		h[i] = t_submit_fl(_metadata, self->fd[who[i]],
				   GSPACE_ENGINE_COMPUTE, 2 * NSEC_PER_MSEC,
				   GSPACE_SUBMIT_FENCE_OUT, -1, &f[i]);
	}
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[NT - 1], blocker,
				GSP_SLOW_NS, NULL));
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, t_wait_end(_metadata, self->fd[who[i]], h[i],
					GSP_SLOW_NS, NULL));
		ASSERT_EQ(1, fence_info(_metadata, f[i], &ts[i]));
		close(f[i]);
	}
	/* An eventfd has no time: the order shows only on sync_files. */
	for (i = 1; fence_has_ts() && i < N; i++)
		ASSERT_LE(ts[i - 1], ts[i]);
}

/* The lease engine. */

TEST_F(sched, lease_grant_and_complete_charges)
{
	const uint64_t used[GSPACE_ENGINE_COUNT] = { 111111, 22222, 3333 };
	struct gspace_stats st;
	uint64_t h[GSPACE_ENGINE_COUNT];
	int e;

	need_lease(_metadata, self);
	t_ctx(_metadata, self->fd[0], self->info.lease_dev, 100);
	/* Each engine has its own queue: all three are granted at once. */
	for (e = 0; e < GSPACE_ENGINE_COUNT; e++)
		h[e] = t_submit_fl(_metadata, self->fd[0], e, NSEC_PER_SEC, 0,
				   -1, NULL);
	for (e = 0; e < GSPACE_ENGINE_COUNT; e++)
		t_wait_granted(_metadata, self->fd[0], h[e], GSP_SLOW_NS);
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_EQ(GSPACE_ENGINE_COUNT, st.running);
	for (e = 0; e < GSPACE_ENGINE_COUNT; e++)
		ASSERT_OK(complete_raw(self->fd[0], h[e], used[e], 0));
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_EQ(0, st.running);
	ASSERT_EQ(GSPACE_ENGINE_COUNT, st.completed);
	ASSERT_EQ(0, st.failed);
	/* Charged what userspace measured, not the cost estimate. */
	for (e = 0; e < GSPACE_ENGINE_COUNT; e++)
		ASSERT_EQ(used[e], st.gpu_ns[e]);
}

TEST_F(sched, lease_complete_error_fails_job)
{
	struct gspace_stats st;
	uint64_t h;
	int f;

	need_lease(_metadata, self);
	t_ctx(_metadata, self->fd[0], self->info.lease_dev, 100);
	h = t_submit_fl(_metadata, self->fd[0], GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_OUT, -1, &f);
	t_wait_granted(_metadata, self->fd[0], h, GSP_SLOW_NS);
	ASSERT_OK(complete_raw(self->fd[0], h, 1000, -4095));
	ASSERT_EQ(-4095, fence_info(_metadata, f, NULL));
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_EQ(1, st.completed);
	ASSERT_EQ(1, st.failed);
	ASSERT_ERRNO(ENOENT, wait_raw(self->fd[0], h, 0, 0, NULL));
	close(f);
}

TEST_F(sched, lease_second_tenant_waits_for_grant)
{
	uint64_t a, b, t0;

	need_lease(_metadata, self);
	t_ctx(_metadata, self->fd[0], self->info.lease_dev, 100);
	t_ctx(_metadata, self->fd[1], self->info.lease_dev, 100);
	a = t_submit(_metadata, self->fd[0], 0);
	t_wait_granted(_metadata, self->fd[0], a, GSP_SLOW_NS);
	b = t_submit(_metadata, self->fd[1], 0);
	/* The engine can run one leased job at a time per device. */
	if (wait_raw(self->fd[1], b, GSPACE_WAIT_GRANTED, 0, NULL) == 0) {
		ASSERT_OK(complete_raw(self->fd[1], b, 1, 0));
		ASSERT_OK(complete_raw(self->fd[0], a, 1, 0));
		SKIP("the lease engine runs jobs of two tenants at once");
	}
	ASSERT_EQ(ETIME, errno);
	t0 = now_ns();
	ASSERT_OK(complete_raw(self->fd[0], a, 1, 0));
	t_wait_granted(_metadata, self->fd[1], b, GSP_SLOW_NS);
	ASSERT_GT(t0 + GSP_SLOW_NS, now_ns());
	ASSERT_OK(complete_raw(self->fd[1], b, 1, 0));
}

TEST_F(sched, watchdog_marks_tenant_hung)
{
	struct gspace_stats st;
	struct gspace_submit s;
	uint64_t h, t0, h2;
	int f;

	need_lease(_metadata, self);
	t_knob_save(_metadata, "watchdog_ms", self->watchdog,
		    sizeof(self->watchdog));
	ASSERT_EQ(0, knob_write("watchdog_ms", "200"));
	t_ctx(_metadata, self->fd[0], self->info.lease_dev, 100);
	t_ctx(_metadata, self->fd[1], self->info.lease_dev, 100);
	t0 = now_ns();
	h = t_submit_fl(_metadata, self->fd[0], GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_OUT, -1, &f);
	t_wait_granted(_metadata, self->fd[0], h, GSP_SLOW_NS);
	/* Never completed: the watchdog ends it. */
	ASSERT_TRUE(fence_readable(f, 10000));
	ASSERT_LE(200 * NSEC_PER_MSEC, now_ns() - t0);
	ASSERT_EQ(-ETIMEDOUT, fence_info(_metadata, f, NULL));
	ASSERT_ERRNO(EALREADY, complete_raw(self->fd[0], h, 1, 0));
	ASSERT_EQ(-ETIMEDOUT, t_wait_end(_metadata, self->fd[0], h,
					 GSP_SLOW_NS, NULL));
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_TRUE(st.ctx_flags & GSPACE_CTX_F_HUNG);
	ASSERT_EQ(1, st.failed);
	ASSERT_EQ(0, st.running);
	submit_init(&s, GSPACE_ENGINE_COMPUTE, 0);
	ASSERT_ERRNO(EBUSY, gsp_ioctl(self->fd[0], GSPACE_IOCTL_SUBMIT, &s));
	/* The other tenant carries on, unmarked. */
	h2 = t_submit(_metadata, self->fd[1], 0);
	t_wait_granted(_metadata, self->fd[1], h2, GSP_SLOW_NS);
	ASSERT_OK(complete_raw(self->fd[1], h2, 5, 0));
	t_stats(_metadata, self->fd[1], &st);
	ASSERT_EQ(0, st.ctx_flags);
	/* Reopening gives a clean tenant. */
	gsp_close(self->fd[0]);
	self->fd[0] = t_open(_metadata);
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_EQ(0, st.ctx_flags);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0],
				t_submit(_metadata, self->fd[0], 0),
				GSP_SLOW_NS, NULL));
	close(f);
}

TEST_F(sched, watchdog_spares_timely_jobs)
{
	struct gspace_stats st;
	uint64_t h;

	need_lease(_metadata, self);
	t_knob_save(_metadata, "watchdog_ms", self->watchdog,
		    sizeof(self->watchdog));
	ASSERT_EQ(0, knob_write("watchdog_ms", "3000"));
	t_ctx(_metadata, self->fd[0], self->info.lease_dev, 100);
	h = t_submit(_metadata, self->fd[0], 0);
	t_wait_granted(_metadata, self->fd[0], h, GSP_SLOW_NS);
	sleep_ms(100);
	ASSERT_OK(complete_raw(self->fd[0], h, 1, 0));
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_EQ(0, st.ctx_flags);
	ASSERT_EQ(0, st.failed);
}

/*
 * A lease renewed every quarter watchdog outlives three watchdog periods,
 * charged as it goes; its tenant stays unmarked. (Periods are long enough
 * for a VM under emulation to keep up.)
 */
TEST_F(sched, renewed_lease_outlives_the_watchdog)
{
	struct gspace_stats st;
	uint64_t h, t0;
	int i, f;

	need_lease(_metadata, self);
	t_knob_save(_metadata, "watchdog_ms", self->watchdog,
		    sizeof(self->watchdog));
	ASSERT_EQ(0, knob_write("watchdog_ms", "400"));
	t_ctx(_metadata, self->fd[0], self->info.lease_dev, 100);
	h = t_submit_fl(_metadata, self->fd[0], GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_OUT, -1, &f);
	t_wait_granted(_metadata, self->fd[0], h, GSP_SLOW_NS);
	t0 = now_ns();
	for (i = 1; i <= 12; i++) {
		sleep_ms(100);
		ASSERT_OK(progress_raw(self->fd[0], h,
				       (uint64_t)i * 100 * NSEC_PER_MSEC));
	}
	ASSERT_LE(1200 * NSEC_PER_MSEC, now_ns() - t0);
	ASSERT_FALSE(fence_readable(f, 0));
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_EQ(0, st.ctx_flags);
	ASSERT_EQ(1, st.running);
	ASSERT_EQ(1200 * NSEC_PER_MSEC, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
	ASSERT_OK(complete_raw(self->fd[0], h, 1210 * NSEC_PER_MSEC, 0));
	ASSERT_EQ(1, fence_info(_metadata, f, NULL));
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_EQ(0, st.ctx_flags);
	ASSERT_EQ(0, st.failed);
	ASSERT_EQ(1210 * NSEC_PER_MSEC, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
	/* Not hung: it goes on taking leases. */
	h = t_submit(_metadata, self->fd[0], 0);
	t_wait_granted(_metadata, self->fd[0], h, GSP_SLOW_NS);
	ASSERT_OK(complete_raw(self->fd[0], h, 1, 0));
	close(f);
}

/* A holder that stops renewing is caught one period after its last one. */
TEST_F(sched, watchdog_fires_when_renewals_stop)
{
	struct gspace_stats st;
	struct gspace_submit s;
	uint64_t h, t0, renew;
	int f;

	need_lease(_metadata, self);
	t_knob_save(_metadata, "watchdog_ms", self->watchdog,
		    sizeof(self->watchdog));
	ASSERT_EQ(0, knob_write("watchdog_ms", "400"));
	t_ctx(_metadata, self->fd[0], self->info.lease_dev, 100);
	h = t_submit_fl(_metadata, self->fd[0], GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_OUT, -1, &f);
	t_wait_granted(_metadata, self->fd[0], h, GSP_SLOW_NS);
	t0 = now_ns();
	sleep_ms(100);
	/* The kernel stamps the renewal inside the ioctl: after this. */
	renew = now_ns();
	ASSERT_OK(progress_raw(self->fd[0], h, 100 * NSEC_PER_MSEC));
	/* The first deadline (grant + 400 ms) passes without a firing. */
	ASSERT_FALSE(fence_readable(f, 350));
	ASSERT_TRUE(fence_readable(f, 10000));
	ASSERT_LE(400 * NSEC_PER_MSEC, now_ns() - renew);
	ASSERT_EQ(-ETIMEDOUT, fence_info(_metadata, f, NULL));
	ASSERT_ERRNO(EALREADY, progress_raw(self->fd[0], h, 1));
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_TRUE(st.ctx_flags & GSPACE_CTX_F_HUNG);
	/* Charged the time since the grant, the renewal's part included. */
	ASSERT_LE(400 * NSEC_PER_MSEC + (renew - t0),
		  st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
	submit_init(&s, GSPACE_ENGINE_COMPUTE, 0);
	ASSERT_ERRNO(EBUSY, gsp_ioctl(self->fd[0], GSPACE_IOCTL_SUBMIT, &s));
	close(f);
}

/* The board publishes the watchdog, so that holders know when to renew. */
TEST_F(sched, board_publishes_the_watchdog)
{
	struct gspace_board *b;

	t_knob_save(_metadata, "watchdog_ms", self->watchdog,
		    sizeof(self->watchdog));
	b = gsp_board_map(self->fd[0], 0);
	if (!b && (errno == ENOTTY || errno == ENODEV))
		SKIP("no board on this arbiter");
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, knob_write("watchdog_ms", "1234"));
	ASSERT_EQ(1234 * NSEC_PER_MSEC,
		  __atomic_load_n(&b->watchdog_ns, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, knob_write("watchdog_ms", "2000"));
	ASSERT_EQ(2000 * NSEC_PER_MSEC,
		  __atomic_load_n(&b->watchdog_ns, __ATOMIC_ACQUIRE));
	munmap(b, GSPACE_BOARD_SIZE);
}

TEST_F(sched, lc_qos_violations_counted)
{
	struct gspace_stats st;
	uint64_t h;

	if (!self->info.v.lc_allowed)
		SKIP("this caller may not use GSPACE_CLASS_LC");
	ASSERT_OK(ctx_set_raw(self->fd[0], 0, GSPACE_CLASS_LC, 100, 1));
	h = t_submit(_metadata, self->fd[0], NSEC_PER_MSEC);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0], h, GSP_SLOW_NS, NULL));
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_EQ(GSPACE_CLASS_LC, st.class);
	ASSERT_EQ(1, st.qos_violations);
	/* A generous target is met. */
	ASSERT_OK(ctx_set_raw(self->fd[0], 0, GSPACE_CLASS_LC, 100,
			      600 * NSEC_PER_SEC));
	h = t_submit(_metadata, self->fd[0], 0);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0], h, GSP_SLOW_NS, NULL));
	t_stats(_metadata, self->fd[0], &st);
	ASSERT_EQ(1, st.qos_violations);
	ASSERT_EQ(2, st.completed);
}

/* 64 tenants, each its own descriptor, 1000 zero-cost jobs each. */

#define STRESS_TENANTS	64
#define STRESS_JOBS	1000
#define STRESS_WINDOW	16

struct stress {
	pthread_t th;
	pthread_barrier_t *go;
	int fd;
	int device;
	int waited;		/* jobs WAITed with status 0 */
	int bad_status;
	int dup_handle;
	int err;		/* errno of the first failed call */
	const char *what;
	uint64_t handles[STRESS_JOBS];
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void *stress_tenant(void *arg)
{
	struct stress *s = arg;
	int head = 0, tail = 0, i;

	pthread_barrier_wait(s->go);
	while (tail < STRESS_JOBS) {
		while (head < STRESS_JOBS && head - tail < STRESS_WINDOW) {
			struct gspace_submit sub;

			submit_init(&sub, GSPACE_ENGINE_COMPUTE, 0);
			if (gsp_ioctl(s->fd, GSPACE_IOCTL_SUBMIT, &sub)) {
				if (errno == ENOSPC && head > tail)
					break;
				s->err = errno;
				s->what = "SUBMIT";
				return NULL;
			}
			s->handles[head++] = sub.handle;
		}
		{
			struct gspace_wait w;

			if (wait_raw(s->fd, s->handles[tail], 0,
				     now_ns() + 60 * NSEC_PER_SEC, &w)) {
				s->err = errno;
				s->what = "WAIT";
				return NULL;
			}
			if (w.status)
				s->bad_status++;
			else
				s->waited++;
			/* Exactly once: a second WAIT finds nothing. */
			if (wait_raw(s->fd, s->handles[tail], 0, 0, NULL) == 0 ||
			    errno != ENOENT)
				s->dup_handle++;
			tail++;
		}
	}
	qsort(s->handles, STRESS_JOBS, sizeof(s->handles[0]), cmp_u64);
	for (i = 1; i < STRESS_JOBS; i++)
		if (s->handles[i] == s->handles[i - 1] || !s->handles[i - 1])
			s->dup_handle++;
	return NULL;
}

TEST_TIMEOUT(many_tenants_every_job_once, 280)
{
	static struct stress s[STRESS_TENANTS];
	pthread_barrier_t go;
	struct gsp_info info;
	uint64_t t0, dt;
	int i, probe;

	probe = t_open(_metadata);
	t_info(_metadata, probe, &info);
	gsp_close(probe);
	ASSERT_EQ(0, pthread_barrier_init(&go, NULL, STRESS_TENANTS + 1));
	for (i = 0; i < STRESS_TENANTS; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].go = &go;
		s[i].device = info.sim_devices ? i % info.sim_devices : 0;
		s[i].fd = t_open(_metadata);
		t_ctx(_metadata, s[i].fd, s[i].device, 1 + (i * 157) % 10000);
	}
	for (i = 0; i < STRESS_TENANTS; i++)
		ASSERT_EQ(0, pthread_create(&s[i].th, NULL, stress_tenant,
					    &s[i]));
	t0 = now_ns();
	pthread_barrier_wait(&go);
	for (i = 0; i < STRESS_TENANTS; i++)
		pthread_join(s[i].th, NULL);
	dt = now_ns() - t0;
	gsp_diag("%d tenants x %d jobs in %.2f s", STRESS_TENANTS, STRESS_JOBS,
		 dt / 1e9);
	for (i = 0; i < STRESS_TENANTS; i++) {
		struct gspace_stats st;

		if (s[i].err)
			gsp_diag("tenant %d: %s failed: %s", i, s[i].what,
				 strerror(s[i].err));
		ASSERT_EQ(0, s[i].err);
		ASSERT_EQ(STRESS_JOBS, s[i].waited);
		ASSERT_EQ(0, s[i].bad_status);
		ASSERT_EQ(0, s[i].dup_handle);
		t_stats(_metadata, s[i].fd, &st);
		ASSERT_EQ(STRESS_JOBS, st.completed);
		ASSERT_EQ(0, st.failed);
		ASSERT_EQ(0, st.queued);
		ASSERT_EQ(0, st.running);
		ASSERT_EQ((uint32_t)s[i].device, st.device);
		gsp_close(s[i].fd);
	}
}

TEST_HARNESS_MAIN
