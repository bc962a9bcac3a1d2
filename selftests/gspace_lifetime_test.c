// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetimes: what happens to jobs, fences and tenants when a descriptor is
 * closed, duplicated, or its process is killed; the debugfs object counters
 * returning to their baseline; moving a tenant between devices.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "gsp_util.h"

FIXTURE(life) {
	int fd;
	int fd2;
	struct gsp_info info;
};

FIXTURE_SETUP(life)
{
	self->fd2 = -1;
	self->fd = t_open(_metadata);
	t_info(_metadata, self->fd, &self->info);
}

FIXTURE_TEARDOWN(life)
{
	t_close(&self->fd2);
	t_close(&self->fd);
}

/* CTX_SET device changes. */

TEST_F(life, ctx_set_device_busy_while_running)
{
	struct gspace_stats st;
	uint64_t h;

	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	h = t_submit(_metadata, self->fd, 0);
	t_wait_granted(_metadata, self->fd, h, GSP_SLOW_NS);
	ASSERT_ERRNO(EBUSY, ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE, 100, 0));
	/* Staying on the same device is no change: weight may move. */
	ASSERT_OK(ctx_set_raw(self->fd, self->info.lease_dev, GSPACE_CLASS_BE,
			      700, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(self->info.lease_dev, st.device);
	ASSERT_EQ(700, st.weight);
	ASSERT_OK(complete_raw(self->fd, h, 1, 0));
	/* No live job now. */
	ASSERT_OK(ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE, 100, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(0, st.device);
}

TEST_F(life, ctx_set_device_busy_while_queued)
{
	uint64_t a, b;

	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	a = t_submit(_metadata, self->fd, 0);
	t_wait_granted(_metadata, self->fd, a, GSP_SLOW_NS);
	b = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_CHAIN, -1, NULL);
	ASSERT_OK(complete_raw(self->fd, a, 1, 0));
	t_wait_granted(_metadata, self->fd, b, GSP_SLOW_NS);
	ASSERT_ERRNO(EBUSY, ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE, 100, 0));
	ASSERT_OK(complete_raw(self->fd, b, 1, 0));
	ASSERT_OK(ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE, 100, 0));
}

TEST_F(life, ctx_set_device_busy_with_sim_job)
{
	uint64_t h;

	if (self->info.num_devices < 2)
		SKIP("one device only");
	h = t_submit(_metadata, self->fd, 300 * NSEC_PER_MSEC);
	ASSERT_ERRNO(EBUSY, ctx_set_raw(self->fd, 1, GSPACE_CLASS_BE, 100, 0));
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS, NULL));
	ASSERT_OK(ctx_set_raw(self->fd, 1, GSPACE_CLASS_BE, 100, 0));
	h = t_submit(_metadata, self->fd, 0);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS, NULL));
}

/* Closing. */

TEST_F(life, close_cancels_queued_job_fence)
{
	uint64_t a;
	int f;

	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	a = t_submit(_metadata, self->fd, 0);
	t_wait_granted(_metadata, self->fd, a, GSP_SLOW_NS);
	t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
		    GSPACE_SUBMIT_CHAIN | GSPACE_SUBMIT_FENCE_OUT, -1, &f);
	ASSERT_FALSE(fence_readable(f, 0));
	gsp_close(self->fd);
	self->fd = -1;
	/* The fence outlives its tenant and reports the cancellation. */
	ASSERT_TRUE(fence_readable(f, 1000));
	ASSERT_EQ(-ECANCELED, fence_info(_metadata, f, NULL));
	close(f);
}

