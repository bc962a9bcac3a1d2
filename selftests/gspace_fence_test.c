// SPDX-License-Identifier: GPL-2.0
/*
 * Fences and waiting: out fences (poll, epoll, SYNC_IOC_FILE_INFO), WAIT
 * deadlines and GSPACE_WAIT_GRANTED, ordering and error propagation through
 * in fences and GSPACE_SUBMIT_CHAIN.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/time.h>

#include "gsp_util.h"

FIXTURE(fence) {
	int fd;		/* on the lease device when there is one */
	int sim;	/* on sim device 0 */
	int sim1;	/* on the last sim device */
	struct gsp_info info;
};

FIXTURE_SETUP(fence)
{
	self->fd = self->sim = self->sim1 = -1;
	self->sim = t_open(_metadata);
	t_info(_metadata, self->sim, &self->info);
	/* gspaced's fences are eventfds: no feature bit for them. */
	if (!gsp_on_daemon() &&
	    !(self->info.v.features & GSPACE_FEAT_SYNC_FILE))
		SKIP("no GSPACE_FEAT_SYNC_FILE");
	self->sim1 = t_open(_metadata);
	t_ctx(_metadata, self->sim1, self->info.sim_devices > 1 ?
	      self->info.sim_devices - 1 : 0, 100);
	self->fd = t_open(_metadata);
	if (self->info.lease_dev >= 0)
		t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
}

FIXTURE_TEARDOWN(fence)
{
	t_close(&self->fd);
	t_close(&self->sim);
	t_close(&self->sim1);
}

/* A running lease job with an out fence. */
static uint64_t lease_running(struct __test_meta *_metadata,
			      FIXTURE_DATA(fence) *self, int *fence)
{
	uint64_t h;

	t_need_lease(_metadata, &self->info);
	h = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			fence ? GSPACE_SUBMIT_FENCE_OUT : 0, -1, fence);
	t_wait_granted(_metadata, self->fd, h, GSP_SLOW_NS);
	return h;
}

TEST_F(fence, out_fence_readable_only_after_end)
{
	uint64_t h;
	int f;

	h = lease_running(_metadata, self, &f);
	ASSERT_FALSE(fence_readable(f, 0));
	ASSERT_EQ(0, fence_info(_metadata, f, NULL));
	sleep_ms(50);
	ASSERT_FALSE(fence_readable(f, 0));
	ASSERT_OK(complete_raw(self->fd, h, 1000, 0));
	ASSERT_TRUE(fence_readable(f, 1000));
	ASSERT_EQ(1, fence_info(_metadata, f, NULL));
	close(f);
}

TEST_F(fence, out_fence_sim_signals_after_cost)
{
	const uint64_t cost = 300 * NSEC_PER_MSEC;
	uint64_t t0, h, ts;
	int f;

	t0 = now_ns();
	h = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COMPUTE, cost,
			GSPACE_SUBMIT_FENCE_OUT, -1, &f);
	ASSERT_FALSE(fence_readable(f, 0));
	ASSERT_TRUE(fence_readable(f, 10000));
	ASSERT_LE(cost, now_ns() - t0);
	ASSERT_EQ(1, fence_info(_metadata, f, &ts));
	if (fence_has_ts())
		ASSERT_LE(t0 + cost, ts);
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim, h, GSP_SLOW_NS, NULL));
	close(f);
}

TEST_F(fence, out_fence_epoll)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	uint64_t h;
	int f, ep;

	h = lease_running(_metadata, self, &f);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ev.data.fd = f;
	ASSERT_OK(epoll_ctl(ep, EPOLL_CTL_ADD, f, &ev));
	ASSERT_EQ(0, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(0, epoll_wait(ep, &out, 1, 50));
	ASSERT_OK(complete_raw(self->fd, h, 1, 0));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 1000));
	ASSERT_EQ(f, out.data.fd);
	ASSERT_TRUE(out.events & EPOLLIN);
	close(ep);
	close(f);
}