TEST_F(life, close_ends_running_lease_job)
{
	uint64_t h;
	int f;

	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	h = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_OUT, -1, &f);
	t_wait_granted(_metadata, self->fd, h, GSP_SLOW_NS);
	gsp_close(self->fd);
	self->fd = -1;
	ASSERT_TRUE(fence_readable(f, 1000));
	ASSERT_EQ(-ECANCELED, fence_info(_metadata, f, NULL));
	close(f);
	/* The device is free again for someone else. */
	self->fd2 = t_open(_metadata);
	t_ctx(_metadata, self->fd2, self->info.lease_dev, 100);
	h = t_submit(_metadata, self->fd2, 0);
	t_wait_granted(_metadata, self->fd2, h, GSP_SLOW_NS);
	ASSERT_OK(complete_raw(self->fd2, h, 1, 0));
}

TEST_F(life, close_with_running_sim_jobs)
{
	uint64_t h;
	int f;

	t_submit(_metadata, self->fd, 50 * NSEC_PER_MSEC);
	t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE,
		    50 * NSEC_PER_MSEC, GSPACE_SUBMIT_FENCE_OUT, -1, &f);
	gsp_close(self->fd);
	self->fd = -1;
	/* Ended either way: run to completion or cancelled. */
	ASSERT_TRUE(fence_readable(f, 5000));
	ASSERT_NE(0, fence_info(_metadata, f, NULL));
	close(f);
	self->fd2 = t_open(_metadata);
	h = t_submit(_metadata, self->fd2, 0);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd2, h, GSP_SLOW_NS, NULL));
}

TEST_F(life, dup_keeps_tenant)
{
	struct gspace_stats st;
	uint64_t h;
	int d;

	if (gsp_on_daemon())
		SKIP("kernel only: a gspaced tenant is a connection object, not a descriptor to dup");
	h = t_submit(_metadata, self->fd, 20 * NSEC_PER_MSEC);
	d = dup(self->fd);
	ASSERT_LE(0, d);
	gsp_close(self->fd);
	self->fd = d;
	/* Same open file, same tenant, same handles. */
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS, NULL));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(1, st.completed);
}

TEST_F(life, each_open_is_a_tenant)
{
	struct gspace_stats a, b;

	self->fd2 = t_open(_metadata);
	t_ctx(_metadata, self->fd, 0, 1234);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd,
				t_submit(_metadata, self->fd, 0), GSP_SLOW_NS,
				NULL));
	t_stats(_metadata, self->fd, &a);
	t_stats(_metadata, self->fd2, &b);
	ASSERT_EQ(1234, a.weight);
	ASSERT_EQ(GSPACE_WEIGHT_DEFAULT, b.weight);
	ASSERT_EQ(1, a.completed);
	ASSERT_EQ(0, b.completed);
}

/* SIGKILL mid-job. */

struct victim {
	pid_t pid;
	int ready[2];	/* the victim writes one byte once it is set up */
};

static void *block_in_wait(void *arg)
{
	uint64_t *h = arg;
	int fd = (int)h[1];

	wait_raw(fd, h[0], 0, now_ns() + 600 * NSEC_PER_SEC, NULL);
	return NULL;
}

/*
 * A process with queued and running jobs on sim device 0, a running lease
 * job when there is a lease device, and a thread blocked in WAIT on each.
 */
static void victim_main(const struct gsp_info *info, int ready)
{
	static uint64_t arg[2][2];
	struct gspace_submit s;
	pthread_t th;
	int fd, lfd, i;
	char c = 'r';

	fd = gsp_open();
	if (fd < 0)
		_exit(2);
	for (i = 0; i < 20; i++) {
		submit_init(&s, i % GSPACE_ENGINE_COUNT, 40 * NSEC_PER_MSEC);
		s.flags = GSPACE_SUBMIT_FENCE_OUT;
		if (gsp_ioctl(fd, GSPACE_IOCTL_SUBMIT, &s))
			_exit(3);
		if (!i) {
			arg[0][0] = s.handle;
			arg[0][1] = fd;
		}
	}
	if (pthread_create(&th, NULL, block_in_wait, arg[0]))
		_exit(4);
	if (info->lease_dev >= 0) {
		lfd = gsp_open();
		if (lfd < 0 || ctx_set_raw(lfd, info->lease_dev,
					   GSPACE_CLASS_BE, 100, 0))
			_exit(5);
		for (i = 0; i < 2; i++) {
			submit_init(&s, GSPACE_ENGINE_COMPUTE, 0);
			s.flags = GSPACE_SUBMIT_FENCE_OUT |
				  (i ? GSPACE_SUBMIT_CHAIN : 0);
			if (gsp_ioctl(lfd, GSPACE_IOCTL_SUBMIT, &s))
				_exit(6);
			if (!i) {
				arg[1][0] = s.handle;
				arg[1][1] = lfd;
			}
		}
		if (wait_raw(lfd, arg[1][0], GSPACE_WAIT_GRANTED,
			     now_ns() + GSP_SLOW_NS, NULL))
			_exit(7);
		if (pthread_create(&th, NULL, block_in_wait, arg[1]))
			_exit(8);
	}
	sleep_ms(20);	/* let the waiters block */
	if (write(ready, &c, 1) != 1)
		_exit(9);
	for (;;)
		pause();
}

static void spawn_victim(struct __test_meta *_metadata,
			 const struct gsp_info *info, struct victim *v)
{
	char c;

	ASSERT_OK(pipe(v->ready));
	v->pid = fork();
	ASSERT_LE(0, v->pid);
	if (v->pid == 0) {
		close(v->ready[0]);
		victim_main(info, v->ready[1]);
	}
	close(v->ready[1]);
	ASSERT_EQ(1, read(v->ready[0], &c, 1));
	close(v->ready[0]);
}

static void kill_victim(struct __test_meta *_metadata, struct victim *v)
{
	int st;

	ASSERT_OK(kill(v->pid, SIGKILL));
	ASSERT_EQ(v->pid, waitpid(v->pid, &st, 0));
	ASSERT_TRUE(WIFSIGNALED(st));
	ASSERT_EQ(SIGKILL, WTERMSIG(st));
}

/* The survivor's jobs, on the victim's devices, all complete. */
static void survivor_runs(struct __test_meta *_metadata,
			  FIXTURE_DATA(life) *self)
{
	uint64_t h[8];
	int i;

	for (i = 0; i < 8; i++)
		h[i] = t_submit_fl(_metadata, self->fd, i % GSPACE_ENGINE_COUNT,
				   5 * NSEC_PER_MSEC, 0, -1, NULL);
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h[i],
					GSP_SLOW_NS, NULL));
	if (self->info.lease_dev >= 0) {
		uint64_t l;

		if (self->fd2 < 0) {
			self->fd2 = t_open(_metadata);
			t_ctx(_metadata, self->fd2, self->info.lease_dev, 100);
		}
		l = t_submit(_metadata, self->fd2, 0);
		t_wait_granted(_metadata, self->fd2, l, GSP_SLOW_NS);
		ASSERT_OK(complete_raw(self->fd2, l, 1, 0));
	}
}

/*
 * A tenant may keep its last job's fence for GSPACE_SUBMIT_CHAIN, so the
 * counters are compared with none of this test's tenants open.
 */
static void quiet_baseline(struct __test_meta *_metadata,
			   FIXTURE_DATA(life) *self, struct gsp_objects *base)
{
	t_close(&self->fd);
	t_close(&self->fd2);
	t_objects_baseline(_metadata, base);
}

static void expect_baseline(struct __test_meta *_metadata,
			    FIXTURE_DATA(life) *self,
			    const struct gsp_objects *base)
{
	struct gsp_objects now;

	t_close(&self->fd);
	t_close(&self->fd2);
	if (!objects_settle(base, &now, 1000))
		gsp_diag("baseline contexts %lld jobs %lld fences %lld, after 1 s contexts %lld jobs %lld fences %lld",
			 base->contexts, base->jobs, base->fences,
			 now.contexts, now.jobs, now.fences);
	ASSERT_EQ(base->contexts, now.contexts);
	ASSERT_EQ(base->jobs, now.jobs);
	ASSERT_EQ(base->fences, now.fences);
}