TEST_F(fence, out_fence_cloexec_and_file_info)
{
	struct sync_fence_info fi;
	struct sync_file_info info;
	uint64_t h, ts, t0;
	int f;

	if (gsp_on_daemon())
		SKIP("kernel only: SYNC_IOC_FILE_INFO (gspaced's fences are eventfds)");
	h = lease_running(_metadata, self, &f);
	ASSERT_TRUE(fcntl(f, F_GETFD) & FD_CLOEXEC);
	/* num_fences 0 asks only for the count. */
	memset(&info, 0, sizeof(info));
	ASSERT_OK(ioctl(f, SYNC_IOC_FILE_INFO, &info));
	ASSERT_EQ(1, info.num_fences);
	ASSERT_EQ(0, info.status);
	memset(&info, 0, sizeof(info));
	memset(&fi, 0, sizeof(fi));
	info.num_fences = 1;
	info.sync_fence_info = (uint64_t)(uintptr_t)&fi;
	ASSERT_OK(ioctl(f, SYNC_IOC_FILE_INFO, &info));
	ASSERT_EQ(0, fi.status);
	ASSERT_NE(0, fi.driver_name[0]);
	t0 = now_ns();
	ASSERT_OK(complete_raw(self->fd, h, 1, 0));
	ASSERT_EQ(1, fence_info(_metadata, f, &ts));
	ASSERT_LE(t0, ts);
	ASSERT_GE(now_ns(), ts);
	close(f);
}

TEST_F(fence, out_fence_carries_complete_error)
{
	struct gspace_stats st;
	uint64_t h;
	int f;

	h = lease_running(_metadata, self, &f);
	ASSERT_OK(complete_raw(self->fd, h, 500, -EIO));
	ASSERT_TRUE(fence_readable(f, 1000));
	ASSERT_EQ(-EIO, fence_info(_metadata, f, NULL));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(1, st.completed);
	ASSERT_EQ(1, st.failed);
	close(f);
}

TEST_F(fence, cancel_signals_fence_ecanceled)
{
	uint64_t a, b;
	int f;

	a = lease_running(_metadata, self, NULL);
	b = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_CHAIN | GSPACE_SUBMIT_FENCE_OUT, -1, &f);
	ASSERT_FALSE(fence_readable(f, 0));
	ASSERT_OK(cancel_raw(self->fd, b));
	ASSERT_TRUE(fence_readable(f, 1000));
	ASSERT_EQ(-ECANCELED, fence_info(_metadata, f, NULL));
	ASSERT_EQ(-ECANCELED, t_wait_end(_metadata, self->fd, b, GSP_SLOW_NS,
					 NULL));
	ASSERT_OK(complete_raw(self->fd, a, 1, 0));
	close(f);
}

/* WAIT deadlines. */

TEST_F(fence, wait_deadline_past_etime)
{
	uint64_t h = lease_running(_metadata, self, NULL);
	uint64_t t0 = now_ns();

	ASSERT_ERRNO(ETIME, wait_raw(self->fd, h, 0, 0, NULL));
	ASSERT_ERRNO(ETIME, wait_raw(self->fd, h, 0, 1, NULL));
	ASSERT_ERRNO(ETIME, wait_raw(self->fd, h, 0, now_ns() - NSEC_PER_MSEC,
				     NULL));
	ASSERT_GT(t0 + GSP_SLOW_NS, now_ns());	/* none of them blocked */
	/* The handle survived. */
	ASSERT_OK(complete_raw(self->fd, h, 1, 0));
}

TEST_F(fence, wait_deadline_near_future_etime)
{
	const uint64_t d = 100 * NSEC_PER_MSEC;
	uint64_t h, t0, t1;

	h = lease_running(_metadata, self, NULL);
	t0 = now_ns();
	ASSERT_ERRNO(ETIME, wait_raw(self->fd, h, 0, t0 + d, NULL));
	t1 = now_ns();
	ASSERT_LE(d, t1 - t0);
	ASSERT_GT(d + GSP_SLOW_NS, t1 - t0);
	ASSERT_OK(complete_raw(self->fd, h, 1, 0));
}

TEST_F(fence, wait_deadline_sim_etime_then_ok)
{
	const uint64_t cost = 400 * NSEC_PER_MSEC;
	struct gspace_wait w;
	uint64_t h;

	h = t_submit(_metadata, self->sim, cost);
	ASSERT_ERRNO(ETIME, wait_raw(self->sim, h, 0, 0, NULL));
	ASSERT_ERRNO(ETIME, wait_raw(self->sim, h, 0,
				     now_ns() + 20 * NSEC_PER_MSEC, NULL));
	ASSERT_OK(wait_raw(self->sim, h, 0, now_ns() + GSP_SLOW_NS, &w));
	ASSERT_EQ(0, w.status);
	ASSERT_LE(cost, w.latency_ns);
}

TEST_F(fence, wait_zero_deadline_polls_ended_job)
{
	uint64_t h;
	int f;

	h = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_OUT, -1, &f);
	ASSERT_TRUE(fence_readable(f, 5000));
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim, h, 0, NULL));
	close(f);
}

static void on_alarm(int sig)
{
	(void)sig;
}

TEST_F(fence, wait_restarts_after_signal)
{
	const uint64_t cost = 300 * NSEC_PER_MSEC;
	struct itimerval it = { { 0, 5000 }, { 0, 5000 } };
	struct sigaction sa;
	struct gspace_wait w;
	uint64_t h;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	ASSERT_OK(sigaction(SIGALRM, &sa, NULL));
	h = t_submit(_metadata, self->sim, cost);
	ASSERT_OK(setitimer(ITIMER_REAL, &it, NULL));
	ASSERT_OK(wait_raw(self->sim, h, 0, now_ns() + GSP_SLOW_NS, &w));
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	ASSERT_EQ(0, w.status);
	ASSERT_LE(cost, w.latency_ns);
}

/* GSPACE_WAIT_GRANTED. */

TEST_F(fence, wait_granted_keeps_handle)
{
	uint64_t h = lease_running(_metadata, self, NULL);
	struct gspace_wait w;

	ASSERT_OK(wait_raw(self->fd, h, GSPACE_WAIT_GRANTED, 0, &w));
	ASSERT_OK(wait_raw(self->fd, h, GSPACE_WAIT_GRANTED,
			   now_ns() + NSEC_PER_SEC, &w));
	/* Still running: a plain poll times out. */
	ASSERT_ERRNO(ETIME, wait_raw(self->fd, h, 0, 0, NULL));
	ASSERT_OK(complete_raw(self->fd, h, 1, 0));
	ASSERT_ERRNO(ENOENT, wait_raw(self->fd, h, GSPACE_WAIT_GRANTED, 0,
				      NULL));
}

TEST_F(fence, wait_granted_on_ended_job)
{
	uint64_t h;
	int f;

	h = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_OUT, -1, &f);
	ASSERT_TRUE(fence_readable(f, 5000));
	ASSERT_OK(wait_raw(self->sim, h, GSPACE_WAIT_GRANTED, 0, NULL));
	/* GRANTED keeps the handle even for an ended job. */
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim, h, GSP_SLOW_NS, NULL));
	close(f);
}

struct delayed_complete {
	int fd;
	uint64_t handle;
	unsigned int ms;
	int ret;
};

static void *complete_later(void *arg)
{
	struct delayed_complete *d = arg;

	sleep_ms(d->ms);
	d->ret = complete_raw(d->fd, d->handle, 1, 0);
	return NULL;
}