TEST_F(life, sigkill_other_tenant_carries_on)
{
	struct gspace_stats st;
	struct victim v;
	uint64_t h;

	/* A job of ours already queued behind the victim's. */
	spawn_victim(_metadata, &self->info, &v);
	h = t_submit(_metadata, self->fd, 10 * NSEC_PER_MSEC);
	kill_victim(_metadata, &v);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS, NULL));
	survivor_runs(_metadata, self);
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(9, st.completed);
	ASSERT_EQ(0, st.failed);
}

TEST_F(life, sigkill_objects_return_to_baseline)
{
	struct gsp_objects base, mid;
	struct victim v;

	quiet_baseline(_metadata, self, &base);
	spawn_victim(_metadata, &self->info, &v);
	ASSERT_EQ(0, objects_read(&mid));
	ASSERT_LT(base.jobs, mid.jobs);
	ASSERT_LT(base.contexts, mid.contexts);
	ASSERT_LT(base.fences, mid.fences);
	kill_victim(_metadata, &v);
	expect_baseline(_metadata, self, &base);
	self->fd = t_open(_metadata);
	survivor_runs(_metadata, self);
}

TEST_F(life, objects_balanced_after_close)
{
	struct gsp_objects base;
	uint64_t h;
	int fds[8], f[8], i;

	quiet_baseline(_metadata, self, &base);
	for (i = 0; i < 8; i++) {
		fds[i] = t_open(_metadata);
		h = t_submit_fl(_metadata, fds[i], GSPACE_ENGINE_COMPUTE,
				i * NSEC_PER_MSEC, GSPACE_SUBMIT_FENCE_OUT, -1,
				&f[i]);
		if (i & 1)
			ASSERT_EQ(0, t_wait_end(_metadata, fds[i], h,
						GSP_SLOW_NS, NULL));
	}
	for (i = 0; i < 8; i++)
		gsp_close(fds[i]);
	/* Fences outlive their tenants while userspace holds them. */
	for (i = 0; i < 8; i++)
		ASSERT_TRUE(fence_readable(f[i], 5000));
	for (i = 0; i < 8; i++)
		close(f[i]);
	expect_baseline(_metadata, self, &base);
}

TEST_F(life, exit_with_in_fence_waiters)
{
	struct gsp_objects base;
	int have_objects = 0;
	uint64_t a;
	int fa, st;
	pid_t pid;

	t_need_lease(_metadata, &self->info);
	if (geteuid() == 0 && objects_read(&base) == 0) {
		quiet_baseline(_metadata, self, &base);
		self->fd = t_open(_metadata);
		have_objects = 1;
	}
	self->fd2 = t_open(_metadata);
	t_ctx(_metadata, self->fd2, self->info.lease_dev, 100);
	a = t_submit_fl(_metadata, self->fd2, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_OUT, -1, &fa);
	t_wait_granted(_metadata, self->fd2, a, GSP_SLOW_NS);
	/* A child queues jobs on our fence, then exits without waiting. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct gspace_submit s;
		int fd = gsp_open(), i;

		if (fd < 0)
			_exit(2);
		for (i = 0; i < 4; i++) {
			submit_init(&s, GSPACE_ENGINE_COMPUTE, 0);
			s.flags = GSPACE_SUBMIT_FENCE_IN;
			s.in_fence_fd = fa;
			if (gsp_ioctl(fd, GSPACE_IOCTL_SUBMIT, &s))
				_exit(3);
		}
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));
	/* Signalling the fence now must not touch the dead tenant's jobs. */
	ASSERT_OK(complete_raw(self->fd2, a, 1, 0));
	close(fa);
	survivor_runs(_metadata, self);
	if (have_objects)
		expect_baseline(_metadata, self, &base);
}

TEST_HARNESS_MAIN