TEST_F(fence, wait_granted_blocks_until_granted)
{
	struct delayed_complete d;
	uint64_t a, b, t0;
	pthread_t th;

	a = lease_running(_metadata, self, NULL);
	b = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_CHAIN, -1, NULL);
	ASSERT_ERRNO(ETIME, wait_raw(self->fd, b, GSPACE_WAIT_GRANTED, 0,
				     NULL));
	ASSERT_ERRNO(ETIME, wait_raw(self->fd, b, GSPACE_WAIT_GRANTED,
				     now_ns() + 50 * NSEC_PER_MSEC, NULL));
	d.fd = self->fd;
	d.handle = a;
	d.ms = 200;
	d.ret = -2;
	t0 = now_ns();
	ASSERT_EQ(0, pthread_create(&th, NULL, complete_later, &d));
	ASSERT_OK(wait_raw(self->fd, b, GSPACE_WAIT_GRANTED,
			   now_ns() + GSP_SLOW_NS, NULL));
	ASSERT_LE(200 * NSEC_PER_MSEC, now_ns() - t0);
	pthread_join(th, NULL);
	ASSERT_EQ(0, d.ret);
	ASSERT_OK(complete_raw(self->fd, b, 1, 0));
}

/* In fences. */

TEST_F(fence, in_fence_orders_jobs)
{
	uint64_t a, b, ta, tb;
	struct gspace_stats st;
	int fa, fb;

	a = lease_running(_metadata, self, &fa);
	b = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_IN | GSPACE_SUBMIT_FENCE_OUT, fa,
			&fb);
	ASSERT_ERRNO(ETIME, wait_raw(self->sim, b, GSPACE_WAIT_GRANTED, 0,
				     NULL));
	t_stats(_metadata, self->sim, &st);
	ASSERT_EQ(1, st.queued);
	ASSERT_EQ(0, st.running);
	sleep_ms(100);
	ASSERT_FALSE(fence_readable(fb, 0));
	ASSERT_OK(complete_raw(self->fd, a, 1, 0));
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim, b, GSP_SLOW_NS, NULL));
	ASSERT_EQ(1, fence_info(_metadata, fa, &ta));
	ASSERT_EQ(1, fence_info(_metadata, fb, &tb));
	if (fence_has_ts())
		ASSERT_LE(ta, tb);
	close(fa);
	close(fb);
}

TEST_F(fence, in_fence_orders_sim_jobs)
{
	const uint64_t cost = 200 * NSEC_PER_MSEC;
	uint64_t a, b, ta, tb, t0;
	struct gspace_wait w;
	int fa, fb;

	t0 = now_ns();
	a = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COMPUTE, cost,
			GSPACE_SUBMIT_FENCE_OUT, -1, &fa);
	b = t_submit_fl(_metadata, self->sim1, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_IN | GSPACE_SUBMIT_FENCE_OUT, fa,
			&fb);
	ASSERT_OK(wait_raw(self->sim1, b, 0, now_ns() + GSP_SLOW_NS, &w));
	ASSERT_EQ(0, w.status);
	ASSERT_LE(t0 + cost, now_ns());
	ASSERT_EQ(1, fence_info(_metadata, fa, &ta));
	ASSERT_EQ(1, fence_info(_metadata, fb, &tb));
	if (fence_has_ts()) {
		ASSERT_LE(ta, tb);
		ASSERT_LE(t0 + cost, tb);
	}
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim, a, GSP_SLOW_NS, NULL));
	close(fa);
	close(fb);
}

TEST_F(fence, in_fence_merged_waits_for_all)
{
	struct sync_merge_data m;
	uint64_t a, b, c, tb, tc;
	int fa, fb, fc;

	if (gsp_on_daemon())
		SKIP("kernel only: SYNC_IOC_MERGE (gspaced's fences are eventfds)");
	t_need_lease(_metadata, &self->info);
	a = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COMPUTE,
			50 * NSEC_PER_MSEC, GSPACE_SUBMIT_FENCE_OUT, -1, &fa);
	b = lease_running(_metadata, self, &fb);
	memset(&m, 0, sizeof(m));
	strcpy(m.name, "gspace-merge");
	m.fd2 = fb;
	ASSERT_OK(ioctl(fa, SYNC_IOC_MERGE, &m));
	c = t_submit_fl(_metadata, self->sim1, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_IN | GSPACE_SUBMIT_FENCE_OUT,
			m.fence, &fc);
	close(m.fence);
	/* a ends by itself; c still waits for b. */
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim, a, GSP_SLOW_NS, NULL));
	sleep_ms(50);
	ASSERT_FALSE(fence_readable(fc, 0));
	ASSERT_OK(complete_raw(self->fd, b, 1, 0));
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim1, c, GSP_SLOW_NS, NULL));
	ASSERT_EQ(1, fence_info(_metadata, fb, &tb));
	ASSERT_EQ(1, fence_info(_metadata, fc, &tc));
	ASSERT_LE(tb, tc);
	close(fa);
	close(fb);
	close(fc);
}

TEST_F(fence, in_fence_already_signaled)
{
	uint64_t a, b;
	int fa;

	a = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_OUT, -1, &fa);
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim, a, GSP_SLOW_NS, NULL));
	ASSERT_TRUE(fence_readable(fa, 0));
	b = t_submit_fl(_metadata, self->sim1, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_IN, fa, NULL);
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim1, b, GSP_SLOW_NS, NULL));
	close(fa);
}

TEST_F(fence, in_fence_cancel_error_propagates)
{
	struct gspace_wait w;
	uint64_t a0, a, b;
	int fa, fb;

	a0 = lease_running(_metadata, self, NULL);
	a = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_CHAIN | GSPACE_SUBMIT_FENCE_OUT, -1, &fa);
	b = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COMPUTE,
			10 * NSEC_PER_MSEC,
			GSPACE_SUBMIT_FENCE_IN | GSPACE_SUBMIT_FENCE_OUT, fa,
			&fb);
	ASSERT_OK(cancel_raw(self->fd, a));
	ASSERT_OK(wait_raw(self->sim, b, 0, now_ns() + GSP_SLOW_NS, &w));
	ASSERT_EQ(-ECANCELED, w.status);
	ASSERT_EQ(0, w.gpu_ns);		/* it never ran */
	ASSERT_EQ(-ECANCELED, fence_info(_metadata, fb, NULL));
	ASSERT_OK(complete_raw(self->fd, a0, 1, 0));
	close(fa);
	close(fb);
}

TEST_F(fence, in_fence_complete_error_propagates)
{
	struct gspace_stats st;
	struct gspace_wait w;
	uint64_t a, b;
	int fa;

	a = lease_running(_metadata, self, &fa);
	b = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COPY_H2D,
			10 * NSEC_PER_MSEC, GSPACE_SUBMIT_FENCE_IN, fa, NULL);
	ASSERT_OK(complete_raw(self->fd, a, 1, -ENOEXEC));
	ASSERT_OK(wait_raw(self->sim, b, 0, now_ns() + GSP_SLOW_NS, &w));
	ASSERT_EQ(-ENOEXEC, w.status);
	ASSERT_EQ(0, w.gpu_ns);
	t_stats(_metadata, self->sim, &st);
	ASSERT_EQ(1, st.failed);
	ASSERT_EQ(0, st.gpu_ns[GSPACE_ENGINE_COPY_H2D]);
	close(fa);
}

TEST_F(fence, in_fence_cancel_while_waiting)
{
	uint64_t a, b;
	int fa;

	a = lease_running(_metadata, self, &fa);
	b = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_IN, fa, NULL);
	/* A job waiting for its in fence is not running: cancellable. */
	ASSERT_OK(cancel_raw(self->sim, b));
	ASSERT_EQ(-ECANCELED, t_wait_end(_metadata, self->sim, b, GSP_SLOW_NS,
					 NULL));
	ASSERT_OK(complete_raw(self->fd, a, 1, 0));
	close(fa);
}

/* GSPACE_SUBMIT_CHAIN. */

TEST_F(fence, chain_orders_across_engines)
{
	const uint64_t cost = 200 * NSEC_PER_MSEC;
	uint64_t a, b, ta, tb, t0;
	int fa, fb;

	t0 = now_ns();
	a = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COMPUTE, cost,
			GSPACE_SUBMIT_FENCE_OUT, -1, &fa);
	/* Another engine could run it at once; CHAIN makes it wait. */
	b = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COPY_D2H, 0,
			GSPACE_SUBMIT_CHAIN | GSPACE_SUBMIT_FENCE_OUT, -1, &fb);
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim, b, GSP_SLOW_NS, NULL));
	ASSERT_LE(t0 + cost, now_ns());
	ASSERT_EQ(1, fence_info(_metadata, fa, &ta));
	ASSERT_EQ(1, fence_info(_metadata, fb, &tb));
	if (fence_has_ts())
		ASSERT_LE(ta, tb);
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim, a, GSP_SLOW_NS, NULL));
	close(fa);
	close(fb);
}

TEST_F(fence, chain_granted_after_predecessor)
{
	uint64_t a, b, c;

	a = lease_running(_metadata, self, NULL);
	b = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COPY_H2D, 0,
			GSPACE_SUBMIT_CHAIN, -1, NULL);
	c = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COPY_D2H, 0,
			GSPACE_SUBMIT_CHAIN, -1, NULL);
	ASSERT_ERRNO(ETIME, wait_raw(self->fd, b, GSPACE_WAIT_GRANTED, 0,
				     NULL));
	ASSERT_ERRNO(ETIME, wait_raw(self->fd, c, GSPACE_WAIT_GRANTED, 0,
				     NULL));
	ASSERT_OK(complete_raw(self->fd, a, 1, 0));
	t_wait_granted(_metadata, self->fd, b, GSP_SLOW_NS);
	ASSERT_ERRNO(ETIME, wait_raw(self->fd, c, GSPACE_WAIT_GRANTED, 0,
				     NULL));
	ASSERT_OK(complete_raw(self->fd, b, 1, 0));
	t_wait_granted(_metadata, self->fd, c, GSP_SLOW_NS);
	ASSERT_OK(complete_raw(self->fd, c, 1, 0));
}

TEST_F(fence, chain_after_failed_job_fails)
{
	struct gspace_wait w;
	uint64_t a, b;

	a = lease_running(_metadata, self, NULL);
	b = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_CHAIN, -1, NULL);
	ASSERT_OK(complete_raw(self->fd, a, 1, -EIO));
	ASSERT_OK(wait_raw(self->fd, b, 0, now_ns() + GSP_SLOW_NS, &w));
	ASSERT_EQ(-EIO, w.status);
}

TEST_F(fence, chain_after_cancelled_job_fails)
{
	uint64_t a0, a, b;

	a0 = lease_running(_metadata, self, NULL);
	a = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_CHAIN, -1, NULL);
	b = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_CHAIN, -1, NULL);
	ASSERT_OK(cancel_raw(self->fd, a));
	ASSERT_EQ(-ECANCELED, t_wait_end(_metadata, self->fd, b, GSP_SLOW_NS,
					 NULL));
	ASSERT_EQ(-ECANCELED, t_wait_end(_metadata, self->fd, a, GSP_SLOW_NS,
					 NULL));
	ASSERT_OK(complete_raw(self->fd, a0, 1, 0));
}

TEST_F(fence, chain_without_predecessor_runs)
{
	uint64_t h;

	h = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_CHAIN, -1, NULL);
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim, h, GSP_SLOW_NS, NULL));
	/* Its predecessor has ended and been waited for. */
	h = t_submit_fl(_metadata, self->sim, GSPACE_ENGINE_COPY_H2D, 0,
			GSPACE_SUBMIT_CHAIN, -1, NULL);
	ASSERT_EQ(0, t_wait_end(_metadata, self->sim, h, GSP_SLOW_NS, NULL));
}

TEST_HARNESS_MAIN
